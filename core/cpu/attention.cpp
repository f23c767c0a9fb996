// CPU causal attention, forward and backward, one (batch, head) matrix at a time (see
// Backend::causal_attention). What the composed form does in eight ops and five copies:
//
//   forward, per head:   P = softmax(scale * q k^T, keys j <= i only)    one gemm, then rows
//                        out = (P * noise) v                              one gemm, written in place
//   backward, per head:  dPd = dout v^T,  dv = (P * noise)^T dout         two gemms
//                        dS = P * (dP - rowsum(dP * P)),  dP = dPd * noise
//                        dq = scale * dS k,  dk = scale * dS^T q          two gemms
//
// q, k, v are read where they lie (BLAS takes the row stride), so the heads of a fused qkv
// projection need no copy, and out is written straight into the caller's layout. The masked
// upper triangle is never exponentiated: its weights are set to zero. Heads run in parallel
// over OpenMP's threads, each head's gemms single-threaded (OpenBLAS always is: core/threads.h).
#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/cpu/cpu_backend.h"
#include "core/cpu/vec_math.h"

namespace ember::cpu {

namespace {

// Row-major C (M, N, ldc) = alpha * op(A) op(B) + beta * C.
template <typename T>
void gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, T alpha, const T* A, int64_t lda, const T* B, int64_t ldb,
          T beta, T* C, int64_t ldc) {
  const CBLAS_TRANSPOSE a = ta ? CblasTrans : CblasNoTrans, b = tb ? CblasTrans : CblasNoTrans;
  if constexpr (std::is_same_v<T, float>)
    cblas_sgemm(CblasRowMajor, a, b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  else
    cblas_dgemm(CblasRowMajor, a, b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

// A (B, H, rows, cols) strided view: the pointer to matrix (b, h) and its row stride.
template <typename T>
struct Heads {
  T* base;
  int64_t sb, sh, ld;
  Heads(const Tensor& t)
      : base(static_cast<T*>(t.raw_data_ptr())),
        sb(t.strides()[0]),
        sh(t.strides()[1]),
        // a single row's stride is arbitrary; BLAS wants ld >= the row's length
        ld(t.sizes()[2] == 1 ? std::max<int64_t>(t.sizes()[3], 1) : t.strides()[2]) {}
  T* at(int64_t b, int64_t h) const { return base + b * sb + h * sh; }
};

// A visible prefix of n keys rounded up to whole 16-float vectors (at most S): the float loops
// run over it with no scalar remainder, the extra keys carrying -inf scores (weight exactly 0).
inline int64_t padded_keys(int64_t n, int64_t S) { return std::min(S, (n + 15) / 16 * 16); }

// Softmax of row `s` (n visible keys, then zeros up to S), in place: the float rows through the
// softmax kernel's own vectorised row (core/cpu/nn.cpp).
template <typename T>
void causal_softmax_row(T* s, int64_t n, int64_t S) {
  if constexpr (std::is_same_v<T, float>) {
    const int64_t padded = padded_keys(n, S);
    std::fill(s + n, s + padded, -std::numeric_limits<float>::infinity());
    softmax_row_f32(s, s, padded, /*log=*/false);
    std::fill(s + padded, s + S, 0.0f);
    return;
  } else {
    T mx = -std::numeric_limits<T>::infinity();
    for (int64_t j = 0; j < n; ++j) mx = s[j] > mx ? s[j] : mx;
    double sum = 0;
    for (int64_t j = 0; j < n; ++j) {
      s[j] = std::exp(s[j] - mx);
      sum += s[j];
    }
    const T inv = static_cast<T>(1.0 / sum);
    for (int64_t j = 0; j < n; ++j) s[j] *= inv;
  }
  std::fill(s + n, s + S, T(0));
}

// Softmax's backward on one row of n visible keys, in place on d = dP (times the dropout noise nz
// when there is one): dS = P * (d - sum(d * P)), zero above the diagonal. p is zero past n.
template <typename T>
inline __attribute__((always_inline)) void attention_ds_row(T* __restrict d, const T* __restrict p,
                                                            const T* __restrict nz, int64_t n, int64_t S) {
  if (nz) {
#pragma omp simd
    for (int64_t j = 0; j < n; ++j) d[j] *= nz[j];
  }
  const T dot = lane_sum<T>(n, [&](int64_t j) { return d[j] * p[j]; });
#pragma omp simd
  for (int64_t j = 0; j < n; ++j) d[j] = p[j] * (d[j] - dot);
  for (int64_t j = n; j < S; ++j) d[j] = T(0);
}
__attribute__((target_clones("avx512f", "avx2", "default")))
void attention_ds_row_f32(float* d, const float* p, const float* nz, int64_t n, int64_t S) {
  // Over whole vectors: the padded keys have p = 0 and, without dropout, d from a finite dP.
  const int64_t m = nz ? n : padded_keys(n, S);
  attention_ds_row(d, p, nz, m, S);
  for (int64_t j = n; j < m; ++j) d[j] = 0.0f;
}

}  // namespace

bool CpuBackend::causal_attention(const Tensor& out, const Tensor& probs, const Tensor& q, const Tensor& k,
                                  const Tensor& v, const Tensor& noise, double scale) {
  dispatch_floating(q.dtype(), "causal_attention", [&]<typename T>() {
    const int64_t B = q.sizes()[0], H = q.sizes()[1], L = q.sizes()[2], E = q.sizes()[3];
    const int64_t S = k.sizes()[2], Ev = v.sizes()[3];
    const Heads<T> hq(q), hk(k), hv(v), ho(out);
    T* P = probs.data_ptr<T>();
    const T* N = noise.defined() ? noise.data_ptr<T>() : nullptr;
#pragma omp parallel if (B * H > 1 && B * H * L * S * E >= 262144)
    {
      std::vector<T> dropped(N ? L * S : 0);  // P * noise, this thread's scratch
#pragma omp for
      for (int64_t bh = 0; bh < B * H; ++bh) {
        const int64_t b = bh / H, h = bh % H;
        T* p = P + bh * L * S;
        gemm<T>(false, true, L, S, E, static_cast<T>(scale), hq.at(b, h), hq.ld, hk.at(b, h), hk.ld, T(0), p, S);
        for (int64_t i = 0; i < L; ++i) causal_softmax_row(p + i * S, std::min(i + 1, S), S);
        const T* weights = p;
        if (N) {
          const T* nz = N + bh * L * S;
          for (int64_t i = 0; i < L * S; ++i) dropped[i] = p[i] * nz[i];
          weights = dropped.data();
        }
        gemm<T>(false, false, L, Ev, S, T(1), weights, S, hv.at(b, h), hv.ld, T(0), ho.at(b, h), ho.ld);
      }
    }
  });
  return true;
}

bool CpuBackend::causal_attention_backward(const Tensor& dq, const Tensor& dk, const Tensor& dv, const Tensor& dout,
                                           const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& probs,
                                           const Tensor& noise, double scale) {
  dispatch_floating(q.dtype(), "causal_attention_backward", [&]<typename T>() {
    const int64_t B = q.sizes()[0], H = q.sizes()[1], L = q.sizes()[2], E = q.sizes()[3];
    const int64_t S = k.sizes()[2], Ev = v.sizes()[3];
    const Heads<T> hq(q), hk(k), hv(v), hg(dout), hdq(dq), hdk(dk), hdv(dv);
    const T* P = probs.data_ptr<T>();
    const T* N = noise.defined() ? noise.data_ptr<T>() : nullptr;
#pragma omp parallel if (B * H > 1 && B * H * L * S * E >= 262144)
    {
      std::vector<T> dp(L * S), dropped(N ? L * S : 0);
#pragma omp for
      for (int64_t bh = 0; bh < B * H; ++bh) {
        const int64_t b = bh / H, h = bh % H;
        const T* p = P + bh * L * S;
        const T* nz = N ? N + bh * L * S : nullptr;
        const T* weights = p;
        if (nz) {
          for (int64_t i = 0; i < L * S; ++i) dropped[i] = p[i] * nz[i];
          weights = dropped.data();
        }
        // dv = weights^T dout;  dPd = dout v^T
        gemm<T>(true, false, S, Ev, L, T(1), weights, S, hg.at(b, h), hg.ld, T(0), hdv.at(b, h), hdv.ld);
        gemm<T>(false, true, L, S, Ev, T(1), hg.at(b, h), hg.ld, hv.at(b, h), hv.ld, T(0), dp.data(), S);
        // dS = P * (dP - rowsum(dP * P)) over the visible keys; zero above the diagonal
        for (int64_t i = 0; i < L; ++i) {
          const int64_t n = std::min(i + 1, S);
          if constexpr (std::is_same_v<T, float>)
            attention_ds_row_f32(dp.data() + i * S, p + i * S, nz ? nz + i * S : nullptr, n, S);
          else
            attention_ds_row(dp.data() + i * S, p + i * S, nz ? nz + i * S : nullptr, n, S);
        }
        // dq = scale * dS k;  dk = scale * dS^T q
        gemm<T>(false, false, L, E, S, static_cast<T>(scale), dp.data(), S, hk.at(b, h), hk.ld, T(0), hdq.at(b, h),
                hdq.ld);
        gemm<T>(true, false, S, E, L, static_cast<T>(scale), dp.data(), S, hq.at(b, h), hq.ld, T(0), hdk.at(b, h),
                hdk.ld);
      }
    }
  });
  return true;
}

}  // namespace ember::cpu
