// The TCP store's client, and make_tcp_store: rank 0 starts the server on MASTER_ADDR's interface
// and every rank (rank 0 too) connects as a client. The shared secret comes from EMBER_STORE_SECRET;
// a server on an address other than loopback without one is refused unless EMBER_STORE_INSECURE=1.
// Every read and write of the client has a deadline (the store's timeout), and every reply is
// checked (magic, version, status bytes, lengths within the bounds) before anything is allocated
// for it; a failure is an ember::Error naming the store's host and port. Not here: the server
// (tcp_store_server.cpp) and the protocol's state machine (tcp_store_session.cpp).
#include "distributed/tcp_store.h"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include "core/error.h"

namespace ember::distributed {
namespace tcp_store {
namespace {

using Clock = std::chrono::steady_clock;

constexpr auto kConnectRetryPause = std::chrono::milliseconds(20);
constexpr auto kWaitPollPause = std::chrono::milliseconds(5);

// What went wrong with one read or write, for the caller's message.
enum class IoResult { kOk, kClosed, kTimedOut, kFailed };

int ms_until(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return static_cast<int>(std::clamp<int64_t>(left, 0, 1 << 30));
}

// Waits for fd to be ready for `events` until the deadline.
IoResult wait_ready(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    pollfd p{fd, events, 0};
    const int rc = ::poll(&p, 1, ms_until(deadline));
    if (rc > 0) return IoResult::kOk;
    if (rc == 0) return IoResult::kTimedOut;
    if (errno != EINTR) return IoResult::kFailed;
  }
}

IoResult send_all(int fd, std::string_view data, Clock::time_point deadline) {
  while (!data.empty()) {
    const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n > 0) {
      data.remove_prefix(static_cast<size_t>(n));
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
      if (IoResult r = wait_ready(fd, POLLOUT, deadline); r != IoResult::kOk) return r;
    } else {
      return IoResult::kFailed;
    }
  }
  return IoResult::kOk;
}

IoResult recv_all(int fd, char* data, size_t size, Clock::time_point deadline) {
  while (size > 0) {
    const ssize_t n = ::recv(fd, data, size, 0);
    if (n > 0) {
      data += n;
      size -= static_cast<size_t>(n);
    } else if (n == 0) {
      return IoResult::kClosed;
    } else if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
      if (IoResult r = wait_ready(fd, POLLIN, deadline); r != IoResult::kOk) return r;
    } else {
      return IoResult::kFailed;
    }
  }
  return IoResult::kOk;
}

uint32_t read_u32(const char* p) {
  uint32_t x = 0;
  for (int i = 3; i >= 0; --i) x = (x << 8) | static_cast<uint8_t>(p[i]);
  return x;
}

std::string printable(std::string_view bytes) {
  std::string s;
  for (char ch : bytes) s += (ch >= 0x20 && ch < 0x7f) ? ch : '.';
  return s;
}

// A handshake that may be retried: nobody listening yet, or the server closed the connection
// before its greeting (a full waiting room). Anything else is final.
struct Retry {};

class TCPStoreClient final : public Store {
 public:
  // `server`: rank 0's own server, kept alive as long as this client.
  TCPStoreClient(std::string host, int port, std::string secret, std::chrono::milliseconds timeout,
                 std::unique_ptr<TCPStoreServer> server = nullptr)
      : server_(std::move(server)), host_(std::move(host)), port_(port), secret_(std::move(secret)) {
    set_timeout(timeout);
    connect(timeout);
  }
  ~TCPStoreClient() override {
    if (fd_ >= 0) ::close(fd_);
  }

  void set(const std::string& key, const std::vector<char>& value) override {
    check_key("set", key);
    EMBER_CHECK(value.size() <= kMaxValueBytes,
                "TCPStore.set: the value of key '{}' has {} bytes, over the store's bound of {} bytes", key,
                value.size(), kMaxValueBytes);
    std::string request = request_for(kSet, key);
    const auto length = static_cast<uint32_t>(value.size());
    for (int i = 0; i < 4; ++i) request.push_back(static_cast<char>((length >> (8 * i)) & 0xff));
    request.append(value.begin(), value.end());
    std::lock_guard lock(mutex_);
    const auto deadline = Clock::now() + timeout();
    exchange("setting '" + key + "'", request, deadline);
    expect_status("setting '" + key + "'", read_byte("setting '" + key + "'", deadline), 1);
  }

  std::vector<char> get(const std::string& key) override {
    check_key("get", key);
    wait({key}, timeout());
    std::lock_guard lock(mutex_);
    const std::string what = "reading '" + key + "'";
    const auto deadline = Clock::now() + timeout();
    exchange(what, request_for(kGet, key), deadline);
    char header[5];
    read_exact(what, header, sizeof header, deadline);
    expect_status(what, static_cast<uint8_t>(header[0]), 1);
    const uint32_t length = read_u32(header + 1);
    if (length > kMaxValueBytes)
      fail(what,
           fmt::format("the server announced a value of {} bytes, over the bound of {} bytes", length, kMaxValueBytes));
    std::vector<char> value(length);
    read_exact(what, value.data(), length, deadline);
    return value;
  }

  void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) override {
    const auto deadline = Clock::now() + timeout;
    for (const std::string& key : keys) {
      check_key("wait", key);
      while (!check(key)) {
        EMBER_CHECK(Clock::now() < deadline,
                    "TCPStore: waited {} ms for key '{}' at {}:{}; not every rank joined (check WORLD_SIZE and that "
                    "every rank started)",
                    timeout.count(), key, host_, port_);
        std::this_thread::sleep_for(kWaitPollPause);
      }
    }
  }

 private:
  [[noreturn]] void fail(const std::string& what, const std::string& why) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    broken_ = why;
    EMBER_FAIL("TCPStore at {}:{}: {} while {}", host_, port_, why, what);
  }

  void check_key(const char* op, const std::string& key) {
    EMBER_CHECK(key.size() <= kMaxKeyBytes, "TCPStore.{}: the key has {} bytes, over the store's bound of {} bytes", op,
                key.size(), kMaxKeyBytes);
  }

  static std::string request_for(Command command, const std::string& key) {
    std::string request(1, static_cast<char>(command));
    const auto length = static_cast<uint32_t>(key.size());
    for (int i = 0; i < 4; ++i) request.push_back(static_cast<char>((length >> (8 * i)) & 0xff));
    request += key;
    return request;
  }

  std::string describe(IoResult r) {
    switch (r) {
      case IoResult::kClosed:
        return "the server closed the connection (did rank 0 exit?)";
      case IoResult::kTimedOut:
        return fmt::format("no answer within the store's timeout of {} ms", timeout().count());
      default:
        return fmt::format("the connection failed: {}", std::strerror(errno));
    }
  }

  void exchange(const std::string& what, std::string_view request, Clock::time_point deadline) {
    if (fd_ < 0) EMBER_FAIL("TCPStore at {}:{}: the connection was lost earlier ({})", host_, port_, broken_);
    if (IoResult r = send_all(fd_, request, deadline); r != IoResult::kOk) fail(what, describe(r));
  }

  void read_exact(const std::string& what, char* data, size_t size, Clock::time_point deadline) {
    if (IoResult r = recv_all(fd_, data, size, deadline); r != IoResult::kOk) fail(what, describe(r));
  }

  uint8_t read_byte(const std::string& what, Clock::time_point deadline) {
    char b = 0;
    read_exact(what, &b, 1, deadline);
    return static_cast<uint8_t>(b);
  }

  void expect_status(const std::string& what, uint8_t status, uint8_t highest) {
    if (status > highest)
      fail(what, fmt::format("the server answered with the byte 0x{:02x}, which is not a store reply", status));
  }

  bool check(const std::string& key) {
    std::lock_guard lock(mutex_);
    const auto deadline = Clock::now() + timeout();
    const std::string what = "checking for '" + key + "'";
    exchange(what, request_for(kCheck, key), deadline);
    const uint8_t present = read_byte(what, deadline);
    expect_status(what, present, 1);
    return present != 0;
  }

  // Connects and shakes hands, retrying while nobody listens yet (rank 0 still starting).
  void connect(std::chrono::milliseconds timeout) {
    addrinfo hints{}, *res = nullptr;
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    const std::string port = std::to_string(port_);
    const int rc = ::getaddrinfo(host_.c_str(), port.c_str(), &hints, &res);
    EMBER_CHECK(rc == 0, "TCPStore: cannot resolve the master address '{}': {}", host_, ::gai_strerror(rc));
    sockaddr_in addr = *reinterpret_cast<sockaddr_in*>(res->ai_addr);
    ::freeaddrinfo(res);
    const auto deadline = Clock::now() + timeout;
    for (;;) {
      try {
        handshake(addr, deadline);
        return;
      } catch (const Retry&) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = -1;
      }
      if (Clock::now() >= deadline)
        EMBER_FAIL(
            "TCPStore: could not connect to the master at {}:{} within {} ms (is rank 0 running, and "
            "MASTER_ADDR/MASTER_PORT the same on every rank?)",
            host_, port_, timeout.count());
      std::this_thread::sleep_for(kConnectRetryPause);
    }
  }

  // A read of the handshake: a connection closed before the server answered is tried again (the
  // server drops the oldest waiting connection when too many wait).
  void handshake_read(char* data, size_t size, Clock::time_point deadline) {
    const IoResult r = recv_all(fd_, data, size, deadline);
    if (r == IoResult::kClosed) throw Retry{};
    if (r != IoResult::kOk) fail("connecting", describe(r));
  }

  void handshake(const sockaddr_in& addr, Clock::time_point deadline) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    EMBER_CHECK(fd_ >= 0, "TCPStore: socket() failed: {}", std::strerror(errno));
    if (::connect(fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
      if (errno != EINPROGRESS) throw Retry{};
      if (wait_ready(fd_, POLLOUT, deadline) != IoResult::kOk) throw Retry{};
      int err = 0;
      socklen_t len = sizeof err;
      if (::getsockopt(fd_, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0) throw Retry{};
    }
    int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);

    const std::string what = "connecting";
    char hello[kServerHelloBytes];
    // The magic first, so that another service on this port is named at once.
    handshake_read(hello, kServerMagic.size(), deadline);
    if (std::string_view(hello, kServerMagic.size()) != kServerMagic)
      fail(what, fmt::format("this is not an Ember TCPStore (it sent '{}' where the store's greeting begins); check "
                             "MASTER_ADDR and MASTER_PORT",
                             printable({hello, kServerMagic.size()})));
    handshake_read(hello + kServerMagic.size(), kServerHelloBytes - kServerMagic.size(), deadline);
    const uint16_t version =
        static_cast<uint16_t>(static_cast<uint8_t>(hello[8]) | (static_cast<uint8_t>(hello[9]) << 8));
    const uint16_t flags =
        static_cast<uint16_t>(static_cast<uint8_t>(hello[10]) | (static_cast<uint8_t>(hello[11]) << 8));
    if (version != kProtocolVersion)
      fail(what, fmt::format("the server speaks store protocol version {} and this Ember version {}; run the same "
                             "Ember on every rank",
                             version, kProtocolVersion));
    const bool server_wants_secret = (flags & kFlagSecret) != 0;
    if (server_wants_secret && secret_.empty())
      fail(what,
           "the server asks for a shared secret and this rank has none (set EMBER_STORE_SECRET to the same "
           "value on every rank)");
    if (!server_wants_secret && !secret_.empty())
      fail(what,
           "this rank has EMBER_STORE_SECRET set but the server does not ask for a secret, so it cannot prove "
           "it is rank 0's store (set EMBER_STORE_SECRET on rank 0 too)");
    Nonce server_nonce, client_nonce = random_nonce();
    std::memcpy(server_nonce.data(), hello + 12, kNonceBytes);
    if (IoResult r = send_all(fd_, client_hello(secret_, server_nonce, client_nonce), deadline); r != IoResult::kOk)
      fail(what, describe(r));

    char accept[kAcceptBytes];
    handshake_read(accept, kAcceptBytes, deadline);
    switch (static_cast<AcceptStatus>(accept[0])) {
      case AcceptStatus::kOk:
        break;
      case AcceptStatus::kBadVersion:
        fail(what, "the server does not speak this Ember's store protocol; run the same Ember on every rank");
      case AcceptStatus::kBadSecret:
        fail(what, "the server refused this rank's shared secret (EMBER_STORE_SECRET differs from rank 0's)");
      case AcceptStatus::kNotExpected:
        fail(what, "the server has no shared secret and this rank has one");
      case AcceptStatus::kFull:
        fail(what, fmt::format("the server already serves its maximum number of clients"));
      default:
        fail(what,
             fmt::format("the server answered the handshake with the byte 0x{:02x}", static_cast<uint8_t>(accept[0])));
    }
    if (!secret_.empty()) {
      Proof proof;
      std::memcpy(proof.data(), accept + 1, kProofBytes);
      if (!proofs_equal(proof, make_proof(secret_, kServerProofLabel, server_nonce, client_nonce)))
        fail(what, "the server could not prove it knows EMBER_STORE_SECRET (another service, or another secret)");
    }
  }

  std::unique_ptr<TCPStoreServer> server_;  // first, so that it stops last
  std::string host_;
  int port_;
  std::string secret_;
  int fd_ = -1;
  std::string broken_;  // why the connection was lost, for later calls
  std::mutex mutex_;
};

// Whether host is in 127.0.0.0/8. A name that does not resolve counts as loopback here, so that the
// server's constructor reports the name rather than the policy.
bool is_loopback(const std::string& host) {
  addrinfo hints{}, *res = nullptr;
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  if (::getaddrinfo(host.c_str(), nullptr, &hints, &res) != 0) return true;
  const uint32_t ip = ntohl(reinterpret_cast<sockaddr_in*>(res->ai_addr)->sin_addr.s_addr);
  ::freeaddrinfo(res);
  return (ip >> 24) == 127;
}

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

}  // namespace

std::shared_ptr<Store> make_tcp_store_client(const std::string& host, int port, const std::string& secret,
                                             std::chrono::milliseconds timeout) {
  return std::make_shared<TCPStoreClient>(host, port, secret, timeout);
}

}  // namespace tcp_store

std::shared_ptr<Store> make_tcp_store(const std::string& host, int port, bool is_master,
                                      std::chrono::milliseconds timeout) {
  using namespace tcp_store;
  const std::string secret = env_or_empty("EMBER_STORE_SECRET");
  EMBER_CHECK(secret.empty() || secret.size() >= kMinSecretBytes,
              "TCPStore: EMBER_STORE_SECRET has {} characters; use at least {} (for example the output of "
              "`openssl rand -hex 32`)",
              secret.size(), kMinSecretBytes);
  std::unique_ptr<TCPStoreServer> server;
  if (is_master) {
    ServerOptions options;
    const std::string bind = env_or_empty("EMBER_STORE_BIND");
    options.bind_host = bind.empty() ? host : bind;
    options.port = port;
    options.secret = secret;
    // torchrun's and ember-run's variables tell a job on several machines: there, a loopback address
    // (a host name that /etc/hosts maps to 127.0.1.1, say) is one the other machines cannot reach.
    const std::string world = env_or_empty("WORLD_SIZE"), local_world = env_or_empty("LOCAL_WORLD_SIZE");
    const bool several_machines =
        !world.empty() && !local_world.empty() && std::atoi(local_world.c_str()) < std::atoi(world.c_str());
    EMBER_CHECK(!several_machines || !is_loopback(options.bind_host),
                "TCPStore: rank 0 would serve the store on {}:{}, a loopback address, but the job spans several "
                "machines (WORLD_SIZE {}, LOCAL_WORLD_SIZE {}) whose ranks cannot reach it; set MASTER_ADDR to "
                "this machine's address on the network the machines share",
                options.bind_host, port, world, local_world);
    if (secret.empty() && !is_loopback(options.bind_host)) {
      EMBER_CHECK(env_or_empty("EMBER_STORE_INSECURE") == "1",
                  "TCPStore: rank 0 would serve the store on {}:{}, which other machines can reach, without a shared "
                  "secret: anyone who reaches the port could steer the job. Set EMBER_STORE_SECRET to the same "
                  "random value on every rank (export EMBER_STORE_SECRET=$(openssl rand -hex 32)), or "
                  "EMBER_STORE_INSECURE=1 to serve without one on a network you trust",
                  options.bind_host, port);
      EMBER_WARN(
          "TCPStore: serving on {}:{} without a shared secret (EMBER_STORE_INSECURE=1): any process that reaches "
          "this port can set keys and steer the job",
          options.bind_host, port);
    }
    server = std::make_unique<TCPStoreServer>(options);
  }
  return std::make_shared<TCPStoreClient>(host, port, secret, timeout, std::move(server));
}

}  // namespace ember::distributed
