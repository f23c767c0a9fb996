// <torch/torch.h>, part: ATen's discrete draws (poisson, binomial), their out= forms, and
// histogramdd, with libtorch 1.13's signatures (ATen/ops/poisson.h, binomial.h, histogramdd.h):
//
//   torch::manual_seed(0);
//   torch::Tensor n = torch::poisson(torch::full({3}, 4.0));  // libtorch's numbers for the seed
//   torch::binomial_out(out, count, prob);
//   auto [hist, edges] = torch::histogramdd(points, std::vector<int64_t>{4, 3});
//
// The draws are ember::poisson and ember::binomial (core/random_discrete.h); this part adds what
// libtorch's autograd does with them: poisson's result takes a zero gradient for the rates
// (PoissonBackward0), binomial's joins the graph with a backward that refuses, as 1.13's
// NotImplemented node does. histogramdd is ember::histogramdd (autograd/histogramdd.h) as it is.
#pragma once

#include <optional>

#include "autograd/histogramdd.h"
#include "autograd/node.h"
#include "core/random_discrete.h"
#include "ember_compat/aten_out.h"

namespace torch {

inline Tensor poisson(const Tensor& self, std::optional<Generator> generator = std::nullopt) {
  Tensor drawn = ember::poisson(self, generator);
  if (ember::autograd::any_requires_grad({&self})) {
    // d poisson(rates) / d rates = 0, as libtorch defines it
    ember::autograd::record("PoissonBackward0", drawn, {self},
                            [](const Tensor& grad) -> tensor_list { return {zeros_like(grad)}; });
  }
  return drawn;
}

inline Tensor binomial(const Tensor& count, const Tensor& prob, std::optional<Generator> generator = std::nullopt) {
  Tensor drawn = ember::binomial(count, prob, generator);
  if (ember::autograd::any_requires_grad({&count, &prob})) {
    ember::autograd::record("NotImplemented", drawn, {count, prob}, [](const Tensor&) -> tensor_list {
      EMBER_FAIL("derivative for aten::binomial is not implemented");
    });
  }
  return drawn;
}

namespace compat_detail {
// libtorch's generated out= forms of poisson and binomial: out takes the draws' shape (with the
// resize warning when it had elements) and their values cast to its dtype and device.
inline Tensor& draws_into(Tensor& out, const Tensor& drawn, const char* op) {
  return ember::compat_aten::detail::assign_out(out, drawn.to(out.scalar_type()).to(out.device()), op);
}
}  // namespace compat_detail

inline Tensor& poisson_out(Tensor& out, const Tensor& self, std::optional<Generator> generator = std::nullopt) {
  ember::compat_aten::detail::refuse_grad("poisson_out", self);
  return compat_detail::draws_into(out, ember::poisson(self, generator), "poisson_out");
}
inline Tensor& poisson_outf(const Tensor& self, std::optional<Generator> generator, Tensor& out) {
  return poisson_out(out, self, generator);
}
inline Tensor& binomial_out(Tensor& out, const Tensor& count, const Tensor& prob,
                            std::optional<Generator> generator = std::nullopt) {
  ember::compat_aten::detail::refuse_grad("binomial_out", count, prob);
  return compat_detail::draws_into(out, ember::binomial(count, prob, generator), "binomial_out");
}
inline Tensor& binomial_outf(const Tensor& count, const Tensor& prob, std::optional<Generator> generator, Tensor& out) {
  return binomial_out(out, count, prob, generator);
}

}  // namespace torch

// A using-declaration in at:: hides ember::poisson, which at:: also sees through its using-directive.
namespace at {
using torch::binomial;
using torch::binomial_out;
using torch::binomial_outf;
using torch::poisson;
using torch::poisson_out;
using torch::poisson_outf;
}  // namespace at
