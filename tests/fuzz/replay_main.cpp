// Replays a fuzz corpus without libFuzzer: feeds every file of the given directories (or the given
// files) to LLVMFuzzerTestOneInput, one at a time, in name order. Linked with a fuzz target's source
// it is a ctest (fuzz_replay_<target>) in the ordinary and the sanitizer builds. Fails on the first
// input that escapes with an exception other than ember::Error (the target lets those through);
// a crash or sanitizer report fails it as well.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  std::vector<fs::path> inputs;
  for (int i = 1; i < argc; ++i) {
    if (fs::is_directory(argv[i])) {
      for (const auto& entry : fs::directory_iterator(argv[i]))
        if (entry.is_regular_file()) inputs.push_back(entry.path());
    } else {
      inputs.emplace_back(argv[i]);
    }
  }
  std::sort(inputs.begin(), inputs.end());
  if (inputs.empty()) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR_OR_FILE...  (no inputs found)\n", argv[0]);
    return 2;
  }
  for (const fs::path& p : inputs) {
    std::ifstream in(p, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "%s: cannot read\n", p.c_str());
      return 1;
    }
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    try {
      LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s: escaped with an exception other than ember::Error: %s\n", p.c_str(), e.what());
      return 1;
    } catch (...) {
      std::fprintf(stderr, "%s: escaped with a non-standard exception\n", p.c_str());
      return 1;
    }
  }
  std::printf("%zu inputs replayed, none escaped\n", inputs.size());
  return 0;
}
