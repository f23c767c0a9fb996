// <torch/torch.h>, part 3: ATen's torch:: functions for what Ember has as nn::functional calls
// (losses, activations, pooling), with ATen's argument order and defaults; a reduction is
// torch::Reduction::Mean / Sum / None. (The modules, options and nn::functional calls need nothing
// here: torch::nn is ember::nn.)
#pragma once

#include <optional>

#include "ember_compat/aliases.h"

namespace torch {

// ---- losses ----
inline Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction = kMean) {
  return nn::functional::mse_loss(input, target, nn::functional::MSELossFuncOptions(reduction));
}
inline Tensor l1_loss(const Tensor& input, const Tensor& target, Reduction reduction = kMean) {
  return nn::functional::l1_loss(input, target, nn::functional::L1LossFuncOptions(reduction));
}
inline Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, Reduction reduction = kMean,
                             double beta = 1.0) {
  return nn::functional::smooth_l1_loss(input, target, nn::functional::SmoothL1LossFuncOptions(reduction).beta(beta));
}
// Class weights (`weight`) are not supported: pass an undefined tensor ({}).
inline Tensor cross_entropy_loss(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                                 Reduction reduction = kMean, int64_t ignore_index = -100,
                                 double label_smoothing = 0.0) {
  EMBER_CHECK(!weight.defined(), "torch::cross_entropy_loss: class weights are not supported by Ember");
  return nn::functional::cross_entropy(input, target,
                                       nn::functional::CrossEntropyFuncOptions()
                                           .reduction(reduction)
                                           .ignore_index(ignore_index)
                                           .label_smoothing(label_smoothing));
}
using ember::nll_loss;
// ATen's nll_loss(self, target, weight, reduction, ignore_index), as the MNIST example calls it:
// torch::nll_loss(output, targets, /*weight=*/{}, at::Reduction::Sum). Class weights are not supported.
inline Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight, Reduction reduction = kMean,
                       int64_t ignore_index = -100) {
  EMBER_CHECK(!weight.defined(), "torch::nll_loss: class weights are not supported by Ember");
  return ember::nll_loss(input, target, reduction, ignore_index);
}

inline Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                                   Reduction reduction = kMean) {
  return nn::functional::binary_cross_entropy(
      input, target, nn::functional::BinaryCrossEntropyFuncOptions().weight(weight).reduction(reduction));
}
inline Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                                               const Tensor& pos_weight = {}, Reduction reduction = kMean) {
  return nn::functional::binary_cross_entropy_with_logits(input, target,
                                                          nn::functional::BinaryCrossEntropyWithLogitsFuncOptions()
                                                              .weight(weight)
                                                              .pos_weight(pos_weight)
                                                              .reduction(reduction));
}
inline Tensor kl_div(const Tensor& input, const Tensor& target, Reduction reduction = kMean, bool log_target = false) {
  return nn::functional::kl_div(input, target, nn::functional::KLDivFuncOptions(reduction).log_target(log_target));
}
inline Tensor huber_loss(const Tensor& input, const Tensor& target, Reduction reduction = kMean, double delta = 1.0) {
  return nn::functional::huber_loss(input, target, nn::functional::HuberLossFuncOptions(reduction).delta(delta));
}
inline Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin = 0.0,
                                  Reduction reduction = kMean) {
  return nn::functional::margin_ranking_loss(
      input1, input2, target, nn::functional::MarginRankingLossFuncOptions().margin(margin).reduction(reduction));
}
inline Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target, double margin = 1.0,
                                   Reduction reduction = kMean) {
  return nn::functional::hinge_embedding_loss(
      input, target, nn::functional::HingeEmbeddingLossFuncOptions().margin(margin).reduction(reduction));
}
inline Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                                    double margin = 0.0, Reduction reduction = kMean) {
  return nn::functional::cosine_embedding_loss(
      input1, input2, target, nn::functional::CosineEmbeddingLossFuncOptions().margin(margin).reduction(reduction));
}
inline Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                                  double margin = 1.0, double p = 2, double eps = 1e-6, bool swap = false,
                                  Reduction reduction = kMean) {
  return nn::functional::triplet_margin_loss(
      anchor, positive, negative,
      nn::functional::TripletMarginLossFuncOptions().margin(margin).p(p).eps(eps).swap(swap).reduction(reduction));
}
inline Tensor poisson_nll_loss(const Tensor& input, const Tensor& target, bool log_input, bool full, double eps,
                               Reduction reduction) {
  return nn::functional::poisson_nll_loss(
      input, target,
      nn::functional::PoissonNLLLossFuncOptions().log_input(log_input).full(full).eps(eps).reduction(reduction));
}
inline Tensor softplus(const Tensor& input, double beta = 1, double threshold = 20) {
  return nn::functional::softplus(input, nn::functional::SoftplusFuncOptions().beta(beta).threshold(threshold));
}
inline Tensor elu(const Tensor& input, double alpha = 1) {
  return nn::functional::elu(input, nn::functional::ELUFuncOptions().alpha(alpha));
}
inline Tensor selu(const Tensor& input) { return nn::functional::selu(input); }
inline Tensor celu(const Tensor& input, double alpha = 1) {
  return nn::functional::celu(input, nn::functional::CELUFuncOptions().alpha(alpha));
}
inline Tensor leaky_relu(const Tensor& input, double negative_slope = 0.01) {
  return nn::functional::leaky_relu(input, nn::functional::LeakyReLUFuncOptions().negative_slope(negative_slope));
}
inline Tensor prelu(const Tensor& input, const Tensor& weight) { return nn::functional::prelu(input, weight); }
inline Tensor hardtanh(const Tensor& input, double min_val = -1, double max_val = 1) {
  return nn::functional::hardtanh(input, nn::functional::HardtanhFuncOptions().min_val(min_val).max_val(max_val));
}
inline Tensor threshold(const Tensor& input, double threshold, double value) {
  return nn::functional::threshold(input, nn::functional::ThresholdFuncOptions(threshold, value));
}
inline Tensor log_sigmoid(const Tensor& input) { return nn::functional::logsigmoid(input); }
inline Tensor silu(const Tensor& input) { return nn::functional::silu(input); }
inline Tensor mish(const Tensor& input) { return nn::functional::mish(input); }

}  // namespace torch

namespace at {
using torch::nll_loss;
}  // namespace at

// ---- pooling ----
// An IntArrayRef of one value stands for that value in each dim, and an empty stride for the kernel
// size, as ATen reads them.
namespace torch::compat_detail {
template <size_t D>
ember::ExpandingArray<D> expand_pool_arg(ember::IntArrayRef values, ember::IntArrayRef fallback) {
  if (values.empty()) values = fallback;
  return values.size() == 1 ? ember::ExpandingArray<D>(values[0]) : ember::ExpandingArray<D>(values.vec());
}
}  // namespace torch::compat_detail
namespace torch {
inline Tensor max_pool1d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = 0,
                         IntArrayRef dilation = 1, bool ceil_mode = false) {
  using compat_detail::expand_pool_arg;
  return nn::functional::max_pool1d(input, nn::MaxPool1dOptions(expand_pool_arg<1>(kernel_size, {}))
                                               .stride(expand_pool_arg<1>(stride, kernel_size))
                                               .padding(expand_pool_arg<1>(padding, {}))
                                               .dilation(expand_pool_arg<1>(dilation, {}))
                                               .ceil_mode(ceil_mode));
}
inline Tensor max_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = 0,
                         IntArrayRef dilation = 1, bool ceil_mode = false) {
  using compat_detail::expand_pool_arg;
  return nn::functional::max_pool2d(input, nn::MaxPool2dOptions(expand_pool_arg<2>(kernel_size, {}))
                                               .stride(expand_pool_arg<2>(stride, kernel_size))
                                               .padding(expand_pool_arg<2>(padding, {}))
                                               .dilation(expand_pool_arg<2>(dilation, {}))
                                               .ceil_mode(ceil_mode));
}
inline Tensor avg_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = 0,
                         bool ceil_mode = false, bool count_include_pad = true,
                         std::optional<int64_t> divisor_override = std::nullopt) {
  using compat_detail::expand_pool_arg;
  return nn::functional::avg_pool2d(input, nn::AvgPool2dOptions(expand_pool_arg<2>(kernel_size, {}))
                                               .stride(expand_pool_arg<2>(stride, kernel_size))
                                               .padding(expand_pool_arg<2>(padding, {}))
                                               .ceil_mode(ceil_mode)
                                               .count_include_pad(count_include_pad)
                                               .divisor_override(divisor_override));
}
inline Tensor adaptive_avg_pool2d(const Tensor& input, IntArrayRef output_size) {
  return nn::functional::adaptive_avg_pool2d(
      input, nn::AdaptiveAvgPool2dOptions(compat_detail::expand_pool_arg<2>(output_size, {})));
}
}  // namespace torch
