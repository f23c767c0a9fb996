// The TCP store's wire format and the server's side of one connection, with no I/O: the handshake
// (magic, version, the proofs of the shared secret) and the requests, each checked against the
// bounds before any memory is set aside for it. Everything a client can send ends in a reply or in
// `false` (close this connection); nothing here throws at a client's bytes. Not here: sockets,
// deadlines and the number of connections (tcp_store_server.cpp).
#include <cstring>
#include <new>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include "core/error.h"
#include "distributed/tcp_store.h"

namespace ember::distributed::tcp_store {
namespace {

void put_u16(std::string& out, uint16_t x) {
  out.push_back(static_cast<char>(x & 0xff));
  out.push_back(static_cast<char>(x >> 8));
}

void put_u32(std::string& out, uint32_t x) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((x >> (8 * i)) & 0xff));
}

uint16_t get_u16(const char* p) {
  const auto* b = reinterpret_cast<const uint8_t*>(p);
  return static_cast<uint16_t>(b[0] | (b[1] << 8));
}

uint32_t get_u32(const char* p) {
  const auto* b = reinterpret_cast<const uint8_t*>(p);
  return static_cast<uint32_t>(b[0]) | (static_cast<uint32_t>(b[1]) << 8) | (static_cast<uint32_t>(b[2]) << 16) |
         (static_cast<uint32_t>(b[3]) << 24);
}

template <size_t N>
void put_bytes(std::string& out, const std::array<uint8_t, N>& bytes) {
  out.append(reinterpret_cast<const char*>(bytes.data()), N);
}

template <size_t N>
std::array<uint8_t, N> get_bytes(const char* p) {
  std::array<uint8_t, N> bytes;
  std::memcpy(bytes.data(), p, N);
  return bytes;
}

constexpr size_t kRequestHeaderBytes = 1 + 4;  // command, key length
constexpr size_t kLengthBytes = 4;

}  // namespace

Proof make_proof(std::string_view secret, std::string_view label, const Nonce& server_nonce,
                 const Nonce& client_nonce) {
  std::string message(label);
  message.append(reinterpret_cast<const char*>(server_nonce.data()), kNonceBytes);
  message.append(reinterpret_cast<const char*>(client_nonce.data()), kNonceBytes);
  Proof proof{};
  unsigned int length = 0;
  const unsigned char* done =
      HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
           reinterpret_cast<const unsigned char*>(message.data()), message.size(), proof.data(), &length);
  EMBER_CHECK(done && length == kProofBytes, "TCPStore: HMAC-SHA256 failed in OpenSSL");
  return proof;
}

bool proofs_equal(const Proof& a, const Proof& b) { return CRYPTO_memcmp(a.data(), b.data(), kProofBytes) == 0; }

Nonce random_nonce() {
  Nonce nonce;
  EMBER_CHECK(RAND_bytes(nonce.data(), static_cast<int>(kNonceBytes)) == 1,
              "TCPStore: OpenSSL could not produce random bytes for the handshake");
  return nonce;
}

std::string server_hello(bool secret_required, const Nonce& nonce) {
  std::string out(kServerMagic);
  put_u16(out, kProtocolVersion);
  put_u16(out, secret_required ? kFlagSecret : 0);
  put_bytes(out, nonce);
  return out;
}

std::string client_hello(const std::string& secret, const Nonce& server_nonce, const Nonce& client_nonce) {
  std::string out(kClientMagic);
  put_u16(out, kProtocolVersion);
  put_u16(out, secret.empty() ? 0 : kFlagSecret);
  put_bytes(out, client_nonce);
  put_bytes(out, secret.empty() ? Proof{} : make_proof(secret, kClientProofLabel, server_nonce, client_nonce));
  return out;
}

StoreSession::StoreSession(StoreState& state, std::string secret, const Nonce& nonce)
    : state_(state), secret_(std::move(secret)), nonce_(nonce), hello_(server_hello(!secret_.empty(), nonce)) {}

StoreSession::~StoreSession() {
  release_in_flight();
  if (authenticated_) --state_.clients;
}

void StoreSession::release_in_flight() {
  state_.in_flight_bytes -= reserved_;
  reserved_ = 0;
}

bool StoreSession::feed(std::string_view bytes, std::string& out) {
  if (closed_) return false;
  try {
    in_.append(bytes);
    // One reply at a time: the next request waits in in_ until the caller has sent this one.
    while (out.empty()) {
      bool complete = false;
      const bool ok = authenticated_ ? handle_request(out, complete) : handle_hello(out, complete);
      if (!ok) {
        closed_ = true;
        return false;
      }
      if (!complete) break;
    }
  } catch (const std::bad_alloc&) {  // out of memory: this client goes, the server stays
    closed_ = true;
    return false;
  }
  return true;
}

// The ClientHello: rejected as soon as its first bytes differ from the magic, so a stranger's
// protocol is turned away at once; answered with an AcceptStatus and the server's proof.
bool StoreSession::handle_hello(std::string& out, bool& complete) {
  complete = false;
  const size_t have = std::min(in_.size(), kClientMagic.size());
  if (std::string_view(in_).substr(0, have) != kClientMagic.substr(0, have)) return false;
  if (in_.size() < kClientHelloBytes) return true;
  const char* p = in_.data() + kClientMagic.size();
  const uint16_t version = get_u16(p);
  const uint16_t flags = get_u16(p + 2);
  const Nonce client_nonce = get_bytes<kNonceBytes>(p + 4);
  const Proof proof = get_bytes<kProofBytes>(p + 4 + kNonceBytes);
  in_.erase(0, kClientHelloBytes);
  complete = true;

  auto refuse = [&](AcceptStatus status) {
    out.push_back(static_cast<char>(status));
    put_bytes(out, Proof{});
    return false;
  };
  if (version != kProtocolVersion) return refuse(AcceptStatus::kBadVersion);
  const bool client_has_secret = (flags & kFlagSecret) != 0;
  if (secret_.empty() && client_has_secret) return refuse(AcceptStatus::kNotExpected);
  if (!secret_.empty()) {
    // Computed even when the client claims no secret, so the time taken says nothing either way.
    const bool valid = proofs_equal(proof, make_proof(secret_, kClientProofLabel, nonce_, client_nonce));
    if (!valid || !client_has_secret) return refuse(AcceptStatus::kBadSecret);
  }
  if (state_.clients >= state_.max_clients) return refuse(AcceptStatus::kFull);
  authenticated_ = true;
  ++state_.clients;
  out.push_back(static_cast<char>(AcceptStatus::kOk));
  put_bytes(out, secret_.empty() ? Proof{} : make_proof(secret_, kServerProofLabel, nonce_, client_nonce));
  return true;
}

// One request, once all of it has arrived. Each announced length is checked against its bound, and
// counted against the in-flight budget of all clients, before more bytes are waited for.
bool StoreSession::handle_request(std::string& out, bool& complete) {
  complete = false;
  if (in_.empty()) return true;
  const auto command = static_cast<uint8_t>(in_[0]);
  if (command != kSet && command != kCheck && command != kGet) return false;
  if (in_.size() < kRequestHeaderBytes) return true;
  const uint32_t key_length = get_u32(in_.data() + 1);
  if (key_length > kMaxKeyBytes) return false;
  size_t need = kRequestHeaderBytes + key_length;
  uint32_t value_length = 0;
  if (command == kSet) {
    if (in_.size() < need + kLengthBytes) return true;
    value_length = get_u32(in_.data() + need);
    if (value_length > kMaxValueBytes) return false;
    need += kLengthBytes + value_length;
  }
  if (need > reserved_) {
    if (state_.in_flight_bytes + (need - reserved_) > kMaxInFlightBytes) return false;
    state_.in_flight_bytes += need - reserved_;
    reserved_ = need;
  }
  if (in_.size() < need) return true;

  const std::string_view key = std::string_view(in_).substr(kRequestHeaderBytes, key_length);
  if (command == kSet) {
    const std::string_view value = std::string_view(in_).substr(need - value_length, value_length);
    auto it = state_.data.find(key);
    const size_t old_bytes = it == state_.data.end() ? 0 : key.size() + it->second.size();
    if (state_.stored_bytes - old_bytes + key.size() + value.size() > kMaxStoreBytes) return false;
    if (it == state_.data.end()) it = state_.data.emplace(std::string(key), std::string()).first;
    it->second.assign(value);
    state_.stored_bytes = state_.stored_bytes - old_bytes + key.size() + value.size();
    out.push_back(1);
  } else {
    const auto it = state_.data.find(key);
    const bool present = it != state_.data.end();
    out.push_back(present ? 1 : 0);
    if (command == kGet) {
      put_u32(out, present ? static_cast<uint32_t>(it->second.size()) : 0);
      if (present) out.append(it->second);
    }
  }
  in_.erase(0, need);
  release_in_flight();
  complete = true;
  return true;
}

}  // namespace ember::distributed::tcp_store
