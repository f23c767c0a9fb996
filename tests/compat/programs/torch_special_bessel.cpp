// torch::special's Bessel functions, zeta and the incomplete gamma functions as libtorch programs
// call them: the wave-equation and waveguide modes (J, Y), heat and diffusion kernels (I, K, scaled
// K), a spherical scatterer (j0), Airy's Ai for a linear potential, Hurwitz's zeta, and the gamma
// distribution's CDF through gammainc / at::igamma with its gradient for x; out= forms too.
#include <iomanip>
#include <iostream>

#include <torch/torch.h>

int main() {
  std::cout << std::setprecision(10);
  torch::Tensor r = torch::tensor({0.0, 0.5, 2.4048, 7.0, 30.0, 250.0}, torch::kDouble);
  std::cout << torch::special::bessel_j0(r) << std::endl << torch::special::bessel_j1(-r) << std::endl;
  std::cout << torch::special::bessel_y0(r) << std::endl << at::special_bessel_y1(r.to(torch::kFloat)) << std::endl;

  torch::Tensor s = torch::tensor({-3.0, 0.0, 0.01, 1.0, 6.0, 45.0}, torch::kDouble);
  std::cout << torch::special::modified_bessel_i0(s) << std::endl << torch::special::modified_bessel_i1(s) << std::endl;
  std::cout << torch::special::modified_bessel_k0(s) << std::endl << at::special_modified_bessel_k1(s) << std::endl;
  std::cout << torch::special::scaled_modified_bessel_k0(s) << std::endl
            << torch::special::scaled_modified_bessel_k1(s.to(torch::kFloat)) << std::endl;
  std::cout << torch::special::spherical_bessel_j0(s) << std::endl;

  torch::Tensor z = torch::linspace(-12, 4, 9, torch::kDouble);
  std::cout << torch::special::airy_ai(z) << std::endl;
  std::cout << torch::special::airy_ai(torch::tensor({-0.5f, 0.0f, 2.0f})).sum().item<float>() << std::endl;

  torch::Tensor q = torch::tensor({0.5, 1.0, 2.0, 10.0}, torch::kDouble);
  std::cout << torch::special::zeta(torch::tensor({2.0, 3.0, 4.5, 1.5}, torch::kDouble), q) << std::endl;
  std::cout << torch::special::zeta(2.0, q) << std::endl << at::special_zeta(q + 1, 1.0) << std::endl;

  torch::Tensor shape = torch::tensor({0.5, 1.0, 2.0, 9.0, 100.0}, torch::kDouble);
  torch::Tensor x = torch::tensor({0.3, 1.0, 2.5, 7.0, 110.0}, torch::kDouble);
  std::cout << torch::special::gammainc(shape, x) << std::endl << torch::special::gammaincc(shape, x) << std::endl;
  std::cout << at::igamma(shape, x).sum().item<double>() << " " << torch::igammac(shape, x).sum().item<double>()
            << std::endl;
  std::cout << at::special_gammainc(shape.to(torch::kFloat), x.to(torch::kFloat)) << std::endl;

  torch::Tensor out = torch::empty({0}, torch::kDouble);
  torch::Tensor& same = at::special_gammaincc_out(out, shape, x);
  std::cout << out << std::endl << (&same == &out) << std::endl;
  at::igamma_out(out, shape, x * 2);
  std::cout << out << std::endl;
  at::special_bessel_j0_outf(r, out);
  std::cout << out << std::endl;
  at::special_zeta_out(out, 3.0, q);
  std::cout << out << std::endl;
  at::igammac_outf(shape, x, out);
  std::cout << out.sum().item<double>() << std::endl;

  torch::Tensor t = torch::tensor({0.5, 2.0, 6.0}, torch::dtype(torch::kDouble).requires_grad(true));
  torch::Tensor cdf = torch::special::gammainc(torch::tensor({1.5, 2.0, 4.0}, torch::kDouble), t);
  cdf.sum().backward();
  std::cout << cdf << std::endl << t.grad() << std::endl;
  torch::Tensor w = torch::tensor({1.0, 3.0}, torch::dtype(torch::kDouble).requires_grad(true));
  torch::special::zeta(2.0, w).sum().backward();
  std::cout << w.grad() << std::endl;
  return 0;
}
