// CUDA pooling kernels over contiguous (P, H, W) planes, the twins of core/cpu/pool.cpp: max (with
// the argmax), average, and the average's backward. The windows come from core/pool.h, the same
// code the CPU runs.
//
// One thread per output element (forward) or per input element (the average's backward, which
// gathers from the windows holding it, so no atomics and the same order of additions as the CPU).
// The grid is capped at kMaxGrid blocks and each thread strides over the rest.
#include "core/pool.h"
#include "cuda/kernels.h"
#include "cuda/launchers.h"

namespace ember::cuda {

namespace {

template <typename T>
__global__ void __launch_bounds__(kBlockSize)
    max_pool2d_kernel(T* out, int64_t* indices, const T* in, PoolGeometry g, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t ow = i % g.OW, oh = i / g.OW % g.OH, p = i / (g.OW * g.OH);
    const PoolMax<T> best = pool_max(in + p * g.H * g.W, g.W, pool_rows(g, oh, g.dH), pool_cols(g, ow, g.dW));
    out[i] = best.value;
    indices[i] = best.at;
  }
}

template <typename T>
__global__ void __launch_bounds__(kBlockSize) avg_pool2d_kernel(T* out, const T* in, PoolGeometry g, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t ow = i % g.OW, oh = i / g.OW % g.OH, p = i / (g.OW * g.OH);
    out[i] = pool_average(in + p * g.H * g.W, g, pool_rows(g, oh, 1), pool_cols(g, ow, 1));
  }
}

// din[h, w] = sum over windows (oh, ow) holding (h, w) of dout[oh, ow] / divisor(oh, ow)
template <typename T>
__global__ void __launch_bounds__(kBlockSize)
    avg_pool2d_backward_kernel(T* din, const T* dout, PoolGeometry g, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t w = i % g.W, h = i / g.W % g.H, p = i / (g.W * g.H);
    din[i] = avg_pool_input_grad(dout + p * g.OH * g.OW, g, h, w);
  }
}

}  // namespace

void launchers::max_pool2d(const TensorView& out, const TensorView& indices, const TensorView& in,
                           const PoolGeometry& g) {
  cudaStream_t s = prepare(out.device);
  dispatch_floating_type("max_pool2d", in.dtype, [&]<typename T>() {
    const LaunchShape ls = launch_1d(out.numel);
    if (ls.grid == 0) return;
    EMBER_LAUNCH(ls.grid, ls.block, 0, s, max_pool2d_kernel<T>)
    (out.ptr<T>(), indices.ptr<int64_t>(), in.ptr<const T>(), g, out.numel);
    check_launch("max_pool2d");
  });
}

void launchers::avg_pool2d(const TensorView& out, const TensorView& in, const PoolGeometry& g) {
  cudaStream_t s = prepare(out.device);
  dispatch_floating_type("avg_pool2d", in.dtype, [&]<typename T>() {
    const LaunchShape ls = launch_1d(out.numel);
    if (ls.grid == 0) return;
    EMBER_LAUNCH(ls.grid, ls.block, 0, s, avg_pool2d_kernel<T>)(out.ptr<T>(), in.ptr<const T>(), g, out.numel);
    check_launch("avg_pool2d");
  });
}

void launchers::avg_pool2d_backward(const TensorView& din, const TensorView& dout, const PoolGeometry& g) {
  cudaStream_t s = prepare(din.device);
  dispatch_floating_type("avg_pool2d_backward", din.dtype, [&]<typename T>() {
    const LaunchShape ls = launch_1d(din.numel);
    if (ls.grid == 0) return;
    EMBER_LAUNCH(ls.grid, ls.block, 0, s, avg_pool2d_backward_kernel<T>)
    (din.ptr<T>(), dout.ptr<const T>(), g, din.numel);
    check_launch("avg_pool2d_backward");
  });
}

}  // namespace ember::cuda
