// Fuzz target: the trainer's checkpoint header (charlm::read_checkpoint_header: format, config,
// vocabulary and training state from a safetensors file's metadata) on arbitrary bytes. It must
// return or throw ember::Error; any other exception or a crash is a bug.
//
//   scripts/fuzz.sh 300                    # libFuzzer, ASan and UBSan (Clang)
//   fuzz_replay_checkpoint_header DIR      # the corpus as a regression test (any compiler, ctest)
#include "checkpoint.h"
#include "fuzz_input_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    charlm::Loaded loaded = charlm::read_checkpoint_header(ember::fuzz::input_file(data, size), charlm::gpt_family());
    (void)loaded.vocab.size();
  } catch (const ember::Error&) {
  }
  return 0;
}
