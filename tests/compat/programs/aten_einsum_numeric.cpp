// ATen's einsum, the products with an added term and the numeric functions as a libtorch program
// calls them: einsum (matmul, trace, batch, ellipsis, implicit output), addmv/addr/baddbmm/addbmm,
// inner, chain_matmul, the splits and flips, fmax/fmin with NaN, logcumsumexp, trapezoid,
// cumulative_trapezoid, cov, corrcoef, vander, logspace, the signal windows, signbit, with gradients
// through einsum and cov.
#include <iomanip>
#include <iostream>

#include <torch/torch.h>

int main() {
  std::cout << std::setprecision(6);
  auto a = torch::arange(6, torch::kFloat32).reshape({2, 3}).sub(2.5).requires_grad_();
  auto b = torch::tensor({{1.0f, -2.0f}, {0.5f, 3.0f}, {2.0f, 0.25f}});
  auto p = torch::einsum("ij,jk->ik", {a, b});
  p.sum().backward();
  std::cout << "einsum matmul\n" << p << "\ngrad\n" << a.grad() << "\n";
  auto sq = torch::arange(9, torch::kFloat32).reshape({3, 3});
  std::cout << "einsum trace\n" << torch::einsum("ii", {sq}) << "\ndiagonal\n" << torch::einsum("ii->i", {sq}) << "\n";
  auto batch = torch::arange(12, torch::kFloat32).reshape({2, 2, 3});
  std::cout << "einsum batch\n" << torch::einsum("bij,bkj->bik", {batch, batch}) << "\n";
  std::cout << "einsum ellipsis\n" << torch::einsum("...ij->...ji", {batch}).sizes() << "\n";
  std::cout << "einsum implicit\n" << torch::einsum("jk,ij", {b, a.detach()}) << "\n";
  std::cout << "addmv\n" << torch::addmv(torch::ones({2}), a.detach(), torch::ones({3}), 0.5, 2) << "\n";
  std::cout << "addr\n" << torch::addr(torch::zeros({2, 3}), torch::tensor({1.0f, 2.0f}), torch::ones({3})) << "\n";
  std::cout << "baddbmm\n" << torch::baddbmm(torch::ones({2, 2}), batch, batch.transpose(1, 2), 1, 0.5) << "\n";
  std::cout << "addbmm\n" << torch::addbmm(torch::zeros({2, 2}), batch, batch.transpose(1, 2)) << "\n";
  std::cout << "inner\n" << torch::inner(a.detach(), b.t()) << "\n";
  std::cout << "chain_matmul\n" << torch::chain_matmul({a.detach(), b, b.t()}) << "\n";
  std::cout << "fliplr\n" << torch::fliplr(a.detach()) << "\nflipud\n" << torch::flipud(a.detach()) << "\n";
  for (const auto& piece : torch::hsplit(torch::arange(6).reshape({2, 3}), {1}))
    std::cout << "hsplit\n" << piece << "\n";
  auto nan = std::numeric_limits<float>::quiet_NaN();
  auto x = torch::tensor({1.0f, nan, 3.0f, nan});
  auto y = torch::tensor({2.0f, 0.5f, nan, nan});
  std::cout << "fmax\n" << torch::fmax(x, y) << "\nfmin\n" << torch::fmin(x, y) << "\n";
  std::cout << "logcumsumexp\n" << torch::logcumsumexp(torch::tensor({-1000.0f, 0.0f, 1000.0f}), 0) << "\n";
  auto samples = torch::tensor({{1.0f, 2.0f, 4.0f}, {0.0f, 1.0f, 1.0f}});
  std::cout << "trapezoid\n"
            << torch::trapezoid(samples, torch::tensor({0.0f, 0.5f, 2.0f})) << "\n"
            << torch::trapezoid(samples, 0.5) << "\ncumulative_trapezoid\n"
            << torch::cumulative_trapezoid(samples) << "\n";
  auto obs = torch::tensor({{1.0f, 2.0f, 4.0f, 7.0f}, {2.0f, 1.0f, 0.0f, 3.0f}}).requires_grad_();
  auto c = torch::cov(obs);
  c.sum().backward();
  std::cout << "cov\n" << c << "\ngrad\n" << obs.grad() << "\ncorrcoef\n" << torch::corrcoef(obs.detach()) << "\n";
  std::cout << "vander\n" << torch::vander(torch::tensor({1, 2, 3})) << "\n";
  std::cout << "logspace\n" << torch::logspace(0, 2, 3) << "\n";
  std::cout << "windows\n"
            << torch::hann_window(5) << "\n"
            << torch::hamming_window(5, false) << "\n"
            << torch::blackman_window(4) << "\n"
            << torch::bartlett_window(5, false) << "\n";
  std::cout << "signbit\n" << torch::signbit(torch::tensor({-0.0f, 0.0f, -2.0f})) << "\n";
  return 0;
}
