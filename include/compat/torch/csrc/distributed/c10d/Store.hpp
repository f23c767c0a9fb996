// libtorch's c10d stores (<torch/csrc/distributed/c10d/Store.hpp>, FileStore.hpp, TCPStore.hpp) on
// Ember's (ember::distributed::make_file_store, make_tcp_store), for the process groups that meet
// through one, such as ProcessGroupNCCL:
//
//   c10d::TCPStoreOptions opts;
//   opts.port = 29500;
//   opts.isServer = rank == 0;
//   auto store = c10::make_intrusive<c10d::TCPStore>("127.0.0.1", opts);
//   store->set("key", {1, 2, 3});
//
// set, get and the timeout; not here: add, compareSet, deleteKey, numKeys.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <torch/csrc/distributed/c10d/Types.hpp>

namespace c10d {

class Store {
 public:
  static constexpr std::chrono::milliseconds kDefaultTimeout = std::chrono::seconds(300);
  explicit Store(std::shared_ptr<ember::distributed::Store> store) : store_(std::move(store)) {}
  virtual ~Store() = default;

  void set(const std::string& key, const std::vector<uint8_t>& value) {
    store_->set(key, std::vector<char>(value.begin(), value.end()));
  }
  std::vector<uint8_t> get(const std::string& key) {
    const std::vector<char> v = store_->get(key);
    return std::vector<uint8_t>(v.begin(), v.end());
  }
  void setTimeout(const std::chrono::milliseconds& timeout) { store_->set_timeout(timeout); }
  std::chrono::milliseconds getTimeout() const { return store_->timeout(); }

  // The Ember store underneath, for Ember's process groups.
  const std::shared_ptr<ember::distributed::Store>& ember_store() const { return store_; }

 private:
  std::shared_ptr<ember::distributed::Store> store_;
};

class FileStore : public Store {
 public:
  FileStore(const std::string& path, int /*numWorkers*/) : Store(ember::distributed::make_file_store(path)) {}
};

struct TCPStoreOptions {
  std::uint16_t port = 29500;
  bool isServer = false;
  std::optional<std::size_t> numWorkers;
  bool waitWorkers = true;
  std::chrono::milliseconds timeout = Store::kDefaultTimeout;
  bool multiTenant = false;
};

class TCPStore : public Store {
 public:
  explicit TCPStore(std::string host, const TCPStoreOptions& opts = {})
      : Store(ember::distributed::make_tcp_store(host, opts.port, opts.isServer, opts.timeout)) {
    setTimeout(opts.timeout);
  }
};

}  // namespace c10d
