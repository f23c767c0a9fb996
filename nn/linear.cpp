// nn::Linear and nn::Bilinear: parameters, PyTorch's initialisation, forward through functional::linear
// and functional::bilinear (one matmul, a product and a sum).
#include "nn/linear.h"

#include <cmath>
#include <ostream>

#include "core/trace.h"
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

namespace functional {

Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight, const Tensor& bias) {
  EMBER_TRACE_OP();
  EMBER_CHECK(input1.dim() == input2.dim() && input1.dim() >= 1,
              "bilinear: input dimensions do not match: got shapes {} and {}", input1.sizes(), input2.sizes());
  for (int64_t i = 0; i + 1 < input1.dim(); ++i)
    EMBER_CHECK(input1.size(i) == input2.size(i), "bilinear: input batch dimensions do not match: got shapes {} and {}",
                input1.sizes(), input2.sizes());
  EMBER_CHECK(weight.dim() == 3, "bilinear: weight must be 3-D (out, in1, in2), got shape {}", weight.sizes());
  EMBER_CHECK(input1.size(-1) == weight.size(1),
              "bilinear: input1 size does not match weight size: got {} but expected {} (input1 {}, weight {})",
              input1.size(-1), weight.size(1), input1.sizes(), weight.sizes());
  EMBER_CHECK(input2.size(-1) == weight.size(2),
              "bilinear: input2 size does not match weight size: got {} but expected {} (input2 {}, weight {})",
              input2.size(-1), weight.size(2), input2.sizes(), weight.sizes());
  EMBER_CHECK(!bias.defined() || (bias.dim() == 1 && bias.size(0) == weight.size(0)),
              "bilinear: bias size does not match weight size: got bias {} for weight {}", bias.sizes(),
              weight.sizes());
  const int64_t out = weight.size(0), in1 = weight.size(1), in2 = weight.size(2);
  std::vector<int64_t> lead(input1.sizes().begin(), input1.sizes().end() - 1);
  const Tensor a = input1.reshape({-1, in1});  // (M, in1)
  const Tensor b = input2.reshape({-1, in2});  // (M, in2)
  // (M, in1) x (in1, out * in2): row m holds x1_m^T A_o for every o, then the dot with x2_m.
  const Tensor left = a.matmul(weight.permute({1, 0, 2}).reshape({in1, out * in2})).reshape({-1, out, in2});
  Tensor y = (left * b.unsqueeze(1)).sum({2});  // (M, out)
  if (bias.defined()) y = y + bias;
  lead.push_back(out);
  return y.reshape(lead);
}

}  // namespace functional

BilinearImpl::BilinearImpl(const BilinearOptions& options_) : options(options_) {
  EMBER_CHECK(options.in1_features() >= 0 && options.in2_features() >= 0 && options.out_features() >= 0,
              "Bilinear: in1_features, in2_features and out_features must be non-negative, got {}, {} and {}",
              options.in1_features(), options.in2_features(), options.out_features());
  weight =
      register_parameter("weight", empty({options.out_features(), options.in1_features(), options.in2_features()}));
  bias = register_parameter("bias", options.bias() ? empty({options.out_features()}) : Tensor(), options.bias());
  reset_parameters();
}

void BilinearImpl::reset_parameters() {
  const double bound = weight.size(1) > 0 ? 1.0 / std::sqrt(static_cast<double>(weight.size(1))) : 0.0;
  init::uniform_(weight, -bound, bound);
  if (bias.defined()) init::uniform_(bias, -bound, bound);
}

Tensor BilinearImpl::forward(const Tensor& input1, const Tensor& input2) {
  return functional::bilinear(input1, input2, weight, bias);
}

void BilinearImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "Bilinear(in1_features=" << options.in1_features()
         << ", in2_features=" << options.in2_features() << ", out_features=" << options.out_features()
         << ", bias=" << options.bias() << ")";
}

void IdentityImpl::pretty_print(std::ostream& stream) const { stream << "Identity()"; }

void FlattenImpl::pretty_print(std::ostream& stream) const {
  stream << "Flatten(start_dim=" << options.start_dim() << ", end_dim=" << options.end_dim() << ")";
}

void UnflattenImpl::pretty_print(std::ostream& stream) const {
  stream << "Unflatten(dim=" << options.dim() << ", unflattened_size=" << IntArrayRef(options.sizes()) << ")";
}

// clone() of the modules above: a new one built from the same options, holding copies of the values.
EMBER_CLONE_WITH_OPTIONS(LinearImpl)
EMBER_CLONE_WITH_OPTIONS(BilinearImpl)

}  // namespace ember::nn
