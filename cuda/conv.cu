// CUDA kernels for convolution: im2col and col2im (core/cpu/conv.cpp is the CPU pair). The products
// around them are cuBLAS's (cuda/matmul.cpp), called by autograd/conv.cpp.
//
// im2col: one thread per column value, reading its input value or 0 in the padding. col2im: one
// thread per image value, gathering the column values of every block and tap that read it (no
// atomics, so the sum's order is fixed and the result is the same on every run). float32, float64,
// bfloat16 and float16; col2im sums the reduced floats in float32 (opmath_t) and rounds each value once.
#include "core/conv_shape.h"
#include "cuda/kernels.h"
#include "cuda/launchers.h"

namespace ember::cuda {

namespace {

// cols[n, (c, ki, kj), (oh, ow)] = in[n, c, oh*sh - ph + ki*dh, ow*sw - pw + kj*dw], 0 outside
template <typename T>
__global__ void __launch_bounds__(kBlockSize) im2col_kernel(int64_t n, Im2colShape g, T* cols, const T* in) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t L = g.out_h * g.out_w, K = g.kernel_h * g.kernel_w;
  for (int64_t at = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; at < n; at += stride) {
    const int64_t ow = at % g.out_w, oh = at / g.out_w % g.out_h, row = at / L;
    const int64_t kj = row % g.kernel_w, ki = row / g.kernel_w % g.kernel_h, nc = row / K;
    const int64_t ih = oh * g.stride_h - g.pad_h + ki * g.dilation_h;
    const int64_t iw = ow * g.stride_w - g.pad_w + kj * g.dilation_w;
    const bool inside = ih >= 0 && ih < g.H && iw >= 0 && iw < g.W;
    cols[at] = inside ? in[(nc * g.H + ih) * g.W + iw] : T(0);
  }
}

// out[n, c, ih, iw] = sum over taps (ki, kj) whose block (oh, ow) reads (ih, iw):
// oh = (ih + ph - ki*dh) / sh when that divides exactly and 0 <= oh < out_h (likewise ow).
template <typename T>
__global__ void __launch_bounds__(kBlockSize) col2im_kernel(int64_t n, Im2colShape g, T* out, const T* cols) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t L = g.out_h * g.out_w, K = g.kernel_h * g.kernel_w;
  for (int64_t at = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; at < n; at += stride) {
    const int64_t iw = at % g.W, ih = at / g.W % g.H, nc = at / (g.H * g.W);
    const T* plane = cols + nc * K * L;
    opmath_t<T> sum = 0;
    for (int64_t ki = 0; ki < g.kernel_h; ++ki) {
      const int64_t h = ih + g.pad_h - ki * g.dilation_h;
      if (h < 0 || h % g.stride_h != 0 || h / g.stride_h >= g.out_h) continue;
      const int64_t oh = h / g.stride_h;
      for (int64_t kj = 0; kj < g.kernel_w; ++kj) {
        const int64_t w = iw + g.pad_w - kj * g.dilation_w;
        if (w < 0 || w % g.stride_w != 0 || w / g.stride_w >= g.out_w) continue;
        sum += static_cast<opmath_t<T>>(plane[(ki * g.kernel_w + kj) * L + oh * g.out_w + w / g.stride_w]);
      }
    }
    out[at] = T(sum);
  }
}

// The dtypes the convolution kernels take: the floating ones, half and bfloat16 included.
template <typename F>
void dispatch_conv_type(const char* name, ScalarType type, F&& f) {
  dispatch_among<float, double, DeviceBFloat16, DeviceHalf>(type, f, [&] { unsupported_dtype(name, type); });
}

}  // namespace

void launchers::im2col(const TensorView& cols, const TensorView& in, const Im2colShape& g) {
  cudaStream_t s = prepare(cols.device);
  dispatch_conv_type("im2col", in.dtype, [&]<typename T>() {
    const int64_t n = cols.numel;  // N * C * kernel_h * kernel_w * out_h * out_w
    const LaunchShape ls = launch_1d(n);
    if (ls.grid == 0) return;
    EMBER_LAUNCH(ls.grid, ls.block, 0, s, im2col_kernel<T>)(n, g, cols.ptr<T>(), in.ptr<const T>());
    check_launch("im2col");
  });
}

void launchers::col2im(const TensorView& out, const TensorView& cols, const Im2colShape& g) {
  cudaStream_t s = prepare(out.device);
  dispatch_conv_type("col2im", out.dtype, [&]<typename T>() {
    const int64_t n = out.numel;  // N * C * H * W
    const LaunchShape ls = launch_1d(n);
    if (ls.grid == 0) return;
    EMBER_LAUNCH(ls.grid, ls.block, 0, s, col2im_kernel<T>)(n, g, out.ptr<T>(), cols.ptr<const T>());
    check_launch("col2im");
  });
}

}  // namespace ember::cuda
