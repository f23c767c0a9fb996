// CUDA reductions: sum/prod/max/min/all/any over any set of dims, and max/min with indices.
//
// reduce_kernel gives one block to one output element: its threads fold a strided share of the
// reduced elements each, then combine in shared memory. Where an output's inputs live is two
// OffsetCalcs (kept dims -> base offset, reduced dims -> offset from the base), built by
// cuda/backend.cpp, so any layout and any set of dims works. Float sums accumulate in the
// input's type, as PyTorch's CUDA kernels do (the CPU backend uses double).
#include <cuda/std/limits>

#include "cuda/block_reduce.cuh"
#include "cuda/kernels.h"

namespace ember::cuda {

namespace {

template <typename T> struct SumR {
  using A = T;
  __device__ static A init() { return A(0); }
  __device__ static A combine(A a, A b) { return a + b; }
};
template <typename T> struct ProdR {
  using A = T;
  __device__ static A init() { return A(1); }
  __device__ static A combine(A a, A b) { return a * b; }
};
template <typename T> struct MaxR {
  using A = T;
  __device__ static A init() {
    if constexpr (std::is_floating_point_v<T>) return -::cuda::std::numeric_limits<T>::infinity();
    else return ::cuda::std::numeric_limits<T>::lowest();
  }
  __device__ static A combine(A a, A b) { return detail::max_(a, b); }
};
template <typename T> struct MinR {
  using A = T;
  __device__ static A init() {
    if constexpr (std::is_floating_point_v<T>) return ::cuda::std::numeric_limits<T>::infinity();
    else return ::cuda::std::numeric_limits<T>::max();
  }
  __device__ static A combine(A a, A b) { return detail::min_(a, b); }
};
// all/any of "x != 0", accumulated as int (bool has no arithmetic in shared memory trees).
struct AllR {
  using A = int;
  __device__ static A init() { return 1; }
  __device__ static A combine(A a, A b) { return a && b; }
};
struct AnyR {
  using A = int;
  __device__ static A init() { return 0; }
  __device__ static A combine(A a, A b) { return a || b; }
};

template <typename T, typename O, typename R>
__global__ void __launch_bounds__(kMaxRowBlock) reduce_kernel(int64_t n_out, int64_t n_red, OffsetCalc<2> outer, OffsetCalc<1> inner, O* out,
                              const T* in) {
  using A = typename R::A;
  A* scratch = shared_scratch<A>();
  for (int64_t o = blockIdx.x; o < n_out; o += gridDim.x) {
    const auto base = outer.offsets(o);
    A acc = R::init();
    for (int64_t r = threadIdx.x; r < n_red; r += blockDim.x) {
      const T x = in[base[1] + inner.offsets(r)[0]];
      if constexpr (std::is_same_v<A, int>) acc = R::combine(acc, x != T(0));
      else acc = R::combine(acc, x);
    }
    acc = block_reduce(acc, [](A a, A b) { return R::combine(a, b); }, scratch);
    if (threadIdx.x == 0) out[base[0]] = static_cast<O>(acc);
  }
}

template <typename T, typename O, typename R>
void launch_reduce_as(cudaStream_t s, int64_t n_out, int64_t n_red, const OffsetCalc<2>& outer,
                      const OffsetCalc<1>& inner, void* out, const void* in) {
  if (n_out == 0) return;
  const int block = block_for_row(n_red);
  const int64_t grid = std::min<int64_t>(n_out, kMaxGrid);
  EMBER_LAUNCH(grid, block, block * sizeof(typename R::A), s, reduce_kernel<T, O, R>)(n_out, n_red, outer, inner,
                                                                             static_cast<O*>(out),
                                                                             static_cast<const T*>(in));
  check_launch("reduce");
}

template <typename T>
__global__ void __launch_bounds__(kBlockSize) arg_reduce_kernel(bool is_max, int64_t n, OffsetCalc<3> calc, int64_t len, int64_t step, T* values,
                                  int64_t* indices, const T* in) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const auto off = calc.offsets(i);
    const T* x = in + off[2];
    ArgExtreme<T> a(is_max, x[0]);  // the CPU kernel's scan (core/functors.h), so ties and NaN agree
    for (int64_t j = 1; j < len && !a.done(); ++j) a.take(x[j * step], j);
    values[off[0]] = a.best;
    indices[off[1]] = a.index;
  }
}

}  // namespace

void launch_reduce(cudaStream_t s, ReduceOp op, ScalarType type, int64_t n_out, int64_t n_red,
                   const OffsetCalc<2>& outer, const OffsetCalc<1>& inner, void* out, const void* in) {
  dispatch_type(type, [&]<typename T>() {
    switch (op) {
      case ReduceOp::Sum: return launch_reduce_as<T, T, SumR<T>>(s, n_out, n_red, outer, inner, out, in);
      case ReduceOp::Prod: return launch_reduce_as<T, T, ProdR<T>>(s, n_out, n_red, outer, inner, out, in);
      case ReduceOp::Max: return launch_reduce_as<T, T, MaxR<T>>(s, n_out, n_red, outer, inner, out, in);
      case ReduceOp::Min: return launch_reduce_as<T, T, MinR<T>>(s, n_out, n_red, outer, inner, out, in);
      case ReduceOp::All: return launch_reduce_as<T, bool, AllR>(s, n_out, n_red, outer, inner, out, in);
      case ReduceOp::Any: return launch_reduce_as<T, bool, AnyR>(s, n_out, n_red, outer, inner, out, in);
      default: unsupported("launch_reduce", "op", static_cast<int>(op));
    }
  });
}

void launch_arg_reduce(cudaStream_t s, bool is_max, ScalarType type, int64_t n, const OffsetCalc<3>& calc,
                       int64_t len, int64_t step, void* values, int64_t* indices, const void* in) {
  dispatch_type(type, [&]<typename T>() {
    const LaunchShape ls = launch_1d(n);
    if (ls.grid == 0) return;
    EMBER_LAUNCH(ls.grid, ls.block, 0, s, arg_reduce_kernel<T>)(is_max, n, calc, len, step, static_cast<T*>(values), indices,
                                                       static_cast<const T*>(in));
    check_launch(is_max ? "max" : "min");
  });
}

}  // namespace ember::cuda
