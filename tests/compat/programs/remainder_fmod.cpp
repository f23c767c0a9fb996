// % and torch::remainder take the divisor's sign (Python's %); torch::fmod the dividend's.
#include <iostream>

#include <torch/torch.h>

int main() {
  torch::Tensor a = torch::tensor({-7.5, -3.0, -1.0, 0.0, 1.0, 5.5, 7.0});
  std::cout << a % 2 << '\n';
  std::cout << torch::remainder(a, -2) << '\n';
  std::cout << torch::fmod(a, 2) << '\n';
  std::cout << torch::fmod(a, -2) << '\n';
  torch::Tensor n = torch::arange(-5, 6);
  std::cout << n % 3 << '\n';
  std::cout << torch::remainder(n, -3) << '\n';
  std::cout << torch::fmod(n, 3) << '\n';
  std::cout << (n % 2 == 0) << '\n';
  torch::Tensor b = torch::tensor({3.0, -3.0, 2.5, -0.75, 4.0, 2.0, -2.0});
  std::cout << a.remainder(b) << '\n';
  std::cout << a.fmod(b) << '\n';

  torch::Tensor x = torch::tensor({5.5, -7.25, 3.0}, torch::requires_grad());
  torch::Tensor y = torch::tensor({2.0, 3.0, -1.5}, torch::requires_grad());
  (torch::remainder(x, y) * torch::tensor({1.0, 2.0, 3.0})).sum().backward();
  std::cout << x.grad() << '\n' << y.grad() << '\n';
  x.mutable_grad().zero_();
  y.mutable_grad().zero_();
  torch::fmod(x, y).sum().backward();
  std::cout << x.grad() << '\n' << y.grad() << '\n';
}
