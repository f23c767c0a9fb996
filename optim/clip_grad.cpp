// Gradient clipping (optim/clip_grad.h), op for op as torch 1.13's torch/nn/utils/clip_grad.py:
// the per-gradient norms are stacked and normed again, and the coefficient is computed in the
// gradients' dtype as reciprocal(total_norm + 1e-6) * max_norm (Python's max_norm / tensor).
#include "optim/clip_grad.h"

#include <cmath>

#include "autograd/grad_mode.h"
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

// Float32 gradients in host memory and the 2-norm, the case of every training loop: the same
// arithmetic as the ops below (each square rounded to float and summed in double, the norms'
// norm, the coefficient in float), in one parallel pass to measure and one to scale, instead of
// five ops per gradient.
bool all_plain_float(const std::vector<Tensor>& grads) {
  for (const Tensor& g : grads)
    if (!g.is_cpu() || !g.is_contiguous() || g.dtype() != kFloat32) return false;
  return true;
}

__attribute__((target_clones("avx512f", "avx2", "default")))
double sum_of_squares(const float* x, int64_t n) {
  double acc = 0;
#pragma omp simd reduction(+ : acc)
  for (int64_t i = 0; i < n; ++i) acc += static_cast<double>(x[i] * x[i]);
  return acc;
}

__attribute__((target_clones("avx512f", "avx2", "default")))
void scale(float* x, int64_t n, float c) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) x[i] *= c;
}

void check_finite(double total, double norm_type, bool error_if_nonfinite) {
  EMBER_CHECK(!error_if_nonfinite || std::isfinite(total),
              "clip_grad_norm_: the total norm of order {} for gradients from `parameters` is non-finite ({}), so it "
              "cannot be clipped. To disable this error and scale the gradients by the non-finite norm anyway, set "
              "error_if_nonfinite=false", norm_type, total);
}

float total_norm_fused(const std::vector<Tensor>& grads) {
  std::vector<int64_t> sizes;
  for (const Tensor& g : grads) sizes.push_back(g.numel());
  const int threads = omp_get_max_threads();
  std::vector<double> partial(static_cast<size_t>(threads) * grads.size(), 0.0);  // [thread][grad]
  const int used = optim::detail::for_each_piece(sizes, [&](int t, size_t i, int64_t b, int64_t e) {
    partial[t * grads.size() + i] += sum_of_squares(grads[i].data_ptr<float>() + b, e - b);
  });
  double total_sq = 0;
  for (size_t i = 0; i < grads.size(); ++i) {
    double sq = 0;
    for (int t = 0; t < used; ++t) sq += partial[t * grads.size() + i];
    const float norm = std::sqrt(static_cast<float>(sq));  // g.norm(2), a float
    total_sq += static_cast<double>(norm * norm);
  }
  return std::sqrt(static_cast<float>(total_sq));
}

void scale_fused(const std::vector<Tensor>& grads, float coef) {
  std::vector<int64_t> sizes;
  for (const Tensor& g : grads) sizes.push_back(g.numel());
  optim::detail::for_each_piece(sizes, [&](int, size_t i, int64_t b, int64_t e) {
    scale(grads[i].data_ptr<float>() + b, e - b, coef);
  });
  for (const Tensor& g : grads) g.bump_version();
}

}  // namespace

double clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  EMBER_CHECK(norm_type >= 0, "clip_grad_norm_: norm_type must be non-negative (or inf), got {}", norm_type);
  NoGradGuard no_grad;
  std::vector<Tensor> grads = defined_grads(parameters);
  if (grads.empty()) return 0.0;
  if (norm_type == 2 && all_plain_float(grads)) {
    const float total = total_norm_fused(grads);
    check_finite(total, norm_type, error_if_nonfinite);
    const float coef = (1.0f / (total + static_cast<float>(kClipEps))) * static_cast<float>(max_norm);
    scale_fused(grads, coef < 1.0f || coef != coef ? coef : 1.0f);  // clamp_max(1.0); NaN stays NaN
    return total;
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
