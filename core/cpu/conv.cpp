// CPU kernels for convolution: im2col (the sliding blocks of an image as columns) and col2im (its
// adjoint, blocks summed back into an image). The products around them are the backend's matmul
// (OpenBLAS), called by autograd/conv.cpp; this file only moves values, in float32, float64,
// bfloat16 and float16 (col2im sums the reduced floats in float32 and rounds each value once).
//
// im2col writes each row (one channel and kernel offset, all blocks) on its own, so rows spread over
// OpenMP threads; col2im gives each thread whole (n, c) planes, so no two threads add into the same
// output value.
#include <type_traits>
#include <vector>

#include "core/cpu/cpu_backend.h"
#include "core/cpu/loops.h"

namespace ember::cpu {

namespace {

// The input index a block's kernel tap reads: block `o` (along one axis), tap `k`.
inline int64_t source_index(int64_t o, int64_t k, int64_t stride, int64_t pad, int64_t dilation) {
  return o * stride - pad + k * dilation;
}

// The type col2im sums values of T in: float32 for bfloat16 and float16, T itself otherwise.
template <typename T>
using col2im_acc_t = std::conditional_t<std::is_same_v<T, BFloat16> || std::is_same_v<T, Half>, float, T>;

// One (n, c) plane of col2im: plane (H, W) = the sum of its K rows of cols (K, L) over the blocks
// and taps that read each value.
template <typename Acc, typename T>
void col2im_plane(Acc* plane, const T* rows, const Im2colShape& g) {
  const int64_t K = g.kernel_h * g.kernel_w, L = g.out_h * g.out_w;
  for (int64_t i = 0; i < g.H * g.W; ++i) plane[i] = Acc(0);
  for (int64_t k = 0; k < K; ++k) {
    const int64_t ki = k / g.kernel_w, kj = k % g.kernel_w;
    const T* row = rows + k * L;
    for (int64_t oh = 0; oh < g.out_h; ++oh) {
      const int64_t ih = source_index(oh, ki, g.stride_h, g.pad_h, g.dilation_h);
      if (ih < 0 || ih >= g.H) continue;
      const T* src = row + oh * g.out_w;
      Acc* dst = plane + ih * g.W;
      for (int64_t ow = 0; ow < g.out_w; ++ow) {
        const int64_t iw = source_index(ow, kj, g.stride_w, g.pad_w, g.dilation_w);
        if (iw >= 0 && iw < g.W) dst[iw] += static_cast<Acc>(src[ow]);
      }
    }
  }
}

}  // namespace

// cols[n, (c, ki, kj), (oh, ow)] = in[n, c, oh*sh - ph + ki*dh, ow*sw - pw + kj*dw], 0 outside
void CpuBackend::im2col(const Tensor& cols, const Tensor& in, const Im2colShape& g) {
  EMBER_CHECK(is_floating_point(in.dtype()), "im2col: expected a floating-point tensor, got {}",
              dtype_name(in.dtype()));
  dispatch_with_bfloat16(in.dtype(), "im2col", [&]<typename T>() {
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
  EMBER_CHECK(is_floating_point(out.dtype()), "col2im: expected a floating-point tensor, got {}",
              dtype_name(out.dtype()));
  dispatch_with_bfloat16(out.dtype(), "col2im", [&]<typename T>() {
    using Acc = col2im_acc_t<T>;
    const int64_t N = out.size(0), K = g.kernel_h * g.kernel_w, L = g.out_h * g.out_w;
    const int64_t planes = N * g.C, plane_size = g.H * g.W;
    const T* y = cols.data_ptr<T>();
    T* x = out.data_ptr<T>();
#pragma omp parallel for if (planes * K * L >= kParallelGrain)
    for (int64_t p = 0; p < planes; ++p) {
      T* plane = x + p * plane_size;
      if constexpr (std::is_same_v<Acc, T>) {
        col2im_plane(plane, y + p * K * L, g);
      } else {  // summed in float32, each value rounded once
        std::vector<Acc> sums(static_cast<size_t>(plane_size));
        col2im_plane(sums.data(), y + p * K * L, g);
        for (int64_t i = 0; i < plane_size; ++i) plane[i] = T(sums[i]);
      }
    }
  });
}

}  // namespace ember::cpu
