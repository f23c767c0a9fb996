// <torch/torch.h>, part 6: torch::special and ATen's special_* functions, over Ember's
// autograd/special.h (which says what is computed how, and what is missing):
//
//   torch::Tensor p = torch::special::ndtr(x);
//   torch::Tensor q = at::special_log_ndtr(x);
#pragma once

#include <utility>

#include "autograd/special.h"
#include "ember_compat/aliases.h"
#include "ember_compat/aten_out.h"

namespace torch::special {
using namespace ember::special;  // NOLINT: libtorch's namespace is exactly Ember's
}  // namespace torch::special

namespace ember::compat_aten {

// at::special_name(args...) is torch::special::name(args...), overloads and defaults included.
#define EMBER_ATEN_SPECIAL(name)                                                                     \
  template <typename... Args>                                                                        \
  auto special_##name(Args&&... args)->decltype(ember::special::name(std::forward<Args>(args)...)) { \
    return ember::special::name(std::forward<Args>(args)...);                                        \
  }
EMBER_ATEN_SPECIAL(erfcx)
EMBER_ATEN_SPECIAL(ndtr)
EMBER_ATEN_SPECIAL(ndtri)
EMBER_ATEN_SPECIAL(log_ndtr)
EMBER_ATEN_SPECIAL(entr)
EMBER_ATEN_SPECIAL(xlog1py)
EMBER_ATEN_SPECIAL(xlogy)
EMBER_ATEN_SPECIAL(i0)
EMBER_ATEN_SPECIAL(i0e)
EMBER_ATEN_SPECIAL(i1)
EMBER_ATEN_SPECIAL(i1e)
EMBER_ATEN_SPECIAL(gammainc)
EMBER_ATEN_SPECIAL(gammaincc)
EMBER_ATEN_SPECIAL(zeta)
EMBER_ATEN_SPECIAL(bessel_j0)
EMBER_ATEN_SPECIAL(bessel_j1)
EMBER_ATEN_SPECIAL(bessel_y0)
EMBER_ATEN_SPECIAL(bessel_y1)
EMBER_ATEN_SPECIAL(modified_bessel_i0)
EMBER_ATEN_SPECIAL(modified_bessel_i1)
EMBER_ATEN_SPECIAL(modified_bessel_k0)
EMBER_ATEN_SPECIAL(modified_bessel_k1)
EMBER_ATEN_SPECIAL(scaled_modified_bessel_k0)
EMBER_ATEN_SPECIAL(scaled_modified_bessel_k1)
EMBER_ATEN_SPECIAL(spherical_bessel_j0)
EMBER_ATEN_SPECIAL(airy_ai)
EMBER_ATEN_SPECIAL(chebyshev_polynomial_t)
EMBER_ATEN_SPECIAL(chebyshev_polynomial_u)
EMBER_ATEN_SPECIAL(chebyshev_polynomial_v)
EMBER_ATEN_SPECIAL(chebyshev_polynomial_w)
EMBER_ATEN_SPECIAL(shifted_chebyshev_polynomial_t)
EMBER_ATEN_SPECIAL(shifted_chebyshev_polynomial_u)
EMBER_ATEN_SPECIAL(shifted_chebyshev_polynomial_v)
EMBER_ATEN_SPECIAL(shifted_chebyshev_polynomial_w)
EMBER_ATEN_SPECIAL(hermite_polynomial_h)
EMBER_ATEN_SPECIAL(hermite_polynomial_he)
EMBER_ATEN_SPECIAL(laguerre_polynomial_l)
EMBER_ATEN_SPECIAL(legendre_polynomial_p)
EMBER_ATEN_SPECIAL(expit)
EMBER_ATEN_SPECIAL(gammaln)
EMBER_ATEN_SPECIAL(digamma)
EMBER_ATEN_SPECIAL(psi)
EMBER_ATEN_SPECIAL(polygamma)
EMBER_ATEN_SPECIAL(multigammaln)
EMBER_ATEN_SPECIAL(erf)
EMBER_ATEN_SPECIAL(erfc)
EMBER_ATEN_SPECIAL(erfinv)
EMBER_ATEN_SPECIAL(exp2)
EMBER_ATEN_SPECIAL(expm1)
EMBER_ATEN_SPECIAL(log1p)
EMBER_ATEN_SPECIAL(sinc)
EMBER_ATEN_SPECIAL(round)
EMBER_ATEN_SPECIAL(logit)
EMBER_ATEN_SPECIAL(softmax)
EMBER_ATEN_SPECIAL(log_softmax)
#undef EMBER_ATEN_SPECIAL
// A braced list of dims does not pass through a template: at::special_logsumexp(x, {1}).
inline Tensor special_logsumexp(const Tensor& self, IntArrayRef dims, bool keepdim = false) {
  return ember::special::logsumexp(self, dims, keepdim);
}
// ATen's own name for the Bessel function, and its Tensor-less in-place form.
inline Tensor i0(const Tensor& self) { return ember::special::i0(self); }
inline Tensor& i0_(Tensor& self) { return self.copy_(ember::special::i0(self)); }
// ATen's names for the incomplete gamma functions (torch::igamma too, through torch's using-directive).
inline Tensor igamma(const Tensor& self, const Tensor& other) { return ember::special::gammainc(self, other); }
inline Tensor igammac(const Tensor& self, const Tensor& other) { return ember::special::gammaincc(self, other); }

// The out= forms (aten_out.h's rules: resized out, dtype checked, no autograd).
#define EMBER_SPECIAL_OUT(name) EMBER_ATEN_OUT_OF(special_##name)
EMBER_ATEN_OUT_OF(i0)
EMBER_ATEN_OUT_OF(igamma)
EMBER_ATEN_OUT_OF(igammac)
EMBER_SPECIAL_OUT(erfcx)
EMBER_SPECIAL_OUT(ndtr)
EMBER_SPECIAL_OUT(ndtri)
EMBER_SPECIAL_OUT(log_ndtr)
EMBER_SPECIAL_OUT(entr)
EMBER_SPECIAL_OUT(xlog1py)
EMBER_SPECIAL_OUT(xlogy)
EMBER_SPECIAL_OUT(i0)
EMBER_SPECIAL_OUT(i0e)
EMBER_SPECIAL_OUT(i1)
EMBER_SPECIAL_OUT(i1e)
EMBER_SPECIAL_OUT(gammainc)
EMBER_SPECIAL_OUT(gammaincc)
EMBER_SPECIAL_OUT(zeta)
EMBER_SPECIAL_OUT(bessel_j0)
EMBER_SPECIAL_OUT(bessel_j1)
EMBER_SPECIAL_OUT(bessel_y0)
EMBER_SPECIAL_OUT(bessel_y1)
EMBER_SPECIAL_OUT(modified_bessel_i0)
EMBER_SPECIAL_OUT(modified_bessel_i1)
EMBER_SPECIAL_OUT(modified_bessel_k0)
EMBER_SPECIAL_OUT(modified_bessel_k1)
EMBER_SPECIAL_OUT(scaled_modified_bessel_k0)
EMBER_SPECIAL_OUT(scaled_modified_bessel_k1)
EMBER_SPECIAL_OUT(spherical_bessel_j0)
EMBER_SPECIAL_OUT(airy_ai)
EMBER_SPECIAL_OUT(chebyshev_polynomial_t)
EMBER_SPECIAL_OUT(chebyshev_polynomial_u)
EMBER_SPECIAL_OUT(chebyshev_polynomial_v)
EMBER_SPECIAL_OUT(chebyshev_polynomial_w)
EMBER_SPECIAL_OUT(shifted_chebyshev_polynomial_t)
EMBER_SPECIAL_OUT(shifted_chebyshev_polynomial_u)
EMBER_SPECIAL_OUT(shifted_chebyshev_polynomial_v)
EMBER_SPECIAL_OUT(shifted_chebyshev_polynomial_w)
EMBER_SPECIAL_OUT(hermite_polynomial_h)
EMBER_SPECIAL_OUT(hermite_polynomial_he)
EMBER_SPECIAL_OUT(laguerre_polynomial_l)
EMBER_SPECIAL_OUT(legendre_polynomial_p)
EMBER_SPECIAL_OUT(expit)
EMBER_SPECIAL_OUT(gammaln)
EMBER_SPECIAL_OUT(digamma)
EMBER_SPECIAL_OUT(psi)
EMBER_SPECIAL_OUT(polygamma)
EMBER_SPECIAL_OUT(multigammaln)
EMBER_SPECIAL_OUT(erf)
EMBER_SPECIAL_OUT(erfc)
EMBER_SPECIAL_OUT(erfinv)
EMBER_SPECIAL_OUT(exp2)
EMBER_SPECIAL_OUT(expm1)
EMBER_SPECIAL_OUT(log1p)
EMBER_SPECIAL_OUT(sinc)
EMBER_SPECIAL_OUT(round)
EMBER_SPECIAL_OUT(logit)
EMBER_SPECIAL_OUT(softmax)
EMBER_SPECIAL_OUT(log_softmax)
EMBER_SPECIAL_OUT(logsumexp)
#undef EMBER_SPECIAL_OUT
#undef EMBER_ATEN_OUT_OF

}  // namespace ember::compat_aten
