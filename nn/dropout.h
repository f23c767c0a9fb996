// nn::Dropout: zeroes activations with probability p while training, as torch::nn::Dropout;
// nn::Dropout2d / Dropout3d (F::dropout2d / dropout3d), which zero whole channels; and
// nn::AlphaDropout / FeatureAlphaDropout, which keep SELU's mean and variance.
//
//   ember::nn::Dropout drop(0.1);
//   ember::Tensor y = drop(x);     // training: each element kept with probability 0.9, scaled by 1/0.9
//   drop->eval();
//   y = drop(x);                   // evaluation: y is x itself (no draws)
#pragma once

#include "nn/module.h"
#include "nn/options.h"

namespace ember::nn {

namespace functional {

struct Dropout2dFuncOptions {
  EMBER_ARG(double, p) = 0.5;
  EMBER_ARG(bool, training) = true;
  EMBER_ARG(bool, inplace) = false;
};
// Zeroes whole channels: one draw per (N, C) pair, kept with probability 1 - p and scaled by 1/(1-p).
// input (N, C, *), at least 2-D. As torch 1.13, a 3-D input is read as (N, C, L), not (C, H, W).
Tensor dropout2d(Tensor input, const Dropout2dFuncOptions& options = {});
// The same rule for (N, C, D, H, W) inputs.
using Dropout3dFuncOptions = Dropout2dFuncOptions;
Tensor dropout3d(Tensor input, const Dropout3dFuncOptions& options = {});

struct AlphaDropoutFuncOptions {
  EMBER_ARG(double, p) = 0.5;
  EMBER_ARG(bool, training) = false;  // libtorch's default for these two
  EMBER_ARG(bool, inplace) = false;
};
using FeatureAlphaDropoutFuncOptions = AlphaDropoutFuncOptions;
// Dropped elements (alpha_dropout) or channels (feature_alpha_dropout) set to SELU's negative
// saturation and the whole affinely rescaled, so that zero mean and unit variance are kept:
// keep ~ bernoulli(1 - p), a = 1 / sqrt((alpha^2 p + 1)(1 - p)), y = a x keep + a alpha (p - (1 - keep)).
Tensor alpha_dropout(Tensor input, const AlphaDropoutFuncOptions& options = {});
Tensor feature_alpha_dropout(Tensor input, const FeatureAlphaDropoutFuncOptions& options = {});

}  // namespace functional

struct DropoutOptions {
  DropoutOptions(double p = 0.5) : p_(p) {}
  EMBER_ARG(double, p);
  EMBER_ARG(bool, inplace) = false;
};

class DropoutImpl : public Module {
 public:
  explicit DropoutImpl(const DropoutOptions& options = {});
  explicit DropoutImpl(double p) : DropoutImpl(DropoutOptions(p)) {}

  void reset_parameters() {}  // nothing to initialise
  // Same shape as input; see functional::dropout for the draws.
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;

  DropoutOptions options;
};
EMBER_MODULE(Dropout);

struct Dropout2dOptions {
  Dropout2dOptions(double p = 0.5) : p_(p) {}
  EMBER_ARG(double, p);
  EMBER_ARG(bool, inplace) = false;
};
class Dropout2dImpl : public Module {
 public:
  explicit Dropout2dImpl(const Dropout2dOptions& options = {});
  explicit Dropout2dImpl(double p) : Dropout2dImpl(Dropout2dOptions(p)) {}
  void reset_parameters() {}
  // Channel dropout while training, the input itself in eval mode.
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  Dropout2dOptions options;
};
EMBER_MODULE(Dropout2d);

// Dropout3d, AlphaDropout and FeatureAlphaDropout: p and inplace, the function above while training.
template <Tensor (*Fn)(Tensor, bool training, const Dropout2dOptions&)>
class DropoutLikeImpl : public Module {
 public:
  explicit DropoutLikeImpl(const Dropout2dOptions& options = {}) : options(options) {
    EMBER_CHECK(options.p() >= 0 && options.p() <= 1, "dropout probability has to be between 0 and 1, but got {}",
                options.p());
  }
  explicit DropoutLikeImpl(double p) : DropoutLikeImpl(Dropout2dOptions(p)) {}
  void reset_parameters() {}
  Tensor forward(const Tensor& input) { return Fn(input, is_training(), options); }
  void pretty_print(std::ostream& stream) const override;
  Dropout2dOptions options;
};
namespace detail {
Tensor dropout3d_module(Tensor input, bool training, const Dropout2dOptions& options);
Tensor alpha_dropout_module(Tensor input, bool training, const Dropout2dOptions& options);
Tensor feature_alpha_dropout_module(Tensor input, bool training, const Dropout2dOptions& options);
}  // namespace detail
using Dropout3dOptions = Dropout2dOptions;
using AlphaDropoutOptions = Dropout2dOptions;
using FeatureAlphaDropoutOptions = Dropout2dOptions;
class Dropout3dImpl : public DropoutLikeImpl<detail::dropout3d_module> {
 public:
  using DropoutLikeImpl::DropoutLikeImpl;
};
class AlphaDropoutImpl : public DropoutLikeImpl<detail::alpha_dropout_module> {
 public:
  using DropoutLikeImpl::DropoutLikeImpl;
};
class FeatureAlphaDropoutImpl : public DropoutLikeImpl<detail::feature_alpha_dropout_module> {
 public:
  using DropoutLikeImpl::DropoutLikeImpl;
};
EMBER_MODULE(Dropout3d);
EMBER_MODULE(AlphaDropout);
EMBER_MODULE(FeatureAlphaDropout);

}  // namespace ember::nn
