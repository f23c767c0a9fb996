// nn::LayerNorm: parameters and forward through functional::layer_norm; GroupNorm, RMSNorm and
// LocalResponseNorm, composed; CrossMapLRN2d, composed forward with libtorch's backward formula.
#include "nn/normalization.h"

#include <algorithm>
#include <limits>
#include <ostream>

#include "autograd/autocast.h"
#include "autograd/fused.h"
#include "autograd/grad_mode.h"
#include "core/shape.h"
#include "core/trace.h"
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
  if (autograd::AutocastCall cast{autograd::AutocastOp::group_norm, {input, options.weight(), options.bias()}})
    return group_norm(cast[0], GroupNormFuncOptions(options).weight(cast[1]).bias(cast[2]));
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

namespace {

// (C, C) of 0/1 in `like`'s dtype and device: row c marks the channels [c + first, c + last] that
// exist, and channel 0 too where `with_channel0`.
Tensor channel_window(int64_t C, int64_t first, int64_t last, bool with_channel0, const Tensor& like) {
  Tensor w = zeros({C, C}, TensorOptions(kFloat64));
  double* m = w.data_ptr<double>();
  for (int64_t c = 0; c < C; ++c) {
    for (int64_t j = std::max<int64_t>(0, c + first); j <= std::min(C - 1, c + last); ++j) m[c * C + j] = 1;
    if (with_channel0) m[c * C] = 1;
  }
  return w.to(TensorOptions(like.dtype()).device(like.device()));
}

}  // namespace

CrossMapLRN2dImpl::CrossMapLRN2dImpl(const CrossMapLRN2dOptions& options_) : options(options_) {
  EMBER_CHECK(options.size() > 0, "CrossMapLRN2d: size must be positive, but got size={}", options.size());
}

// scale = k + alpha / size * (window sum of x^2), y = x * scale^-beta, with h = (size - 1) / 2 and the
// window of channel c [c - h, c + h] plus channel 0. Backward, libtorch's CrossMapLRN2d::backward:
//   dx[c] = scale[c]^-beta dy[c] - 2 alpha beta / size * x[c] * sum over j in [c - inv, c + size - 1 - inv]
//           of dy[j] y[j] / scale[j],   inv = size - h
// written with differentiable ops on the saved x, scale and y.
Tensor CrossMapLRN2dImpl::forward(const Tensor& input) {
  EMBER_TRACE_OP();
  const int64_t size = options.size();
  const double alpha = options.alpha(), beta = options.beta();
  const auto k = static_cast<double>(options.k());
  EMBER_CHECK(input.dim() == 4, "CrossMapLRN2d: expected a 4-D input (N, C, H, W), got shape {}", input.sizes());
  EMBER_CHECK(input.is_floating_point(), "CrossMapLRN2d: expected a floating-point input, but got {}",
              dtype_name(input.dtype()));
  const int64_t N = input.size(0), C = input.size(1), HW = input.size(2) * input.size(3);
  const int64_t half = (size - 1) / 2;
  Tensor scale, output;  // (N, C, H, W)
  {
    NoGradGuard no_grad;
    Tensor window = channel_window(C, -half, half, /*with_channel0=*/true, input);
    Tensor sums = window.matmul(input.square().reshape({N, C, HW})).reshape(input.sizes());
    scale = sums * (alpha / static_cast<double>(size)) + k;
    output = scale.pow(-beta) * input;
  }
  if (!autograd::any_requires_grad({input})) return output;
  const double ratio_scale = 2 * alpha * beta / static_cast<double>(size);
  autograd::FusedBackward backward{.composed = [=](const Tensor& dy, const tensor_list& saved) -> tensor_list {
    const Tensor &x = saved[0], &s = saved[1], &y = saved[2];
    EMBER_CHECK(size >= 3,
                "CrossMapLRN2d: backward needs size >= 3, got size={} (libtorch's backward window does "
                "not fit smaller sizes)",
                size);
    const int64_t inv = size - half;
    Tensor window = channel_window(C, -inv, size - 1 - inv, /*with_channel0=*/false, x);
    Tensor ratio = (dy * y / s).reshape({N, C, HW});
    Tensor spread = window.matmul(ratio).reshape(x.sizes());
    return {s.pow(-beta) * dy - x * spread * ratio_scale};
  }};
  autograd::record_fused("CrossMapLRN2dBackward", output, {input}, {input, scale}, autograd::SaveOutput::kYes,
                         std::move(backward));
  return output;
}

void CrossMapLRN2dImpl::pretty_print(std::ostream& stream) const {
  stream << "CrossMapLRN2d(" << options.size() << ", alpha=" << options.alpha() << ", beta=" << options.beta()
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

// clone() of the modules above: a new one built from the same options, holding copies of the values.
EMBER_CLONE_WITH_OPTIONS(LayerNormImpl)
EMBER_CLONE_WITH_OPTIONS(GroupNormImpl)
EMBER_CLONE_WITH_OPTIONS(RMSNormImpl)
EMBER_CLONE_WITH_OPTIONS(LocalResponseNormImpl)
EMBER_CLONE_WITH_OPTIONS(CrossMapLRN2dImpl)

}  // namespace ember::nn
