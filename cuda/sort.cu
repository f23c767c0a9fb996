// CUDA kernels along the last dim of contiguous rows: sort with source indices, running sum / product / logsumexp.
//
// The sort ranks: one thread per element counts the row's elements that go before it (smaller, or
// equal and earlier, so the order is stable; NaN above every number, as on the CPU) and writes the
// element at that rank. O(n) reads per element, O(n^2) per row, all threads independent: exact and
// simple, fine for the rows programs sort (class scores, top-k over a vocabulary of a few thousand);
// a merge or radix sort is the step for long rows. The scans give one thread to one row, accumulating
// in the row's type as PyTorch's CUDA kernels do (int64 through uint64, so overflow wraps).
#include <type_traits>

#include "core/reduce_folds.h"
#include "cuda/kernels.h"
#include "cuda/launchers.h"

namespace ember::cuda {

namespace {

// a < b in sort order: NaN after every number, NaNs equal to each other.
template <typename T>
__device__ bool sorts_before(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (a != a) return false;  // NaN
    if (b != b) return true;
  }
  return a < b;
}

template <typename T>
__global__ void __launch_bounds__(kBlockSize)
    sort_rank_kernel(int64_t rows, int64_t n, bool descending, T* values, int64_t* indices, const T* in) {
  const int64_t total = rows * n, stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t at = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; at < total; at += stride) {
    const int64_t r = at / n, i = at % n;
    const T* row = in + r * n;
    const T xi = row[i];
    int64_t rank = 0;
    for (int64_t j = 0; j < n; ++j) {
      const T xj = row[j];
      const bool ahead = descending ? sorts_before(xi, xj) : sorts_before(xj, xi);
      const bool tie = !sorts_before(xi, xj) && !sorts_before(xj, xi);
      rank += ahead || (tie && j < i);
    }
    values[r * n + rank] = xi;
    indices[r * n + rank] = i;
  }
}

template <typename T>
__global__ void __launch_bounds__(kBlockSize) scan_kernel(int64_t rows, int64_t n, bool prod, T* out, const T* in) {
  using Acc = std::conditional_t<std::is_integral_v<T>, uint64_t, T>;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t r = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; r < rows; r += stride) {
    Acc acc = prod ? Acc(1) : Acc(0);
    for (int64_t j = 0; j < n; ++j) {
      const Acc x = static_cast<Acc>(in[r * n + j]);
      acc = prod ? acc * x : acc + x;
      out[r * n + j] = static_cast<T>(acc);
    }
  }
}

// One thread per row, in the row's type (PyTorch's CUDA accumulator for float and double).
template <typename T>
__global__ void __launch_bounds__(kBlockSize) logcumsumexp_kernel(int64_t rows, int64_t n, T* out, const T* in) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t r = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; r < rows; r += stride) {
    T acc = LogAddExpFold<T>::init();
    for (int64_t j = 0; j < n; ++j) {
      acc = LogAddExpFold<T>::combine(acc, in[r * n + j]);
      out[r * n + j] = acc;
    }
  }
}

}  // namespace

void launchers::sort(const TensorView& values, const TensorView& indices, const TensorView& in, bool descending) {
  cudaStream_t s = prepare(in.device);
  if (is_narrow_integer(in.dtype)) {  // sorted as int64 (exact), narrowed back, as on the CPU
    const WideCopy values64 = wide_buffer(values);
    sort(values64.view, indices, widen(in).view, descending);
    return narrow_back(values, values64);
  }
  const Rows shape = rows_of(in);
  const int64_t rows = shape.rows, n = shape.cols;
  dispatch_type("sort", in.dtype, [&]<typename T>() {
    const LaunchShape ls = launch_1d(rows * n);
    if (ls.grid == 0) return;
    EMBER_LAUNCH(ls.grid, ls.block, 0, s, sort_rank_kernel<T>)
    (rows, n, descending, values.ptr<T>(), indices.ptr<int64_t>(), in.ptr<const T>());
    check_launch("sort");
  });
}

void launchers::cumulative(const TensorView& out, const TensorView& in, bool prod) {
  cudaStream_t s = prepare(in.device);
  const Rows shape = rows_of(in);
  const int64_t rows = shape.rows, n = shape.cols;
  dispatch_type("cumulative", in.dtype, [&]<typename T>() {
    if constexpr (std::is_same_v<T, bool>) {
      unsupported(prod ? "cumprod" : "cumsum", "dtype", static_cast<int>(in.dtype));  // the op converts bool first
    } else {
      const LaunchShape ls = launch_1d(rows);
      if (ls.grid == 0 || n == 0) return;
      EMBER_LAUNCH(ls.grid, ls.block, 0, s, scan_kernel<T>)(rows, n, prod, out.ptr<T>(), in.ptr<const T>());
      check_launch(prod ? "cumprod" : "cumsum");
    }
  });
}

void launchers::logcumsumexp(const TensorView& out, const TensorView& in) {
  cudaStream_t s = prepare(in.device);
  require_floating(in.dtype, "logcumsumexp");
  const Rows shape = rows_of(in);
  const int64_t rows = shape.rows, n = shape.cols;
  dispatch_floating_type("logcumsumexp", in.dtype, [&]<typename T>() {
    const LaunchShape ls = launch_1d(rows);
    if (ls.grid == 0 || n == 0) return;
    EMBER_LAUNCH(ls.grid, ls.block, 0, s, logcumsumexp_kernel<T>)(rows, n, out.ptr<T>(), in.ptr<const T>());
    check_launch("logcumsumexp");
  });
}

}  // namespace ember::cuda
