// CUDA fused cross-entropy over class indices (see Backend::cross_entropy), the twin of
// core/cpu/loss.cpp: N rows of V logits, contiguous.
//
// Forward: one block per row reads the row once. Each thread keeps an online max and sum of
// exp(x - max) over its columns (a larger value rescales the sum by exp(old max - new max)); the
// block then reduces the maxima, rescales each thread's sum to the row's max and reduces the sums,
// so lse = max + log(sum) never overflows. The label-smoothing term adds one more reduction of the
// row's sum of logits, only when s > 0. A bad target (outside [0, V), not ignore_index) is
// reported by the first row that meets it through atomicCAS on status[0]; the host reads status
// once after the launch (the op's one read back), along with the count of rows not ignored, which
// each block adds to status[1] once. The grid is capped at kLossGrid blocks so that count costs
// few atomics. Backward: dlogits is elementwise given lse, one thread per element (rows of 65 fill
// a block's warps no worse than rows of 50,000). Sums accumulate in the row's type, as softmax does.
// bfloat16 and float16 logits (autocast's float32 policy, autograd/autocast.h) are read as they are
// and computed in float32 (opmath_t), with float32 losses and lse: the float32 kernel's arithmetic
// on the same values, so the bits of casting the logits first, without the cast's pass; dlogits is
// rounded once to the logits' dtype, as the cast's backward rounds the float32 gradient.
#include "cuda/block_reduce.cuh"
#include "cuda/kernels.h"
#include "cuda/launchers.h"

namespace ember::cuda {

namespace {

constexpr int64_t kLossGrid = 2048;  // blocks of the forward; each loops over N / kLossGrid rows

// In: the logits' type; T = opmath_t<In>, the type of the sums, losses and lse.
template <typename In, typename T = opmath_t<In>>
__global__ void __launch_bounds__(kMaxRowBlock)
    cross_entropy_kernel(int64_t N, int64_t V, T* losses, T* lse, unsigned long long* status, const In* logits,
                         const int64_t* target, int64_t ignore_index, T smoothing) {
  T* scratch = shared_scratch<T>();
  unsigned long long counted = 0;  // rows not ignored, on thread 0
  for (int64_t r = blockIdx.x; r < N; r += gridDim.x) {
    const In* x = logits + r * V;
    T mx = -INFINITY, sum = 0, total = 0;
    for (int64_t c = threadIdx.x; c < V; c += blockDim.x) {
      const T v = static_cast<T>(x[c]);
      if (v > mx) {
        sum = sum * exp(mx - v) + T(1);  // exp(-inf) = 0 on the thread's first value
        mx = v;
      } else {
        sum += exp(v - mx);
      }
      total += v;
    }
    const T row_max = block_reduce(
        mx, [](T a, T b) { return a > b ? a : b; }, scratch);
    const T mine = sum == T(0) ? T(0) : sum * exp(mx - row_max);  // a thread without columns adds 0
    const T row_sum = block_reduce(
        mine, [](T a, T b) { return a + b; }, scratch);
    T row_total = 0;
    if (smoothing != T(0))
      row_total = block_reduce(
          total, [](T a, T b) { return a + b; }, scratch);
    if (threadIdx.x == 0) {
      const T l = row_max + ::log(row_sum);
      const int64_t t = target[r];
      lse[r] = l;
      if (t == ignore_index) {
        losses[r] = 0;
      } else if (t < 0 || t >= V) {
        losses[r] = NAN;
        atomicCAS(status, static_cast<unsigned long long>(ignore_index), static_cast<unsigned long long>(t));
      } else {
        losses[r] = l - (T(1) - smoothing) * static_cast<T>(x[t]) - smoothing / static_cast<T>(V) * row_total;
        ++counted;
      }
    }
  }
  if (threadIdx.x == 0 && counted > 0) atomicAdd(status + 1, counted);
}

// dx[i, c] = g_i (exp(x[i, c] - lse_i) - (1 - s) [c == t_i] - s / V), 0 in ignored rows.
// dlogits and logits of type In, the rest (and the arithmetic) T = opmath_t<In>: one rounding per element.
template <typename In, typename T = opmath_t<In>>
__global__ void __launch_bounds__(kBlockSize)
    cross_entropy_backward_kernel(int64_t N, int64_t V, In* dlogits, const T* dlosses, int64_t g_stride,
                                  const In* logits, const T* lse, const int64_t* target, int64_t ignore_index,
                                  T smoothing) {
  const T everywhere = smoothing / static_cast<T>(V), on_target = T(1) - smoothing;
  const int64_t n = N * V, stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t at = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; at < n; at += stride) {
    const int64_t r = at / V, c = at % V, t = target[r];
    if (t == ignore_index) {
      dlogits[at] = In(T(0));
      continue;
    }
    const T p = exp(static_cast<T>(logits[at]) - lse[r]);
    dlogits[at] = In(dlosses[r * g_stride] * (p - everywhere - (c == t ? on_target : T(0))));
  }
}

// The logits' types: float32 and float64, and bfloat16 and float16 read as float32.
template <typename F>
void dispatch_logits(const char* name, ScalarType type, F&& f) {
  dispatch_among<float, double, DeviceBFloat16, DeviceHalf>(type, f, [&] { unsupported_dtype(name, type); });
}

// Whether the kernels take these dtypes: float32 or float64 logits with losses and lse alike, or
// bfloat16 / float16 logits with float32 losses and lse (other combinations compose).
bool takes(ScalarType logits, ScalarType losses) {
  const bool readable = logits == kFloat32 || logits == kFloat64 || is_reduced_floating_point(logits);
  return readable && losses == compute_dtype(logits);
}

}  // namespace

// logits, dlogits (N, V) and target (N) contiguous; losses and lse (N) of takes()'s dtypes.
bool launchers::cross_entropy(const TensorView& losses, const TensorView& lse, const TensorView& status,
                              const TensorView& logits, const TensorView& target, int64_t ignore_index,
                              double label_smoothing) {
  if (!takes(logits.dtype, losses.dtype) || lse.dtype != losses.dtype) return false;
  cudaStream_t s = prepare(logits.device);
  const int64_t N = logits.sizes[0], V = logits.sizes[1];
  dispatch_logits("cross_entropy", logits.dtype, [&]<typename In>() {
    using T = opmath_t<In>;
    if (N == 0) return;
    const int block = block_for_row(V);
    EMBER_LAUNCH(std::min(N, kLossGrid), block, block * sizeof(T), s, cross_entropy_kernel<In>)
    (N, V, losses.ptr<T>(), lse.ptr<T>(), status.ptr<unsigned long long>(), logits.ptr<const In>(),
     target.ptr<const int64_t>(), ignore_index, static_cast<T>(label_smoothing));
    check_launch("cross_entropy");
  });
  return true;
}

// dlosses[i * its stride] is row i's gradient (stride 0: one for every row); dlogits of the logits' dtype.
bool launchers::cross_entropy_backward(const TensorView& dlogits, const TensorView& dlosses, const TensorView& logits,
                                       const TensorView& lse, const TensorView& target, int64_t ignore_index,
                                       double label_smoothing) {
  if (!takes(logits.dtype, lse.dtype) || dlosses.dtype != lse.dtype || dlogits.dtype != logits.dtype) return false;
  cudaStream_t s = prepare(logits.device);
  const int64_t N = logits.sizes[0], V = logits.sizes[1];
  dispatch_logits("cross_entropy_backward", logits.dtype, [&]<typename In>() {
    using T = opmath_t<In>;
    const LaunchShape ls = launch_1d(N * V);
    if (ls.grid == 0) return;
    EMBER_LAUNCH(ls.grid, ls.block, 0, s, cross_entropy_backward_kernel<In>)
    (N, V, dlogits.ptr<In>(), dlosses.ptr<const T>(), dlosses.strides[0], logits.ptr<const In>(), lse.ptr<const T>(),
     target.ptr<const int64_t>(), ignore_index, static_cast<T>(label_smoothing));
    check_launch("cross_entropy_backward");
  });
  return true;
}

}  // namespace ember::cuda
