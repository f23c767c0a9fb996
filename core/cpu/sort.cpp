// CPU kernels along the last dim of contiguous rows: sort (with the source indices), the running
// sum / product and the running logsumexp. The ops (autograd/sort.cpp) move the dim last and make the rows contiguous.
//
// Rows are independent and spread over OpenMP threads. The sort is std::stable_sort on indices with
// NaN above every number, so equal values keep their order, as PyTorch's CPU sort does.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <type_traits>

#include "core/cpu/cpu_backend.h"
#include "core/cpu/loops.h"
#include "core/cpu/narrow_int.h"
#include "core/reduce_folds.h"

namespace ember::cpu {
namespace {

// a < b in sort order: NaN after every number (and NaNs equal to each other).
template <typename T>
bool sorts_before(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a)) return false;
    if (std::isnan(b)) return true;
  }
  return a < b;
}

// The accumulator of a running sum or product: double for floating types (PyTorch's CPU
// at::acc_type); for int64 uint64, so that overflow wraps as in PyTorch instead of being
// undefined.
template <typename T>
using ScanAcc = std::conditional_t<std::is_floating_point_v<T>, double, uint64_t>;

}  // namespace

void CpuBackend::sort(const Tensor& values, const Tensor& indices, const Tensor& in, bool descending) {
  if (any_narrow_integer({&values, &in})) {  // sorted as int64 (exact), narrowed back
    Tensor values64 = int64_buffer(values);
    sort(values64, indices, int64_copy(*this, in), descending);
    return narrow_back(*this, values, values64);
  }
  dispatch(in.dtype(), "sort", [&]<typename T>() {
    const int64_t n = in.dim() ? in.sizes().back() : 1, rows = n ? in.numel() / n : 0;
    const T* x = in.data_ptr<T>();
    T* v = values.data_ptr<T>();
    int64_t* ix = indices.data_ptr<int64_t>();
#pragma omp parallel for if (rows * n >= kParallelGrain)
    for (int64_t r = 0; r < rows; ++r) {
      const T* xr = x + r * n;
      int64_t* ir = ix + r * n;
      std::iota(ir, ir + n, int64_t{0});
      if (descending)
        std::stable_sort(ir, ir + n, [xr](int64_t a, int64_t b) { return sorts_before(xr[b], xr[a]); });
      else
        std::stable_sort(ir, ir + n, [xr](int64_t a, int64_t b) { return sorts_before(xr[a], xr[b]); });
      for (int64_t j = 0; j < n; ++j) v[r * n + j] = xr[ir[j]];
    }
  });
}

void CpuBackend::cumulative(const Tensor& out, const Tensor& in, bool prod) {
  dispatch(in.dtype(), prod ? "cumprod" : "cumsum", [&]<typename T>() {
    if constexpr (std::is_same_v<T, bool>) {
      EMBER_FAIL("{}: bool input reached the kernel (the op converts it to int64)", prod ? "cumprod" : "cumsum");
    } else {
      const int64_t n = in.dim() ? in.sizes().back() : 1, rows = n ? in.numel() / n : 0;
      const T* x = in.data_ptr<T>();
      T* y = out.data_ptr<T>();
#pragma omp parallel for if (rows * n >= kParallelGrain)
      for (int64_t r = 0; r < rows; ++r) {
        ScanAcc<T> acc = prod ? 1 : 0;
        for (int64_t j = 0; j < n; ++j) {
          const auto xj = static_cast<ScanAcc<T>>(x[r * n + j]);
          acc = prod ? acc * xj : acc + xj;
          y[r * n + j] = static_cast<T>(acc);
        }
      }
    }
  });
}

void CpuBackend::logcumsumexp(const Tensor& out, const Tensor& in) {
  dispatch_floating(in.dtype(), "logcumsumexp", [&]<typename T>() {
    using Fold = LogAddExpFold<double>;  // PyTorch's CPU accumulates float in double too
    const int64_t n = in.dim() ? in.sizes().back() : 1, rows = n ? in.numel() / n : 0;
    const T* x = in.data_ptr<T>();
    T* y = out.data_ptr<T>();
#pragma omp parallel for if (rows * n >= kParallelGrain)
    for (int64_t r = 0; r < rows; ++r) {
      double acc = Fold::init();
      for (int64_t j = 0; j < n; ++j) {
        acc = Fold::combine(acc, static_cast<double>(x[r * n + j]));
        y[r * n + j] = static_cast<T>(acc);
      }
    }
  });
}

}  // namespace ember::cpu
