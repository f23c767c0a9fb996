// nn::LayerNorm: parameters and forward through functional::layer_norm; GroupNorm, RMSNorm and
// LocalResponseNorm, composed.
#include "nn/normalization.h"

#include <limits>
#include <ostream>

#include "core/shape.h"
#include "nn/functional.h"
#include "nn/init.h"

namespace ember::nn {

LayerNormImpl::LayerNormImpl(const LayerNormOptions& options_) : options(options_) {
  EMBER_CHECK(!options.normalized_shape().empty(), "LayerNorm: normalized_shape must have at least one dimension");
  const bool affine = options.elementwise_affine();
  weight = register_parameter("weight", affine ? ember::empty(options.normalized_shape()) : Tensor(), affine);
  bias = register_parameter("bias", affine ? ember::empty(options.normalized_shape()) : Tensor(), affine);
  reset_parameters();
}

void LayerNormImpl::reset_parameters() {
  if (!options.elementwise_affine()) return;
  init::ones_(weight);
  init::zeros_(bias);
}

Tensor LayerNormImpl::forward(const Tensor& input) {
  return functional::layer_norm(input, options.normalized_shape(), weight, bias, options.eps());
}

void LayerNormImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "LayerNorm(" << IntArrayRef(options.normalized_shape()) << ", eps=" << options.eps()
         << ", elementwise_affine=" << options.elementwise_affine() << ")";
}

// ---- GroupNorm and RMSNorm, composed of differentiable ops ----

namespace functional {

Tensor group_norm(const Tensor& input, const GroupNormFuncOptions& options) {
  const int64_t G = options.num_groups();
  EMBER_CHECK(input.dim() >= 2, "group_norm: expected an input of at least 2 dims (N, C, *), but got shape {}",
              input.sizes());
  const int64_t N = input.size(0), C = input.size(1);
  EMBER_CHECK(G > 0 && C % G == 0,
              "group_norm: expected the number of channels of input of shape {} ({}) to be divisible by num_groups "
              "({})",
              input.sizes(), C, G);
  for (const Tensor* t : {&options.weight(), &options.bias()})
    EMBER_CHECK(!t->defined() || (t->dim() == 1 && t->size(0) == C),
                "group_norm: weight and bias should have shape [{}] (one value per channel), but got {}", C,
                t->sizes());
  // (N, G, C/G * spatial): each row one (sample, group), normalised with its biased variance. The
  // row length is spelled out: with N = 0, -1 could not be inferred.
  const int64_t row = input.numel() == 0 ? C / G * numel_of(input.sizes().slice(2)) : input.numel() / (N * G);
  Tensor x = input.reshape({N, G, row});
  Tensor centered = x - x.mean({2}, /*keepdim=*/true);
  Tensor y =
      (centered * (centered.square().mean({2}, /*keepdim=*/true) + options.eps()).rsqrt()).reshape(input.sizes());
  std::vector<int64_t> channel_shape(static_cast<size_t>(input.dim()), 1);
  channel_shape[1] = C;
  if (options.weight().defined()) y = y * options.weight().reshape(channel_shape);
  if (options.bias().defined()) y = y + options.bias().reshape(channel_shape);
  return y;
}

Tensor rms_norm(const Tensor& input, const RMSNormFuncOptions& options) {
  const auto& shape = options.normalized_shape();
  const int64_t k = static_cast<int64_t>(shape.size());
  bool matches = k >= 1 && input.dim() >= k;
  for (int64_t i = 0; matches && i < k; ++i) matches = input.size(input.dim() - k + i) == shape[i];
  EMBER_CHECK(matches, "rms_norm: input of shape {} does not end with normalized_shape {}", input.sizes(),
              IntArrayRef(shape));
  EMBER_CHECK(input.is_floating_point(), "rms_norm: expected a floating-point input, but got {}",
              dtype_name(input.dtype()));
  const Tensor& w = options.weight();
  EMBER_CHECK(!w.defined() || w.sizes() == IntArrayRef(shape),
              "rms_norm: weight should have shape {} (normalized_shape), but got {}", IntArrayRef(shape), w.sizes());
  const double eps = options.eps().value_or(input.dtype() == kFloat64 ? std::numeric_limits<double>::epsilon()
                                                                      : std::numeric_limits<float>::epsilon());
  std::vector<int64_t> dims;
  for (int64_t d = input.dim() - k; d < input.dim(); ++d) dims.push_back(d);
  Tensor y = input * (input.square().mean(dims, /*keepdim=*/true) + eps).rsqrt();
  return w.defined() ? y * w : y;
}

Tensor local_response_norm(const Tensor& input, const LocalResponseNormFuncOptions& options) {
  const int64_t size = options.size();
  EMBER_CHECK(input.dim() >= 3,
              "local_response_norm: Expected 3D or higher dimensionality input (got {} dimensions, input of shape {})",
              input.dim(), input.sizes());
  EMBER_CHECK(size > 0, "local_response_norm: size must be positive, but got size={}", size);
  EMBER_CHECK(input.is_floating_point(), "local_response_norm: expected a floating-point input, but got {}",
              dtype_name(input.dtype()));
  // x^2 as (N, C, R), zero-padded along C by size/2 before and (size-1)/2 after; the window sum is
  // the sum of `size` shifted views, divided by size (PyTorch's average pool with the padding counted).
  const int64_t N = input.size(0), C = input.size(1);
  const int64_t R = numel_of(input.sizes().slice(2));
  Tensor sq = input.square().reshape({N, C, R});
  const TensorOptions like = TensorOptions(input.dtype()).device(input.device());
  tensor_list parts;
  if (size / 2 > 0) parts.push_back(zeros({N, size / 2, R}, like));
  parts.push_back(sq);
  if ((size - 1) / 2 > 0) parts.push_back(zeros({N, (size - 1) / 2, R}, like));
  Tensor padded = cat(parts, 1);
  Tensor window = padded.narrow(1, 0, C);
  for (int64_t i = 1; i < size; ++i) window = window + padded.narrow(1, i, C);
  Tensor div = (window / static_cast<double>(size) * options.alpha() + options.k()).pow(options.beta());
  return input / div.reshape(input.sizes());
}

}  // namespace functional

Tensor LocalResponseNormImpl::forward(const Tensor& input) { return functional::local_response_norm(input, options); }

void LocalResponseNormImpl::pretty_print(std::ostream& stream) const {
  stream << "LocalResponseNorm(" << options.size() << ", alpha=" << options.alpha() << ", beta=" << options.beta()
         << ", k=" << options.k() << ")";
}

GroupNormImpl::GroupNormImpl(const GroupNormOptions& options_) : options(options_) {
  EMBER_CHECK(options.num_groups() > 0 && options.num_channels() % options.num_groups() == 0,
              "GroupNorm: num_channels ({}) must be divisible by num_groups ({})", options.num_channels(),
              options.num_groups());
  const bool affine = options.affine();
  weight = register_parameter("weight", affine ? ember::empty({options.num_channels()}) : Tensor(), affine);
  bias = register_parameter("bias", affine ? ember::empty({options.num_channels()}) : Tensor(), affine);
  reset_parameters();
}

void GroupNormImpl::reset_parameters() {
  if (!options.affine()) return;
  init::ones_(weight);
  init::zeros_(bias);
}

Tensor GroupNormImpl::forward(const Tensor& input) {
  return functional::group_norm(
      input, functional::GroupNormFuncOptions(options.num_groups()).weight(weight).bias(bias).eps(options.eps()));
}

void GroupNormImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "GroupNorm(" << options.num_groups() << ", " << options.num_channels()
         << ", eps=" << options.eps() << ", affine=" << options.affine() << ")";
}

RMSNormImpl::RMSNormImpl(const RMSNormOptions& options_) : options(options_) {
  EMBER_CHECK(!options.normalized_shape().empty(), "RMSNorm: normalized_shape must have at least one dimension");
  const bool affine = options.elementwise_affine();
  weight = register_parameter("weight", affine ? ember::empty(options.normalized_shape()) : Tensor(), affine);
  reset_parameters();
}

void RMSNormImpl::reset_parameters() {
  if (options.elementwise_affine()) init::ones_(weight);
}

Tensor RMSNormImpl::forward(const Tensor& input) {
  return functional::rms_norm(
      input, functional::RMSNormFuncOptions(options.normalized_shape()).weight(weight).eps(options.eps()));
}

void RMSNormImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "RMSNorm(" << IntArrayRef(options.normalized_shape()) << ", eps=";
  if (options.eps())
    stream << *options.eps();
  else
    stream << "None";
  stream << ", elementwise_affine=" << options.elementwise_affine() << ")";
}

}  // namespace ember::nn
