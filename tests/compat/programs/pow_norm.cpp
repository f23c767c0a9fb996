// torch::pow in its three forms and the p-norms over dims, with their gradients.
#include <cmath>
#include <iostream>
#include <limits>

#include <torch/torch.h>

int main() {
  torch::Tensor x = torch::tensor({{1.0, -2.0, 3.0}, {-0.5, 0.0, 4.0}}, torch::requires_grad());
  std::cout << torch::pow(x, 2) << '\n';
  std::cout << torch::pow(x, torch::full({2, 3}, 3.0)) << '\n';
  std::cout << torch::pow(2, torch::tensor({0.0, 1.0, 2.5})) << '\n';
  std::cout << x.norm() << '\n';
  std::cout << x.norm(2, /*dim=*/1) << '\n';
  std::cout << x.norm(1, {1}, /*keepdim=*/true) << '\n';
  const double inf = std::numeric_limits<double>::infinity();
  std::cout << x.norm(inf, {0}) << '\n';
  std::cout << x.norm(-inf, {1}) << '\n';
  std::cout << x.norm(3, {1}) << '\n';
  std::cout << x.norm(0, {1}) << '\n';
  std::cout << torch::norm(x, 2, at::IntArrayRef{0, 1}) << '\n';
  std::cout << torch::frobenius_norm(x, {0, 1}) << '\n';

  torch::Tensor loss = x.norm(2, 1).sum() + torch::pow(x, 3).sum();
  loss.backward();
  std::cout << x.grad() << '\n';
  // The gradient of the 2-norm of a zero row is zero, not NaN.
  torch::Tensor z = torch::zeros({2, 2}, torch::requires_grad());
  z.norm(2, 1).sum().backward();
  std::cout << z.grad() << '\n';
}
