// CUDA random kernels from the Philox stream (core/philox.h): dropout's scaled keep mask.
//
// Element i of a call is a function of (seed, offset + i) only, so the grid, the block size and
// the emulator's thread order change nothing, and a host loop over PhiloxDropout::keeps gives the
// same mask (tests/test_cuda_random.cpp). Each thread takes one Philox counter, four elements, when
// the offset starts on a counter (philox_reserve's always do); any other offset draws word by word.
// Not here: the seed and offset, which the op reserves (core/generator.h), and the other random
// fills of CUDA tensors, which come from the CPU generator (core/random.cpp).
#include "core/philox.h"
#include "cuda/kernels.h"
#include "cuda/launchers.h"

namespace ember::cuda {

namespace {

template <typename T>
__global__ void __launch_bounds__(kBlockSize) dropout_noise_kernel(T* noise, int64_t n, PhiloxDropout dropout) {
  const T scale = static_cast<T>(dropout.scale());
  const float keep = dropout.keep_probability();
  const int64_t groups = (n + 3) / 4;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t g = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; g < groups; g += step) {
    const int64_t i0 = 4 * g;
    uint32_t words[4];
    if (dropout.offset % 4 == 0) {  // elements i0 .. i0 + 3 are the four words of one counter
      const PhiloxBlock r = philox_counter(dropout.seed, (dropout.offset + static_cast<uint64_t>(i0)) / 4);
      words[0] = r.x;
      words[1] = r.y;
      words[2] = r.z;
      words[3] = r.w;
    } else {
      for (int k = 0; k < 4; ++k) words[k] = philox_word(dropout.seed, dropout.offset + static_cast<uint64_t>(i0 + k));
    }
    for (int k = 0; k < 4 && i0 + k < n; ++k) noise[i0 + k] = philox_uniform(words[k]) < keep ? scale : T(0);
  }
}

}  // namespace

// float32 and float64; bfloat16 returns false, for the CPU generator's mask.
bool launchers::dropout_noise(const TensorView& noise, const PhiloxDropout& dropout) {
  if (noise.dtype != kFloat32 && noise.dtype != kFloat64) return false;
  cudaStream_t s = prepare(noise.device);
  const int64_t n = noise.numel;
  const LaunchShape ls = launch_1d((n + 3) / 4);
  if (ls.grid == 0) return true;
  dispatch_floating_type("dropout", noise.dtype, [&]<typename T>() {
    EMBER_LAUNCH(ls.grid, ls.block, 0, s, dropout_noise_kernel<T>)(noise.ptr<T>(), n, dropout);
    check_launch("dropout");
  });
  return true;
}

}  // namespace ember::cuda
