// Exercise 5: LayerNorm over the last dim, as llm.c's doc/layernorm derives it.
//   mean = sum_c x_c / C, rstd = 1 / sqrt(var + eps), xhat = (x - mean) rstd, y = xhat * w + b
// Write its backward. dL/dw and dL/db sum over rows. For dL/dx, mean and rstd depend on every x_c:
// with dxhat = g * w, dL/dx = rstd (dxhat - mean(dxhat) - xhat mean(dxhat * xhat)).
#include "exercises.h"

namespace ember::exercises {
namespace {

using autograd::AutogradContext;
using autograd::variable_list;

struct LayerNorm : autograd::Function<LayerNorm> {
  static Tensor forward(AutogradContext* ctx, Tensor x, Tensor weight, Tensor bias) {
    Tensor mean = x.mean({-1}, /*keepdim=*/true);                                      // (N, 1)
    Tensor var = ((x - mean) * (x - mean)).mean({-1}, /*keepdim=*/true);               // (N, 1), biased
    Tensor rstd = (var + kLayerNormEps).rsqrt();                                       // (N, 1)
    Tensor xhat = (x - mean) * rstd;                                                   // (N, C)
    ctx->save_for_backward({xhat, rstd, weight});
    return xhat * weight + bias;
  }
  static variable_list backward([[maybe_unused]] AutogradContext* ctx,
                                [[maybe_unused]] variable_list grad_outputs) {
    // your backward here: {dL/dx (N, C), dL/dweight (C), dL/dbias (C)}
    return {Tensor(), Tensor(), Tensor()};
  }
};

}  // namespace

Tensor layer_norm(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  return LayerNorm::apply(x, weight, bias);
}

}  // namespace ember::exercises
