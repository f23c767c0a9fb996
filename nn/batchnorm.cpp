// BatchNorm and InstanceNorm from differentiable ops, with the running statistics updated in place
// under NoGradGuard (so the buffers keep their identity: handles, optimizers and nn::load see them).
#include "nn/batchnorm.h"

#include <type_traits>

#include <fmt/format.h>

#include "autograd/grad_mode.h"
#include "nn/init.h"

namespace ember::nn {

namespace {

// (C) -> (1, C, 1, ...) to broadcast over an input of `dim` dims.
Tensor per_channel(const Tensor& t, int64_t dim) {
  std::vector<int64_t> shape(static_cast<size_t>(dim), 1);
  shape[1] = t.numel();
  return t.reshape(shape);
}

void check_channel_tensor(const char* op, const char* what, const Tensor& t, int64_t C) {
  if (!t.defined()) return;
  EMBER_CHECK(t.dim() == 1 && t.size(0) == C, "{}: {} should have shape [{}] (one value per channel), but got {}", op,
              what, C, t.sizes());
}

// y = y * weight + bias, per channel, where defined.
Tensor affine(Tensor y, const Tensor& weight, const Tensor& bias) {
  if (weight.defined()) y = y * per_channel(weight, y.dim());
  if (bias.defined()) y = y + per_channel(bias, y.dim());
  return y;
}

// running = (1 - m) running + m value, in place.
void update_running(Tensor running, const Tensor& value, double m) {
  NoGradGuard no_grad;
  running.copy_(running * (1.0 - m) + value.detach().to(running.dtype()) * m);
}

}  // namespace

namespace functional {

Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const BatchNormFuncOptions& options) {
  EMBER_CHECK(input.dim() >= 2, "batch_norm: expected an input of at least 2 dims (N, C, *), but got shape {}",
              input.sizes());
  EMBER_CHECK(input.is_floating_point(), "batch_norm: expected a floating-point input, but got {}",
              dtype_name(input.dtype()));
  const int64_t C = input.size(1);
  check_channel_tensor("batch_norm", "running_mean", running_mean, C);
  check_channel_tensor("batch_norm", "running_var", running_var, C);
  check_channel_tensor("batch_norm", "weight", options.weight(), C);
  check_channel_tensor("batch_norm", "bias", options.bias(), C);
  EMBER_CHECK(options.training() || (running_mean.defined() && running_var.defined()),
              "batch_norm: running_mean and running_var must be defined when not training");
  std::vector<int64_t> dims = {0};
  for (int64_t d = 2; d < input.dim(); ++d) dims.push_back(d);
  Tensor y;
  if (options.training()) {
    const int64_t n = C ? input.numel() / C : 0;
    EMBER_CHECK(n > 1, "batch_norm: expected more than 1 value per channel when training, got input size {}",
                input.sizes());
    Tensor mean = input.mean(dims, /*keepdim=*/true);
    Tensor centered = input - mean;
    Tensor var = centered.square().mean(dims, /*keepdim=*/true);  // biased: divided by n
    y = centered * (var + options.eps()).rsqrt();
    const double m = options.momentum().value_or(0.0);
    if (running_mean.defined()) update_running(running_mean, mean.reshape({C}), m);
    if (running_var.defined()) update_running(running_var, var.reshape({C}) * (double(n) / double(n - 1)), m);
  } else {
    y = (input - per_channel(running_mean, input.dim())) *
        (per_channel(running_var, input.dim()) + options.eps()).rsqrt();
  }
  return affine(y, options.weight(), options.bias());
}

Tensor instance_norm(const Tensor& input, const InstanceNormFuncOptions& options) {
  EMBER_CHECK(input.dim() >= 3, "instance_norm: expected an input of at least 3 dims (N, C, *), but got shape {}",
              input.sizes());
  EMBER_CHECK(input.is_floating_point(), "instance_norm: expected a floating-point input, but got {}",
              dtype_name(input.dtype()));
  const int64_t N = input.size(0), C = input.size(1);
  check_channel_tensor("instance_norm", "running_mean", options.running_mean(), C);
  check_channel_tensor("instance_norm", "running_var", options.running_var(), C);
  check_channel_tensor("instance_norm", "weight", options.weight(), C);
  check_channel_tensor("instance_norm", "bias", options.bias(), C);
  std::vector<int64_t> dims;
  for (int64_t d = 2; d < input.dim(); ++d) dims.push_back(d);
  Tensor y;
  if (options.use_input_stats()) {
    const int64_t n = N * C != 0 ? input.numel() / (N * C) : 0;
    EMBER_CHECK(n > 1, "instance_norm: expected more than 1 spatial element when training, got input size {}",
                input.sizes());
    Tensor mean = input.mean(dims, /*keepdim=*/true);  // (N, C, 1, ...)
    Tensor centered = input - mean;
    Tensor var = centered.square().mean(dims, /*keepdim=*/true);
    y = centered * (var + options.eps()).rsqrt();
    // The running statistics get the instances' average, as PyTorch (which folds N into C).
    if (options.running_mean().defined())
      update_running(options.running_mean(), mean.reshape({N, C}).mean({0}), options.momentum());
    if (options.running_var().defined())
      update_running(options.running_var(), var.reshape({N, C}).mean({0}) * (double(n) / double(n - 1)),
                     options.momentum());
  } else {
    EMBER_CHECK(options.running_mean().defined() && options.running_var().defined(),
                "instance_norm: running_mean and running_var must be defined when use_input_stats is false");
    y = (input - per_channel(options.running_mean(), input.dim())) *
        (per_channel(options.running_var(), input.dim()) + options.eps()).rsqrt();
  }
  return affine(y, options.weight(), options.bias());
}

}  // namespace functional

// ---- modules ----

template <typename OptionsType>
NormBase<OptionsType>::NormBase(const OptionsType& options_) : options(options_) {
  const int64_t C = options.num_features();
  EMBER_CHECK(C > 0, "{}: num_features must be positive, but got {}", "BatchNorm/InstanceNorm", C);
  if (options.affine()) {
    weight = register_parameter("weight", ember::empty({C}));
    bias = register_parameter("bias", ember::empty({C}));
  }
  if (options.track_running_stats()) {
    running_mean = register_buffer("running_mean", ember::zeros({C}));
    running_var = register_buffer("running_var", ember::ones({C}));
    num_batches_tracked = register_buffer("num_batches_tracked", ember::zeros({}, dtype(kInt64)));
  }
  reset_parameters();
}

template <typename OptionsType>
void NormBase<OptionsType>::reset_running_stats() {
  if (!options.track_running_stats()) return;
  NoGradGuard no_grad;
  running_mean.zero_();
  running_var.fill_(1);
  num_batches_tracked.zero_();
}

template <typename OptionsType>
void NormBase<OptionsType>::reset_parameters() {
  reset_running_stats();
  if (!options.affine()) return;
  init::ones_(weight);
  init::zeros_(bias);
}

template class NormBase<BatchNormOptions>;
template class NormBase<InstanceNormOptions>;

Tensor BatchNormImplBase::forward(const Tensor& input) {
  check_input_dim(input);
  // The factor the running statistics move by: momentum, or 1 / batches seen (a cumulative average).
  double factor = options.momentum().value_or(0.0);
  if (is_training() && options.track_running_stats()) {
    NoGradGuard no_grad;
    num_batches_tracked.add_(1);
    if (!options.momentum()) factor = 1.0 / static_cast<double>(num_batches_tracked.item<int64_t>());
  }
  // Batch statistics in training, and in eval without running statistics.
  const bool use_batch = is_training() || !options.track_running_stats();
  return functional::batch_norm(
      input, running_mean, running_var,
      functional::BatchNormFuncOptions().weight(weight).bias(bias).training(use_batch).momentum(factor).eps(
          options.eps()));
}

void BatchNorm1dImpl::check_input_dim(const Tensor& input) const {
  EMBER_CHECK(input.dim() == 2 || input.dim() == 3, "BatchNorm1d: expected 2D or 3D input (got {}D input of shape {})",
              input.dim(), input.sizes());
}

void BatchNorm2dImpl::check_input_dim(const Tensor& input) const {
  EMBER_CHECK(input.dim() == 4, "BatchNorm2d: expected 4D input (got {}D input of shape {})", input.dim(),
              input.sizes());
}

void BatchNorm3dImpl::check_input_dim(const Tensor& input) const {
  EMBER_CHECK(input.dim() == 5, "BatchNorm3d: expected 5D input (got {}D input of shape {})", input.dim(),
              input.sizes());
}

template <size_t D>
Tensor InstanceNormImpl<D>::forward(const Tensor& input) {
  const int64_t batched_dim = static_cast<int64_t>(D) + 2;
  EMBER_CHECK(input.dim() == batched_dim - 1 || input.dim() == batched_dim,
              "InstanceNorm{}d: expected {}D or {}D input (got {}D input of shape {})", D, batched_dim - 1, batched_dim,
              input.dim(), input.sizes());
  const bool unbatched = input.dim() == batched_dim - 1;
  Tensor x = unbatched ? input.unsqueeze(0) : input;
  // num_batches_tracked stays 0: PyTorch's InstanceNorm keeps it only for BatchNorm's state layout.
  Tensor y = functional::instance_norm(x, functional::InstanceNormFuncOptions()
                                              .running_mean(running_mean)
                                              .running_var(running_var)
                                              .weight(weight)
                                              .bias(bias)
                                              .use_input_stats(is_training() || !options.track_running_stats())
                                              .momentum(options.momentum())
                                              .eps(options.eps()));
  return unbatched ? y.squeeze(0) : y;
}

// libtorch's printouts: "BatchNorm2d(4, eps=1e-05, momentum=0.1, affine=true, track_running_stats=true)".
namespace {
template <typename OptionsType>
void print_norm(std::ostream& stream, const char* name, const OptionsType& o) {
  stream << std::boolalpha << name << "(" << o.num_features() << ", eps=" << o.eps() << ", momentum=";
  if constexpr (std::is_same_v<OptionsType, BatchNormOptions>) {
    if (o.momentum())
      stream << *o.momentum();
    else
      stream << "None";
  } else {
    stream << o.momentum();
  }
  stream << ", affine=" << o.affine() << ", track_running_stats=" << o.track_running_stats() << ")";
}
}  // namespace

void BatchNorm1dImpl::pretty_print(std::ostream& stream) const { print_norm(stream, "BatchNorm1d", options); }
void BatchNorm2dImpl::pretty_print(std::ostream& stream) const { print_norm(stream, "BatchNorm2d", options); }
void BatchNorm3dImpl::pretty_print(std::ostream& stream) const { print_norm(stream, "BatchNorm3d", options); }
template <size_t D>
void InstanceNormImpl<D>::pretty_print(std::ostream& stream) const {
  print_norm(stream, fmt::format("InstanceNorm{}d", D).c_str(), options);
}

template class InstanceNormImpl<1>;
template class InstanceNormImpl<2>;
template class InstanceNormImpl<3>;

// clone() of the modules above: a new one built from the same options, holding copies of the values.
EMBER_CLONE_WITH_OPTIONS(BatchNorm1dImpl)
EMBER_CLONE_WITH_OPTIONS(BatchNorm2dImpl)
EMBER_CLONE_WITH_OPTIONS(BatchNorm3dImpl)
EMBER_CLONE_WITH_OPTIONS(InstanceNorm1dImpl)
EMBER_CLONE_WITH_OPTIONS(InstanceNorm2dImpl)
EMBER_CLONE_WITH_OPTIONS(InstanceNorm3dImpl)

}  // namespace ember::nn
