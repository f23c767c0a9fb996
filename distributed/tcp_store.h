// The TCP rendezvous store's pieces, for make_tcp_store (tcp_store.cpp), its tests and its fuzz target:
// the wire format, the server's per-connection protocol as a state machine that does no I/O
// (StoreSession: bytes in, bytes out), the server's event loop (TCPStoreServer) and the client.
//
//   ServerOptions options;            // 127.0.0.1, port 0: any free port
//   options.secret = "at least 16 characters";
//   TCPStoreServer server(options);
//   auto client = make_tcp_store_client("127.0.0.1", server.port(), options.secret, std::chrono::seconds(5));
//   client->set("k", {'v'});
//
// The protocol (all integers little-endian) is Ember's own, not c10d's:
//   server -> client  ServerHello  "EMBSTORS" u16 version, u16 flags (1: a secret is required), nonce[32]
//   client -> server  ClientHello  "EMBSTORC" u16 version, u16 flags (1: has a secret), nonce[32], proof[32]
//   server -> client  Accept       u8 status (AcceptStatus), proof[32]
//   then requests     u8 command, u32 key length, key, and for kSet: u32 value length, value
//   and replies       kSet: u8 1;  kCheck: u8 0/1 (present);  kGet: u8 0/1 (present), u32 length, value
// A proof is HMAC-SHA256(secret, label || server nonce || client nonce), the client's and the
// server's with different labels, so each side shows it knows the secret without sending it; without
// a secret both are zeros. Any malformed or oversized message closes that one connection.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include "distributed/process_group.h"

namespace ember::distributed::tcp_store {

inline constexpr uint16_t kProtocolVersion = 1;
inline constexpr std::string_view kServerMagic = "EMBSTORS";
inline constexpr std::string_view kClientMagic = "EMBSTORC";
inline constexpr size_t kNonceBytes = 32;
inline constexpr size_t kProofBytes = 32;  // HMAC-SHA256
inline constexpr size_t kServerHelloBytes = 8 + 2 + 2 + kNonceBytes;
inline constexpr size_t kClientHelloBytes = 8 + 2 + 2 + kNonceBytes + kProofBytes;
inline constexpr size_t kAcceptBytes = 1 + kProofBytes;
inline constexpr uint16_t kFlagSecret = 1;

// Bounds on what one message may carry and on what the store holds in total.
inline constexpr size_t kMaxKeyBytes = 4096;
inline constexpr size_t kMaxValueBytes = size_t{1} << 20;      // a Gloo address list of ~7,000 ranks
inline constexpr size_t kMaxStoreBytes = size_t{256} << 20;    // keys and values held
inline constexpr size_t kMaxInFlightBytes = size_t{64} << 20;  // partial requests of all clients
inline constexpr size_t kMinSecretBytes = 16;

enum Command : uint8_t { kSet = 1, kCheck = 2, kGet = 3 };

enum class AcceptStatus : uint8_t {
  kOk = 0,
  kBadVersion = 1,   // the client speaks another protocol version
  kBadSecret = 2,    // the client's proof is wrong (another secret), or it has none
  kNotExpected = 3,  // the client has a secret and this server has none
  kFull = 4,         // max_clients connections are already served
};

using Nonce = std::array<uint8_t, kNonceBytes>;
using Proof = std::array<uint8_t, kProofBytes>;

// HMAC-SHA256(secret, label || server_nonce || client_nonce) (OpenSSL's libcrypto).
Proof make_proof(std::string_view secret, std::string_view label, const Nonce& server_nonce, const Nonce& client_nonce);
inline constexpr std::string_view kClientProofLabel = "ember tcp store v1: client";
inline constexpr std::string_view kServerProofLabel = "ember tcp store v1: server";
bool proofs_equal(const Proof& a, const Proof& b);  // in constant time
Nonce random_nonce();                               // from the OS's CSPRNG (RAND_bytes)

std::string server_hello(bool secret_required, const Nonce& nonce);
std::string client_hello(const std::string& secret, const Nonce& server_nonce, const Nonce& client_nonce);

// The server's data: the map and its bookkeeping, shared by every session of one server.
struct StoreState {
  std::map<std::string, std::string, std::less<>> data;
  size_t stored_bytes = 0;     // keys and values in `data`
  size_t in_flight_bytes = 0;  // announced lengths of requests still arriving
  int clients = 0;             // authenticated sessions
  int max_clients = 1024;
};

// One connection's protocol on the server side, with no I/O: feed() takes the bytes that arrived and
// appends the reply to `out`. It stops after one reply (the caller sends it, then calls feed("")
// for requests already buffered), so a client that never reads cannot make replies pile up.
class StoreSession {
 public:
  StoreSession(StoreState& state, std::string secret, const Nonce& nonce);
  ~StoreSession();
  StoreSession(const StoreSession&) = delete;
  StoreSession& operator=(const StoreSession&) = delete;

  const std::string& hello() const { return hello_; }  // what the server sends first
  // False when the connection must be closed once `out` (a refusal, perhaps) is sent.
  bool feed(std::string_view bytes, std::string& out);
  bool authenticated() const { return authenticated_; }
  bool idle() const { return in_.empty(); }  // no partial message waiting for more bytes

 private:
  bool handle_hello(std::string& out, bool& complete);
  bool handle_request(std::string& out, bool& complete);
  void release_in_flight();

  StoreState& state_;
  std::string secret_;
  Nonce nonce_;
  std::string hello_;
  std::string in_;  // bytes received and not yet handled: at most one request or hello, plus one read
  bool authenticated_ = false;
  bool closed_ = false;
  size_t reserved_ = 0;  // this session's share of state_.in_flight_bytes
};

struct ServerOptions {
  std::string bind_host = "127.0.0.1";                // an IPv4 address or a name of this machine
  int port = 0;                                       // 0: a free port, see port()
  std::string secret;                                 // empty: no secret (loopback)
  int max_clients = 1024;                             // served at once; at most half of RLIMIT_NOFILE
  int max_pending = 64;                               // connections in the handshake; the oldest gives way to a new one
  std::chrono::milliseconds handshake_timeout{5000};  // from accept to a valid ClientHello
  std::chrono::milliseconds request_timeout{10000};   // from a request's first byte to its reply sent
};

// The master's side: one thread serving every connection from a poll() loop. Stops promptly in
// its destructor, whatever the clients are doing.
class TCPStoreServer {
 public:
  explicit TCPStoreServer(const ServerOptions& options);
  ~TCPStoreServer();
  TCPStoreServer(const TCPStoreServer&) = delete;
  TCPStoreServer& operator=(const TCPStoreServer&) = delete;

  int port() const { return port_; }
  int open_connections() const { return open_connections_.load(); }
  int64_t accepted_connections() const { return accepted_.load(); }

 private:
  void loop();

  ServerOptions options_;
  int listen_fd_ = -1;
  int wake_fds_[2] = {-1, -1};  // a pipe: the destructor writes to stop the loop
  int port_ = 0;
  std::atomic<int> open_connections_{0};
  std::atomic<int64_t> accepted_{0};
  std::thread thread_;
};

// A client: connects (retrying until `timeout` while nobody listens), shakes hands, and gives each
// request a deadline of the store's timeout.
std::shared_ptr<Store> make_tcp_store_client(const std::string& host, int port, const std::string& secret,
                                             std::chrono::milliseconds timeout);

}  // namespace ember::distributed::tcp_store
