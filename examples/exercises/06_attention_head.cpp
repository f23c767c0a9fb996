// Exercise 6: one causal self-attention head, forward and backward in one Function.
//   q = x Wq, k = x Wk, v = x Wv (T, HS); s = q k^T / sqrt(HS), future positions -inf;
//   a = softmax(s) over each row; out = a v (T, HS)
// Write its backward by chaining exercises 3 and 4: from g = dL/dout to da and dv, through the
// softmax to ds (masked entries get 0: their a is 0), to dq and dk, and to dx, dWq, dWk, dWv.
#include <cmath>

#include "exercises.h"

namespace ember::exercises {
namespace {

using autograd::AutogradContext;
using autograd::variable_list;

struct AttentionHead : autograd::Function<AttentionHead> {
  static Tensor forward(AutogradContext* ctx, Tensor x, Tensor w_query, Tensor w_key, Tensor w_value) {
    const int64_t T = x.size(0);
    const double scale = 1 / std::sqrt(static_cast<double>(w_query.size(1)));
    Tensor q = x.matmul(w_query), k = x.matmul(w_key), v = x.matmul(w_value);  // (T, HS)
    Tensor future = ones({T, T}, kBool).triu(1);                                // (T, T)
    Tensor s = q.matmul(k.t()).mul(scale).masked_fill(future, -INFINITY);       // (T, T)
    Tensor a = s.softmax(-1);                                                   // (T, T)
    ctx->save_for_backward({x, w_query, w_key, w_value, q, k, v, a});
    ctx->saved_data["scale"] = scale;
    return a.matmul(v);
  }
  static variable_list backward([[maybe_unused]] AutogradContext* ctx,
                                [[maybe_unused]] variable_list grad_outputs) {
    // your backward here: {dL/dx (T, C), dL/dWq, dL/dWk, dL/dWv (C, HS)}
    return {Tensor(), Tensor(), Tensor(), Tensor()};
  }
};

}  // namespace

Tensor attention_head(const Tensor& x, const Tensor& w_query, const Tensor& w_key, const Tensor& w_value) {
  return AttentionHead::apply(x, w_query, w_key, w_value);
}

}  // namespace ember::exercises
