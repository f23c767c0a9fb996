// A kernel the CUDA emulator must refuse to compile (tests/CMakeLists.txt compiles it with -fsyntax-only
// against cuda/emu/ and expects the emulator's message): a warp shuffle, or with -DEMBER_TRY_WMMA a
// tensor-core fragment. Under the emulator a block's threads run one at a time, so warp-level code
// would run without ever being tested as a GPU runs it.
#ifdef EMBER_TRY_WMMA
#include <mma.h>
#endif
#include <cuda_runtime.h>

__global__ void warp_sum(float* out) {
  float v = out[threadIdx.x];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  if (threadIdx.x == 0) out[0] = v;
}
