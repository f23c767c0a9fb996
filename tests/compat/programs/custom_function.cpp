// Custom autograd functions, as in libtorch's documentation: a linear function with saved tensors
// and a multiply-by-constant with a saved non-tensor value.
#include <iostream>

#include <torch/torch.h>

using torch::autograd::AutogradContext;
using torch::autograd::tensor_list;
using torch::autograd::variable_list;

struct LinearFunction : public torch::autograd::Function<LinearFunction> {
  static torch::Tensor forward(AutogradContext* ctx, torch::Tensor input, torch::Tensor weight,
                               torch::Tensor bias = torch::Tensor()) {
    ctx->save_for_backward({input, weight, bias});
    auto output = input.mm(weight.t());
    if (bias.defined()) output += bias.unsqueeze(0).expand_as(output);
    return output;
  }
  static tensor_list backward(AutogradContext* ctx, tensor_list grad_outputs) {
    auto saved = ctx->get_saved_variables();
    auto input = saved[0];
    auto weight = saved[1];
    auto bias = saved[2];
    auto grad_output = grad_outputs[0];
    auto grad_input = grad_output.mm(weight);
    auto grad_weight = grad_output.t().mm(input);
    auto grad_bias = torch::Tensor();
    if (bias.defined()) grad_bias = grad_output.sum(0);
    return {grad_input, grad_weight, grad_bias};
  }
};

struct MulConstant : public torch::autograd::Function<MulConstant> {
  static torch::Tensor forward(AutogradContext* ctx, torch::Tensor tensor, double constant) {
    ctx->saved_data["constant"] = constant;
    return tensor * constant;
  }
  static tensor_list backward(AutogradContext* ctx, tensor_list grad_outputs) {
    return {grad_outputs[0] * ctx->saved_data["constant"].toDouble(), torch::Tensor()};
  }
};

// Two outputs, one of them not differentiable.
struct SortedSquare : public torch::autograd::Function<SortedSquare> {
  static variable_list forward(AutogradContext* ctx, torch::Tensor x) {
    auto sq = x * x;
    ctx->save_for_backward({x});
    auto index = sq.argmax(0);
    ctx->mark_non_differentiable({index});
    return {sq, index};
  }
  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    auto x = ctx->get_saved_variables()[0];
    return {grad_outputs[0] * 2 * x};  // d/dx x^2 = 2x
  }
};

int main() {
  torch::manual_seed(7);
  auto x = torch::randn({2, 3}, torch::requires_grad());
  auto weight = torch::randn({4, 3}, torch::requires_grad());
  auto bias = torch::randn({4}, torch::requires_grad());
  auto y = LinearFunction::apply(x, weight, bias);
  std::cout << y << std::endl;
  y.sum().backward();
  std::cout << x.grad() << std::endl << weight.grad() << std::endl << bias.grad() << std::endl;

  // The same numbers through the built-in ops.
  auto x2 = x.detach().requires_grad_(true);
  auto y2 = torch::nn::functional::linear(x2, weight.detach(), bias.detach());
  y2.sum().backward();
  std::cout << torch::allclose(y, y2) << " " << torch::allclose(x.grad(), x2.grad()) << std::endl;

  auto a = torch::randn({4}, torch::requires_grad());
  auto b = MulConstant::apply(a, 5.5);
  b.sum().backward();
  std::cout << b << std::endl << a.grad() << std::endl;

  auto s = torch::tensor({0.5, -3.0, 2.0}, torch::requires_grad());
  auto outs = SortedSquare::apply(s);
  std::cout << outs[0] << std::endl << outs[1] << std::endl << outs[1].requires_grad() << std::endl;
  (outs[0] * torch::tensor({1.0, 2.0, 3.0})).sum().backward();
  std::cout << s.grad() << std::endl;
}
