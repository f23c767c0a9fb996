// libember's side of the CUDA plugin (cuda/plugin.h): the CUDA backend and ember::cuda's API, served
// by libember_cuda.so, which is loaded at the first call of any of them.
//
// Where the plugin cannot be loaded (no CUDA runtime or cuBLAS on this machine, the plugin file
// missing), CUDA reports no devices, as on a machine without a GPU, and asking for a CUDA tensor
// throws an ember::Error naming the file and the library that is missing. Seeding needs no plugin:
// the Philox stream of the CUDA dropout kernels is libember's (core/generator.h).
#include "core/generator.h"
#include "cuda/cuda.h"
#include "cuda/plugin.h"
#include "cuda/unavailable.h"

namespace ember {

namespace {

const PluginEntry& loaded() {
  static const PluginEntry entry =
      load_plugin(reinterpret_cast<const void*>(&cuda_backend), cuda::kPluginFile, cuda::kPluginEntry);
  return entry;
}

const cuda::PluginTable* plugin() { return static_cast<const cuda::PluginTable*>(loaded().table); }

Backend& unloaded_backend() {
  static cuda::UnavailableBackend backend(fmt::format(
      "CUDA: Ember's CUDA plugin could not be loaded ({}); the CUDA runtime and cuBLAS of CUDA 13 must be where "
      "the dynamic linker finds them (LD_LIBRARY_PATH, or /usr/local/cuda/lib64 in ld.so.conf), or use device cpu",
      loaded().error));
  return backend;
}

}  // namespace

Backend& cuda_backend() {
  const cuda::PluginTable* p = plugin();
  return p != nullptr ? *p->backend : unloaded_backend();
}

namespace cuda {
bool is_available() { return plugin() != nullptr && plugin()->is_available(); }
int device_count() { return plugin() != nullptr ? plugin()->device_count() : 0; }
void synchronize() {
  if (plugin() != nullptr) plugin()->synchronize();
}
void manual_seed(uint64_t seed) { philox_manual_seed(seed); }
size_t memory_allocated(int device) { return plugin() != nullptr ? plugin()->memory_allocated(device) : 0; }
size_t max_memory_allocated(int device) { return plugin() != nullptr ? plugin()->max_memory_allocated(device) : 0; }
size_t memory_reserved(int device) { return plugin() != nullptr ? plugin()->memory_reserved(device) : 0; }
void reset_peak_memory_stats(int device) {
  if (plugin() != nullptr) plugin()->reset_peak_memory_stats(device);
}
void empty_cache() {
  if (plugin() != nullptr) plugin()->empty_cache();
}
void set_allow_tf32(bool allow) {
  if (plugin() != nullptr) plugin()->set_allow_tf32(allow);
}
bool allow_tf32() { return plugin() != nullptr && plugin()->allow_tf32(); }
}  // namespace cuda

}  // namespace ember
