// Writes fuzz_tcp_store's seed corpus (tests/fuzz/corpus/tcp_store/): whole valid conversations,
// with and without the secret (its proofs made for the target's fixed nonce), delivered at once and
// a byte at a time, and each attack the store must survive: a stranger's protocol, a wrong version
// or proof, length fields of 0xFFFFFFFF, an unknown command, a pile of pipelined requests.
//
//   build/tests/fuzz/fuzz_make_tcp_store_corpus tests/fuzz/corpus/tcp_store
//
// The files are committed; rerun this only to change them.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "distributed/tcp_store.h"

namespace fs = std::filesystem;
namespace ts = ember::distributed::tcp_store;

namespace {

// As in fuzz_tcp_store.cpp.
const std::string kFuzzSecret = "fuzz-secret-0123456789abcdef";
constexpr uint8_t kNonceByte = 0x5a;

std::string u32(uint32_t x) {
  std::string out;
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((x >> (8 * i)) & 0xff));
  return out;
}

std::string request(ts::Command command, const std::string& key) {
  return std::string(1, static_cast<char>(command)) + u32(static_cast<uint32_t>(key.size())) + key;
}

std::string set(const std::string& key, const std::string& value) {
  return request(ts::kSet, key) + u32(static_cast<uint32_t>(value.size())) + value;
}

std::string hello(const std::string& secret) {
  ts::Nonce server, client;
  server.fill(kNonceByte);
  client.fill(0x11);
  return ts::client_hello(secret, server, client);
}

// Byte 0 of an input: the server's secret (bit 0) and the chunk size (bits 1-7, 0: all at once).
std::string input(bool with_secret, int chunk, const std::string& bytes) {
  return std::string(1, static_cast<char>((chunk << 1) | (with_secret ? 1 : 0))) + bytes;
}

void write(const fs::path& dir, const std::string& name, const std::string& bytes) {
  std::ofstream(dir / name, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT_DIR\n", argv[0]);
    return 2;
  }
  const fs::path dir = argv[1];
  fs::create_directories(dir);
  const std::string conversation = set("rank_0", "10.0.0.1:4000") + request(ts::kCheck, "rank_0") +
                                   request(ts::kGet, "rank_0") + request(ts::kGet, "absent") + set("rank_0", "") +
                                   set("", "empty key");
  write(dir, "ok_no_secret", input(false, 0, hello("") + conversation));
  write(dir, "ok_no_secret_bytewise", input(false, 1, hello("") + conversation));
  write(dir, "ok_secret", input(true, 0, hello(kFuzzSecret) + conversation));
  write(dir, "ok_secret_chunks_of_7", input(true, 7, hello(kFuzzSecret) + conversation));
  std::string many;
  for (int i = 0; i < 200; ++i) many += request(ts::kGet, "rank_0");
  write(dir, "ok_pipelined_gets", input(false, 0, hello("") + set("rank_0", std::string(1000, 'a')) + many));

  write(dir, "bad_length_ffffffff_before_hello", input(false, 0, "\x01\xff\xff\xff\xff"));
  write(dir, "bad_ssh_banner", input(false, 0, "SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n"));
  std::string wrong_version = hello("");
  wrong_version[8] = 2;
  write(dir, "bad_version", input(false, 0, wrong_version + conversation));
  write(dir, "bad_secret", input(true, 0, hello("another-secret-0123456789") + conversation));
  write(dir, "bad_no_secret_for_secret_server", input(true, 0, hello("") + conversation));
  write(dir, "bad_secret_for_open_server", input(false, 0, hello(kFuzzSecret) + conversation));
  write(dir, "bad_key_length_ffffffff", input(false, 0, hello("") + "\x01\xff\xff\xff\xff"));
  write(dir, "bad_value_length_ffffffff", input(false, 0, hello("") + request(ts::kSet, "k") + u32(0xffffffffu)));
  write(dir, "bad_key_over_bound",
        input(false, 0, hello("") + request(ts::kCheck, std::string(ts::kMaxKeyBytes + 1, 'k'))));
  write(dir, "bad_command", input(false, 0, hello("") + "\x09" + u32(1) + "k"));
  write(dir, "bad_truncated_request", input(false, 3, hello("") + set("rank_0", "10.0.0.1").substr(0, 9)));
  std::printf("wrote the tcp_store seeds to %s\n", dir.c_str());
  return 0;
}
