// CPU fused cross-entropy over class indices (see Backend::cross_entropy): log-softmax, the loss
// and its gradient each in one pass over a row of logits, instead of log_softmax, gather, a
// smoothing sum and their backwards over (N, C) tables.
//
// Rows are contiguous (N, C) and independent, so they are spread over OpenMP threads. The row's
// max and logsumexp are found in one pass (the online form of FlashAttention and llm.c): a larger
// value rescales the running sum by exp(old max - new max). Sums accumulate in double, as the
// CPU's softmax does. Mirrors cuda/loss.cu.
#include <cmath>
#include <limits>

#include "core/cpu/cpu_backend.h"
#include "core/cpu/loops.h"

namespace ember::cpu {

bool CpuBackend::cross_entropy(const Tensor& losses, const Tensor& lse, const Tensor& status, const Tensor& logits,
                               const Tensor& target, int64_t ignore_index, double label_smoothing) {
  if (logits.dtype() != kFloat32 && logits.dtype() != kFloat64) return false;  // bfloat16: the op composes
  const int64_t N = logits.sizes()[0], C = logits.sizes()[1];
  const int64_t* t = target.data_ptr<int64_t>();
  int64_t* st = status.data_ptr<int64_t>();
  // The targets first, one cheap pass in order: the first bad one is the one reported.
  for (int64_t i = 0; i < N; ++i) {
    if (t[i] == ignore_index) continue;
    ++st[1];
    if ((t[i] < 0 || t[i] >= C) && st[0] == ignore_index) st[0] = t[i];
  }
  if (st[0] != ignore_index) return true;  // the op reports it; no row is read out of bounds
  dispatch_floating(logits.dtype(), "cross_entropy", [&]<typename T>() {
    const T* x = logits.data_ptr<T>();
    T* loss = losses.data_ptr<T>();
    T* out_lse = lse.data_ptr<T>();
    const double s = label_smoothing;
#pragma omp parallel for if (N * C >= kParallelGrain)
    for (int64_t i = 0; i < N; ++i) {
      const T* xr = x + i * C;
      double mx = -std::numeric_limits<double>::infinity(), sum = 0, total = 0;
      for (int64_t c = 0; c < C; ++c) {
        const double v = xr[c];
        if (v > mx) {  // exp(-inf - v) = 0 on the first value
          sum = sum * std::exp(mx - v) + 1;
          mx = v;
        } else {
          sum += std::exp(v - mx);
        }
        total += v;
      }
      const double row_lse = mx + std::log(sum);
      out_lse[i] = static_cast<T>(row_lse);
      if (t[i] == ignore_index) {
        loss[i] = 0;
        continue;
      }
      // (1 - s) (lse - x_t) + (s / C) sum_c (lse - x_c)
      loss[i] = static_cast<T>(row_lse - (1 - s) * xr[t[i]] - s / static_cast<double>(C) * total);
    }
  });
  return true;
}

// dx[i, c] = g_i (exp(x[i, c] - lse_i) - (1 - s) [c == t_i] - s / C)
bool CpuBackend::cross_entropy_backward(const Tensor& dlogits, const Tensor& dlosses, const Tensor& logits,
                                        const Tensor& lse, const Tensor& target, int64_t ignore_index,
                                        double label_smoothing) {
  if (logits.dtype() != kFloat32 && logits.dtype() != kFloat64) return false;
  dispatch_floating(logits.dtype(), "cross_entropy_backward", [&]<typename T>() {
    const int64_t N = logits.sizes()[0], C = logits.sizes()[1], g_stride = dlosses.strides()[0];
    const T* x = logits.data_ptr<T>();
    const T* g = dlosses.data_ptr<T>();
    const T* row_lse = lse.data_ptr<T>();
    const int64_t* t = target.data_ptr<int64_t>();
    T* dx = dlogits.data_ptr<T>();
    const T on_target = static_cast<T>(1 - label_smoothing), everywhere = static_cast<T>(label_smoothing / C);
#pragma omp parallel for if (N * C >= kParallelGrain)
    for (int64_t i = 0; i < N; ++i) {
      T* dr = dx + i * C;
      const T* xr = x + i * C;
      if (t[i] == ignore_index) {
        for (int64_t c = 0; c < C; ++c) dr[c] = 0;
        continue;
      }
      const T gi = g[i * g_stride], m = row_lse[i];
      for (int64_t c = 0; c < C; ++c) dr[c] = gi * (std::exp(xr[c] - m) - everywhere);
      dr[t[i]] -= gi * on_target;
    }
  });
  return true;
}

}  // namespace ember::cpu
