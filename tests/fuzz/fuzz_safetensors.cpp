// Fuzz target: ember::load_safetensors on arbitrary bytes. It must return the tensors or throw
// ember::Error; any other exception or a crash is a bug in the reader.
//
//   scripts/fuzz.sh 300            # libFuzzer, ASan and UBSan (Clang)
//   fuzz_replay_safetensors DIR    # the corpus as a regression test (any compiler, ctest)
#include <ember/ember.h>

#include "fuzz_input_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    ember::SafetensorsFile f = ember::load_safetensors(ember::fuzz::input_file(data, size));
    // Touch what was read, as a caller would: every tensor's shape and the sum of its values.
    for (const auto& [name, t] : f.tensors)
      if (t.numel() > 0 && t.scalar_type() != ember::kBool) (void)t.sum().item<double>();
  } catch (const ember::Error&) {
  }
  return 0;
}
