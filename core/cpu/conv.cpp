// CPU kernels for convolution: im2col (the sliding blocks of an image as columns) and col2im (its
// adjoint, blocks summed back into an image). The products around them are the backend's matmul
// (OpenBLAS), called by autograd/conv.cpp; this file only moves values.
//
// im2col writes each row (one channel and kernel offset, all blocks) on its own, so rows spread over
// OpenMP threads; col2im gives each thread whole (n, c) planes, so no two threads add into the same
// output value.
#include "core/cpu/cpu_backend.h"
#include "core/cpu/loops.h"

namespace ember::cpu {

namespace {

// The input index a block's kernel tap reads: block `o` (along one axis), tap `k`.
inline int64_t source_index(int64_t o, int64_t k, int64_t stride, int64_t pad, int64_t dilation) {
  return o * stride - pad + k * dilation;
}

}  // namespace

// cols[n, (c, ki, kj), (oh, ow)] = in[n, c, oh*sh - ph + ki*dh, ow*sw - pw + kj*dw], 0 outside
void CpuBackend::im2col(const Tensor& cols, const Tensor& in, const Im2colShape& g) {
  dispatch_floating(in.dtype(), "im2col", [&]<typename T>() {
    const int64_t N = in.size(0), K = g.kernel_h * g.kernel_w, L = g.out_h * g.out_w;
    const int64_t rows = N * g.C * K;
    const T* x = in.data_ptr<T>();
    T* y = cols.data_ptr<T>();
#pragma omp parallel for if (rows * L >= kParallelGrain)
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t kj = r % g.kernel_w, ki = r / g.kernel_w % g.kernel_h, nc = r / K;
      const T* plane = x + nc * g.H * g.W;
      T* row = y + r * L;
      for (int64_t oh = 0; oh < g.out_h; ++oh) {
        const int64_t ih = source_index(oh, ki, g.stride_h, g.pad_h, g.dilation_h);
        T* dst = row + oh * g.out_w;
        if (ih < 0 || ih >= g.H) {
          for (int64_t ow = 0; ow < g.out_w; ++ow) dst[ow] = T(0);
          continue;
        }
        const T* src = plane + ih * g.W;
        for (int64_t ow = 0; ow < g.out_w; ++ow) {
          const int64_t iw = source_index(ow, kj, g.stride_w, g.pad_w, g.dilation_w);
          dst[ow] = (iw >= 0 && iw < g.W) ? src[iw] : T(0);
        }
      }
    }
  });
}

// out[n, c, ih, iw] = sum of cols[n, (c, ki, kj), (oh, ow)] over the blocks and taps that read it
void CpuBackend::col2im(const Tensor& out, const Tensor& cols, const Im2colShape& g) {
  dispatch_floating(out.dtype(), "col2im", [&]<typename T>() {
    const int64_t N = out.size(0), K = g.kernel_h * g.kernel_w, L = g.out_h * g.out_w;
    const int64_t planes = N * g.C;
    const T* y = cols.data_ptr<T>();
    T* x = out.data_ptr<T>();
#pragma omp parallel for if (planes * K * L >= kParallelGrain)
    for (int64_t p = 0; p < planes; ++p) {
      T* plane = x + p * g.H * g.W;
      for (int64_t i = 0; i < g.H * g.W; ++i) plane[i] = T(0);
      for (int64_t k = 0; k < K; ++k) {
        const int64_t ki = k / g.kernel_w, kj = k % g.kernel_w;
        const T* row = y + (p * K + k) * L;
        for (int64_t oh = 0; oh < g.out_h; ++oh) {
          const int64_t ih = source_index(oh, ki, g.stride_h, g.pad_h, g.dilation_h);
          if (ih < 0 || ih >= g.H) continue;
          const T* src = row + oh * g.out_w;
          T* dst = plane + ih * g.W;
          for (int64_t ow = 0; ow < g.out_w; ++ow) {
            const int64_t iw = source_index(ow, kj, g.stride_w, g.pad_w, g.dilation_w);
            if (iw >= 0 && iw < g.W) dst[iw] += src[ow];
          }
        }
      }
    }
  });
}

}  // namespace ember::cpu
