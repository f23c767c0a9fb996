// Autograd basics, as libtorch's autograd tutorial: gradients of a small graph, vector-Jacobian
// products, requires_grad_, detach and NoGradGuard.
#include <iostream>

#include <torch/torch.h>

int main() {
  torch::Tensor x = torch::ones({2, 2}, torch::requires_grad());
  std::cout << x << std::endl;
  torch::Tensor y = x + 2;
  torch::Tensor z = y * y * 3;
  torch::Tensor out = z.mean();
  std::cout << z << std::endl << out << std::endl;
  std::cout << "y requires grad: " << y.requires_grad() << ", x is leaf: " << x.is_leaf() << std::endl;
  out.backward();
  std::cout << x.grad() << std::endl;  // d(out)/dx = 1.5 (x + 2) = 4.5

  torch::Tensor a = torch::randn({2, 2});
  a = ((a * 3) / (a - 1));
  std::cout << a.requires_grad() << std::endl;
  a.requires_grad_(true);
  torch::Tensor b = (a * a).sum();
  std::cout << b.requires_grad() << std::endl;

  // A vector-Jacobian product: y is not a scalar, so backward needs a gradient.
  torch::manual_seed(1);
  torch::Tensor v = torch::randn({3}, torch::requires_grad());
  torch::Tensor w = v * 2;
  while (w.norm().item<double>() < 1000) w = w * 2;
  std::cout << w << std::endl;
  torch::Tensor gradient = torch::tensor({0.1, 1.0, 0.0001}, torch::kFloat);
  w.backward(gradient);
  std::cout << v.grad() << std::endl;

  std::cout << v.requires_grad() << " " << v.pow(2).requires_grad() << std::endl;
  {
    torch::NoGradGuard no_grad;
    std::cout << v.pow(2).requires_grad() << std::endl;
  }
  torch::Tensor d = v.detach();
  std::cout << d.requires_grad() << " " << torch::equal(d, v) << std::endl;

  // Gradients accumulate across backward calls until cleared.
  torch::Tensor p = torch::tensor({1.5, -2.0, 0.5}, torch::requires_grad());
  for (int i = 0; i < 3; ++i) (p * p * p).sum().backward();
  std::cout << p.grad() << std::endl;  // 3 * 3 p^2
  p.mutable_grad().zero_();
  (p.exp() * p.sin()).sum().backward();
  std::cout << p.grad() << std::endl;
}
