// The seam between libember and its CUDA plugin, libember_cuda.so (core/plugin.h).
//
// In a CUDA build by nvcc (EMBER_CUDA_PLUGIN, the default) the CUDA backend, its kernels, the CUDA
// runtime and cuBLAS live in the plugin: libember does not link them, and loads the plugin the
// first time a CUDA device or the ember::cuda API is used (cuda/loader.cpp). The plugin
// exports one C function, ember_cuda_plugin(), returning this table; everything else in it is
// hidden (it sees libember's symbols, libember sees only the table).
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/plugin.h"

namespace ember {

class Backend;

namespace cuda {

struct PluginTable {
  uint32_t abi_version = kPluginAbiVersion;  // first, as core/plugin.h requires
  Backend* backend = nullptr;
  // ember::cuda's API (cuda/cuda.h), implemented by the plugin's runtime (cuda/runtime.cpp).
  bool (*is_available)() = nullptr;
  int (*device_count)() = nullptr;
  void (*synchronize)() = nullptr;
  size_t (*memory_allocated)(int) = nullptr;
  size_t (*max_memory_allocated)(int) = nullptr;
  size_t (*memory_reserved)(int) = nullptr;
  void (*reset_peak_memory_stats)(int) = nullptr;
  void (*empty_cache)() = nullptr;
  void (*set_allow_tf32)(bool) = nullptr;
  bool (*allow_tf32)() = nullptr;
};

inline constexpr const char* kPluginFile = "libember_cuda.so";
inline constexpr const char* kPluginEntry = "ember_cuda_plugin";

}  // namespace cuda
}  // namespace ember

// What a symbol of the plugin that other libraries call needs (the entry; cuda::prepare and
// cuda::kernel_fault_hint, which the nccl plugin calls): default visibility where all else is hidden.
#define EMBER_CUDA_EXPORT __attribute__((visibility("default")))
