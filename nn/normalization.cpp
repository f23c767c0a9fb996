// nn::LayerNorm: parameters and forward through functional::layer_norm.
#include "nn/normalization.h"

#include <ostream>

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

}  // namespace ember::nn
