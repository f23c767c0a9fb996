// Batch and instance normalisation, as torch::nn::BatchNorm1d/2d/3d and InstanceNorm1d/2d/3d and
// torch::nn::functional::batch_norm / instance_norm: per-channel statistics (channel = dim 1),
// an optional per-channel scale and shift, and running statistics kept as buffers.
//
//   ember::nn::BatchNorm1d bn(ember::nn::BatchNormOptions(16).momentum(0.2));
//   ember::Tensor y = bn(x);          // x (N, 16) or (N, 16, L); training: batch statistics,
//                                     // running_mean / running_var updated, num_batches_tracked += 1
//   bn->eval();
//   ember::Tensor z = bn(x);          // the running statistics
//   ember::nn::InstanceNorm2d in(ember::nn::InstanceNormOptions(3).affine(true));
//
// In training the batch variance normalises (biased, divided by n) and the running variance
// receives the unbiased one (n / (n - 1)), as PyTorch. momentum = std::nullopt (Python's None)
// makes the running statistics a cumulative average over the batches seen. Everything is composed
// of differentiable ops (core/tensor.h), so the gradients are those of the formula, on every device.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>

#include "nn/module.h"
#include "nn/options.h"

namespace ember::nn {

struct BatchNormOptions {
  BatchNormOptions(int64_t num_features) : num_features_(num_features) {}
  EMBER_ARG(int64_t, num_features);
  EMBER_ARG(double, eps) = 1e-5;
  // running = (1 - momentum) running + momentum batch; std::nullopt: the cumulative average.
  EMBER_ARG(std::optional<double>, momentum) = 0.1;
  // Learn a per-channel weight (init 1) and bias (init 0).
  EMBER_ARG(bool, affine) = true;
  // Keep running_mean, running_var and num_batches_tracked, and use them in eval().
  EMBER_ARG(bool, track_running_stats) = true;
};

struct InstanceNormOptions {
  InstanceNormOptions(int64_t num_features) : num_features_(num_features) {}
  EMBER_ARG(int64_t, num_features);
  EMBER_ARG(double, eps) = 1e-5;
  EMBER_ARG(double, momentum) = 0.1;
  EMBER_ARG(bool, affine) = false;
  EMBER_ARG(bool, track_running_stats) = false;
};

// libtorch's per-module names for the same options.
using BatchNorm1dOptions = BatchNormOptions;
using BatchNorm2dOptions = BatchNormOptions;
using BatchNorm3dOptions = BatchNormOptions;
using InstanceNorm1dOptions = InstanceNormOptions;
using InstanceNorm2dOptions = InstanceNormOptions;
using InstanceNorm3dOptions = InstanceNormOptions;

namespace functional {

struct BatchNormFuncOptions {
  EMBER_ARG(Tensor, weight) = {};
  EMBER_ARG(Tensor, bias) = {};
  // Batch statistics (and running ones updated, when given); else the running ones normalise.
  EMBER_ARG(bool, training) = false;
  EMBER_ARG(std::optional<double>, momentum) = 0.1;
  EMBER_ARG(double, eps) = 1e-5;
};
// input (N, C, *); running_mean, running_var (C) or undefined (then training must be true).
// Updates the running statistics in place when training.
Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const BatchNormFuncOptions& options = {});

struct InstanceNormFuncOptions {
  EMBER_ARG(Tensor, running_mean) = {};
  EMBER_ARG(Tensor, running_var) = {};
  EMBER_ARG(Tensor, weight) = {};
  EMBER_ARG(Tensor, bias) = {};
  // Statistics of each instance (and running ones updated, when given); false: the running ones.
  EMBER_ARG(bool, use_input_stats) = true;
  EMBER_ARG(double, momentum) = 0.1;
  EMBER_ARG(double, eps) = 1e-5;
};
// input (N, C, *): each (n, c) normalised over its own spatial elements.
Tensor instance_norm(const Tensor& input, const InstanceNormFuncOptions& options = {});

}  // namespace functional

// What BatchNorm and InstanceNorm share: parameters, buffers and their reset.
template <typename OptionsType>
class NormBase : public Module {
 public:
  explicit NormBase(const OptionsType& options_);
  // weight = 1, bias = 0, and reset_running_stats().
  void reset_parameters();
  // running_mean = 0, running_var = 1, num_batches_tracked = 0.
  void reset_running_stats();

  OptionsType options;
  Tensor weight;               // (C), undefined without affine
  Tensor bias;                 // (C), undefined without affine
  Tensor running_mean;         // (C), buffer; undefined without track_running_stats
  Tensor running_var;          // (C), buffer
  Tensor num_batches_tracked;  // () int64, buffer
};

class BatchNormImplBase : public NormBase<BatchNormOptions> {
 public:
  using NormBase::NormBase;
  Tensor forward(const Tensor& input);

 protected:
  virtual void check_input_dim(const Tensor& input) const = 0;
};

class BatchNorm1dImpl : public BatchNormImplBase {
 public:
  using BatchNormImplBase::BatchNormImplBase;
  void pretty_print(std::ostream& stream) const override;
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;

 protected:
  void check_input_dim(const Tensor& input) const override;  // (N, C) or (N, C, L)
};
EMBER_MODULE(BatchNorm1d);

class BatchNorm2dImpl : public BatchNormImplBase {
 public:
  using BatchNormImplBase::BatchNormImplBase;
  void pretty_print(std::ostream& stream) const override;
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;

 protected:
  void check_input_dim(const Tensor& input) const override;  // (N, C, H, W)
};
EMBER_MODULE(BatchNorm2d);

class BatchNorm3dImpl : public BatchNormImplBase {
 public:
  using BatchNormImplBase::BatchNormImplBase;
  void pretty_print(std::ostream& stream) const override;
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;

 protected:
  void check_input_dim(const Tensor& input) const override;  // (N, C, D, H, W)
};
EMBER_MODULE(BatchNorm3d);

// InstanceNorm1d/2d/3d: D spatial dims, batched (N, C, *spatial) or not (C, *spatial).
template <size_t D>
class InstanceNormImpl : public NormBase<InstanceNormOptions> {
 public:
  using NormBase::NormBase;
  // (N, C, *spatial) or (C, *spatial) -> same shape
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
};

#define EMBER_INSTANCE_NORM_MODULE(D)                                                                 \
  class InstanceNorm##D##dImpl : public InstanceNormImpl<D> {                                         \
   public:                                                                                            \
    using InstanceNormImpl<D>::InstanceNormImpl;                                                      \
    std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override; \
  };                                                                                                  \
  EMBER_MODULE(InstanceNorm##D##d)
EMBER_INSTANCE_NORM_MODULE(1);
EMBER_INSTANCE_NORM_MODULE(2);
EMBER_INSTANCE_NORM_MODULE(3);
#undef EMBER_INSTANCE_NORM_MODULE

}  // namespace ember::nn
