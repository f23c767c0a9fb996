// Activation modules: GELU, ReLU, Softmax, as torch::nn's (no parameters, forward only).
//
//   ember::nn::GELU gelu(ember::nn::GELUOptions().approximate("tanh"));   // GPT-2's variant
//   ember::nn::ReLU relu;
//   ember::nn::Softmax softmax(-1);
//   ember::Tensor p = softmax(relu(gelu(x)));
#pragma once

#include <string>

#include "nn/module.h"
#include "nn/options.h"

namespace ember::nn {

struct GELUOptions {
  // "none": x Phi(x) with the exact erf; "tanh": 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
  EMBER_ARG(std::string, approximate) = "none";
};

class GELUImpl : public Module {
 public:
  explicit GELUImpl(const GELUOptions& options = {});
  void reset_parameters() {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override {
    return detail::clone_with_options(*this, device);
  }
  GELUOptions options;
};
EMBER_MODULE(GELU);

struct ReLUOptions {
  ReLUOptions(bool inplace = false) : inplace_(inplace) {}
  EMBER_ARG(bool, inplace);
};

class ReLUImpl : public Module {
 public:
  explicit ReLUImpl(const ReLUOptions& options = {}) : Module("ReLU"), options(options) {}
  void reset_parameters() {}
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override {
    return detail::clone_with_options(*this, device);
  }
  ReLUOptions options;
};
EMBER_MODULE(ReLU);

struct SoftmaxOptions {
  SoftmaxOptions(int64_t dim) : dim_(dim) {}
  EMBER_ARG(int64_t, dim);
};

class SoftmaxImpl : public Module {
 public:
  explicit SoftmaxImpl(const SoftmaxOptions& options) : Module("Softmax"), options(options) {}
  explicit SoftmaxImpl(int64_t dim) : SoftmaxImpl(SoftmaxOptions(dim)) {}
  void reset_parameters() {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override {
    return detail::clone_with_options(*this, device);
  }
  SoftmaxOptions options;
};
EMBER_MODULE(Softmax);

}  // namespace ember::nn
