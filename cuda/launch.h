// Launch-shape and strided-index arithmetic for the CUDA kernels, in plain C++.
//
//   LaunchShape ls = launch_1d(n);                        // grid and block for n elements
//   OffsetCalc<2> calc = make_offset_calc<2>(sizes, {out_strides, in_strides});
//   auto off = calc.offsets(i);                           // element offsets of element i in each operand
//
// Kernels take element i of a flat range and ask OffsetCalc where it lives in each operand, so one
// kernel serves contiguous, transposed, sliced and broadcast (stride 0) tensors alike. Nothing here
// includes CUDA: the functions are EMBER_HD, so the host tests (tests/cuda/test_cuda_host.cpp) run them
// in every build, and the .cu files run the very same code on the device.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "core/functors.h"  // EMBER_HD

// Every kernel launch: EMBER_LAUNCH(grid, block, shmem, stream, kernel<T>)(args...). Under nvcc a
// real <<<grid, block, shmem, stream>>> launch; under -DEMBER_CUDA=EMULATE the CPU emulator's
// (cuda/emu/cuda_runtime.h), which runs the same kernel body. The kernel comes last so that its
// template arguments may hold commas; name them all (the emulator needs one function to point to).
#ifdef EMBER_CUDA_EMULATE
#define EMBER_LAUNCH(grid, block, shmem, stream, ...) \
  ::ember::cuda::emu::Launch(#__VA_ARGS__, __VA_ARGS__, grid, block, shmem, stream)
#else
#define EMBER_LAUNCH(grid, block, shmem, stream, ...) __VA_ARGS__<<<grid, block, shmem, stream>>>
#endif

// Declares `name`, the block's dynamic shared memory (the launch's shmem bytes) as unsigned char[].
#ifdef EMBER_CUDA_EMULATE
#define EMBER_DYNAMIC_SHARED(name) unsigned char* name = ::ember::cuda::emu::dynamic_shared()
#else
#define EMBER_DYNAMIC_SHARED(name) extern __shared__ __align__(sizeof(double)) unsigned char name[]
#endif

namespace ember::cuda {

inline constexpr int kBlockSize = 256;      // threads per block for elementwise kernels
inline constexpr int kMaxRowBlock = 1024;   // most threads block_for_row() gives a row kernel
inline constexpr int64_t kMaxGrid = 65535;  // blocks; larger ranges loop (grid-stride) inside the kernel
inline constexpr int kMaxDims = 12;         // dims after merging; more is rejected with an error

struct LaunchShape {
  int64_t grid = 0;  // 0 means: nothing to launch
  int block = kBlockSize;
};

// Enough blocks of `block` threads to give each of n elements a thread, capped at kMaxGrid
// (the kernels stride by grid * block, so a capped grid still covers every element).
inline LaunchShape launch_1d(int64_t n, int block = kBlockSize) {
  LaunchShape ls;
  ls.block = block;
  ls.grid = n <= 0 ? 0 : std::min<int64_t>((n + block - 1) / block, kMaxGrid);
  return ls;
}

// Threads per block for kernels that give one block to one row of `cols` elements (softmax,
// reductions): the smallest power of two >= cols, between 32 (one warp) and 1024.
inline int block_for_row(int64_t cols) {
  int b = 32;
  while (b < cols && b < kMaxRowBlock) b *= 2;
  return b;
}

// Maps a flat (row-major) element index to element offsets in N operands of one shape.
template <int N>
struct OffsetCalc {
  int ndim = 0;
  int64_t sizes[kMaxDims];       // merged dims, innermost last
  int64_t strides[N][kMaxDims];  // in elements; 0 for broadcast dims

  EMBER_HD std::array<int64_t, N> offsets(int64_t linear) const {
    std::array<int64_t, N> off{};
    for (int d = ndim - 1; d >= 0; --d) {
      const int64_t size = sizes[d];
      const int64_t idx = d == 0 ? linear : linear % size;
      linear = d == 0 ? 0 : linear / size;
      for (int k = 0; k < N; ++k) off[k] += idx * strides[k][d];
    }
    return off;
  }
};

// Dims of N operands of one shape after merging: size-1 dims dropped, and neighbouring dims merged
// where every operand is contiguous across them, so a contiguous tensor becomes one dim and each
// index costs no division.
template <int N>
struct MergedDims {
  std::vector<int64_t> sizes;
  std::array<std::vector<int64_t>, N> strides;
};

template <int N>
MergedDims<N> merge_dims(const std::vector<int64_t>& sizes, const std::array<std::vector<int64_t>, N>& strides) {
  MergedDims<N> m;
  std::vector<int64_t>& msizes = m.sizes;
  std::array<std::vector<int64_t>, N>& mstrides = m.strides;
  for (size_t d = 0; d < sizes.size(); ++d) {
    const int64_t size = sizes[d];
    if (size == 1) continue;
    bool merge = !msizes.empty();
    for (int k = 0; merge && k < N; ++k) merge = mstrides[k].back() == strides[k][d] * size;
    if (merge) {
      msizes.back() *= size;
      for (int k = 0; k < N; ++k) mstrides[k].back() = strides[k][d];
    } else {
      msizes.push_back(size);
      for (int k = 0; k < N; ++k) mstrides[k].push_back(strides[k][d]);
    }
  }
  return m;
}

// The OffsetCalc of merged dims; `m` must have at most kMaxDims dims (callers check, with a message).
template <int N>
OffsetCalc<N> make_offset_calc(const MergedDims<N>& m) {
  OffsetCalc<N> calc{};
  calc.ndim = static_cast<int>(std::min<size_t>(m.sizes.size(), kMaxDims));
  for (int d = 0; d < calc.ndim; ++d) {
    calc.sizes[d] = m.sizes[d];
    for (int k = 0; k < N; ++k) calc.strides[k][d] = m.strides[k][d];
  }
  return calc;
}

// Rows of a (outer, len, inner) view around `dim`: what index_select / index_add / softmax see.
struct Blocks3 {
  int64_t outer = 1, len = 1, inner = 1;
};
inline Blocks3 blocks_around(const std::vector<int64_t>& sizes, int64_t dim) {
  Blocks3 b;
  for (int64_t d = 0; d < dim; ++d) b.outer *= sizes[d];
  b.len = sizes.empty() ? 1 : sizes[dim];
  for (size_t d = dim + 1; d < sizes.size(); ++d) b.inner *= sizes[d];
  return b;
}

}  // namespace ember::cuda
