// CPU LayerNorm, forward and backward in one pass over each row (see Backend::layer_norm).
//
// Forward, per row x of D values:   mean = sum(x) / D,  var = sum((x - mean)^2) / D,
//                                   rstd = 1 / sqrt(var + eps),  y = (x - mean) * rstd * w + b
// Backward, with xhat = (x - mean) * rstd and gw = dy * w:
//   dx = rstd * (gw - mean(gw) - xhat * mean(gw * xhat))
//   dw = sum over rows of dy * xhat,  db = sum over rows of dy
// Row statistics accumulate in double, so float rows as long as any model uses lose nothing.
// Rows are spread over OpenMP threads; dw and db are summed per thread, then across threads.
#include <omp.h>

#include <cmath>
#include <vector>

#include "core/cpu/cpu_backend.h"

namespace ember::cpu {

bool CpuBackend::layer_norm(const Tensor& out, const Tensor& mean, const Tensor& rstd, const Tensor& in,
                            const Tensor& weight, const Tensor& bias, double eps) {
  dispatch_floating(in.dtype(), "layer_norm", [&]<typename T>() {
    const int64_t N = in.sizes()[0], D = in.sizes()[1];
    const T* x = in.data_ptr<T>();
    const T* w = weight.defined() ? weight.data_ptr<T>() : nullptr;
    const T* b = bias.defined() ? bias.data_ptr<T>() : nullptr;
    T* y = out.data_ptr<T>();
    T* mu = mean.data_ptr<T>();
    T* rs = rstd.data_ptr<T>();
#pragma omp parallel for if (N * D >= 32768)
    for (int64_t r = 0; r < N; ++r) {
      const T* xr = x + r * D;
      T* yr = y + r * D;
      double sum = 0;
#pragma omp simd reduction(+ : sum)
      for (int64_t c = 0; c < D; ++c) sum += xr[c];
      const double m = sum / static_cast<double>(D);
      double sq = 0;
#pragma omp simd reduction(+ : sq)
      for (int64_t c = 0; c < D; ++c) sq += (xr[c] - m) * (xr[c] - m);
      const double s = 1.0 / std::sqrt(sq / static_cast<double>(D) + eps);
      mu[r] = static_cast<T>(m);
      rs[r] = static_cast<T>(s);
      const T tm = static_cast<T>(m), ts = static_cast<T>(s);
#pragma omp simd
      for (int64_t c = 0; c < D; ++c) {
        T v = (xr[c] - tm) * ts;
        if (w) v *= w[c];
        if (b) v += b[c];
        yr[c] = v;
      }
    }
  });
  return true;
}

bool CpuBackend::layer_norm_backward(const Tensor& din, const Tensor& dweight, const Tensor& dbias, const Tensor& dout,
                                     const Tensor& in, const Tensor& mean, const Tensor& rstd, const Tensor& weight) {
  dispatch_floating(in.dtype(), "layer_norm_backward", [&]<typename T>() {
    const int64_t N = in.sizes()[0], D = in.sizes()[1];
    const T* x = in.data_ptr<T>();
    const T* g = dout.data_ptr<T>();
    const T* w = weight.defined() ? weight.data_ptr<T>() : nullptr;
    const T* mu = mean.data_ptr<T>();
    const T* rs = rstd.data_ptr<T>();
    T* dx = din.defined() ? din.data_ptr<T>() : nullptr;
    const bool want_dw = dweight.defined(), want_db = dbias.defined();
    const int threads = (N * D >= 32768) ? omp_get_max_threads() : 1;
    // Per-thread partial sums of dw and db, in double, added up after the parallel loop.
    std::vector<double> partial_dw(want_dw ? threads * D : 0), partial_db(want_db ? threads * D : 0);
#pragma omp parallel num_threads(threads)
    {
      const int t = omp_get_thread_num();
      double* pdw = want_dw ? partial_dw.data() + t * D : nullptr;
      double* pdb = want_db ? partial_db.data() + t * D : nullptr;
#pragma omp for
      for (int64_t r = 0; r < N; ++r) {
        const T* xr = x + r * D;
        const T* gr = g + r * D;
        const T m = mu[r], s = rs[r];
        if (pdw)
          for (int64_t c = 0; c < D; ++c) pdw[c] += static_cast<double>(gr[c]) * ((xr[c] - m) * s);
        if (pdb)
          for (int64_t c = 0; c < D; ++c) pdb[c] += gr[c];
        if (!dx) continue;
        double sum_gw = 0, sum_gw_xhat = 0;
#pragma omp simd reduction(+ : sum_gw, sum_gw_xhat)
        for (int64_t c = 0; c < D; ++c) {
          const T gw = w ? gr[c] * w[c] : gr[c];
          sum_gw += gw;
          sum_gw_xhat += gw * ((xr[c] - m) * s);
        }
        const T mean_gw = static_cast<T>(sum_gw / static_cast<double>(D));
        const T mean_gw_xhat = static_cast<T>(sum_gw_xhat / static_cast<double>(D));
        T* dr = dx + r * D;
#pragma omp simd
        for (int64_t c = 0; c < D; ++c) {
          const T gw = w ? gr[c] * w[c] : gr[c];
          dr[c] = s * (gw - mean_gw - (xr[c] - m) * s * mean_gw_xhat);
        }
      }
    }
    for (auto [want, partial, result] : {std::tuple{want_dw, &partial_dw, &dweight}, std::tuple{want_db, &partial_db, &dbias}}) {
      if (!want) continue;
      T* o = result->template data_ptr<T>();
      for (int64_t c = 0; c < D; ++c) {
        double acc = 0;
        for (int t = 0; t < threads; ++t) acc += (*partial)[t * D + c];
        o[c] = static_cast<T>(acc);
      }
    }
  });
  return true;
}

}  // namespace ember::cpu
