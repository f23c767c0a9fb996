// Plugin loading (core/plugin.h): dlopen beside the asking library, one entry symbol, a version.
#include "core/plugin.h"

#include <dlfcn.h>

#include <fmt/format.h>

namespace ember {

namespace {

std::string directory_of(const void* anchor) {
  Dl_info info{};
  if (dladdr(anchor, &info) == 0 || info.dli_fname == nullptr) return {};
  const std::string file = info.dli_fname;
  const size_t slash = file.rfind('/');
  return slash == std::string::npos ? std::string() : file.substr(0, slash + 1);
}

std::string last_dl_error() {
  const char* e = dlerror();
  return e != nullptr ? e : "unknown error";
}

}  // namespace

PluginEntry load_plugin(const void* anchor, const char* file, const char* entry) {
  PluginEntry result;
  result.path = directory_of(anchor) + file;
  // RTLD_NOW: a missing symbol or library is reported here, not as a crash at a later call.
  // RTLD_LOCAL: the plugin's symbols stay its own (its CUDA runtime, its copies of inline code).
  void* handle = dlopen(result.path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    result.error = fmt::format("cannot load {}: {}", result.path, last_dl_error());
    return result;
  }
  using Entry = const void* (*)();
  auto fn = reinterpret_cast<Entry>(dlsym(handle, entry));
  if (fn == nullptr) {
    result.error = fmt::format("{} has no entry point {}: {}", result.path, entry, last_dl_error());
    return result;
  }
  const void* table = fn();
  const uint32_t version = table != nullptr ? *static_cast<const uint32_t*>(table) : 0;
  if (version != kPluginAbiVersion) {
    result.error = fmt::format("{} is from another build of Ember (plugin interface version {}, this library's {})",
                               result.path, version, kPluginAbiVersion);
    return result;
  }
  // Never closed: the plugin's code and objects live until the process ends.
  result.table = table;
  return result;
}

}  // namespace ember
