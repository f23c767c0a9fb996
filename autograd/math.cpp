// Elementwise math beyond elementwise.cpp's arithmetic: trigonometric and hyperbolic functions,
// exponentials and logarithms in other bases, rounding, division with a rounding mode, and the
// two-input functions (atan2, hypot, logaddexp, xlogy, lerp, addcmul, addcdiv), each beside its
// derivative. Kernels are core/functors.h's; the ops marked "composed" are built from other ops,
// whose backward formulas then give the gradient.
#include <cmath>
#include <limits>
#include <string_view>
#include <utility>

#include "autograd/autocast.h"
#include "autograd/autograd.h"
#include "autograd/elementwise.h"
#include "core/kernel.h"
#include "core/trace.h"

namespace ember {

using autograd::any_requires_grad;
using autograd::record;
using autograd::SavedVariable;
using autograd::sum_to;
using autograd::elementwise::inplace_unary;
using autograd::elementwise::to_float;
using autograd::elementwise::unary_op;
using autograd::elementwise::wrap;

namespace {

constexpr double kLn2 = 0.6931471805599453;
constexpr double kLn10 = 2.302585092994046;
constexpr double kPi = 3.141592653589793;

// The two inputs of a binary op in the dtype they promote to, or in the default float dtype when
// that is an integer type (atan2 of two int64 tensors is float32, as in PyTorch).
std::pair<Tensor, Tensor> floating_pair(const Tensor& a, const Tensor& b) {
  if (is_floating_point(kernel::result_type(a, b))) return {a, b};
  return {to_float(a), to_float(b)};
}

// A floating binary op and its backward: grads(g, a, b) gives the two input gradients before they
// are summed back to the inputs' shapes. (Formulas that need the output recompute it from a and b,
// so that they stay differentiable for create_graph.)
using BinaryGrads = std::pair<Tensor, Tensor> (*)(const Tensor& g, const Tensor& a, const Tensor& b);
Tensor binary_op(BinaryOp op, const char* node, const Tensor& a, const Tensor& b, BinaryGrads grads) {
  Tensor y = kernel::binary(op, a, b);
  if (any_requires_grad({&a, &b})) {
    record(node, y, {a, b},
           [sa = SavedVariable(a, false), sb = SavedVariable(b, false), as = a.sizes().vec(), bs = b.sizes().vec(),
            node, grads](const Tensor& g) -> tensor_list {
             auto [ga, gb] = grads(g, sa.unpack(node), sb.unpack(node));
             return {sum_to(ga, as), sum_to(gb, bs)};
           });
  }
  return y;
}

// Refuses integer and bool inputs of the ops PyTorch defines for floating types only.
void check_floating(const char* op, const Tensor& a, const Tensor& b) {
  const ScalarType type = kernel::result_type(a, b);
  EMBER_CHECK(is_floating_point(type), "{}: not implemented for '{}' (shapes {} and {})", op, scalar_type_name(type),
              a.sizes(), b.sizes());
}

// floor, ceil, round, trunc: integers are whole already (a copy); the derivative is 0 almost everywhere.
Tensor rounded(const Tensor& x, UnaryOp op, const char* name, const char* node) {
  EMBER_CHECK(x.dtype() != kBool, "{}: not implemented for 'Bool' (input of shape {})", name, x.sizes());
  if (!x.is_floating_point()) return x.clone();
  Tensor y = kernel::unary(op, x);
  if (any_requires_grad({&x})) record(node, y, {x}, [](const Tensor& g) -> tensor_list { return {zeros_like(g)}; });
  return y;
}

// a / b rounded toward -inf ("floor") or toward 0 ("trunc"); integers stay integers. No gradient
// flows through the rounding (PyTorch's derivative is 0).
Tensor div_rounded(const Tensor& a, const Tensor& b, std::string_view mode) {
  const bool floor = mode == "floor";
  EMBER_CHECK(floor || mode == "trunc",
              "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{}'", mode);
  const ScalarType type = kernel::result_type(a, b);
  EMBER_CHECK(type != kBool, "div: rounding_mode='{}' is not implemented for 'Bool' (shapes {} and {})", mode,
              a.sizes(), b.sizes());
  autograd::elementwise::check_integer_divisor("div", a, b);
  Tensor y = kernel::binary(floor ? BinaryOp::DivFloor : BinaryOp::DivTrunc, a, b);
  if (any_requires_grad({&a, &b})) {
    record("DivBackward3", y, {a, b}, [as = a.sizes().vec(), bs = b.sizes().vec()](const Tensor& g) -> tensor_list {
      return {zeros(as, g.options()), zeros(bs, g.options())};
    });
  }
  return y;
}

// The largest finite value of a floating dtype, for nan_to_num's defaults.
double largest_finite(ScalarType type) {
  if (type == kFloat64) return std::numeric_limits<double>::max();
  if (type == kBFloat16) return 3.3895313892515355e38;  // (2 - 2^-7) 2^127
  if (type == kFloat16) return 65504.0;                 // (2 - 2^-10) 2^15
  return std::numeric_limits<float>::max();
}

}  // namespace

// ---- trigonometric and hyperbolic ----

// d tan = 1 + tan^2
Tensor Tensor::tan() const {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::tan, {*this}}) return cast[0].tan();
  return unary_op(
      UnaryOp::Tan, "TanBackward0", *this, [](const Tensor&, const Tensor& y) { return y * y + 1; }, true);
}
// d asin = 1 / sqrt(1 - x^2)
Tensor Tensor::asin() const {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::asin, {*this}}) return cast[0].asin();
  return unary_op(
      UnaryOp::Asin, "AsinBackward0", *this, [](const Tensor& x, const Tensor&) { return (1 - x * x).rsqrt(); }, false);
}
// d acos = -1 / sqrt(1 - x^2)
Tensor Tensor::acos() const {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::acos, {*this}}) return cast[0].acos();
  return unary_op(
      UnaryOp::Acos, "AcosBackward0", *this, [](const Tensor& x, const Tensor&) { return -(1 - x * x).rsqrt(); },
      false);
}
// d atan = 1 / (1 + x^2)
Tensor Tensor::atan() const {
  EMBER_TRACE_OP();
  return unary_op(
      UnaryOp::Atan, "AtanBackward0", *this, [](const Tensor& x, const Tensor&) { return (x * x + 1).reciprocal(); },
      false);
}
// d sinh = cosh
Tensor Tensor::sinh() const {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::sinh, {*this}}) return cast[0].sinh();
  return unary_op(
      UnaryOp::Sinh, "SinhBackward0", *this, [](const Tensor& x, const Tensor&) { return x.cosh(); }, false);
}
// d cosh = sinh
Tensor Tensor::cosh() const {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::cosh, {*this}}) return cast[0].cosh();
  return unary_op(
      UnaryOp::Cosh, "CoshBackward0", *this, [](const Tensor& x, const Tensor&) { return x.sinh(); }, false);
}
// d asinh = 1 / sqrt(x^2 + 1)
Tensor Tensor::asinh() const {
  EMBER_TRACE_OP();
  return unary_op(
      UnaryOp::Asinh, "AsinhBackward0", *this, [](const Tensor& x, const Tensor&) { return (x * x + 1).rsqrt(); },
      false);
}
// d acosh = 1 / sqrt(x^2 - 1)
Tensor Tensor::acosh() const {
  EMBER_TRACE_OP();
  return unary_op(
      UnaryOp::Acosh, "AcoshBackward0", *this, [](const Tensor& x, const Tensor&) { return (x * x - 1).rsqrt(); },
      false);
}
// d atanh = 1 / (1 - x^2)
Tensor Tensor::atanh() const {
  EMBER_TRACE_OP();
  return unary_op(
      UnaryOp::Atanh, "AtanhBackward0", *this, [](const Tensor& x, const Tensor&) { return (1 - x * x).reciprocal(); },
      false);
}
// sin(pi x) / (pi x), 1 at 0. d = (pi x cos(pi x) - sin(pi x)) / (pi x^2), 0 at 0 (written out: the
// composed form's 0/0 at x = 0 would be NaN).
Tensor Tensor::sinc() const {
  EMBER_TRACE_OP();
  const Tensor x = to_float(*this);
  Tensor y;
  {
    NoGradGuard no_grad;
    const Tensor px = x * kPi;
    y = ember::where(x.eq(0), wrap(x, 1.0), px.sin() / px);
  }
  if (any_requires_grad({&x})) {
    record("SincBackward0", y, {x}, [sx = SavedVariable(x, false)](const Tensor& g) -> tensor_list {
      const Tensor x = sx.unpack("SincBackward0"), px = x * kPi;
      return {(g * ((px * px.cos() - px.sin()) / (px * x))).masked_fill(x.eq(0), 0)};
    });
  }
  return y;
}
// composed: x pi / 180 and x 180 / pi
Tensor Tensor::deg2rad() const {
  EMBER_TRACE_OP();
  return to_float(*this) * (kPi / 180);
}
Tensor Tensor::rad2deg() const {
  EMBER_TRACE_OP();
  return to_float(*this) * (180 / kPi);
}

// ---- exponentials and logarithms ----

// d expm1 = e^x = expm1(x) + 1
Tensor Tensor::expm1() const {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::expm1, {*this}}) return cast[0].expm1();
  return unary_op(
      UnaryOp::Expm1, "Expm1Backward0", *this, [](const Tensor&, const Tensor& y) { return y + 1; }, true);
}
// d 2^x = 2^x ln 2
Tensor Tensor::exp2() const {
  EMBER_TRACE_OP();
  return unary_op(
      UnaryOp::Exp2, "Exp2Backward0", *this, [](const Tensor&, const Tensor& y) { return y * kLn2; }, true);
}
// d log2 = 1 / (x ln 2)
Tensor Tensor::log2() const {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::log2, {*this}}) return cast[0].log2();
  return unary_op(
      UnaryOp::Log2, "Log2Backward0", *this, [](const Tensor& x, const Tensor&) { return (x * kLn2).reciprocal(); },
      false);
}
// d log10 = 1 / (x ln 10)
Tensor Tensor::log10() const {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::log10, {*this}}) return cast[0].log10();
  return unary_op(
      UnaryOp::Log10, "Log10Backward0", *this, [](const Tensor& x, const Tensor&) { return (x * kLn10).reciprocal(); },
      false);
}
// composed: log(z / (1 - z)), z = x clamped to [eps, 1 - eps] when eps is given (the clamp's
// gradient is 0 outside it, as PyTorch's logit_backward).
Tensor Tensor::logit(std::optional<double> eps) const {
  EMBER_TRACE_OP();
  Tensor z = to_float(*this);
  if (eps) z = z.clamp(*eps, 1 - *eps);
  return (z / (1 - z)).log();
}
// composed: NaN, +inf and -inf replaced; the gradient passes where x is finite.
Tensor Tensor::nan_to_num(std::optional<double> nan, std::optional<double> posinf, std::optional<double> neginf) const {
  EMBER_TRACE_OP();
  if (!is_floating_point()) return clone();
  const double big = largest_finite(dtype());
  Tensor y = ember::where(eq(INFINITY), wrap(*this, posinf.value_or(big)), *this);
  y = ember::where(eq(-INFINITY), wrap(*this, neginf.value_or(-big)), y);
  return ember::where(isnan(), wrap(*this, nan.value_or(0.0)), y);
}

// ---- rounding ----

Tensor Tensor::floor() const {
  EMBER_TRACE_OP();
  return rounded(*this, UnaryOp::Floor, "floor", "FloorBackward0");
}
Tensor Tensor::ceil() const {
  EMBER_TRACE_OP();
  return rounded(*this, UnaryOp::Ceil, "ceil", "CeilBackward0");
}
Tensor Tensor::trunc() const {
  EMBER_TRACE_OP();
  return rounded(*this, UnaryOp::Trunc, "trunc", "TruncBackward0");
}
Tensor Tensor::round() const {
  EMBER_TRACE_OP();
  return rounded(*this, UnaryOp::Round, "round", "RoundBackward0");
}
// composed, as PyTorch's kernel: round(x 10^d) / 10^d, or round(x / 10^-d) 10^-d for d < 0, with the
// power rounded to the dtype first.
Tensor Tensor::round(int64_t decimals) const {
  EMBER_TRACE_OP();
  if (decimals == 0) return round();
  EMBER_CHECK(is_floating_point(), "round: decimals={} is not implemented for '{}' (input of shape {})", decimals,
              scalar_type_name(dtype()), sizes());
  const Tensor power = wrap(*this, std::pow(10.0, static_cast<double>(decimals < 0 ? -decimals : decimals)));
  return decimals > 0 ? (*this * power).round() / power : (*this / power).round() * power;
}
// composed: x - trunc(x), so d frac = 1
Tensor Tensor::frac() const {
  EMBER_TRACE_OP();
  EMBER_CHECK(is_floating_point(), "frac: not implemented for '{}' (input of shape {})", scalar_type_name(dtype()),
              sizes());
  return *this - trunc();
}

// ---- division with a rounding mode ----

Tensor Tensor::div(const Tensor& other, std::optional<std::string_view> rounding_mode) const {
  EMBER_TRACE_OP();
  return rounding_mode ? div_rounded(*this, other, *rounding_mode) : div(other);
}
Tensor Tensor::div(const Scalar& other, std::optional<std::string_view> rounding_mode) const {
  EMBER_TRACE_OP();
  return rounding_mode ? div_rounded(*this, wrap(*this, other), *rounding_mode) : div(other);
}
Tensor Tensor::floor_divide(const Tensor& other) const { return div(other, "floor"); }
Tensor Tensor::floor_divide(const Scalar& other) const { return div(other, "floor"); }

// ---- two inputs ----

// d atan2(a, b) = (b, -a) / (a^2 + b^2)
Tensor Tensor::atan2(const Tensor& other) const {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::atan2, {*this, other}}) return cast[0].atan2(cast[1]);
  const auto [a, b] = floating_pair(*this, other);
  return binary_op(BinaryOp::Atan2, "Atan2Backward0", a, b,
                   [](const Tensor& g, const Tensor& a, const Tensor& b) -> std::pair<Tensor, Tensor> {
                     const Tensor r = (a * a + b * b).reciprocal();
                     return {g * b * r, g * -a * r};
                   });
}
// d hypot(a, b) = (a, b) / hypot(a, b)
Tensor Tensor::hypot(const Tensor& other) const {
  EMBER_TRACE_OP();
  check_floating("hypot", *this, other);
  return binary_op(BinaryOp::Hypot, "HypotBackward0", *this, other,
                   [](const Tensor& g, const Tensor& a, const Tensor& b) -> std::pair<Tensor, Tensor> {
                     const Tensor y = a.hypot(b);
                     return {g * a / y, g * b / y};
                   });
}
// d log(e^a + e^b) = (1 / (1 + e^(b - a)), 1 / (1 + e^(a - b)))
Tensor Tensor::logaddexp(const Tensor& other) const {
  EMBER_TRACE_OP();
  check_floating("logaddexp", *this, other);
  return binary_op(BinaryOp::LogAddExp, "LogaddexpBackward0", *this, other,
                   [](const Tensor& g, const Tensor& a, const Tensor& b) -> std::pair<Tensor, Tensor> {
                     return {g / ((b - a).exp() + 1), g / ((a - b).exp() + 1)};
                   });
}
// d log2(2^a + 2^b) = (1 / (1 + 2^(b - a)), 1 / (1 + 2^(a - b)))
Tensor Tensor::logaddexp2(const Tensor& other) const {
  EMBER_TRACE_OP();
  check_floating("logaddexp2", *this, other);
  return binary_op(BinaryOp::LogAddExp2, "Logaddexp2Backward0", *this, other,
                   [](const Tensor& g, const Tensor& a, const Tensor& b) -> std::pair<Tensor, Tensor> {
                     return {g / ((b - a).exp2() + 1), g / ((a - b).exp2() + 1)};
                   });
}
// composed: x log(y), 0 where x == 0 (even where y is 0, negative or inf), NaN where y is NaN. Only
// those x == 0 whose log y is not finite are masked (elsewhere x log y is 0 already), so the
// gradients at x == 0 are PyTorch's: log y for x, 0 for y.
Tensor Tensor::xlogy(const Tensor& other) const {
  EMBER_TRACE_OP();
  const auto [x, y] = floating_pair(*this, other);
  const Tensor log_y = y.log();
  const Tensor value = x * log_y;
  const Tensor zero = x.eq(0).logical_and(log_y.isinf().logical_or(y.lt(0)));
  return ember::where(zero, wrap(value, 0.0), value);
}
Tensor Tensor::xlogy(const Scalar& other) const { return xlogy(wrap(*this, other)); }
// composed: pow in float64
Tensor Tensor::float_power(const Tensor& exponent) const {
  EMBER_TRACE_OP();
  return to(kFloat64).pow(exponent.to(kFloat64));
}
Tensor Tensor::float_power(const Scalar& exponent) const {
  EMBER_TRACE_OP();
  return to(kFloat64).pow(Scalar(exponent.toDouble()));
}

// composed, as PyTorch's kernel: self + w (end - self) for |w| < 0.5, else end - (end - self)(1 - w),
// so that w = 1 gives end exactly.
namespace {
void check_lerp(const Tensor& self, const Tensor& end) {
  EMBER_CHECK(self.is_floating_point(), "lerp: not implemented for '{}'", scalar_type_name(self.dtype()));
  EMBER_CHECK(self.dtype() == end.dtype(), "lerp: expected dtype {} for `end` but got dtype {}",
              dtype_name(self.dtype()), dtype_name(end.dtype()));
}
}  // namespace
Tensor Tensor::lerp(const Tensor& end, const Scalar& weight) const {
  EMBER_TRACE_OP();
  check_lerp(*this, end);
  const Tensor w = wrap(*this, weight).to(dtype());
  return std::abs(weight.toDouble()) < 0.5 ? *this + w * (end - *this) : end - (end - *this) * (1 - w);
}
Tensor Tensor::lerp(const Tensor& end, const Tensor& weight) const {
  EMBER_TRACE_OP();
  check_lerp(*this, end);
  EMBER_CHECK(weight.dtype() == dtype(), "lerp: expected dtype {} for `weight` but got dtype {}", dtype_name(dtype()),
              dtype_name(weight.dtype()));
  const Tensor diff = end - *this;
  return ember::where(weight.abs().lt(0.5), *this + weight * diff, end - diff * (1 - weight));
}
// composed: self + value t1 t2 and self + value t1 / t2, multiplied in that order as PyTorch's kernels.
Tensor Tensor::addcmul(const Tensor& tensor1, const Tensor& tensor2, const Scalar& value) const {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::addcmul, {*this, tensor1, tensor2}})
    return cast[0].addcmul(cast[1], cast[2], value);
  return *this + tensor1 * value * tensor2;
}
Tensor Tensor::addcdiv(const Tensor& tensor1, const Tensor& tensor2, const Scalar& value) const {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::addcdiv, {*this, tensor1, tensor2}})
    return cast[0].addcdiv(cast[1], cast[2], value);
  EMBER_CHECK(tensor1.is_floating_point() || tensor2.is_floating_point(),
              "addcdiv: Integer division with addcdiv is no longer supported, and in a future release addcdiv will "
              "perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as "
              "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + "
              "value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter "
              "implementation: (input + value * tensor1 / tensor2), for all dtypes.");
  return *this + tensor1 * value / tensor2;
}

// ---- in place: the value out of place, committed into self (autograd/elementwise.h) ----

#define EMBER_INPLACE_UNARY(name)                                                     \
  Tensor& Tensor::name##_() {                                                         \
    EMBER_TRACE_OP();                                                                 \
    return inplace_unary(*this, #name "_", [](const Tensor& s) { return s.name(); }); \
  }
EMBER_INPLACE_UNARY(abs)
EMBER_INPLACE_UNARY(sign)
EMBER_INPLACE_UNARY(square)
EMBER_INPLACE_UNARY(reciprocal)
EMBER_INPLACE_UNARY(log)
EMBER_INPLACE_UNARY(log1p)
EMBER_INPLACE_UNARY(rsqrt)
EMBER_INPLACE_UNARY(erf)
EMBER_INPLACE_UNARY(erfc)
EMBER_INPLACE_UNARY(sin)
EMBER_INPLACE_UNARY(cos)
EMBER_INPLACE_UNARY(sigmoid)
EMBER_INPLACE_UNARY(tan)
EMBER_INPLACE_UNARY(asin)
EMBER_INPLACE_UNARY(acos)
EMBER_INPLACE_UNARY(atan)
EMBER_INPLACE_UNARY(sinh)
EMBER_INPLACE_UNARY(cosh)
EMBER_INPLACE_UNARY(asinh)
EMBER_INPLACE_UNARY(acosh)
EMBER_INPLACE_UNARY(atanh)
EMBER_INPLACE_UNARY(expm1)
EMBER_INPLACE_UNARY(exp2)
EMBER_INPLACE_UNARY(log2)
EMBER_INPLACE_UNARY(log10)
EMBER_INPLACE_UNARY(sinc)
EMBER_INPLACE_UNARY(deg2rad)
EMBER_INPLACE_UNARY(rad2deg)
EMBER_INPLACE_UNARY(floor)
EMBER_INPLACE_UNARY(ceil)
EMBER_INPLACE_UNARY(trunc)
EMBER_INPLACE_UNARY(round)
EMBER_INPLACE_UNARY(frac)
#undef EMBER_INPLACE_UNARY

// The in-place forms with arguments: f(self) = self.op(args...).
#define EMBER_INPLACE_WITH(name, params, args)                                            \
  Tensor& Tensor::name##_ params {                                                        \
    EMBER_TRACE_OP();                                                                     \
    return inplace_unary(*this, #name "_", [&](const Tensor& s) { return s.name args; }); \
  }
EMBER_INPLACE_WITH(round, (int64_t decimals), (decimals))
EMBER_INPLACE_WITH(logit, (std::optional<double> eps), (eps))
EMBER_INPLACE_WITH(nan_to_num, (std::optional<double> nan, std::optional<double> posinf, std::optional<double> neginf),
                   (nan, posinf, neginf))
EMBER_INPLACE_WITH(div, (const Tensor& other, std::optional<std::string_view> rounding_mode), (other, rounding_mode))
EMBER_INPLACE_WITH(div, (const Scalar& other, std::optional<std::string_view> rounding_mode), (other, rounding_mode))
EMBER_INPLACE_WITH(floor_divide, (const Tensor& other), (other))
EMBER_INPLACE_WITH(floor_divide, (const Scalar& other), (other))
EMBER_INPLACE_WITH(atan2, (const Tensor& other), (other))
EMBER_INPLACE_WITH(hypot, (const Tensor& other), (other))
EMBER_INPLACE_WITH(xlogy, (const Tensor& other), (other))
EMBER_INPLACE_WITH(xlogy, (const Scalar& other), (other))
EMBER_INPLACE_WITH(lerp, (const Tensor& end, const Scalar& weight), (end, weight))
EMBER_INPLACE_WITH(lerp, (const Tensor& end, const Tensor& weight), (end, weight))
EMBER_INPLACE_WITH(addcmul, (const Tensor& tensor1, const Tensor& tensor2, const Scalar& value),
                   (tensor1, tensor2, value))
EMBER_INPLACE_WITH(addcdiv, (const Tensor& tensor1, const Tensor& tensor2, const Scalar& value),
                   (tensor1, tensor2, value))
#undef EMBER_INPLACE_WITH

// float_power's result is float64, which only a float64 tensor can hold.
Tensor& Tensor::float_power_(const Tensor& exponent) {
  EMBER_TRACE_OP();
  EMBER_CHECK(dtype() == kFloat64,
              "float_power_: the base given to float_power_ has dtype {} but the operation's result requires dtype "
              "Double",
              scalar_type_name(dtype()));
  return inplace_unary(*this, "float_power_", [&](const Tensor& s) { return s.float_power(exponent); });
}
Tensor& Tensor::float_power_(const Scalar& exponent) { return float_power_(wrap(*this, exponent)); }

}  // namespace ember
