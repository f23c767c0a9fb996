// The CUDA backend where there is none: every kernel throws one ember::Error saying why.
//
// Used by a build without CUDA (cuda/stub.cpp: "built without CUDA support") and by a plugin build
// whose plugin could not be loaded (cuda/plugin_loader.cpp: which file or library is missing), so
// that code asking for a CUDA tensor gets that reason, never a crash or a link failure.
#pragma once

#include <string>
#include <utility>

#include "core/backend.h"

namespace ember::cuda {

class UnavailableBackend final : public Backend {
 public:
  // `why`: the whole message, starting with "CUDA: ".
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

}  // namespace ember::cuda
