// CUDA pooling kernels over contiguous (P, H, W) planes, the twins of core/cpu/pool.cpp: max (with
// the argmax), average, and the average's backward. The windows come from core/pool.h, the same
// code the CPU runs.
//
// One thread per output element (forward) or per input element (the average's backward, which
// gathers from the windows holding it, so no atomics and the same order of additions as the CPU).
// The grid is capped at kMaxGrid blocks and each thread strides over the rest.
#include "core/pool.h"
#include "cuda/kernels.h"

namespace ember::cuda {

namespace {

template <typename T>
__global__ void __launch_bounds__(kBlockSize)
    max_pool2d_kernel(T* out, int64_t* indices, const T* in, PoolGeometry g, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t ow = i % g.OW, oh = i / g.OW % g.OH, p = i / (g.OW * g.OH);
    const PoolWindow wh = pool_window(oh, g.H, g.OH, g.kH, g.sH, g.pH, g.dH, g.adaptive);
    const PoolWindow ww = pool_window(ow, g.W, g.OW, g.kW, g.sW, g.pW, g.dW, g.adaptive);
    const T* x = in + p * g.H * g.W;
    T best = -INFINITY;
    int64_t best_at = wh.start * g.W + ww.start;
    for (int64_t h = wh.start; h < wh.end; h += wh.step)
      for (int64_t w = ww.start; w < ww.end; w += ww.step) {
        const T v = x[h * g.W + w];
        if (v > best || v != v) {  // a NaN wins, the last one kept, as the CPU kernel
          best = v;
          best_at = h * g.W + w;
        }
      }
    out[i] = best;
    indices[i] = best_at;
  }
}

template <typename T>
__global__ void __launch_bounds__(kBlockSize) avg_pool2d_kernel(T* out, const T* in, PoolGeometry g, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t ow = i % g.OW, oh = i / g.OW % g.OH, p = i / (g.OW * g.OH);
    const PoolWindow wh = pool_window(oh, g.H, g.OH, g.kH, g.sH, g.pH, 1, g.adaptive);
    const PoolWindow ww = pool_window(ow, g.W, g.OW, g.kW, g.sW, g.pW, 1, g.adaptive);
    const T* x = in + p * g.H * g.W;
    T sum = 0;
    for (int64_t h = wh.start; h < wh.end; ++h)
      for (int64_t w = ww.start; w < ww.end; ++w) sum += x[h * g.W + w];
    out[i] = sum / static_cast<T>(pool_divisor(g, wh, ww));
  }
}

// din[h, w] = sum over windows (oh, ow) holding (h, w) of dout[oh, ow] / divisor(oh, ow)
template <typename T>
__global__ void __launch_bounds__(kBlockSize)
    avg_pool2d_backward_kernel(T* din, const T* dout, PoolGeometry g, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t w = i % g.W, h = i / g.W % g.H, p = i / (g.W * g.H);
    const T* gy = dout + p * g.OH * g.OW;
    const PoolRange rh = pool_outputs_near(h, g.H, g.OH, g.kH, g.sH, g.pH, g.adaptive);
    const PoolRange rw = pool_outputs_near(w, g.W, g.OW, g.kW, g.sW, g.pW, g.adaptive);
    T sum = 0;
    for (int64_t oh = rh.lo; oh <= rh.hi; ++oh) {
      const PoolWindow wh = pool_window(oh, g.H, g.OH, g.kH, g.sH, g.pH, 1, g.adaptive);
      if (!pool_window_holds(wh, h)) continue;
      for (int64_t ow = rw.lo; ow <= rw.hi; ++ow) {
        const PoolWindow ww = pool_window(ow, g.W, g.OW, g.kW, g.sW, g.pW, 1, g.adaptive);
        if (pool_window_holds(ww, w)) sum += gy[oh * g.OW + ow] / static_cast<T>(pool_divisor(g, wh, ww));
      }
    }
    din[i] = sum;
  }
}

}  // namespace

void launch_max_pool2d(cudaStream_t s, ScalarType type, int64_t n, const PoolGeometry& g, void* out, int64_t* indices,
                       const void* in) {
  dispatch_floating_type("max_pool2d", type, [&]<typename T>() {
    const LaunchShape ls = launch_1d(n);
    if (ls.grid == 0) return;
    EMBER_LAUNCH(ls.grid, ls.block, 0, s, max_pool2d_kernel<T>)
    (static_cast<T*>(out), indices, static_cast<const T*>(in), g, n);
    check_launch("max_pool2d");
  });
}

void launch_avg_pool2d(cudaStream_t s, ScalarType type, int64_t n, const PoolGeometry& g, void* out, const void* in) {
  dispatch_floating_type("avg_pool2d", type, [&]<typename T>() {
    const LaunchShape ls = launch_1d(n);
    if (ls.grid == 0) return;
    EMBER_LAUNCH(ls.grid, ls.block, 0, s, avg_pool2d_kernel<T>)(static_cast<T*>(out), static_cast<const T*>(in), g, n);
    check_launch("avg_pool2d");
  });
}

void launch_avg_pool2d_backward(cudaStream_t s, ScalarType type, int64_t n, const PoolGeometry& g, void* din,
                                const void* dout) {
  dispatch_floating_type("avg_pool2d_backward", type, [&]<typename T>() {
    const LaunchShape ls = launch_1d(n);
    if (ls.grid == 0) return;
    EMBER_LAUNCH(ls.grid, ls.block, 0, s, avg_pool2d_backward_kernel<T>)
    (static_cast<T*>(din), static_cast<const T*>(dout), g, n);
    check_launch("avg_pool2d_backward");
  });
}

}  // namespace ember::cuda
