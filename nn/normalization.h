// nn::LayerNorm: normalises over the trailing dims, then a learned scale and shift, as torch::nn::LayerNorm.
//
//   ember::nn::LayerNorm ln(ember::nn::LayerNormOptions({768}));           // weight = 1, bias = 0
//   ember::nn::LayerNorm plain(ember::nn::LayerNormOptions({4}).eps(1e-6).elementwise_affine(false));
//   ember::Tensor y = ln(x);   // x (B, T, 768): mean 0, variance 1 over the last dim
#pragma once

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
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override {
    return detail::clone_with_options(*this, device);
  }

  LayerNormOptions options;
  Tensor weight;  // (normalized_shape), undefined without elementwise_affine
  Tensor bias;    // (normalized_shape), undefined without elementwise_affine
};
EMBER_MODULE(LayerNorm);

}  // namespace ember::nn
