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
#include "autograd/elementwise.h"
#include "autograd/fused.h"
#include "autograd/grad_mode.h"
#include "autograd/special.h"
#include "autograd/node.h"
#include "core/error.h"
#include "core/kernel.h"
#include "core/trace.h"

namespace ember {

namespace {

constexpr double kPi = std::numbers::pi;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

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

// The Hurwitz zeta function zeta(s, q) = sum_{k >= 0} (q + k)^-s for an integer order s >= 2, by
// Euler-Maclaurin summation: the first terms directly until q + k >= 9 (at least 9 of them), then
// the integral of the tail, half its first term and the Bernoulli corrections
// B_2j / (2j)! * s (s+1) ... (s+2j-2) / a^(s+2j-1). A pole at q = 0, -1, ... (and -inf) gives inf;
// q = +inf gives NaN, as PyTorch 1.13's zeta does.
double hurwitz_zeta(double s, double q) {
  if (std::isnan(q)) return kNaN;
  if (q == kInf) return kNaN;
  if (q <= 0 && q == std::floor(q)) return kInf;
  constexpr double kEpsilon = std::numeric_limits<double>::epsilon();
  // (2j)! / B_2j for j = 1 .. 12.
  static constexpr double kBernoulliDivisors[] = {12.0,
                                                  -720.0,
                                                  30240.0,
                                                  -1209600.0,
                                                  47900160.0,
                                                  -1.8924375803183791606e9,
                                                  7.47242496e10,
                                                  -2.950130727918164224e12,
                                                  1.1646782814350067249e14,
                                                  -4.5979787224074726105e15,
                                                  1.8152105401943546773e17,
                                                  -7.1661652561756670113e18};
  double sum = std::pow(q, -s);
  double a = q;
  double term = 0;
  for (int i = 0; i < 9 || a <= 9.0; ++i) {
    a += 1;
    term = std::pow(a, -s);
    sum += term;
    if (std::abs(term / sum) < kEpsilon) return sum;
  }
  sum += term * a / (s - 1) - 0.5 * term;
  double rising = 1;  // s (s+1) ... (s+2j-2)
  double k = 0;
  for (double divisor : kBernoulliDivisors) {
    rising *= s + k;
    term /= a;
    const double correction = rising * term / divisor;
    sum += correction;
    if (std::abs(correction / sum) < kEpsilon) break;
    k += 1;
    rising *= s + k;
    term /= a;
    k += 1;
  }
  return sum;
}

// psi^(n)(x) = (-1)^(n+1) n! zeta(n + 1, x) for n >= 2: zeta in double, n! as exp(lgamma(n + 1))
// and the product in T, as PyTorch computes them.
template <typename T>
T polygamma_scalar(int64_t n, T x) {
  if (n == 0) return digamma_scalar(x);
  if (n == 1) return trigamma_scalar(x);
  const T sign = n % 2 ? 1 : -1;
  const T factorial = std::exp(std::lgamma(static_cast<T>(n) + 1));
  return sign * factorial * static_cast<T>(hurwitz_zeta(static_cast<double>(n) + 1, static_cast<double>(x)));
}

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
  constexpr double kTwoOverSqrtPi = std::numbers::inv_sqrtpi * 2;
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

// ---- applying them to tensors ----

using autograd::elementwise::to_float;
using autograd::elementwise::wrap;

std::vector<double> host_doubles(const Tensor& t) {
  return t.detach().to(kCPU).to(kFloat64).contiguous().to_vector<double>();
}
std::vector<int64_t> host_longs(const Tensor& t) {
  return t.detach().to(kCPU).to(kInt64).contiguous().to_vector<int64_t>();
}

// f of each element of a floating x on the host (in double for float64, else in float), back in
// x's dtype and on x's device.
template <typename F>
Tensor map_values(const Tensor& x, F f) {
  std::vector<double> values = host_doubles(x);
  const bool in_double = x.dtype() == kFloat64;
  for (double& v : values) v = in_double ? f(v) : static_cast<double>(f(static_cast<float>(v)));
  return from_vector<double>(values, x.sizes()).to(x.dtype()).to(x.device());
}

// A unary special function of self (integers and bool as the default float dtype) with the
// backward dout * derivative(x), where derivative is composed of differentiable ops.
template <typename F>
Tensor special_unary(const char* node, const Tensor& self, F f, std::function<Tensor(const Tensor&)> derivative) {
  const Tensor x = to_float(self);
  Tensor y;
  {
    NoGradGuard no_grad;
    y = map_values(x, f);
  }
  if (autograd::any_requires_grad({&x})) {
    autograd::record_fused(
        node, y, {x}, {x}, autograd::SaveOutput::kNo,
        {.composed = [derivative = std::move(derivative)](const Tensor& dout, const tensor_list& saved) -> tensor_list {
          return {dout * derivative(saved[0])};
        }});
  }
  return y;
}

// The device of a binary op's result: the first operand's, unless it is a CPU scalar beside a
// tensor elsewhere (as PyTorch lets a 0-dim CPU tensor join a CUDA one).
Device result_device(const Tensor& a, const Tensor& b, const char* op) {
  if (a.device() == b.device()) return a.device();
  if (a.dim() == 0 && a.device().is_cpu()) return b.device();
  if (b.dim() == 0 && b.device().is_cpu()) return a.device();
  EMBER_FAIL("{}: Expected all tensors to be on the same device, but found at least two devices, {} and {}!", op,
             a.device().str(), b.device().str());
}

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

// ---- torch.special (autograd/special.h) ----

namespace special {

namespace {

constexpr double kSqrtHalf = 0.70710678118654752440;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;     // 1 / sqrt(2 pi)
constexpr double kSqrt2Pi = 2.50662827463100050242;        // sqrt(2 pi)
constexpr double kTwoOverSqrtPi = 1.12837916709551257390;  // 2 / sqrt(pi)

// exp(x^2) erfc(x). For x >= 26, erfc underflows and the asymptotic series
// 1 / (x sqrt(pi)) sum_k (-1)^k (2k - 1)!! / (2x^2)^k is used; its terms fall below 1e-17 within
// eight. Negative x: erfcx(x) = 2 exp(x^2) - erfcx(-x), which overflows to inf as PyTorch's does.
double erfcx_scalar(double x) {
  if (std::isnan(x)) return x;
  if (x < 0) return 2 * std::exp(x * x) - erfcx_scalar(-x);
  if (x < 26) return std::exp(x * x) * std::erfc(x);
  const double w = 1 / (2 * x * x);
  double term = 1, sum = 1;
  for (int k = 1; k <= 8; ++k) {
    term *= -(2 * k - 1) * w;
    sum += term;
  }
  return sum / (x * std::sqrt(kPi));
}

// PyTorch's calc_ndtr: 0.5 + 0.5 erf(x / sqrt 2) near 0, 0.5 erfc(|x| / sqrt 2) (or one minus it)
// further out, where erfc keeps the tail's relative precision.
template <typename T>
T ndtr_scalar(T x) {
  const T t = x * static_cast<T>(kSqrtHalf);
  const T z = std::fabs(t);
  if (z < static_cast<T>(kSqrtHalf)) return static_cast<T>(0.5) + static_cast<T>(0.5) * std::erf(t);
  const T y = static_cast<T>(0.5) * std::erfc(z);
  return t > 0 ? 1 - y : y;
}

// PyTorch's calc_log_ndtr: through erfcx below -1 (log ndtr(x) ~ -x^2 / 2 there), log1p beyond.
template <typename T>
T log_ndtr_scalar(T x) {
  const T t = x * static_cast<T>(kSqrtHalf);
  if (x < T(-1)) return std::log(static_cast<T>(erfcx_scalar(-t)) / 2) - t * t;
  return std::log1p(-std::erfc(t) / 2);
}

// ndtr's inverse. Below 1/2 (above, by the symmetry ndtri(p) = -ndtri(1 - p), where 1 - p is exact):
// a start from sqrt 2 erfinv(2p - 1), or in the far tail from Abramowitz and Stegun's 26.2.23
// (|error| < 4.5e-4), then Newton steps on log ndtr(x) = log p, whose log keeps the tail's relative
// precision (log_ndtr goes through erfcx there).
double ndtri_scalar(double p) {
  if (std::isnan(p) || p < 0 || p > 1) return kNaN;
  if (p == 0) return -kInf;
  if (p == 1) return kInf;
  if (p > 0.5) return -ndtri_scalar(1 - p);
  double x;
  if (p > 1e-3) {
    x = std::sqrt(2.0) * erfinv_scalar(2 * p - 1);
  } else {
    const double t = std::sqrt(-2 * std::log(p));
    x = -(t - (2.515517 + t * (0.802853 + t * 0.010328)) / (1 + t * (1.432788 + t * (0.189269 + t * 0.001308))));
  }
  const double log_p = std::log(p);
  for (int step = 0; step < 8; ++step) {
    const double log_cdf = log_ndtr_scalar(x);
    const double slope = kInvSqrt2Pi * std::exp(-0.5 * x * x - log_cdf);  // d/dx log ndtr(x)
    const double dx = (log_cdf - log_p) / slope;
    x -= dx;
    if (std::fabs(dx) <= 1e-15 * std::fabs(x)) break;
  }
  return x;
}

template <typename T>
T entr_scalar(T x) {
  if (std::isnan(x)) return x;
  if (x > 0) return -x * std::log(x);
  if (x == 0) return 0;
  return -std::numeric_limits<T>::infinity();
}

// exp(-|x|) I_nu(x) for nu = 0 or 1: the power series sum (x/2)^(2k + nu) / (k! (k + nu)!), whose
// terms are all positive (no cancellation), scaled term by term so that nothing overflows; beyond
// |x| = 40 the asymptotic series 1 / sqrt(2 pi |x|) sum_k (-1)^k prod_j (4 nu^2 - (2j - 1)^2) /
// (k! (8|x|)^k), whose terms there fall below 1e-17 before they start to grow.
double scaled_bessel_i(int nu, double x) {
  if (std::isnan(x)) return x;
  const double a = std::fabs(x);
  const double sign = (nu == 1 && x < 0) ? -1.0 : 1.0;
  if (a > 40) {
    double term = 1, sum = 1;
    for (int k = 1; k < 30; ++k) {
      const double odd = 2.0 * k - 1;
      term *= -(4.0 * nu * nu - odd * odd) / (k * 8 * a);
      if (std::fabs(term) < 1e-17 * std::fabs(sum)) break;
      sum += term;
    }
    return sign * sum / std::sqrt(2 * kPi * a);
  }
  const double q = 0.25 * a * a;
  double term = (nu == 0 ? 1.0 : 0.5 * a) * std::exp(-a);  // the k = 0 term, scaled
  double sum = term;
  for (int k = 1; k < 500; ++k) {
    term *= q / (static_cast<double>(k) * (k + nu));
    sum += term;
    if (term < 1e-17 * sum) break;
  }
  return sign * sum;
}

double bessel_i(int nu, double x) {
  const double scaled = scaled_bessel_i(nu, x);
  return std::fabs(x) > 700 ? (scaled == 0 ? 0 : std::copysign(kInf, scaled)) : scaled * std::exp(std::fabs(x));
}

// ---- the orthogonal polynomials, as PyTorch 1.13's recurrences (ATen/native/Math.h) ----

// The three-term recurrence the four Chebyshev kinds share: r_k = 2x r_{k-1} - r_{k-2} from
// r_0 = 1 and r_1 = first (x, 2x, 2x - 1 and 2x + 1 for T, U, V and W), up to r_n.
double chebyshev_recurrence(double x, double first, int64_t n) {
  if (n == 0) return 1;
  if (n == 1) return first;
  double p = 1, q = first, r = 0;
  for (int64_t k = 2; k <= n; ++k) {
    r = (x + x) * q - p;
    p = q;
    q = r;
  }
  return r;
}

double chebyshev_t(double x, int64_t n) {
  if (n < 0) return 0;
  if (std::fabs(x) == 1) return (x > 0 || n % 2 == 0) ? 1 : -1;
  if (n > 6 && std::fabs(x) < 1) return std::cos(static_cast<double>(n) * std::acos(x));
  return chebyshev_recurrence(x, x, n);
}

double chebyshev_u(double x, int64_t n) {
  if (n < 0) return 0;
  if (std::fabs(x) == 1) return (x > 0 || n % 2 == 0) ? static_cast<double>(n + 1) : -static_cast<double>(n + 1);
  if (n > 8 && std::fabs(x) < 1) {
    const double theta = std::acos(x);
    if (std::sin(theta) != 0) return std::sin(static_cast<double>(n + 1) * theta) / std::sin(theta);
    return static_cast<double>(n + 1) * std::cos(static_cast<double>(n + 1) * theta) * x;
  }
  return chebyshev_recurrence(x, x + x, n);
}

double chebyshev_v(double x, int64_t n) {
  if (n < 0) return 0;
  const double odd = static_cast<double>(n + n + 1);
  if (std::fabs(x) == 1) {
    if (x > 0) return 1;
    return n % 2 == 0 ? odd : -odd;
  }
  if (n > 8 && std::fabs(x) < 1) {
    const double theta = std::acos(x);
    if (std::sin(theta / 2) != 1) return std::cos((static_cast<double>(n) + 0.5) * theta) / std::cos(theta / 2);
    return n % 2 == 0 ? odd : -odd;
  }
  return chebyshev_recurrence(x, x + x - 1, n);
}

double chebyshev_w(double x, int64_t n) {
  if (n < 0) return 0;
  const double odd = static_cast<double>(n + n + 1);
  if (std::fabs(x) == 1) {
    if (x > 0) return odd;
    return n % 2 == 0 ? 1 : -1;
  }
  if (n > 8 && std::fabs(x) < 1) {
    const double theta = std::acos(x);
    if (std::cos(theta / 2) != 1) return std::sin((static_cast<double>(n) + 0.5) * theta) / std::sin(theta / 2);
    if (x > 0) return odd;
    return n % 2 == 0 ? 1 : -1;
  }
  return chebyshev_recurrence(x, x + x + 1, n);
}

double hermite_h(double x, int64_t n) {
  if (n < 0) return 0;
  if (n == 0) return 1;
  if (n == 1) return x + x;
  double p = 1, q = x + x, r = 0;
  for (int64_t k = 2; k < n + n; k += 2) {
    r = (x + x) * q - static_cast<double>(k) * p;
    p = q;
    q = r;
  }
  return r;
}

double hermite_he(double x, int64_t n) {
  if (n < 0) return 0;
  if (n == 0) return 1;
  if (n == 1) return x;
  double p = 1, q = x, r = 0;
  for (int64_t k = 1; k < n; ++k) {
    r = x * q - static_cast<double>(k) * p;
    p = q;
    q = r;
  }
  return r;
}

double laguerre_l(double x, int64_t n) {
  if (n < 0) return 0;
  if (std::fabs(x) == 0) return 1;
  if (n == 0) return 1;
  if (n == 1) return 1 - x;
  double p = 1, q = 1 - x, r = 0;
  for (int64_t k = 1; k < n; ++k) {
    const double kd = static_cast<double>(k);
    r = (((kd + kd) + (1 - x)) * q - kd * p) / (kd + 1);
    p = q;
    q = r;
  }
  return r;
}

double legendre_p(double x, int64_t n) {
  if (n < 0) return 0;
  if (std::fabs(x) == 1) return (x > 0 || n % 2 == 0) ? 1 : -1;
  if (n == 0) return 1;
  if (n == 1) return x;
  double p = 1, q = x, r = 0;
  for (int64_t k = 1; k < n; ++k) {
    const double kd = static_cast<double>(k);
    r = ((kd + kd + 1) * x * q - kd * p) / (kd + 1);
    p = q;
    q = r;
  }
  return r;
}

// The degree n as PyTorch's kernels take it, a C++ cast, with x86's answer (int64's minimum, so a
// value of 0) where that cast is undefined (NaN, infinities, beyond int64).
int64_t degree_of(double n) {
  return (n > -9.2e18 && n < 9.2e18) ? static_cast<int64_t>(n) : std::numeric_limits<int64_t>::min();
}

// The recurrences take n steps: a bound keeps a huge degree an error rather than a hang.
constexpr int64_t kMaxDegree = int64_t{1} << 24;

// f(x, n) over the broadcast x and n, in the floating dtype they promote to (integers and bool as
// the default one), n taken as an integer as PyTorch's kernels take it; no gradient.
Tensor polynomial(const char* name, const Tensor& x, const Tensor& n, double (*f)(double, int64_t)) {
  ScalarType type = kernel::result_type(x, n);
  if (!is_floating_point(type)) type = get_default_dtype();
  const Device device = result_device(x, n, name);
  NoGradGuard no_grad;
  const tensor_list both = broadcast_tensors({x.detach().to(kCPU), n.detach().to(kCPU)});
  const std::vector<double> xs = host_doubles(both[0].to(type)), ns = host_doubles(both[1].to(type));
  std::vector<double> out(xs.size());
  const bool in_double = type == kFloat64;
  for (double d : ns)
    EMBER_CHECK(degree_of(d) <= kMaxDegree, "{}: degree n = {} is above {}, the largest Ember evaluates", name, d,
                kMaxDegree);
  for (size_t i = 0; i < xs.size(); ++i) {
    const double v = f(xs[i], degree_of(ns[i]));
    out[i] = in_double ? v : static_cast<double>(static_cast<float>(v));
  }
  return from_vector<double>(out, both[0].sizes()).to(type).to(device);
}

}  // namespace

Tensor erfcx(const Tensor& self) {
  EMBER_TRACE_OP();
  return special_unary(
      "SpecialErfcxBackward0", self,
      [](auto x) { return static_cast<decltype(x)>(erfcx_scalar(static_cast<double>(x))); },
      [](const Tensor& x) { return x * erfcx(x) * 2 - kTwoOverSqrtPi; });
}

Tensor ndtr(const Tensor& self) {
  EMBER_TRACE_OP();
  return special_unary(
      "SpecialNdtrBackward0", self, [](auto x) { return ndtr_scalar(x); },
      [](const Tensor& x) { return (x.square() * -0.5).exp() * kInvSqrt2Pi; });
}

Tensor log_ndtr(const Tensor& self) {
  EMBER_TRACE_OP();
  return special_unary(
      "SpecialLogNdtrBackward0", self, [](auto x) { return log_ndtr_scalar(x); },
      [](const Tensor& x) { return (x.square() * -0.5 - log_ndtr(x)).exp() * kInvSqrt2Pi; });
}

Tensor ndtri(const Tensor& self) {
  EMBER_TRACE_OP();
  return special_unary(
      "SpecialNdtriBackward0", self,
      [](auto p) { return static_cast<decltype(p)>(ndtri_scalar(static_cast<double>(p))); },
      [](const Tensor& p) { return (ndtri(p).square() * 0.5).exp() * kSqrt2Pi; });
}

Tensor entr(const Tensor& self) {
  EMBER_TRACE_OP();
  return special_unary(
      "SpecialEntrBackward0", self, [](auto x) { return entr_scalar(x); },
      [](const Tensor& x) { return -(x.log() + 1); });
}

// x log1p(y) composed, with 0 where x == 0 and log1p(y) is not finite (y <= -1 or y == inf), so
// that elsewhere the gradients are PyTorch's: log1p(y) for x (also at x == 0) and x / (1 + y) for y.
Tensor xlog1py(const Tensor& self, const Tensor& other) {
  EMBER_TRACE_OP();
  const Tensor x = to_float(self), y = to_float(other);
  const Tensor log1p_y = y.log1p();
  const Tensor value = x * log1p_y;
  const Tensor zero = x.eq(0).logical_and(log1p_y.isinf().logical_or(y.lt(-1)));
  return ember::where(zero, autograd::elementwise::wrap(value, 0.0), value);
}
Tensor xlog1py(const Scalar& self, const Tensor& other) {
  return xlog1py(autograd::elementwise::wrap(other, self), other);
}
Tensor xlog1py(const Tensor& self, const Scalar& other) {
  return xlog1py(self, autograd::elementwise::wrap(self, other));
}
Tensor xlogy(const Scalar& self, const Tensor& other) { return autograd::elementwise::wrap(other, self).xlogy(other); }

// d/dx i0 = i1; d/dx i1 = i0 - i1 / x (1/2 at 0); the scaled ones carry the factor's derivative.
Tensor i0(const Tensor& self) {
  EMBER_TRACE_OP();
  return special_unary(
      "I0Backward0", self, [](auto x) { return static_cast<decltype(x)>(bessel_i(0, static_cast<double>(x))); },
      [](const Tensor& x) { return i1(x); });
}
Tensor i1(const Tensor& self) {
  EMBER_TRACE_OP();
  return special_unary(
      "SpecialI1Backward0", self,
      [](auto x) { return static_cast<decltype(x)>(bessel_i(1, static_cast<double>(x))); },
      [](const Tensor& x) {
        const Tensor ratio = ember::where(x.eq(0), autograd::elementwise::wrap(x, 0.5), i1(x) / x);
        return i0(x) - ratio;
      });
}
Tensor i0e(const Tensor& self) {
  EMBER_TRACE_OP();
  return special_unary(
      "SpecialI0eBackward0", self,
      [](auto x) { return static_cast<decltype(x)>(scaled_bessel_i(0, static_cast<double>(x))); },
      [](const Tensor& x) { return i1e(x) - x.sign() * i0e(x); });
}
Tensor i1e(const Tensor& self) {
  EMBER_TRACE_OP();
  return special_unary(
      "SpecialI1eBackward0", self,
      [](auto x) { return static_cast<decltype(x)>(scaled_bessel_i(1, static_cast<double>(x))); },
      [](const Tensor& x) {
        const Tensor ratio = ember::where(x.eq(0), autograd::elementwise::wrap(x, 0.5), i1e(x) / x);
        return i0e(x) - i1e(x) * x.sign() - ratio;
      });
}

#define EMBER_SPECIAL_POLYNOMIAL(name, f)                                                               \
  Tensor name(const Tensor& x, const Tensor& n) {                                                       \
    EMBER_TRACE_OP();                                                                                   \
    return polynomial(#name, x, n, f);                                                                  \
  }                                                                                                     \
  Tensor name(const Scalar& x, const Tensor& n) { return name(autograd::elementwise::wrap(n, x), n); } \
  Tensor name(const Tensor& x, const Scalar& n) { return name(x, autograd::elementwise::wrap(x, n)); }
EMBER_SPECIAL_POLYNOMIAL(chebyshev_polynomial_t, chebyshev_t)
EMBER_SPECIAL_POLYNOMIAL(chebyshev_polynomial_u, chebyshev_u)
EMBER_SPECIAL_POLYNOMIAL(chebyshev_polynomial_v, chebyshev_v)
EMBER_SPECIAL_POLYNOMIAL(chebyshev_polynomial_w, chebyshev_w)
EMBER_SPECIAL_POLYNOMIAL(shifted_chebyshev_polynomial_t, [](double x, int64_t n) { return chebyshev_t(x + x - 1, n); })
EMBER_SPECIAL_POLYNOMIAL(shifted_chebyshev_polynomial_u, [](double x, int64_t n) { return chebyshev_u(x + x - 1, n); })
EMBER_SPECIAL_POLYNOMIAL(shifted_chebyshev_polynomial_v, [](double x, int64_t n) { return chebyshev_v(x + x - 1, n); })
EMBER_SPECIAL_POLYNOMIAL(shifted_chebyshev_polynomial_w, [](double x, int64_t n) { return chebyshev_w(x + x - 1, n); })
EMBER_SPECIAL_POLYNOMIAL(hermite_polynomial_h, hermite_h)
EMBER_SPECIAL_POLYNOMIAL(hermite_polynomial_he, hermite_he)
EMBER_SPECIAL_POLYNOMIAL(laguerre_polynomial_l, laguerre_l)
EMBER_SPECIAL_POLYNOMIAL(legendre_polynomial_p, legendre_p)
#undef EMBER_SPECIAL_POLYNOMIAL

}  // namespace special

}  // namespace ember
