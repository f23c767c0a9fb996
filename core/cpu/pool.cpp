// CPU pooling kernels over contiguous (P, H, W) planes: max (with the argmax), average, and the
// average's backward. The windows come from core/pool.h, shared with cuda/pool.cu.
//
// Planes are independent, so they are spread over OpenMP threads. Max pooling's backward needs no
// kernel of its own: it is scatter_add of dout at the saved indices (autograd/pool.cpp). The
// average's backward gathers, for each input element, the outputs whose windows hold it, as the
// CUDA kernel does (no atomics there), so both devices add in the same order.
#include "core/pool.h"

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
        const PoolWindow wh = pool_rows(g, oh, g.dH);
        for (int64_t ow = 0; ow < g.OW; ++ow) {
          const PoolMax<T> best = pool_max(xp, g.W, wh, pool_cols(g, ow, g.dW));
          const int64_t o = (p * g.OH + oh) * g.OW + ow;
          y[o] = best.value;
          idx[o] = best.at;
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
        const PoolWindow wh = pool_rows(g, oh, 1);
        for (int64_t ow = 0; ow < g.OW; ++ow)
          y[(p * g.OH + oh) * g.OW + ow] = pool_average(xp, g, wh, pool_cols(g, ow, 1));
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
      for (int64_t h = 0; h < g.H; ++h)
        for (int64_t w = 0; w < g.W; ++w) gx[(p * g.H + h) * g.W + w] = avg_pool_input_grad(gp, g, h, w);
    }
  });
}

}  // namespace ember::cpu
