// CUDA kernels: copies with dtype conversion, fill, and the elementwise families.
//
// One kernel template, elementwise_kernel, walks a flat range of elements of N operands of one
// shape; an OffsetCalc (cuda/launch.h) turns each flat index into element offsets, so broadcast
// (stride 0), transposed and sliced operands need no copies. The formulas are core/functors.h's,
// the very ones core/cpu/elementwise.cpp applies. Integer and bool tensors skip the formulas that
// only make sense in floating point (the op layer computes those in float).
#include "cuda/kernels.h"

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
  __device__ void operator()(const std::array<int64_t, 2>& o) const { dst[o[0]] = static_cast<D>(src[o[1]]); }
};

template <typename T>
struct FillOp {
  T* dst;
  T value;
  __device__ void operator()(const std::array<int64_t, 1>& o) const { dst[o[0]] = value; }
};

template <typename T, typename F>
struct UnaryApply {
  T* out;
  const T* in;
  __device__ void operator()(const std::array<int64_t, 2>& o) const { out[o[0]] = F{}(in[o[1]]); }
};

template <typename R, typename T, typename F>
struct BinaryApply {
  R* out;
  const T* a;
  const T* b;
  __device__ void operator()(const std::array<int64_t, 3>& o) const { out[o[0]] = F{}(a[o[1]], b[o[2]]); }
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

void launch_copy(cudaStream_t s, ScalarType dst_type, ScalarType src_type, int64_t n, const OffsetCalc<2>& calc,
                 void* dst, const void* src) {
  dispatch_type(dst_type, [&]<typename D>() {
    dispatch_type(src_type, [&]<typename S>() {
      launch<2>("copy", s, n, calc, CopyOp<D, S>{static_cast<D*>(dst), static_cast<const S*>(src)});
    });
  });
}

void launch_fill(cudaStream_t s, ScalarType type, int64_t n, const OffsetCalc<1>& calc, void* dst, double fvalue,
                 int64_t ivalue) {
  dispatch_type(type, [&]<typename T>() {
    const T v = std::is_floating_point_v<T> ? static_cast<T>(fvalue) : static_cast<T>(ivalue);
    launch<1>("fill", s, n, calc, FillOp<T>{static_cast<T*>(dst), v});
  });
}

void launch_unary(cudaStream_t s, UnaryOp op, ScalarType type, int64_t n, const OffsetCalc<2>& calc, void* out,
                  const void* in) {
  dispatch_type(type, [&]<typename T>() {
    T* o = static_cast<T*>(out);
    const T* x = static_cast<const T*>(in);
    switch (op) {
#define EMBER_UNARY_CASE(Name, name, ...)                                                                \
  case UnaryOp::Name:                                                                                    \
    if constexpr (!std::is_integral_v<T> || std::is_same_v<T, bool> || unary_on_integers(UnaryOp::Name)) \
      return launch<2>(#name, s, n, calc, UnaryApply<T, UnaryFn<UnaryOp::Name>>{o, x});                  \
    return;
      EMBER_UNARY_OPS(EMBER_UNARY_CASE)
#undef EMBER_UNARY_CASE
      default:
        unsupported("launch_unary", "op", static_cast<int>(op));
    }
  });
}

void launch_binary(cudaStream_t s, BinaryOp op, ScalarType type, int64_t n, const OffsetCalc<3>& calc, void* out,
                   const void* a, const void* b) {
  dispatch_type(type, [&]<typename T>() {
    const T* x = static_cast<const T*>(a);
    const T* y = static_cast<const T*>(b);
    switch (op) {
#define EMBER_BINARY_CASE(Name, name, expr, R) \
  case BinaryOp::Name:                         \
    return launch<3>(#name, s, n, calc, BinaryApply<R, T, BinaryFn<BinaryOp::Name>>{static_cast<R*>(out), x, y});
      EMBER_BINARY_OPS(EMBER_BINARY_CASE)
#undef EMBER_BINARY_CASE
      default:
        unsupported("launch_binary", "op", static_cast<int>(op));
    }
  });
}

void launch_where(cudaStream_t s, ScalarType type, int64_t n, const OffsetCalc<4>& calc, void* out, const bool* cond,
                  const void* a, const void* b) {
  dispatch_type(type, [&]<typename T>() {
    launch<4>("where", s, n, calc,
              WhereOp<T>{static_cast<T*>(out), cond, static_cast<const T*>(a), static_cast<const T*>(b)});
  });
}

}  // namespace ember::cuda
