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
// `written`: the keys of d that hold this row's dP (the rest may hold another head's values).
__attribute__((target_clones("avx512f", "avx2", "default")))
void attention_ds_row_f32(float* d, const float* p, const float* nz, int64_t n, int64_t written, int64_t S) {
  // Over whole vectors where dP was written: the padded keys have p = 0 and, without dropout, a finite d.
  const int64_t m = nz ? n : std::min(padded_keys(n, S), written);
  attention_ds_row(d, p, nz, m, S);
  for (int64_t j = n; j < m; ++j) d[j] = 0.0f;
}

}  // namespace

// Causal products by blocks of query rows: rows [i0, i0 + m) see keys [0, min(i0 + m, S)), so each
// block multiplies only those keys, and the products over the upper triangle, zero in the end, are
// never made (a quarter of the work at 64 tokens in blocks of 32, nearly half at 256 in 64s).
inline int64_t query_block(int64_t L) { return L <= 128 ? 32 : 64; }

bool CpuBackend::causal_attention(const Tensor& out, const Tensor& probs, const Tensor& q, const Tensor& k,
                                  const Tensor& v, const Tensor& noise, double scale) {
  dispatch_floating(q.dtype(), "causal_attention", [&]<typename T>() {
    const int64_t B = q.sizes()[0], H = q.sizes()[1], L = q.sizes()[2], E = q.sizes()[3];
    const int64_t S = k.sizes()[2], Ev = v.sizes()[3], block = query_block(L);
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
        const T* nz = N ? N + bh * L * S : nullptr;
        for (int64_t i0 = 0; i0 < L; i0 += block) {
          const int64_t m = std::min(block, L - i0), keys = std::min(i0 + m, S);
          if (keys == 0) continue;  // only when S = 0
          T* pb = p + i0 * S;
          const T* Qb = hq.at(b, h) + i0 * hq.ld;
          gemm<T>(false, true, m, keys, E, static_cast<T>(scale), Qb, hq.ld, hk.at(b, h), hk.ld, T(0), pb, S);
          for (int64_t i = i0; i < i0 + m; ++i) causal_softmax_row(p + i * S, std::min(i + 1, S), S);
          const T* weights = pb;
          if (nz) {  // the visible weights times the noise; the rest of the block's keys are 0
            T* db = dropped.data() + i0 * S;
            for (int64_t i = i0; i < i0 + m; ++i) {
              const int64_t n = std::min(i + 1, S);
              for (int64_t j = 0; j < n; ++j) db[(i - i0) * S + j] = p[i * S + j] * nz[i * S + j];
              std::fill(db + (i - i0) * S + n, db + (i - i0) * S + keys, T(0));
            }
            weights = db;
          }
          gemm<T>(false, false, m, Ev, keys, T(1), weights, S, hv.at(b, h), hv.ld, T(0), ho.at(b, h) + i0 * ho.ld,
                  ho.ld);
        }
        if (S == 0)  // no keys: the output is empty sums
          for (int64_t i = 0; i < L; ++i) std::fill(ho.at(b, h) + i * ho.ld, ho.at(b, h) + i * ho.ld + Ev, T(0));
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
    const int64_t S = k.sizes()[2], Ev = v.sizes()[3], block = query_block(L);
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
        if (nz) {  // zero above the diagonal, as P is
          for (int64_t i = 0; i < L; ++i) {
            const int64_t n = std::min(i + 1, S);
            for (int64_t j = 0; j < n; ++j) dropped[i * S + j] = p[i * S + j] * nz[i * S + j];
            std::fill(dropped.data() + i * S + n, dropped.data() + (i + 1) * S, T(0));
          }
          weights = dropped.data();
        }
        // By query blocks: dPd = dout v^T, then dS = P * (dP - rowsum(dP * P)) over the visible keys
        // (zero above the diagonal), then dq = scale * dS k.
        for (int64_t i0 = 0; i0 < L; i0 += block) {
          const int64_t m = std::min(block, L - i0), keys = std::min(i0 + m, S);
          T* d = dp.data() + i0 * S;
          if (keys > 0)
            gemm<T>(false, true, m, keys, Ev, T(1), hg.at(b, h) + i0 * hg.ld, hg.ld, hv.at(b, h), hv.ld, T(0), d, S);
          for (int64_t i = i0; i < i0 + m; ++i) {
            const int64_t n = std::min(i + 1, S);
            if constexpr (std::is_same_v<T, float>)
              attention_ds_row_f32(dp.data() + i * S, p + i * S, nz ? nz + i * S : nullptr, n, keys, S);
            else
              attention_ds_row(dp.data() + i * S, p + i * S, nz ? nz + i * S : nullptr, n, S);
          }
          T* dqb = hdq.at(b, h) + i0 * hdq.ld;
          if (keys > 0)
            gemm<T>(false, false, m, E, keys, static_cast<T>(scale), d, S, hk.at(b, h), hk.ld, T(0), dqb, hdq.ld);
          else
            for (int64_t i = 0; i < m; ++i) std::fill(dqb + i * hdq.ld, dqb + i * hdq.ld + E, T(0));
        }
        // By key blocks: keys [j0, j0 + n) are seen by queries [j0, L) only, so dv = weights^T dout and
        // dk = scale * dS^T q sum over those rows; keys no query sees (j >= L) get zero.
        for (int64_t j0 = 0; j0 < S; j0 += block) {
          const int64_t n = std::min(block, S - j0), rows = L - std::min(j0, L);
          T* dvb = hdv.at(b, h) + j0 * hdv.ld;
          T* dkb = hdk.at(b, h) + j0 * hdk.ld;
          if (rows == 0) {
            for (int64_t j = 0; j < n; ++j) {
              std::fill(dvb + j * hdv.ld, dvb + j * hdv.ld + Ev, T(0));
              std::fill(dkb + j * hdk.ld, dkb + j * hdk.ld + E, T(0));
            }
            continue;
          }
          gemm<T>(true, false, n, Ev, rows, T(1), weights + j0 * S + j0, S, hg.at(b, h) + j0 * hg.ld, hg.ld, T(0), dvb,
                  hdv.ld);
          gemm<T>(true, false, n, E, rows, static_cast<T>(scale), dp.data() + j0 * S + j0, S, hq.at(b, h) + j0 * hq.ld,
                  hq.ld, T(0), dkb, hdk.ld);
        }
      }
    }
  });
  return true;
}

}  // namespace ember::cpu
