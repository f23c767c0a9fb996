// CPU pooling kernels over contiguous (P, H, W) planes: max (with the argmax), average, and the
// average's backward. The windows come from core/pool.h, shared with cuda/pool.cu.
//
// Planes are independent, so they are spread over OpenMP threads. Max pooling's backward needs no
// kernel of its own: it is scatter_add of dout at the saved indices (autograd/pool.cpp). The
// average's backward gathers, for each input element, the outputs whose windows hold it, as the
// CUDA kernel does (no atomics there), so both devices add in the same order.
#include "core/pool.h"

#include <cmath>
#include <limits>

#include "core/cpu/cpu_backend.h"
#include "core/cpu/loops.h"

namespace ember::cpu {

void CpuBackend::max_pool2d(const Tensor& out, const Tensor& indices, const Tensor& in, const PoolGeometry& g) {
  dispatch_floating(in.dtype(), "max_pool2d", [&]<typename T>() {
    const int64_t planes = in.numel() / (g.H * g.W);
    const T* x = in.data_ptr<T>();
    T* y = out.data_ptr<T>();
    int64_t* idx = indices.data_ptr<int64_t>();
#pragma omp parallel for if (out.numel() * g.kH * g.kW >= kParallelGrain)
    for (int64_t p = 0; p < planes; ++p) {
      const T* xp = x + p * g.H * g.W;
      for (int64_t oh = 0; oh < g.OH; ++oh) {
        const PoolWindow wh = pool_window(oh, g.H, g.OH, g.kH, g.sH, g.pH, g.dH, g.adaptive);
        for (int64_t ow = 0; ow < g.OW; ++ow) {
          const PoolWindow ww = pool_window(ow, g.W, g.OW, g.kW, g.sW, g.pW, g.dW, g.adaptive);
          T best = -std::numeric_limits<T>::infinity();
          int64_t best_at = wh.start * g.W + ww.start;
          for (int64_t h = wh.start; h < wh.end; h += wh.step)
            for (int64_t w = ww.start; w < ww.end; w += ww.step) {
              const T v = xp[h * g.W + w];
              if (v > best || std::isnan(v)) {  // as PyTorch's kernels: a NaN wins, the last one kept
                best = v;
                best_at = h * g.W + w;
              }
            }
          const int64_t o = (p * g.OH + oh) * g.OW + ow;
          y[o] = best;
          idx[o] = best_at;
        }
      }
    }
  });
}

void CpuBackend::avg_pool2d(const Tensor& out, const Tensor& in, const PoolGeometry& g) {
  dispatch_floating(in.dtype(), "avg_pool2d", [&]<typename T>() {
    const int64_t planes = in.numel() / (g.H * g.W);
    const T* x = in.data_ptr<T>();
    T* y = out.data_ptr<T>();
#pragma omp parallel for if (out.numel() * g.kH * g.kW >= kParallelGrain)
    for (int64_t p = 0; p < planes; ++p) {
      const T* xp = x + p * g.H * g.W;
      for (int64_t oh = 0; oh < g.OH; ++oh) {
        const PoolWindow wh = pool_window(oh, g.H, g.OH, g.kH, g.sH, g.pH, 1, g.adaptive);
        for (int64_t ow = 0; ow < g.OW; ++ow) {
          const PoolWindow ww = pool_window(ow, g.W, g.OW, g.kW, g.sW, g.pW, 1, g.adaptive);
          T sum = 0;
          for (int64_t h = wh.start; h < wh.end; ++h)
            for (int64_t w = ww.start; w < ww.end; ++w) sum += xp[h * g.W + w];
          y[(p * g.OH + oh) * g.OW + ow] = sum / static_cast<T>(pool_divisor(g, wh, ww));
        }
      }
    }
  });
}

// din[h, w] = sum over windows (oh, ow) holding (h, w) of dout[oh, ow] / divisor(oh, ow)
void CpuBackend::avg_pool2d_backward(const Tensor& din, const Tensor& dout, const PoolGeometry& g) {
  dispatch_floating(din.dtype(), "avg_pool2d_backward", [&]<typename T>() {
    const int64_t planes = din.numel() / (g.H * g.W);
    const T* gy = dout.data_ptr<T>();
    T* gx = din.data_ptr<T>();
#pragma omp parallel for if (din.numel() * g.kH * g.kW >= kParallelGrain)
    for (int64_t p = 0; p < planes; ++p) {
      const T* gp = gy + p * g.OH * g.OW;
      for (int64_t h = 0; h < g.H; ++h) {
        const PoolRange rh = pool_outputs_near(h, g.H, g.OH, g.kH, g.sH, g.pH, g.adaptive);
        for (int64_t w = 0; w < g.W; ++w) {
          const PoolRange rw = pool_outputs_near(w, g.W, g.OW, g.kW, g.sW, g.pW, g.adaptive);
          T sum = 0;
          for (int64_t oh = rh.lo; oh <= rh.hi; ++oh) {
            const PoolWindow wh = pool_window(oh, g.H, g.OH, g.kH, g.sH, g.pH, 1, g.adaptive);
            if (!pool_window_holds(wh, h)) continue;
            for (int64_t ow = rw.lo; ow <= rw.hi; ++ow) {
              const PoolWindow ww = pool_window(ow, g.W, g.OW, g.kW, g.sW, g.pW, 1, g.adaptive);
              if (pool_window_holds(ww, w)) sum += gp[oh * g.OW + ow] / static_cast<T>(pool_divisor(g, wh, ww));
            }
          }
          gx[(p * g.H + h) * g.W + w] = sum;
        }
      }
    }
  });
}

}  // namespace ember::cpu
