// nn::Dropout: zeroes activations with probability p while training, as torch::nn::Dropout; and
// nn::Dropout2d / F::dropout2d, which zero whole channels.
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
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override {
    return detail::clone_with_options(*this, device);
  }

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

}  // namespace ember::nn
