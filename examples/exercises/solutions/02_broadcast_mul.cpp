// Exercise 2: multiply with broadcasting. a (N, C) * b (C): b is used once per row.
// Write its backward: each input's gradient has that input's shape, so the gradient of a tensor
// that was broadcast is summed over the dims it was broadcast along.
// The reference solution (built with -DEMBER_EXERCISE_SOLUTIONS=ON); try it yourself first.
#include "../exercises.h"

namespace ember::exercises {
namespace {

using autograd::AutogradContext;
using autograd::variable_list;

// grad summed down to `shape` (the shape of an input that was broadcast to grad's shape).
Tensor reduce_to(Tensor grad, IntArrayRef shape) {
  while (grad.dim() > static_cast<int64_t>(shape.size())) grad = grad.sum({0});  // dims added in front
  for (int64_t d = 0; d < grad.dim(); ++d)
    if (shape[d] == 1 && grad.size(d) != 1) grad = grad.sum({d}, /*keepdim=*/true);  // dims stretched from 1
  return grad;
}

struct BroadcastMul : autograd::Function<BroadcastMul> {
  static Tensor forward(AutogradContext* ctx, Tensor a, Tensor b) {
    ctx->save_for_backward({a, b});
    return a * b;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    // d(a b)/da = b, d(a b)/db = a; then each is summed back to its input's shape
    variable_list saved = ctx->get_saved_variables();
    Tensor g = grad_outputs[0];
    return {reduce_to(g * saved[1], saved[0].sizes()), reduce_to(g * saved[0], saved[1].sizes())};
  }
};

}  // namespace

Tensor broadcast_mul(const Tensor& a, const Tensor& b) { return BroadcastMul::apply(a, b); }

}  // namespace ember::exercises
