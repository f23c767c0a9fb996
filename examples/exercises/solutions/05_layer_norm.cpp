// Exercise 5: LayerNorm over the last dim, as llm.c's doc/layernorm derives it.
//   mean = sum_c x_c / C, rstd = 1 / sqrt(var + eps), xhat = (x - mean) rstd, y = xhat * w + b
// Write its backward. dL/dw and dL/db sum over rows. For dL/dx, mean and rstd depend on every x_c:
// with dxhat = g * w, dL/dx = rstd (dxhat - mean(dxhat) - xhat mean(dxhat * xhat)).
// The reference solution (built with -DEMBER_EXERCISE_SOLUTIONS=ON); try it yourself first.
#include "../exercises.h"

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
  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    variable_list saved = ctx->get_saved_variables();
    const Tensor &xhat = saved[0], &rstd = saved[1], &weight = saved[2];
    Tensor g = grad_outputs[0];                        // (N, C)
    Tensor dweight = (g * xhat).sum({0});              // dL/dw_c = sum_n g_nc xhat_nc
    Tensor dbias = g.sum({0});                         // dL/db_c = sum_n g_nc
    Tensor dxhat = g * weight;                         // (N, C)
    Tensor dx = (dxhat - dxhat.mean({-1}, true) - xhat * (dxhat * xhat).mean({-1}, true)) * rstd;
    return {dx, dweight, dbias};
  }
};

}  // namespace

Tensor layer_norm(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  return LayerNorm::apply(x, weight, bias);
}

}  // namespace ember::exercises
