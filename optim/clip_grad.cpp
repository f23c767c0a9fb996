// Gradient clipping (optim/clip_grad.h), op for op as torch 1.13's torch/nn/utils/clip_grad.py:
// the per-gradient norms are stacked and normed again, and the coefficient is computed in the
// gradients' dtype as reciprocal(total_norm + 1e-6) * max_norm (Python's max_norm / tensor).
#include "optim/clip_grad.h"

#include <cmath>

#include "autograd/grad_mode.h"

namespace ember::nn::utils {

namespace {

constexpr double kClipEps = 1e-6;  // keeps the coefficient finite when every gradient is zero

std::vector<Tensor> defined_grads(const std::vector<Tensor>& parameters) {
  std::vector<Tensor> grads;
  for (const auto& p : parameters)
    if (p.grad().defined()) grads.push_back(p.grad().detach());
  return grads;
}

// The norm of one gradient; torch.norm(g, 0) counts the non-zero elements.
Tensor norm_of(const Tensor& g, double norm_type) {
  if (norm_type == 0) return g.ne(0).sum().to(g.dtype());
  return g.norm(norm_type);
}

}  // namespace

double clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  EMBER_CHECK(norm_type >= 0, "clip_grad_norm_: norm_type must be non-negative (or inf), got {}", norm_type);
  NoGradGuard no_grad;
  std::vector<Tensor> grads = defined_grads(parameters);
  if (grads.empty()) return 0.0;
  Tensor total;
  if (std::isinf(norm_type)) {
    std::vector<Tensor> norms;
    for (const auto& g : grads) norms.push_back(g.abs().max());
    total = norms.size() == 1 ? norms[0] : stack(norms).max();
  } else {
    std::vector<Tensor> norms;
    for (const auto& g : grads) norms.push_back(norm_of(g, norm_type));
    total = norm_of(stack(norms), norm_type);
  }
  const double total_value = total.item<double>();
  EMBER_CHECK(!error_if_nonfinite || std::isfinite(total_value),
              "clip_grad_norm_: the total norm of order {} for gradients from `parameters` is non-finite ({}), so it "
              "cannot be clipped. To disable this error and scale the gradients by the non-finite norm anyway, set "
              "error_if_nonfinite=false", norm_type, total_value);
  Tensor clip_coef = (total + kClipEps).reciprocal() * max_norm;
  Tensor clip_coef_clamped = clip_coef.clamp_max(1.0);
  for (auto& g : grads) g.mul_(clip_coef_clamped.to(g.device()));
  return total_value;
}

double clip_grad_norm_(const Tensor& parameter, double max_norm, double norm_type, bool error_if_nonfinite) {
  return clip_grad_norm_(std::vector<Tensor>{parameter}, max_norm, norm_type, error_if_nonfinite);
}

void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value) {
  NoGradGuard no_grad;
  for (auto& g : defined_grads(parameters)) g.clamp_(-clip_value, clip_value);
}

void clip_grad_value_(const Tensor& parameter, double clip_value) {
  clip_grad_value_(std::vector<Tensor>{parameter}, clip_value);
}

}  // namespace ember::nn::utils
