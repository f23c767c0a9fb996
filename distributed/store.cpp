// The rendezvous stores: FileStore (Gloo's, on a shared directory) and TCPStore (c10d's idea: the
// master rank serves a key-value map on host:port; clients set keys and poll for the ones they
// wait on), and init_process_group, which picks one from the init method or torchrun's variables.
// The TCP protocol is Ember's own (not c10d's wire format): one request, one reply, per message.
#include <netdb.h>
#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>

#include <arpa/inet.h>
#include <gloo/rendezvous/file_store.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include "core/error.h"
#include "cuda/cuda.h"
#include "distributed/process_group.h"

namespace ember::distributed {
namespace {

using Clock = std::chrono::steady_clock;

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

// ---- TCPStore ----

enum Command : uint8_t { kSet = 1, kCheck = 2, kGet = 3 };

bool read_all(int fd, void* data, size_t n) {
  auto* p = static_cast<char*>(data);
  while (n > 0) {
    ssize_t got = ::read(fd, p, n);
    if (got <= 0) {
      if (got < 0 && errno == EINTR) continue;
      return false;
    }
    p += got;
    n -= static_cast<size_t>(got);
  }
  return true;
}

bool write_all(int fd, const void* data, size_t n) {
  const auto* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t put = ::send(fd, p, n, MSG_NOSIGNAL);
    if (put <= 0) {
      if (put < 0 && errno == EINTR) continue;
      return false;
    }
    p += put;
    n -= static_cast<size_t>(put);
  }
  return true;
}

bool write_blob(int fd, const std::string& s) {
  uint32_t n = static_cast<uint32_t>(s.size());
  return write_all(fd, &n, sizeof n) && write_all(fd, s.data(), n);
}

bool read_blob(int fd, std::string& s) {
  uint32_t n = 0;
  if (!read_all(fd, &n, sizeof n)) return false;
  s.resize(n);
  return read_all(fd, s.data(), n);
}

// The master's side: a map of keys, one thread per client connection.
class TCPStoreServer {
 public:
  TCPStoreServer(const std::string& host, int port) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    EMBER_CHECK(listen_fd_ >= 0, "TCPStore: socket() failed: {}", std::strerror(errno));
    int one = 1;
    ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_ANY);
    if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(listen_fd_, 128) != 0) {
      const std::string why = std::strerror(errno);
      ::close(listen_fd_);
      EMBER_FAIL(
          "TCPStore: the master (rank 0) cannot listen on {}:{}: {} (is another run using this port? pick "
          "another MASTER_PORT)",
          host, port, why);
    }
    accept_thread_ = std::thread([this] { accept_loop(); });
  }

  ~TCPStoreServer() {
    stop_ = true;
    accept_thread_.join();
    for (auto& t : client_threads_) t.join();
    ::close(listen_fd_);
  }

 private:
  void accept_loop() {
    while (!stop_) {
      pollfd p{listen_fd_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      int fd = ::accept(listen_fd_, nullptr, nullptr);
      if (fd < 0) continue;
      client_threads_.emplace_back([this, fd] { serve(fd); });
    }
  }

  void serve(int fd) {
    while (!stop_) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      uint8_t cmd = 0;
      std::string key, value;
      if (!read_all(fd, &cmd, 1) || !read_blob(fd, key)) break;
      bool ok = true;
      if (cmd == kSet) {
        if (!read_blob(fd, value)) break;
        std::lock_guard lock(mutex_);
        data_[key] = value;
        uint8_t ack = 1;
        ok = write_all(fd, &ack, 1);
      } else if (cmd == kCheck) {
        std::lock_guard lock(mutex_);
        uint8_t present = data_.count(key) ? 1 : 0;
        ok = write_all(fd, &present, 1);
      } else if (cmd == kGet) {
        std::string v;
        {
          std::lock_guard lock(mutex_);
          auto it = data_.find(key);
          if (it != data_.end()) v = it->second;
        }
        ok = write_blob(fd, v);
      } else {
        break;
      }
      if (!ok) break;
    }
    ::close(fd);
  }

  int listen_fd_ = -1;
  std::atomic<bool> stop_{false};
  std::thread accept_thread_;
  std::vector<std::thread> client_threads_;
  std::mutex mutex_;
  std::map<std::string, std::string> data_;
};

class TCPStore final : public Store {
 public:
  TCPStore(const std::string& host, int port, bool is_master, std::chrono::milliseconds timeout)
      : host_(host), port_(port) {
    set_timeout(timeout);
    if (is_master) server_ = std::make_unique<TCPStoreServer>(host, port);
    connect_with_retry(timeout);
  }
  ~TCPStore() override {
    if (fd_ >= 0) ::close(fd_);
  }

  void set(const std::string& key, const std::vector<char>& value) override {
    std::lock_guard lock(mutex_);
    uint8_t cmd = kSet, ack = 0;
    EMBER_CHECK(write_all(fd_, &cmd, 1) && write_blob(fd_, key) &&
                    write_blob(fd_, std::string(value.begin(), value.end())) && read_all(fd_, &ack, 1),
                "TCPStore: lost the connection to the master at {}:{} while setting '{}' (did rank 0 exit?)", host_,
                port_, key);
  }

  std::vector<char> get(const std::string& key) override {
    wait({key}, timeout());
    std::lock_guard lock(mutex_);
    uint8_t cmd = kGet;
    std::string value;
    EMBER_CHECK(write_all(fd_, &cmd, 1) && write_blob(fd_, key) && read_blob(fd_, value),
                "TCPStore: lost the connection to the master at {}:{} while reading '{}' (did rank 0 exit?)", host_,
                port_, key);
    return {value.begin(), value.end()};
  }

  void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) override {
    const auto deadline = Clock::now() + timeout;
    for (const std::string& key : keys) {
      while (!check(key)) {
        EMBER_CHECK(Clock::now() < deadline,
                    "TCPStore: waited {} ms for key '{}' at {}:{}; not every rank joined (check WORLD_SIZE and that "
                    "every rank started)",
                    timeout.count(), key, host_, port_);
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
    }
  }

 private:
  bool check(const std::string& key) {
    std::lock_guard lock(mutex_);
    uint8_t cmd = kCheck, present = 0;
    EMBER_CHECK(write_all(fd_, &cmd, 1) && write_blob(fd_, key) && read_all(fd_, &present, 1),
                "TCPStore: lost the connection to the master at {}:{} (did rank 0 exit?)", host_, port_);
    return present != 0;
  }

  void connect_with_retry(std::chrono::milliseconds timeout) {
    addrinfo hints{}, *res = nullptr;
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    const std::string port = std::to_string(port_);
    int rc = ::getaddrinfo(host_.c_str(), port.c_str(), &hints, &res);
    EMBER_CHECK(rc == 0, "TCPStore: cannot resolve the master address '{}': {}", host_, ::gai_strerror(rc));
    const auto deadline = Clock::now() + timeout;
    for (;;) {
      fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
      if (::connect(fd_, res->ai_addr, res->ai_addrlen) == 0) break;
      ::close(fd_);
      fd_ = -1;
      if (Clock::now() >= deadline) {
        ::freeaddrinfo(res);
        EMBER_FAIL(
            "TCPStore: could not connect to the master at {}:{} within {} ms (is rank 0 running, and "
            "MASTER_ADDR/MASTER_PORT the same on every rank?)",
            host_, port_, timeout.count());
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ::freeaddrinfo(res);
    int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }

  std::string host_;
  int port_;
  std::unique_ptr<TCPStoreServer> server_;
  int fd_ = -1;
  std::mutex mutex_;
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
  long x = std::strtol(v, &end, 10);
  EMBER_CHECK(end && *end == '\0', "init_process_group: {}='{}' is not an integer", name, v);
  return static_cast<int>(x);
}

}  // namespace

std::shared_ptr<Store> make_file_store(const std::string& path) { return std::make_shared<FileStore>(path); }

std::shared_ptr<Store> make_tcp_store(const std::string& host, int port, bool is_master,
                                      std::chrono::milliseconds timeout) {
  return std::make_shared<TCPStore>(host, port, is_master, timeout);
}

#ifndef EMBER_WITH_MPI
std::shared_ptr<ProcessGroup> make_mpi_process_group() {
  EMBER_FAIL("createProcessGroupMPI: this Ember was built without MPI (apt-get install libopenmpi-dev and rebuild)");
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
      port = std::atoi(hp.c_str() + colon + 1);
    } else {
      EMBER_CHECK(method.empty() || method == "env://",
                  "init_process_group: init_method '{}' is not file://PATH, tcp://HOST:PORT or env://", method);
      const char* addr = std::getenv("MASTER_ADDR");
      EMBER_CHECK(addr && *addr,
                  "init_process_group: environment variable MASTER_ADDR is not set (env:// reads "
                  "MASTER_ADDR, MASTER_PORT, RANK and WORLD_SIZE, as torchrun and ember-run set them)");
      host = addr;
      port = env_int("MASTER_PORT", 0, true);
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
