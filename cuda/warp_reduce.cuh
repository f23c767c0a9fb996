// Reduces one value per lane of a warp into one value, in registers, with xor shuffles.
//
//   float total = warp_reduce(partial, [](float a, float b) { return a + b; });
//
// A butterfly: after log2(width) exchanges every lane of each segment of `width` lanes holds the
// combination of the segment's values (the same tree on every lane, so with a commutative combine all
// lanes agree bit for bit). All 32 lanes of the warp must call it, converged: the mask is the whole warp, so the
// block size must be a multiple of 32 (the emulator reports a partial warp). T is one of the types
// __shfl_xor_sync takes. For a whole block, see block_reduce (cuda/block_reduce.cuh).
#pragma once

#include <cuda_runtime.h>

inline constexpr unsigned kFullWarpMask = 0xffffffffu;

template <typename T, typename Combine>
__device__ T warp_reduce(T value, Combine combine, int width = warpSize) {
  for (int offset = width / 2; offset > 0; offset /= 2)
    value = combine(value, __shfl_xor_sync(kFullWarpMask, value, offset, width));
  return value;
}
