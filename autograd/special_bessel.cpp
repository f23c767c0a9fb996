// torch.special's Bessel functions of their own kind (autograd/special.h): J and Y of orders 0 and 1,
// the modified I and K of orders 0 and 1 (K also scaled by exp(x)), the spherical j0, Airy's Ai,
// and Hurwitz's zeta beside them.
// Each is computed on the host in double (float32 rounded from it) by a method chosen per range: the
// power series where it does not cancel, Miller's backward recurrence, a quadrature of K's integral
// and Taylor steps along Airy's equation in between, the asymptotic expansions beyond. PyTorch 1.13
// defines no gradient for these, so none is recorded (zeta's, for q only, excepted). Not here: i0, i1 and their scaled
// forms (autograd/special.cpp, whose series the modified_bessel_i* names share).
#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

#include "autograd/special.h"
#include "autograd/special_host.h"
#include "core/trace.h"

namespace ember::special {

namespace {

using special_host::binary_values;
using special_host::kInf;
using special_host::kNaN;
using special_host::kPi;
using special_host::with_gradient_of_other;

constexpr double kEulerGamma = std::numbers::egamma;
constexpr double kInvSqrt2 = 0.70710678118654752440;

// ---- J and Y of orders 0 and 1 ----

// Below this, J and Y come from Miller's backward recurrence; above, from Hankel's expansion.
constexpr double kBesselJYAsymptotic = 25;

struct BesselJY {
  double j0, j1, y0, y1;
};

// Hankel's expansion for x >= 25: J = sqrt(2 / (pi x)) (P cos chi - Q sin chi) and
// Y = sqrt(2 / (pi x)) (P sin chi + Q cos chi), chi = x - (nu / 2 + 1 / 4) pi, where P and Q are the
// even and odd terms, alternating, of sum a_k(nu) / x^k, a_k = prod_j (4nu^2 - (2j - 1)^2) / (k! 8^k).
// The terms fall below 1e-17 long before they turn to grow (near k = 2x). cos chi and sin chi are
// combined from cos x and sin x, so that a large x loses nothing to the phase shift.
void hankel_pq(int nu, double x, double& p, double& q) {
  const double mu = 4.0 * nu * nu;
  double term = 1;
  p = 1, q = 0;
  for (int k = 1; k < 60; ++k) {
    const double odd = 2.0 * k - 1;
    term *= (mu - odd * odd) / (8.0 * k * x);
    const double sign = ((k / 2) % 2 == 0) ? 1.0 : -1.0;  // + for k = 1, 0 mod 4 pairs: t1 - t3 + ...
    if (k % 2 == 0)
      p += sign * term;
    else
      q += sign * term;
    if (std::fabs(term) < 1e-17) break;
  }
}

BesselJY bessel_jy_hankel(double x) {
  double p0, q0, p1, q1;
  hankel_pq(0, x, p0, q0);
  hankel_pq(1, x, p1, q1);
  const double s = std::sin(x), c = std::cos(x), amplitude = std::sqrt(2 / (kPi * x));
  // chi_0 = x - pi/4, chi_1 = x - 3pi/4
  const double c0 = (c + s) * kInvSqrt2, s0 = (s - c) * kInvSqrt2;
  const double c1 = (s - c) * kInvSqrt2, s1 = -(s + c) * kInvSqrt2;
  return {amplitude * (p0 * c0 - q0 * s0), amplitude * (p1 * c1 - q1 * s1), amplitude * (p0 * s0 + q0 * c0),
          amplitude * (p1 * s1 + q1 * c1)};
}

// Miller's backward recurrence J_{k-1} = (2k / x) J_k - J_{k+1} from far above x, normalized by
// J_0 + 2 sum J_2k = 1; it is stable downwards, so J_0 and J_1 keep their absolute precision. Y
// follows from Neumann's series over the same J_k:
//   Y_0 = (2/pi) (ln(x/2) + gamma) J_0 - (4/pi) sum_k (-1)^k J_2k / k
//   Y_1 = -Y_0' = (2/pi) (ln(x/2) + gamma) J_1 - (2/pi) J_0 / x + (2/pi) sum_k (-1)^k (J_2k-1 - J_2k+1) / k.
// For 1e-3 <= x < 25; smaller x would make the recurrence's growth overflow.
BesselJY bessel_jy_miller(double x) {
  const int top = 2 * (static_cast<int>(x) / 2) + 40;  // even, and far enough above x for 1e-17
  std::vector<double> j(static_cast<size_t>(top) + 2);
  j[top + 1] = 0;
  j[top] = 1e-30;
  for (int k = top; k >= 1; --k) {
    j[k - 1] = (2.0 * k / x) * j[k] - j[k + 1];
    if (std::fabs(j[k - 1]) > 1e200)  // keep the growth in range; the ratios are what matter
      for (int i = k - 1; i <= top + 1; ++i) j[i] *= 1e-200;
  }
  double norm = j[0], sum_y0 = 0, sum_y1 = 0;
  for (int k = 1; 2 * k <= top; ++k) {
    const double sign = (k % 2 == 0) ? 1.0 : -1.0;
    norm += 2 * j[2 * k];
    sum_y0 += sign * j[2 * k] / k;
    sum_y1 += sign * (j[2 * k - 1] - j[2 * k + 1]) / k;
  }
  const double j0 = j[0] / norm, j1 = j[1] / norm, log_term = std::log(x / 2) + kEulerGamma;
  return {j0, j1, (2 / kPi) * (log_term * j0 - 2 * sum_y0 / norm),
          (2 / kPi) * (log_term * j1 - j0 / x + sum_y1 / norm)};
}

// Below x = 1e-3 the power series: J_0 = 1 - x^2/4 + x^4/64, J_1 = x/2 - x^3/16 (+ x^5/384), and from
// Y's series (DLMF 10.8.1) Y_0 = (2/pi)((ln(x/2) + gamma) J_0 + x^2/4 - 3x^4/128) and
// Y_1 = -2/(pi x) + (2/pi) ln(x/2) J_1 - (1/pi)(x/2)(1 - 2 gamma) + ..., to double precision there.
BesselJY bessel_jy_small(double x) {
  const double q = x * x / 4, log_half = std::log(x / 2);
  const double j0 = 1 - q + q * q / 4, j1 = (x / 2) * (1 - q / 2 + q * q / 12);
  const double y0 = (2 / kPi) * ((log_half + kEulerGamma) * j0 + q - 0.375 * q * q);
  // (psi(1) + psi(2)) = 1 - 2 gamma, (psi(2) + psi(3)) = 5/2 - 2 gamma
  const double y1 = -2 / (kPi * x) + (2 / kPi) * log_half * j1 -
                    (1 / kPi) * (x / 2) * ((1 - 2 * kEulerGamma) - (2.5 - 2 * kEulerGamma) * q / 2);
  return {j0, j1, y0, y1};
}

BesselJY bessel_jy(double x) {  // x > 0
  if (x < 1e-3) return bessel_jy_small(x);
  if (x < kBesselJYAsymptotic) return bessel_jy_miller(x);
  return bessel_jy_hankel(x);
}

double bessel_j0_scalar(double x) {
  if (std::isnan(x)) return x;
  if (x == 0) return 1;
  return bessel_jy(std::fabs(x)).j0;  // even; J_0(+-inf) is NaN, as PyTorch's
}
double bessel_j1_scalar(double x) {
  if (std::isnan(x) || x == 0) return x;  // J_1(-0) = -0
  const double v = bessel_jy(std::fabs(x)).j1;
  return x < 0 ? -v : v;
}
double bessel_y0_scalar(double x) {
  if (std::isnan(x) || x < 0) return kNaN;
  if (x == 0) return -kInf;
  return bessel_jy(x).y0;
}
double bessel_y1_scalar(double x) {
  if (std::isnan(x) || x < 0) return kNaN;
  if (x == 0) return -kInf;
  return bessel_jy(x).y1;
}

// ---- K, and Airy's Ai through K_{1/3} ----

// exp(x) K_nu(x) for x > 0 and nu >= 0. Below x = 30 the trapezoidal rule on
//   exp(x) K_nu(x) = int_0^inf exp(-x (cosh t - 1)) cosh(nu t) dt,
// whose integrand is analytic and falls off doubly exponentially: with step 0.1 its error is below
// exp(-60) out to x = 30 (the strip |Im t| < 1 bounds it), and the sum is of positive terms.
// From x = 30 the asymptotic series sqrt(pi / 2x) sum_k a_k(nu) / x^k (a_k as in hankel_pq, not
// alternating), whose terms reach 1e-17 long before they grow.
double scaled_bessel_k(double nu, double x) {
  if (x >= 30) {
    const double mu = 4 * nu * nu;
    double term = 1, sum = 1;
    for (int k = 1; k < 60; ++k) {
      const double odd = 2.0 * k - 1;
      term *= (mu - odd * odd) / (8.0 * k * x);
      sum += term;
      if (std::fabs(term) < 1e-17 * std::fabs(sum)) break;
    }
    return std::sqrt(kPi / (2 * x)) * sum;
  }
  constexpr double h = 0.1;
  double sum = 0.5, previous = 1;
  for (int k = 1; k < 100000; ++k) {
    const double t = k * h, half_sinh = std::sinh(t / 2);
    const double term = std::exp(-2 * x * half_sinh * half_sinh) * std::cosh(nu * t);  // cosh t - 1 = 2 sinh^2(t/2)
    sum += term;
    if (term < 1e-18 * sum && term < previous) break;
    previous = term;
  }
  return h * sum;
}

// K_0 and K_1 (scaled = exp(x) K): NaN below 0, inf at 0 (either sign), 0 at inf. Below x = 1e-9
// the series' leading terms, K_0 = -(ln(x/2) + gamma) and K_1 = 1/x, are exact to double precision
// (and the quadrature would need t out to ln(1/x)).
double bessel_k(int nu, double x, bool scaled) {
  if (std::isnan(x) || x < 0) return kNaN;
  if (x == 0) return kInf;
  if (std::isinf(x)) return 0;
  if (x < 1e-9) {
    const double k = nu == 0 ? -(std::log(x / 2) + kEulerGamma) : 1 / x;
    return scaled ? k * std::exp(x) : k;
  }
  const double s = scaled_bessel_k(nu, x);
  return scaled ? s : s * std::exp(-x);
}

constexpr double kAiryAi0 = 0.355028053887817239260;        // Ai(0) = 1 / (3^(2/3) Gamma(2/3))
constexpr double kAiryAiPrime0 = -0.258819403792806798405;  // Ai'(0) = -1 / (3^(1/3) Gamma(1/3))

// Ai on [-10, 1] by Taylor steps of length at most 1 from 0, along y'' = x y: about x0 the
// coefficients follow c_{n+2} = (x0 c_n + c_{n-1}) / ((n + 2)(n + 1)). Both solutions oscillate
// with bounded amplitude on the negative axis (and grow by at most e^1.3 on [0, 1]), so the steps
// keep Ai's absolute precision.
double airy_ai_taylor(double x) {
  const int steps = std::max(1, static_cast<int>(std::ceil(std::fabs(x))));
  const double h = x / steps;
  double y = kAiryAi0, dy = kAiryAiPrime0, x0 = 0;
  for (int s = 0; s < steps; ++s) {
    double c_prev2 = y, c_prev1 = dy, c = x0 * y / 2;  // c_0, c_1, c_2
    double power = h;                                  // h^1
    double value = y + dy * h, slope = dy;
    double cm1 = c_prev1, cm2 = c_prev2;  // c_{n-1}, c_{n-2} for c = c_n, n = 2
    for (int n = 2; n < 80; ++n) {
      slope += n * c * power;  // n c_n h^(n-1)
      power *= h;
      value += c * power;
      if (std::fabs(c * power) < 1e-18 && n > 4 && std::fabs(cm1 * power / h) < 1e-18) break;
      const double next = (x0 * cm1 + cm2) / ((n + 1.0) * n);  // c_{n+1} = (x0 c_{n-1} + c_{n-2}) / ((n+1) n)
      cm2 = cm1;
      cm1 = c;
      c = next;
    }
    y = value;
    dy = slope;
    x0 += h;
  }
  return y;
}

// Airy's Ai: NaN at +-inf (as PyTorch), the Taylor steps on [-10, 1], Ai(x) = (1/pi) sqrt(x/3)
// K_{1/3}(zeta) with zeta = (2/3) x^(3/2) above 1, and below -10 the asymptotic expansion
// (DLMF 9.7.9) Ai(-z) = (cos(zeta - pi/4) sum (-1)^k u_2k / zeta^2k + sin(zeta - pi/4)
// sum (-1)^k u_2k+1 / zeta^(2k+1)) / (sqrt(pi) z^(1/4)), u_k = u_{k-1} (6k-5)(6k-3)(6k-1) /
// ((2k-1) 216 k), whose terms there fall below 1e-17 before they grow.
double airy_ai_scalar(double x) {
  if (std::isnan(x) || std::isinf(x)) return kNaN;
  if (x > 1) {
    const double zeta = 2.0 / 3.0 * x * std::sqrt(x);
    if (zeta > 800) return 0;
    return std::sqrt(x / 3) / kPi * scaled_bessel_k(1.0 / 3.0, zeta) * std::exp(-zeta);
  }
  if (x >= -10) return airy_ai_taylor(x);
  const double z = -x, zeta = 2.0 / 3.0 * z * std::sqrt(z);
  double u = 1, even = 1, odd = 0;
  for (int k = 1; k < 60; ++k) {
    u *= (6.0 * k - 5) * (6.0 * k - 3) * (6.0 * k - 1) / ((2.0 * k - 1) * 216 * k) / zeta;
    const double sign = ((k / 2) % 2 == 0) ? 1.0 : -1.0;
    if (k % 2 == 0)
      even += sign * u;
    else
      odd += sign * u;
    if (std::fabs(u) < 1e-17) break;
  }
  const double s = std::sin(zeta), c = std::cos(zeta);
  const double cos_shift = (c + s) * kInvSqrt2, sin_shift = (s - c) * kInvSqrt2;  // zeta - pi/4
  return (cos_shift * even + sin_shift * odd) / (std::sqrt(kPi) * std::sqrt(std::sqrt(z)));
}

double spherical_bessel_j0_scalar(double x) {
  if (std::isinf(x)) return 0;
  if (x == 0) return 1;
  return std::sin(x) / x;
}

// I_0 and I_1 from i0e and i1e's series (special.cpp), overflowing to +-inf where exp(|x|) does,
// and NaN at +-inf, as PyTorch's modified_bessel_i0 and modified_bessel_i1 give.
double modified_bessel_i(int nu, double x) {
  if (std::isinf(x)) return kNaN;
  return special_host::scaled_bessel_i(nu, x) * std::exp(std::fabs(x));
}

// f of each element of self (integers and bool as the default float dtype), in double; no gradient.
Tensor no_grad_unary(const Tensor& self, double (*f)(double)) {
  NoGradGuard no_grad;
  return special_host::map_values(autograd::elementwise::to_float(self.detach()),
                                  [f](auto x) { return static_cast<decltype(x)>(f(static_cast<double>(x))); });
}

}  // namespace

#define EMBER_SPECIAL_NO_GRAD(name, f) \
  Tensor name(const Tensor& self) {    \
    EMBER_TRACE_OP();                  \
    return no_grad_unary(self, f);     \
  }
EMBER_SPECIAL_NO_GRAD(bessel_j0, [](double x) { return bessel_j0_scalar(x); })
EMBER_SPECIAL_NO_GRAD(bessel_j1, [](double x) { return bessel_j1_scalar(x); })
EMBER_SPECIAL_NO_GRAD(bessel_y0, [](double x) { return bessel_y0_scalar(x); })
EMBER_SPECIAL_NO_GRAD(bessel_y1, [](double x) { return bessel_y1_scalar(x); })
EMBER_SPECIAL_NO_GRAD(modified_bessel_i0, [](double x) { return modified_bessel_i(0, x); })
EMBER_SPECIAL_NO_GRAD(modified_bessel_i1, [](double x) { return modified_bessel_i(1, x); })
EMBER_SPECIAL_NO_GRAD(modified_bessel_k0, [](double x) { return bessel_k(0, x, false); })
EMBER_SPECIAL_NO_GRAD(modified_bessel_k1, [](double x) { return bessel_k(1, x, false); })
EMBER_SPECIAL_NO_GRAD(scaled_modified_bessel_k0, [](double x) { return bessel_k(0, x, true); })
EMBER_SPECIAL_NO_GRAD(scaled_modified_bessel_k1, [](double x) { return bessel_k(1, x, true); })
EMBER_SPECIAL_NO_GRAD(spherical_bessel_j0, spherical_bessel_j0_scalar)
EMBER_SPECIAL_NO_GRAD(airy_ai, airy_ai_scalar)
#undef EMBER_SPECIAL_NO_GRAD

// d/dq zeta(x, q) = -x zeta(x + 1, q); none for x (PyTorch's is "not implemented").
Tensor zeta(const Tensor& self, const Tensor& other) {
  EMBER_TRACE_OP();
  ScalarType type = kernel::result_type(self, other);
  if (!is_floating_point(type)) type = get_default_dtype();
  const Tensor y = binary_values("zeta", self, other, type, special_host::hurwitz_zeta);
  return with_gradient_of_other("SpecialZetaBackward0", "zeta", y, self, other,
                                [](const Tensor& x, const Tensor& q) { return -x * zeta(x + 1, q); });
}
Tensor zeta(const Scalar& self, const Tensor& other) { return zeta(autograd::elementwise::wrap(other, self), other); }
Tensor zeta(const Tensor& self, const Scalar& other) { return zeta(self, autograd::elementwise::wrap(self, other)); }

}  // namespace ember::special

namespace ember::special_host {

// ---- Hurwitz's zeta(x, q) = sum_{n>=0} (q + n)^-x ----

// (2k)! / B_2k for k = 1..12 (B_2 = 1/6, B_4 = -1/30, ..., B_24 = -236364091/2730).
constexpr double kBernoulliScale[12] = {12.0,
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

// Euler-Maclaurin summation: the first terms (q + n)^-x, n = 0..N, at least 10 of them and out to
// q + N > 9, then with w = q + N the tail w^(1-x) / (x - 1) - w^-x / 2 and the corrections
// B_2k / (2k)! x (x + 1) ... (x + 2k - 2) w^(-x-2k+1). The edges are PyTorch's (its loop has this
// shape, so they fall out of it): inf at x = 1, NaN below, inf where q is a non-positive integer
// (whatever x), NaN for another negative q unless x is an integer.
double hurwitz_zeta(double x, double q) {
  constexpr double eps = 1.11022302462515654042e-16;
  if (x == 1) return kInf;
  if (x < 1) return kNaN;
  if (q <= 0) {
    if (q == std::floor(q)) return kInf;
    if (x != std::floor(x)) return kNaN;  // q^-x is not real
  }
  double s = std::pow(q, -x), w = q, b = 0;
  int i = 0;
  while (i < 9 || w <= 9.0) {
    ++i;
    w += 1;
    b = std::pow(w, -x);
    s += b;
    if (-eps * s < b && b < eps * s) return s;  // the written-out form keeps a NaN running on
  }
  s += b * w / (x - 1) - 0.5 * b;
  double rising = 1, k = 0;  // x (x + 1) ... (x + 2k - 2), built two factors a step
  for (double scale : kBernoulliScale) {
    rising *= x + k;
    b /= w;
    const double t = rising * b / scale;
    s += t;
    if (std::fabs(t / s) < eps) return s;
    k += 1;
    rising *= x + k;
    b /= w;
    k += 1;
  }
  return s;
}

}  // namespace ember::special_host
