// torch.special: PyTorch's special-function namespace, with its names and overloads.
//
//   Tensor p = ember::special::ndtr(x);            // the standard normal CDF, d/dx = pdf(x)
//   Tensor l = ember::special::log_ndtr(x);        // its log, accurate far into the left tail
//   Tensor t = ember::special::chebyshev_polynomial_t(x, 5);
//   Tensor p = ember::special::gammainc(a, x);      // P(a, x), d/dx only
//
// Most names are the torch.special spelling of an op Ember already has (expit is sigmoid, gammaln is
// lgamma, psi is digamma, multigammaln is mvlgamma, ...). The functions of their own (erfcx, ndtr,
// ndtri, log_ndtr, entr, xlog1py, the Bessel functions i0, i0e, i1, i1e, and the orthogonal
// polynomials) are computed on the host (autograd/special.cpp, sharing autograd/special_host.h with
// aten_special.cpp), with gradients where PyTorch has them; values follow PyTorch 1.13's formulas
// (its recurrences and edge cases for the polynomials), checked by tests/core/test_special.cpp.
// The Bessel functions J, Y, K, the modified_bessel_* spellings, Airy's Ai, spherical_bessel_j0 and
// zeta are in autograd/special_bessel.cpp, computed in double, tested by test_special_bessel.cpp.
#pragma once

#include <cstdint>
#include <optional>

#include "autograd/aten_functions.h"
#include "core/tensor.h"

namespace ember::special {

// ---- functions of their own ----
Tensor erfcx(const Tensor& self);                         // exp(x^2) erfc(x), without its overflow
Tensor ndtr(const Tensor& self);                          // P(Z <= x) for a standard normal Z
Tensor ndtri(const Tensor& self);                         // the inverse of ndtr, on [0, 1]
Tensor log_ndtr(const Tensor& self);                      // log ndtr(x)
Tensor entr(const Tensor& self);                          // -x log x; 0 at 0, -inf below 0
Tensor xlog1py(const Tensor& self, const Tensor& other);  // x log1p(y), 0 where x == 0
Tensor xlog1py(const Scalar& self, const Tensor& other);
Tensor xlog1py(const Tensor& self, const Scalar& other);
Tensor i0(const Tensor& self);   // the modified Bessel function of the first kind, order 0
Tensor i0e(const Tensor& self);  // exp(-|x|) i0(x)
Tensor i1(const Tensor& self);   // order 1
Tensor i1e(const Tensor& self);  // exp(-|x|) i1(x)

// The regularized incomplete gamma functions P(a, x) (ATen's igamma) and Q(a, x) = 1 - P (igammac),
// of a = self and x = other, broadcast; floating inputs only. Gradient for x only, as PyTorch's:
// backward through a that requires grad throws "not implemented".
Tensor gammainc(const Tensor& self, const Tensor& other);
Tensor gammaincc(const Tensor& self, const Tensor& other);

// Hurwitz's zeta(x, q) = sum_{n>=0} (q + n)^-x of x = self and q = other, with the gradient for q only.
Tensor zeta(const Tensor& self, const Tensor& other);
Tensor zeta(const Scalar& self, const Tensor& other);
Tensor zeta(const Tensor& self, const Scalar& other);

// Bessel functions of the first (J) and second (Y) kind, the modified ones (I, K; scaled: exp(x) K),
// the spherical j0 = sin(x) / x and Airy's Ai; no gradient (PyTorch 1.13 defines none).
Tensor bessel_j0(const Tensor& self);
Tensor bessel_j1(const Tensor& self);
Tensor bessel_y0(const Tensor& self);  // NaN below 0, -inf at 0
Tensor bessel_y1(const Tensor& self);
Tensor modified_bessel_i0(const Tensor& self);  // i0's values, NaN at +-inf
Tensor modified_bessel_i1(const Tensor& self);
Tensor modified_bessel_k0(const Tensor& self);  // NaN below 0, inf at 0
Tensor modified_bessel_k1(const Tensor& self);
Tensor scaled_modified_bessel_k0(const Tensor& self);
Tensor scaled_modified_bessel_k1(const Tensor& self);
Tensor spherical_bessel_j0(const Tensor& self);
Tensor airy_ai(const Tensor& self);  // NaN at +-inf

// Orthogonal polynomials of degree n (taken as an integer; negative n gives 0), elementwise over
// the broadcast x and n; no gradient (PyTorch defines none).
#define EMBER_SPECIAL_POLYNOMIAL(name)           \
  Tensor name(const Tensor& x, const Tensor& n); \
  Tensor name(const Scalar& x, const Tensor& n); \
  Tensor name(const Tensor& x, const Scalar& n);
EMBER_SPECIAL_POLYNOMIAL(chebyshev_polynomial_t)
EMBER_SPECIAL_POLYNOMIAL(chebyshev_polynomial_u)
EMBER_SPECIAL_POLYNOMIAL(chebyshev_polynomial_v)
EMBER_SPECIAL_POLYNOMIAL(chebyshev_polynomial_w)
EMBER_SPECIAL_POLYNOMIAL(shifted_chebyshev_polynomial_t)
EMBER_SPECIAL_POLYNOMIAL(shifted_chebyshev_polynomial_u)
EMBER_SPECIAL_POLYNOMIAL(shifted_chebyshev_polynomial_v)
EMBER_SPECIAL_POLYNOMIAL(shifted_chebyshev_polynomial_w)
EMBER_SPECIAL_POLYNOMIAL(hermite_polynomial_h)
EMBER_SPECIAL_POLYNOMIAL(hermite_polynomial_he)
EMBER_SPECIAL_POLYNOMIAL(laguerre_polynomial_l)
EMBER_SPECIAL_POLYNOMIAL(legendre_polynomial_p)
#undef EMBER_SPECIAL_POLYNOMIAL

// ---- torch.special's names for Ember's ops ----
inline Tensor expit(const Tensor& self) { return self.sigmoid(); }
inline Tensor gammaln(const Tensor& self) { return ember::lgamma(self); }
inline Tensor digamma(const Tensor& self) { return ember::digamma(self); }
inline Tensor psi(const Tensor& self) { return ember::digamma(self); }
inline Tensor polygamma(int64_t n, const Tensor& self) { return ember::polygamma(n, self); }
inline Tensor multigammaln(const Tensor& self, int64_t p) { return ember::mvlgamma(self, p); }
inline Tensor erf(const Tensor& self) { return self.erf(); }
inline Tensor erfc(const Tensor& self) { return self.erfc(); }
inline Tensor erfinv(const Tensor& self) { return ember::erfinv(self); }
inline Tensor exp2(const Tensor& self) { return self.exp2(); }
inline Tensor expm1(const Tensor& self) { return self.expm1(); }
inline Tensor log1p(const Tensor& self) { return self.log1p(); }
inline Tensor sinc(const Tensor& self) { return self.sinc(); }
inline Tensor round(const Tensor& self, int64_t decimals = 0) { return self.round(decimals); }
inline Tensor logit(const Tensor& self, std::optional<double> eps = std::nullopt) { return self.logit(eps); }
inline Tensor logsumexp(const Tensor& self, IntArrayRef dims, bool keepdim = false) {
  return self.logsumexp(dims, keepdim);
}
inline Tensor softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype = std::nullopt) {
  return self.softmax(dim, dtype);
}
inline Tensor log_softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype = std::nullopt) {
  return self.log_softmax(dim, dtype);
}
inline Tensor xlogy(const Tensor& self, const Tensor& other) { return self.xlogy(other); }
inline Tensor xlogy(const Tensor& self, const Scalar& other) { return self.xlogy(other); }
Tensor xlogy(const Scalar& self, const Tensor& other);

}  // namespace ember::special
