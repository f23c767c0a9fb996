// torch::special as libtorch programs call it: the normal distribution's CDF, its log and inverse
// (probit models, Gaussian likelihoods), erfcx, entr and xlog1py (entropies), the scaled Bessel
// functions (von Mises densities), the orthogonal polynomials (spectral features), and the
// torch::special spellings of common ops, with gradients through ndtr and log_ndtr.
#include <iomanip>
#include <iostream>

#include <torch/torch.h>

int main() {
  std::cout << std::setprecision(10);
  torch::Tensor x = torch::tensor({-12.0, -3.5, -0.7, 0.0, 0.4, 2.2, 9.0}, torch::kDouble);
  std::cout << torch::special::ndtr(x) << std::endl << torch::special::log_ndtr(x) << std::endl;
  std::cout << torch::special::erfcx(x) << std::endl;
  torch::Tensor p = torch::tensor({1e-30, 0.01, 0.5, 0.9, 0.999}, torch::kDouble);
  std::cout << torch::special::ndtri(p) << std::endl << at::special_ndtri(p.to(torch::kFloat)) << std::endl;

  torch::Tensor probs = torch::tensor({0.0, 0.1, 0.5, 1.0, 2.0});
  std::cout << torch::special::entr(probs) << std::endl;
  std::cout << torch::special::xlog1py(probs, torch::tensor({0.5, 1.0, -1.0, 3.0, 0.0})) << std::endl;
  std::cout << torch::special::xlogy(2.0, probs) << std::endl;

  torch::Tensor kappa = torch::tensor({0.0, 0.5, 3.0, 50.0}, torch::kDouble);
  std::cout << torch::special::i0(kappa) << std::endl << torch::special::i0e(kappa) << std::endl;
  std::cout << torch::special::i1(-kappa) << std::endl << at::special_i1e(kappa) << std::endl;
  torch::Tensor out = torch::empty({0}, torch::kDouble);
  torch::Tensor& same = at::special_ndtr_out(out, kappa - 1);
  std::cout << out << std::endl << (&same == &out) << " " << at::i0(kappa).sum().item<double>() << std::endl;
  at::special_chebyshev_polynomial_u_outf(kappa / 100, 3, out);
  std::cout << out << std::endl;

  torch::Tensor u = torch::linspace(-1, 1, 5, torch::kDouble);
  std::cout << torch::special::chebyshev_polynomial_t(u, 3) << std::endl;
  std::cout << torch::special::legendre_polynomial_p(u, torch::tensor({0, 1, 2, 3, 4})) << std::endl;
  std::cout << torch::special::hermite_polynomial_h(u, 4) << std::endl;
  std::cout << torch::special::laguerre_polynomial_l(u, 2) << std::endl;
  std::cout << torch::special::shifted_chebyshev_polynomial_u((u + 1) / 2, 2) << std::endl;

  torch::Tensor logits = torch::tensor({{1.0, 2.0, 0.5}, {-1.0, 0.0, 3.0}});
  std::cout << torch::special::softmax(logits, 1, torch::kDouble) << std::endl;
  std::cout << torch::special::log_softmax(logits, 0, c10::nullopt) << std::endl
            << torch::special::logsumexp(logits, {1}, true) << std::endl;
  std::cout << torch::special::expit(logits) << std::endl << torch::special::logit(torch::sigmoid(logits)) << std::endl;
  std::cout << torch::special::gammaln(logits.abs() + 1) << std::endl << torch::special::psi(logits.abs() + 1) << std::endl;
  std::cout << torch::special::round(logits * 1.2345) << std::endl << at::special_round(logits * 12.345, 1) << std::endl;

  torch::Tensor z = torch::tensor({-4.0, -0.5, 1.5}, torch::requires_grad());
  torch::Tensor loss = torch::special::log_ndtr(z).sum() + torch::special::ndtr(z).sum();
  loss.backward();
  std::cout << loss << std::endl << z.grad() << std::endl;
  return 0;
}
