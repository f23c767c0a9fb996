// The CUDA backend and ember::cuda's API where the backend is not linked in: loaded from the CUDA
// plugin, libember_cuda.so (cuda/plugin.h), in a build by nvcc; absent in a build without CUDA.
//
// Either way the API is served from one table. Without a plugin (none built, or it cannot load: no
// CUDA runtime or cuBLAS on this machine), CUDA reports no devices, as on a machine without a GPU,
// and every kernel of the backend throws one ember::Error saying why: "built without CUDA support",
// or the plugin's path and the library the dynamic linker did not find. Seeding needs no plugin: the
// Philox stream of the CUDA dropout kernels is libember's (core/generator.h).
#include <string>
#include <utility>

#include "core/backend.h"
#include "core/generator.h"
#include "cuda/cuda.h"
#include "cuda/plugin.h"

namespace ember {

namespace {

// The backend where there is none: every kernel throws `why_`.
class UnavailableBackend final : public Backend {
 public:
  explicit UnavailableBackend(std::string why) : why_(std::move(why)) {}
  const char* name() const override { return "cuda (unavailable)"; }
  void* allocate(size_t, Device) override { fail(); }
  void deallocate(void*, Device) override {}
  void copy_to_host(void*, const void*, size_t, Device) override { fail(); }
  void copy_from_host(void*, const void*, size_t, Device) override { fail(); }
#define EMBER_UNAVAILABLE_KERNEL(name, params, ...) \
  void name params override { fail(); }
  EMBER_BACKEND_KERNELS(EMBER_UNAVAILABLE_KERNEL)
#undef EMBER_UNAVAILABLE_KERNEL

 private:
  [[noreturn]] void fail() const { EMBER_FAIL("{}", why_); }
  std::string why_;
};

// No devices, nothing allocated, and a backend that says why.
cuda::PluginTable no_cuda(std::string why) {
  static UnavailableBackend backend(std::move(why));
  cuda::PluginTable t;
  t.backend = &backend;
  t.is_available = [] { return false; };
  t.device_count = [] { return 0; };
  t.synchronize = [] {};
  t.memory_allocated = [](int) { return size_t{0}; };
  t.max_memory_allocated = [](int) { return size_t{0}; };
  t.memory_reserved = [](int) { return size_t{0}; };
  t.reset_peak_memory_stats = [](int) {};
  t.empty_cache = [] {};
  t.set_allow_tf32 = [](bool) {};
  t.allow_tf32 = [] { return false; };
  return t;
}

const cuda::PluginTable& table() {
  static const cuda::PluginTable t = [] {
#ifdef EMBER_CUDA_PLUGIN_LOADER
    const PluginEntry entry =
        load_plugin(reinterpret_cast<const void*>(&cuda_backend), cuda::kPluginFile, cuda::kPluginEntry);
    if (entry.table != nullptr) return *static_cast<const cuda::PluginTable*>(entry.table);
    return no_cuda(fmt::format(
        "CUDA: Ember's CUDA plugin could not be loaded ({}); the CUDA runtime and cuBLAS of CUDA 13 must be where "
        "the dynamic linker finds them (LD_LIBRARY_PATH, or /usr/local/cuda/lib64 in ld.so.conf), or use device cpu",
        entry.error));
#else
    return no_cuda(
        "CUDA: Ember was built without CUDA support; rebuild with -DEMBER_CUDA=ON on a machine with the CUDA "
        "Toolkit, or use device cpu");
#endif
  }();
  return t;
}

}  // namespace

Backend& cuda_backend() { return *table().backend; }

namespace cuda {
bool is_available() { return table().is_available(); }
int device_count() { return table().device_count(); }
void synchronize() { table().synchronize(); }
void manual_seed(uint64_t seed) { philox_manual_seed(seed); }
size_t memory_allocated(int device) { return table().memory_allocated(device); }
size_t max_memory_allocated(int device) { return table().max_memory_allocated(device); }
size_t memory_reserved(int device) { return table().memory_reserved(device); }
void reset_peak_memory_stats(int device) { table().reset_peak_memory_stats(device); }
void empty_cache() { table().empty_cache(); }
void set_allow_tf32(bool allow) { table().set_allow_tf32(allow); }
bool allow_tf32() { return table().allow_tf32(); }
}  // namespace cuda

}  // namespace ember
