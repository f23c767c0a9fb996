// The folds of the reductions (sum, prod, max, min, all, any), written once for the CPU loops
// (core/cpu/reduce.cpp) and the CUDA kernels (cuda/reduce.cu). A fold accumulates in A: init() is
// its identity, combine(a, b) joins two partial results (or a partial result and an element
// converted to A). Which A a reduction of T uses is the caller's: the CPU sums and multiplies
// floating values in double, the CUDA kernels in T, as PyTorch's CUDA kernels do.
#pragma once

#include <limits>
#include <type_traits>

#include "core/functors.h"  // EMBER_HD, detail::max_ / min_ / logaddexp_

namespace ember {

// Integer sums and products wrap modulo 2^64 as PyTorch's do: computed unsigned, where overflow is
// defined (a signed int64 overflow would be undefined behaviour).
template <typename A>
struct SumFold {
  using Acc = A;
  EMBER_HD static A init() { return A(0); }
  EMBER_HD static A combine(A a, A b) {
    if constexpr (std::is_integral_v<A> && !std::is_same_v<A, bool>)
      return static_cast<A>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
    else
      return a + b;
  }
};
template <typename A>
struct ProdFold {
  using Acc = A;
  EMBER_HD static A init() { return A(1); }
  EMBER_HD static A combine(A a, A b) {
    if constexpr (std::is_same_v<A, bool>)
      return a && b;
    else if constexpr (std::is_integral_v<A>)
      return static_cast<A>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
    else
      return a * b;
  }
};
// max and min propagate NaN (detail::max_, as torch.max); the identity is the type's lowest value
// (-inf for floating types), or its highest.
template <typename A>
struct MaxFold {
  using Acc = A;
  EMBER_HD static A init() {
    if constexpr (std::is_floating_point_v<A>)
      return -std::numeric_limits<A>::infinity();
    else
      return std::numeric_limits<A>::lowest();
  }
  EMBER_HD static A combine(A a, A b) { return detail::max_(a, b); }
};
template <typename A>
struct MinFold {
  using Acc = A;
  EMBER_HD static A init() {
    if constexpr (std::is_floating_point_v<A>)
      return std::numeric_limits<A>::infinity();
    else
      return std::numeric_limits<A>::max();
  }
  EMBER_HD static A combine(A a, A b) { return detail::min_(a, b); }
};
// all / any of "x != 0", accumulated as int (bool has no arithmetic in CUDA's shared-memory trees).
struct AllFold {
  using Acc = int;
  EMBER_HD static int init() { return 1; }
  EMBER_HD static int combine(int a, int b) { return a && b; }
};
struct AnyFold {
  using Acc = int;
  EMBER_HD static int init() { return 0; }
  EMBER_HD static int combine(int a, int b) { return a || b; }
};

// The step of logcumsumexp: acc = log(exp(acc) + exp(x)), the logaddexp op's formula
// (core/functors.h: no overflow, NaN propagates, two equal infinities give that infinity).
template <typename A>
struct LogAddExpFold {
  using Acc = A;
  EMBER_HD static A init() { return -std::numeric_limits<A>::infinity(); }
  EMBER_HD static A combine(A acc, A x) { return detail::logaddexp_<false>(acc, x); }
};

}  // namespace ember
