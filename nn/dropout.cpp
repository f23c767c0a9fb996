// nn::Dropout: checks p once, forwards to functional::dropout with the module's training flag.
#include "nn/dropout.h"

#include <ostream>

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

}  // namespace ember::nn
