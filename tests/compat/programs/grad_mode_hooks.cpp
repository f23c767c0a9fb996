// Grad mode and graph inspection: NoGradGuard, AutoGradMode, detach, retain_grad, hooks that
// rewrite gradients, grad_fn and backward with retain_graph.
#include <iostream>

#include <torch/torch.h>

int main() {
  torch::Tensor x = torch::tensor({1.0, 2.0, 3.0}, torch::requires_grad());
  torch::Tensor h = x * 2;
  h.retain_grad();
  torch::Tensor y = h.pow(2).sum();
  std::cout << (y.grad_fn() != nullptr) << " " << (x.grad_fn() == nullptr) << std::endl;
  y.backward({}, /*retain_graph=*/true);
  std::cout << h.grad() << std::endl << x.grad() << std::endl;
  y.backward();
  std::cout << x.grad() << std::endl;  // accumulated twice

  // A hook doubles the gradient flowing into x.
  torch::Tensor w = torch::tensor({0.5, -1.0}, torch::requires_grad());
  w.register_hook([](torch::Tensor grad) { return grad * 2; });
  (w * w * w).sum().backward();
  std::cout << w.grad() << std::endl;

  {
    torch::NoGradGuard guard;
    torch::Tensor z = x * 3;
    std::cout << z.requires_grad() << std::endl;
    {
      torch::AutoGradMode enable(true);
      std::cout << (x * 3).requires_grad() << std::endl;
    }
    x.add_(1);  // an update autograd does not see
  }
  std::cout << x << std::endl;
  std::cout << x.detach().requires_grad() << " " << torch::GradMode::is_enabled() << std::endl;

  // In-place ops on a non-leaf keep the graph right.
  torch::Tensor a = torch::tensor({0.25, 0.75}, torch::requires_grad());
  torch::Tensor b = a * 2;
  b.mul_(a);
  b.sum().backward();
  std::cout << a.grad() << std::endl;  // d/da 2 a^2 = 4 a

  // Gradient through a chain of views.
  torch::Tensor m = torch::arange(6, torch::kFloat).requires_grad_(true);
  torch::Tensor v = m.view({2, 3}).t().slice(0, 1, 3);
  (v * v).sum().backward();
  std::cout << m.grad() << std::endl;
}
