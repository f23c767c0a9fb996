// Gradient clipping (optim/clip_grad.h), op for op as torch 1.13's torch/nn/utils/clip_grad.py:
// the per-gradient norms are stacked and normed again, and the coefficient is computed in the
// gradients' dtype as reciprocal(total_norm + 1e-6) * max_norm (Python's max_norm / tensor).
#include "optim/clip_grad.h"

#include <cmath>
#include <optional>

#include "autograd/grad_mode.h"
#include "core/backend.h"
#include "optim/detail.h"

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

void check_finite(double total, double norm_type, bool error_if_nonfinite) {
  EMBER_CHECK(!error_if_nonfinite || std::isfinite(total),
              "clip_grad_norm_: the total norm of order {} for gradients from `parameters` is non-finite ({}), so it "
              "cannot be clipped. To disable this error and scale the gradients by the non-finite norm anyway, set "
              "error_if_nonfinite=false",
              norm_type, total);
}

// The 2-norm of every gradient with the arithmetic of the ops below (each square rounded to the
// gradients' dtype and summed in double, the norms' norm in float), from one pass of the backend's
// sum_of_squares kernel instead of five ops per gradient; nullopt where the device has none.
std::optional<float> total_norm_fused(const std::vector<Tensor>& grads) {
  Tensor squares = empty({static_cast<int64_t>(grads.size())}, dtype(kFloat64).device(grads[0].device()));
  if (!backend_for(grads[0]).sum_of_squares(squares, grads)) return std::nullopt;
  const Tensor host = squares.to(kCPU);
  const double* sq = host.data_ptr<double>();
  double total_sq = 0;
  for (size_t i = 0; i < grads.size(); ++i) {
    const float norm = std::sqrt(static_cast<float>(sq[i]));  // g.norm(2), a float
    total_sq += static_cast<double>(norm * norm);
  }
  return std::sqrt(static_cast<float>(total_sq));
}

// Float32 gradients of one device, the case of every training loop.
bool one_float_device(const std::vector<Tensor>& grads) {
  for (const Tensor& g : grads)
    if (g.dtype() != kFloat32 || g.device() != grads[0].device()) return false;
  return true;
}

}  // namespace

double clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  EMBER_CHECK(norm_type >= 0, "clip_grad_norm_: norm_type must be non-negative (or inf), got {}", norm_type);
  NoGradGuard no_grad;
  std::vector<Tensor> grads = defined_grads(parameters);
  if (grads.empty()) return 0.0;
  if (norm_type == 2 && one_float_device(grads)) {
    if (const std::optional<float> total = total_norm_fused(grads)) {
      check_finite(*total, norm_type, error_if_nonfinite);
      float coef = (1.0f / (*total + static_cast<float>(kClipEps))) * static_cast<float>(max_norm);
      coef = coef < 1.0f || coef != coef ? coef : 1.0f;  // clamp_max(1.0); NaN stays NaN
      if (backend_for(grads[0]).scale_(grads, coef)) {
        for (const Tensor& g : grads) g.bump_version();
      } else {
        for (auto& g : grads) g.mul_(coef);
      }
      return *total;
    }
  }
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
  check_finite(total_value, norm_type, error_if_nonfinite);
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
