// CUDA kernels for nn ops: softmax / log-softmax over the last dim and their backward, tril/triu
// (and the LSTM layer, which the CUDA backend composes).
//
// Softmax gives one block to one contiguous row of C values: a block-wide max, a block-wide sum of
// exp(x - max), then one more pass to write, so large logits never overflow and a row of -inf
// gives zeros, as on the CPU (core/cpu/nn.cpp). Sums accumulate in the row's type.
#include "cuda/block_reduce.cuh"
#include "cuda/kernels.h"
#include "cuda/launchers.h"

namespace ember::cuda {

namespace {

template <typename T>
__global__ void __launch_bounds__(kMaxRowBlock) softmax_kernel(int64_t rows, int64_t C, T* out, const T* in, bool log) {
  T* scratch = shared_scratch<T>();
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* x = in + r * C;
    T* y = out + r * C;
    T mx = -INFINITY;
    for (int64_t c = threadIdx.x; c < C; c += blockDim.x) mx = x[c] > mx ? x[c] : mx;
    mx = block_reduce(
        mx, [](T a, T b) { return a > b ? a : b; }, scratch);
    if (mx == T(-INFINITY)) mx = 0;  // a fully masked row: exp(-inf - 0) = 0
    T sum = 0;
    for (int64_t c = threadIdx.x; c < C; c += blockDim.x) sum += exp(x[c] - mx);
    sum = block_reduce(
        sum, [](T a, T b) { return a + b; }, scratch);
    if (log) {
      const T shift = mx + ::log(sum);
      for (int64_t c = threadIdx.x; c < C; c += blockDim.x) y[c] = x[c] - shift;
    } else {
      const T inv = T(1) / sum;
      for (int64_t c = threadIdx.x; c < C; c += blockDim.x) y[c] = exp(x[c] - mx) * inv;
    }
  }
}

// softmax:     din = y * (dout - sum(dout * y))
// log_softmax: din = dout - exp(y) * sum(dout)
template <typename T>
__global__ void __launch_bounds__(kMaxRowBlock)
    softmax_backward_kernel(int64_t rows, int64_t C, T* din, const T* dout, const T* out, bool log) {
  T* scratch = shared_scratch<T>();
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* g = dout + r * C;
    const T* y = out + r * C;
    T* dx = din + r * C;
    T dot = 0;
    for (int64_t c = threadIdx.x; c < C; c += blockDim.x) dot += log ? g[c] : g[c] * y[c];
    dot = block_reduce(
        dot, [](T a, T b) { return a + b; }, scratch);
    for (int64_t c = threadIdx.x; c < C; c += blockDim.x) dx[c] = log ? g[c] - exp(y[c]) * dot : y[c] * (g[c] - dot);
  }
}

template <typename T>
__global__ void __launch_bounds__(kBlockSize)
    triangle_kernel(int64_t n, int64_t R, int64_t C, int64_t k, bool lower, T* out, const T* in) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t at = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; at < n; at += stride) {
    const int64_t j = at % C, i = (at / C) % R;
    const bool keep = lower ? j - i <= k : j - i >= k;
    out[at] = keep ? in[at] : T(0);
  }
}

}  // namespace

// float16 and bfloat16 rows are computed in float32 copies and rounded once, as on the CPU.
void launchers::softmax(const TensorView& out, const TensorView& in, bool log) {
  cudaStream_t s = prepare(out.device);
  if (is_reduced_floating_point(in.dtype)) {
    const WideCopy out_f = wide_buffer(out);
    softmax(out_f.view, widen(in).view, log);
    return narrow_back(out, out_f);
  }
  require_floating(in.dtype, log ? "log_softmax" : "softmax");
  const Rows shape = rows_of(in);
  const int64_t rows = shape.rows, cols = shape.cols;
  dispatch_floating_type("softmax", in.dtype, [&]<typename T>() {
    if (rows == 0 || cols == 0) return;
    const int block = block_for_row(cols);
    EMBER_LAUNCH(std::min<int64_t>(rows, kMaxGrid), block, block * sizeof(T), s, softmax_kernel<T>)
    (rows, cols, out.ptr<T>(), in.ptr<const T>(), log);
    check_launch(log ? "log_softmax" : "softmax");
  });
}

void launchers::softmax_backward(const TensorView& din, const TensorView& dout, const TensorView& out, bool log) {
  cudaStream_t s = prepare(din.device);
  if (is_reduced_floating_point(out.dtype)) {
    const WideCopy din_f = wide_buffer(din);
    softmax_backward(din_f.view, widen(dout).view, widen(out).view, log);
    return narrow_back(din, din_f);
  }
  require_floating(out.dtype, "softmax_backward");
  const Rows shape = rows_of(out);
  const int64_t rows = shape.rows, cols = shape.cols;
  dispatch_floating_type("softmax", out.dtype, [&]<typename T>() {
    if (rows == 0 || cols == 0) return;
    const int block = block_for_row(cols);
    EMBER_LAUNCH(std::min<int64_t>(rows, kMaxGrid), block, block * sizeof(T), s, softmax_backward_kernel<T>)
    (rows, cols, din.ptr<T>(), dout.ptr<const T>(), out.ptr<const T>(), log);
    check_launch(log ? "log_softmax_backward" : "softmax_backward");
  });
}

void launchers::triangle(const TensorView& out, const TensorView& in, int64_t k, bool lower) {
  cudaStream_t s = prepare(out.device);
  const int64_t R = in.sizes[in.dim() - 2], C = in.sizes[in.dim() - 1];
  dispatch_all_types("triangle", in.dtype, [&]<typename T>() {
    const int64_t n = in.numel;  // mats of (R, C), contiguous
    const LaunchShape ls = launch_1d(n);
    if (ls.grid == 0) return;
    EMBER_LAUNCH(ls.grid, ls.block, 0, s, triangle_kernel<T>)(n, R, C, k, lower, out.ptr<T>(), in.ptr<const T>());
    check_launch(lower ? "tril" : "triu");
  });
}

// The LSTM layer's kernels are the CPU's only (a GPU runs the composed steps: cuBLAS products and
// elementwise gates); false tells the op to compose.
bool launchers::lstm_layer(const TensorView&, const TensorView&, const TensorView&, const TensorView&,
                           const TensorView&, const TensorView&, const TensorView&, const TensorView&,
                           const TensorView&, const TensorView&, IntList, bool) {
  return false;
}

bool launchers::lstm_layer_backward(const TensorView&, const TensorView&, const TensorView&, const TensorView&,
                                    const TensorView&, const TensorView&, const TensorView&, const TensorView&,
                                    const TensorView&, const TensorView&, const TensorView&, const TensorView&,
                                    const TensorView&, const TensorView&, IntList, bool) {
  return false;
}

}  // namespace ember::cuda
