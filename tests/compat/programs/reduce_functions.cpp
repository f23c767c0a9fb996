// Reductions and elementwise ops as torch:: functions: torch::sum(t, dim), torch::max(t, dim), torch::erf.
#include <iostream>

#include <torch/torch.h>

int main() {
  torch::manual_seed(3);
  torch::Tensor x = torch::randn({3, 4});
  std::cout << torch::sum(x, 1) << '\n';
  std::cout << torch::sum(x, {0}, /*keepdim=*/true) << '\n';
  std::cout << torch::mean(x, at::IntArrayRef{0, 1}) << '\n';
  std::cout << torch::mean(x, {0}, true) << '\n';
  auto [values, indices] = torch::max(x, 1);
  std::cout << values << '\n' << indices << '\n';
  auto mins = torch::min(x, 0, /*keepdim=*/true);
  std::cout << std::get<0>(mins) << '\n' << std::get<1>(mins) << '\n';
  std::cout << torch::max(x) << '\n' << torch::min(x) << '\n';
  std::cout << torch::argmax(x, 1) << '\n' << torch::argmin(x) << '\n';
  std::cout << torch::amax(x, {1}) << '\n' << torch::logsumexp(x, {1}) << '\n';
  std::cout << torch::erf(x) << '\n' << torch::erfc(x) << '\n';
  std::cout << torch::square(x).sum() << '\n' << torch::log1p(torch::abs(x)).sum() << '\n';
  std::cout << torch::clamp(x, -0.5, 0.5) << '\n';
  std::cout << torch::all(x.abs() < 5) << ' ' << torch::any(x > 2) << '\n';

  torch::Tensor w = x.clone().requires_grad_(true);
  (torch::erf(w).sum() + torch::erfc(w * 2).sum()).backward();
  std::cout << w.grad() << '\n';
}
