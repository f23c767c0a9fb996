// Fuzz target: the TCP store server's side of one connection (StoreSession), fed the bytes a client
// might send. Input: byte 0 chooses the server (bit 0: it has a secret, kFuzzSecret) and how the
// rest arrives (bits 1-7: chunks of that many bytes; 0: all at once); the rest is the client's bytes.
// Every reply is "sent" before the next feed, as the server's loop does. A crash, a sanitizer report,
// an exception, a reply over the bounds or a broken count of stored/in-flight bytes is a finding.
//
//   scripts/fuzz.sh 300              # libFuzzer, ASan and UBSan (Clang)
//   fuzz_replay_tcp_store DIR        # the corpus as a regression test (any compiler, ctest)
#include <cstdio>
#include <cstdlib>

#include "distributed/tcp_store.h"

namespace ts = ember::distributed::tcp_store;

namespace {

constexpr std::string_view kFuzzSecret = "fuzz-secret-0123456789abcdef";
constexpr uint8_t kNonceByte = 0x5a;  // the server's nonce: every byte this, so seeds can carry valid proofs
constexpr size_t kLongestReply = 1 + 4 + ts::kMaxValueBytes;

void require(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz_tcp_store: %s\n", what);
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const bool with_secret = (data[0] & 1) != 0;
  const size_t chunk = data[0] >> 1;
  std::string_view client(reinterpret_cast<const char*>(data + 1), size - 1);

  ts::StoreState state;
  state.max_clients = 1;
  ts::Nonce nonce;
  nonce.fill(kNonceByte);
  {
    ts::StoreSession session(state, with_secret ? std::string(kFuzzSecret) : std::string(), nonce);
    require(session.hello().size() == ts::kServerHelloBytes, "hello of the wrong size");
    std::string out;
    bool open = true;
    while (open && !client.empty()) {
      const size_t n = chunk == 0 ? client.size() : std::min(chunk, client.size());
      open = session.feed(client.substr(0, n), out);
      client.remove_prefix(n);
      // Send each reply, then let the session go on with what it has buffered.
      while (!out.empty()) {
        require(out.size() <= kLongestReply, "a reply over the bounds");
        out.clear();
        if (open) open = session.feed({}, out);
      }
      require(state.in_flight_bytes <= ts::kMaxInFlightBytes, "in-flight bytes over the bound");
      require(state.clients <= state.max_clients, "more clients than max_clients");
    }
    size_t stored = 0;
    for (const auto& [key, value] : state.data) {
      require(key.size() <= ts::kMaxKeyBytes && value.size() <= ts::kMaxValueBytes, "a key or value over the bounds");
      stored += key.size() + value.size();
    }
    require(stored == state.stored_bytes && stored <= ts::kMaxStoreBytes, "stored_bytes does not match the map");
  }
  require(state.in_flight_bytes == 0 && state.clients == 0, "a closed session left its counts behind");
  return 0;
}
