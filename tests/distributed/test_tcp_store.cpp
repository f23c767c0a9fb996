// The TCP store as a service facing a network, on the loopback, in one process: each attack a hostile
// client (or a hostile server) can make, one test each, and what must still hold afterwards (the
// server alive, a real rank served, the server stopping at once). Servers take port 0 (any free
// port), so these tests never meet each other or the real-process tests' ports.
#include <dirent.h>
#include <poll.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "core/error.h"
#include "distributed/tcp_store.h"

namespace {

namespace ts = ember::distributed::tcp_store;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

const std::string kSecret = "test-secret-0123456789abcdef";

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// A raw TCP connection to 127.0.0.1:port, as an attacker would open one.
int raw_connect(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0) << std::strerror(errno);
  return fd;
}

void send_bytes(int fd, const std::string& bytes) {
  EXPECT_EQ(::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL), static_cast<ssize_t>(bytes.size()));
}

// Reads exactly n bytes (or fewer if the peer closes first), waiting up to 2 s.
std::string read_bytes(int fd, size_t n) {
  std::string out;
  const auto deadline = Clock::now() + std::chrono::seconds(2);
  while (out.size() < n && Clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    char buf[256];
    const ssize_t got = ::recv(fd, buf, std::min(sizeof buf, n - out.size()), 0);
    if (got <= 0) break;
    out.append(buf, static_cast<size_t>(got));
  }
  return out;
}

// True when the server closes fd within `within` (reading and dropping whatever it still sends).
bool closed_by_server(int fd, milliseconds within) {
  const auto deadline = Clock::now() + within;
  while (Clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 20) <= 0) continue;
    char buf[256];
    const ssize_t got = ::recv(fd, buf, sizeof buf, 0);
    if (got <= 0) return true;
  }
  return false;
}

std::string u32(uint32_t x) {
  std::string out;
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((x >> (8 * i)) & 0xff));
  return out;
}

std::string request(ts::Command command, const std::string& key) {
  return std::string(1, static_cast<char>(command)) + u32(static_cast<uint32_t>(key.size())) + key;
}

// A raw connection that has passed the handshake (with `secret`), ready for raw requests.
int raw_authenticated(int port, const std::string& secret = "") {
  const int fd = raw_connect(port);
  const std::string hello = read_bytes(fd, ts::kServerHelloBytes);
  EXPECT_EQ(hello.size(), ts::kServerHelloBytes);
  ts::Nonce server_nonce, client_nonce{};
  std::memcpy(server_nonce.data(), hello.data() + 12, ts::kNonceBytes);
  send_bytes(fd, ts::client_hello(secret, server_nonce, client_nonce));
  const std::string accept = read_bytes(fd, ts::kAcceptBytes);
  EXPECT_EQ(accept.size(), ts::kAcceptBytes);
  EXPECT_EQ(accept[0], 0) << "the handshake was refused";
  return fd;
}

// Server options: the defaults, with a secret (or none) and the limits a test narrows.
ts::ServerOptions options(const std::string& secret, int max_clients = 1024, int max_pending = 64,
                          milliseconds handshake_timeout = milliseconds(5000),
                          milliseconds request_timeout = milliseconds(10000)) {
  ts::ServerOptions o;
  o.secret = secret;
  o.max_clients = max_clients;
  o.max_pending = max_pending;
  o.handshake_timeout = handshake_timeout;
  o.request_timeout = request_timeout;
  return o;
}

std::shared_ptr<ember::distributed::Store> client(int port, const std::string& secret = "",
                                                  milliseconds timeout = milliseconds(3000)) {
  return ts::make_tcp_store_client("127.0.0.1", port, secret, timeout);
}

// A real rank's round trip through the store: what must keep working after each attack.
void expect_served(int port, const std::string& secret = "") {
  auto store = client(port, secret);
  const std::vector<char> value = {'o', 'k', '\0', '\xff'};
  store->set("alive", value);
  EXPECT_EQ(store->get("alive"), value);
}

std::string thrown_by(const std::function<void()>& f) {
  try {
    f();
  } catch (const ember::Error& e) {
    return e.what();
  }
  return "(nothing thrown)";
}

int thread_count() {
  int n = 0;
  if (DIR* dir = ::opendir("/proc/self/task")) {
    while (dirent* e = ::readdir(dir))
      if (e->d_name[0] != '.') ++n;
    ::closedir(dir);
  }
  return n;
}

int64_t rss_kib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::atoll(line.c_str() + 6);
  return -1;
}

// Waits until pred() holds, up to 3 s.
bool eventually(const std::function<bool()>& pred) {
  const auto deadline = Clock::now() + std::chrono::seconds(3);
  while (!pred()) {
    if (Clock::now() > deadline) return false;
    std::this_thread::sleep_for(milliseconds(5));
  }
  return true;
}

TEST(TCPStore, SetGetWaitBetweenTwoClients) {
  ts::TCPStoreServer server(options(kSecret));
  auto a = client(server.port(), kSecret), b = client(server.port(), kSecret);
  std::thread writer([&] {
    std::this_thread::sleep_for(milliseconds(50));
    a->set("rank_1", {'x', 'y'});
  });
  EXPECT_EQ(b->get("rank_1"), (std::vector<char>{'x', 'y'}));  // waits for the writer
  writer.join();
  const std::string error = thrown_by([&] { b->wait({"never"}, milliseconds(100)); });
  EXPECT_NE(error.find("waited 100 ms for key 'never' at 127.0.0.1:" + std::to_string(server.port())),
            std::string::npos)
      << error;
}

// The 5-byte message: a length of 0xFFFFFFFF, before and after the handshake.
TEST(TCPStore, LengthFieldOfFFFFFFFFClosesThatClientAndTheServerGoesOn) {
  ts::TCPStoreServer server(options(""));
  const int64_t rss_before = rss_kib();
  const int stranger = raw_connect(server.port());
  send_bytes(stranger, "\x01\xff\xff\xff\xff");
  EXPECT_TRUE(closed_by_server(stranger, milliseconds(2000)));
  const int key_length = raw_authenticated(server.port());
  send_bytes(key_length, "\x01\xff\xff\xff\xff");
  EXPECT_TRUE(closed_by_server(key_length, milliseconds(2000)));
  const int value_length = raw_authenticated(server.port());
  send_bytes(value_length, request(ts::kSet, "k") + u32(0xffffffffu));
  EXPECT_TRUE(closed_by_server(value_length, milliseconds(2000)));
  EXPECT_LT(rss_kib() - rss_before, 64 * 1024) << "the server set memory aside for an announced length";
  for (int fd : {stranger, key_length, value_length}) ::close(fd);
  expect_served(server.port());
}

TEST(TCPStore, ConnectionFloodKeepsOneServerThreadAndBoundedMemory) {
  ts::TCPStoreServer server(options(""));
  const int threads_before = thread_count();
  const int64_t rss_before = rss_kib();
  constexpr int kConnections = 2000;
  for (int i = 0; i < kConnections; ++i) ::close(raw_connect(server.port()));
  EXPECT_EQ(thread_count(), threads_before) << "the server made threads per connection";
  EXPECT_TRUE(eventually([&] {
    return server.accepted_connections() == kConnections && server.open_connections() == 0;
  })) << server.accepted_connections()
      << " accepted, " << server.open_connections() << " still open";
  EXPECT_LT(rss_kib() - rss_before, 32 * 1024);
  expect_served(server.port());
}

// Connections that never finish the handshake fill the waiting room; each newcomer displaces the
// oldest, so a real rank (which answers at once) gets in at once, long before any times out.
TEST(TCPStore, HeldConnectionsGiveWayToARealRank) {
  ts::TCPStoreServer server(options(kSecret, 4, 8, std::chrono::seconds(30)));
  std::vector<int> held;
  for (int i = 0; i < 40; ++i) held.push_back(raw_connect(server.port()));
  EXPECT_TRUE(eventually([&] { return server.accepted_connections() == 40; }));
  EXPECT_LE(server.open_connections(), 8);
  const auto start = Clock::now();
  expect_served(server.port(), kSecret);
  EXPECT_LT(seconds_since(start), 1.0);
  for (int fd : held) ::close(fd);
}

TEST(TCPStore, SilentConnectionsAreClosedAfterTheHandshakeTimeout) {
  ts::TCPStoreServer server(options(kSecret, 4, 8, milliseconds(300)));
  const int silent = raw_connect(server.port());
  const auto start = Clock::now();
  EXPECT_TRUE(closed_by_server(silent, milliseconds(3000)));
  EXPECT_GT(seconds_since(start), 0.25);
  EXPECT_LT(seconds_since(start), 1.5);
  ::close(silent);
}

// Without a secret anyone on the machine passes the handshake: max_clients bounds them, and the
// rank beyond it gets an error that says so.
TEST(TCPStore, ClientsBeyondMaxClientsAreRefusedWithAClearError) {
  ts::TCPStoreServer server(options("", 3));
  std::vector<int> held;
  for (int i = 0; i < 3; ++i) held.push_back(raw_authenticated(server.port()));
  const std::string error = thrown_by([&] { client(server.port()); });
  EXPECT_NE(error.find("maximum number of clients"), std::string::npos) << error;
  ::close(held.back());
  held.pop_back();
  EXPECT_TRUE(eventually([&] { return server.open_connections() == 2; }));
  expect_served(server.port());
  for (int fd : held) ::close(fd);
}

TEST(TCPStore, OneByteThenSilenceNeitherHoldsTheServerNorItsShutdown) {
  auto server = std::make_unique<ts::TCPStoreServer>(options("", 1024, 64, milliseconds(5000), milliseconds(300)));
  const int stranger = raw_connect(server->port());
  send_bytes(stranger, "E");
  const int half_request = raw_authenticated(server->port());
  send_bytes(half_request, "\x03");
  EXPECT_TRUE(closed_by_server(half_request, milliseconds(2000))) << "a request left half-sent was not closed";
  const int idle = raw_authenticated(server->port());
  send_bytes(idle, "\x02\x05");
  expect_served(server->port());
  const auto start = Clock::now();
  server.reset();
  EXPECT_LT(seconds_since(start), 0.5) << "the server waited for its clients to stop";
  EXPECT_TRUE(closed_by_server(stranger, milliseconds(500)));
  for (int fd : {stranger, half_request, idle}) ::close(fd);
}

TEST(TCPStore, WrongMagicVersionOrSecretIsRejectedAndSetsNothing) {
  ts::TCPStoreServer server(options(kSecret));
  const int http = raw_connect(server.port());
  send_bytes(http, "GET / HTTP/1.0\r\n\r\n");
  EXPECT_TRUE(closed_by_server(http, milliseconds(2000)));

  // A forged handshake (a proof of zeros, then a set pipelined behind it): refused, nothing set.
  const int forger = raw_connect(server.port());
  const std::string hello = read_bytes(forger, ts::kServerHelloBytes);
  ASSERT_EQ(hello.size(), ts::kServerHelloBytes);
  EXPECT_EQ(hello.substr(0, 8), "EMBSTORS");
  EXPECT_EQ(hello[10], 1) << "the server does not announce that it wants a secret";
  std::string forged = ts::client_hello("", {}, {});
  forged[10] = 1;  // claims a secret
  send_bytes(forger, forged + request(ts::kSet, "rank_0") + u32(1) + "x");
  const std::string accept = read_bytes(forger, ts::kAcceptBytes);
  ASSERT_FALSE(accept.empty());
  EXPECT_EQ(accept[0], static_cast<char>(ts::AcceptStatus::kBadSecret));
  EXPECT_TRUE(closed_by_server(forger, milliseconds(2000)));

  std::string old_version = ts::client_hello(kSecret, {}, {});
  old_version[8] = 9;
  const int other_version = raw_connect(server.port());
  read_bytes(other_version, ts::kServerHelloBytes);
  send_bytes(other_version, old_version);
  EXPECT_EQ(read_bytes(other_version, 1), std::string(1, static_cast<char>(ts::AcceptStatus::kBadVersion)));

  EXPECT_NE(
      thrown_by([&] { client(server.port(), "another-secret-0123456789"); }).find("refused this rank's shared secret"),
      std::string::npos);
  EXPECT_NE(thrown_by([&] { client(server.port()); }).find("asks for a shared secret and this rank has none"),
            std::string::npos);
  auto rank = client(server.port(), kSecret);
  EXPECT_NE(thrown_by([&] { rank->wait({"rank_0"}, milliseconds(50)); }).find("waited 50 ms for key 'rank_0'"),
            std::string::npos)
      << "the forged connection set a key";
  for (int fd : {http, forger, other_version}) ::close(fd);
}

TEST(TCPStore, ARankWithASecretRefusesAServerWithout) {
  ts::TCPStoreServer server(options(""));
  const std::string error = thrown_by([&] { client(server.port(), kSecret); });
  EXPECT_NE(error.find("the server does not ask for a secret"), std::string::npos) << error;
}

// A fake server on port 0 that runs `serve` on the first connection it accepts.
class FakeServer {
 public:
  explicit FakeServer(std::function<void(int)> serve) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    EXPECT_EQ(::listen(listen_fd_, 8), 0);
    socklen_t len = sizeof addr;
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    if (serve) {
      thread_ = std::thread([this, serve] {
        pollfd p{listen_fd_, POLLIN, 0};
        if (::poll(&p, 1, 5000) <= 0) return;
        const int fd = ::accept(listen_fd_, nullptr, nullptr);
        serve(fd);
        closed_by_server(fd, milliseconds(3000));  // until the client gives up
        ::close(fd);
      });
    }
  }
  ~FakeServer() {
    if (thread_.joinable()) thread_.join();
    ::close(listen_fd_);
  }
  int port() const { return port_; }

 private:
  int listen_fd_ = -1;
  int port_ = 0;
  std::thread thread_;
};

// The client's error, and how long it took, against a fake server. The timeout is long where the
// client must fail at once, so that a busy machine cannot turn the error into a timeout.
std::pair<std::string, double> client_error(const FakeServer& server,
                                            const std::function<void(ember::distributed::Store&)>& use = {},
                                            milliseconds timeout = milliseconds(5000)) {
  const auto start = Clock::now();
  const std::string error = thrown_by([&] {
    auto store = client(server.port(), "", timeout);
    if (use) use(*store);
  });
  return {error, seconds_since(start)};
}

TEST(TCPStore, ClientGivesUpOnAServerThatNeverAnswers) {
  FakeServer silent(nullptr);  // the kernel completes the connection; nobody ever writes
  auto [error, took] = client_error(silent, {}, milliseconds(400));
  EXPECT_NE(error.find("TCPStore at 127.0.0.1:" + std::to_string(silent.port())), std::string::npos) << error;
  EXPECT_NE(error.find("no answer within the store's timeout of 400 ms"), std::string::npos) << error;
  EXPECT_LT(took, 2.0);
}

TEST(TCPStore, ClientNamesAnotherServiceOnThePort) {
  FakeServer ssh([](int fd) { send_bytes(fd, "SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n"); });
  auto [error, took] = client_error(ssh);
  EXPECT_NE(error.find("127.0.0.1:" + std::to_string(ssh.port()) +
                       ": this is not an Ember TCPStore (it sent "
                       "'SSH-2.0-'"),
            std::string::npos)
      << error;
  EXPECT_LT(took, 1.0) << "the client waited for its timeout";
}

// A server that passes the handshake, then answers `reply` to the client's first request.
std::function<void(int)> handshake_then(std::string reply) {
  return [reply](int fd) {
    ts::Nonce nonce{};
    send_bytes(fd, ts::server_hello(false, nonce));
    read_bytes(fd, ts::kClientHelloBytes);
    send_bytes(fd, std::string(ts::kAcceptBytes, '\0'));
    read_bytes(fd, 5 + 3);  // a check or get of a 3-byte key
    send_bytes(fd, reply);
  };
}

TEST(TCPStore, ClientRejectsAHugeAnnouncedLengthWithoutAllocating) {
  // 0x01 answers the wait's check; 0x01 and a length of 0xFFFFFFFF answer the get.
  FakeServer liar(handshake_then(std::string("\x01\x01\xff\xff\xff\xff", 6)));
  auto [error, took] = client_error(liar, [](ember::distributed::Store& s) {
    const int64_t rss_before = rss_kib();
    try {
      s.get("key");
    } catch (...) {
      EXPECT_LT(rss_kib() - rss_before, 64 * 1024);
      throw;
    }
  });
  EXPECT_NE(error.find("over the bound of 1048576 bytes"), std::string::npos) << error;
}

TEST(TCPStore, ClientRejectsAReplyThatIsNoStoreReply) {
  FakeServer liar(handshake_then("\x7f"));
  auto [error, took] = client_error(liar, [](ember::distributed::Store& s) { s.wait({"key"}, milliseconds(400)); });
  EXPECT_NE(error.find("the byte 0x7f, which is not a store reply"), std::string::npos) << error;
}

TEST(TCPStore, ClientRejectsAServerThatCannotProveTheSecret) {
  FakeServer impostor([](int fd) {
    send_bytes(fd, ts::server_hello(true, ts::Nonce{}));
    read_bytes(fd, ts::kClientHelloBytes);
    send_bytes(fd, std::string(ts::kAcceptBytes, '\0'));  // status ok, a proof of zeros
  });
  const std::string error = thrown_by([&] { client(impostor.port(), kSecret); });
  EXPECT_NE(error.find("could not prove it knows EMBER_STORE_SECRET"), std::string::npos) << error;
}

TEST(TCPStore, ClientChecksKeyAndValueSizesBeforeSending) {
  ts::TCPStoreServer server(options(""));
  auto store = client(server.port());
  EXPECT_NE(
      thrown_by([&] { store->set(std::string(ts::kMaxKeyBytes + 1, 'k'), {}); }).find("over the store's bound of 4096"),
      std::string::npos);
  EXPECT_NE(thrown_by([&] {
              store->set("k", std::vector<char>(ts::kMaxValueBytes + 1));
            }).find("has 1048577 bytes, over the store's bound of 1048576"),
            std::string::npos);
  store->set("k", std::vector<char>(ts::kMaxValueBytes, 'v'));  // the bound itself is fine
  EXPECT_EQ(store->get("k").size(), ts::kMaxValueBytes);
}

// make_tcp_store's policy: a short secret, or a server other machines can reach without a secret, is
// refused (unless EMBER_STORE_INSECURE=1).
TEST(TCPStore, MakeTcpStoreRefusesAReachableServerWithoutASecret) {
  ::unsetenv("EMBER_STORE_INSECURE");
  ::setenv("EMBER_STORE_BIND", "0.0.0.0", 1);
  std::string error = thrown_by([] { ember::distributed::make_tcp_store("127.0.0.1", 1, true, milliseconds(100)); });
  EXPECT_NE(error.find("would serve the store on 0.0.0.0:1, which other machines can reach, without a shared secret"),
            std::string::npos)
      << error;
  ::setenv("EMBER_STORE_SECRET", "short", 1);
  error = thrown_by([] { ember::distributed::make_tcp_store("127.0.0.1", 1, true, milliseconds(100)); });
  EXPECT_NE(error.find("EMBER_STORE_SECRET has 5 characters; use at least 16"), std::string::npos) << error;
  ::unsetenv("EMBER_STORE_SECRET");
  ::unsetenv("EMBER_STORE_BIND");
}

// On several machines (WORLD_SIZE over LOCAL_WORLD_SIZE), a store on loopback is one the other
// machines' ranks could never reach: said at once rather than after their timeout.
TEST(TCPStore, MakeTcpStoreRefusesLoopbackForAJobOnSeveralMachines) {
  ::setenv("WORLD_SIZE", "8", 1);
  ::setenv("LOCAL_WORLD_SIZE", "4", 1);
  const std::string error =
      thrown_by([] { ember::distributed::make_tcp_store("127.0.0.1", 1, true, milliseconds(100)); });
  EXPECT_NE(error.find("127.0.0.1:1, a loopback address, but the job spans several machines (WORLD_SIZE 8, "
                       "LOCAL_WORLD_SIZE 4)"),
            std::string::npos)
      << error;
  ::unsetenv("WORLD_SIZE");
  ::unsetenv("LOCAL_WORLD_SIZE");
}

// A port that is not 1..65535 in digits is refused before anything listens: atoi read "abc" as port 0
// (any free port) and 95536 was wrapped to 30000 by the socket call.
TEST(TCPStore, InitProcessGroupRefusesPortsThatAreNotPorts) {
  namespace dist = ember::distributed;
  for (const char* bad : {"abc", "95536", "0", "-1", "80x", ""}) {
    const std::string method = std::string("tcp://127.0.0.1:") + bad;
    const std::string error =
        thrown_by([&] { dist::init_process_group("gloo", {.init_method = method, .rank = 0, .world_size = 1}); });
    EXPECT_NE(error.find(std::string("port '") + bad + "' is not a port number (1 to 65535)"), std::string::npos)
        << method << ": " << error;
  }
  ::setenv("MASTER_ADDR", "127.0.0.1", 1);
  ::setenv("MASTER_PORT", "95536", 1);
  const std::string error = thrown_by([] { dist::init_process_group("gloo", {.rank = 0, .world_size = 1}); });
  EXPECT_NE(error.find("MASTER_PORT port '95536' is not a port number (1 to 65535)"), std::string::npos) << error;
  ::unsetenv("MASTER_ADDR");
  ::unsetenv("MASTER_PORT");
  EXPECT_FALSE(dist::is_initialized());
}

}  // namespace
