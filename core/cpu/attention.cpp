// CPU causal attention, forward and backward, one (batch, head) matrix at a time (see
// Backend::causal_attention). What the composed form does in eight ops and five copies:
//
//   forward, per head:   P = softmax(scale * q k^T, keys j <= i only)    one gemm, then rows
//                        out = (P * noise) v                              one gemm, written in place
//   backward, per head:  dPd = dout v^T,  dv = (P * noise)^T dout         two gemms
//                        dS = P * (dP - rowsum(dP * P)),  dP = dPd * noise
//                        dq = scale * dS k,  dk = scale * dS^T q          two gemms
//
// The products are small (a head is 64 x 32 at the baby GPT's size) and run through the
// register-tiled kernel of small_gemm.h rather than BLAS, whose per-call costs dominate at this size.
// q, v, out and the gradients are read and written where they lie (row strides), so the heads of a
// fused qkv projection need no copy and out lands straight in the caller's layout; k and v are
// transposed once per head into scratch for the products over the head dim. The masked
// upper triangle is neither multiplied (the gemms run by blocks of queries, each against the keys
// it sees, and by blocks of keys against the queries that see them) nor exponentiated: its
// weights are set to zero. Heads run in parallel over OpenMP's threads. bfloat16 heads (autocast)
// are widened to float32 per head and run the same code, keeping float32 weights (see widen_rows).
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/cpu/bfloat16_float.h"
#include "core/cpu/cpu_backend.h"
#include "core/cpu/per_isa.h"
#include "core/cpu/small_gemm.h"
#include "core/cpu/vec_math.h"

namespace ember::cpu {

namespace {

// C (m, n; ldc) = alpha * op(A) B through small_gemm.h: op(A) = A (m, k) or, `trans_a`, A^T with A
// stored (k, m). The float kernel is compiled per instruction set, each with its own vector width.
void small_gemm_f32(bool trans_a, int64_t m, int64_t n, int64_t k, float alpha, const float* A, int64_t lda,
                    const float* B, int64_t ldb, float* C, int64_t ldc) {
  per_isa_vector([&](auto vec_bytes) EMBER_ALWAYS_INLINE {
    if (trans_a)
      small_gemm<float, true, vec_bytes()>(m, n, k, alpha, A, lda, B, ldb, C, ldc);
    else
      small_gemm<float, false, vec_bytes()>(m, n, k, alpha, A, lda, B, ldb, C, ldc);
  });
}
template <typename T>
void mm(bool trans_a, int64_t m, int64_t n, int64_t k, T alpha, const T* A, int64_t lda, const T* B, int64_t ldb, T* C,
        int64_t ldc) {
  if constexpr (std::is_same_v<T, float>) {
    small_gemm_f32(trans_a, m, n, k, alpha, A, lda, B, ldb, C, ldc);
  } else {
    if (trans_a)
      small_gemm<T, true, 16>(m, n, k, alpha, A, lda, B, ldb, C, ldc);  // double: the baseline's width
    else
      small_gemm<T, false, 16>(m, n, k, alpha, A, lda, B, ldb, C, ldc);
  }
}

// out (cols, rows) = in (rows, cols; row stride ld)^T, contiguous: k and v of a head laid out so the
// products that contract over the head dim read them row by row.
template <typename T>
void transpose_head(T* out, const T* in, int64_t rows, int64_t cols, int64_t ld) {
  constexpr int64_t kTile = 16;  // tiles of 16 x 16: reads and writes both stay within a few cache lines
  for (int64_t i0 = 0; i0 < rows; i0 += kTile)
    for (int64_t j0 = 0; j0 < cols; j0 += kTile) {
      const int64_t i1 = std::min(rows, i0 + kTile), j1 = std::min(cols, j0 + kTile);
      for (int64_t j = j0; j < j1; ++j)
        for (int64_t i = i0; i < i1; ++i) out[j * rows + i] = in[i * ld + j];
    }
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
__attribute__((target_clones("avx512f", "avx2", "default"))) void attention_ds_row_f32(float* d, const float* p,
                                                                                       const float* nz, int64_t n,
                                                                                       int64_t written, int64_t S) {
  // Over whole vectors where dP was written: the padded keys have p = 0 and, without dropout, a finite d.
  const int64_t m = nz ? n : std::min(padded_keys(n, S), written);
  attention_ds_row(d, p, nz, m, S);
  for (int64_t j = n; j < m; ++j) d[j] = 0.0f;
}

// Causal products by blocks of query rows: rows [i0, i0 + m) see keys [0, min(i0 + m, S)), so each
// block multiplies only those keys, and the products over the upper triangle, zero in the end, are
// never made (a quarter of the work at 64 tokens in blocks of 32, nearly half at 256 in 64s).
inline int64_t query_block(int64_t L) { return L <= 128 ? 32 : 64; }

// One (batch, head) of the forward: o (L, Ev; ldo) = (P * noise) v with P (L, S) the causal softmax
// of scale * q k^T, written to p. q (L, E; ldq), k (S, E; ldk), v (S, Ev; ldv), nz (L, S) or null.
// kt (E * S) and dropped (L * S when nz) are the caller's scratch.
template <typename T>
void head_forward(T* o, int64_t ldo, T* p, const T* nz, const T* q, int64_t ldq, const T* k, int64_t ldk, const T* v,
                  int64_t ldv, int64_t L, int64_t S, int64_t E, int64_t Ev, double scale, T* kt, T* dropped) {
  const int64_t block = query_block(L);
  transpose_head(kt, k, S, E, ldk);
  for (int64_t i0 = 0; i0 < L; i0 += block) {
    const int64_t m = std::min(block, L - i0), keys = std::min(i0 + m, S);
    if (keys == 0) continue;  // only when S = 0
    T* pb = p + i0 * S;
    mm<T>(false, m, keys, E, static_cast<T>(scale), q + i0 * ldq, ldq, kt, S, pb, S);
    for (int64_t i = i0; i < i0 + m; ++i) causal_softmax_row(p + i * S, std::min(i + 1, S), S);
    const T* weights = pb;
    if (nz) {  // the visible weights times the noise; the rest of the block's keys are 0
      T* db = dropped + i0 * S;
      for (int64_t i = i0; i < i0 + m; ++i) {
        const int64_t n = std::min(i + 1, S);
        for (int64_t j = 0; j < n; ++j) db[(i - i0) * S + j] = p[i * S + j] * nz[i * S + j];
        std::fill(db + (i - i0) * S + n, db + (i - i0) * S + keys, T(0));
      }
      weights = db;
    }
    mm<T>(false, m, Ev, keys, T(1), weights, S, v, ldv, o + i0 * ldo, ldo);
  }
  if (S == 0)  // no keys: the output is empty sums
    for (int64_t i = 0; i < L; ++i) std::fill(o + i * ldo, o + i * ldo + Ev, T(0));
}

// One (batch, head) of the backward: dq, dk, dv (ld's as named) from g = dout (L, Ev; ldg), the
// saved weights p (L, S) and q, k, v as in head_forward. dp (L * S), dropped (L * S when nz) and
// vt (Ev * S) are the caller's scratch.
template <typename T>
void head_backward(T* dq, int64_t lddq, T* dk, int64_t lddk, T* dv, int64_t lddv, const T* g, int64_t ldg, const T* p,
                   const T* nz, const T* q, int64_t ldq, const T* k, int64_t ldk, const T* v, int64_t ldv, int64_t L,
                   int64_t S, int64_t E, int64_t Ev, double scale, T* dp, T* dropped, T* vt) {
  const int64_t block = query_block(L);
  transpose_head(vt, v, S, Ev, ldv);
  const T* weights = p;
  if (nz) {  // zero above the diagonal, as P is
    for (int64_t i = 0; i < L; ++i) {
      const int64_t n = std::min(i + 1, S);
      for (int64_t j = 0; j < n; ++j) dropped[i * S + j] = p[i * S + j] * nz[i * S + j];
      std::fill(dropped + i * S + n, dropped + (i + 1) * S, T(0));
    }
    weights = dropped;
  }
  // By query blocks: dPd = dout v^T, then dS = P * (dP - rowsum(dP * P)) over the visible keys
  // (zero above the diagonal), then dq = scale * dS k.
  for (int64_t i0 = 0; i0 < L; i0 += block) {
    const int64_t m = std::min(block, L - i0), keys = std::min(i0 + m, S);
    T* d = dp + i0 * S;
    if (keys > 0) mm<T>(false, m, keys, Ev, T(1), g + i0 * ldg, ldg, vt, S, d, S);
    for (int64_t i = i0; i < i0 + m; ++i) {
      const int64_t n = std::min(i + 1, S);
      if constexpr (std::is_same_v<T, float>)
        attention_ds_row_f32(dp + i * S, p + i * S, nz ? nz + i * S : nullptr, n, keys, S);
      else
        attention_ds_row(dp + i * S, p + i * S, nz ? nz + i * S : nullptr, n, S);
    }
    T* dqb = dq + i0 * lddq;
    if (keys > 0)
      mm<T>(false, m, E, keys, static_cast<T>(scale), d, S, k, ldk, dqb, lddq);
    else
      for (int64_t i = 0; i < m; ++i) std::fill(dqb + i * lddq, dqb + i * lddq + E, T(0));
  }
  // By key blocks: keys [j0, j0 + n) are seen by queries [j0, L) only, so dv = weights^T dout and
  // dk = scale * dS^T q sum over those rows; keys no query sees (j >= L) get zero.
  for (int64_t j0 = 0; j0 < S; j0 += block) {
    const int64_t n = std::min(block, S - j0), rows = L - std::min(j0, L);
    T* dvb = dv + j0 * lddv;
    T* dkb = dk + j0 * lddk;
    if (rows == 0) {
      for (int64_t j = 0; j < n; ++j) {
        std::fill(dvb + j * lddv, dvb + j * lddv + Ev, T(0));
        std::fill(dkb + j * lddk, dkb + j * lddk + E, T(0));
      }
      continue;
    }
    mm<T>(true, n, Ev, rows, T(1), weights + j0 * S + j0, S, g + j0 * ldg, ldg, dvb, lddv);
    mm<T>(true, n, E, rows, static_cast<T>(scale), dp + j0 * S + j0, S, q + j0 * ldq, ldq, dkb, lddk);
  }
}

// bfloat16 heads (autocast) run the float32 code: each head's rows are widened into float scratch
// (a bf16 product summed in float32 equals the float32 product of the widened values), the softmax
// and its backward run in float32 on float32 weights (probs is float32 for bf16 q), and each output
// row is rounded to bf16 once. The widening is O(L E) per head beside the O(L S E) products.
void widen_rows(float* out, const BFloat16* in, int64_t rows, int64_t cols, int64_t ld) {
  for (int64_t r = 0; r < rows; ++r) bfloat16_to_float(out + r * cols, in + r * ld, cols);
}
void round_rows(BFloat16* out, int64_t ld, const float* in, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) float_to_bfloat16(out + r * ld, in + r * cols, cols);
}

// Whether heads run on two threads: enough heads and enough work per head.
inline bool parallel_heads(int64_t B, int64_t H, int64_t L, int64_t S, int64_t E) {
  return B * H > 1 && B * H * L * S * E >= 262144;
}

}  // namespace

void small_gemm_float(bool trans_a, int64_t m, int64_t n, int64_t k, float alpha, const float* A, int64_t lda,
                      const float* B, int64_t ldb, float* C, int64_t ldc) {
  small_gemm_f32(trans_a, m, n, k, alpha, A, lda, B, ldb, C, ldc);
}

bool CpuBackend::causal_attention(const Tensor& out, const Tensor& probs, const Tensor& q, const Tensor& k,
                                  const Tensor& v, const Tensor& noise, double scale) {
  const int64_t B = q.sizes()[0], H = q.sizes()[1], L = q.sizes()[2], E = q.sizes()[3];
  const int64_t S = k.sizes()[2], Ev = v.sizes()[3];
  if (q.dtype() == kBFloat16) {
    EMBER_CHECK(probs.dtype() == kFloat32, "causal_attention: bfloat16 heads keep float32 weights, got {}",
                dtype_name(probs.dtype()));
    const Heads<const BFloat16> hq(q), hk(k), hv(v);
    const Heads<BFloat16> ho(out);
    float* P = probs.data_ptr<float>();
    const BFloat16* N = noise.defined() ? noise.data_ptr<BFloat16>() : nullptr;
#pragma omp parallel if (parallel_heads(B, H, L, S, E))
    {
      std::vector<float> qf(L * E), kf(S * E), vf(S * Ev), of(L * Ev), nzf(N ? L * S : 0), kt(E * S),
          dropped(N ? L * S : 0);
#pragma omp for
      for (int64_t bh = 0; bh < B * H; ++bh) {
        const int64_t b = bh / H, h = bh % H;
        widen_rows(qf.data(), hq.at(b, h), L, E, hq.ld);
        widen_rows(kf.data(), hk.at(b, h), S, E, hk.ld);
        widen_rows(vf.data(), hv.at(b, h), S, Ev, hv.ld);
        if (N) bfloat16_to_float(nzf.data(), N + bh * L * S, L * S);
        head_forward<float>(of.data(), Ev, P + bh * L * S, N ? nzf.data() : nullptr, qf.data(), E, kf.data(), E,
                            vf.data(), Ev, L, S, E, Ev, scale, kt.data(), dropped.data());
        round_rows(ho.at(b, h), ho.ld, of.data(), L, Ev);
      }
    }
    return true;
  }
  dispatch_floating(q.dtype(), "causal_attention", [&]<typename T>() {
    const Heads<T> hq(q), hk(k), hv(v), ho(out);
    T* P = probs.data_ptr<T>();
    const T* N = noise.defined() ? noise.data_ptr<T>() : nullptr;
#pragma omp parallel if (parallel_heads(B, H, L, S, E))
    {
      std::vector<T> dropped(N ? L * S : 0), kt(E * S);  // P * noise and k^T: this thread's scratch
#pragma omp for
      for (int64_t bh = 0; bh < B * H; ++bh) {
        const int64_t b = bh / H, h = bh % H;
        head_forward<T>(ho.at(b, h), ho.ld, P + bh * L * S, N ? N + bh * L * S : nullptr, hq.at(b, h), hq.ld,
                        hk.at(b, h), hk.ld, hv.at(b, h), hv.ld, L, S, E, Ev, scale, kt.data(), dropped.data());
      }
    }
  });
  return true;
}

bool CpuBackend::causal_attention_backward(const Tensor& dq, const Tensor& dk, const Tensor& dv, const Tensor& dout,
                                           const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& probs,
                                           const Tensor& noise, double scale) {
  const int64_t B = q.sizes()[0], H = q.sizes()[1], L = q.sizes()[2], E = q.sizes()[3];
  const int64_t S = k.sizes()[2], Ev = v.sizes()[3];
  if (q.dtype() == kBFloat16) {
    if (probs.dtype() != kFloat32) return false;  // weights saved some other way: the composed backward
    const Heads<const BFloat16> hq(q), hk(k), hv(v), hg(dout);
    const Heads<BFloat16> hdq(dq), hdk(dk), hdv(dv);
    const float* P = probs.data_ptr<float>();
    const BFloat16* N = noise.defined() ? noise.data_ptr<BFloat16>() : nullptr;
#pragma omp parallel if (parallel_heads(B, H, L, S, E))
    {
      std::vector<float> qf(L * E), kf(S * E), vf(S * Ev), gf(L * Ev), dqf(L * E), dkf(S * E), dvf(S * Ev),
          nzf(N ? L * S : 0), dp(L * S), dropped(N ? L * S : 0), vt(Ev * S);
#pragma omp for
      for (int64_t bh = 0; bh < B * H; ++bh) {
        const int64_t b = bh / H, h = bh % H;
        widen_rows(qf.data(), hq.at(b, h), L, E, hq.ld);
        widen_rows(kf.data(), hk.at(b, h), S, E, hk.ld);
        widen_rows(vf.data(), hv.at(b, h), S, Ev, hv.ld);
        widen_rows(gf.data(), hg.at(b, h), L, Ev, hg.ld);
        if (N) bfloat16_to_float(nzf.data(), N + bh * L * S, L * S);
        head_backward<float>(dqf.data(), E, dkf.data(), E, dvf.data(), Ev, gf.data(), Ev, P + bh * L * S,
                             N ? nzf.data() : nullptr, qf.data(), E, kf.data(), E, vf.data(), Ev, L, S, E, Ev, scale,
                             dp.data(), dropped.data(), vt.data());
        round_rows(hdq.at(b, h), hdq.ld, dqf.data(), L, E);
        round_rows(hdk.at(b, h), hdk.ld, dkf.data(), S, E);
        round_rows(hdv.at(b, h), hdv.ld, dvf.data(), S, Ev);
      }
    }
    return true;
  }
  dispatch_floating(q.dtype(), "causal_attention_backward", [&]<typename T>() {
    const Heads<T> hq(q), hk(k), hv(v), hg(dout), hdq(dq), hdk(dk), hdv(dv);
    const T* P = probs.data_ptr<T>();
    const T* N = noise.defined() ? noise.data_ptr<T>() : nullptr;
#pragma omp parallel if (parallel_heads(B, H, L, S, E))
    {
      std::vector<T> dp(L * S), dropped(N ? L * S : 0), vt(Ev * S);
#pragma omp for
      for (int64_t bh = 0; bh < B * H; ++bh) {
        const int64_t b = bh / H, h = bh % H;
        head_backward<T>(hdq.at(b, h), hdq.ld, hdk.at(b, h), hdk.ld, hdv.at(b, h), hdv.ld, hg.at(b, h), hg.ld,
                         P + bh * L * S, N ? N + bh * L * S : nullptr, hq.at(b, h), hq.ld, hk.at(b, h), hk.ld,
                         hv.at(b, h), hv.ld, L, S, E, Ev, scale, dp.data(), dropped.data(), vt.data());
      }
    }
  });
  return true;
}

}  // namespace ember::cpu
