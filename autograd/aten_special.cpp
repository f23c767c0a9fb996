// ATen's special functions (lgamma, digamma, polygamma, erfinv, mvlgamma) and its integer and
// floating-point bit functions (bitwise_*, the shifts, gcd/lcm, frexp, ldexp, nextafter, copysign),
// declared in autograd/aten_functions.h. Each elementwise formula is computed on the host over a
// contiguous CPU copy (in the floating type PyTorch's CPU kernel uses, or in the integer dtype PyTorch
// promotes to, held as int64), and the result returns on the input's device: these are not backend
// kernels, and a CUDA tensor makes the round trip. Gradients are recorded with
// formulas written in these same functions (d/dx lgamma = digamma, ...), so they differentiate
// again. Values, poles, promotions and error texts follow PyTorch 1.13 on x86.
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <numbers>
#include <vector>

#include "autograd/aten_functions.h"
#include "autograd/autocast.h"
#include "autograd/elementwise.h"
#include "autograd/fused.h"
#include "autograd/grad_mode.h"
#include "autograd/node.h"
#include "autograd/special_host.h"
#include "core/error.h"
#include "core/kernel.h"
#include "core/trace.h"

namespace ember {

namespace {

using special_host::erfinv_scalar;
using special_host::host_doubles;
using special_host::host_longs;
using special_host::kInf;
using special_host::kNaN;
using special_host::kPi;
using special_host::result_device;
using special_host::special_unary;

// ---- the scalar functions ----
// Each runs in T: double for float64, float for float32 and bfloat16, as PyTorch 1.13's CPU kernels
// do, so that values near poles and roots (where float rounding shows) agree with PyTorch's.

// psi(x): negative x reflected (psi(x) = psi(1 - x) - pi / tan(pi x), with pi x taken modulo pi and
// the term computed in double), then psi(x) = psi(x + 1) - 1/x up to x >= 10, then the asymptotic
// series psi(x) ~ ln x - 1/(2x) - sum_k B_2k / (2k x^2k), whose next term is below 1e-16 there.
// Poles: psi(+-0) = -+inf, psi(negative integer) = NaN (PyTorch's and C++'s convention).
template <typename T>
T digamma_scalar(T x) {
  if (x == 0) return std::copysign(std::numeric_limits<T>::infinity(), -x);
  if (x < 0) {
    if (x == std::trunc(x)) return std::numeric_limits<T>::quiet_NaN();
    double whole;
    const double frac = std::modf(static_cast<double>(x), &whole);
    return digamma_scalar<T>(1 - x) - static_cast<T>(kPi / std::tan(kPi * frac));
  }
  T result = 0;
  while (x < 10) {
    result -= 1 / x;
    x += 1;
  }
  // B_2k / (2k) for k = 7 down to 1, as a polynomial in 1 / x^2.
  static constexpr double kDigammaSeries[] = {1.0 / 12,  -691.0 / 32760, 1.0 / 132, -1.0 / 240,
                                              1.0 / 252, -1.0 / 120,     1.0 / 12};
  const T z = 1 / (x * x);
  T series = 0;
  for (double c : kDigammaSeries) series = series * z + static_cast<T>(c);
  return result + std::log(x) - static_cast<T>(0.5) / x - series * z;
}

// psi'(x): x < 1/2 reflected (psi'(x) = pi^2 / sin^2(pi x) - psi'(1 - x)), six steps of
// psi'(x) = psi'(x + 1) + 1/x^2, then the asymptotic series 1/x + 1/(2x^2) + sum_k B_2k / x^(2k+1)
// to the x^-7 term. That series stops where PyTorch 1.13's does, so that the values agree: its
// relative error is about 5e-10 at x = 1 (psi'(1) = pi^2/6 = 1.6449340668482264 exactly; this gives
// 1.6449340676383375 as PyTorch does). A negative integer gives pi^2 / sin^2 of a rounded multiple
// of pi (about 1e32 in double, 1e15 in float), not inf, as in PyTorch.
template <typename T>
T trigamma_scalar(T x) {
  const T pi = static_cast<T>(kPi);
  T sign = 1;
  T result = 0;
  if (x < static_cast<T>(0.5)) {
    sign = -1;
    const T sin_pi_x = std::sin(pi * x);
    result -= (pi * pi) / (sin_pi_x * sin_pi_x);
    x = 1 - x;
  }
  for (int i = 0; i < 6; ++i) {
    result += 1 / (x * x);
    x += 1;
  }
  const T ixx = 1 / (x * x);
  const T sixth = static_cast<T>(1.0 / 6), thirtieth = static_cast<T>(1.0 / 30), fortysecond = static_cast<T>(1.0 / 42);
  result += (1 + 1 / (2 * x) + ixx * (sixth - ixx * (thirtieth - ixx * fortysecond))) / x;
  return sign * result;
}

// psi^(n)(x) = (-1)^(n+1) n! zeta(n + 1, x) for n >= 2: zeta in double, n! as exp(lgamma(n + 1))
// and the product in T, as PyTorch computes them.
template <typename T>
T polygamma_scalar(int64_t n, T x) {
  if (n == 0) return digamma_scalar(x);
  if (n == 1) return trigamma_scalar(x);
  const T sign = n % 2 ? 1 : -1;
  const T factorial = std::exp(std::lgamma(static_cast<T>(n) + 1));
  return sign * factorial *
         static_cast<T>(special_host::hurwitz_zeta(static_cast<double>(n) + 1, static_cast<double>(x)));
}

// ---- applying them to tensors ----

using autograd::elementwise::to_float;
using autograd::elementwise::wrap;

// f(a, b) over the broadcast operands, both in the integer (or bool) dtype PyTorch promotes them
// to, read as int64; the int64 result is wrapped back into that dtype. `aten_kernel` is ATen's name
// in the error for other dtypes.
template <typename F>
Tensor integer_binary(const char* aten_kernel, const Tensor& self, const Tensor& other, bool allow_bool, F f) {
  const ScalarType type = kernel::result_type(self, other);
  EMBER_CHECK(is_integral(type, allow_bool), "\"{}\" not implemented for '{}'", aten_kernel, scalar_type_name(type));
  const Device device = result_device(self, other, aten_kernel);
  NoGradGuard no_grad;
  const tensor_list both = broadcast_tensors({self.detach().to(kCPU), other.detach().to(kCPU)});
  const std::vector<int64_t> a = host_longs(both[0].to(type)), b = host_longs(both[1].to(type));
  std::vector<int64_t> out(a.size());
  for (size_t i = 0; i < a.size(); ++i) out[i] = f(a[i], b[i], type);
  return from_vector<int64_t>(out, both[0].sizes()).to(type).to(device);
}

// The shift count as x86 applies it in PyTorch 1.13's kernel (a plain C++ shift): int64 shifts
// by the count modulo 64; narrower types are promoted to int first and shift modulo 32.
int64_t shift_count(int64_t b, ScalarType type) { return b & (type == kInt64 ? 63 : 31); }

int64_t gcd_value(int64_t a, int64_t b) {
  a = a < 0 ? -a : a;
  b = b < 0 ? -b : b;
  while (a != 0) {
    const int64_t c = a;
    a = b % a;
    b = c;
  }
  return b;
}

}  // namespace

namespace special_host {

// erf^-1(x), in double for every dtype: Winitzki's closed-form guess (within 2e-3), then Halley
// steps on erf(y) = |x| until they stop moving y. With f = erf(y) - |x|, f'' / f' = -2y, so a
// Halley step is y -= f / (f' + y f). Above 1/2, f is taken as (1 - |x|) - erfc(y), both exact
// enough that y stays accurate as |x| nears 1 (PyTorch's erf-based Newton steps lose about 1e-12
// at 0.999999).
double erfinv_scalar(double x) {
  if (std::isnan(x) || std::abs(x) > 1) return kNaN;
  if (std::abs(x) == 1) return std::copysign(kInf, x);
  if (x == 0) return x;  // keeps the sign of -0.0
  constexpr double kWinitzkiA = 0.147;
  const double a = std::abs(x);
  const double log_term = std::log1p(-a * a);
  const double b = 2 / (kPi * kWinitzkiA) + log_term / 2;
  double y = std::sqrt(std::sqrt(b * b - log_term / kWinitzkiA) - b);
  for (int step = 0; step < 6; ++step) {
    const double f = a < 0.5 ? std::erf(y) - a : (1 - a) - std::erfc(y);
    const double slope = kTwoOverSqrtPi * std::exp(-y * y);
    const double delta = f / (slope + y * f);
    y -= delta;
    if (std::abs(delta) <= 1e-17 * y) break;
  }
  return std::copysign(y, x);
}

}  // namespace special_host

// ---- special functions ----

// d/dx lgamma(x) = digamma(x)
Tensor lgamma(const Tensor& self) {
  EMBER_TRACE_OP();
  return special_unary(
      "LgammaBackward0", self, [](auto x) { return std::lgamma(x); }, [](const Tensor& x) { return digamma(x); });
}

// d/dx digamma(x) = polygamma(1, x)
Tensor digamma(const Tensor& self) {
  EMBER_TRACE_OP();
  return special_unary(
      "DigammaBackward0", self, [](auto x) { return digamma_scalar(x); },
      [](const Tensor& x) { return polygamma(1, x); });
}

// d/dx polygamma(n, x) = polygamma(n + 1, x)
Tensor polygamma(int64_t n, const Tensor& self) {
  EMBER_TRACE_OP();
  EMBER_CHECK(n >= 0, "polygamma(n, x) does not support negative n.");
  return special_unary(
      "PolygammaBackward0", self, [n](auto x) { return polygamma_scalar(n, x); },
      [n](const Tensor& x) { return polygamma(n + 1, x); });
}

// d/dx erfinv(x) = sqrt(pi)/2 exp(erfinv(x)^2)
Tensor erfinv(const Tensor& self) {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::erfinv, {self}}) return erfinv(cast[0]);
  constexpr double kHalfSqrtPi = 0.5 / std::numbers::inv_sqrtpi;
  return special_unary(
      "ErfinvBackward0", self, [](auto x) { return static_cast<decltype(x)>(erfinv_scalar(static_cast<double>(x))); },
      [](const Tensor& x) { return erfinv(x).square().exp() * kHalfSqrtPi; });
}

// log Gamma_p(x) = p(p-1)/4 log(pi) + sum_{i<p} lgamma(x - i/2), composed as PyTorch 1.13 does
// (lgamma of x plus the offsets -(p-1)/2 ... 0, summed), so the gradient is the sum of digammas.
// PyTorch 1.13 does not check that x > (p-1)/2: there lgamma's values of negative arguments are summed.
Tensor mvlgamma(const Tensor& self, int64_t p) {
  EMBER_TRACE_OP();
  EMBER_CHECK(self.dtype() != kBool, "The input tensor may not be a boolean tensor.");
  EMBER_CHECK(p >= 1, "p has to be greater than or equal to 1");
  const Tensor x = to_float(self);
  const Tensor offsets =
      arange(-static_cast<double>(p) * 0.5 + 0.5, 0.5, 0.5, TensorOptions().dtype(x.dtype()).device(x.device()));
  const double constant = static_cast<double>(p * (p - 1)) * std::log(kPi) * 0.25;
  return lgamma(offsets + x.unsqueeze(-1)).sum({-1}).add(constant);
}

// ---- integer bit functions ----

Tensor bitwise_and(const Tensor& self, const Tensor& other) {
  EMBER_TRACE_OP();
  return integer_binary("bitwise_and_cpu", self, other, true, [](int64_t a, int64_t b, ScalarType) { return a & b; });
}
Tensor bitwise_or(const Tensor& self, const Tensor& other) {
  EMBER_TRACE_OP();
  return integer_binary("bitwise_or_cpu", self, other, true, [](int64_t a, int64_t b, ScalarType) { return a | b; });
}
Tensor bitwise_xor(const Tensor& self, const Tensor& other) {
  EMBER_TRACE_OP();
  return integer_binary("bitwise_xor_cpu", self, other, true, [](int64_t a, int64_t b, ScalarType) { return a ^ b; });
}
Tensor bitwise_and(const Tensor& self, const Scalar& other) { return bitwise_and(self, wrap(self, other)); }
Tensor bitwise_or(const Tensor& self, const Scalar& other) { return bitwise_or(self, wrap(self, other)); }
Tensor bitwise_xor(const Tensor& self, const Scalar& other) { return bitwise_xor(self, wrap(self, other)); }
Tensor bitwise_and(const Scalar& self, const Tensor& other) { return bitwise_and(wrap(other, self), other); }
Tensor bitwise_or(const Scalar& self, const Tensor& other) { return bitwise_or(wrap(other, self), other); }
Tensor bitwise_xor(const Scalar& self, const Tensor& other) { return bitwise_xor(wrap(other, self), other); }

// ~x; on bool, logical not.
Tensor bitwise_not(const Tensor& self) {
  EMBER_TRACE_OP();
  EMBER_CHECK(is_integral(self.dtype(), true), "\"bitwise_not_cpu\" not implemented for '{}'",
              scalar_type_name(self.dtype()));
  if (self.dtype() == kBool) return self.logical_not();
  std::vector<int64_t> values = host_longs(self);
  for (int64_t& v : values) v = ~v;
  return from_vector<int64_t>(values, self.sizes()).to(self.dtype()).to(self.device());
}

// a << b on a's bits as unsigned (no overflow), the count as shift_count says.
Tensor bitwise_left_shift(const Tensor& self, const Tensor& other) {
  EMBER_TRACE_OP();
  return integer_binary("lshift_cpu", self, other, false, [](int64_t a, int64_t b, ScalarType type) {
    return static_cast<int64_t>(static_cast<uint64_t>(a) << shift_count(b, type));
  });
}
// a >> b, arithmetic (the sign fills in for signed types).
Tensor bitwise_right_shift(const Tensor& self, const Tensor& other) {
  EMBER_TRACE_OP();
  return integer_binary("rshift_cpu", self, other, false,
                        [](int64_t a, int64_t b, ScalarType type) { return a >> shift_count(b, type); });
}
Tensor bitwise_left_shift(const Tensor& self, const Scalar& other) {
  return bitwise_left_shift(self, wrap(self, other));
}
Tensor bitwise_left_shift(const Scalar& self, const Tensor& other) {
  return bitwise_left_shift(wrap(other, self), other);
}
Tensor bitwise_right_shift(const Tensor& self, const Scalar& other) {
  return bitwise_right_shift(self, wrap(self, other));
}
Tensor bitwise_right_shift(const Scalar& self, const Tensor& other) {
  return bitwise_right_shift(wrap(other, self), other);
}

// gcd(|a|, |b|), with gcd(0, 0) = 0; lcm = |a / gcd * b|, 0 where gcd is 0.
Tensor gcd(const Tensor& self, const Tensor& other) {
  EMBER_TRACE_OP();
  return integer_binary("gcd_cpu", self, other, false,
                        [](int64_t a, int64_t b, ScalarType) { return gcd_value(a, b); });
}
Tensor lcm(const Tensor& self, const Tensor& other) {
  EMBER_TRACE_OP();
  return integer_binary("lcm_cpu", self, other, false, [](int64_t a, int64_t b, ScalarType) {
    const int64_t g = gcd_value(a, b);
    const int64_t l = g == 0 ? 0 : a / g * b;
    return l < 0 ? -l : l;
  });
}
Tensor& gcd_(Tensor& self, const Tensor& other) {
  return autograd::elementwise::inplace_unary(self, "gcd_", [&](const Tensor& s) { return gcd(s, other); });
}
Tensor& lcm_(Tensor& self, const Tensor& other) {
  return autograd::elementwise::inplace_unary(self, "lcm_", [&](const Tensor& s) { return lcm(s, other); });
}

// ---- floating-point bit functions ----

// self = mantissa * 2^exponent, |mantissa| in [0.5, 1) (0, inf and NaN: themselves, exponent 0).
// d/dx mantissa = 2^-exponent; the exponent has no gradient.
std::tuple<Tensor, Tensor> frexp(const Tensor& self) {
  EMBER_TRACE_OP();
  EMBER_CHECK(self.is_floating_point(), "torch.frexp() only supports floating-point dtypes");
  std::vector<double> mantissas = host_doubles(self), scales(mantissas.size());
  std::vector<int64_t> exponents(mantissas.size());
  for (size_t i = 0; i < mantissas.size(); ++i) {
    int e = 0;
    if (std::isfinite(mantissas[i])) mantissas[i] = std::frexp(mantissas[i], &e);
    exponents[i] = e;
    scales[i] = std::ldexp(1.0, -e);
  }
  const TensorOptions options = TensorOptions().dtype(self.dtype()).device(self.device());
  Tensor mantissa = from_vector<double>(mantissas, self.sizes()).to(options.dtype()).to(self.device());
  const Tensor exponent = from_vector<int64_t>(exponents, self.sizes()).to(kInt32).to(self.device());
  if (autograd::any_requires_grad({&self})) {
    const Tensor scale = from_vector<double>(scales, self.sizes()).to(options.dtype()).to(self.device());
    autograd::record("FrexpBackward0", mantissa, {self},
                     [scale](const Tensor& grad) -> tensor_list { return {grad * scale}; });
  }
  return {mantissa, exponent};
}

// self * 2^other, composed as PyTorch composes it (so integer inputs give the default float dtype).
Tensor ldexp(const Tensor& self, const Tensor& other) {
  EMBER_TRACE_OP();
  return self.mul(pow(2.0, other));
}
Tensor& ldexp_(Tensor& self, const Tensor& other) {
  return autograd::elementwise::inplace_unary(self, "ldexp_", [&](const Tensor& s) { return ldexp(s, other); });
}

// The next representable value after self towards other, in their promoted floating dtype; no
// gradient (PyTorch defines none).
Tensor nextafter(const Tensor& self, const Tensor& other) {
  EMBER_TRACE_OP();
  const ScalarType type = kernel::result_type(self, other);
  EMBER_CHECK(!is_reduced_floating_point(type), "nextafter: {} is not supported yet (float32 and float64 are)",
              dtype_name(type));
  EMBER_CHECK(is_floating_point(type), "\"nextafter_cpu\" not implemented for '{}'", scalar_type_name(type));
  const Device device = result_device(self, other, "nextafter");
  NoGradGuard no_grad;
  const tensor_list both = broadcast_tensors({self.detach().to(kCPU), other.detach().to(kCPU)});
  const std::vector<double> a = host_doubles(both[0].to(type)), b = host_doubles(both[1].to(type));
  std::vector<double> out(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    out[i] = type == kFloat64 ? std::nextafter(a[i], b[i])
                              : std::nextafter(static_cast<float>(a[i]), static_cast<float>(b[i]));
  }
  return from_vector<double>(out, both[0].sizes()).to(type).to(device);
}

// |self| with the sign bit of other (-0.0 and a NaN's sign included), in the promoted floating
// dtype. d/dself = copysign(self, other) / self (0 where self is 0); other gets a zero gradient.
Tensor copysign(const Tensor& self, const Tensor& other) {
  EMBER_TRACE_OP();
  ScalarType type = kernel::result_type(self, other);
  if (!is_floating_point(type)) type = get_default_dtype();
  const Device device = result_device(self, other, "copysign");
  Tensor out;
  {
    NoGradGuard no_grad;
    const tensor_list both = broadcast_tensors({self.detach().to(kCPU), other.detach().to(kCPU)});
    const std::vector<double> a = host_doubles(both[0].to(type)), b = host_doubles(both[1].to(type));
    std::vector<double> values(a.size());
    for (size_t i = 0; i < a.size(); ++i) values[i] = std::copysign(a[i], b[i]);
    out = from_vector<double>(values, both[0].sizes()).to(type).to(device);
  }
  if (autograd::any_requires_grad({&self, &other})) {
    autograd::record_fused("CopysignBackward0", out, {self, other}, {self, other}, autograd::SaveOutput::kNo,
                           {.composed = [](const Tensor& dout, const tensor_list& saved) -> tensor_list {
                             const Tensor& x = saved[0];
                             const Tensor ratio = where(x.eq(0), zeros_like(dout), copysign(x, saved[1]) / x);
                             return {dout * ratio, zeros_like(saved[1])};
                           }});
  }
  return out;
}

Tensor copysign(const Tensor& self, const Scalar& other) { return copysign(self, wrap(self, other)); }

}  // namespace ember
