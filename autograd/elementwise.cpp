// Elementwise ops and their backward formulas, side by side.
//
// Forward: core/kernel.h (promotion, broadcasting, the backend's functor loops). Backward: Ember's
// own ops, so the same code runs on every device and is itself differentiable (create_graph).
// Gradients of broadcast inputs are summed back to the input's shape with sum_to.
// In-place forms compute the value out of place and commit it into self (autograd/inplace.cpp).
#include "autograd/elementwise.h"

#include <cmath>

#include "autograd/autocast.h"
#include "autograd/autograd.h"
#include "autograd/fused.h"
#include "core/kernel.h"
#include "core/trace.h"

namespace ember {

using autograd::any_requires_grad;
using autograd::record;
using autograd::record_fused;
using autograd::SavedVariable;
using autograd::SaveOutput;
using autograd::sum_to;

using autograd::elementwise::inplace_unary;
using autograd::elementwise::to_float;
using autograd::elementwise::unary_op;
using autograd::elementwise::wrap;

namespace autograd::elementwise {
Tensor unary_op(UnaryOp op, const char* name, const Tensor& x_in, LocalDerivative local, bool saves_output) {
  Tensor x = to_float(x_in);
  Tensor y = kernel::unary(op, x);
  if (any_requires_grad({&x})) {
    record_fused(name, y, {x}, saves_output ? tensor_list{} : tensor_list{x},
                 saves_output ? SaveOutput::kYes : SaveOutput::kNo,
                 {.composed = [local = std::move(local), saves_output](const Tensor& dout,
                                                                       const tensor_list& saved) -> tensor_list {
                   return {saves_output ? dout * local(Tensor(), saved[0]) : dout * local(saved[0], Tensor())};
                 }});
  }
  return y;
}

void check_integer_divisor(const char* op, const Tensor& a, const Tensor& b) {
  if (is_floating_point(kernel::result_type(a, b))) return;
  NoGradGuard no_grad;
  EMBER_CHECK(!b.eq(0).any().item<bool>(), "ZeroDivisionError: {}: integer division by zero (divisor shape {})", op,
              b.sizes());
}

Tensor& inplace_unary(Tensor& self, const char* name, const std::function<Tensor(const Tensor&)>& f) {
  check_inplace(self, name);
  kernel::check_no_overlap(name, self);
  const Tensor result = f(any_requires_grad({&self}) ? self.clone() : self.detach());
  EMBER_CHECK(dtype_category(result.dtype()) <= dtype_category(self.dtype()),
              "{}: result type {} can't be cast to the desired output type {}", name, scalar_type_name(result.dtype()),
              scalar_type_name(self.dtype()));
  commit_inplace(self, result);
  return self;
}
}  // namespace autograd::elementwise

// ---- unary ----

Tensor Tensor::neg() const {
  EMBER_TRACE_OP();
  EMBER_CHECK(dtype() != kBool,
              "neg: Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a "
              "mask, use the `~` or `logical_not()` operator instead (input of shape {})",
              sizes());
  Tensor y = kernel::unary(UnaryOp::Neg, *this);
  if (any_requires_grad({this}))
    record("NegBackward0", y, {*this}, [](const Tensor& g) -> tensor_list { return {-g}; });
  return y;
}

// d/dx exp(x) = exp(x)
Tensor Tensor::exp() const {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::exp, {*this}}) return cast[0].exp();
  return unary_op(
      UnaryOp::Exp, "ExpBackward0", *this, [](const Tensor&, const Tensor& y) { return y; }, true);
}
// d/dx log(x) = 1/x
Tensor Tensor::log() const {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::log, {*this}}) return cast[0].log();
  return unary_op(
      UnaryOp::Log, "LogBackward0", *this, [](const Tensor& x, const Tensor&) { return x.reciprocal(); }, false);
}
// d/dx log1p(x) = 1/(1+x)
Tensor Tensor::log1p() const {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::log1p, {*this}}) return cast[0].log1p();
  return unary_op(
      UnaryOp::Log1p, "Log1PBackward0", *this, [](const Tensor& x, const Tensor&) { return (x + 1).reciprocal(); },
      false);
}
// d/dx sqrt(x) = 1/(2 sqrt(x))
Tensor Tensor::sqrt() const {
  EMBER_TRACE_OP();
  return unary_op(
      UnaryOp::Sqrt, "SqrtBackward0", *this, [](const Tensor&, const Tensor& y) { return (y * 2).reciprocal(); }, true);
}
// d/dx x^-1/2 = -1/2 x^-3/2 = -y^3 / 2
Tensor Tensor::rsqrt() const {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::rsqrt, {*this}}) return cast[0].rsqrt();
  return unary_op(
      UnaryOp::Rsqrt, "RsqrtBackward0", *this, [](const Tensor&, const Tensor& y) { return y.pow(3) * -0.5; }, true);
}
// d/dx |x| = sign(x)
Tensor Tensor::abs() const {
  EMBER_TRACE_OP();
  Tensor y = kernel::unary(UnaryOp::Abs, *this);
  if (any_requires_grad({this}))
    record("AbsBackward0", y, {*this}, [x = SavedVariable(*this, false)](const Tensor& g) -> tensor_list {
      return {g * x.unpack("AbsBackward0").sign()};
    });
  return y;
}
// d/dx sign(x) = 0
Tensor Tensor::sign() const {
  EMBER_TRACE_OP();
  Tensor y = kernel::unary(UnaryOp::Sign, *this);
  if (any_requires_grad({this}))
    record("SignBackward0", y, {*this}, [](const Tensor& g) -> tensor_list { return {zeros_like(g)}; });
  return y;
}
// d/dx x^2 = 2x
Tensor Tensor::square() const { return pow(2); }
// d/dx 1/x = -1/x^2 = -y^2
Tensor Tensor::reciprocal() const {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::reciprocal, {*this}}) return cast[0].reciprocal();
  return unary_op(
      UnaryOp::Reciprocal, "ReciprocalBackward0", *this, [](const Tensor&, const Tensor& y) { return -(y * y); }, true);
}
// d/dx erf(x) = 2/sqrt(pi) exp(-x^2)
Tensor Tensor::erf() const {
  EMBER_TRACE_OP();
  return unary_op(
      UnaryOp::Erf, "ErfBackward0", *this,
      [](const Tensor& x, const Tensor&) { return (-x.square()).exp() * kTwoOverSqrtPi; }, false);
}
// d/dx erfc(x) = -2/sqrt(pi) exp(-x^2)
Tensor Tensor::erfc() const {
  EMBER_TRACE_OP();
  return unary_op(
      UnaryOp::Erfc, "ErfcBackward0", *this,
      [](const Tensor& x, const Tensor&) { return (-x.square()).exp() * -kTwoOverSqrtPi; }, false);
}
// d/dx sin(x) = cos(x)
Tensor Tensor::sin() const {
  EMBER_TRACE_OP();
  return unary_op(
      UnaryOp::Sin, "SinBackward0", *this, [](const Tensor& x, const Tensor&) { return x.cos(); }, false);
}
// d/dx cos(x) = -sin(x)
Tensor Tensor::cos() const {
  EMBER_TRACE_OP();
  return unary_op(
      UnaryOp::Cos, "CosBackward0", *this, [](const Tensor& x, const Tensor&) { return -x.sin(); }, false);
}
// d/dx tanh(x) = 1 - tanh(x)^2
Tensor Tensor::tanh() const {
  EMBER_TRACE_OP();
  return unary_op(
      UnaryOp::Tanh, "TanhBackward0", *this, [](const Tensor&, const Tensor& y) { return 1 - y * y; }, true);
}
// d/dx sigmoid(x) = s (1 - s)
Tensor Tensor::sigmoid() const {
  EMBER_TRACE_OP();
  return unary_op(
      UnaryOp::Sigmoid, "SigmoidBackward0", *this, [](const Tensor&, const Tensor& y) { return y * (1 - y); }, true);
}
// d/dx relu(x) = [x > 0]
Tensor Tensor::relu() const {
  EMBER_TRACE_OP();
  Tensor y = kernel::unary(UnaryOp::Relu, *this);
  if (any_requires_grad({this}))
    record_fused("ReluBackward0", y, {*this}, {}, SaveOutput::kYes,
                 {.composed = [](const Tensor& g, const tensor_list& saved) -> tensor_list {
                   return {g * saved[0].gt(0).to(g.dtype())};
                 }});
  return y;
}
// exact:  d/dx x Phi(x) = Phi(x) + x phi(x)
// tanh:   d/dx 0.5 x (1 + tanh(u)), u = k (x + c x^3): 0.5 (1 + t) + 0.5 x (1 - t^2) k (1 + 3 c x^2)
Tensor Tensor::gelu(const std::string& approximate) const {
  EMBER_TRACE_OP();
  EMBER_CHECK(approximate == "none" || approximate == "tanh", "gelu: approximate must be 'none' or 'tanh', got '{}'",
              approximate);
  const bool use_tanh = approximate == "tanh";
  Tensor x = to_float(*this);
  return autograd::apply_fused(
      {.name = "GeluBackward0",
       .inputs = {x},
       .saved = {x},
       .forward = {.fused = [&]() -> std::optional<tensor_list> {
         return tensor_list{kernel::unary(use_tanh ? UnaryOp::GeluTanh : UnaryOp::Gelu, x)};
       }},
       .backward = {.composed = [use_tanh](const Tensor& g, const tensor_list& saved) -> tensor_list {
                      const Tensor& x = saved[0];
                      if (use_tanh) {
                        Tensor t = ((x + x.pow(3) * kGeluTanhCubic) * kGeluTanhScale).tanh();
                        Tensor du = (x.square() * (3 * kGeluTanhCubic) + 1) * kGeluTanhScale;
                        return {g * ((t + 1) * 0.5 + x * 0.5 * (1 - t * t) * du)};
                      }
                      Tensor cdf = ((x * kSqrtHalf).erf() + 1) * 0.5;
                      Tensor pdf = (x.square() * -0.5).exp() * kInvSqrt2Pi;
                      return {g * (cdf + x * pdf)};
                    },
                    // one pass: the functor of core/functors.h
                    .fused = [use_tanh](const Tensor& g, const tensor_list& saved) -> std::optional<tensor_list> {
                      return tensor_list{
                          kernel::binary(use_tanh ? BinaryOp::GeluTanhBackward : BinaryOp::GeluBackward, g, saved[0])};
                    }}});
}

// ---- binary ----

namespace {
// add's and sub's alpha, checked against the result's dtype as PyTorch's alpha_check does.
void check_alpha(const char* op, ScalarType result, const Scalar& alpha) {
  EMBER_CHECK(!alpha.isBool() || result == kBool,
              "{}: Boolean alpha only supported for Boolean results (alpha {}, result dtype {})", op, alpha.toDouble(),
              dtype_name(result));
  EMBER_CHECK(is_floating_point(result) || alpha.isIntegral(/*include_bool=*/true),
              "{}: For integral input tensors, argument alpha must not be a floating point number (alpha {}, "
              "result dtype {})",
              op, alpha.toDouble(), dtype_name(result));
}
// alpha * other in the result's dtype, as PyTorch's kernels compute a + alpha * b: a float64 result
// does not round the product to float32 first, and bools stay bools.
Tensor times_alpha(const Tensor& other, ScalarType result, const Scalar& alpha) {
  if (alpha.toDouble() == 1.0) return other;
  if (result == kBool) return alpha.toBool() ? other : zeros_like(other);
  return (other.dtype() == result ? other : other.to(result)) * alpha;
}
}  // namespace

// d(a+αb) = (g, αg), each summed back to its input's shape
Tensor Tensor::add(const Tensor& other, const Scalar& alpha) const {
  EMBER_TRACE_OP();
  const ScalarType result = kernel::result_type(*this, other);
  check_alpha("add", result, alpha);
  Tensor b = times_alpha(other, result, alpha);
  Tensor y = kernel::binary(BinaryOp::Add, *this, b);
  if (any_requires_grad({this, &b})) {
    record("AddBackward0", y, {*this, b}, [as = sizes().vec(), bs = b.sizes().vec()](const Tensor& g) -> tensor_list {
      return {sum_to(g, as), sum_to(g, bs)};
    });
  }
  return y;
}
namespace {
// other * alpha as a Scalar that keeps its kind: integers stay integral, so int64 + 1 stays int64 (PyTorch).
Scalar scaled(const Scalar& other, const Scalar& alpha) {
  if (!other.isFloatingPoint() && !alpha.isFloatingPoint() && !(other.isBool() && alpha.isBool()))
    return Scalar(other.toLong() * alpha.toLong());
  return Scalar(other.toDouble() * alpha.toDouble());
}
}  // namespace

Tensor Tensor::add(const Scalar& other, const Scalar& alpha) const {
  EMBER_TRACE_OP();
  check_alpha("add", kernel::result_type(*this, other), alpha);
  return add(wrap(*this, scaled(other, alpha)), 1);
}

Tensor Tensor::sub(const Tensor& other, const Scalar& alpha) const {
  EMBER_TRACE_OP();
  EMBER_CHECK(dtype() != kBool || other.dtype() != kBool,
              "sub: Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
              "`logical_xor()` operator instead (shapes {} and {})",
              sizes(), other.sizes());
  EMBER_CHECK(dtype() != kBool && other.dtype() != kBool,
              "sub: Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a "
              "mask, use the `~` or `logical_not()` operator instead (shapes {} {} and {} {})",
              sizes(), dtype_name(dtype()), other.sizes(), dtype_name(other.dtype()));
  const ScalarType result = kernel::result_type(*this, other);
  check_alpha("sub", result, alpha);
  Tensor b = times_alpha(other, result, alpha);
  Tensor y = kernel::binary(BinaryOp::Sub, *this, b);
  if (any_requires_grad({this, &b})) {
    record("SubBackward0", y, {*this, b}, [as = sizes().vec(), bs = b.sizes().vec()](const Tensor& g) -> tensor_list {
      return {sum_to(g, as), sum_to(-g, bs)};
    });
  }
  return y;
}
Tensor Tensor::sub(const Scalar& other, const Scalar& alpha) const {
  EMBER_TRACE_OP();
  check_alpha("sub", kernel::result_type(*this, other), alpha);
  return sub(wrap(*this, scaled(other, alpha)), 1);
}

// d(ab) = (g b, g a)
Tensor Tensor::mul(const Tensor& other) const {
  EMBER_TRACE_OP();
  Tensor y = kernel::binary(BinaryOp::Mul, *this, other);
  if (any_requires_grad({this, &other})) {
    const bool need_a = requires_grad(), need_b = other.requires_grad();
    record("MulBackward0", y, {*this, other},
           [a = SavedVariable(need_b ? *this : Tensor(), false), b = SavedVariable(need_a ? other : Tensor(), false),
            as = sizes().vec(), bs = other.sizes().vec(), need_a, need_b](const Tensor& g) -> tensor_list {
             return {need_a ? sum_to(g * b.unpack("MulBackward0"), as) : Tensor(),
                     need_b ? sum_to(g * a.unpack("MulBackward0"), bs) : Tensor()};
           });
  }
  return y;
}
Tensor Tensor::mul(const Scalar& other) const { return mul(wrap(*this, other)); }

// d(a/b) = (g / b, -g a / b^2)
Tensor Tensor::div(const Tensor& other) const {
  EMBER_TRACE_OP();
  const Tensor a =
      (is_floating_point() || other.is_floating_point()) ? *this : kernel::cast(*this, get_default_dtype());
  Tensor y = kernel::binary(BinaryOp::Div, a, other);
  if (any_requires_grad({&a, &other})) {
    const bool need_b = other.requires_grad();
    record("DivBackward0", y, {a, other},
           [sa = SavedVariable(need_b ? a : Tensor(), false), sb = SavedVariable(other, false), as = a.sizes().vec(),
            bs = other.sizes().vec(), need_b](const Tensor& g) -> tensor_list {
             Tensor b = sb.unpack("DivBackward0");
             return {sum_to(g / b, as), need_b ? sum_to(-g * sa.unpack("DivBackward0") / (b * b), bs) : Tensor()};
           });
  }
  return y;
}
Tensor Tensor::div(const Scalar& other) const { return div(wrap(*this, other)); }

// d(a^b) = (g b a^(b-1), g a^b log(a))
Tensor Tensor::pow(const Tensor& exponent) const {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::pow, {*this, exponent}}) return cast[0].pow(cast[1]);
  Tensor y = kernel::binary(BinaryOp::Pow, *this, exponent);
  if (any_requires_grad({this, &exponent})) {
    const bool need_b = exponent.requires_grad();
    record("PowBackward1", y, {*this, exponent},
           [sa = SavedVariable(*this, false), sb = SavedVariable(exponent, false), as = sizes().vec(),
            bs = exponent.sizes().vec(), need_b](const Tensor& g) -> tensor_list {
             Tensor a = sa.unpack("PowBackward1"), b = sb.unpack("PowBackward1");
             Tensor da = sum_to(g * b * a.pow(b - 1), as);
             // Where a == 0 the log term is taken as 0 (as PyTorch does for b >= 0).
             Tensor db = need_b ? sum_to(g * a.pow(b) * a.log().masked_fill(a.eq(0), 0), bs) : Tensor();
             return {da, db};
           });
  }
  return y;
}
// d(a^p) = g p a^(p-1)
Tensor Tensor::pow(const Scalar& exponent) const {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::pow, {*this}}) return cast[0].pow(exponent);
  EMBER_CHECK(is_floating_point() || exponent.is_floating_point() || exponent.toLong() >= 0,
              "pow: Integers to negative integer powers are not allowed (a {} tensor to the power {})",
              dtype_name(dtype()), exponent.toLong());
  Tensor x = exponent.is_floating_point() ? to_float(*this) : *this;
  Tensor y = kernel::binary(BinaryOp::Pow, x, wrap(x, exponent));
  if (any_requires_grad({&x})) {
    record("PowBackward0", y, {x}, [sx = SavedVariable(x, false), exponent](const Tensor& g) -> tensor_list {
      const double p = exponent.toDouble();
      if (p == 0.0) return {zeros_like(g)};
      return {g * sx.unpack("PowBackward0").pow(p - 1) * p};
    });
  }
  return y;
}

// base ** exponent with a number as the base: the base becomes a 0-dim tensor of the promoted dtype.
Tensor pow(const Scalar& base, const Tensor& exponent) { return wrap(exponent, base).pow(exponent); }

// remainder(a, b) = a - floor(a / b) b and fmod(a, b) = a - trunc(a / b) b, so
// d/da = 1 and d/db = -floor(a / b) (remainder) or -trunc(a / b) (fmod).
static Tensor remainder_fmod(const Tensor& a, const Tensor& b, bool is_remainder) {
  const char* op = is_remainder ? "remainder" : "fmod";
  EMBER_CHECK(a.dtype() != kBool || b.dtype() != kBool, "{}: not implemented for 'Bool'", op);
  autograd::elementwise::check_integer_divisor(op, a, b);
  Tensor y = kernel::binary(is_remainder ? BinaryOp::Remainder : BinaryOp::Fmod, a, b);
  if (any_requires_grad({&a, &b})) {
    const bool need_b = b.requires_grad();
    record(is_remainder ? "RemainderBackward0" : "FmodBackward0", y, {a, b},
           [sa = SavedVariable(need_b ? a : Tensor(), false), sb = SavedVariable(need_b ? b : Tensor(), false),
            as = a.sizes().vec(), bs = b.sizes().vec(), need_b, is_remainder](const Tensor& g) -> tensor_list {
             if (!need_b) return {sum_to(g, as), Tensor()};
             // floor(q) = q - remainder(q, 1) and trunc(q) = q - fmod(q, 1), both exact in floating point.
             Tensor q = sa.unpack() / sb.unpack();
             Tensor whole = is_remainder ? q - q.remainder(1) : q - q.fmod(1);
             return {sum_to(g, as), sum_to(-g * whole, bs)};
           });
  }
  return y;
}
Tensor Tensor::remainder(const Tensor& other) const { return remainder_fmod(*this, other, true); }
Tensor Tensor::remainder(const Scalar& other) const { return remainder_fmod(*this, wrap(*this, other), true); }
Tensor Tensor::fmod(const Tensor& other) const { return remainder_fmod(*this, other, false); }
Tensor Tensor::fmod(const Scalar& other) const { return remainder_fmod(*this, wrap(*this, other), false); }

// Gradient goes to the larger input; on ties it is split evenly, as in PyTorch.
static Tensor max_min(const Tensor& a, const Tensor& b, bool is_max) {
  Tensor y = kernel::binary(is_max ? BinaryOp::Maximum : BinaryOp::Minimum, a, b);
  if (any_requires_grad({&a, &b})) {
    record(is_max ? "MaximumBackward0" : "MinimumBackward0", y, {a, b},
           [sa = SavedVariable(a, false), sb = SavedVariable(b, false), is_max](const Tensor& g) -> tensor_list {
             Tensor x = sa.unpack(), z = sb.unpack();
             Tensor wins = (is_max ? x.gt(z) : x.lt(z)).to(g.dtype());
             Tensor ties = x.eq(z).to(g.dtype()) * 0.5;
             Tensor wa = wins + ties, wb = 1 - wins - ties;
             return {sum_to(g * wa, x.sizes()), sum_to(g * wb, z.sizes())};
           });
  }
  return y;
}
Tensor Tensor::maximum(const Tensor& other) const { return max_min(*this, other, true); }
Tensor Tensor::minimum(const Tensor& other) const { return max_min(*this, other, false); }

// d clamp(x) = g where min <= x <= max, else 0
// ---- floating-point classes: bool results, no gradient ----

Tensor Tensor::isnan() const {
  EMBER_TRACE_OP();
  NoGradGuard no_grad;
  return is_floating_point() ? ne(*this) : zeros(sizes(), TensorOptions().dtype(kBool).device(device()));
}
Tensor Tensor::isinf() const {
  EMBER_TRACE_OP();
  NoGradGuard no_grad;
  return is_floating_point() ? abs().eq(INFINITY) : zeros(sizes(), TensorOptions().dtype(kBool).device(device()));
}
Tensor Tensor::isfinite() const {
  EMBER_TRACE_OP();
  NoGradGuard no_grad;  // |x| < inf is false for NaN too
  return is_floating_point() ? abs().lt(INFINITY) : ones(sizes(), TensorOptions().dtype(kBool).device(device()));
}

bool Tensor::is_nonzero() const {
  EMBER_CHECK(numel() != 0, "is_nonzero: Boolean value of Tensor with no values is ambiguous");
  EMBER_CHECK(numel() == 1, "is_nonzero: Boolean value of Tensor with more than one value is ambiguous (shape {})",
              sizes());
  const Scalar v = item();
  return dtype() == kBool ? v.toBool() : v.toDouble() != 0;  // NaN is non-zero
}

Tensor Tensor::clamp(std::optional<Scalar> min, std::optional<Scalar> max) const {
  EMBER_TRACE_OP();
  EMBER_CHECK(min || max, "clamp: at least one of 'min' or 'max' must not be None");
  Tensor y = *this;
  {
    NoGradGuard no_grad;
    if (min) y = kernel::binary(BinaryOp::Maximum, y, wrap(y, *min));
    if (max) y = kernel::binary(BinaryOp::Minimum, y, wrap(y, *max));
    if (y.is_same(*this)) y = kernel::clone(y);
  }
  if (any_requires_grad({this})) {
    record("ClampBackward1", y, {*this}, [sx = SavedVariable(*this, false), min, max](const Tensor& g) -> tensor_list {
      Tensor x = sx.unpack("ClampBackward1");
      Tensor keep = full_like(x, true, TensorOptions(kBool));
      if (min) keep = keep.logical_and(x.ge(*min));
      if (max) keep = keep.logical_and(x.le(*max));
      return {g * keep.to(g.dtype())};
    });
  }
  return y;
}

// ---- comparisons and logic: no gradient ----

#define EMBER_COMPARE(name, Op)                                                                         \
  Tensor Tensor::name(const Tensor& other) const { return kernel::binary(BinaryOp::Op, *this, other); } \
  Tensor Tensor::name(const Scalar& other) const { return kernel::binary(BinaryOp::Op, *this, wrap(*this, other)); }
EMBER_COMPARE(eq, Eq)
EMBER_COMPARE(ne, Ne)
EMBER_COMPARE(lt, Lt)
EMBER_COMPARE(le, Le)
EMBER_COMPARE(gt, Gt)
EMBER_COMPARE(ge, Ge)
#undef EMBER_COMPARE

Tensor Tensor::logical_and(const Tensor& other) const { return kernel::binary(BinaryOp::LogicalAnd, *this, other); }
Tensor Tensor::logical_or(const Tensor& other) const { return kernel::binary(BinaryOp::LogicalOr, *this, other); }
Tensor Tensor::logical_xor(const Tensor& other) const { return kernel::binary(BinaryOp::LogicalXor, *this, other); }
Tensor Tensor::logical_not() const {
  EMBER_TRACE_OP();
  return kernel::binary(BinaryOp::Eq, kernel::cast(*this, kBool), wrap(*this, false));
}

// ---- selection ----

// d where(c, a, b) = (g where c, g where !c)
Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b) {
  EMBER_TRACE_OP();
  Tensor y = kernel::where(condition, a, b);
  if (any_requires_grad({&a, &b})) {
    record("WhereBackward0", y, {a, b},
           [c = condition, as = a.sizes().vec(), bs = b.sizes().vec()](const Tensor& g) -> tensor_list {
             Tensor zero = zeros_like(g);
             return {sum_to(where(c, g, zero), as), sum_to(where(c, zero, g), bs)};
           });
  }
  return y;
}
Tensor Tensor::where(const Tensor& condition, const Tensor& other) const {
  EMBER_TRACE_OP();
  return ember::where(condition, *this, other);
}

// d masked_fill(x, mask, value) / dx = g where the mask is false, 0 where it is true
Tensor Tensor::masked_fill(const Tensor& mask, const Scalar& value) const {
  EMBER_TRACE_OP();
  EMBER_CHECK(mask.dtype() == kBool, "masked_fill: expected a bool mask, got {}", dtype_name(mask.dtype()));
  Tensor y = kernel::where(mask, kernel::scalar(value, dtype(), device()), *this);
  if (any_requires_grad({this}))
    record("MaskedFillBackward0", y, {*this},
           [mask, xs = sizes().vec()](const Tensor& g) -> tensor_list { return {sum_to(g.masked_fill(mask, 0), xs)}; });
  return y;
}

// ---- in place ----

namespace {
// self op= other. With autograd, the value is computed out of place from a clone of self (its
// backward may need the old value) and committed into self (autograd/inplace.cpp).
Tensor& inplace_binary(Tensor& self, BinaryOp op, const char* name, const Tensor& other,
                       std::function<Tensor(const Tensor& self_val)> make_out_of_place) {
  autograd::check_inplace(self, name);
  kernel::check_no_overlap(name, self, {other});
  if (!any_requires_grad({&self, &other})) {
    kernel::binary_(op, self, other);
    return self;
  }
  autograd::commit_inplace(self, make_out_of_place(self.clone()));
  return self;
}
}  // namespace

#define EMBER_INPLACE(name, Op, Node)                                                                             \
  Tensor& Tensor::name##_(const Tensor& other) {                                                                  \
    return inplace_binary(*this, BinaryOp::Op, #name "_", other, [&](const Tensor& s) { return s.name(other); }); \
  }                                                                                                               \
  Tensor& Tensor::name##_(const Scalar& other) { return name##_(wrap(*this, other).to(dtype())); }
EMBER_INPLACE(mul, Mul, MulBackward0)
#undef EMBER_INPLACE

// div is true division: its result is floating point, which an integer tensor cannot hold.
Tensor& Tensor::div_(const Tensor& other) {
  EMBER_TRACE_OP();
  const ScalarType result = kernel::result_type(*this, other);
  EMBER_CHECK(is_floating_point(), "div_: result type {} can't be cast to the desired output type {}",
              dtype_name(ember::is_floating_point(result) ? result : get_default_dtype()), dtype_name(dtype()));
  return inplace_binary(*this, BinaryOp::Div, "div_", other, [&](const Tensor& s) { return s.div(other); });
}
Tensor& Tensor::div_(const Scalar& other) { return div_(wrap(*this, other).to(dtype())); }

Tensor& Tensor::add_(const Tensor& other, const Scalar& alpha) {
  EMBER_TRACE_OP();
  const ScalarType common = kernel::result_type(*this, other);
  check_alpha("add_", common, alpha);
  Tensor b = times_alpha(other, common, alpha);
  return inplace_binary(*this, BinaryOp::Add, "add_", b, [&](const Tensor& s) { return s.add(b); });
}
Tensor& Tensor::add_(const Scalar& other, const Scalar& alpha) {
  EMBER_TRACE_OP();
  check_alpha("add_", dtype(), alpha);
  return add_(wrap(*this, other.toDouble() * alpha.toDouble()).to(dtype()));
}
Tensor& Tensor::sub_(const Tensor& other, const Scalar& alpha) {
  EMBER_TRACE_OP();
  const ScalarType common = kernel::result_type(*this, other);
  check_alpha("sub_", common, alpha);
  Tensor b = times_alpha(other, common, alpha);
  return inplace_binary(*this, BinaryOp::Sub, "sub_", b, [&](const Tensor& s) { return s.sub(b); });
}
Tensor& Tensor::sub_(const Scalar& other, const Scalar& alpha) {
  EMBER_TRACE_OP();
  check_alpha("sub_", dtype(), alpha);
  return sub_(wrap(*this, other.toDouble() * alpha.toDouble()).to(dtype()));
}

Tensor& Tensor::pow_(const Scalar& e) {
  EMBER_TRACE_OP();
  return inplace_unary(*this, "pow_", [&](const Tensor& s) { return s.pow(e); });
}
Tensor& Tensor::neg_() {
  EMBER_TRACE_OP();
  return inplace_unary(*this, "neg_", [](const Tensor& s) { return s.neg(); });
}
Tensor& Tensor::exp_() {
  EMBER_TRACE_OP();
  return inplace_unary(*this, "exp_", [](const Tensor& s) { return s.exp(); });
}
Tensor& Tensor::sqrt_() {
  EMBER_TRACE_OP();
  return inplace_unary(*this, "sqrt_", [](const Tensor& s) { return s.sqrt(); });
}
Tensor& Tensor::tanh_() {
  EMBER_TRACE_OP();
  return inplace_unary(*this, "tanh_", [](const Tensor& s) { return s.tanh(); });
}
Tensor& Tensor::relu_() {
  EMBER_TRACE_OP();
  return inplace_unary(*this, "relu_", [](const Tensor& s) { return s.relu(); });
}
Tensor& Tensor::clamp_(std::optional<Scalar> min, std::optional<Scalar> max) {
  EMBER_TRACE_OP();
  return inplace_unary(*this, "clamp_", [&](const Tensor& s) { return s.clamp(min, max); });
}
Tensor& Tensor::masked_fill_(const Tensor& mask, const Scalar& value) {
  EMBER_TRACE_OP();
  return inplace_unary(*this, "masked_fill_", [&](const Tensor& s) { return s.masked_fill(mask, value); });
}

// ---- operators ----

Tensor operator+(const Tensor& a, const Tensor& b) { return a.add(b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return a.sub(b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return a.mul(b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return a.div(b); }
Tensor operator+(const Tensor& a, const Scalar& b) { return a.add(b); }
Tensor operator-(const Tensor& a, const Scalar& b) { return a.sub(b); }
Tensor operator*(const Tensor& a, const Scalar& b) { return a.mul(b); }
Tensor operator/(const Tensor& a, const Scalar& b) { return a.div(b); }
Tensor operator+(const Scalar& a, const Tensor& b) { return b.add(a); }
Tensor operator-(const Scalar& a, const Tensor& b) { return wrap(b, a).sub(b); }
Tensor operator*(const Scalar& a, const Tensor& b) { return b.mul(a); }
Tensor operator/(const Scalar& a, const Tensor& b) { return wrap(b, a).div(b); }
Tensor operator%(const Tensor& a, const Tensor& b) { return a.remainder(b); }
Tensor operator%(const Tensor& a, const Scalar& b) { return a.remainder(b); }
Tensor operator-(const Tensor& a) { return a.neg(); }
Tensor operator==(const Tensor& a, const Tensor& b) { return a.eq(b); }
Tensor operator!=(const Tensor& a, const Tensor& b) { return a.ne(b); }
Tensor operator<(const Tensor& a, const Tensor& b) { return a.lt(b); }
Tensor operator<=(const Tensor& a, const Tensor& b) { return a.le(b); }
Tensor operator>(const Tensor& a, const Tensor& b) { return a.gt(b); }
Tensor operator>=(const Tensor& a, const Tensor& b) { return a.ge(b); }
Tensor operator==(const Tensor& a, const Scalar& b) { return a.eq(b); }
Tensor operator!=(const Tensor& a, const Scalar& b) { return a.ne(b); }
Tensor operator<(const Tensor& a, const Scalar& b) { return a.lt(b); }
Tensor operator<=(const Tensor& a, const Scalar& b) { return a.le(b); }
Tensor operator>(const Tensor& a, const Scalar& b) { return a.gt(b); }
Tensor operator>=(const Tensor& a, const Scalar& b) { return a.ge(b); }
Tensor operator&&(const Tensor& a, const Tensor& b) { return a.logical_and(b); }
Tensor operator||(const Tensor& a, const Tensor& b) { return a.logical_or(b); }
Tensor operator!(const Tensor& a) { return a.logical_not(); }
Tensor& operator+=(Tensor& a, const Tensor& b) { return a.add_(b); }
Tensor& operator-=(Tensor& a, const Tensor& b) { return a.sub_(b); }
Tensor& operator*=(Tensor& a, const Tensor& b) { return a.mul_(b); }
Tensor& operator/=(Tensor& a, const Tensor& b) { return a.div_(b); }
Tensor& operator+=(Tensor& a, const Scalar& b) { return a.add_(b); }
Tensor& operator-=(Tensor& a, const Scalar& b) { return a.sub_(b); }
Tensor& operator*=(Tensor& a, const Scalar& b) { return a.mul_(b); }
Tensor& operator/=(Tensor& a, const Scalar& b) { return a.div_(b); }

Tensor exp(const Tensor& x) { return x.exp(); }
Tensor log(const Tensor& x) { return x.log(); }
Tensor sqrt(const Tensor& x) { return x.sqrt(); }
Tensor tanh(const Tensor& x) { return x.tanh(); }
Tensor sigmoid(const Tensor& x) { return x.sigmoid(); }
Tensor relu(const Tensor& x) { return x.relu(); }
Tensor abs(const Tensor& x) { return x.abs(); }
Tensor maximum(const Tensor& a, const Tensor& b) { return a.maximum(b); }
Tensor minimum(const Tensor& a, const Tensor& b) { return a.minimum(b); }

}  // namespace ember
