// <torch/torch.h>, part 3: ATen's torch:: functions (and at:: ones) for what Ember has as
// nn::functional calls (losses, activations, pooling, dropout, linear, normalization, padding,
// distances, sampling grids), with ATen's argument order and defaults; a reduction is
// torch::Reduction::Mean / Sum / None. (The modules, options and nn::functional calls need nothing
// here: torch::nn is ember::nn.)
#pragma once

#include <optional>
#include <string_view>
#include <tuple>

#include "ember_compat/aliases.h"

namespace ember::compat_aten::detail {

// grid_sampler's options from ATen's integer modes: interpolation 0 bilinear, 1 nearest, 2 bicubic;
// padding 0 zeros, 1 border, 2 reflection.
inline nn::functional::GridSampleFuncOptions grid_sampler_options(int64_t interpolation_mode, int64_t padding_mode,
                                                                  bool align_corners) {
  using Options = nn::functional::GridSampleFuncOptions;
  EMBER_CHECK(interpolation_mode >= 0 && interpolation_mode <= 2,
              "grid_sampler(): interpolation_mode must be 0 (bilinear), 1 (nearest) or 2 (bicubic), got {}",
              interpolation_mode);
  EMBER_CHECK(padding_mode >= 0 && padding_mode <= 2,
              "grid_sampler(): padding_mode must be 0 (zeros), 1 (border) or 2 (reflection), got {}", padding_mode);
  const Options::mode_t modes[] = {kBilinear, kNearest, kBicubic};
  const Options::padding_mode_t paddings[] = {kZeros, kBorder, kReflection};
  return Options().mode(modes[interpolation_mode]).padding_mode(paddings[padding_mode]).align_corners(align_corners);
}

}  // namespace ember::compat_aten::detail

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
// weight (C) or undefined ({}): each class's weight, as nll_loss's.
inline Tensor cross_entropy_loss(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                                 Reduction reduction = kMean, int64_t ignore_index = -100,
                                 double label_smoothing = 0.0) {
  return nn::functional::cross_entropy(input, target,
                                       nn::functional::CrossEntropyFuncOptions()
                                           .weight(weight)
                                           .reduction(reduction)
                                           .ignore_index(ignore_index)
                                           .label_smoothing(label_smoothing));
}
// ATen's nll_loss(self, target, weight, reduction, ignore_index), as the MNIST example calls it:
// torch::nll_loss(output, targets, /*weight=*/{}, at::Reduction::Sum); weight (C) or undefined.
// nll_loss2d takes (N, C, H, W) input and nll_loss_nd any of nll_loss's shapes, as ATen's.
using ember::nll_loss;
inline Tensor nll_loss_nd(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                          Reduction reduction = kMean, int64_t ignore_index = -100) {
  return ember::nll_loss(input, target, weight, reduction, ignore_index);
}
inline Tensor nll_loss2d(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                         Reduction reduction = kMean, int64_t ignore_index = -100) {
  EMBER_CHECK(input.dim() == 4,
              "nll_loss2d: only batches of spatial inputs supported (4D tensors), but got input "
              "of size: {}",
              input.sizes());
  EMBER_CHECK(target.dim() == 3,
              "nll_loss2d: only batches of spatial targets supported (3D tensors) but got "
              "targets of size: {}",
              target.sizes());
  return ember::nll_loss(input, target, weight, reduction, ignore_index);
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
inline Tensor relu6(const Tensor& input) { return nn::functional::relu6(input); }
inline Tensor hardshrink(const Tensor& input, double lambd = 0.5) {
  return nn::functional::hardshrink(input, nn::functional::HardshrinkFuncOptions(lambd));
}
inline Tensor softshrink(const Tensor& input, double lambd = 0.5) {
  return nn::functional::softshrink(input, nn::functional::SoftshrinkFuncOptions(lambd));
}
inline Tensor glu(const Tensor& input, int64_t dim = -1) {
  return nn::functional::glu(input, nn::functional::GLUFuncOptions(dim));
}
inline Tensor log_sigmoid(const Tensor& input) { return nn::functional::logsigmoid(input); }
inline Tensor silu(const Tensor& input) { return nn::functional::silu(input); }
inline Tensor mish(const Tensor& input) { return nn::functional::mish(input); }

}  // namespace torch

// ---- RReLU: ATen's rrelu family (the slopes drawn by nn::functional::rrelu_with_noise) ----
namespace torch {
// noise (self's shape) receives the slopes while training; in evaluation it is left alone.
inline Tensor rrelu_with_noise(const Tensor& self, const Tensor& noise, double lower = 1.0 / 8, double upper = 1.0 / 3,
                               bool training = false, std::optional<Generator> generator = std::nullopt) {
  return nn::functional::rrelu_with_noise(self, noise, lower, upper, training, std::move(generator));
}
inline Tensor& rrelu_with_noise_(Tensor& self, const Tensor& noise, double lower = 1.0 / 8, double upper = 1.0 / 3,
                                 bool training = false, std::optional<Generator> generator = std::nullopt) {
  return self.copy_(rrelu_with_noise(self.clone(), noise, lower, upper, training, std::move(generator)));
}
inline Tensor rrelu(const Tensor& self, double lower = 1.0 / 8, double upper = 1.0 / 3, bool training = false,
                    std::optional<Generator> generator = std::nullopt) {
  return rrelu_with_noise(self, Tensor(), lower, upper, training, std::move(generator));
}
inline Tensor& rrelu_(Tensor& self, double lower = 1.0 / 8, double upper = 1.0 / 3, bool training = false,
                      std::optional<Generator> generator = std::nullopt) {
  return self.copy_(rrelu(self.clone(), lower, upper, training, std::move(generator)));
}
}  // namespace torch
namespace at {
using torch::rrelu;
using torch::rrelu_;
using torch::rrelu_with_noise;
using torch::rrelu_with_noise_;
}  // namespace at

// ---- pooling ----
namespace torch::compat_detail {
// An ATen size list as the D-dim options of a pooling or convolution, as ATen reads them: one value
// for every dim, or D; an empty list (a stride) stands for the fallback (the kernel size).
template <size_t D>
ember::ExpandingArray<D> spatial_arg(const char* op, const char* what, ember::IntArrayRef values,
                                     ember::IntArrayRef fallback = {}) {
  if (values.empty()) values = fallback;
  EMBER_CHECK(values.size() == 1 || values.size() == D, "{}: {} must be a single int or a tuple of {} ints, got {}", op,
              what, D, values);
  return values.size() == 1 ? ember::ExpandingArray<D>(values[0]) : ember::ExpandingArray<D>(values.vec());
}
}  // namespace torch::compat_detail
namespace torch {
inline Tensor max_pool1d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = 0,
                         IntArrayRef dilation = 1, bool ceil_mode = false) {
  using compat_detail::spatial_arg;
  return nn::functional::max_pool1d(input,
                                    nn::MaxPool1dOptions(spatial_arg<1>("max_pool1d", "kernel_size", kernel_size))
                                        .stride(spatial_arg<1>("max_pool1d", "stride", stride, kernel_size))
                                        .padding(spatial_arg<1>("max_pool1d", "padding", padding))
                                        .dilation(spatial_arg<1>("max_pool1d", "dilation", dilation))
                                        .ceil_mode(ceil_mode));
}
inline Tensor max_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = 0,
                         IntArrayRef dilation = 1, bool ceil_mode = false) {
  using compat_detail::spatial_arg;
  return nn::functional::max_pool2d(input,
                                    nn::MaxPool2dOptions(spatial_arg<2>("max_pool2d", "kernel_size", kernel_size))
                                        .stride(spatial_arg<2>("max_pool2d", "stride", stride, kernel_size))
                                        .padding(spatial_arg<2>("max_pool2d", "padding", padding))
                                        .dilation(spatial_arg<2>("max_pool2d", "dilation", dilation))
                                        .ceil_mode(ceil_mode));
}
inline Tensor avg_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = 0,
                         bool ceil_mode = false, bool count_include_pad = true,
                         std::optional<int64_t> divisor_override = std::nullopt) {
  using compat_detail::spatial_arg;
  return nn::functional::avg_pool2d(input,
                                    nn::AvgPool2dOptions(spatial_arg<2>("avg_pool2d", "kernel_size", kernel_size))
                                        .stride(spatial_arg<2>("avg_pool2d", "stride", stride, kernel_size))
                                        .padding(spatial_arg<2>("avg_pool2d", "padding", padding))
                                        .ceil_mode(ceil_mode)
                                        .count_include_pad(count_include_pad)
                                        .divisor_override(divisor_override));
}
inline Tensor adaptive_avg_pool2d(const Tensor& input, IntArrayRef output_size) {
  return nn::functional::adaptive_avg_pool2d(input, nn::AdaptiveAvgPool2dOptions(compat_detail::spatial_arg<2>(
                                                        "adaptive_avg_pool2d", "output_size", output_size)));
}
inline std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input, IntArrayRef kernel_size,
                                                          IntArrayRef stride = {}, IntArrayRef padding = 0,
                                                          IntArrayRef dilation = 1, bool ceil_mode = false) {
  using compat_detail::spatial_arg;
  return nn::functional::max_pool1d_with_indices(
      input, nn::MaxPool1dOptions(spatial_arg<1>("max_pool1d_with_indices", "kernel_size", kernel_size))
                 .stride(spatial_arg<1>("max_pool1d_with_indices", "stride", stride, kernel_size))
                 .padding(spatial_arg<1>("max_pool1d_with_indices", "padding", padding))
                 .dilation(spatial_arg<1>("max_pool1d_with_indices", "dilation", dilation))
                 .ceil_mode(ceil_mode));
}
inline std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, IntArrayRef kernel_size,
                                                          IntArrayRef stride = {}, IntArrayRef padding = 0,
                                                          IntArrayRef dilation = 1, bool ceil_mode = false) {
  using compat_detail::spatial_arg;
  return nn::functional::max_pool2d_with_indices(
      input, nn::MaxPool2dOptions(spatial_arg<2>("max_pool2d_with_indices", "kernel_size", kernel_size))
                 .stride(spatial_arg<2>("max_pool2d_with_indices", "stride", stride, kernel_size))
                 .padding(spatial_arg<2>("max_pool2d_with_indices", "padding", padding))
                 .dilation(spatial_arg<2>("max_pool2d_with_indices", "dilation", dilation))
                 .ceil_mode(ceil_mode));
}
inline Tensor avg_pool1d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = 0,
                         bool ceil_mode = false, bool count_include_pad = true) {
  using compat_detail::spatial_arg;
  return nn::functional::avg_pool1d(input,
                                    nn::AvgPool1dOptions(spatial_arg<1>("avg_pool1d", "kernel_size", kernel_size))
                                        .stride(spatial_arg<1>("avg_pool1d", "stride", stride, kernel_size))
                                        .padding(spatial_arg<1>("avg_pool1d", "padding", padding))
                                        .ceil_mode(ceil_mode)
                                        .count_include_pad(count_include_pad));
}
inline Tensor adaptive_avg_pool1d(const Tensor& input, IntArrayRef output_size) {
  return nn::functional::adaptive_avg_pool1d(input, nn::AdaptiveAvgPool1dOptions(compat_detail::spatial_arg<1>(
                                                        "adaptive_avg_pool1d", "output_size", output_size)));
}
// ATen's adaptive max pools return (values, indices).
inline std::tuple<Tensor, Tensor> adaptive_max_pool1d(const Tensor& input, IntArrayRef output_size) {
  return nn::functional::adaptive_max_pool1d_with_indices(
      input,
      nn::AdaptiveMaxPool1dOptions(compat_detail::spatial_arg<1>("adaptive_max_pool1d", "output_size", output_size)));
}
inline std::tuple<Tensor, Tensor> adaptive_max_pool2d(const Tensor& input, IntArrayRef output_size) {
  return nn::functional::adaptive_max_pool2d_with_indices(
      input,
      nn::AdaptiveMaxPool2dOptions(compat_detail::spatial_arg<2>("adaptive_max_pool2d", "output_size", output_size)));
}

// ---- dropout, linear, normalization, padding, distances: ATen's argument lists ----
inline Tensor dropout(const Tensor& input, double p, bool train) { return nn::functional::dropout(input, p, train); }
// Channels dropped whole (nn::functional::dropout2d's rule), ATen's name for it.
inline Tensor feature_dropout(const Tensor& input, double p, bool train) {
  return nn::functional::dropout2d(input, nn::functional::Dropout2dFuncOptions().p(p).training(train));
}
inline Tensor alpha_dropout(const Tensor& input, double p, bool train) {
  return nn::functional::alpha_dropout(input, nn::functional::AlphaDropoutFuncOptions().p(p).training(train));
}
inline Tensor feature_alpha_dropout(const Tensor& input, double p, bool train) {
  return nn::functional::feature_alpha_dropout(input,
                                               nn::functional::FeatureAlphaDropoutFuncOptions().p(p).training(train));
}
inline Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = {}) {
  return nn::functional::linear(input, weight, bias);
}
inline Tensor batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                         const Tensor& running_var, bool training, double momentum, double eps,
                         bool /*cudnn_enabled*/ = true) {
  return nn::functional::batch_norm(
      input, running_mean, running_var,
      nn::functional::BatchNormFuncOptions().weight(weight).bias(bias).training(training).momentum(momentum).eps(eps));
}
inline Tensor instance_norm(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                            const Tensor& running_var, bool use_input_stats, double momentum, double eps,
                            bool /*cudnn_enabled*/ = true) {
  return nn::functional::instance_norm(input, nn::functional::InstanceNormFuncOptions()
                                                  .weight(weight)
                                                  .bias(bias)
                                                  .running_mean(running_mean)
                                                  .running_var(running_var)
                                                  .use_input_stats(use_input_stats)
                                                  .momentum(momentum)
                                                  .eps(eps));
}
inline Tensor group_norm(const Tensor& input, int64_t num_groups, const Tensor& weight = {}, const Tensor& bias = {},
                         double eps = 1e-05, bool /*cudnn_enabled*/ = true) {
  return nn::functional::group_norm(
      input, nn::functional::GroupNormFuncOptions(num_groups).weight(weight).bias(bias).eps(eps));
}
// mode is "constant", "reflect", "replicate" or "circular"; value only for "constant".
inline Tensor pad(const Tensor& input, IntArrayRef pad, std::string_view mode = "constant",
                  std::optional<double> value = std::nullopt) {
  nn::functional::PadFuncOptions options(pad.vec());
  if (mode == "reflect") {
    options.mode(kReflect);
  } else if (mode == "replicate") {
    options.mode(kReplicate);
  } else if (mode == "circular") {
    options.mode(kCircular);
  } else {
    EMBER_CHECK(mode == "constant", "pad: Unrecognised padding mode {}", mode);
  }
  EMBER_CHECK(!value || mode == "constant", "pad: Padding mode \"{}\" doesn't take in value argument", mode);
  return nn::functional::pad(input, options.value(value.value_or(0.0)));
}
inline Tensor constant_pad_nd(const Tensor& input, IntArrayRef pad, const Scalar& value = 0) {
  return nn::functional::pad(input, nn::functional::PadFuncOptions(pad.vec()).value(value.toDouble()));
}
inline Tensor pixel_shuffle(const Tensor& input, int64_t upscale_factor) {
  return nn::functional::pixel_shuffle(input, nn::functional::PixelShuffleFuncOptions(upscale_factor));
}
inline Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim = 1, double eps = 1e-08) {
  return nn::functional::cosine_similarity(x1, x2, nn::functional::CosineSimilarityFuncOptions().dim(dim).eps(eps));
}
inline Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p = 2, double eps = 1e-06,
                                bool keepdim = false) {
  return nn::functional::pairwise_distance(
      x1, x2, nn::functional::PairwiseDistanceFuncOptions().p(p).eps(eps).keepdim(keepdim));
}
inline Tensor pdist(const Tensor& input, double p = 2) { return nn::functional::pdist(input, p); }

// ---- sampling grids ----
inline Tensor grid_sampler(const Tensor& input, const Tensor& grid, int64_t interpolation_mode, int64_t padding_mode,
                           bool align_corners) {
  return nn::functional::grid_sample(
      input, grid, ember::compat_aten::detail::grid_sampler_options(interpolation_mode, padding_mode, align_corners));
}
inline Tensor grid_sampler_2d(const Tensor& input, const Tensor& grid, int64_t interpolation_mode, int64_t padding_mode,
                              bool align_corners) {
  EMBER_CHECK(input.dim() == 4 && grid.dim() == 4,
              "grid_sampler(): expected 4D input and grid with same number of dimensions, but got input with sizes "
              "{} and grid with sizes {}",
              input.sizes(), grid.sizes());
  return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners);
}
inline Tensor grid_sampler_3d(const Tensor& input, const Tensor& grid, int64_t interpolation_mode, int64_t padding_mode,
                              bool align_corners) {
  EMBER_CHECK(input.dim() == 5 && grid.dim() == 5,
              "grid_sampler(): expected 5D input and grid with same number of dimensions, but got input with sizes "
              "{} and grid with sizes {}",
              input.sizes(), grid.sizes());
  return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners);
}
inline Tensor affine_grid_generator(const Tensor& theta, IntArrayRef size, bool align_corners) {
  return nn::functional::affine_grid(theta, size, align_corners);
}

// ---- in-place forms: the value computed from a copy, then written into self ----
inline Tensor& dropout_(Tensor& self, double p, bool train) { return self.copy_(dropout(self.clone(), p, train)); }
inline Tensor& feature_dropout_(Tensor& self, double p, bool train) {
  return self.copy_(feature_dropout(self.clone(), p, train));
}
inline Tensor& alpha_dropout_(Tensor& self, double p, bool train) {
  return self.copy_(alpha_dropout(self.clone(), p, train));
}
inline Tensor& feature_alpha_dropout_(Tensor& self, double p, bool train) {
  return self.copy_(feature_alpha_dropout(self.clone(), p, train));
}
inline Tensor& elu_(Tensor& self, double alpha = 1) { return self.copy_(elu(self.clone(), alpha)); }
inline Tensor& selu_(Tensor& self) { return self.copy_(selu(self.clone())); }
inline Tensor& celu_(Tensor& self, double alpha = 1) { return self.copy_(celu(self.clone(), alpha)); }
inline Tensor& leaky_relu_(Tensor& self, double negative_slope = 0.01) {
  return self.copy_(leaky_relu(self.clone(), negative_slope));
}
inline Tensor& hardtanh_(Tensor& self, double min_val = -1, double max_val = 1) {
  return self.copy_(hardtanh(self.clone(), min_val, max_val));
}
inline Tensor& threshold_(Tensor& self, double threshold_value, double value) {
  return self.copy_(threshold(self.clone(), threshold_value, value));
}
inline Tensor& silu_(Tensor& self) { return self.copy_(silu(self.clone())); }
inline Tensor& mish_(Tensor& self) { return self.copy_(mish(self.clone())); }
inline Tensor& relu6_(Tensor& self) { return self.copy_(relu6(self.clone())); }

// ---- ATen's activations without an nn module in libtorch 1.13 ----
inline Tensor gelu(const Tensor& self, std::string_view approximate = "none") {
  return nn::functional::gelu(self, nn::functional::GELUFuncOptions().approximate(std::string(approximate)));
}
inline Tensor& gelu_(Tensor& self, std::string_view approximate = "none") {
  return self.copy_(gelu(self.clone(), approximate));
}
// relu6(x + 3) / 6 and x relu6(x + 3) / 6, as ATen's kernels compute them.
inline Tensor hardsigmoid(const Tensor& self) { return nn::functional::relu6(self + 3) / 6; }
inline Tensor& hardsigmoid_(Tensor& self) { return self.copy_(hardsigmoid(self.clone())); }
inline Tensor hardswish(const Tensor& self) { return self * nn::functional::relu6(self + 3) / 6; }
inline Tensor& hardswish_(Tensor& self) { return self.copy_(hardswish(self.clone())); }
inline Tensor pixel_unshuffle(const Tensor& self, int64_t downscale_factor) {
  return nn::functional::pixel_unshuffle(self, nn::functional::PixelUnshuffleFuncOptions(downscale_factor));
}

// ---- the padding modes as ATen's functions ----
inline Tensor reflection_pad1d(const Tensor& self, IntArrayRef padding) { return pad(self, padding, "reflect"); }
inline Tensor reflection_pad2d(const Tensor& self, IntArrayRef padding) { return pad(self, padding, "reflect"); }
inline Tensor reflection_pad3d(const Tensor& self, IntArrayRef padding) { return pad(self, padding, "reflect"); }
inline Tensor replication_pad1d(const Tensor& self, IntArrayRef padding) { return pad(self, padding, "replicate"); }
inline Tensor replication_pad2d(const Tensor& self, IntArrayRef padding) { return pad(self, padding, "replicate"); }
inline Tensor replication_pad3d(const Tensor& self, IntArrayRef padding) { return pad(self, padding, "replicate"); }

// ---- losses with ATen's integer reduction ----
inline Tensor soft_margin_loss(const Tensor& self, const Tensor& target, Reduction reduction = kMean) {
  return nn::functional::soft_margin_loss(self, target, reduction);
}
inline Tensor multi_margin_loss(const Tensor& self, const Tensor& target, const Scalar& p = 1, const Scalar& margin = 1,
                                const std::optional<Tensor>& weight = std::nullopt, Reduction reduction = kMean) {
  return nn::functional::multi_margin_loss(self, target,
                                           nn::functional::MultiMarginLossFuncOptions()
                                               .p(p.toLong())
                                               .margin(margin.toDouble())
                                               .weight(weight.value_or(Tensor()))
                                               .reduction(reduction));
}
inline Tensor multilabel_margin_loss(const Tensor& self, const Tensor& target, Reduction reduction = kMean) {
  return nn::functional::multilabel_margin_loss(self, target, reduction);
}

// ---- one step of the recurrent cells (ATen's forms of nn::RNNCell, LSTMCell, GRUCell) ----
namespace compat_detail {
inline Tensor cell_gates(const Tensor& x, const Tensor& w, const std::optional<Tensor>& b) {
  return nn::functional::linear(x, w, b.value_or(Tensor()));
}
inline std::optional<Tensor> bias_or_none(const Tensor& b) {
  return b.defined() ? std::optional<Tensor>(b) : std::nullopt;
}
// Under CUDA autocast a cell runs in the autocast dtype, inputs and state too (PyTorch's CUDA list).
#define EMBER_COMPAT_CELL_AUTOCAST(op)                                                                        \
  const Tensor no_bias;                                                                                       \
  if (autograd::AutocastCall cast{autograd::AutocastOp::op,                                                   \
                                  {input, hx, w_ih, w_hh, b_ih ? *b_ih : no_bias, b_hh ? *b_hh : no_bias}}) { \
    return op(cast[0], cast[1], cast[2], cast[3], compat_detail::bias_or_none(cast[4]),                       \
              compat_detail::bias_or_none(cast[5]));                                                          \
  }
}  // namespace compat_detail
// hx = (h, c); returns (h', c'): i, f, g, o = chunks of the gates; c' = sigmoid(f) c + sigmoid(i) tanh(g).
inline std::tuple<Tensor, Tensor> lstm_cell(const Tensor& input, TensorList hx, const Tensor& w_ih, const Tensor& w_hh,
                                            const std::optional<Tensor>& b_ih = std::nullopt,
                                            const std::optional<Tensor>& b_hh = std::nullopt) {
  EMBER_CHECK(hx.size() == 2, "lstm_cell: expected hx to hold two tensors (h, c), got {}", hx.size());
  const Tensor no_bias;
  if (autograd::AutocastCall cast{autograd::AutocastOp::lstm_cell,
                                  {input, hx[0], hx[1], w_ih, w_hh, b_ih ? *b_ih : no_bias, b_hh ? *b_hh : no_bias}}) {
    return lstm_cell(cast[0], {cast[1], cast[2]}, cast[3], cast[4], compat_detail::bias_or_none(cast[5]),
                     compat_detail::bias_or_none(cast[6]));
  }
  const Tensor gates = compat_detail::cell_gates(input, w_ih, b_ih) + compat_detail::cell_gates(hx[0], w_hh, b_hh);
  const tensor_list chunks = gates.chunk(4, 1);
  const Tensor cy = chunks[1].sigmoid() * hx[1] + chunks[0].sigmoid() * chunks[2].tanh();
  return {chunks[3].sigmoid() * cy.tanh(), cy};
}
// r, z, n: r = sigmoid(x_r + h_r), z = sigmoid(x_z + h_z), n = tanh(x_n + r h_n); h' = n + z (h - n).
inline Tensor gru_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                       const std::optional<Tensor>& b_ih = std::nullopt,
                       const std::optional<Tensor>& b_hh = std::nullopt) {
  EMBER_COMPAT_CELL_AUTOCAST(gru_cell)
  const tensor_list gi = compat_detail::cell_gates(input, w_ih, b_ih).chunk(3, 1);
  const tensor_list gh = compat_detail::cell_gates(hx, w_hh, b_hh).chunk(3, 1);
  const Tensor r = (gi[0] + gh[0]).sigmoid();
  const Tensor z = (gi[1] + gh[1]).sigmoid();
  const Tensor n = (gi[2] + r * gh[2]).tanh();
  return n + z * (hx - n);
}
inline Tensor rnn_tanh_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                            const std::optional<Tensor>& b_ih = std::nullopt,
                            const std::optional<Tensor>& b_hh = std::nullopt) {
  EMBER_COMPAT_CELL_AUTOCAST(rnn_tanh_cell)
  return (compat_detail::cell_gates(input, w_ih, b_ih) + compat_detail::cell_gates(hx, w_hh, b_hh)).tanh();
}
inline Tensor rnn_relu_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                            const std::optional<Tensor>& b_ih = std::nullopt,
                            const std::optional<Tensor>& b_hh = std::nullopt) {
  EMBER_COMPAT_CELL_AUTOCAST(rnn_relu_cell)
  return (compat_detail::cell_gates(input, w_ih, b_ih) + compat_detail::cell_gates(hx, w_hh, b_hh)).relu();
}
#undef EMBER_COMPAT_CELL_AUTOCAST
}  // namespace torch

// libtorch has every one of these in namespace at too.
namespace at {
using torch::adaptive_avg_pool1d;
using torch::adaptive_avg_pool2d;
using torch::adaptive_max_pool1d;
using torch::adaptive_max_pool2d;
using torch::affine_grid_generator;
using torch::alpha_dropout;
using torch::alpha_dropout_;
using torch::avg_pool1d;
using torch::avg_pool2d;
using torch::batch_norm;
using torch::binary_cross_entropy;
using torch::binary_cross_entropy_with_logits;
using torch::celu;
using torch::celu_;
using torch::constant_pad_nd;
using torch::cosine_embedding_loss;
using torch::cosine_similarity;
using torch::cross_entropy_loss;
using torch::dropout;
using torch::dropout_;
using torch::elu;
using torch::elu_;
using torch::feature_alpha_dropout;
using torch::feature_alpha_dropout_;
using torch::feature_dropout;
using torch::feature_dropout_;
using torch::gelu;
using torch::gelu_;
using torch::glu;
using torch::grid_sampler;
using torch::grid_sampler_2d;
using torch::grid_sampler_3d;
using torch::group_norm;
using torch::gru_cell;
using torch::hardshrink;
using torch::hardsigmoid;
using torch::hardsigmoid_;
using torch::hardswish;
using torch::hardswish_;
using torch::hardtanh;
using torch::hardtanh_;
using torch::hinge_embedding_loss;
using torch::huber_loss;
using torch::instance_norm;
using torch::kl_div;
using torch::l1_loss;
using torch::leaky_relu;
using torch::leaky_relu_;
using torch::linear;
using torch::log_sigmoid;
using torch::lstm_cell;
using torch::margin_ranking_loss;
using torch::max_pool1d;
using torch::max_pool1d_with_indices;
using torch::max_pool2d;
using torch::max_pool2d_with_indices;
using torch::mish;
using torch::mish_;
using torch::mse_loss;
using torch::multi_margin_loss;
using torch::multilabel_margin_loss;
using torch::nll_loss;
using torch::nll_loss2d;
using torch::nll_loss_nd;
using torch::pad;
using torch::pairwise_distance;
using torch::pdist;
using torch::pixel_shuffle;
using torch::pixel_unshuffle;
using torch::poisson_nll_loss;
using torch::prelu;
using torch::reflection_pad1d;
using torch::reflection_pad2d;
using torch::reflection_pad3d;
using torch::relu6;
using torch::relu6_;
using torch::replication_pad1d;
using torch::replication_pad2d;
using torch::replication_pad3d;
using torch::rnn_relu_cell;
using torch::rnn_tanh_cell;
using torch::selu;
using torch::selu_;
using torch::silu;
using torch::silu_;
using torch::smooth_l1_loss;
using torch::soft_margin_loss;
using torch::softplus;
using torch::softshrink;
using torch::threshold;
using torch::threshold_;
using torch::triplet_margin_loss;
}  // namespace at
