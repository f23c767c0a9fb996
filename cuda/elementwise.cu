// CUDA kernels: copies with dtype conversion, fill, and the elementwise families.
//
// One kernel template, elementwise_kernel, walks a flat range of elements of N operands of one
// shape; an OffsetCalc (cuda/launch.h) turns each flat index into element offsets, so broadcast
// (stride 0), transposed and sliced operands need no copies. The formulas are core/functors.h's,
// the very ones core/cpu/elementwise.cpp applies, in opmath_t (cuda/kernels.h): bfloat16 and
// float16 are computed in float32 and rounded once when stored, the narrow integers in int64 and
// wrapped when stored, so every dtype gives the CPU's bits. Integer and bool tensors skip the
// formulas that only make sense in floating point (the op layer computes those in float).
#include <algorithm>

#include "core/convert.h"
#include "cuda/kernels.h"
#include "cuda/launchers.h"

namespace ember::cuda {

namespace {

template <int N, typename Op>
__global__ void __launch_bounds__(kBlockSize) elementwise_kernel(int64_t n, OffsetCalc<N> calc, Op op) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) op(calc.offsets(i));
}

template <int N, typename Op>
void launch(const char* name, cudaStream_t s, int64_t n, const OffsetCalc<N>& calc, Op op) {
  const LaunchShape ls = launch_1d(n);
  if (ls.grid == 0) return;
  EMBER_LAUNCH(ls.grid, ls.block, 0, s, elementwise_kernel<N, Op>)(n, calc, op);
  check_launch(name);
}

template <typename D, typename S>
struct CopyOp {
  D* dst;
  const S* src;
  __device__ void operator()(const std::array<int64_t, 2>& o) const { dst[o[0]] = convert<D>(src[o[1]]); }
};

template <typename T>
struct FillOp {
  T* dst;
  T value;
  __device__ void operator()(const std::array<int64_t, 1>& o) const { dst[o[0]] = value; }
};

// out = f(in), computed in C = opmath_t<T>.
template <typename T, typename F>
struct UnaryApply {
  using C = opmath_t<T>;
  T* out;
  const T* in;
  __device__ void operator()(const std::array<int64_t, 2>& o) const {
    out[o[0]] = static_cast<T>(F{}(static_cast<C>(in[o[1]])));
  }
};

// out = f(a, b) of type R (T, or bool for comparisons), computed in C = opmath_t<T>.
template <typename R, typename T, typename F>
struct BinaryApply {
  using C = opmath_t<T>;
  R* out;
  const T* a;
  const T* b;
  __device__ void operator()(const std::array<int64_t, 3>& o) const {
    out[o[0]] = static_cast<R>(F{}(static_cast<C>(a[o[1]]), static_cast<C>(b[o[2]])));
  }
};

template <typename T>
struct WhereOp {
  T* out;
  const bool* cond;
  const T* a;
  const T* b;
  __device__ void operator()(const std::array<int64_t, 4>& o) const { out[o[0]] = cond[o[1]] ? a[o[2]] : b[o[3]]; }
};

}  // namespace

void launchers::copy(const TensorView& dst, const TensorView& src) {
  cudaStream_t s = prepare(dst.device);
  if (dst.numel == 0) return;
  if (dst.dtype == src.dtype && dst.contiguous && src.contiguous) {
    check_cuda(cudaMemcpyAsync(dst.data, src.data, dst.nbytes(), cudaMemcpyDeviceToDevice, s), "cudaMemcpyAsync");
    return;
  }
  const OffsetCalc<2> calc = offset_calc<2>("copy", {&dst, &src});
  dispatch_all_types("copy", dst.dtype, [&]<typename D>() {
    dispatch_all_types("copy", src.dtype, [&]<typename S>() {
      launch<2>("copy", s, dst.numel, calc, CopyOp<D, S>{dst.ptr<D>(), src.ptr<const S>()});
    });
  });
}

WideCopy wide_buffer(const TensorView& t) {
  WideCopy w;
  w.sizes = t.sizes.vec();
  w.strides.assign(w.sizes.size(), 1);
  for (size_t d = w.sizes.size(); d-- > 1;) w.strides[d - 1] = w.strides[d] * w.sizes[d];
  w.view = t;
  w.view.dtype = compute_dtype(t.dtype);
  w.buffer = DeviceBuffer(t.device, std::max<size_t>(w.view.nbytes(), 1));
  w.view.data = w.buffer.get();
  w.view.sizes = {w.sizes.data(), w.sizes.size()};
  w.view.strides = {w.strides.data(), w.strides.size()};
  w.view.contiguous = true;
  return w;
}

WideCopy widen(const TensorView& t) {
  WideCopy w = wide_buffer(t);
  launchers::copy(w.view, t);
  return w;
}

void narrow_back(const TensorView& out, const WideCopy& wide) { launchers::copy(out, wide.view); }

void launchers::fill(const TensorView& dst, const Scalar& value) {
  cudaStream_t s = prepare(dst.device);
  const OffsetCalc<1> calc = offset_calc<1>("fill", {&dst});
  dispatch_all_types("fill", dst.dtype, [&]<typename T>() {
    launch<1>("fill", s, dst.numel, calc, FillOp<T>{dst.ptr<T>(), value.to<T>()});
  });
}

void launchers::unary(UnaryOp op, const TensorView& out, const TensorView& in) {
  cudaStream_t s = prepare(out.device);
  if (is_integral(in.dtype) && !unary_on_integers(op))
    fail(std::string(op_name(op)) + ": not implemented on CUDA for " + std::string(dtype_name(in.dtype)) +
         " tensors; convert to a floating dtype first");
  const OffsetCalc<2> calc = offset_calc<2>(op_name(op), {&out, &in});
  dispatch_all_types(op_name(op), in.dtype, [&]<typename T>() {
    using C = opmath_t<T>;
    T* o = out.ptr<T>();
    const T* x = in.ptr<const T>();
    switch (op) {
#define EMBER_UNARY_CASE(Name, name, ...)                                                                \
  case UnaryOp::Name:                                                                                    \
    if constexpr (!std::is_integral_v<C> || std::is_same_v<C, bool> || unary_on_integers(UnaryOp::Name)) \
      return launch<2>(#name, s, out.numel, calc, UnaryApply<T, UnaryFn<UnaryOp::Name>>{o, x});          \
    return;
      EMBER_UNARY_OPS(EMBER_UNARY_CASE)
#undef EMBER_UNARY_CASE
      default:
        unsupported("unary", "op", static_cast<int>(op));
    }
  });
}

void launchers::binary(BinaryOp op, const TensorView& out, const TensorView& a, const TensorView& b) {
  cudaStream_t s = prepare(out.device);
  const OffsetCalc<3> calc = offset_calc<3>(op_name(op), {&out, &a, &b});
  dispatch_all_types(op_name(op), a.dtype, [&]<typename T>() {
    const T* x = a.ptr<const T>();
    const T* y = b.ptr<const T>();
    switch (op) {
#define EMBER_BINARY_CASE(Name, name, expr, R) \
  case BinaryOp::Name:                         \
    return launch<3>(#name, s, out.numel, calc, BinaryApply<R, T, BinaryFn<BinaryOp::Name>>{out.ptr<R>(), x, y});
      EMBER_BINARY_OPS(EMBER_BINARY_CASE)
#undef EMBER_BINARY_CASE
      default:
        unsupported("binary", "op", static_cast<int>(op));
    }
  });
}

void launchers::where(const TensorView& out, const TensorView& cond, const TensorView& a, const TensorView& b) {
  cudaStream_t s = prepare(out.device);
  const OffsetCalc<4> calc = offset_calc<4>("where", {&out, &cond, &a, &b});
  dispatch_all_types("where", out.dtype, [&]<typename T>() {
    launch<4>("where", s, out.numel, calc,
              WhereOp<T>{out.ptr<T>(), cond.ptr<const bool>(), a.ptr<const T>(), b.ptr<const T>()});
  });
}

}  // namespace ember::cuda
