// Small matrix products for the fused attention and the LSTM's steps: C (m, n) = alpha * op(A) B, with B row-major
// (k, n) and op(A) either A (m, k) or A^T (A stored (k, m)). Attention's products are many and
// small (one per head and block: 32 x 64 x 32 at the baby GPT's size), where a BLAS call's fixed
// costs (argument checks, packing both operands, a zeroing pass for beta = 0) are a large part of
// the work, and more so with OpenBLAS's AVX2 kernels, which have no small-matrix path.
//
// The kernel keeps a tile of kRows x kCols outputs in registers and walks k once: each step loads
// one row of B (kCols values, 64 bytes) and broadcasts kRows values of A into multiply-adds. The
// file that includes this compiles it per instruction set, with that set's vector width (kVecBytes:
// per_isa_vector, core/cpu/per_isa.h).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace ember::cpu {

template <typename T, bool kTransA>
inline __attribute__((always_inline)) T a_elem(const T* A, int64_t lda, int64_t i, int64_t p) {
  return kTransA ? A[p * lda + i] : A[i * lda + p];
}

// One tile: rows [i, i + R) and kCols columns from j, each row held in 64 bytes of native vectors
// (kVecBytes each: one AVX-512 register, two AVX2 ones, four SSE ones); B's row is loaded once per k
// and each A value broadcast into a multiply-add. The vectors are the instruction set's own width:
// GCC lowers a 64-byte vector on AVX2 through the stack, which made the AVX2 kernel 4x slower.
template <typename T, bool kTransA, int R, int kVecBytes>
inline __attribute__((always_inline)) void gemm_tile(int64_t i, int64_t j, int64_t k, T alpha, const T* A, int64_t lda,
                                                     const T* B, int64_t ldb, T* Cm, int64_t ldc) {
  typedef T Vec __attribute__((vector_size(kVecBytes)));
  constexpr int kVecs = 64 / kVecBytes, kLanes = kVecBytes / int(sizeof(T));
  Vec acc[R][kVecs] = {};
  for (int64_t p = 0; p < k; ++p) {
    Vec b[kVecs];
    for (int v = 0; v < kVecs; ++v) std::memcpy(&b[v], B + p * ldb + j + v * kLanes, sizeof(Vec));
    for (int r = 0; r < R; ++r) {
      const T a = a_elem<T, kTransA>(A, lda, i + r, p);
      for (int v = 0; v < kVecs; ++v) acc[r][v] += a * b[v];
    }
  }
  for (int r = 0; r < R; ++r) {
    for (int v = 0; v < kVecs; ++v) {
      const Vec out = alpha * acc[r][v];
      std::memcpy(Cm + (i + r) * ldc + j + v * kLanes, &out, sizeof(Vec));
    }
  }
}

// Any leftover block (fewer rows or columns than a tile): one output row at a time.
template <typename T, bool kTransA>
inline __attribute__((always_inline)) void gemm_edge(int64_t i0, int64_t i1, int64_t j0, int64_t j1, int64_t k, T alpha,
                                                     const T* A, int64_t lda, const T* B, int64_t ldb, T* Cm,
                                                     int64_t ldc) {
  for (int64_t i = i0; i < i1; ++i) {
    T* c = Cm + i * ldc;
    for (int64_t j = j0; j < j1; ++j) c[j] = T(0);
    for (int64_t p = 0; p < k; ++p) {
      const T a = a_elem<T, kTransA>(A, lda, i, p);
      const T* b = B + p * ldb;
      for (int64_t j = j0; j < j1; ++j) c[j] += a * b[j];
    }
    for (int64_t j = j0; j < j1; ++j) c[j] *= alpha;
  }
}

template <typename T, bool kTransA, int kVecBytes>
inline __attribute__((always_inline)) void small_gemm(int64_t m, int64_t n, int64_t k, T alpha, const T* A, int64_t lda,
                                                      const T* B, int64_t ldb, T* C, int64_t ldc) {
  constexpr int kCols = 64 / sizeof(T);  // one 512-bit vector, two 256-bit, four 128-bit
  // Rows of sums per tile: AVX-512 keeps 6 in 6 of its 32 registers. AVX2 could keep 6 (12 of 16
  // registers) but takes 4: the batch sizes here are multiples of 4, whose leftover 2 or 4 rows
  // ran as a slow short tile (the LSTM's small shape, batch 32, ran a quarter faster with 4).
  constexpr int kRows = kVecBytes == 32 ? 4 : 6;
  static_assert(kRows <= 6, "the switch below covers 1 to 5 leftover rows");
  const int64_t mt = m / kRows * kRows, nt = n / kCols * kCols;
  for (int64_t j = 0; j < nt; j += kCols) {
    for (int64_t i = 0; i < mt; i += kRows)
      gemm_tile<T, kTransA, kRows, kVecBytes>(i, j, k, alpha, A, lda, B, ldb, C, ldc);
    switch (m - mt) {  // the last rows: a shorter tile
      case 1:
        gemm_tile<T, kTransA, 1, kVecBytes>(mt, j, k, alpha, A, lda, B, ldb, C, ldc);
        break;
      case 2:
        gemm_tile<T, kTransA, 2, kVecBytes>(mt, j, k, alpha, A, lda, B, ldb, C, ldc);
        break;
      case 3:
        gemm_tile<T, kTransA, 3, kVecBytes>(mt, j, k, alpha, A, lda, B, ldb, C, ldc);
        break;
      case 4:
        gemm_tile<T, kTransA, 4, kVecBytes>(mt, j, k, alpha, A, lda, B, ldb, C, ldc);
        break;
      case 5:
        gemm_tile<T, kTransA, 5, kVecBytes>(mt, j, k, alpha, A, lda, B, ldb, C, ldc);
        break;
      default:
        break;
    }
  }
  if (nt < n) gemm_edge<T, kTransA>(0, m, nt, n, k, alpha, A, lda, B, ldb, C, ldc);  // the last columns
}

// small_gemm<float> compiled for AVX-512, AVX2 (with FMA) and the baseline, picked at run time
// (core/cpu/attention.cpp): op(A) = A (m, k), or A^T with A stored (k, m) when trans_a.
void small_gemm_float(bool trans_a, int64_t m, int64_t n, int64_t k, float alpha, const float* A, int64_t lda,
                      const float* B, int64_t ldb, float* C, int64_t ldc);

}  // namespace ember::cpu
