// torch.special (autograd/special.h): the functions Ember computes itself, ndtr, log_ndtr, ndtri,
// erfcx, entr, xlog1py, the modified Bessel functions i0, i0e, i1, i1e, the orthogonal
// polynomials, and the regularized incomplete gamma functions (the other Bessel functions and zeta are in
// special_bessel.cpp). Each is evaluated on the host (autograd/special_host.h) with its gradient
// composed of differentiable ops, so it differentiates again; values follow PyTorch 1.13's formulas.
#include "autograd/special.h"

#include <cmath>
#include <cstdint>
#include <exception>
#include <functional>
#include <limits>
#include <vector>

#include "autograd/special_host.h"
#include "core/kernel.h"
#include "core/trace.h"

namespace ember {

namespace special_host {

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

}  // namespace special_host

namespace special {

namespace {

using autograd::elementwise::to_float;
using special_host::binary_values;
using special_host::erfinv_scalar;
using special_host::host_doubles;
using special_host::kInf;
using special_host::kNaN;
using special_host::kPi;
using special_host::kTwoOverSqrtPi;
using special_host::result_device;
using special_host::scaled_bessel_i;
using special_host::special_unary;
using special_host::with_gradient_of_other;

constexpr double kSqrtHalf = 0.70710678118654752440;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;  // 1 / sqrt(2 pi)
constexpr double kSqrt2Pi = 2.50662827463100050242;     // sqrt(2 pi)

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

// ---- the regularized incomplete gamma functions P(a, x) and Q(a, x) = 1 - P(a, x) ----

constexpr double kGammaEps = 1e-17;

// log(1 + d) - d, by its alternating series -d^2/2 + d^3/3 - ... where the subtraction would cancel.
double log1p_minus(double d) {
  if (std::fabs(d) > 0.25) return std::log1p(d) - d;
  double power = d, sum = 0;
  for (int k = 2; k < 60; ++k) {
    power *= -d;
    const double term = power / k;
    sum += term;
    if (std::fabs(term) < kGammaEps * std::fabs(sum)) break;
  }
  return sum;
}

// x^a exp(-x) / Gamma(a), the factor both P and Q carry. From a = 10 its logarithm is taken apart as
// a (log1p(d) - d) + ln(a / 2pi) / 2 - S(a), d = (x - a) / a, with Stirling's series S(a) for
// ln Gamma(a) - ((a - 1/2) ln a - a + ln(2pi) / 2): so a ln x and x, both large, never cancel.
double gamma_factor(double a, double x) {
  if (a < 10) return std::exp(a * std::log(x) - x - std::lgamma(a));
  const double r = 1 / (a * a);
  const double stirling =
      (1.0 / 12 - r * (1.0 / 360 - r * (1.0 / 1260 - r * (1.0 / 1680 - r * (1.0 / 1188 - r * 691.0 / 360360))))) / a;
  // Far below the peak 1 + d = x / a is small and is taken as the quotient itself.
  const double d = (x - a) / a;
  const double shape = d < -0.5 ? a * std::log(x / a) - (x - a) : a * log1p_minus(d);
  return std::exp(shape - stirling) * std::sqrt(a / (2 * kPi));
}

// P = x^a e^-x / Gamma(a + 1) sum_n x^n / ((a + 1) ... (a + n)), positive terms shrinking once a + n > x.
double lower_gamma_series(double a, double x) {
  double term = 1, sum = 1;
  for (int n = 1; n < 10000000; ++n) {
    term *= x / (a + n);
    sum += term;
    if (term < kGammaEps * sum) break;
  }
  return gamma_factor(a, x) / a * sum;
}

// Q for small x (x <= 1.1), where P is near 1: from gamma(a, x) = sum_n (-1)^n x^(a+n) / (n! (a + n)),
//   Q = 1 - x^a / Gamma(a + 1) - (x^a / Gamma(a)) sum_{n>=1} (-1)^n x^n / (n! (a + n)),
// whose first part is -expm1(a ln x - ln Gamma(a + 1)), without the cancellation of 1 - P.
double upper_gamma_series(double a, double x) {
  const double log_u = a * std::log(x) - std::lgamma(a + 1);
  double power = 1, sum = 0;
  for (int n = 1; n < 200; ++n) {
    power *= -x / n;
    const double term = power / (a + n);
    sum += term;
    if (std::fabs(term) < kGammaEps * std::fabs(sum)) break;
  }
  return -std::expm1(log_u) - a * std::exp(log_u) * sum;
}

// Q = x^a e^-x / Gamma(a) * 1 / (x + 1 - a - 1 (1 - a) / (x + 3 - a - 2 (2 - a) / (x + 5 - a - ...)))
// (Legendre's continued fraction), evaluated forwards by the modified Lentz method.
double upper_gamma_fraction(double a, double x) {
  constexpr double tiny = 1e-300;
  double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
  for (int i = 1; i < 10000000; ++i) {
    const double an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (std::fabs(d) < tiny) d = tiny;
    c = b + an / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1 / d;
    const double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1) < kGammaEps) break;
  }
  return gamma_factor(a, x) * h;
}

// Temme's uniform expansion to its first term, for a above 1e10 near x = a, where the series and
// the fraction would take ~sqrt(a) steps: Q = erfc(eta sqrt(a/2)) / 2 + exp(-a eta^2 / 2) /
// sqrt(2 pi a) c_0(eta), eta = sign(x/a - 1) sqrt(-2 (log1p(d) - d)), c_0 = 1/d - 1/eta (DLMF
// 8.12.3, 8.12.8), its next term below a^-1 relative there.
double upper_gamma_temme(double a, double x) {
  const double d = (x - a) / a;
  const double eta = std::copysign(std::sqrt(-2 * log1p_minus(d)), d);
  const double c0 = std::fabs(eta) < 1e-3 ? -1.0 / 3 + eta / 12 - 2 * eta * eta / 135 : 1 / d - 1 / eta;
  return 0.5 * std::erfc(eta * std::sqrt(a / 2)) + std::exp(-0.5 * a * eta * eta) / std::sqrt(2 * kPi * a) * c0;
}

// P(a, x) (lower = true) or Q(a, x), with PyTorch's edges: NaN for a or x below 0, at a = 0 the
// limit (P = 1 for x > 0, NaN at x = 0), at x = 0 P = 0 (even for a NaN), an infinite a gives P = 0
// (NaN if x is infinite too), an infinite x gives P = 1 (even for a NaN). The method by region as
// Gautschi's: the series for P below the peak x < a, the fraction for Q above it, and the small-x
// series for Q where P is near 1.
double regularized_gamma(double a, double x, bool lower) {
  if (x < 0 || a < 0) return kNaN;
  if (a == 0) return x > 0 ? (lower ? 1.0 : 0.0) : kNaN;
  if (x == 0) return lower ? 0.0 : 1.0;
  if (std::isinf(a)) return std::isinf(x) ? kNaN : (lower ? 0.0 : 1.0);
  if (std::isinf(x)) return lower ? 1.0 : 0.0;
  if (std::isnan(a) || std::isnan(x)) return kNaN;
  double p, q;
  if (a > 1e10 && std::fabs(x - a) < 0.3 * a) {
    q = upper_gamma_temme(a, x);
    p = 1 - q;
  } else if (x > 1.1 ? x < a : (x <= 0.5 ? -0.4 / std::log(x) < a : x * 1.1 < a)) {
    p = lower_gamma_series(a, x);
    q = 1 - p;
  } else if (x > 1.1) {
    q = upper_gamma_fraction(a, x);
    p = 1 - q;
  } else {
    q = upper_gamma_series(a, x);
    p = 1 - q;
  }
  return lower ? p : q;
}

// igamma and igammac: floating inputs only (PyTorch has no integer kernel), d/dx P(a, x) =
// x^(a-1) e^-x / Gamma(a), composed as PyTorch's exp((a - 1) log x - x - lgamma(a)).
Tensor incomplete_gamma(const char* name, const char* node, const Tensor& self, const Tensor& other, bool lower) {
  const ScalarType type = kernel::result_type(self, other);
  EMBER_CHECK(is_floating_point(type), "{}: \"igamma_cpu\" not implemented for '{}'", name, scalar_type_name(type));
  const Tensor y = binary_values(
      name, self, other, type,
      lower ? [](double a, double x) { return regularized_gamma(a, x, true); }
            : [](double a, double x) { return regularized_gamma(a, x, false); });
  return with_gradient_of_other(node, lower ? "igamma: input" : "igammac: input", y, self, other,
                                [lower](const Tensor& a, const Tensor& x) {
                                  const Tensor density = ((a - 1) * x.log() - x - ember::lgamma(a)).exp();
                                  return lower ? density : -density;
                                });
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
      "SpecialI1Backward0", self, [](auto x) { return static_cast<decltype(x)>(bessel_i(1, static_cast<double>(x))); },
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

#define EMBER_SPECIAL_POLYNOMIAL(name, f)                                                              \
  Tensor name(const Tensor& x, const Tensor& n) {                                                      \
    EMBER_TRACE_OP();                                                                                  \
    return polynomial(#name, x, n, f);                                                                 \
  }                                                                                                    \
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

Tensor gammainc(const Tensor& self, const Tensor& other) {
  EMBER_TRACE_OP();
  return incomplete_gamma("gammainc", "IgammaBackward0", self, other, true);
}
Tensor gammaincc(const Tensor& self, const Tensor& other) {
  EMBER_TRACE_OP();
  return incomplete_gamma("gammaincc", "IgammacBackward0", self, other, false);
}

}  // namespace special

}  // namespace ember
