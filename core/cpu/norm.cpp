// CPU LayerNorm, forward and backward in one pass over each row (see Backend::layer_norm).
//
// Forward, per row x of D values:   mean = sum(x) / D,  var = sum((x - mean)^2) / D,
//                                   rstd = 1 / sqrt(var + eps),  y = (x - mean) * rstd * w + b
// Backward, with xhat = (x - mean) * rstd and gw = dy * w:
//   dx = rstd * (gw - mean(gw) - xhat * mean(gw * xhat))
//   dw = sum over rows of dy * xhat,  db = sum over rows of dy
// Sums run in the input's type, as PyTorch's CPU kernel's do, vectorised: a float row's sums are
// 16 lanes of partial sums, which keeps their error near one rounding. The float rows are compiled
// for AVX-512, AVX2 and the baseline, picked at run time. Rows are spread over OpenMP threads; dw
// and db are summed per thread, then across threads.
#include <omp.h>

#include <cmath>
#include <vector>

#include "core/cpu/bfloat16_float.h"
#include "core/cpu/cpu_backend.h"
#include "core/cpu/loops.h"

namespace ember::cpu {

namespace {

// One row forward: y, and the row's mean and rstd.
template <typename T>
inline __attribute__((always_inline)) void ln_forward_row(T* __restrict y, T* mean, T* rstd, const T* __restrict x,
                                                          const T* __restrict w, const T* __restrict b, int64_t D,
                                                          T eps) {
  T sum = 0;
#pragma omp simd reduction(+ : sum)
  for (int64_t c = 0; c < D; ++c) sum += x[c];
  const T m = sum / static_cast<T>(D);
  T sq = 0;
#pragma omp simd reduction(+ : sq)
  for (int64_t c = 0; c < D; ++c) sq += (x[c] - m) * (x[c] - m);
  const T s = T(1) / std::sqrt(sq / static_cast<T>(D) + eps);
  *mean = m;
  *rstd = s;
  if (w && b) {
#pragma omp simd
    for (int64_t c = 0; c < D; ++c) y[c] = (x[c] - m) * s * w[c] + b[c];
  } else {
#pragma omp simd
    for (int64_t c = 0; c < D; ++c) y[c] = ((x[c] - m) * s) * (w ? w[c] : T(1)) + (b ? b[c] : T(0));
  }
}

// One row backward: dx (when wanted), and the row's terms added into the partial dw and db.
template <typename T>
inline __attribute__((always_inline)) void ln_backward_row(T* __restrict dx, T* __restrict pdw, T* __restrict pdb,
                                                           const T* __restrict g, const T* __restrict x,
                                                           const T* __restrict w, T m, T s, int64_t D) {
  if (pdw) {
#pragma omp simd
    for (int64_t c = 0; c < D; ++c) pdw[c] += g[c] * ((x[c] - m) * s);
  }
  if (pdb) {
#pragma omp simd
    for (int64_t c = 0; c < D; ++c) pdb[c] += g[c];
  }
  if (!dx) return;
  T sum_gw = 0, sum_gw_xhat = 0;
  if (w) {
#pragma omp simd reduction(+ : sum_gw, sum_gw_xhat)
    for (int64_t c = 0; c < D; ++c) {
      sum_gw += g[c] * w[c];
      sum_gw_xhat += g[c] * w[c] * ((x[c] - m) * s);
    }
  } else {
#pragma omp simd reduction(+ : sum_gw, sum_gw_xhat)
    for (int64_t c = 0; c < D; ++c) {
      sum_gw += g[c];
      sum_gw_xhat += g[c] * ((x[c] - m) * s);
    }
  }
  const T mean_gw = sum_gw / static_cast<T>(D);
  const T mean_gw_xhat = sum_gw_xhat / static_cast<T>(D);
  if (w) {
#pragma omp simd
    for (int64_t c = 0; c < D; ++c) dx[c] = s * (g[c] * w[c] - mean_gw - (x[c] - m) * s * mean_gw_xhat);
  } else {
#pragma omp simd
    for (int64_t c = 0; c < D; ++c) dx[c] = s * (g[c] - mean_gw - (x[c] - m) * s * mean_gw_xhat);
  }
}

__attribute__((target_clones("avx512f", "avx2", "default"))) void ln_forward_row_f32(float* y, float* mean, float* rstd,
                                                                                     const float* x, const float* w,
                                                                                     const float* b, int64_t D,
                                                                                     float eps) {
  ln_forward_row(y, mean, rstd, x, w, b, D, eps);
}
__attribute__((target_clones("avx512f", "avx2", "default"))) void ln_backward_row_f32(float* dx, float* pdw, float* pdb,
                                                                                      const float* g, const float* x,
                                                                                      const float* w, float m, float s,
                                                                                      int64_t D) {
  ln_backward_row(dx, pdw, pdb, g, x, w, m, s, D);
}

template <typename T>
void forward_row(T* y, T* mean, T* rstd, const T* x, const T* w, const T* b, int64_t D, T eps) {
  if constexpr (std::is_same_v<T, float>)
    ln_forward_row_f32(y, mean, rstd, x, w, b, D, eps);
  else
    ln_forward_row(y, mean, rstd, x, w, b, D, eps);
}
template <typename T>
void backward_row(T* dx, T* pdw, T* pdb, const T* g, const T* x, const T* w, T m, T s, int64_t D) {
  if constexpr (std::is_same_v<T, float>)
    ln_backward_row_f32(dx, pdw, pdb, g, x, w, m, s, D);
  else
    ln_backward_row(dx, pdw, pdb, g, x, w, m, s, D);
}

}  // namespace

bool CpuBackend::layer_norm(const Tensor& out, const Tensor& mean, const Tensor& rstd, const Tensor& in,
                            const Tensor& weight, const Tensor& bias, double eps) {
  if (any_reduced_float({&out, &in, &weight, &bias})) {  // in float32, rounded once (core/cpu/bfloat16_float.h)
    Tensor out_f = float32_buffer(out), mean_f = float32_buffer(mean), rstd_f = float32_buffer(rstd);
    layer_norm(out_f, mean_f, rstd_f, float32_copy(*this, in), float32_copy(*this, weight), float32_copy(*this, bias),
               eps);
    round_back(*this, out, out_f);
    round_back(*this, mean, mean_f);
    round_back(*this, rstd, rstd_f);
    return true;
  }
  dispatch_floating(in.dtype(), "layer_norm", [&]<typename T>() {
    const int64_t N = in.sizes()[0], D = in.sizes()[1];
    const T* x = in.data_ptr<T>();
    const T* w = weight.defined() ? weight.data_ptr<T>() : nullptr;
    const T* b = bias.defined() ? bias.data_ptr<T>() : nullptr;
    T* y = out.data_ptr<T>();
    T* mu = mean.data_ptr<T>();
    T* rs = rstd.data_ptr<T>();
#pragma omp parallel for if (N * D >= kParallelGrain)
    for (int64_t r = 0; r < N; ++r) forward_row<T>(y + r * D, mu + r, rs + r, x + r * D, w, b, D, static_cast<T>(eps));
  });
  return true;
}

bool CpuBackend::layer_norm_backward(const Tensor& din, const Tensor& dweight, const Tensor& dbias, const Tensor& dout,
                                     const Tensor& in, const Tensor& mean, const Tensor& rstd, const Tensor& weight) {
  if (any_reduced_float({&dout, &in, &weight})) {
    Tensor din_f = float32_buffer(din), dweight_f = float32_buffer(dweight), dbias_f = float32_buffer(dbias);
    layer_norm_backward(din_f, dweight_f, dbias_f, float32_copy(*this, dout), float32_copy(*this, in),
                        float32_copy(*this, mean), float32_copy(*this, rstd), float32_copy(*this, weight));
    round_back(*this, din, din_f);
    round_back(*this, dweight, dweight_f);
    round_back(*this, dbias, dbias_f);
    return true;
  }
  dispatch_floating(in.dtype(), "layer_norm_backward", [&]<typename T>() {
    const int64_t N = in.sizes()[0], D = in.sizes()[1];
    const T* x = in.data_ptr<T>();
    const T* g = dout.data_ptr<T>();
    const T* w = weight.defined() ? weight.data_ptr<T>() : nullptr;
    const T* mu = mean.data_ptr<T>();
    const T* rs = rstd.data_ptr<T>();
    T* dx = din.defined() ? din.data_ptr<T>() : nullptr;
    const bool want_dw = dweight.defined(), want_db = dbias.defined();
    const int threads = (N * D >= kParallelGrain) ? omp_get_max_threads() : 1;
    // Per-thread partial sums of dw and db, added up after the parallel loop.
    ThreadPartials<T> partial_dw(want_dw ? threads : 0, D), partial_db(want_db ? threads : 0, D);
#pragma omp parallel num_threads(threads)
    {
      const int t = omp_get_thread_num();
      T* pdw = want_dw ? partial_dw.row(t) : nullptr;
      T* pdb = want_db ? partial_db.row(t) : nullptr;
#pragma omp for
      for (int64_t r = 0; r < N; ++r)
        backward_row<T>(dx ? dx + r * D : nullptr, pdw, pdb, g + r * D, x + r * D, w, mu[r], rs[r], D);
    }
    for (auto [want, partial, result] :
         {std::tuple{want_dw, &partial_dw, &dweight}, std::tuple{want_db, &partial_db, &dbias}}) {
      if (!want) continue;
      T* o = result->template data_ptr<T>();
      for (int64_t c = 0; c < D; ++c) {
        T acc = 0;
        for (int t = 0; t < threads; ++t) acc += partial->row(t)[c];
        o[c] = acc;
      }
    }
  });
  return true;
}

}  // namespace ember::cpu
