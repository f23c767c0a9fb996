// nn::Dropout: checks p once, forwards to functional::dropout with the module's training flag.
#include "nn/dropout.h"

#include <cmath>
#include <ostream>

#include "core/trace.h"
#include "nn/functional.h"

namespace ember::nn {

DropoutImpl::DropoutImpl(const DropoutOptions& options_) : options(options_) {
  EMBER_CHECK(options.p() >= 0 && options.p() <= 1, "Dropout: probability has to be between 0 and 1, but got {}",
              options.p());
}

Tensor DropoutImpl::forward(const Tensor& input) {
  return functional::dropout(
      input, functional::DropoutFuncOptions().p(options.p()).training(is_training()).inplace(options.inplace()));
}

void DropoutImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "Dropout(p=" << options.p() << ", inplace=" << options.inplace() << ")";
}

namespace functional {

namespace {

// PyTorch's dropout rule with its two variants: `feature` draws one keep per (n, c), broadcast over
// the rest; `alpha` keeps SELU's statistics (alpha_dropout's affine correction). One bernoulli draw
// per noise element, in order, as PyTorch's CPU generator makes them.
Tensor noise_dropout(Tensor input, double p, bool training, bool inplace, bool feature, bool alpha, const char* op) {
  EMBER_CHECK(p >= 0 && p <= 1, "{}: dropout probability has to be between 0 and 1, but got {}", op, p);
  if (feature)
    EMBER_CHECK(input.dim() >= 2, "{}: feature dropout requires at least 2 dimensions (N, C, *) in the input, got {}",
                op, input.sizes());
  if (!training || p == 0 || input.numel() == 0) return input;
  if (p == 1) {
    Tensor zero = zeros({}, input.options().requires_grad(false));
    return inplace ? input.mul_(zero) : input * zero;
  }
  std::vector<int64_t> noise_shape = input.sizes().vec();
  if (feature)
    for (size_t d = 2; d < noise_shape.size(); ++d) noise_shape[d] = 1;
  Tensor noise = empty(noise_shape, input.options().requires_grad(false));
  noise.bernoulli_(1 - p);
  if (!alpha) {
    noise.div_(1 - p);
    return inplace ? input.mul_(noise) : input * noise;
  }
  constexpr double kAlpha = 1.7580993408473766;  // SELU's negative saturation, scale * alpha
  const double a = 1.0 / std::sqrt((kAlpha * kAlpha * p + 1) * (1 - p));
  Tensor shift = ((noise - 1) * (kAlpha * a)).add_(kAlpha * a * p);
  noise.mul_(a);
  return inplace ? input.mul_(noise).add_(shift) : input * noise + shift;
}

}  // namespace

Tensor dropout2d(Tensor input, const Dropout2dFuncOptions& options) {
  EMBER_TRACE_OP();
  return noise_dropout(std::move(input), options.p(), options.training(), options.inplace(), true, false, "dropout2d");
}
Tensor dropout3d(Tensor input, const Dropout3dFuncOptions& options) {
  EMBER_TRACE_OP();
  return noise_dropout(std::move(input), options.p(), options.training(), options.inplace(), true, false, "dropout3d");
}
Tensor alpha_dropout(Tensor input, const AlphaDropoutFuncOptions& options) {
  EMBER_TRACE_OP();
  return noise_dropout(std::move(input), options.p(), options.training(), options.inplace(), false, true,
                       "alpha_dropout");
}
Tensor feature_alpha_dropout(Tensor input, const FeatureAlphaDropoutFuncOptions& options) {
  EMBER_TRACE_OP();
  return noise_dropout(std::move(input), options.p(), options.training(), options.inplace(), true, true,
                       "feature_alpha_dropout");
}

}  // namespace functional

Dropout2dImpl::Dropout2dImpl(const Dropout2dOptions& options_) : options(options_) {
  EMBER_CHECK(options.p() >= 0 && options.p() <= 1,
              "Dropout2d: dropout probability has to be between 0 and 1, but got {}", options.p());
}

Tensor Dropout2dImpl::forward(const Tensor& input) {
  return functional::dropout2d(
      input, functional::Dropout2dFuncOptions().p(options.p()).training(is_training()).inplace(options.inplace()));
}

void Dropout2dImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "Dropout2d(p=" << options.p() << ", inplace=" << options.inplace() << ")";
}

namespace detail {
Tensor dropout3d_module(Tensor input, bool training, const Dropout2dOptions& options) {
  return functional::dropout3d(
      std::move(input),
      functional::Dropout3dFuncOptions().p(options.p()).training(training).inplace(options.inplace()));
}
Tensor alpha_dropout_module(Tensor input, bool training, const Dropout2dOptions& options) {
  return functional::alpha_dropout(
      std::move(input),
      functional::AlphaDropoutFuncOptions().p(options.p()).training(training).inplace(options.inplace()));
}
Tensor feature_alpha_dropout_module(Tensor input, bool training, const Dropout2dOptions& options) {
  return functional::feature_alpha_dropout(
      std::move(input),
      functional::FeatureAlphaDropoutFuncOptions().p(options.p()).training(training).inplace(options.inplace()));
}
}  // namespace detail

template <Tensor (*Fn)(Tensor, bool, const Dropout2dOptions&)>
void DropoutLikeImpl<Fn>::pretty_print(std::ostream& stream) const {
  const char* name = Fn == &detail::dropout3d_module       ? "Dropout3d"
                     : Fn == &detail::alpha_dropout_module ? "AlphaDropout"
                                                           : "FeatureAlphaDropout";
  stream << std::boolalpha << name << "(p=" << options.p() << ", inplace=" << options.inplace() << ")";
}
template class DropoutLikeImpl<detail::dropout3d_module>;
template class DropoutLikeImpl<detail::alpha_dropout_module>;
template class DropoutLikeImpl<detail::feature_alpha_dropout_module>;

// clone() of the modules above: a new one built from the same options, holding copies of the values.
EMBER_CLONE_WITH_OPTIONS(DropoutImpl)

}  // namespace ember::nn
