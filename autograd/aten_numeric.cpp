// ATen's numeric free functions (autograd/aten_functions.h): NaN-aware extremes and other elementwise
// functions, numerical integration, covariance, the Vandermonde matrix, and sequences and signal
// windows. Composed from Ember's ops in the order PyTorch 1.13 composes them (Integration.cpp,
// Correlation.cpp, TensorFactories.cpp), so results round as PyTorch's do and gradients come from
// those ops.
#include <cmath>
#include <numbers>
#include <vector>

#include "autograd/aten_functions.h"
#include "autograd/autocast.h"
#include "autograd/grad_mode.h"
#include "core/error.h"
#include "core/shape.h"
#include "core/trace.h"

namespace ember {

namespace {

// y without dim, zeros: the integral over no samples.
Tensor zeros_without(const Tensor& y, int64_t dim) {
  std::vector<int64_t> sizes = y.sizes().vec();
  sizes.erase(sizes.begin() + dim);
  return zeros(sizes, y.options());
}

// The spacing between x's samples along dim, x shaped to broadcast with y (a 1-d x lies along dim).
Tensor spacing(const Tensor& y, const Tensor& x, int64_t dim, const char* op) {
  Tensor xv = x;
  if (x.dim() == 1) {
    EMBER_CHECK(x.size(0) == y.size(dim), "{}: There must be one `x` value for each sample point", op);
    std::vector<int64_t> sizes(static_cast<size_t>(y.dim()), 1);
    sizes[static_cast<size_t>(dim)] = x.size(0);
    xv = x.view(sizes);
  } else if (x.dim() < y.dim()) {
    std::vector<int64_t> sizes(static_cast<size_t>(y.dim() - x.dim()), 1);
    for (int64_t s : x.sizes()) sizes.push_back(s);
    xv = x.view(sizes);
  }
  const int64_t n = xv.size(dim);
  return xv.narrow(dim, 1, n - 1) - xv.narrow(dim, 0, n - 1);
}

void check_not_bool(const Tensor& y, const char* op) {
  EMBER_CHECK(y.dtype() != kBool, "{}: received a bool input for `y`, but bool is not supported", op);
}

}  // namespace

// ---- elementwise ----

// The gradient goes to self where it is chosen (ties included), as PyTorch's fmax/fmin backward.
Tensor fmax(const Tensor& self, const Tensor& other) {
  EMBER_TRACE_OP();
  return where(self.ge(other).logical_or(other.isnan()), self, other);
}

Tensor fmin(const Tensor& self, const Tensor& other) {
  EMBER_TRACE_OP();
  return where(self.le(other).logical_or(other.isnan()), self, other);
}

Tensor heaviside(const Tensor& self, const Tensor& values) {
  EMBER_TRACE_OP();
  EMBER_CHECK(self.dtype() == values.dtype(), "heaviside is not yet implemented for tensors with different dtypes.");
  NoGradGuard no_grad;  // PyTorch defines no derivative for it
  return where(self.eq(0), values, self.gt(0).to(self.dtype()));
}

Tensor isposinf(const Tensor& self) {
  EMBER_TRACE_OP();
  if (!self.is_floating_point()) return zeros(self.sizes(), TensorOptions().dtype(kBool).device(self.device()));
  return self.isinf().logical_and(self.gt(0));
}

Tensor isneginf(const Tensor& self) {
  EMBER_TRACE_OP();
  if (!self.is_floating_point()) return zeros(self.sizes(), TensorOptions().dtype(kBool).device(self.device()));
  return self.isinf().logical_and(self.lt(0));
}

Tensor positive(const Tensor& self) {
  EMBER_CHECK(self.dtype() != kBool, "The `+` operator, on a bool tensor is not supported.");
  return self;
}

Tensor rsub(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  EMBER_TRACE_OP();
  return other.sub(self, alpha);
}

// -(alpha * self) + other rounds as other - alpha * self does (negation is exact).
Tensor rsub(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  EMBER_TRACE_OP();
  EMBER_CHECK(self.dtype() != kBool,
              "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, "
              "use the `~` or `logical_not()` operator instead.");
  EMBER_CHECK(self.is_floating_point() || !alpha.is_floating_point(),
              "For integral input tensors, argument alpha must not be a floating point number.");
  return (alpha.to<double>() == 1.0 ? self : self.mul(alpha)).neg().add(other);
}

Tensor dist(const Tensor& self, const Tensor& other, const Scalar& p) {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::dist, {self, other}}) return dist(cast[0], cast[1], p);
  return (self - other).norm(p);
}

// ---- numerical integration ----

Tensor trapezoid(const Tensor& y, const Tensor& x, int64_t dim) {
  EMBER_TRACE_OP();
  dim = wrap_dim(dim, y.dim(), "trapezoid");
  if (y.size(dim) == 0) return zeros_without(y, dim);
  check_not_bool(y, "trapezoid");
  const int64_t n = y.size(dim);
  const Tensor dx = spacing(y, x, dim, "trapezoid");
  return ((y.narrow(dim, 0, n - 1) + y.narrow(dim, 1, n - 1)) * dx).sum({dim}) / 2.0;
}

Tensor trapezoid(const Tensor& y, const Scalar& dx, int64_t dim) {
  EMBER_TRACE_OP();
  dim = wrap_dim(dim, y.dim(), "trapezoid");
  if (y.size(dim) == 0) return zeros_without(y, dim);
  check_not_bool(y, "trapezoid");
  EMBER_CHECK(!dx.isBool(), "trapezoid: Currently, we only support dx as a real number.");
  return (y.sum({dim}) - (y.select(dim, 0) + y.select(dim, -1)) * 0.5) * dx.to<double>();
}

Tensor trapz(const Tensor& y, const Tensor& x, int64_t dim) { return trapezoid(y, x, dim); }
Tensor trapz(const Tensor& y, double dx, int64_t dim) { return trapezoid(y, Scalar(dx), dim); }

Tensor cumulative_trapezoid(const Tensor& y, const Tensor& x, int64_t dim) {
  EMBER_TRACE_OP();
  dim = wrap_dim(dim, y.dim(), "cumulative_trapezoid");
  check_not_bool(y, "cumulative_trapezoid");
  const int64_t n = y.size(dim);
  if (n == 0) return y.clone();
  const Tensor dx = spacing(y, x, dim, "cumulative_trapezoid");
  return ((y.narrow(dim, 0, n - 1) + y.narrow(dim, 1, n - 1)) * dx).cumsum(dim) / 2.0;
}

Tensor cumulative_trapezoid(const Tensor& y, const Scalar& dx, int64_t dim) {
  EMBER_TRACE_OP();
  dim = wrap_dim(dim, y.dim(), "cumulative_trapezoid");
  check_not_bool(y, "cumulative_trapezoid");
  EMBER_CHECK(!dx.isBool(), "cumulative_trapezoid: Currently, we only support dx as a real number.");
  const int64_t n = y.size(dim);
  if (n == 0) return y.clone();
  return ((y.narrow(dim, 0, n - 1) + y.narrow(dim, 1, n - 1)) * (dx.to<double>() / 2.0)).cumsum(dim);
}

// ---- statistics ----

Tensor cov(const Tensor& self, int64_t correction, const std::optional<Tensor>& fweights,
           const std::optional<Tensor>& aweights) {
  EMBER_TRACE_OP();
  EMBER_CHECK(self.dim() <= 2,
              "cov(): expected input to have two or fewer dimensions but got an input with {} dimensions", self.dim());
  EMBER_CHECK(self.dtype() != kBool, "cov(): bool dtype is not supported for input");
  Tensor in = self.dim() < 2 ? self.reshape({1, -1}) : self;
  const int64_t observations = in.size(1);
  Tensor w;
  if (fweights && fweights->defined()) {
    w = *fweights;
    EMBER_CHECK(w.dim() <= 1,
                "cov(): expected fweights to have one or fewer dimensions but got fweights with {} "
                "dimensions",
                w.dim());
    EMBER_CHECK(!w.is_floating_point() && w.dtype() != kBool,
                "cov(): expected fweights to have integral dtype but got fweights with {} dtype",
                dtype_name(w.dtype()));
    EMBER_CHECK(w.numel() == observations,
                "cov(): expected fweights to have the same numel as there are observations in the input but got {} "
                "!= {}",
                w.numel(), observations);
    EMBER_CHECK(observations == 0 || w.min().ge(0).item<bool>(), "cov(): fweights cannot be negative");
  }
  const bool weighted_a = aweights && aweights->defined();
  if (weighted_a) {
    const Tensor& aw = *aweights;
    EMBER_CHECK(aw.dim() <= 1,
                "cov(): expected aweights to have one or fewer dimensions but got aweights with {} "
                "dimensions",
                aw.dim());
    EMBER_CHECK(aw.is_floating_point(),
                "cov(): expected aweights to have floating point dtype but got aweights with {} dtype",
                dtype_name(aw.dtype()));
    EMBER_CHECK(aw.numel() == observations,
                "cov(): expected aweights to have the same numel as there are observations in the input but got {} "
                "!= {}",
                aw.numel(), observations);
    EMBER_CHECK(observations == 0 || aw.min().ge(0).item<bool>(), "cov(): aweights cannot be negative");
    w = w.defined() ? w * aw : aw;
  }
  const Tensor w_sum = w.defined() ? w.sum() : scalar_tensor(observations, TensorOptions().dtype(kInt64));
  EMBER_CHECK(!w.defined() || w_sum.ne(0).item<bool>(), "cov(): weights sum to zero, can't be normalized");
  const Tensor avg = (w.defined() ? in * w : in).sum({1}) / w_sum.to(in.device());
  Tensor norm_factor = weighted_a && correction != 0
                           ? w_sum - (w * *aweights).sum() * static_cast<double>(correction) / w_sum
                           : w_sum - correction;
  if (norm_factor.le(0).item<bool>()) {
    EMBER_WARN("cov(): degrees of freedom is <= 0");
    norm_factor = zeros_like(norm_factor);
  }
  in = in - avg.unsqueeze(1);
  const Tensor c = in.mm((w.defined() ? in * w : in).t());
  return (c / norm_factor.to(c.device())).squeeze();
}

Tensor corrcoef(const Tensor& self) {
  EMBER_TRACE_OP();
  EMBER_CHECK(self.dim() <= 2,
              "corrcoef(): expected input to have two or fewer dimensions but got an input with {} dimensions",
              self.dim());
  Tensor c = cov(self);
  if (c.dim() == 0) return c / c;  // one variable: 1, or NaN where its variance is 0 or not finite
  const Tensor stddev = c.diag().sqrt();
  c = c / stddev.view({-1, 1});
  c = c / stddev.view({1, -1});
  return c.clamp(-1, 1);
}

Tensor vander(const Tensor& x, std::optional<int64_t> N, bool increasing) {
  EMBER_TRACE_OP();
  EMBER_CHECK(x.dim() == 1, "x must be a one-dimensional tensor.");
  const int64_t n = N.value_or(x.size(0));
  EMBER_CHECK(n >= 0, "N must be non-negative.");
  const ScalarType type = promote_types(x.dtype(), kInt64);
  Tensor result = ones({x.size(0), n}, x.options().dtype(type));
  if (n > 1) {
    // x^1 ... x^(n-1) as a running product, as PyTorch's cumprod does it.
    const Tensor powers = x.to(type).unsqueeze(1).expand({x.size(0), n - 1}).cumprod(1);
    result = cat({result.narrow(1, 0, 1), powers}, 1);
  }
  return increasing ? result : result.flip({1});
}

// ---- sequences and windows ----

Tensor logspace(const Scalar& start, const Scalar& end, int64_t steps, double base, const TensorOptions& options) {
  EMBER_TRACE_OP();
  EMBER_CHECK(steps >= 0, "number of steps must be non-negative");
  const double a = start.to<double>(), b = end.to<double>();
  std::vector<double> values(static_cast<size_t>(steps));
  if (steps == 1) values[0] = std::pow(base, a);
  const double step = steps > 1 ? (b - a) / static_cast<double>(steps - 1) : 0.0;
  const int64_t halfway = steps / 2;  // the second half counts down from end, as PyTorch's kernel does
  for (int64_t i = 0; steps > 1 && i < steps; ++i)
    values[static_cast<size_t>(i)] =
        std::pow(base, i < halfway ? a + step * static_cast<double>(i) : b - step * static_cast<double>(steps - i - 1));
  return from_vector<double>(values, {steps}).to(options.dtype()).to(options.device());
}

Tensor range(const Scalar& start, const Scalar& end, const Scalar& step, const TensorOptions& options) {
  EMBER_TRACE_OP();
  const double a = start.to<double>(), b = end.to<double>(), s = step.to<double>();
  EMBER_CHECK(s != 0, "step must be nonzero");
  EMBER_CHECK(std::isfinite(a) && std::isfinite(b), "unsupported range: {} -> {}", a, b);
  EMBER_CHECK((s > 0 && b >= a) || (s < 0 && b <= a), "upper bound and lower bound inconsistent with step sign");
  const double count = std::floor((b - a) / s) + 1;
  EMBER_CHECK(count <= 1e12, "range: {} elements from {} to {} by {} are too many", count, a, b, s);
  std::vector<double> values(static_cast<size_t>(count));
  for (size_t i = 0; i < values.size(); ++i) values[i] = a + static_cast<double>(i) * s;
  return from_vector<double>(values, {static_cast<int64_t>(values.size())}).to(options.dtype()).to(options.device());
}

Tensor range(const Scalar& start, const Scalar& end, const TensorOptions& options) {
  return range(start, end, 1, options);
}

namespace {

// A signal window of `length` points: symmetric(n) gives the symmetric window of n >= 2 points in
// the options' dtype; a periodic window is the symmetric one of length + 1 without its last point.
template <typename Symmetric>
Tensor make_window(const char* name, int64_t length, bool periodic, const TensorOptions& options, Symmetric symmetric) {
  EMBER_CHECK(is_floating_point(options.dtype()), "{} expects floating point dtypes, got: {}", name,
              dtype_name(options.dtype()));
  EMBER_CHECK(length >= 0, "{} requires non-negative window_length, got window_length={}", name, length);
  if (length == 0) return empty({0}, options);
  if (length == 1) return ones({1}, options);
  const int64_t n = periodic ? length + 1 : length;
  const Tensor window = symmetric(n);
  return periodic ? window.narrow(0, 0, n - 1) : window;
}

Tensor hamming(const char* name, int64_t length, bool periodic, double alpha, double beta,
               const TensorOptions& options) {
  return make_window(name, length, periodic, options, [&](int64_t n) {
    return arange(n, options).mul(2.0 * std::numbers::pi / static_cast<double>(n - 1)).cos().mul(-beta).add(alpha);
  });
}

}  // namespace

Tensor hann_window(int64_t window_length, const TensorOptions& options) {
  return hann_window(window_length, true, options);
}
Tensor hann_window(int64_t window_length, bool periodic, const TensorOptions& options) {
  EMBER_TRACE_OP();
  return hamming("hann_window", window_length, periodic, 0.5, 0.5, options);
}
Tensor hamming_window(int64_t window_length, const TensorOptions& options) {
  return hamming_window(window_length, true, 0.54, 0.46, options);
}
Tensor hamming_window(int64_t window_length, bool periodic, const TensorOptions& options) {
  return hamming_window(window_length, periodic, 0.54, 0.46, options);
}
Tensor hamming_window(int64_t window_length, bool periodic, double alpha, const TensorOptions& options) {
  return hamming_window(window_length, periodic, alpha, 0.46, options);
}
Tensor hamming_window(int64_t window_length, bool periodic, double alpha, double beta, const TensorOptions& options) {
  EMBER_TRACE_OP();
  return hamming("hamming_window", window_length, periodic, alpha, beta, options);
}

Tensor blackman_window(int64_t window_length, const TensorOptions& options) {
  return blackman_window(window_length, true, options);
}
Tensor blackman_window(int64_t window_length, bool periodic, const TensorOptions& options) {
  EMBER_TRACE_OP();
  return make_window("blackman_window", window_length, periodic, options, [&](int64_t n) {
    const Tensor x = arange(n, options).mul(std::numbers::pi / static_cast<double>(n - 1));
    return x.mul(4).cos().mul(0.08) - x.mul(2).cos().mul(0.5) + 0.42;
  });
}

Tensor bartlett_window(int64_t window_length, const TensorOptions& options) {
  return bartlett_window(window_length, true, options);
}
Tensor bartlett_window(int64_t window_length, bool periodic, const TensorOptions& options) {
  EMBER_TRACE_OP();
  return make_window("bartlett_window", window_length, periodic, options, [&](int64_t n) {
    const Tensor x = arange(n, options).mul(2.0 / static_cast<double>(n - 1));
    const int64_t first_half = ((n - 1) >> 1) + 1;  // rises to 1, then falls as 2 - x
    return cat({x.narrow(0, 0, first_half), x.narrow(0, first_half, n - first_half).mul(-1).add(2)});
  });
}

}  // namespace ember
