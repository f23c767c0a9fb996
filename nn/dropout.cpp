// nn::Dropout: checks p once, forwards to functional::dropout with the module's training flag.
#include "nn/dropout.h"

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

Tensor dropout2d(Tensor input, const Dropout2dFuncOptions& options) {
  EMBER_TRACE_OP();
  const double p = options.p();
  EMBER_CHECK(p >= 0 && p <= 1, "dropout2d: dropout probability has to be between 0 and 1, but got {}", p);
  EMBER_CHECK(input.dim() >= 2,
              "dropout2d: feature dropout requires at least 2 dimensions (N, C, *) in the input, got {}",
              input.sizes());
  if (!options.training() || p == 0 || input.numel() == 0) return input;
  if (p == 1) {
    Tensor zero = zeros({}, input.options().requires_grad(false));
    return options.inplace() ? input.mul_(zero) : input * zero;
  }
  // PyTorch's feature noise: one bernoulli draw per (n, c), in that order, broadcast over the rest.
  std::vector<int64_t> noise_shape(static_cast<size_t>(input.dim()), 1);
  noise_shape[0] = input.size(0);
  noise_shape[1] = input.size(1);
  Tensor noise = empty(noise_shape, input.options().requires_grad(false));
  noise.bernoulli_(1 - p);
  noise.div_(1 - p);
  return options.inplace() ? input.mul_(noise) : input * noise;
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

}  // namespace ember::nn
