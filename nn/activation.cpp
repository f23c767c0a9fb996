// GELU, ReLU, Softmax modules: option checks, forward through nn::functional, printouts.
#include "nn/activation.h"

#include <ostream>

#include "core/print.h"
#include "nn/functional.h"

namespace ember::nn {

GELUImpl::GELUImpl(const GELUOptions& options_) : Module("GELU"), options(options_) {
  EMBER_CHECK(options.approximate() == "none" || options.approximate() == "tanh",
              "GELU: approximate must be 'none' or 'tanh', got '{}'", options.approximate());
}

Tensor GELUImpl::forward(const Tensor& input) {
  return functional::gelu(input, functional::GELUFuncOptions().approximate(options.approximate()));
}

// libtorch prints "torch::nn::GELU()" whatever the approximation; PyTorch names it.
void GELUImpl::pretty_print(std::ostream& stream) const {
  if (get_print_style() == PrintStyle::LibTorch) {
    stream << "GELU()";
    return;
  }
  stream << "GELU(approximate='" << options.approximate() << "')";
}

Tensor ReLUImpl::forward(Tensor input) { return options.inplace() ? input.relu_() : input.relu(); }

void ReLUImpl::pretty_print(std::ostream& stream) const {
  stream << "ReLU(";
  if (options.inplace()) stream << "inplace=true";
  stream << ")";
}

Tensor SoftmaxImpl::forward(const Tensor& input) { return functional::softmax(input, options.dim()); }

void SoftmaxImpl::pretty_print(std::ostream& stream) const { stream << "Softmax(dim=" << options.dim() << ")"; }

}  // namespace ember::nn
