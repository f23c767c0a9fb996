// A kernel the CUDA emulator must refuse to compile (tests/CMakeLists.txt compiles it with -fsyntax-only
// against cuda/emu/ and expects the emulator's message): a warp call it does not model
// (__match_any_sync), or with -DEMBER_TRY_WMMA a wmma fragment. Either would otherwise run without
// ever being tested as a GPU runs it.
#ifdef EMBER_TRY_WMMA
#include <mma.h>
#endif
#include <cuda_runtime.h>

__global__ void same_values(unsigned* out) {
  out[threadIdx.x] = __match_any_sync(0xffffffffu, out[threadIdx.x]);
}
