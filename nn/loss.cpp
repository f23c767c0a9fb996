// The l1 and smooth-L1 losses, composed of autograd primitives (see nn/loss.h for the modules).
#include "nn/loss.h"

#include "core/kernel.h"

namespace ember::nn::functional {
namespace {

void check_same_shape(const Tensor& input, const Tensor& target, const char* op) {
  EMBER_CHECK(input.sizes() == target.sizes(), "{}: input {} and target {} must have the same shape", op,
              input.sizes(), target.sizes());
}

}  // namespace

Tensor l1_loss(const Tensor& input, const Tensor& target, const L1LossFuncOptions& options) {
  kernel::check_same_device("l1_loss", {input, target});
  check_same_shape(input, target, "l1_loss");
  return apply_reduction((input - target).abs(), options.reduction());  // d/dd |d| = sign(d), 0 at 0
}

Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, const SmoothL1LossFuncOptions& options) {
  check_same_shape(input, target, "smooth_l1_loss");
  const double beta = options.beta();
  EMBER_CHECK(beta >= 0, "smooth_l1_loss: beta must be >= 0, got {}", beta);
  if (beta == 0) return l1_loss(input, target, L1LossFuncOptions(options.reduction()));
  Tensor d = input - target;
  Tensor abs_d = d.abs();
  // d/dd: d / beta inside the quadratic zone, sign(d) outside (both pieces are differentiated by where).
  Tensor loss = where(abs_d < beta, d.square() * (0.5 / beta), abs_d - 0.5 * beta);
  return apply_reduction(loss, options.reduction());
}

}  // namespace ember::nn::functional
