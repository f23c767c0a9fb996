// CPU kernels for nn ops: softmax / log-softmax over the last dim and their backward, tril/triu.
//
// Rows are contiguous (the op makes them so); each row is independent, so rows are spread over
// OpenMP threads. Softmax subtracts the row max before exp, so large logits never overflow.
#include <cmath>
#include <limits>

#include "core/cpu/bfloat16_float.h"
#include "core/cpu/cpu_backend.h"
#include "core/cpu/loops.h"
#include "core/cpu/vec_math.h"

namespace ember::cpu {

// One float row of softmax / log-softmax; compiled for AVX-512, AVX2 and baseline, picked at run time.
// y may be x (in place). Rows are often short (attention rows are a few dozen keys), so the max and
// the sum run in 16 lanes folded by a tree at the end (lane_sum, core/cpu/vec_math.h).
namespace {
constexpr int kLanes = 16;
inline float tree_max(float* v) {
  for (int w = kLanes / 2; w > 0; w /= 2)
    for (int k = 0; k < w; ++k) v[k] = v[k + w] > v[k] ? v[k + w] : v[k];
  return v[0];
}
}  // namespace

__attribute__((target_clones("avx512f", "avx2", "default"))) void softmax_row_f32(float* y, const float* x, int64_t C,
                                                                                  bool log) {
  const int64_t whole = C / kLanes * kLanes;
  alignas(64) float lanes[kLanes];
  for (int k = 0; k < kLanes; ++k) lanes[k] = -INFINITY;
  for (int64_t c = 0; c < whole; c += kLanes)
    for (int k = 0; k < kLanes; ++k) lanes[k] = x[c + k] > lanes[k] ? x[c + k] : lanes[k];
  float mx = tree_max(lanes);
  for (int64_t c = whole; c < C; ++c) mx = x[c] > mx ? x[c] : mx;
  if (mx == -INFINITY) mx = 0;  // a fully masked row: exp(-inf - 0) = 0
  if (log) {
    const float sum = lane_sum<float>(C, [&](int64_t c) { return exp_vec(x[c] - mx); });
    const float shift = mx + std::log(sum);
#pragma omp simd
    for (int64_t c = 0; c < C; ++c) y[c] = x[c] - shift;
    return;
  }
  const float sum = lane_sum<float>(C, [&](int64_t c) { return y[c] = exp_vec(x[c] - mx); });
  const float inv = 1.0f / sum;
#pragma omp simd
  for (int64_t c = 0; c < C; ++c) y[c] *= inv;
}

// log-softmax of bf16 or f16 rows as PyTorch 2's CPU kernel over the last dim: in float32, except
// that the sum of exponentials and its log are each rounded to the row's dtype before the log and
// the subtraction (exactly its numbers: 0 of 2368 differ, where rounding once differs in 7%).
void log_softmax_reduced_rows(const Tensor& out_f, const Tensor& in_f, ScalarType dtype) {
  auto round_to_dtype = [dtype](float v) {
    return dtype == kBFloat16 ? static_cast<float>(BFloat16(v)) : static_cast<float>(Half(v));
  };
  const int64_t C = in_f.dim() ? in_f.sizes().back() : 1, rows = C ? in_f.numel() / C : 0;
  const float* x = in_f.data_ptr<float>();
  float* y = out_f.data_ptr<float>();
#pragma omp parallel for if (rows * C >= kParallelGrain)
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * C;
    float* yr = y + r * C;
    float mx = -INFINITY;
    for (int64_t c = 0; c < C; ++c) mx = xr[c] > mx ? xr[c] : mx;
    if (mx == -INFINITY) mx = 0;  // a fully masked row
    float sum = 0;
    for (int64_t c = 0; c < C; ++c) sum += std::exp(xr[c] - mx);
    const float lse = round_to_dtype(std::log(round_to_dtype(sum)));
    for (int64_t c = 0; c < C; ++c) yr[c] = (xr[c] - mx) - lse;
  }
}

void CpuBackend::softmax(const Tensor& out, const Tensor& in, bool log) {
  if (any_reduced_float({&out, &in})) {  // in float32, rounded once (core/cpu/bfloat16_float.h)
    Tensor out_f = float32_buffer(out);
    if (log && is_reduced_floating_point(in.dtype()))
      log_softmax_reduced_rows(out_f, float32_copy(*this, in), in.dtype());
    else
      softmax(out_f, float32_copy(*this, in), log);
    return round_back(*this, out, out_f);
  }
  dispatch_floating(in.dtype(), log ? "log_softmax" : "softmax", [&]<typename T>() {
    const int64_t C = in.dim() ? in.sizes().back() : 1, rows = C ? in.numel() / C : 0;
    const T* x = in.data_ptr<T>();
    T* y = out.data_ptr<T>();
#pragma omp parallel for if (rows * C >= kParallelGrain)
    for (int64_t r = 0; r < rows; ++r) {
      const T* xr = x + r * C;
      T* yr = y + r * C;
      if constexpr (std::is_same_v<T, float>) {
        softmax_row_f32(yr, xr, C, log);
        continue;
      }
      T mx = -std::numeric_limits<T>::infinity();
      for (int64_t c = 0; c < C; ++c) mx = xr[c] > mx ? xr[c] : mx;
      if (mx == -std::numeric_limits<T>::infinity()) mx = 0;  // a fully masked row: exp(-inf - 0) = 0
      double sum = 0;
      if (log) {
        for (int64_t c = 0; c < C; ++c) sum += std::exp(xr[c] - mx);
        const T lse = static_cast<T>(std::log(sum));
        for (int64_t c = 0; c < C; ++c) yr[c] = xr[c] - mx - lse;
      } else {
        for (int64_t c = 0; c < C; ++c) {
          yr[c] = std::exp(xr[c] - mx);
          sum += yr[c];
        }
        const T inv = static_cast<T>(1.0 / sum);
        for (int64_t c = 0; c < C; ++c) yr[c] *= inv;
      }
    }
  });
}

// softmax:     din = y * (dout - sum(dout * y))
// log_softmax: din = dout - exp(y) * sum(dout)
void CpuBackend::softmax_backward(const Tensor& din, const Tensor& dout, const Tensor& out, bool log) {
  if (any_reduced_float({&din, &dout, &out})) {
    Tensor din_f = float32_buffer(din);
    softmax_backward(din_f, float32_copy(*this, dout), float32_copy(*this, out), log);
    return round_back(*this, din, din_f);
  }
  dispatch_floating(out.dtype(), "softmax_backward", [&]<typename T>() {
    const int64_t C = out.dim() ? out.sizes().back() : 1, rows = C ? out.numel() / C : 0;
    const T* g = dout.data_ptr<T>();
    const T* y = out.data_ptr<T>();
    T* dx = din.data_ptr<T>();
#pragma omp parallel for if (rows * C >= kParallelGrain)
    for (int64_t r = 0; r < rows; ++r) {
      const T* gr = g + r * C;
      const T* yr = y + r * C;
      T* dr = dx + r * C;
      double dot = 0;
      if (log) {
        for (int64_t c = 0; c < C; ++c) dot += gr[c];
        for (int64_t c = 0; c < C; ++c) dr[c] = gr[c] - std::exp(yr[c]) * static_cast<T>(dot);
      } else {
        for (int64_t c = 0; c < C; ++c) dot += gr[c] * yr[c];
        for (int64_t c = 0; c < C; ++c) dr[c] = yr[c] * (gr[c] - static_cast<T>(dot));
      }
    }
  });
}

void CpuBackend::triangle(const Tensor& out, const Tensor& in, int64_t k, bool lower) {
  dispatch_all(in.dtype(), lower ? "tril" : "triu", [&]<typename T>() {
    const int64_t R = in.sizes()[in.dim() - 2], C = in.sizes()[in.dim() - 1];
    const int64_t mats = R * C != 0 ? in.numel() / (R * C) : 0;
    const T* x = in.data_ptr<T>();
    T* y = out.data_ptr<T>();
    for (int64_t m = 0; m < mats; ++m)
      for (int64_t i = 0; i < R; ++i)
        for (int64_t j = 0; j < C; ++j) {
          const int64_t at = (m * R + i) * C + j;
          const bool keep = lower ? j - i <= k : j - i >= k;
          y[at] = keep ? x[at] : T(0);
        }
  });
}

}  // namespace ember::cpu
