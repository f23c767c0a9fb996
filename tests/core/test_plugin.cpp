// core/plugin.h's loader against a real library (tests/tools/test_plugin.cpp, built beside
// ember_tests), and, in a build with the CUDA plugin, that libember_cuda.so is the backend served.
#include <link.h>

#include <string>

#include "core/backend.h"
#include "core/plugin.h"
#include "test_util.h"

namespace ember {
namespace {

// Lives in ember_tests, so the loader looks in ember_tests' directory.
const void* here() { return reinterpret_cast<const void*>(&here); }

TEST(PluginLoader, LoadsTheTableOfALibraryBesideTheAskingProgram) {
  const PluginEntry entry = load_plugin(here(), "libember_test_plugin.so", "ember_test_plugin");
  ASSERT_NE(entry.table, nullptr) << entry.error;
  EXPECT_EQ(entry.error, "");
  struct Table {
    uint32_t abi_version;
    int answer;
  };
  EXPECT_EQ(static_cast<const Table*>(entry.table)->answer, 42);
  EXPECT_NE(entry.path.find("/libember_test_plugin.so"), std::string::npos) << entry.path;
}

TEST(PluginLoader, AMissingFileIsAnErrorNamingItsPath) {
  const PluginEntry entry = load_plugin(here(), "libember_no_such_plugin.so", "ember_test_plugin");
  EXPECT_EQ(entry.table, nullptr);
  EXPECT_NE(entry.error.find("cannot load "), std::string::npos) << entry.error;
  EXPECT_NE(entry.error.find("/libember_no_such_plugin.so"), std::string::npos) << entry.error;
  EXPECT_NE(entry.error.find("No such file"), std::string::npos) << entry.error;
}

TEST(PluginLoader, AMissingEntryPointIsAnErrorNamingIt) {
  const PluginEntry entry = load_plugin(here(), "libember_test_plugin.so", "ember_no_such_entry");
  EXPECT_EQ(entry.table, nullptr);
  EXPECT_NE(entry.error.find("has no entry point ember_no_such_entry"), std::string::npos) << entry.error;
}

TEST(PluginLoader, ATableOfAnotherVersionOrNoneIsRefused) {
  PluginEntry entry = load_plugin(here(), "libember_test_plugin.so", "ember_test_plugin_next_version");
  EXPECT_EQ(entry.table, nullptr);
  EXPECT_NE(entry.error.find(fmt::format("is from another build of Ember (plugin interface version {}, this "
                                         "library's {})",
                                         kPluginAbiVersion + 1, kPluginAbiVersion)),
            std::string::npos)
      << entry.error;
  entry = load_plugin(here(), "libember_test_plugin.so", "ember_test_plugin_without_table");
  EXPECT_EQ(entry.table, nullptr);
  EXPECT_NE(entry.error.find("plugin interface version 0"), std::string::npos) << entry.error;
}

#ifdef EMBER_CUDA_PLUGIN
// The path of the loaded object whose file name ends with `name`; "" when none is loaded.
std::string loaded_object(const std::string& name) {
  struct Search {
    std::string name, found;
  } search{"/" + name, ""};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto* s = static_cast<Search*>(data);
        const std::string path = info->dlpi_name != nullptr ? info->dlpi_name : "";
        if (path.size() >= s->name.size() && path.compare(path.size() - s->name.size(), s->name.size(), s->name) == 0)
          s->found = path;
        return 0;
      },
      &search);
  return search.found;
}

TEST(CudaPlugin, TheBackendComesFromLibemberCudaBesideLibember) {
  EXPECT_STREQ(cuda_backend().name(), "cuda");  // "cuda (unavailable)" when the plugin did not load
  const std::string plugin = loaded_object("libember_cuda.so");
  const std::string library = loaded_object("libember.so");
  ASSERT_NE(plugin, "");
  ASSERT_NE(library, "");
  EXPECT_EQ(plugin.substr(0, plugin.rfind('/')), library.substr(0, library.rfind('/')));
}
#endif

}  // namespace
}  // namespace ember
