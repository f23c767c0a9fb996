// Loading one of Ember's plugin libraries (libember_cuda.so, libember_nccl.so) at run time.
//
//   const PluginEntry& cuda = load_plugin(&anchor_function, "libember_cuda.so", "ember_cuda_plugin");
//   if (cuda.table == nullptr) EMBER_FAIL("...: {}", cuda.error);
//
// A plugin keeps a backend's libraries (the CUDA runtime, cuBLAS, NCCL) out of the programs' own
// dependencies: a CUDA-enabled build starts, and trains on the CPU, on a machine without them, and
// loads them only when a CUDA device is first asked for (docs/ARCHITECTURE.md, "The CUDA plugin").
// The plugin is looked for beside the library that asks for it (the file defining `anchor`), never
// on a path taken from the environment: what is loaded is code.
#pragma once

#include <cstdint>
#include <string>

namespace ember {

// Every plugin's entry function returns a table whose first member is this version; the loader
// refuses a table of another version (a plugin from another build of Ember).
inline constexpr uint32_t kPluginAbiVersion = 1;

struct PluginEntry {
  const void* table = nullptr;  // what the entry function returned; null when loading failed
  std::string path;             // the file tried
  std::string error;            // why it could not be used, naming the file and the missing piece
};

// Opens `file` from the directory of the library or program that defines `anchor`, resolves
// `entry` (an extern "C" function taking nothing and returning a table pointer) and calls it. The
// table's first member must be a uint32_t equal to kPluginAbiVersion. Never throws; the result
// says what failed. Not cached: callers load once (a function-local static).
PluginEntry load_plugin(const void* anchor, const char* file, const char* entry);

}  // namespace ember
