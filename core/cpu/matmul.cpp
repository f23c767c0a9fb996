// CPU matmul on OpenBLAS: each batch is one sgemm/dgemm, transposed views passed as BLAS flags;
// bfloat16 products go to core/cpu/gemm_bf16.h with the same layouts and the same thread split.
//
// An operand whose last dim has stride 1 is row-major as is; one whose second-to-last dim has
// stride 1 is a transposed row-major matrix, so BLAS reads it with CblasTrans and nothing is
// copied. Only an operand with neither (a strided slice) is first made contiguous.
//
// Threads: Ember runs one pool, OpenMP's. OpenBLAS is kept single-threaded (core/threads.cpp)
// and the work is split here instead: batches across threads, or a single product's rows (or
// columns) in blocks, each block one single-threaded gemm: two pools, OpenMP's spinning between
// Ember's kernels and OpenBLAS's between its gemms, would fight over the cores (the measurements
// are in docs/PERFORMANCE.md, "One thread pool").
#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <optional>

#include "core/blas_layout.h"
#include "core/cpu/bfloat16_float.h"
#include "core/cpu/cpu_backend.h"
#include "core/cpu/gemm_bf16.h"
#include "core/shape.h"

namespace ember::cpu {

namespace {

struct BlasOperand {
  CBLAS_TRANSPOSE trans;
  int64_t ld;
};

// How OpenBLAS can read a (rows, cols) matrix with these strides, if it can (core/blas_layout.h).
std::optional<BlasOperand> cblas_operand(int64_t rows, int64_t cols, int64_t row_stride, int64_t col_stride) {
  const std::optional<BlasLayout> l = blas_layout(rows, cols, row_stride, col_stride);
  if (!l) return std::nullopt;
  return BlasOperand{l->transposed ? CblasTrans : CblasNoTrans, l->ld};
}

// C (M, N), row stride ldc, = op(A) op(B), or C += op(A) op(B) when `add`.
template <typename T>
void gemm_ld(BlasOperand a, BlasOperand b, int64_t M, int64_t N, int64_t K, const T* A, const T* B, T* C, int64_t ldc,
             bool add) {
  if constexpr (std::is_same_v<T, float>) {
    cblas_sgemm(CblasRowMajor, a.trans, b.trans, M, N, K, 1.0f, A, a.ld, B, b.ld, add ? 1.0f : 0.0f, C, ldc);
  } else if constexpr (std::is_same_v<T, double>) {
    cblas_dgemm(CblasRowMajor, a.trans, b.trans, M, N, K, 1.0, A, a.ld, B, b.ld, add ? 1.0 : 0.0, C, ldc);
  } else {  // integers: a plain triple loop (no BLAS for them)
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        T acc = add ? C[i * ldc + j] : T(0);
        for (int64_t k = 0; k < K; ++k) {
          T av = a.trans == CblasNoTrans ? A[i * a.ld + k] : A[k * a.ld + i];
          T bv = b.trans == CblasNoTrans ? B[k * b.ld + j] : B[j * b.ld + k];
          acc += av * bv;
        }
        C[i * ldc + j] = acc;
      }
  }
}

template <typename T>
void gemm(BlasOperand a, BlasOperand b, int64_t M, int64_t N, int64_t K, const T* A, const T* B, T* C, bool add) {
  gemm_ld<T>(a, b, M, N, K, A, B, C, N, add);
}

// Below this many multiply-adds a product stays on one thread: waking the other costs more.
constexpr int64_t kGemmParallelWork = 64 * 64 * 64;

// One product C (M, N) computed as `threads` independent gemms over row or column blocks.
template <typename T>
void split_gemm(int threads, BlasOperand a, BlasOperand b, int64_t M, int64_t N, int64_t K, const T* A, const T* B,
                T* C, bool add) {
  const bool by_rows = M >= N;
  const int64_t extent = by_rows ? M : N;
  // Blocks a multiple of 16 long, so every block but the last fills whole vector registers.
  const int64_t block = ((extent + threads - 1) / threads + 15) / 16 * 16;
  const int64_t blocks = (extent + block - 1) / block;
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t t = 0; t < blocks; ++t) {
    const int64_t lo = t * block, n = std::min(block, extent - lo);
    if (by_rows) {  // rows lo.. of A (row lo starts at A + lo*ld, or A + lo when A is transposed) and C
      const T* At = A + (a.trans == CblasNoTrans ? lo * a.ld : lo);
      gemm_ld<T>(a, b, n, N, K, At, B, C + lo * N, N, add);
    } else {  // columns lo.. of B and C
      const T* Bt = B + (b.trans == CblasNoTrans ? lo : lo * b.ld);
      gemm_ld<T>(a, b, M, n, K, A, Bt, C + lo, N, add);
    }
  }
}

// bfloat16 operands, float32 sums (core/cpu/gemm_bf16.h), each result rounded into out once, as
// PyTorch's bf16 addmm does, straight from the kernel's registers (gemm_bf16_rounded); with `add`,
// out already holds the addend (addmm's bias), which the kernel adds in float32 before rounding.
// Threads split the work as for sgemm below: whole products, or one product's rows (or columns) in
// blocks.
void matmul_bf16(const Tensor& out, const Tensor& a, const Tensor& b, BlasOperand la, BlasOperand lb, bool add) {
  EMBER_CHECK(a.dtype() == kBFloat16 && b.dtype() == kBFloat16,
              "matmul: expected bfloat16 operands for a bfloat16 result, got {} and {}", dtype_name(a.dtype()),
              dtype_name(b.dtype()));
  // The kernel choice (EMBER_BF16_GEMM) is made on first use, which may throw: make it here, outside
  // the parallel regions below, from which an exception cannot escape (it would end the process).
  bf16_gemm_kernel();
  const int64_t batch = out.sizes()[0], M = out.sizes()[1], N = out.sizes()[2], K = a.sizes()[2];
  const BFloat16* A = a.data_ptr<BFloat16>();
  const BFloat16* B = b.data_ptr<BFloat16>();
  BFloat16* Cb = out.data_ptr<BFloat16>();
  const int64_t sa = a.strides()[0], sb = b.strides()[0];
  auto mat = [](BlasOperand l, const BFloat16* p) { return Bf16Matrix{p, l.trans == CblasTrans, l.ld}; };
  // out[offset..] (M', N'; ldc N) = op(A') op(B') (+ out's own values when add), rounded
  auto product = [&](Bf16Matrix am, Bf16Matrix bm, int64_t m, int64_t n, int64_t offset) {
    gemm_bf16_rounded(am, bm, m, n, K, Cb + offset, N, add);
  };
  const int threads = (batch * M * N * K >= kGemmParallelWork) ? omp_get_max_threads() : 1;
  if (threads == 1 || batch >= threads) {
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
    for (int64_t i = 0; i < batch; ++i) product(mat(la, A + i * sa), mat(lb, B + i * sb), M, N, i * M * N);
  } else {
    const bool by_rows = M >= N;
    const int64_t extent = by_rows ? M : N;
    const int64_t block = ((extent + threads - 1) / threads + 31) / 32 * 32;  // whole panels and tiles
    const int64_t blocks = (extent + block - 1) / block;
    for (int64_t i = 0; i < batch; ++i) {
      const BFloat16 *Ai = A + i * sa, *Bi = B + i * sb;
#pragma omp parallel for num_threads(threads) schedule(static)
      for (int64_t t = 0; t < blocks; ++t) {
        const int64_t lo = t * block, n = std::min(block, extent - lo);
        if (by_rows)
          product(mat(la, Ai + (la.trans == CblasNoTrans ? lo * la.ld : lo)), mat(lb, Bi), n, N, i * M * N + lo * N);
        else
          product(mat(la, Ai), mat(lb, Bi + (lb.trans == CblasNoTrans ? lo : lo * lb.ld)), M, n, i * M * N + lo);
      }
    }
  }
}

// out (contiguous) = a @ b, or out += a @ b when `add`.
void matmul_into(CpuBackend& cpu, const Tensor& out, const Tensor& a_in, const Tensor& b_in, bool add) {
  const int64_t batch = out.sizes()[0], M = out.sizes()[1], N = out.sizes()[2], K = a_in.sizes()[2];
  if (out.numel() == 0) return;
  if (K == 0) {
    if (!add) cpu.fill(out, 0);
    return;
  }
  if (out.dtype() == kFloat16) {  // float32 sums of widened operands, rounded once (as PyTorch 2's CPU)
    Tensor out_f = raw_empty(out.sizes(), kFloat32, out.device());
    if (add) cpu.copy(out_f, out);
    matmul_into(cpu, out_f, float32_copy(cpu, a_in), float32_copy(cpu, b_in), add);
    return round_back(cpu, out, out_f);
  }
  auto layout = [](const Tensor& t) {
    return cblas_operand(t.sizes()[1], t.sizes()[2], t.strides()[1], t.strides()[2]);
  };
  Tensor a = a_in, b = b_in;
  if (!layout(a)) {  // neither row- nor column-major: copy into a fresh contiguous tensor
    a = raw_empty(a_in.sizes(), a_in.dtype(), a_in.device());
    cpu.copy(a, a_in);
  }
  if (!layout(b)) {
    b = raw_empty(b_in.sizes(), b_in.dtype(), b_in.device());
    cpu.copy(b, b_in);
  }
  BlasOperand la = *layout(a), lb = *layout(b);
  if (out.dtype() == kBFloat16) return matmul_bf16(out, a, b, la, lb, add);
  EMBER_CHECK(a.dtype() != kBool, "matmul: not implemented for bool tensors");
  dispatch(out.dtype(), "matmul", [&]<typename T>() {
    if constexpr (!std::is_same_v<T, bool>) {
      const T* A = a.data_ptr<T>();
      const T* B = b.data_ptr<T>();
      T* C = out.data_ptr<T>();
      const int64_t sa = a.strides()[0], sb = b.strides()[0];
      const int threads = (batch * M * N * K >= kGemmParallelWork) ? omp_get_max_threads() : 1;
      if (threads == 1) {
        for (int64_t i = 0; i < batch; ++i) gemm<T>(la, lb, M, N, K, A + i * sa, B + i * sb, C + i * M * N, add);
      } else if (batch >= threads) {  // whole products per thread
#pragma omp parallel for num_threads(threads) schedule(static)
        for (int64_t i = 0; i < batch; ++i) gemm<T>(la, lb, M, N, K, A + i * sa, B + i * sb, C + i * M * N, add);
      } else {  // each product in blocks of rows (or of columns when it is wider than tall)
        for (int64_t i = 0; i < batch; ++i)
          split_gemm<T>(threads, la, lb, M, N, K, A + i * sa, B + i * sb, C + i * M * N, add);
      }
    }
  });
}

}  // namespace

void CpuBackend::matmul(const Tensor& out, const Tensor& a, const Tensor& b) { matmul_into(*this, out, a, b, false); }

// The addend is copied into out first, then BLAS adds the product to it (beta = 1): the sum
// costs no pass of its own, and its bits are those of the product plus the addend.
bool CpuBackend::matmul_add(const Tensor& out, const Tensor& addend, const Tensor& a, const Tensor& b) {
  if (out.dtype() == kBool) return false;
  copy(out, addend);
  matmul_into(*this, out, a, b, true);
  return true;
}

}  // namespace ember::cpu
