// nn::Linear: parameters, PyTorch's initialisation, forward through functional::linear.
#include "nn/linear.h"

#include <cmath>
#include <ostream>

#include "nn/functional.h"
#include "nn/init.h"

namespace ember::nn {

LinearImpl::LinearImpl(const LinearOptions& options_) : options(options_) {
  EMBER_CHECK(options.in_features() >= 0 && options.out_features() >= 0,
              "Linear: in_features and out_features must be non-negative, got {} and {}", options.in_features(),
              options.out_features());
  weight = register_parameter("weight", empty({options.out_features(), options.in_features()}));
  bias = register_parameter("bias", options.bias() ? empty({options.out_features()}) : Tensor(), options.bias());
  reset_parameters();
}

void LinearImpl::reset_parameters() {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    const int64_t fan_in = init::calculate_fan_in_and_fan_out(weight).first;
    const double bound = fan_in > 0 ? 1.0 / std::sqrt(static_cast<double>(fan_in)) : 0.0;
    init::uniform_(bias, -bound, bound);
  }
}

Tensor LinearImpl::forward(const Tensor& input) { return functional::linear(input, weight, bias); }

void LinearImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "Linear(in_features=" << options.in_features()
         << ", out_features=" << options.out_features() << ", bias=" << options.bias() << ")";
}

}  // namespace ember::nn
