// Exercise 3: matrix product. c = a @ b, a (N, K), b (K, M), c (N, M): c_nm = sum_k a_nk b_km.
// Write its backward: dL/da_nk = sum_m g_nm b_km. Which product of g and b is that? Check the shapes.
#include "exercises.h"

namespace ember::exercises {
namespace {

using autograd::AutogradContext;
using autograd::variable_list;

struct Matmul : autograd::Function<Matmul> {
  static Tensor forward(AutogradContext* ctx, Tensor a, Tensor b) {
    ctx->save_for_backward({a, b});
    return a.matmul(b);
  }
  static variable_list backward([[maybe_unused]] AutogradContext* ctx,
                                [[maybe_unused]] variable_list grad_outputs) {
    // your backward here: {dL/da (N, K), dL/db (K, M)} from g = grad_outputs[0] (N, M)
    return {Tensor(), Tensor()};
  }
};

}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b) { return Matmul::apply(a, b); }

}  // namespace ember::exercises
