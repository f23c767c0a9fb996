// Custom functions: mark_non_differentiable, set_materialize_grads and torch::autograd::UndefinedGrad.
#include <iostream>

#include <torch/csrc/autograd/functions/basic_ops.h>
#include <torch/torch.h>

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// Returns (2x, x > 0): the mask is marked non-differentiable.
struct ScaleAndMask : public torch::autograd::Function<ScaleAndMask> {
  static variable_list forward(AutogradContext* ctx, torch::Tensor x) {
    torch::Tensor mask = (x > 0).to(x.scalar_type());
    ctx->mark_non_differentiable({mask});
    return {x * 2, mask};
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    std::cout << "  ScaleAndMask backward: grad of the mask defined: " << grads[1].defined() << '\n';
    return {grads[0] * 2};
  }
};

// Returns (x, 3x) and reports what backward receives for each output.
template <bool Materialize>
struct TwoOutputs : public torch::autograd::Function<TwoOutputs<Materialize>> {
  static variable_list forward(AutogradContext* ctx, torch::Tensor x) {
    ctx->set_materialize_grads(Materialize);
    return {x.clone(), x * 3};
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    std::cout << "  backward sees: " << grads[0].defined() << ' ' << grads[1].defined();
    if (grads[1].defined()) std::cout << " (second: " << grads[1].sum().item<double>() << ")";
    std::cout << '\n';
    torch::Tensor g = grads[0].defined() ? grads[0] : torch::zeros_like(grads[1]);
    if (grads[1].defined()) g = g + grads[1] * 3;
    return {g};
  }
};

int main() {
  torch::Tensor x = torch::tensor({-1.0, 0.5, 2.0}, torch::requires_grad());
  auto out = ScaleAndMask::apply(x);
  std::cout << "mask requires grad: " << out[1].requires_grad() << ", scaled requires grad: " << out[0].requires_grad()
            << '\n';
  (out[0] * out[1]).sum().backward();
  std::cout << x.grad() << '\n';

  std::cout << "materialize (default), only the first output used:\n";
  torch::Tensor y = torch::tensor({1.0, 2.0}, torch::requires_grad());
  TwoOutputs<true>::apply(y)[0].sum().backward();
  std::cout << y.grad() << '\n';
  std::cout << "no materialize, only the first output used:\n";
  torch::Tensor z = torch::tensor({1.0, 2.0}, torch::requires_grad());
  TwoOutputs<false>::apply(z)[0].sum().backward();
  std::cout << z.grad() << '\n';

  std::cout << "UndefinedGrad on the second output:\n";
  torch::Tensor w = torch::tensor({1.0, 2.0}, torch::requires_grad());
  auto outs = TwoOutputs<false>::apply(w);
  torch::Tensor cut = torch::autograd::UndefinedGrad().apply({outs[1]})[0];
  (outs[0] + cut).sum().backward();
  std::cout << w.grad() << '\n';
  std::cout << "UndefinedGrad on every output, materialized:\n";
  torch::Tensor v = torch::tensor({1.0, 2.0}, torch::requires_grad());
  auto vouts = TwoOutputs<true>::apply(v);
  torch::autograd::UndefinedGrad().apply({vouts[0]})[0].sum().backward();
  std::cout << v.grad() << '\n';
}
