// The FileStore (Gloo's, on a shared directory) and init_process_group, which picks a store from the
// init method or torchrun's variables and makes the default group on it. The TCP store (c10d's idea:
// rank 0 serves a key-value map on host:port) is in tcp_store*.cpp.
#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <filesystem>

#include <gloo/rendezvous/file_store.h>

#include "core/error.h"
#include "core/plugin.h"
#include "cuda/cuda.h"
#include "distributed/process_group.h"

namespace ember::distributed {
namespace {

class FileStore final : public Store {
 public:
  explicit FileStore(const std::string& path) : path_(path) {
    std::filesystem::create_directories(path);
    store_ = std::make_unique<gloo::rendezvous::FileStore>(path);
  }
  void set(const std::string& key, const std::vector<char>& value) override { store_->set(key, value); }
  std::vector<char> get(const std::string& key) override {
    wait({key}, timeout());
    return store_->get(key);
  }
  void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) override {
    try {
      store_->wait(keys, timeout);
    } catch (const std::exception& e) {
      EMBER_FAIL("FileStore({}): waited {} ms for key '{}' that no rank wrote: {}", path_, timeout.count(),
                 keys.empty() ? "" : keys.front(), e.what());
    }
  }

 private:
  std::string path_;
  std::unique_ptr<gloo::rendezvous::FileStore> store_;
};

// ---- the default group ----

std::shared_ptr<ProcessGroup> default_group;

int env_int(const char* name, int fallback_if_missing, bool required) {
  const char* v = std::getenv(name);
  if (!v || !*v) {
    EMBER_CHECK(!required,
                "init_process_group: environment variable {} is not set (env:// reads MASTER_ADDR, MASTER_PORT, "
                "RANK and WORLD_SIZE, as torchrun and ember-run set them)",
                name);
    return fallback_if_missing;
  }
  char* end = nullptr;
  errno = 0;
  const long x = std::strtol(v, &end, 10);
  EMBER_CHECK(end != v && *end == '\0' && errno == 0 && x >= INT_MIN && x <= INT_MAX,
              "init_process_group: {}='{}' is not an integer", name, v);
  return static_cast<int>(x);
}

// A TCP port as text: digits only, 1..65535 (atoi's "abc" -> 0 and 95536 -> a wrapped 30000 are refused).
int parse_port(const std::string& text, const std::string& where) {
  constexpr long kMaxPort = 65535;
  const bool digits = !text.empty() && text.size() <= 5 &&
                      std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  const long port = digits ? std::strtol(text.c_str(), nullptr, 10) : 0;
  EMBER_CHECK(digits && port >= 1 && port <= kMaxPort,
              "init_process_group: {} port '{}' is not a port number (1 to 65535)", where, text);
  return static_cast<int>(port);
}

}  // namespace

std::shared_ptr<Store> make_file_store(const std::string& path) { return std::make_shared<FileStore>(path); }

#ifndef EMBER_WITH_MPI
std::shared_ptr<ProcessGroup> make_mpi_process_group() {
  EMBER_FAIL("createProcessGroupMPI: this Ember was built without MPI (apt-get install libopenmpi-dev and rebuild)");
}
#endif

#ifdef EMBER_NCCL_PLUGIN
// The nccl backend lives in libember_nccl.so beside this library, so that programs linking
// libember_distributed start without NCCL and the CUDA runtime (cuda/plugin.h).
std::shared_ptr<ProcessGroup> make_nccl_process_group(std::shared_ptr<Store> store, int rank, int world_size,
                                                      std::chrono::milliseconds timeout) {
  static const PluginEntry entry =
      load_plugin(reinterpret_cast<const void*>(&make_nccl_process_group), "libember_nccl.so", "ember_nccl_plugin");
  EMBER_CHECK(entry.table != nullptr,
              "init_process_group: the nccl backend could not be loaded ({}); NCCL and the CUDA runtime of CUDA 13 "
              "must be where the dynamic linker finds them (LD_LIBRARY_PATH), or use the gloo backend",
              entry.error);
  return static_cast<const NcclPluginTable*>(entry.table)->make(std::move(store), rank, world_size, timeout);
}
#endif

#ifndef EMBER_WITH_NCCL
std::shared_ptr<ProcessGroup> make_nccl_process_group(std::shared_ptr<Store>, int, int, std::chrono::milliseconds) {
  EMBER_FAIL(
      "init_process_group: this Ember was built without NCCL, so it has no nccl backend (it is built with the CUDA "
      "backend compiled by nvcc, -DEMBER_CUDA=ON or AUTO, when nccl.h and libnccl are found in the CUDA toolkit); "
      "use the gloo backend");
}
#endif

std::vector<char> exchange_unique_id(Store& store, int rank, const std::string& key,
                                     const std::function<std::vector<char>()>& create) {
  if (rank == 0) {
    std::vector<char> id = create();
    store.set(key, id);
    return id;
  }
  return store.get(key);
}

void init_process_group(const std::string& backend, const InitOptions& options) {
  EMBER_CHECK(!default_group, "init_process_group: trying to initialize the default process group twice");
  if (backend == "mpi") {
    default_group = make_mpi_process_group();
    return;
  }
  EMBER_CHECK(backend == "gloo" || backend == "nccl", "init_process_group: unknown backend '{}' (gloo, nccl or mpi)",
              backend);
  // Before the store, so that every rank fails at once rather than waiting for the others.
  if (backend == "nccl") {
#ifndef EMBER_WITH_NCCL
    make_nccl_process_group(nullptr, 0, 1, options.timeout);  // throws: why there is none
#endif
    EMBER_CHECK(cuda::device_count() > 0, "init_process_group: {}", kNcclNeedsAGpu);
  }
  const int rank = options.rank >= 0 ? options.rank : env_int("RANK", 0, true);
  const int world = options.world_size >= 0 ? options.world_size : env_int("WORLD_SIZE", 1, true);
  std::shared_ptr<Store> store;
  const std::string& method = options.init_method;
  if (method.rfind("file://", 0) == 0) {
    store = make_file_store(method.substr(7));
  } else {
    std::string host;
    int port = 0;
    if (method.rfind("tcp://", 0) == 0) {
      const std::string hp = method.substr(6);
      const auto colon = hp.rfind(':');
      EMBER_CHECK(colon != std::string::npos, "init_process_group: init_method '{}' needs tcp://host:port", method);
      host = hp.substr(0, colon);
      port = parse_port(hp.substr(colon + 1), "init_method '" + method + "':");
    } else {
      EMBER_CHECK(method.empty() || method == "env://",
                  "init_process_group: init_method '{}' is not file://PATH, tcp://HOST:PORT or env://", method);
      const char* addr = std::getenv("MASTER_ADDR");
      EMBER_CHECK(addr && *addr,
                  "init_process_group: environment variable MASTER_ADDR is not set (env:// reads "
                  "MASTER_ADDR, MASTER_PORT, RANK and WORLD_SIZE, as torchrun and ember-run set them)");
      host = addr;
      const char* port_text = std::getenv("MASTER_PORT");
      EMBER_CHECK(port_text && *port_text,
                  "init_process_group: environment variable MASTER_PORT is not set (env:// reads "
                  "MASTER_ADDR, MASTER_PORT, RANK and WORLD_SIZE, as torchrun and ember-run set them)");
      port = parse_port(port_text, "MASTER_PORT");
    }
    store = make_tcp_store(host, port, rank == 0, options.timeout);
  }
  store->set_timeout(options.timeout);
  default_group = backend == "nccl" ? make_nccl_process_group(store, rank, world, options.timeout)
                                    : make_gloo_process_group(store, rank, world, options.timeout);
}

bool is_initialized() { return default_group != nullptr; }

std::shared_ptr<ProcessGroup> default_process_group() {
  EMBER_CHECK(default_group,
              "Default process group has not been initialized, please make sure to call "
              "init_process_group.");
  return default_group;
}

void destroy_process_group() { default_group.reset(); }
int get_rank() { return default_process_group()->rank(); }
int get_world_size() { return default_process_group()->size(); }

}  // namespace ember::distributed
