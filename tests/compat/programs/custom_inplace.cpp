// A custom autograd function that works in place: ctx->mark_dirty, and libtorch's checks around it.
#include <iostream>

#include <torch/torch.h>

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// x *= 2 in place; d/dx = 2.
struct DoubleInplace : public torch::autograd::Function<DoubleInplace> {
  static torch::Tensor forward(AutogradContext* ctx, torch::Tensor x) {
    x.mul_(2);
    ctx->mark_dirty({x});
    return x;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) { return {grad_outputs[0] * 2}; }
};

// Marks its input dirty but returns a new tensor: an error.
struct ForgetsOutput : public torch::autograd::Function<ForgetsOutput> {
  static torch::Tensor forward(AutogradContext* ctx, torch::Tensor x) {
    ctx->mark_dirty({x});
    return x * 1;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) { return {grad_outputs[0]}; }
};

int main() {
  torch::Tensor a = torch::tensor({1.0, 2.0, 3.0}, torch::requires_grad());
  torch::Tensor b = a * 3;  // not a leaf: it may be modified in place
  torch::Tensor c = DoubleInplace::apply(b);
  std::cout << c << '\n';
  std::cout << "same tensor: " << c.is_same(b) << ", b now has history: " << (b.grad_fn() != nullptr) << '\n';
  std::cout << "b's values: " << b << '\n';
  (c * c).sum().backward();
  std::cout << a.grad() << '\n';

  // Twice in a row.
  torch::Tensor p = torch::tensor({0.5, -1.0}, torch::requires_grad());
  torch::Tensor q = p + 0;
  DoubleInplace::apply(q);
  DoubleInplace::apply(q);
  q.sum().backward();
  std::cout << q << '\n' << p.grad() << '\n';

  // Without grad tracking the function simply modifies its input.
  torch::Tensor plain = torch::ones({2});
  DoubleInplace::apply(plain);
  std::cout << plain << '\n';

  try {
    DoubleInplace::apply(a);
    std::cout << "leaf accepted\n";
  } catch (const c10::Error& e) {
    std::cout << "a leaf that requires grad: c10::Error\n";
  }
  try {
    ForgetsOutput::apply(a * 1);
    std::cout << "accepted\n";
  } catch (const c10::Error& e) {
    std::cout << "dirty but not returned: c10::Error\n";
  }
}
