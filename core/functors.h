// Every elementwise formula, written once as a functor usable on the host and on a CUDA device.
//
// The CPU loops (core/cpu/elementwise.cpp) and the CUDA kernel template (cuda/elementwise.cu)
// both expand the same X-macro lists below, so an op's formula has exactly one home. The lists
// are also where the op enums and their printable names come from.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "core/cpu/vec_math.h"

#ifdef __CUDACC__
#define EMBER_HD __host__ __device__
#define EMBER_HD_INLINE __host__ __device__ __forceinline__
#else
#define EMBER_HD
// For formulas the CPU's vectorised loops must inline: GCC's size limits otherwise leave a call in
// the loop body (GELU's backward was one call per element), and a loop with a call stays scalar.
#define EMBER_HD_INLINE inline __attribute__((always_inline))
#endif

namespace ember {

// sqrt(2 / pi) and the cubic coefficient of GELU's tanh approximation (Hendrycks & Gimpel).
inline constexpr double kGeluTanhScale = 0.7978845608028654;
inline constexpr double kGeluTanhCubic = 0.044715;
inline constexpr double kSqrtHalf = 0.7071067811865476;       // 1 / sqrt(2), for the exact GELU
inline constexpr double kInvSqrt2Pi = 0.3989422804014327;     // 1 / sqrt(2 pi), the normal density's scale
inline constexpr double kTwoOverSqrtPi = 1.1283791670955126;  // d/dx erf(x) = 2 / sqrt(pi) e^(-x^2)

namespace detail {
// erf and exp for the formulas below. On the host, float takes vec_math.h's branch-free forms
// (std::erf and std::exp are scalar libm calls the loops cannot vectorise); double, the integer
// types and CUDA devices take std::. erf_with_exp_ takes e^(-z^2) from a caller that has it.
template <typename T>
EMBER_HD T exp_(T x) {
#ifndef __CUDA_ARCH__
  if constexpr (std::is_same_v<T, float>) return cpu::exp_vec(x);
#endif
  return std::exp(x);
}
template <typename T>
EMBER_HD T erf_with_exp_(T z, T exp_minus_z2) {
#ifndef __CUDA_ARCH__
  if constexpr (std::is_same_v<T, float>) return cpu::erf_with_exp(z, exp_minus_z2);
#endif
  return std::erf(z);
}
template <typename T>
EMBER_HD T erf_(T x) {
#ifndef __CUDA_ARCH__
  if constexpr (std::is_same_v<T, float>) return cpu::erf_vec(x);
#endif
  return std::erf(x);
}
// -x, with a signed integer's minimum wrapping to itself as PyTorch's -INT64_MIN does (negating it
// directly is undefined behaviour in C++).
template <typename T>
EMBER_HD T neg_(T x) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    return T(std::make_unsigned_t<T>(0) - static_cast<std::make_unsigned_t<T>>(x));
  } else {
    return -x;
  }
}
// floor, ceil, round (half to even, as PyTorch's std::nearbyint) and trunc; integers are whole already.
enum class Rounding { kFloor, kCeil, kNearestEven, kTrunc };
template <Rounding kMode, typename T>
EMBER_HD T whole_(T x) {
  if constexpr (!std::is_floating_point_v<T>) {
    return x;
  } else if constexpr (kMode == Rounding::kFloor) {
    return std::floor(x);
  } else if constexpr (kMode == Rounding::kCeil) {
    return std::ceil(x);
  } else if constexpr (kMode == Rounding::kNearestEven) {
    return std::nearbyint(x);
  } else {
    return std::trunc(x);
  }
}
}  // namespace detail

// X(Name, name, expression in x of type T)
#define EMBER_UNARY_OPS(X)                                                                                         \
  X(Neg, neg, detail::neg_(x))                                                                                     \
  X(Exp, exp, std::exp(x))                                                                                         \
  X(Log, log, std::log(x))                                                                                         \
  X(Log1p, log1p, std::log1p(x))                                                                                   \
  X(Sqrt, sqrt, std::sqrt(x))                                                                                      \
  X(Rsqrt, rsqrt, T(1) / std::sqrt(x))                                                                             \
  X(Abs, abs, x < T(0) ? detail::neg_(x) : x)                                                                      \
  X(Sign, sign, T((T(0) < x) - (x < T(0))))                                                                        \
  X(Square, square, x* x)                                                                                          \
  X(Reciprocal, reciprocal, T(1) / x)                                                                              \
  X(Erf, erf, std::erf(x))                                                                                         \
  X(Sin, sin, std::sin(x))                                                                                         \
  X(Cos, cos, std::cos(x))                                                                                         \
  X(Tanh, tanh, std::tanh(x))                                                                                      \
  X(Sigmoid, sigmoid, T(1) / (T(1) + std::exp(-x)))                                                                \
  X(Relu, relu, x > T(0) ? x : T(0))                                                                               \
  X(Gelu, gelu, T(0.5) * x * (T(1) + detail::erf_(x * T(kSqrtHalf))))                                              \
  X(GeluTanh, gelu_tanh, T(0.5) * x * (T(1) + std::tanh(T(kGeluTanhScale) * (x + T(kGeluTanhCubic) * x * x * x)))) \
  X(Erfc, erfc, std::erfc(x))                                                                                      \
  X(Tan, tan, std::tan(x))                                                                                         \
  X(Asin, asin, std::asin(x))                                                                                      \
  X(Acos, acos, std::acos(x))                                                                                      \
  X(Atan, atan, std::atan(x))                                                                                      \
  X(Sinh, sinh, std::sinh(x))                                                                                      \
  X(Cosh, cosh, std::cosh(x))                                                                                      \
  X(Asinh, asinh, std::asinh(x))                                                                                   \
  X(Acosh, acosh, std::acosh(x))                                                                                   \
  X(Atanh, atanh, std::atanh(x))                                                                                   \
  X(Expm1, expm1, std::expm1(x))                                                                                   \
  X(Exp2, exp2, std::exp2(x))                                                                                      \
  X(Log2, log2, std::log2(x))                                                                                      \
  X(Log10, log10, std::log10(x))                                                                                   \
  X(Floor, floor, detail::whole_<detail::Rounding::kFloor>(x))                                                     \
  X(Ceil, ceil, detail::whole_<detail::Rounding::kCeil>(x))                                                        \
  X(Round, round, detail::whole_<detail::Rounding::kNearestEven>(x))                                               \
  X(Trunc, trunc, detail::whole_<detail::Rounding::kTrunc>(x))

// X(Name, name, expression in a, b of type T, result type R)
#define EMBER_BINARY_OPS(X)                                                     \
  X(Add, add, a + b, T)                                                         \
  X(Sub, sub, a - b, T)                                                         \
  X(Mul, mul, a* b, T)                                                          \
  X(Div, div, detail::div_(a, b), T)                                            \
  X(Pow, pow, detail::pow_(a, b), T)                                            \
  X(Maximum, maximum, detail::max_(a, b), T)                                    \
  X(Minimum, minimum, detail::min_(a, b), T)                                    \
  X(Eq, eq, a == b, bool)                                                       \
  X(Ne, ne, a != b, bool)                                                       \
  X(Lt, lt, a < b, bool)                                                        \
  X(Le, le, a <= b, bool)                                                       \
  X(Gt, gt, a > b, bool)                                                        \
  X(Ge, ge, a >= b, bool)                                                       \
  X(LogicalAnd, logical_and, bool(a) && bool(b), bool)                          \
  X(LogicalOr, logical_or, bool(a) || bool(b), bool)                            \
  X(LogicalXor, logical_xor, bool(a) != bool(b), bool)                          \
  X(GeluBackward, gelu_backward, detail::gelu_backward_(a, b), T)               \
  X(GeluTanhBackward, gelu_tanh_backward, detail::gelu_tanh_backward_(a, b), T) \
  X(Remainder, remainder, detail::remainder_(a, b), T)                          \
  X(Fmod, fmod, detail::fmod_(a, b), T)                                         \
  X(DivFloor, div_floor, detail::div_floor_(a, b), T)                           \
  X(DivTrunc, div_trunc, detail::div_trunc_(a, b), T)                           \
  X(Atan2, atan2, detail::atan2_(a, b), T)                                      \
  X(Hypot, hypot, detail::hypot_(a, b), T)                                      \
  X(LogAddExp, logaddexp, detail::logaddexp_<false>(a, b), T)                   \
  X(LogAddExp2, logaddexp2, detail::logaddexp_<true>(a, b), T)

// Reductions: X(Name, name)
#define EMBER_REDUCE_OPS(X) X(Sum, sum) X(Prod, prod) X(Max, max) X(Min, min) X(All, all) X(Any, any)

#define EMBER_ENUM_ENTRY(Name, ...) Name,
enum class UnaryOp { EMBER_UNARY_OPS(EMBER_ENUM_ENTRY) };
enum class BinaryOp { EMBER_BINARY_OPS(EMBER_ENUM_ENTRY) };
enum class ReduceOp { EMBER_REDUCE_OPS(EMBER_ENUM_ENTRY) };
#undef EMBER_ENUM_ENTRY

const char* op_name(UnaryOp op);
const char* op_name(BinaryOp op);
const char* op_name(ReduceOp op);
// True for comparisons and logical ops, whose result dtype is bool.
bool returns_bool(BinaryOp op);

namespace detail {
// NaN-propagating max/min, as torch.maximum/minimum.
template <typename T>
EMBER_HD T max_(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (a != a) return a;
    if (b != b) return b;
  }
  return a > b ? a : b;
}
template <typename T>
EMBER_HD T min_(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (a != a) return a;
    if (b != b) return b;
  }
  return a < b ? a : b;
}
template <typename T>
EMBER_HD T pow_(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return a || !b;
  } else if constexpr (std::is_integral_v<T>) {
    // Integer power by squaring, wrapping modulo 2^64 as PyTorch's does (unsigned: no undefined
    // overflow); negative exponents give 0 except for |a| == 1.
    if (b < 0) return a == 1 ? 1 : (a == -1 ? ((b & 1) ? -1 : 1) : 0);
    uint64_t result = 1, base = static_cast<uint64_t>(a);
    while (b) {
      if (b & 1) result *= base;
      base *= base;
      b >>= 1;
    }
    return static_cast<T>(result);
  } else {
    // The exponents PyTorch's CPU pow kernel special-cases, computed as it does (x.square(),
    // layer norms and their backward hit these): exact and many times cheaper than std::pow.
    if (b == T(2)) return a * a;
    if (b == T(1)) return a;
    if (b == T(3)) return a * a * a;
    if (b == T(0.5)) return std::sqrt(a);
    if (b == T(-1)) return T(1) / a;
    if (b == T(-2)) return T(1) / (a * a);
    return std::pow(a, b);
  }
}
// Integer division and its remainders as PyTorch computes them: x / -1 wraps INT_MIN to itself and
// x % -1 is 0 (the machine instructions would trap on INT_MIN). A zero divisor never reaches these
// for integers (the op throws ZeroDivisionError first); 0 is returned rather than trapping. bool
// never reaches them either (the op rejects it).
template <typename T>
EMBER_HD T div_(T a, T b) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    if (b == 0) return T(0);
    if (b == T(-1)) return T(std::make_unsigned_t<T>(0) - static_cast<std::make_unsigned_t<T>>(a));
    return a / b;
  } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    return b == 0 ? T(0) : T(a / b);
  } else {
    return a / b;
  }
}
// The remainder of truncating division (C's %, fmod's), with the dividend's sign.
template <typename T>
EMBER_HD T int_rem_(T a, T b) {
  if (b == 0) return T(0);
  if constexpr (std::is_signed_v<T>) {
    if (b == T(-1)) return T(0);
  }
  return T(a % b);
}
// PyTorch's remainder: the result has the divisor's sign (Python's %).
template <typename T>
EMBER_HD T remainder_(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return a;
  } else if constexpr (std::is_integral_v<T>) {
    T r = int_rem_(a, b);
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
  } else {
    T r = std::fmod(a, b);
    if (r != 0 && ((b < 0) != (r < 0))) r += b;
    return r;
  }
}
// C's fmod: the result has the dividend's sign.
template <typename T>
EMBER_HD T fmod_(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return a;
  } else if constexpr (std::is_integral_v<T>) {
    return int_rem_(a, b);
  } else {
    return std::fmod(a, b);
  }
}
// PyTorch's floor division (rounding_mode="floor", floor_divide): the quotient rounded toward -inf.
// For floating types it is computed from fmod, as Python's // is, so that a // b == (a - a % b) / b
// exactly: floor(a / b) would round the quotient first (7.0 // 0.7 is 9, while floor(7.0 / 0.7) is 10).
template <typename T>
EMBER_HD T div_floor_(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (b == T(0)) return a / b;
    const T mod = std::fmod(a, b);
    T div = (a - mod) / b;
    if (mod != T(0) && (b < T(0)) != (mod < T(0))) div -= T(1);
    if (div == T(0)) return std::copysign(T(0), a / b);
    T whole = std::floor(div);
    if (div - whole > T(0.5)) whole += T(1);
    return whole;
  } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T> && !std::is_same_v<T, bool>) {
    if (b == 0 || b == T(-1)) return div_(a, b);  // 0 is refused by the op; -1 wraps INT_MIN
    const T q = a / b;
    return ((a < 0) != (b < 0)) && q * b != a ? T(q - 1) : q;
  } else {
    return div_(a, b);  // unsigned: truncation is floor
  }
}
// rounding_mode="trunc": the quotient rounded toward zero (C's integer division).
template <typename T>
EMBER_HD T div_trunc_(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::trunc(a / b);
  } else {
    return div_(a, b);
  }
}
// atan2 and hypot: the ops take floating tensors only (integers promote first), so integer types,
// which CUDA's std:: has no overloads for, never reach the math.
template <typename T>
EMBER_HD T atan2_(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) return std::atan2(a, b);
  return T(0);
}
template <typename T>
EMBER_HD T hypot_(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) return std::hypot(a, b);
  return T(0);
}
// log(e^a + e^b), or log2(2^a + 2^b), without overflow: max + log1p(e^-|a - b|). Two infinities of
// one sign give themselves (their difference would be NaN).
template <bool kBase2, typename T>
EMBER_HD T logaddexp_(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isinf(a) && a == b) return a;
    const T m = a > b ? a : b, d = a > b ? a - b : b - a;
    if constexpr (kBase2) {
      return m + std::log1p(std::exp2(-d)) * T(1.4426950408889634);  // 1 / ln 2
    } else {
      return m + std::log1p(std::exp(-d));
    }
  } else {
    return T(0);  // never dispatched: the ops take floating tensors only
  }
}
// GELU's backward in one pass, a = the incoming gradient, b = the forward's input x:
//   exact:  d/dx x Phi(x) = Phi(x) + x phi(x)
//   tanh:   d/dx 0.5 x (1 + tanh(u)), u = k (x + c x^3): 0.5 (1 + t) + 0.5 x (1 - t^2) k (1 + 3 c x^2)
// The composed form of both (for create_graph) is in autograd/elementwise.cpp.
template <typename T>
EMBER_HD_INLINE T gelu_backward_(T g, T x) {
  if constexpr (std::is_floating_point_v<T>) {
    // One exponential serves both terms: erf(z), z = x / sqrt(2), needs e^(-z^2) = sqrt(2 pi) phi(x).
    const T z = x * T(kSqrtHalf);
    const T e = exp_(-z * z);
    const T cdf = T(0.5) * (T(1) + erf_with_exp_(z, e));
    return g * (cdf + x * (e * T(kInvSqrt2Pi)));
  } else {
    return T(0);  // never dispatched: gelu works on floating tensors only
  }
}
template <typename T>
EMBER_HD_INLINE T gelu_tanh_backward_(T g, T x) {
  if constexpr (std::is_floating_point_v<T>) {
    const T t = std::tanh(T(kGeluTanhScale) * (x + T(kGeluTanhCubic) * x * x * x));
    const T du = T(kGeluTanhScale) * (T(1) + T(3 * kGeluTanhCubic) * x * x);
    return g * (T(0.5) * (T(1) + t) + T(0.5) * x * (T(1) - t * t) * du);
  } else {
    return T(0);
  }
}
}  // namespace detail

// The scan of max(dim) / min(dim) along one row, shared by the CPU and CUDA kernels so ties and
// NaN agree: the first extreme element wins, and a NaN wins and ends the scan.
//   ArgExtreme<T> a(is_max, x[0]);
//   for (int64_t j = 1; j < len && !a.done(); ++j) a.take(x[j * step], j);
template <typename T>
struct ArgExtreme {
  bool is_max;
  T best;
  int64_t index = 0;
  EMBER_HD ArgExtreme(bool is_max_, T first) : is_max(is_max_), best(first) {}
  EMBER_HD bool done() const {
    if constexpr (std::is_floating_point_v<T>) return best != best;
    return false;
  }
  EMBER_HD void take(T v, int64_t j) {
    bool better = is_max ? v > best : v < best;
    if constexpr (std::is_floating_point_v<T>) better = better || v != v;
    if (better) {
      best = v;
      index = j;
    }
  }
};

// One functor type per op, e.g. UnaryFn<UnaryOp::Exp>{}(x).
template <UnaryOp op>
struct UnaryFn;
template <BinaryOp op>
struct BinaryFn;

#define EMBER_UNARY_FUNCTOR(Name, name, ...)   \
  template <>                                  \
  struct UnaryFn<UnaryOp::Name> {              \
    template <typename T>                      \
    EMBER_HD T operator()(T x) const {         \
      if constexpr (std::is_same_v<T, bool>) { \
        return x;                              \
      } else {                                 \
        return __VA_ARGS__;                    \
      }                                        \
    }                                          \
  };
EMBER_UNARY_OPS(EMBER_UNARY_FUNCTOR)
#undef EMBER_UNARY_FUNCTOR

#define EMBER_BINARY_FUNCTOR(Name, name, expr, R) \
  template <>                                     \
  struct BinaryFn<BinaryOp::Name> {               \
    template <typename T>                         \
    EMBER_HD auto operator()(T a, T b) const {    \
      return static_cast<R>(expr);                \
    }                                             \
  };
EMBER_BINARY_OPS(EMBER_BINARY_FUNCTOR)
#undef EMBER_BINARY_FUNCTOR

}  // namespace ember
