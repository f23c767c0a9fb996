// nn::Dropout: zeroes activations with probability p while training, as torch::nn::Dropout.
//
//   ember::nn::Dropout drop(0.1);
//   ember::Tensor y = drop(x);     // training: each element kept with probability 0.9, scaled by 1/0.9
//   drop->eval();
//   y = drop(x);                   // evaluation: y is x itself (no draws)
#pragma once

#include "nn/module.h"
#include "nn/options.h"

namespace ember::nn {

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

}  // namespace ember::nn
