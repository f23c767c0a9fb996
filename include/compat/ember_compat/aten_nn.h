// <torch/torch.h>, part 5: ATen's own functions for what Ember has as nn::functional calls or modules,
// with ATen's argument lists (ATen/ops/<name>.h in libtorch 1.13): the 3-d poolings, max_unpool,
// fractional max pooling, the upsample_* kernels that F::interpolate calls, embedding_bag, ctc_loss,
// bilinear, convolution and its slow_conv* / conv_tbc / conv_depthwise3d spellings, the whole-sequence
// recurrences lstm / gru / rnn_tanh / rnn_relu over a flat parameter list, pad_sequence,
// channel_shuffle and embedding_renorm; and their out= forms. Each forwards to Ember's op: the values
// and gradients are those of the nn call it names.
#pragma once

#include <optional>
#include <tuple>
#include <vector>

#include "ember_compat/aten_out.h"
#include "ember_compat/functional.h"

namespace torch::compat_detail {

// The upsample kernels' output size and optional per-dim scales as F::interpolate's options. ATen
// reads a scale (when given) as output = floor(input * scale) with source positions from 1 / scale;
// F::interpolate does the same when asked for the scale, so the two agree whenever the size is the
// one the scale gives, which is the only way F::interpolate (and so every caller of these) pairs them.
inline ember::nn::functional::InterpolateFuncOptions upsample_options(
    const char* op, const ember::Tensor& input, size_t dims, ember::IntArrayRef output_size,
    const std::vector<std::optional<double>>& scales) {
  EMBER_CHECK(output_size.size() == dims, "{}: It is expected output_size equals to {}, but got size {}", op, dims,
              output_size.size());
  EMBER_CHECK(input.dim() == static_cast<int64_t>(dims) + 2,
              "{}: expected a {}-d input (N, C, {} spatial dims), got {}", op, dims + 2, dims, input.sizes());
  ember::nn::functional::InterpolateFuncOptions options;
  const bool any_scale = std::any_of(scales.begin(), scales.end(), [](const auto& s) { return s.has_value(); });
  if (!any_scale) return options.size(output_size.vec());
  std::vector<double> factors;
  for (size_t d = 0; d < dims; ++d) {
    const int64_t in = input.size(static_cast<int64_t>(d) + 2);
    const double scale = scales[d].value_or(static_cast<double>(output_size[d]) / static_cast<double>(in));
    EMBER_CHECK(static_cast<int64_t>(std::floor(static_cast<double>(in) * scale)) == output_size[d],
                "{}: scale {} of dim {} gives size {} for input size {}, not output_size {} (Ember pairs a scale "
                "only with the size it gives)",
                op, scale, d + 2, static_cast<int64_t>(std::floor(static_cast<double>(in) * scale)), in,
                output_size[d]);
    factors.push_back(scale);
  }
  return options.scale_factor(factors).recompute_scale_factor(false);
}

// The list form upsample_X(input, output_size, scale_factors): exactly one of the two, as ATen's.
inline ember::nn::functional::InterpolateFuncOptions upsample_list_options(
    const char* op, std::optional<ember::IntArrayRef> output_size, std::optional<ember::ArrayRef<double>> scales) {
  EMBER_CHECK(output_size.has_value() != scales.has_value(),
              "{}: Must specify exactly one of output_size and scale_factors", op);
  ember::nn::functional::InterpolateFuncOptions options;
  if (output_size) return options.size(output_size->vec());
  return options.scale_factor(std::vector<double>(scales->begin(), scales->end())).recompute_scale_factor(false);
}

}  // namespace torch::compat_detail

namespace torch {

// ---- 3-d pooling, unpooling and fractional max pooling ----
inline Tensor max_pool3d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = 0,
                         IntArrayRef dilation = 1, bool ceil_mode = false) {
  using compat_detail::spatial_arg;
  const char* op = "max_pool3d";
  return nn::functional::max_pool3d(input, nn::MaxPool3dOptions(spatial_arg<3>(op, "kernel_size", kernel_size))
                                               .stride(spatial_arg<3>(op, "stride", stride, kernel_size))
                                               .padding(spatial_arg<3>(op, "padding", padding))
                                               .dilation(spatial_arg<3>(op, "dilation", dilation))
                                               .ceil_mode(ceil_mode));
}
inline std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& input, IntArrayRef kernel_size,
                                                          IntArrayRef stride = {}, IntArrayRef padding = 0,
                                                          IntArrayRef dilation = 1, bool ceil_mode = false) {
  using compat_detail::spatial_arg;
  const char* op = "max_pool3d_with_indices";
  return nn::functional::max_pool3d_with_indices(input,
                                                 nn::MaxPool3dOptions(spatial_arg<3>(op, "kernel_size", kernel_size))
                                                     .stride(spatial_arg<3>(op, "stride", stride, kernel_size))
                                                     .padding(spatial_arg<3>(op, "padding", padding))
                                                     .dilation(spatial_arg<3>(op, "dilation", dilation))
                                                     .ceil_mode(ceil_mode));
}
inline Tensor avg_pool3d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = 0,
                         bool ceil_mode = false, bool count_include_pad = true,
                         std::optional<int64_t> divisor_override = std::nullopt) {
  using compat_detail::spatial_arg;
  const char* op = "avg_pool3d";
  return nn::functional::avg_pool3d(input, nn::AvgPool3dOptions(spatial_arg<3>(op, "kernel_size", kernel_size))
                                               .stride(spatial_arg<3>(op, "stride", stride, kernel_size))
                                               .padding(spatial_arg<3>(op, "padding", padding))
                                               .ceil_mode(ceil_mode)
                                               .count_include_pad(count_include_pad)
                                               .divisor_override(divisor_override));
}
inline Tensor adaptive_avg_pool3d(const Tensor& input, IntArrayRef output_size) {
  return nn::functional::adaptive_avg_pool3d(input, nn::AdaptiveAvgPool3dOptions(compat_detail::spatial_arg<3>(
                                                        "adaptive_avg_pool3d", "output_size", output_size)));
}
inline std::tuple<Tensor, Tensor> adaptive_max_pool3d(const Tensor& input, IntArrayRef output_size) {
  return nn::functional::adaptive_max_pool3d_with_indices(
      input,
      nn::AdaptiveMaxPool3dOptions(compat_detail::spatial_arg<3>("adaptive_max_pool3d", "output_size", output_size)));
}

namespace compat_detail {
// max_unpool as ATen computes it: each plane's values written at their indices into zeros of
// output_size (the last write wins where an index repeats), through a differentiable scatter.
inline Tensor max_unpool(const char* op, const Tensor& input, const Tensor& indices, IntArrayRef output_size,
                         size_t dims) {
  EMBER_CHECK(indices.dtype() == kInt64, "{}: elements in indices should be type int64 but got: {}", op,
              dtype_name(indices.dtype()));
  EMBER_CHECK(input.sizes() == indices.sizes(),
              "{}: Expected shape of indices to be same as that of the input tensor "
              "({}) but got indices tensor with shape: {}",
              op, input.sizes(), indices.sizes());
  EMBER_CHECK(output_size.size() == dims,
              "{}: There should be exactly {} elements (depth, height, width) in "
              "output_size, but got {} elements.",
              op, dims, output_size.size());
  const int64_t spatial_in = static_cast<int64_t>(dims);
  EMBER_CHECK(input.dim() == spatial_in + 1 || input.dim() == spatial_in + 2,
              "{}: Input to max_unpooling should be a {}d or {}d Tensor, but got a tensor with {} dimensions.", op,
              dims + 1, dims + 2, input.dim());
  int64_t plane = 1;
  for (int64_t s : output_size) plane *= s;
  std::vector<int64_t> lead(input.sizes().begin(), input.sizes().end() - spatial_in);
  std::vector<int64_t> out_shape = lead;
  out_shape.insert(out_shape.end(), output_size.begin(), output_size.end());
  if (indices.numel() > 0) {
    NoGradGuard no_grad;
    const int64_t lo = indices.min().item<int64_t>(), hi = indices.max().item<int64_t>();
    EMBER_CHECK(lo >= 0 && hi < plane, "{}: Found an invalid max index: {} (output volumes are of size {})", op,
                lo < 0 ? lo : hi, fmt::join(output_size, "x"));
  }
  int64_t planes = 1;
  for (int64_t s : lead) planes *= s;
  Tensor values = input.reshape({planes, -1});
  Tensor out = zeros({planes, plane}, input.options()).scatter(1, indices.reshape({planes, -1}), values);
  return out.reshape(out_shape);
}
}  // namespace compat_detail

inline Tensor max_unpool2d(const Tensor& self, const Tensor& indices, IntArrayRef output_size) {
  return compat_detail::max_unpool("max_unpooling2d_forward_out_cpu", self, indices, output_size, 2);
}
inline Tensor max_unpool3d(const Tensor& self, const Tensor& indices, IntArrayRef output_size, IntArrayRef stride,
                           IntArrayRef padding) {
  const char* op = "max_unpooling3d_forward_out_cpu";
  EMBER_CHECK(stride.size() == 3,
              "{}: There should be exactly three elements (depth, height, width) in stride, but "
              "got: {}",
              op, stride.size());
  EMBER_CHECK(padding.size() == 3,
              "{}: There should be exactly three elements (depth, height, width) in padding, "
              "but got: {}",
              op, padding.size());
  EMBER_CHECK(stride[0] > 0 && stride[1] > 0 && stride[2] > 0,
              "{}: strides should be greater than zero, but got "
              "stride: {}",
              op, stride);
  return compat_detail::max_unpool(op, self, indices, output_size, 3);
}
inline std::tuple<Tensor, Tensor> fractional_max_pool2d(const Tensor& self, IntArrayRef kernel_size,
                                                        IntArrayRef output_size, const Tensor& random_samples) {
  using compat_detail::spatial_arg;
  const char* op = "fractional_max_pool2d";
  return nn::functional::fractional_max_pool2d_with_indices(
      self, nn::FractionalMaxPool2dOptions(spatial_arg<2>(op, "kernel_size", kernel_size))
                .output_size(spatial_arg<2>(op, "output_size", output_size))
                ._random_samples(random_samples));
}
inline std::tuple<Tensor, Tensor> fractional_max_pool3d(const Tensor& self, IntArrayRef kernel_size,
                                                        IntArrayRef output_size, const Tensor& random_samples) {
  using compat_detail::spatial_arg;
  const char* op = "fractional_max_pool3d";
  return nn::functional::fractional_max_pool3d_with_indices(
      self, nn::FractionalMaxPool3dOptions(spatial_arg<3>(op, "kernel_size", kernel_size))
                .output_size(spatial_arg<3>(op, "output_size", output_size))
                ._random_samples(random_samples));
}

// ---- upsample_*: F::interpolate's kernels, by output size (and optional scales) or by a list ----
#define EMBER_ATEN_UPSAMPLE_LIST(name, mode_value, has_corners)                                                  \
  inline Tensor name(const Tensor& input, std::optional<IntArrayRef> output_size,                                \
                     EMBER_UPSAMPLE_CORNERS_PARAM_##has_corners std::optional<ArrayRef<double>> scale_factors) { \
    auto options = compat_detail::upsample_list_options(#name, output_size, scale_factors).mode(mode_value);     \
    EMBER_UPSAMPLE_CORNERS_SET_##has_corners return nn::functional::interpolate(input, options);                 \
  }
#define EMBER_UPSAMPLE_CORNERS_PARAM_1 bool align_corners,
#define EMBER_UPSAMPLE_CORNERS_PARAM_0
#define EMBER_UPSAMPLE_CORNERS_SET_1 options.align_corners(align_corners);
#define EMBER_UPSAMPLE_CORNERS_SET_0
EMBER_ATEN_UPSAMPLE_LIST(upsample_nearest1d, kNearest, 0)
EMBER_ATEN_UPSAMPLE_LIST(upsample_nearest2d, kNearest, 0)
EMBER_ATEN_UPSAMPLE_LIST(upsample_nearest3d, kNearest, 0)
EMBER_ATEN_UPSAMPLE_LIST(upsample_linear1d, kLinear, 1)
EMBER_ATEN_UPSAMPLE_LIST(upsample_bilinear2d, kBilinear, 1)
EMBER_ATEN_UPSAMPLE_LIST(upsample_bicubic2d, kBicubic, 1)
EMBER_ATEN_UPSAMPLE_LIST(upsample_trilinear3d, kTrilinear, 1)
#undef EMBER_ATEN_UPSAMPLE_LIST
#undef EMBER_UPSAMPLE_CORNERS_PARAM_1
#undef EMBER_UPSAMPLE_CORNERS_PARAM_0
#undef EMBER_UPSAMPLE_CORNERS_SET_1
#undef EMBER_UPSAMPLE_CORNERS_SET_0

inline Tensor upsample_nearest1d(const Tensor& self, IntArrayRef output_size,
                                 std::optional<double> scales = std::nullopt) {
  return nn::functional::interpolate(
      self, compat_detail::upsample_options("upsample_nearest1d", self, 1, output_size, {scales}).mode(kNearest));
}
inline Tensor upsample_nearest2d(const Tensor& self, IntArrayRef output_size,
                                 std::optional<double> scales_h = std::nullopt,
                                 std::optional<double> scales_w = std::nullopt) {
  return nn::functional::interpolate(
      self,
      compat_detail::upsample_options("upsample_nearest2d", self, 2, output_size, {scales_h, scales_w}).mode(kNearest));
}
inline Tensor upsample_nearest3d(const Tensor& self, IntArrayRef output_size,
                                 std::optional<double> scales_d = std::nullopt,
                                 std::optional<double> scales_h = std::nullopt,
                                 std::optional<double> scales_w = std::nullopt) {
  return nn::functional::interpolate(
      self, compat_detail::upsample_options("upsample_nearest3d", self, 3, output_size, {scales_d, scales_h, scales_w})
                .mode(kNearest));
}
inline Tensor upsample_linear1d(const Tensor& self, IntArrayRef output_size, bool align_corners,
                                std::optional<double> scales = std::nullopt) {
  return nn::functional::interpolate(
      self, compat_detail::upsample_options("upsample_linear1d", self, 1, output_size, {scales})
                .mode(kLinear)
                .align_corners(align_corners));
}
inline Tensor upsample_bilinear2d(const Tensor& self, IntArrayRef output_size, bool align_corners,
                                  std::optional<double> scales_h = std::nullopt,
                                  std::optional<double> scales_w = std::nullopt) {
  return nn::functional::interpolate(
      self, compat_detail::upsample_options("upsample_bilinear2d", self, 2, output_size, {scales_h, scales_w})
                .mode(kBilinear)
                .align_corners(align_corners));
}
inline Tensor upsample_bicubic2d(const Tensor& self, IntArrayRef output_size, bool align_corners,
                                 std::optional<double> scales_h = std::nullopt,
                                 std::optional<double> scales_w = std::nullopt) {
  return nn::functional::interpolate(
      self, compat_detail::upsample_options("upsample_bicubic2d", self, 2, output_size, {scales_h, scales_w})
                .mode(kBicubic)
                .align_corners(align_corners));
}
inline Tensor upsample_trilinear3d(const Tensor& self, IntArrayRef output_size, bool align_corners,
                                   std::optional<double> scales_d = std::nullopt,
                                   std::optional<double> scales_h = std::nullopt,
                                   std::optional<double> scales_w = std::nullopt) {
  return nn::functional::interpolate(self, compat_detail::upsample_options("upsample_trilinear3d", self, 3, output_size,
                                                                           {scales_d, scales_h, scales_w})
                                               .mode(kTrilinear)
                                               .align_corners(align_corners));
}

// ---- embeddings, bilinear, CTC ----

// (output, offset2bag, bag_size, max_indices) as libtorch 1.13's CPU kernel returns them: mode 0 sum,
// 1 mean, 2 max. The three auxiliary results are the kernel's bookkeeping: for sum, an empty offset2bag
// and zeros; for mean and max, each index's bag and each bag's size; max_indices the weight row each
// maximum came from (max), or the bag sizes (mean).
inline std::tuple<Tensor, Tensor, Tensor, Tensor> embedding_bag(
    const Tensor& weight, const Tensor& indices, const Tensor& offsets, bool scale_grad_by_freq, int64_t mode,
    bool sparse, const Tensor& per_sample_weights, bool include_last_offset, std::optional<int64_t> padding_idx) {
  EMBER_CHECK(mode >= 0 && mode <= 2, "embedding_bag: mode must be 0 (sum), 1 (mean) or 2 (max), got {}", mode);
  const nn::EmbeddingBagMode modes[] = {kSum, kMean, kMax};
  Tensor output = nn::functional::embedding_bag(indices, weight,
                                                nn::functional::EmbeddingBagFuncOptions()
                                                    .offsets(offsets)
                                                    .scale_grad_by_freq(scale_grad_by_freq)
                                                    .mode(modes[mode])
                                                    .sparse(sparse)
                                                    .per_sample_weights(per_sample_weights)
                                                    .include_last_offset(include_last_offset)
                                                    .padding_idx(padding_idx));
  // The bookkeeping results, on the host: each index's bag, each bag's size, each maximum's row.
  NoGradGuard no_grad;
  const Tensor flat = indices.reshape({-1}).to(kCPU).to(kInt64).contiguous();
  const int64_t n = flat.numel(), bags = output.size(0), columns = output.size(1);
  std::vector<int64_t> starts;
  if (indices.dim() == 2) {
    for (int64_t b = 0; b < bags; ++b) starts.push_back(b * indices.size(1));
  } else {
    const Tensor o = offsets.to(kCPU).to(kInt64).contiguous();
    starts.assign(o.data_ptr<int64_t>(), o.data_ptr<int64_t>() + bags);
  }
  const auto bag_end = [&](int64_t b) { return b + 1 < bags ? starts[b + 1] : n; };
  const TensorOptions longs = TensorOptions().dtype(kInt64).device(weight.device());
  if (mode == 0) return {output, empty({0}, longs), zeros({bags}, longs), zeros({bags}, longs)};
  std::vector<int64_t> offset2bag(n, 0), bag_size(bags, 0);
  const int64_t* idx = flat.data_ptr<int64_t>();
  for (int64_t b = 0; b < bags; ++b)
    for (int64_t j = starts[b]; j < bag_end(b); ++j) {
      offset2bag[j] = b;
      if (!padding_idx || idx[j] != *padding_idx) ++bag_size[b];
    }
  Tensor bag_sizes = from_vector<int64_t>(bag_size, {bags}).to(weight.device());
  Tensor to_bag = from_vector<int64_t>(offset2bag, {n}).to(weight.device());
  if (mode == 1) return {output, to_bag, bag_sizes, bag_sizes};
  // Only the rows the bags index (nn::functional::embedding_bag has checked them), one per index.
  const Tensor rows = weight.index_select(0, flat.to(weight.device())).to(kCPU).to(kFloat64).contiguous();
  std::vector<int64_t> max_rows(bags * columns, -1);
  for (int64_t b = 0; b < bags; ++b)
    for (int64_t c = 0; c < columns; ++c) {
      double best = 0;
      for (int64_t j = starts[b]; j < bag_end(b); ++j) {
        if (padding_idx && idx[j] == *padding_idx) continue;
        const double v = rows.data_ptr<double>()[j * columns + c];
        if (max_rows[b * columns + c] < 0 || v > best) max_rows[b * columns + c] = idx[j], best = v;
      }
    }
  return {output, to_bag, bag_sizes, from_vector<int64_t>(max_rows, {bags, columns}).to(weight.device())};
}
inline std::tuple<Tensor, Tensor, Tensor, Tensor> embedding_bag(const Tensor& weight, const Tensor& indices,
                                                                const Tensor& offsets, bool scale_grad_by_freq = false,
                                                                int64_t mode = 0, bool sparse = false,
                                                                const Tensor& per_sample_weights = {},
                                                                bool include_last_offset = false) {
  return embedding_bag(weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights,
                       include_last_offset, std::nullopt);
}

inline Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight, const Tensor& bias = {}) {
  return nn::functional::bilinear(input1, input2, weight, bias);
}

inline Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                       const Tensor& target_lengths, int64_t blank = 0, Reduction reduction = kMean,
                       bool zero_infinity = false) {
  return nn::functional::ctc_loss(
      log_probs, targets, input_lengths, target_lengths,
      nn::functional::CTCLossFuncOptions().blank(blank).reduction(reduction).zero_infinity(zero_infinity));
}
inline Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, IntArrayRef input_lengths,
                       IntArrayRef target_lengths, int64_t blank = 0, Reduction reduction = kMean,
                       bool zero_infinity = false) {
  const auto as_tensor = [](IntArrayRef v) { return from_vector<int64_t>(v.vec(), {static_cast<int64_t>(v.size())}); };
  return ctc_loss(log_probs, targets, as_tensor(input_lengths), as_tensor(target_lengths), blank, reduction,
                  zero_infinity);
}

inline Tensor embedding_renorm(const Tensor& self, const Tensor& indices, double max_norm, double norm_type) {
  Tensor copy = self.clone();
  nn::functional::embedding_renorm_(copy, indices, max_norm, norm_type);
  return copy;
}
inline Tensor& embedding_renorm_(Tensor& self, const Tensor& indices, double max_norm, double norm_type) {
  nn::functional::embedding_renorm_(self, indices, max_norm, norm_type);
  return self;
}

// ---- convolution: the general entry point and ATen's older spellings ----

// weight's dim picks 1-d, 2-d or 3-d; transposed picks the adjoint (with output_padding).
inline Tensor convolution(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
                          IntArrayRef padding, IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                          int64_t groups) {
  switch (weight.dim()) {
    case 3:
      return transposed ? conv_transpose1d(input, weight, bias, stride, padding, output_padding, groups, dilation)
                        : conv1d(input, weight, bias, stride, padding, dilation, groups);
    case 4:
      return transposed ? conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups, dilation)
                        : conv2d(input, weight, bias, stride, padding, dilation, groups);
    case 5:
      return transposed ? conv_transpose3d(input, weight, bias, stride, padding, output_padding, groups, dilation)
                        : conv3d(input, weight, bias, stride, padding, dilation, groups);
    default:
      break;
  }
  EMBER_FAIL("convolution: expected a 3-d, 4-d or 5-d weight (1, 2 or 3 spatial dims), got weight {} for input {}",
             weight.sizes(), input.sizes());
}
// input (T, B, C_in) time first, weight (K, C_in, C_out), bias (C_out): a 1-d convolution over T.
inline Tensor conv_tbc(const Tensor& self, const Tensor& weight, const Tensor& bias, int64_t pad = 0) {
  EMBER_CHECK(self.dim() == 3, "conv_tbc: Input must have 3 dims: time, batch, in_channel, got {}", self.sizes());
  EMBER_CHECK(weight.dim() == 3,
              "conv_tbc: Weight tensor must have 3 dims: kernel_width, in_channels, "
              "out_channels., got {}",
              weight.sizes());
  EMBER_CHECK(bias.dim() == 1, "conv_tbc: Bias must be 1-D, got {}", bias.sizes());
  EMBER_CHECK(self.size(2) == weight.size(1),
              "conv_tbc: Input dim 2 (input channels) is not == dim 1 in the weight "
              "tensor (input {}, weight {})",
              self.sizes(), weight.sizes());
  EMBER_CHECK(weight.size(2) == bias.size(0),
              "conv_tbc: Bias size must equal dim 2 in the weight tensor (output "
              "channels) (weight {}, bias {})",
              weight.sizes(), bias.sizes());
  if (ember::autograd::AutocastCall cast{ember::autograd::AutocastOp::conv_tbc, {self, weight, bias}})
    return conv_tbc(cast[0], cast[1], cast[2], pad);
  return conv1d(self.permute({1, 2, 0}), weight.permute({2, 1, 0}), bias, 1, pad).permute({2, 0, 1});
}

inline Tensor slow_conv3d(const Tensor& self, const Tensor& weight, IntArrayRef /*kernel_size*/,
                          const Tensor& bias = {}, IntArrayRef stride = 1, IntArrayRef padding = 0) {
  return conv3d(self, weight, bias, stride, padding);
}
inline Tensor slow_conv_dilated2d(const Tensor& self, const Tensor& weight, IntArrayRef /*kernel_size*/,
                                  const Tensor& bias = {}, IntArrayRef stride = 1, IntArrayRef padding = 0,
                                  IntArrayRef dilation = 1) {
  return conv2d(self, weight, bias, stride, padding, dilation);
}
inline Tensor slow_conv_dilated3d(const Tensor& self, const Tensor& weight, IntArrayRef /*kernel_size*/,
                                  const Tensor& bias = {}, IntArrayRef stride = 1, IntArrayRef padding = 0,
                                  IntArrayRef dilation = 1) {
  return conv3d(self, weight, bias, stride, padding, dilation);
}
inline Tensor slow_conv_transpose2d(const Tensor& self, const Tensor& weight, IntArrayRef /*kernel_size*/,
                                    const Tensor& bias = {}, IntArrayRef stride = 1, IntArrayRef padding = 0,
                                    IntArrayRef output_padding = 0, IntArrayRef dilation = 1) {
  return conv_transpose2d(self, weight, bias, stride, padding, output_padding, 1, dilation);
}
inline Tensor slow_conv_transpose3d(const Tensor& self, const Tensor& weight, IntArrayRef /*kernel_size*/,
                                    const Tensor& bias = {}, IntArrayRef stride = 1, IntArrayRef padding = 0,
                                    IntArrayRef output_padding = 0, IntArrayRef dilation = 1) {
  return conv_transpose3d(self, weight, bias, stride, padding, output_padding, 1, dilation);
}
// One filter group per input channel.
inline Tensor conv_depthwise3d(const Tensor& self, const Tensor& weight, IntArrayRef /*kernel_size*/,
                               const Tensor& bias, IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation) {
  EMBER_CHECK(self.dim() == 5, "conv_depthwise3d: expected a 5-d input (N, C, D, H, W), got {}", self.sizes());
  return conv3d(self, weight, bias, stride, padding, dilation, self.size(1));
}

// ---- recurrences over whole sequences, with the parameters as one flat list ----
// params per layer and direction, forward first: w_ih, w_hh, then b_ih, b_hh when has_biases, then
// w_hr when hx's h and c differ in size (an LSTM with projections): nn::LSTM's all_weights() order.
// Dropout (when train) between layers, as nn::LSTM.
namespace compat_detail {
// The layers one after another, each direction's steps through nn's recurrent_step (the cells' and
// modules' arithmetic). h0 (L*D, B, H_out), c0 (L*D, B, H) for an LSTM, else undefined.
inline std::tuple<Tensor, Tensor, Tensor> run_recurrence(
    const char* op, const nn::detail::RNNOptionsBase::rnn_options_base_mode_t& mode, const Tensor& input,
    const Tensor& h0, const Tensor& c0, TensorList params, bool has_biases, int64_t num_layers, double dropout,
    bool train, bool bidirectional, bool batch_first) {
  const int64_t D = bidirectional ? 2 : 1;
  const bool with_cell = c0.defined();
  EMBER_CHECK(input.dim() == 3, "{}: input must have 3 dimensions, got {}", op, input.sizes());
  EMBER_CHECK(h0.dim() == 3 && h0.size(0) == num_layers * D, "{}: Expected hidden size ({}, batch, hidden), got {}", op,
              num_layers * D, h0.sizes());
  const bool projected = with_cell && h0.size(2) != c0.size(2);
  const size_t per_layer = (has_biases ? 4 : 2) + (projected ? 1 : 0);
  EMBER_CHECK(params.size() == per_layer * static_cast<size_t>(num_layers * D),
              "{}: expected {} parameters ({} per layer and direction for {} layers, {} directions), got {}", op,
              per_layer * static_cast<size_t>(num_layers * D), per_layer, num_layers, D, params.size());
  Tensor x = batch_first ? input.transpose(0, 1) : input;  // (T, B, I)
  const int64_t T = x.size(0);
  std::vector<Tensor> h_n, c_n;
  for (int64_t layer = 0; layer < num_layers; ++layer) {
    std::vector<Tensor> directions;
    for (int64_t dir = 0; dir < D; ++dir) {
      const size_t at = static_cast<size_t>(layer * D + dir) * per_layer;
      nn::detail::RNNLayerWeights w{params[at], params[at + 1], has_biases ? params[at + 2] : Tensor(),
                                    has_biases ? params[at + 3] : Tensor(),
                                    projected ? params[at + per_layer - 1] : Tensor()};
      Tensor xw = x.matmul(w.w_ih.t());  // (T, B, G*H) for every step at once
      if (w.b_ih.defined()) xw = xw + w.b_ih;
      Tensor h = h0[layer * D + dir], c = with_cell ? c0[layer * D + dir] : Tensor();
      std::vector<Tensor> steps(static_cast<size_t>(T));
      for (int64_t i = 0; i < T; ++i) {
        const int64_t t = dir == 0 ? i : T - 1 - i;
        std::tie(h, c) = nn::detail::recurrent_step(mode, w, xw[t], h, c);
        steps[static_cast<size_t>(t)] = h;
      }
      directions.push_back(T > 0 ? stack(steps, 0) : empty({0, x.size(1), h.size(-1)}, x.options()));
      h_n.push_back(h);
      if (with_cell) c_n.push_back(c);
    }
    x = D == 2 ? cat(directions, 2) : directions[0];
    if (dropout > 0 && train && layer + 1 < num_layers) x = nn::functional::dropout(x, dropout, true);
  }
  return {batch_first ? x.transpose(0, 1) : x, stack(h_n, 0), with_cell ? stack(c_n, 0) : Tensor()};
}
}  // namespace compat_detail

// hx = {h0 (L*D, B, H_out), c0 (L*D, B, H)} -> (output, h_n, c_n).
inline std::tuple<Tensor, Tensor, Tensor> lstm(const Tensor& input, TensorList hx, TensorList params, bool has_biases,
                                               int64_t num_layers, double dropout, bool train, bool bidirectional,
                                               bool batch_first) {
  EMBER_CHECK(hx.size() == 2, "lstm: lstm expects two hidden states, got {}", hx.size());
  return compat_detail::run_recurrence("lstm", kLSTM, input, hx[0], hx[1], params, has_biases, num_layers, dropout,
                                       train, bidirectional, batch_first);
}
#define EMBER_ATEN_RECURRENCE(name, mode_value)                                                                        \
  inline std::tuple<Tensor, Tensor> name(const Tensor& input, const Tensor& hx, TensorList params, bool has_biases,    \
                                         int64_t num_layers, double dropout, bool train, bool bidirectional,           \
                                         bool batch_first) {                                                           \
    auto [output, h_n, unused] =                                                                                       \
        compat_detail::run_recurrence(#name, mode_value, input, hx, Tensor(), params, has_biases, num_layers, dropout, \
                                      train, bidirectional, batch_first);                                              \
    return std::tuple<Tensor, Tensor>(output, h_n);                                                                    \
  }
EMBER_ATEN_RECURRENCE(gru, kGRU)
EMBER_ATEN_RECURRENCE(rnn_tanh, kRNN_TANH)
EMBER_ATEN_RECURRENCE(rnn_relu, kRNN_RELU)
#undef EMBER_ATEN_RECURRENCE

inline Tensor pad_sequence(TensorList sequences, bool batch_first = false, double padding_value = 0.0) {
  return nn::utils::rnn::pad_sequence(std::vector<Tensor>(sequences.begin(), sequences.end()), batch_first,
                                      padding_value);
}

// (N, C, *) with C = groups * k: the channels regrouped as (k, groups), as ShuffleNet's shuffle.
inline Tensor channel_shuffle(const Tensor& self, int64_t groups) {
  EMBER_CHECK(self.dim() > 2,
              "channel_shuffle expects input to have at least 3 dimensions, but got input with sizes "
              "{}",
              self.sizes());
  EMBER_CHECK(groups > 0, "Number of groups to divide channels in must be positive. Value of groups:{}", groups);
  const int64_t c = self.size(1);
  EMBER_CHECK(c % groups == 0, "Number of channels must be divisible by groups. Got {} channels and {} groups.", c,
              groups);
  std::vector<int64_t> grouped = self.sizes().vec();
  grouped[1] = c / groups;
  grouped.insert(grouped.begin() + 1, groups);
  return self.reshape(grouped).transpose(1, 2).reshape(self.sizes());
}

}  // namespace torch

namespace at {
using torch::adaptive_avg_pool3d;
using torch::adaptive_max_pool3d;
using torch::avg_pool3d;
using torch::bilinear;
using torch::channel_shuffle;
using torch::conv_depthwise3d;
using torch::conv_tbc;
using torch::convolution;
using torch::ctc_loss;
using torch::embedding_bag;
using torch::embedding_renorm;
using torch::embedding_renorm_;
using torch::fractional_max_pool2d;
using torch::fractional_max_pool3d;
using torch::gru;
using torch::lstm;
using torch::max_pool3d;
using torch::max_pool3d_with_indices;
using torch::max_unpool2d;
using torch::max_unpool3d;
using torch::pad_sequence;
using torch::rnn_relu;
using torch::rnn_tanh;
using torch::slow_conv3d;
using torch::slow_conv_dilated2d;
using torch::slow_conv_dilated3d;
using torch::slow_conv_transpose2d;
using torch::slow_conv_transpose3d;
using torch::upsample_bicubic2d;
using torch::upsample_bilinear2d;
using torch::upsample_linear1d;
using torch::upsample_nearest1d;
using torch::upsample_nearest2d;
using torch::upsample_nearest3d;
using torch::upsample_trilinear3d;
}  // namespace at

// ---- out= forms ----
namespace ember::compat_aten {
EMBER_ATEN_OUT_OF(adaptive_avg_pool3d)
EMBER_ATEN_OUT_OF(avg_pool3d)
EMBER_ATEN_OUT_OF(max_unpool2d)
EMBER_ATEN_OUT_OF(max_unpool3d)
EMBER_ATEN_OUT_OF(upsample_nearest1d)
EMBER_ATEN_OUT_OF(upsample_nearest2d)
EMBER_ATEN_OUT_OF(upsample_nearest3d)
EMBER_ATEN_OUT_OF(upsample_linear1d)
EMBER_ATEN_OUT_OF(upsample_bilinear2d)
EMBER_ATEN_OUT_OF(upsample_bicubic2d)
EMBER_ATEN_OUT_OF(upsample_trilinear3d)
EMBER_ATEN_OUT_OF(convolution)
EMBER_ATEN_OUT_OF(conv_tbc)
EMBER_ATEN_OUT_OF(slow_conv3d)
EMBER_ATEN_OUT_OF(slow_conv_dilated2d)
EMBER_ATEN_OUT_OF(slow_conv_dilated3d)
EMBER_ATEN_OUT_OF(slow_conv_transpose2d)
EMBER_ATEN_OUT_OF(slow_conv_transpose3d)
EMBER_ATEN_OUT_OF(conv_depthwise3d)
EMBER_ATEN_OUT_OF(channel_shuffle)
EMBER_ATEN_OUT_OF(embedding_renorm)

// The two-result forms: (out, indices) first, as libtorch's.
inline std::tuple<Tensor&, Tensor&> max_pool3d_with_indices_out(Tensor& out, Tensor& indices, const Tensor& self,
                                                                IntArrayRef kernel_size, IntArrayRef stride = {},
                                                                IntArrayRef padding = 0, IntArrayRef dilation = 1,
                                                                bool ceil_mode = false) {
  detail::refuse_grad("max_pool3d_with_indices_out", self);
  return detail::assign_outs("max_pool3d_with_indices_out",
                             ::at::max_pool3d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode),
                             out, indices);
}
inline std::tuple<Tensor&, Tensor&> max_pool3d_with_indices_outf(const Tensor& self, IntArrayRef kernel_size,
                                                                 IntArrayRef stride, IntArrayRef padding,
                                                                 IntArrayRef dilation, bool ceil_mode, Tensor& out,
                                                                 Tensor& indices) {
  return max_pool3d_with_indices_out(out, indices, self, kernel_size, stride, padding, dilation, ceil_mode);
}
inline std::tuple<Tensor&, Tensor&> adaptive_max_pool3d_out(Tensor& out, Tensor& indices, const Tensor& self,
                                                            IntArrayRef output_size) {
  detail::refuse_grad("adaptive_max_pool3d_out", self);
  return detail::assign_outs("adaptive_max_pool3d_out", ::at::adaptive_max_pool3d(self, output_size), out, indices);
}
inline std::tuple<Tensor&, Tensor&> adaptive_max_pool3d_outf(const Tensor& self, IntArrayRef output_size, Tensor& out,
                                                             Tensor& indices) {
  return adaptive_max_pool3d_out(out, indices, self, output_size);
}
#define EMBER_ATEN_FRACTIONAL_OUT(name)                                                                          \
  inline std::tuple<Tensor&, Tensor&> name##_out(Tensor& output, Tensor& indices, const Tensor& self,            \
                                                 IntArrayRef kernel_size, IntArrayRef output_size,               \
                                                 const Tensor& random_samples) {                                 \
    detail::refuse_grad(#name "_out", self);                                                                     \
    return detail::assign_outs(#name "_out", ::at::name(self, kernel_size, output_size, random_samples), output, \
                               indices);                                                                         \
  }                                                                                                              \
  inline std::tuple<Tensor&, Tensor&> name##_outf(const Tensor& self, IntArrayRef kernel_size,                   \
                                                  IntArrayRef output_size, const Tensor& random_samples,         \
                                                  Tensor& output, Tensor& indices) {                             \
    return name##_out(output, indices, self, kernel_size, output_size, random_samples);                          \
  }
EMBER_ATEN_FRACTIONAL_OUT(fractional_max_pool2d)
EMBER_ATEN_FRACTIONAL_OUT(fractional_max_pool3d)
#undef EMBER_ATEN_FRACTIONAL_OUT
}  // namespace ember::compat_aten
