// nn::LayerNorm: normalises over the trailing dims, then a learned scale and shift, as torch::nn::LayerNorm;
// also GroupNorm, RMSNorm and LocalResponseNorm, each with its function in nn::functional, and
// CrossMapLRN2d (libtorch's own variant of LocalResponseNorm, module only).
//
//   ember::nn::LayerNorm ln(ember::nn::LayerNormOptions({768}));           // weight = 1, bias = 0
//   ember::nn::LayerNorm plain(ember::nn::LayerNormOptions({4}).eps(1e-6).elementwise_affine(false));
//   ember::Tensor y = ln(x);   // x (B, T, 768): mean 0, variance 1 over the last dim
#pragma once

#include <optional>
#include <vector>

#include "nn/module.h"
#include "nn/options.h"

namespace ember::nn {

struct LayerNormOptions {
  LayerNormOptions(std::vector<int64_t> normalized_shape) : normalized_shape_(std::move(normalized_shape)) {}
  EMBER_ARG(std::vector<int64_t>, normalized_shape);
  EMBER_ARG(double, eps) = 1e-5;
  // Learn a per-element weight (init 1) and bias (init 0).
  EMBER_ARG(bool, elementwise_affine) = true;
};

class LayerNormImpl : public Module {
 public:
  explicit LayerNormImpl(const LayerNormOptions& options);

  // weight = 1, bias = 0 (no random draws).
  void reset_parameters();
  // input (*, normalized_shape) -> same shape
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;

  LayerNormOptions options;
  Tensor weight;  // (normalized_shape), undefined without elementwise_affine
  Tensor bias;    // (normalized_shape), undefined without elementwise_affine
};
EMBER_MODULE(LayerNorm);

// nn::GroupNorm: channels (dim 1) split into num_groups groups, each (sample, group) normalised over
// its channels and spatial elements, then a per-channel scale and shift, as torch::nn::GroupNorm.
//   ember::nn::GroupNorm gn(ember::nn::GroupNormOptions(/*num_groups=*/2, /*num_channels=*/6));
struct GroupNormOptions {
  GroupNormOptions(int64_t num_groups, int64_t num_channels) : num_groups_(num_groups), num_channels_(num_channels) {}
  EMBER_ARG(int64_t, num_groups);
  EMBER_ARG(int64_t, num_channels);
  EMBER_ARG(double, eps) = 1e-5;
  EMBER_ARG(bool, affine) = true;
};

class GroupNormImpl : public Module {
 public:
  explicit GroupNormImpl(const GroupNormOptions& options);
  GroupNormImpl(int64_t num_groups, int64_t num_channels) : GroupNormImpl(GroupNormOptions(num_groups, num_channels)) {}
  void reset_parameters();
  // input (N, C, *) -> same shape
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;

  GroupNormOptions options;
  Tensor weight;  // (C), undefined without affine
  Tensor bias;    // (C), undefined without affine
};
EMBER_MODULE(GroupNorm);

// nn::RMSNorm: x / sqrt(mean(x^2 over the trailing dims) + eps) * weight, as torch::nn::RMSNorm
// (PyTorch 2.4). eps = std::nullopt means the input dtype's machine epsilon (finfo.eps).
//   ember::nn::RMSNorm rms(ember::nn::RMSNormOptions({64}));
struct RMSNormOptions {
  RMSNormOptions(std::vector<int64_t> normalized_shape) : normalized_shape_(std::move(normalized_shape)) {}
  EMBER_ARG(std::vector<int64_t>, normalized_shape);
  EMBER_ARG(std::optional<double>, eps) = std::nullopt;
  // Learn a per-element weight (init 1); RMSNorm has no bias.
  EMBER_ARG(bool, elementwise_affine) = true;
};

class RMSNormImpl : public Module {
 public:
  explicit RMSNormImpl(const RMSNormOptions& options);
  void reset_parameters();
  // input (*, normalized_shape) -> same shape
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;

  RMSNormOptions options;
  Tensor weight;  // (normalized_shape), undefined without elementwise_affine
};
EMBER_MODULE(RMSNorm);

// nn::LocalResponseNorm: each channel divided by (k + alpha * mean of x^2 over `size` neighbouring
// channels, zeros beyond the edges)^beta, as torch::nn::LocalResponseNorm. No parameters.
//   ember::nn::LocalResponseNorm lrn(ember::nn::LocalResponseNormOptions(3).alpha(1e-3));
struct LocalResponseNormOptions {
  LocalResponseNormOptions(int64_t size) : size_(size) {}
  EMBER_ARG(int64_t, size);
  EMBER_ARG(double, alpha) = 1e-4;
  EMBER_ARG(double, beta) = 0.75;
  EMBER_ARG(double, k) = 1.;
};

class LocalResponseNormImpl : public Module {
 public:
  explicit LocalResponseNormImpl(const LocalResponseNormOptions& options_) : options(options_) {}
  explicit LocalResponseNormImpl(int64_t size) : options(size) {}
  // input (N, C, *), at least 3 dims -> same shape
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;

  LocalResponseNormOptions options;
};
EMBER_MODULE(LocalResponseNorm);

// nn::CrossMapLRN2d: libtorch's port of Lua Torch's SpatialCrossMapLRN, for (N, C, H, W) inputs:
// y = x / (k + alpha / size * sum of x^2 over a window of channels)^beta. It is not LocalResponseNorm:
// the window of channel c is [c - (size-1)/2, c + (size-1)/2] within the channels plus channel 0 (the
// running sum libtorch keeps never removes channel 0), and the gradient is libtorch's hand-written
// backward, whose window sits one channel lower than the forward's; it is the true derivative only where
// every window spans all channels (C <= (size-1)/2). Ember reproduces both, so gradients equal libtorch's.
//   ember::nn::CrossMapLRN2d lrn(ember::nn::CrossMapLRN2dOptions(3).alpha(1e-3));
struct CrossMapLRN2dOptions {
  CrossMapLRN2dOptions(int64_t size) : size_(size) {}
  EMBER_ARG(int64_t, size);
  EMBER_ARG(double, alpha) = 1e-4;
  EMBER_ARG(double, beta) = 0.75;
  EMBER_ARG(int64_t, k) = 1;  // an integer, as libtorch has it
};

class CrossMapLRN2dImpl : public Module {
 public:
  explicit CrossMapLRN2dImpl(const CrossMapLRN2dOptions& options_);
  explicit CrossMapLRN2dImpl(int64_t size) : CrossMapLRN2dImpl(CrossMapLRN2dOptions(size)) {}
  void reset_parameters() {}
  // input (N, C, H, W) -> same shape. Backward needs size >= 3, as libtorch's does.
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;

  CrossMapLRN2dOptions options;
};
EMBER_MODULE(CrossMapLRN2d);

namespace functional {

using LocalResponseNormFuncOptions = LocalResponseNormOptions;
// input (N, C, *), at least 3 dims: x / (k + alpha * window mean of x^2 over channels)^beta, the window
// of channel c being [c - size/2, c + (size-1)/2].
Tensor local_response_norm(const Tensor& input, const LocalResponseNormFuncOptions& options);

struct GroupNormFuncOptions {
  GroupNormFuncOptions(int64_t num_groups) : num_groups_(num_groups) {}
  EMBER_ARG(int64_t, num_groups);
  EMBER_ARG(Tensor, weight) = {};
  EMBER_ARG(Tensor, bias) = {};
  EMBER_ARG(double, eps) = 1e-5;
};
// input (N, C, *), C divisible by num_groups; weight, bias (C) or undefined.
Tensor group_norm(const Tensor& input, const GroupNormFuncOptions& options);

struct RMSNormFuncOptions {
  RMSNormFuncOptions(std::vector<int64_t> normalized_shape) : normalized_shape_(std::move(normalized_shape)) {}
  EMBER_ARG(std::vector<int64_t>, normalized_shape);
  EMBER_ARG(Tensor, weight) = {};
  EMBER_ARG(std::optional<double>, eps) = std::nullopt;
};
// input (*, normalized_shape); weight (normalized_shape) or undefined.
Tensor rms_norm(const Tensor& input, const RMSNormFuncOptions& options);

}  // namespace functional

}  // namespace ember::nn
