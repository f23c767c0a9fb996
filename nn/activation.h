// Activations, as torch::nn's modules and torch::nn::functional's functions: GELU, ReLU, Softmax;
// Sigmoid, Tanh, SiLU, Mish, ELU, SELU, CELU, LeakyReLU, PReLU (learned slope), Hardtanh, ReLU6,
// Softplus, Softsign, LogSigmoid, Softmin, Softmax2d, LogSoftmax, Threshold, Hardshrink, Softshrink,
// Tanhshrink, GLU; RReLU (random slopes while training); and F::normalize, F::gumbel_softmax.
//
//   ember::nn::GELU gelu(ember::nn::GELUOptions().approximate("tanh"));   // GPT-2's variant
//   ember::nn::Softmax softmax(-1);
//   ember::Tensor p = softmax(gelu(x));
//   namespace F = ember::nn::functional;
//   ember::nn::Sequential net(ember::nn::Linear(16, 8),
//                             ember::nn::LeakyReLU(ember::nn::LeakyReLUOptions().negative_slope(0.2)),
//                             ember::nn::Linear(8, 1));
//   ember::Tensor q = F::softplus(net(x), F::SoftplusFuncOptions().beta(2).threshold(10));
//
// Beyond GELU, ReLU and Softmax (nn::functional's fused ops), every function is a composition of
// differentiable primitives (core/tensor.h), written so that the gradient equals PyTorch's
// everywhere, kinks included (the comment above each says which side a kink takes), and so that no
// branch that where() discards can overflow into a NaN gradient. Not here: the fused kernels PyTorch
// has for these; the compositions are the reference such kernels would need.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <typeinfo>
#include <vector>

#include "core/generator.h"
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
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;
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
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;
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
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;
  SoftmaxOptions options;
};
EMBER_MODULE(Softmax);

namespace functional {

Tensor sigmoid(const Tensor& input);
Tensor tanh(const Tensor& input);
// x * sigmoid(x)
Tensor silu(const Tensor& input);
// x * tanh(softplus(x))
Tensor mish(const Tensor& input);
// x / (1 + |x|)
Tensor softsign(const Tensor& input);
// log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)), which never overflows
Tensor logsigmoid(const Tensor& input);

struct ELUFuncOptions {
  EMBER_ARG(double, alpha) = 1.0;
  EMBER_ARG(bool, inplace) = false;
};
// x if x > 0 else alpha (exp(x) - 1)
Tensor elu(Tensor input, const ELUFuncOptions& options = {});

struct SELUFuncOptions {
  SELUFuncOptions(bool inplace = false) : inplace_(inplace) {}
  EMBER_ARG(bool, inplace);
};
// scale * elu(x, alpha) with Klambauer et al.'s constants (kSeluAlpha, kSeluScale)
Tensor selu(Tensor input, const SELUFuncOptions& options = {});

struct CELUFuncOptions {
  EMBER_ARG(double, alpha) = 1.0;
  EMBER_ARG(bool, inplace) = false;
};
// x if x > 0 else alpha (exp(x / alpha) - 1); alpha must not be 0
Tensor celu(Tensor input, const CELUFuncOptions& options = {});

struct LeakyReLUFuncOptions {
  EMBER_ARG(double, negative_slope) = 1e-2;
  EMBER_ARG(bool, inplace) = false;
};
// x if x > 0 else negative_slope * x
Tensor leaky_relu(Tensor input, const LeakyReLUFuncOptions& options = {});

// x if x > 0 else weight * x, with one slope per channel (dim 1) or one for all.
//   input (N, C, *) or any shape when weight has one element; weight (C) or (1)
Tensor prelu(const Tensor& input, const Tensor& weight);

struct HardtanhFuncOptions {
  EMBER_ARG(double, min_val) = -1.0;
  EMBER_ARG(double, max_val) = 1.0;
  EMBER_ARG(bool, inplace) = false;
};
// clamp(x, min_val, max_val); the gradient is 1 strictly inside the interval only
Tensor hardtanh(Tensor input, const HardtanhFuncOptions& options = {});

struct SoftplusFuncOptions {
  EMBER_ARG(double, beta) = 1.0;
  EMBER_ARG(double, threshold) = 20.0;
};
// log(1 + exp(beta x)) / beta, or x itself where beta x > threshold
Tensor softplus(const Tensor& input, const SoftplusFuncOptions& options = {});

struct SoftminFuncOptions {
  SoftminFuncOptions(int64_t dim) : dim_(dim) {}
  EMBER_ARG(int64_t, dim);
  EMBER_ARG(std::optional<ScalarType>, dtype) = std::nullopt;
};
// softmax(-x) over dim
Tensor softmin(const Tensor& input, const SoftminFuncOptions& options);

struct ThresholdFuncOptions {
  ThresholdFuncOptions(double threshold, double value) : threshold_(threshold), value_(value) {}
  EMBER_ARG(double, threshold);
  EMBER_ARG(double, value);
  EMBER_ARG(bool, inplace) = false;
};
// x if x > threshold else value
Tensor threshold(Tensor input, const ThresholdFuncOptions& options);

}  // namespace functional

struct ReLU6Options {
  ReLU6Options(bool inplace = false) : inplace_(inplace) {}  // NOLINT: implicit, as in libtorch
  EMBER_ARG(bool, inplace);
};
// The threshold of Hardshrink and Softshrink (libtorch spells it `lambda`).
struct ShrinkOptions {
  ShrinkOptions(double lambda = 0.5) : lambda_(lambda) {}  // NOLINT: implicit, as in libtorch
  EMBER_ARG(double, lambda);
};
using HardshrinkOptions = ShrinkOptions;
using SoftshrinkOptions = ShrinkOptions;
struct GLUOptions {
  GLUOptions(int64_t dim = -1) : dim_(dim) {}  // NOLINT: implicit, as in libtorch
  EMBER_ARG(int64_t, dim);
};

namespace functional {

using ReLU6FuncOptions = ReLU6Options;
using ReLUFuncOptions = ReLUOptions;
// max(x, 0), in place on input when options.inplace() (F::relu(x) without options is in nn/functional.h).
Tensor relu(Tensor input, const ReLUFuncOptions& options);
using HardshrinkFuncOptions = HardshrinkOptions;
using SoftshrinkFuncOptions = SoftshrinkOptions;
using GLUFuncOptions = GLUOptions;
// min(max(x, 0), 6): hardtanh(x, 0, 6), so the gradient is 0 at 0 and 6
Tensor relu6(Tensor input, const ReLU6FuncOptions& options = {});
// x where |x| > lambda, else 0 (the gradient is 0 on [-lambda, lambda])
Tensor hardshrink(const Tensor& input, const HardshrinkFuncOptions& options = {});
// x - lambda above lambda, x + lambda below -lambda, else 0
Tensor softshrink(const Tensor& input, const SoftshrinkFuncOptions& options = {});
// x - tanh(x)
Tensor tanhshrink(const Tensor& input);
// a * sigmoid(b), a and b the two halves of dim (whose size must be even)
Tensor glu(const Tensor& input, const GLUFuncOptions& options = {});

struct NormalizeFuncOptions {
  EMBER_ARG(double, p) = 2.0;
  EMBER_ARG(int64_t, dim) = 1;
  EMBER_ARG(double, eps) = 1e-12;
  EMBER_ARG(std::optional<Tensor>, out) = std::nullopt;  // written with the result when given
};
// x / max(||x||_p over dim, eps)
Tensor normalize(const Tensor& input, NormalizeFuncOptions options = {});

}  // namespace functional

// ---- modules: options stored, forward calls the function above ----

// A module without options or parameters whose forward is one function of the input.
template <Tensor (*Fn)(const Tensor&)>
class UnaryActivationImpl : public Module {
 public:
  void reset_parameters() {}
  Tensor forward(const Tensor& input) { return Fn(input); }
  // "Sigmoid()": the class's own name without namespace and "Impl", as the other built-in modules
  // print theirs (Module adds "torch::nn::" in a libtorch program).
  void pretty_print(std::ostream& stream) const override {
    std::string type = detail::demangle(typeid(*this));
    type = type.substr(type.rfind("::") == std::string::npos ? 0 : type.rfind("::") + 2);
    if (type.size() > 4 && type.ends_with("Impl")) type.resize(type.size() - 4);
    stream << type << "()";
  }
};

class SigmoidImpl : public UnaryActivationImpl<functional::sigmoid> {};
class TanhImpl : public UnaryActivationImpl<functional::tanh> {};
class SiLUImpl : public UnaryActivationImpl<functional::silu> {};
class MishImpl : public UnaryActivationImpl<functional::mish> {};
class SoftsignImpl : public UnaryActivationImpl<functional::softsign> {};
class LogSigmoidImpl : public UnaryActivationImpl<functional::logsigmoid> {};
class TanhshrinkImpl : public UnaryActivationImpl<functional::tanhshrink> {};
namespace detail {
inline Tensor softmax_over_channels(const Tensor& input) {  // Softmax2d: (N, C, H, W) or (C, H, W)
  EMBER_CHECK(input.dim() == 3 || input.dim() == 4, "Softmax2d: expected input of 3 or 4 dimensions, got shape {}",
              input.sizes());
  return input.softmax(-3);
}
}  // namespace detail
class Softmax2dImpl : public UnaryActivationImpl<detail::softmax_over_channels> {};
EMBER_MODULE(Sigmoid);
EMBER_MODULE(Tanh);
EMBER_MODULE(SiLU);
EMBER_MODULE(Mish);
EMBER_MODULE(Softsign);
EMBER_MODULE(LogSigmoid);
EMBER_MODULE(Tanhshrink);
EMBER_MODULE(Softmax2d);

class ReLU6Impl : public Module {
 public:
  explicit ReLU6Impl(const ReLU6Options& options = {}) : options(options) {}
  void reset_parameters() {}
  Tensor forward(Tensor input) { return functional::relu6(std::move(input), options); }
  void pretty_print(std::ostream& stream) const override;
  ReLU6Options options;
};
EMBER_MODULE(ReLU6);

// Hardshrink and Softshrink: one threshold, lambda.
template <Tensor (*Fn)(const Tensor&, const ShrinkOptions&)>
class ShrinkImpl : public Module {
 public:
  explicit ShrinkImpl(const ShrinkOptions& options = {}) : options(options) {}
  void reset_parameters() {}
  Tensor forward(const Tensor& input) { return Fn(input, options); }
  void pretty_print(std::ostream& stream) const override {
    stream << (Fn == &functional::hardshrink ? "Hardshrink(" : "Softshrink(") << options.lambda() << ")";
  }
  ShrinkOptions options;
};
class HardshrinkImpl : public ShrinkImpl<functional::hardshrink> {
 public:
  using ShrinkImpl::ShrinkImpl;
};
class SoftshrinkImpl : public ShrinkImpl<functional::softshrink> {
 public:
  using ShrinkImpl::ShrinkImpl;
};
EMBER_MODULE(Hardshrink);
EMBER_MODULE(Softshrink);

class GLUImpl : public Module {
 public:
  explicit GLUImpl(const GLUOptions& options = {}) : options(options) {}
  void reset_parameters() {}
  Tensor forward(const Tensor& input) { return functional::glu(input, options); }
  void pretty_print(std::ostream& stream) const override { stream << "GLU(dim=" << options.dim() << ")"; }
  GLUOptions options;
};
EMBER_MODULE(GLU);

using ELUOptions = functional::ELUFuncOptions;
class ELUImpl : public Module {
 public:
  explicit ELUImpl(const ELUOptions& options = {}) : options(options) {}
  void reset_parameters() {}
  Tensor forward(Tensor input) { return functional::elu(std::move(input), options); }
  void pretty_print(std::ostream& stream) const override;
  ELUOptions options;
};
EMBER_MODULE(ELU);

using SELUOptions = functional::SELUFuncOptions;
class SELUImpl : public Module {
 public:
  explicit SELUImpl(const SELUOptions& options = {}) : options(options) {}
  void reset_parameters() {}
  Tensor forward(Tensor input) { return functional::selu(std::move(input), options); }
  void pretty_print(std::ostream& stream) const override;
  SELUOptions options;
};
EMBER_MODULE(SELU);

using CELUOptions = functional::CELUFuncOptions;
class CELUImpl : public Module {
 public:
  explicit CELUImpl(const CELUOptions& options = {});
  void reset_parameters() {}
  Tensor forward(Tensor input) { return functional::celu(std::move(input), options); }
  void pretty_print(std::ostream& stream) const override;
  CELUOptions options;
};
EMBER_MODULE(CELU);

using LeakyReLUOptions = functional::LeakyReLUFuncOptions;
class LeakyReLUImpl : public Module {
 public:
  explicit LeakyReLUImpl(const LeakyReLUOptions& options = {}) : options(options) {}
  void reset_parameters() {}
  Tensor forward(Tensor input) { return functional::leaky_relu(std::move(input), options); }
  void pretty_print(std::ostream& stream) const override;
  LeakyReLUOptions options;
};
EMBER_MODULE(LeakyReLU);

struct PReLUOptions {
  // 1 (one slope shared by every channel) or the number of channels of the input (dim 1).
  EMBER_ARG(int64_t, num_parameters) = 1;
  EMBER_ARG(double, init) = 0.25;  // the slopes' initial value
};
class PReLUImpl : public Module {
 public:
  explicit PReLUImpl(const PReLUOptions& options = {});
  void reset_parameters();  // weight = init
  Tensor forward(const Tensor& input) { return functional::prelu(input, weight); }
  void pretty_print(std::ostream& stream) const override;
  PReLUOptions options;
  Tensor weight;  // (num_parameters)
};
EMBER_MODULE(PReLU);

using HardtanhOptions = functional::HardtanhFuncOptions;
class HardtanhImpl : public Module {
 public:
  explicit HardtanhImpl(const HardtanhOptions& options = {});
  void reset_parameters() {}
  Tensor forward(Tensor input) { return functional::hardtanh(std::move(input), options); }
  void pretty_print(std::ostream& stream) const override;
  HardtanhOptions options;
};
EMBER_MODULE(Hardtanh);

using SoftplusOptions = functional::SoftplusFuncOptions;
class SoftplusImpl : public Module {
 public:
  explicit SoftplusImpl(const SoftplusOptions& options = {}) : options(options) {}
  void reset_parameters() {}
  Tensor forward(const Tensor& input) { return functional::softplus(input, options); }
  void pretty_print(std::ostream& stream) const override;
  SoftplusOptions options;
};
EMBER_MODULE(Softplus);

using SoftminOptions = functional::SoftminFuncOptions;
class SoftminImpl : public Module {
 public:
  explicit SoftminImpl(const SoftminOptions& options) : options(options) {}
  explicit SoftminImpl(int64_t dim) : SoftminImpl(SoftminOptions(dim)) {}
  void reset_parameters() {}
  Tensor forward(const Tensor& input) { return functional::softmin(input, options); }
  void pretty_print(std::ostream& stream) const override;
  SoftminOptions options;
};
EMBER_MODULE(Softmin);

struct LogSoftmaxOptions {
  LogSoftmaxOptions(int64_t dim) : dim_(dim) {}
  EMBER_ARG(int64_t, dim);
};
class LogSoftmaxImpl : public Module {
 public:
  explicit LogSoftmaxImpl(const LogSoftmaxOptions& options) : options(options) {}
  explicit LogSoftmaxImpl(int64_t dim) : LogSoftmaxImpl(LogSoftmaxOptions(dim)) {}
  void reset_parameters() {}
  Tensor forward(const Tensor& input) { return input.log_softmax(options.dim()); }
  void pretty_print(std::ostream& stream) const override;
  LogSoftmaxOptions options;
};
EMBER_MODULE(LogSoftmax);

using ThresholdOptions = functional::ThresholdFuncOptions;
class ThresholdImpl : public Module {
 public:
  explicit ThresholdImpl(const ThresholdOptions& options) : options(options) {}
  ThresholdImpl(double threshold, double value) : ThresholdImpl(ThresholdOptions(threshold, value)) {}
  void reset_parameters() {}
  Tensor forward(Tensor input) { return functional::threshold(std::move(input), options); }
  void pretty_print(std::ostream& stream) const override;
  ThresholdOptions options;
};
EMBER_MODULE(Threshold);

// ---- RReLU and gumbel_softmax: noise drawn from the CPU generator in PyTorch's order ----

struct RReLUOptions {
  EMBER_ARG(double, lower) = 1.0 / 8.0;  // the slopes' uniform distribution while training: [lower, upper)
  EMBER_ARG(double, upper) = 1.0 / 3.0;
  EMBER_ARG(bool, inplace) = false;
};

namespace functional {

struct RReLUFuncOptions {
  EMBER_ARG(double, lower) = 1.0 / 8.0;
  EMBER_ARG(double, upper) = 1.0 / 3.0;
  EMBER_ARG(bool, training) = false;
  EMBER_ARG(bool, inplace) = false;
};
// Randomized leaky ReLU: x if x > 0 else a * x. In evaluation a = (lower + upper) / 2 (leaky_relu);
// while training each x <= 0 gets its own a ~ U[lower, upper), and the gradient is the slope used.
Tensor rrelu(Tensor input, const RReLUFuncOptions& options = {});
// ATen's rrelu_with_noise: rrelu that also writes the slopes into `noise` (the input's shape) while
// training (1 where x > 0); in evaluation noise is left alone. The draws: for each element in
// row-major order with x <= 0, one uniform double from the generator's 64-bit draw, as PyTorch's
// CPU kernel; float32 rounds lower and upper to float first, as that kernel does. A CUDA input's
// slopes are drawn on the host from the same generator and copied over.
Tensor rrelu_with_noise(const Tensor& input, Tensor noise, double lower, double upper, bool training,
                        std::optional<Generator> generator = std::nullopt);

struct GumbelSoftmaxFuncOptions {
  EMBER_ARG(double, tau) = 1.0;  // the temperature, > 0
  // One-hot samples forward, the soft sample's gradient backward (straight through).
  EMBER_ARG(bool, hard) = false;
  EMBER_ARG(int, dim) = -1;
};
// softmax((logits + g) / tau) over dim with g = -log(e), e ~ Exp(1) drawn by exponential_ (the
// generator's numbers, as a PyTorch built without MKL draws them); hard: one_hot(argmax) - y.detach() + y.
Tensor gumbel_softmax(const Tensor& logits, const GumbelSoftmaxFuncOptions& options = {});

}  // namespace functional

class RReLUImpl : public Module {
 public:
  explicit RReLUImpl(const RReLUOptions& options = {});
  void reset_parameters() {}
  // Random slopes in training mode, their mean in eval mode.
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;
  RReLUOptions options;
};
EMBER_MODULE(RReLU);

}  // namespace ember::nn
