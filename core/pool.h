// The windows of 2-d pooling, written once for the CPU kernels (core/cpu/pool.cpp) and the CUDA
// kernels (cuda/pool.cu): which input rows and columns output (oh, ow) reads, what an average
// divides by, and what one output (or, for the average's backward, one input) computes from its
// window. 1-d pooling is 2-d pooling with H = 1.
//
//   PoolGeometry g = ...;                           // filled by the op (autograd/pool.cpp)
//   PoolWindow r = pool_window(oh, g.H, g.OH, g.kH, g.sH, g.pH, g.dH, g.adaptive);
//   for (int64_t h = r.start; h < r.end; h += r.step) ...   // only rows inside the input
//
// Not here: argument checks and output sizes, which the op computes once for every device.
#pragma once

#include <cmath>  // INFINITY
#include <cstdint>

#include "core/functors.h"  // EMBER_HD

namespace ember {

// One pooling's shape: an input plane (H, W) pooled to (OH, OW). With `adaptive`, output o of a
// dim of size L -> OL reads [floor(o L / OL), ceil((o + 1) L / OL)), as adaptive_*_pool2d; else it
// reads start = o * stride - padding, then every dilation-th element, kernel of them, as max_pool2d
// and avg_pool2d (whose dilation is 1).
struct PoolGeometry {
  int64_t H = 1, W = 1, OH = 1, OW = 1;
  int64_t kH = 1, kW = 1, sH = 1, sW = 1, pH = 0, pW = 0, dH = 1, dW = 1;
  bool adaptive = false;
  // avg_pool2d only: count padded positions in the divisor; divisor_override > 0 replaces it.
  bool count_include_pad = true;
  int64_t divisor_override = 0;
};

// The input positions [start, end) step `step` one output reads along one dim (clipped to the input),
// and `padded_size`, the window's length with padding counted (the avg-pool divisor's factor).
struct PoolWindow {
  int64_t start, end, step, padded_size;
};

EMBER_HD inline PoolWindow pool_window(int64_t o, int64_t L, int64_t OL, int64_t k, int64_t s, int64_t p, int64_t d,
                                       bool adaptive) {
  if (adaptive) {
    const int64_t start = o * L / OL, end = ((o + 1) * L + OL - 1) / OL;
    return {start, end, 1, end - start};
  }
  int64_t start = o * s - p;
  int64_t end = start + (k - 1) * d + 1;
  // The padded extent (avg pooling, d = 1): the window clipped at L + p, as PyTorch's pool_size.
  const int64_t padded_end = end < L + p ? end : L + p;
  const int64_t padded_size = padded_end - start;
  while (start < 0) start += d;
  if (end > L) end = L;
  return {start, end, d, padded_size};
}

// What avg pooling divides window (oh, ow) by.
EMBER_HD inline int64_t pool_divisor(const PoolGeometry& g, const PoolWindow& h, const PoolWindow& w) {
  if (g.divisor_override > 0) return g.divisor_override;
  if (g.count_include_pad && !g.adaptive) return h.padded_size * w.padded_size;
  const int64_t rows = h.end > h.start ? h.end - h.start : 0, cols = w.end > w.start ? w.end - w.start : 0;
  return rows * cols;
}

// The outputs whose windows may hold input position i along one dim: a range [lo, hi] wide enough
// for every geometry (callers test each with pool_window), used by avg pooling's backward, which
// gathers per input element instead of scattering per output (no atomics on the device).
struct PoolRange {
  int64_t lo, hi;
};
EMBER_HD inline PoolRange pool_outputs_near(int64_t i, int64_t L, int64_t OL, int64_t k, int64_t s, int64_t p,
                                            bool adaptive) {
  int64_t lo, hi;
  if (adaptive) {
    lo = i * OL / L - 1;
    hi = (i + 1) * OL / L + 1;
  } else {
    lo = i + p < k ? 0 : (i + p - k) / s;
    hi = (i + p) / s;
  }
  return {lo < 0 ? 0 : lo, hi > OL - 1 ? OL - 1 : hi};
}

// Whether window w, of step 1 (avg pooling's), holds position i.
EMBER_HD inline bool pool_window_holds(const PoolWindow& w, int64_t i) { return i >= w.start && i < w.end; }

// ---- one output's window, shared by the CPU loops and the CUDA kernels ----

// The rows output row oh reads, and the columns output column ow reads; dilation d (1 for avg pooling).
EMBER_HD inline PoolWindow pool_rows(const PoolGeometry& g, int64_t oh, int64_t d) {
  return pool_window(oh, g.H, g.OH, g.kH, g.sH, g.pH, d, g.adaptive);
}
EMBER_HD inline PoolWindow pool_cols(const PoolGeometry& g, int64_t ow, int64_t d) {
  return pool_window(ow, g.W, g.OW, g.kW, g.sW, g.pW, d, g.adaptive);
}

// The largest value of window (wh, ww) in plane x (of width W) and its index h * W + w in the plane.
// As PyTorch's kernels: a NaN wins, the last one kept.
template <typename T>
struct PoolMax {
  T value;
  int64_t at;
};
template <typename T>
EMBER_HD inline PoolMax<T> pool_max(const T* x, int64_t W, const PoolWindow& wh, const PoolWindow& ww) {
  PoolMax<T> best{static_cast<T>(-INFINITY), wh.start * W + ww.start};
  for (int64_t h = wh.start; h < wh.end; h += wh.step)
    for (int64_t w = ww.start; w < ww.end; w += ww.step) {
      const T v = x[h * W + w];
      if (v > best.value || v != v) best = {v, h * W + w};
    }
  return best;
}

// The average of window (wh, ww) (step 1) in plane x.
template <typename T>
EMBER_HD inline T pool_average(const T* x, const PoolGeometry& g, const PoolWindow& wh, const PoolWindow& ww) {
  T sum = 0;
  for (int64_t h = wh.start; h < wh.end; ++h)
    for (int64_t w = ww.start; w < ww.end; ++w) sum += x[h * g.W + w];
  return sum / static_cast<T>(pool_divisor(g, wh, ww));
}

// Avg pooling's input gradient at (h, w) from the output gradient gy of its plane: the sum over the
// windows (oh, ow) holding (h, w) of gy[oh, ow] / divisor(oh, ow), in order of oh, then ow.
template <typename T>
EMBER_HD inline T avg_pool_input_grad(const T* gy, const PoolGeometry& g, int64_t h, int64_t w) {
  const PoolRange rh = pool_outputs_near(h, g.H, g.OH, g.kH, g.sH, g.pH, g.adaptive);
  const PoolRange rw = pool_outputs_near(w, g.W, g.OW, g.kW, g.sW, g.pW, g.adaptive);
  T sum = 0;
  for (int64_t oh = rh.lo; oh <= rh.hi; ++oh) {
    const PoolWindow wh = pool_rows(g, oh, 1);
    if (!pool_window_holds(wh, h)) continue;
    for (int64_t ow = rw.lo; ow <= rw.hi; ++ow) {
      const PoolWindow ww = pool_cols(g, ow, 1);
      if (pool_window_holds(ww, w)) sum += gy[oh * g.OW + ow] / static_cast<T>(pool_divisor(g, wh, ww));
    }
  }
  return sum;
}

}  // namespace ember
