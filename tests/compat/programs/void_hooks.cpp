// Tensor hooks that return void (they only look) beside hooks that return a new gradient.
#include <iostream>
#include <vector>

#include <torch/torch.h>

int main() {
  torch::Tensor x = torch::tensor({1.0, -2.0, 3.0}, torch::requires_grad());
  std::vector<double> seen;
  x.register_hook([&](torch::Tensor grad) { seen.push_back(grad.sum().item<double>()); });
  torch::Tensor h = x * x;
  h.register_hook([](const torch::Tensor& grad) { std::cout << "hook on h sees " << grad << '\n'; });
  auto handle = h.register_hook([](torch::Tensor grad) { return grad * 10; });
  h.register_hook([&](torch::Tensor grad) { seen.push_back(grad.sum().item<double>()); });
  h.sum().backward();
  std::cout << x.grad() << '\n';
  for (double v : seen) std::cout << "seen " << v << '\n';

  // Removing the hook that scales.
  x.mutable_grad().zero_();
  seen.clear();
  torch::Tensor h2 = x * x;
  auto scale = h2.register_hook([](torch::Tensor grad) { return grad * 10; });
  h2.register_hook([&](torch::Tensor grad) { seen.push_back(grad.sum().item<double>()); });
  h2.remove_hook(scale);
  h2.sum().backward();
  std::cout << x.grad() << '\n';
  for (double v : seen) std::cout << "seen " << v << '\n';
  (void)handle;
}
