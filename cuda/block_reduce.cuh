// Reduces one value per thread of a block into one value, in shared memory.
//
//   float total = block_reduce(partial, [](float a, float b) { return a + b; }, scratch);
//
// For kernels that give a block to one row or one output (reduce.cu, nn.cu). blockDim.x must be a
// power of two (block_for_row() in cuda/launch.h gives one); `scratch` holds blockDim.x values.
// Every thread gets the result. A tree in shared memory, not warp shuffles: it works for any
// accumulator type, and these kernels are bound by memory, not by this step.
#pragma once

#include <cuda_runtime.h>

#include "cuda/launch.h"

template <typename A, typename Combine>
__device__ A block_reduce(A value, Combine combine, A* scratch) {
  const unsigned tid = threadIdx.x;
  scratch[tid] = value;
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
    if (tid < half) scratch[tid] = combine(scratch[tid], scratch[tid + half]);
    __syncthreads();
  }
  A result = scratch[0];
  __syncthreads();  // scratch may be reused right after
  return result;
}

// Dynamic shared memory viewed as an array of A (aligned for the widest accumulator, double).
template <typename A>
__device__ A* shared_scratch() {
  EMBER_DYNAMIC_SHARED(ember_shared_raw);
  return reinterpret_cast<A*>(ember_shared_raw);
}
