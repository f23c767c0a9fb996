// Exercise 3: matrix product. c = a @ b, a (N, K), b (K, M), c (N, M): c_nm = sum_k a_nk b_km.
// Write its backward: dL/da_nk = sum_m g_nm b_km. Which product of g and b is that? Check the shapes.
// The reference solution (built with -DEMBER_EXERCISE_SOLUTIONS=ON); try it yourself first.
#include "../exercises.h"

namespace ember::exercises {
namespace {

using autograd::AutogradContext;
using autograd::variable_list;

struct Matmul : autograd::Function<Matmul> {
  static Tensor forward(AutogradContext* ctx, Tensor a, Tensor b) {
    ctx->save_for_backward({a, b});
    return a.matmul(b);
  }
  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    // dL/da = g b^T (N, M)(M, K) -> (N, K); dL/db = a^T g (K, N)(N, M) -> (K, M)
    variable_list saved = ctx->get_saved_variables();
    Tensor g = grad_outputs[0];
    return {g.matmul(saved[1].t()), saved[0].t().matmul(g)};
  }
};

}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b) { return Matmul::apply(a, b); }

}  // namespace ember::exercises
