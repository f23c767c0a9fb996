// Exercise 1: sigmoid. y = 1 / (1 + exp(-x)), elementwise.
// Write its backward: what is dy/dx, and can it be written with y alone (which forward saved)?
// The reference solution (built with -DEMBER_EXERCISE_SOLUTIONS=ON); try it yourself first.
#include "../exercises.h"

namespace ember::exercises {
namespace {

using autograd::AutogradContext;
using autograd::variable_list;

struct Sigmoid : autograd::Function<Sigmoid> {
  static Tensor forward(AutogradContext* ctx, Tensor x) {
    Tensor y = 1 / (1 + (-x).exp());
    ctx->save_for_backward({y});
    return y;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    // dy/dx = exp(-x) / (1 + exp(-x))^2 = y (1 - y)
    Tensor y = ctx->get_saved_variables()[0];
    return {grad_outputs[0] * y * (1 - y)};
  }
};

}  // namespace

Tensor sigmoid(const Tensor& x) { return Sigmoid::apply(x); }

}  // namespace ember::exercises
