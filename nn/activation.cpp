// The activations of nn/activation.h: GELU, ReLU and Softmax modules over nn::functional's
// fused ops; the others composed of autograd primitives.
//
// Two rules keep the compositions equal to PyTorch's kernels, gradients included:
//   - a branch that where() discards is computed on a clamped input, so it cannot overflow (exp of a
//     large x) and send 0 * inf = NaN into the gradient;
//   - at a kink, the comparison picks the side PyTorch's backward picks (stated above each function).
// The inplace options compute the value from a clone and write it into the input (as Tensor::relu_).
// RReLU's and gumbel_softmax's noise is drawn from the CPU generator, as PyTorch's CPU kernels draw it.
#include "nn/activation.h"

#include <algorithm>
#include <mutex>
#include <ostream>

#include "autograd/autocast.h"
#include "autograd/grad_mode.h"
#include "core/print.h"
#include "core/random.h"
#include "core/trace.h"
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

namespace {

// Klambauer et al., "Self-Normalizing Neural Networks" (torch.nn.SELU's constants).
constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;

Tensor scalar_like(const Tensor& x, double value) { return scalar_tensor(value, x.options().requires_grad(false)); }

// f(input), written into input when `inplace` (its history becomes f's).
template <typename F>
Tensor maybe_inplace(Tensor& input, bool inplace, F f) {
  if (!inplace) return f(input);
  Tensor out = f(input.clone());
  input.copy_(out);
  return input;
}

// x if x > 0 else alpha (exp(x / scale) - 1): ELU (scale 1) and CELU (scale alpha). At 0 the
// gradient is the negative side's, alpha / scale, as PyTorch's elu_backward (x <= 0).
Tensor elu_like(const Tensor& x, double alpha, double scale) {
  Tensor negative = ((x.clamp_max(0) / scale).exp() - 1) * alpha;  // clamped: exp never overflows
  Tensor positive;
  {
    NoGradGuard no_grad;
    positive = x.gt(0);
  }
  return where(positive, x, negative);
}

// at::uniform_real_distribution<double>: the low 53 bits of one 64-bit draw, scaled to [0, 1).
constexpr uint64_t kMask53 = (uint64_t(1) << 53) - 1;
constexpr double kTwoToMinus53 = 1.0 / double(uint64_t(1) << 53);

// PyTorch's _rrelu_with_noise_train over n contiguous elements, in order: each x <= 0 draws one
// at::uniform_real_distribution<double>(from, to) value u * (to - from) + from, with from and to the
// bounds rounded to T (the kernel holds them in the input's type), and its slope is that value rounded
// to T; each x > 0 gets slope 1 and draws nothing. PyTorch's Activation.cpp is compiled for baseline
// x86-64 (no FMA), so the product and the sum round separately: two statements here, which neither
// GCC's ISO mode nor Clang's default contraction fuses.
template <typename T>
void draw_rrelu_slopes(T* slopes, const T* x, int64_t n, double lower, double upper, Generator& g) {
  const double from = static_cast<T>(lower), to = static_cast<T>(upper);
  std::lock_guard<std::mutex> lock(g.mutex());
  for (int64_t i = 0; i < n; ++i) {
    if (x[i] <= 0) {
      const double u = static_cast<double>(g.random64() & kMask53) * kTwoToMinus53;
      const double scaled = u * (to - from);
      slopes[i] = static_cast<T>(scaled + from);
    } else {
      slopes[i] = T(1);
    }
  }
}

// RReLU's slopes for `input` (its shape, dtype and device), drawn on the host in row-major order.
Tensor rrelu_slopes(const Tensor& input, double lower, double upper, std::optional<Generator> generator) {
  NoGradGuard no_grad;
  Tensor x = input.detach().to(kCPU).contiguous();
  Tensor slopes = empty(x.sizes(), TensorOptions(x.dtype()));
  Generator g = generator ? *generator : default_generator();  // copies share the generator's state
  if (x.dtype() == kFloat32)
    draw_rrelu_slopes(slopes.data_ptr<float>(), x.data_ptr<float>(), x.numel(), lower, upper, g);
  else
    draw_rrelu_slopes(slopes.data_ptr<double>(), x.data_ptr<double>(), x.numel(), lower, upper, g);
  return slopes.to(input.device());
}

}  // namespace

namespace functional {

Tensor sigmoid(const Tensor& input) { return input.sigmoid(); }
Tensor tanh(const Tensor& input) { return input.tanh(); }

// d/dx x s(x) = s(x) + x s(x) (1 - s(x))
Tensor silu(const Tensor& input) { return input * input.sigmoid(); }

Tensor mish(const Tensor& input) { return input * softplus(input).tanh(); }

// d/dx x / (1 + |x|) = 1 / (1 + |x|)^2 (also at 0, where sign(0) = 0 drops the second term)
Tensor softsign(const Tensor& input) { return input / (input.abs() + 1); }

// min(x, 0) - log1p(exp(-|x|)). |x| is x * s with s = -1 for x < 0 and +1 otherwise (s carries no
// gradient), so at x = 0 the gradient is PyTorch's 1/2: 0 from the min, 1/2 from the log1p term.
Tensor logsigmoid(const Tensor& input) {
  EMBER_TRACE_OP();
  Tensor negative, sign;
  {
    NoGradGuard no_grad;
    negative = input.lt(0);
    sign = where(negative, scalar_like(input, -1), scalar_like(input, 1));
  }
  Tensor min_x0 = where(negative, input, scalar_like(input, 0));
  return min_x0 - (-(input * sign)).exp().log1p();
}

Tensor elu(Tensor input, const ELUFuncOptions& options) {
  EMBER_TRACE_OP();
  return maybe_inplace(input, options.inplace(), [&](const Tensor& x) { return elu_like(x, options.alpha(), 1.0); });
}

Tensor selu(Tensor input, const SELUFuncOptions& options) {
  EMBER_TRACE_OP();
  return maybe_inplace(input, options.inplace(),
                       [](const Tensor& x) { return elu_like(x, kSeluAlpha, 1.0) * kSeluScale; });
}

Tensor celu(Tensor input, const CELUFuncOptions& options) {
  EMBER_TRACE_OP();
  const double alpha = options.alpha();
  EMBER_CHECK(alpha != 0, "celu: alpha must not be 0 (it divides the input)");
  return maybe_inplace(input, options.inplace(), [&](const Tensor& x) { return elu_like(x, alpha, alpha); });
}

// At 0 the gradient is the negative slope (PyTorch: x > 0 ? g : g * slope).
Tensor leaky_relu(Tensor input, const LeakyReLUFuncOptions& options) {
  EMBER_TRACE_OP();
  return maybe_inplace(input, options.inplace(), [&](const Tensor& x) {
    Tensor positive;
    {
      NoGradGuard no_grad;
      positive = x.gt(0);
    }
    return where(positive, x, x * options.negative_slope());
  });
}

// Tensor::prelu (autograd/aten_methods.cpp) is the op.
Tensor prelu(const Tensor& input, const Tensor& weight) { return input.prelu(weight); }

// The gradient is 1 strictly between min_val and max_val, 0 at and beyond them (PyTorch's
// hardtanh_backward), hence where() rather than clamp (whose gradient includes the bounds).
Tensor hardtanh(Tensor input, const HardtanhFuncOptions& options) {
  EMBER_TRACE_OP();
  const double lo = options.min_val(), hi = options.max_val();
  EMBER_CHECK(lo <= hi, "hardtanh: min_val ({}) cannot be greater than max_val ({})", lo, hi);
  return maybe_inplace(input, options.inplace(), [&](const Tensor& x) {
    Tensor below, above;
    {
      NoGradGuard no_grad;
      below = x.le(lo);
      above = x.ge(hi);
    }
    return where(below, scalar_like(x, lo), where(above, scalar_like(x, hi), x));
  });
}

// d/dx = exp(bx) / (1 + exp(bx)) below the threshold, 1 above (PyTorch: bx > threshold ? g : ...).
Tensor softplus(const Tensor& input, const SoftplusFuncOptions& options) {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::softplus, {input}}) return softplus(cast[0], options);
  const double beta = options.beta(), threshold = options.threshold();
  EMBER_CHECK(beta != 0, "softplus: beta must not be 0 (it divides the result)");
  Tensor scaled = input * beta;
  Tensor linear;
  {
    NoGradGuard no_grad;
    linear = scaled.gt(threshold);
  }
  // Where beta x > threshold the soft branch is discarded; clamping keeps its exp finite there.
  Tensor soft = scaled.clamp_max(threshold).exp().log1p() / beta;
  return where(linear, input, soft);
}

Tensor softmin(const Tensor& input, const SoftminFuncOptions& options) {
  EMBER_TRACE_OP();
  return (-input).softmax(options.dim(), options.dtype());
}

// At the threshold the gradient is 0 (PyTorch: x <= threshold ? 0 : g).
Tensor threshold(Tensor input, const ThresholdFuncOptions& options) {
  EMBER_TRACE_OP();
  return maybe_inplace(input, options.inplace(), [&](const Tensor& x) {
    Tensor above;
    {
      NoGradGuard no_grad;
      above = x.gt(options.threshold());
    }
    return where(above, x, scalar_like(x, options.value()));
  });
}

Tensor relu(Tensor input, const ReLUFuncOptions& options) {
  EMBER_TRACE_OP();
  return options.inplace() ? input.relu_() : input.relu();
}

Tensor relu6(Tensor input, const ReLU6FuncOptions& options) {
  EMBER_TRACE_OP();
  return hardtanh(std::move(input), HardtanhFuncOptions().min_val(0).max_val(6).inplace(options.inplace()));
}

// PyTorch's backward for both: 0 where -lambda <= x <= lambda, g elsewhere.
Tensor hardshrink(const Tensor& input, const HardshrinkFuncOptions& options) {
  return input.hardshrink(options.lambda());
}
Tensor softshrink(const Tensor& input, const SoftshrinkFuncOptions& options) {
  EMBER_TRACE_OP();
  const double lambda = options.lambda();
  EMBER_CHECK(lambda >= 0, "softshrink: lambda must be greater or equal to 0, but found to be {}.", lambda);
  Tensor inside, above;
  {
    NoGradGuard no_grad;
    inside = input.ge(-lambda).logical_and(input.le(lambda));
    above = input.gt(lambda);
  }
  return where(inside, scalar_like(input, 0), where(above, input - lambda, input + lambda));
}

Tensor tanhshrink(const Tensor& input) { return input - input.tanh(); }

Tensor glu(const Tensor& input, const GLUFuncOptions& options) {
  EMBER_TRACE_OP();
  EMBER_CHECK(input.dim() > 0, "glu does not support scalars because halving size must be even");
  const int64_t d = input.dim() > 0 ? (options.dim() < 0 ? options.dim() + input.dim() : options.dim()) : 0;
  EMBER_CHECK(d >= 0 && d < input.dim(),
              "glu: dimension out of range (expected to be in range of [{}, {}], but got {})", -input.dim(),
              input.dim() - 1, options.dim());
  const int64_t n = input.size(d);
  EMBER_CHECK(n % 2 == 0, "Halving dimension must be even, but dimension {} is size {}", d, n);
  return input.narrow(d, 0, n / 2) * input.narrow(d, n / 2, n / 2).sigmoid();
}

Tensor normalize(const Tensor& input, NormalizeFuncOptions options) {
  EMBER_TRACE_OP();
  Tensor denom = input.norm(options.p(), {options.dim()}, /*keepdim=*/true).clamp_min(options.eps()).expand_as(input);
  Tensor result = input / denom;
  if (options.out()) {
    options.out()->copy_(result);
    return *options.out();
  }
  return result;
}

// While training, the output is x * slope with the slope held constant, so d/dx = slope (PyTorch's
// grad * noise). PyTorch switches to leaky_relu's backward when upper - lower <= 1e-6; the slopes then
// differ from their mean by at most 1e-6, and Ember keeps grad * noise.
Tensor rrelu_with_noise(const Tensor& input, Tensor noise, double lower, double upper, bool training,
                        std::optional<Generator> generator) {
  EMBER_TRACE_OP();
  EMBER_CHECK(lower <= upper, "rrelu: lower bound ({}) must be less than or equal to upper bound ({})", lower, upper);
  if (!training) return leaky_relu(input, LeakyReLUFuncOptions().negative_slope((lower + upper) / 2));
  EMBER_CHECK(input.dtype() == kFloat32 || input.dtype() == kFloat64,
              "rrelu: training mode expects a float32 or float64 input, got {}", dtype_name(input.dtype()));
  Tensor slopes = rrelu_slopes(input, lower, upper, generator);
  if (noise.defined()) {
    EMBER_CHECK(noise.sizes().vec() == input.sizes().vec(),
                "rrelu_with_noise: noise must have the input's shape {}, got {}", input.sizes(), noise.sizes());
    NoGradGuard no_grad;
    noise.copy_(slopes);
  }
  return input * slopes;
}

Tensor rrelu(Tensor input, const RReLUFuncOptions& options) {
  EMBER_TRACE_OP();
  return maybe_inplace(input, options.inplace(), [&](const Tensor& x) {
    return rrelu_with_noise(x, Tensor(), options.lower(), options.upper(), options.training());
  });
}

// The noise carries no gradient; the hard sample's gradient is the soft one's (y_hard - y.detach() + y).
Tensor gumbel_softmax(const Tensor& logits, const GumbelSoftmaxFuncOptions& options) {
  EMBER_TRACE_OP();
  EMBER_CHECK(logits.is_floating_point(), "gumbel_softmax: expected floating point logits, got {}",
              dtype_name(logits.dtype()));
  EMBER_CHECK(options.tau() > 0, "gumbel_softmax: tau must be positive, got {}", options.tau());
  Tensor gumbels;
  {
    NoGradGuard no_grad;
    gumbels = -empty_like(logits).exponential_().log();  // ~ Gumbel(0, 1)
  }
  Tensor y_soft = ((logits + gumbels) / options.tau()).softmax(options.dim());
  if (!options.hard()) return y_soft;
  const int64_t dim = options.dim() < 0 ? options.dim() + std::max<int64_t>(logits.dim(), 1) : options.dim();
  Tensor y_hard;
  {
    NoGradGuard no_grad;
    Tensor index = std::get<1>(y_soft.max(dim, /*keepdim=*/true));  // the first maximum, as PyTorch's
    const TensorOptions like = TensorOptions(y_soft.dtype()).device(y_soft.device());
    y_hard = zeros(y_soft.sizes(), like).scatter_add(dim, index, ones(index.sizes(), like));
  }
  return y_hard - y_soft.detach() + y_soft;
}

}  // namespace functional

// ---- modules ----

void ReLU6Impl::pretty_print(std::ostream& stream) const {
  stream << "ReLU6(";
  if (options.inplace()) stream << "inplace=true";
  stream << ")";
}

void ELUImpl::pretty_print(std::ostream& stream) const {
  stream << "ELU(alpha=" << options.alpha();
  if (options.inplace()) stream << ", inplace=true";
  stream << ")";
}

void SELUImpl::pretty_print(std::ostream& stream) const {
  stream << "SELU(";
  if (options.inplace()) stream << "inplace=true";
  stream << ")";
}

CELUImpl::CELUImpl(const CELUOptions& options_) : options(options_) {
  EMBER_CHECK(options.alpha() != 0, "CELU: alpha must not be 0 (it divides the input)");
}

void CELUImpl::pretty_print(std::ostream& stream) const {
  stream << "CELU(alpha=" << options.alpha();
  if (options.inplace()) stream << ", inplace=true";
  stream << ")";
}

void LeakyReLUImpl::pretty_print(std::ostream& stream) const {
  stream << "LeakyReLU(negative_slope=" << options.negative_slope();
  if (options.inplace()) stream << ", inplace=true";
  stream << ")";
}

PReLUImpl::PReLUImpl(const PReLUOptions& options_) : options(options_) {
  EMBER_CHECK(options.num_parameters() >= 1, "PReLU: num_parameters must be at least 1, got {}",
              options.num_parameters());
  weight = register_parameter("weight", empty({options.num_parameters()}));
  reset_parameters();
}

void PReLUImpl::reset_parameters() {
  NoGradGuard no_grad;
  weight.fill_(options.init());
}

void PReLUImpl::pretty_print(std::ostream& stream) const {
  stream << "PReLU(num_parameters=" << options.num_parameters() << ")";
}

HardtanhImpl::HardtanhImpl(const HardtanhOptions& options_) : options(options_) {
  EMBER_CHECK(options.max_val() > options.min_val(), "Hardtanh: max_val ({}) must be greater than min_val ({})",
              options.max_val(), options.min_val());
}

void HardtanhImpl::pretty_print(std::ostream& stream) const {
  stream << "Hardtanh(min_val=" << options.min_val() << ", max_val=" << options.max_val();
  if (options.inplace()) stream << ", inplace=true";
  stream << ")";
}

void SoftplusImpl::pretty_print(std::ostream& stream) const {
  stream << "Softplus(beta=" << options.beta() << ", threshold=" << options.threshold() << ")";
}

void SoftminImpl::pretty_print(std::ostream& stream) const { stream << "Softmin(dim=" << options.dim() << ")"; }

void LogSoftmaxImpl::pretty_print(std::ostream& stream) const { stream << "LogSoftmax(dim=" << options.dim() << ")"; }

void ThresholdImpl::pretty_print(std::ostream& stream) const {
  stream << "Threshold(threshold=" << options.threshold() << ", value=" << options.value();
  if (options.inplace()) stream << ", inplace=true";
  stream << ")";
}

RReLUImpl::RReLUImpl(const RReLUOptions& options_) : options(options_) {
  EMBER_CHECK(options.lower() <= options.upper(),
              "RReLU: lower bound ({}) must be less than or equal to upper bound ({})", options.lower(),
              options.upper());
}

Tensor RReLUImpl::forward(Tensor input) {
  return functional::rrelu(std::move(input), functional::RReLUFuncOptions()
                                                 .lower(options.lower())
                                                 .upper(options.upper())
                                                 .training(is_training())
                                                 .inplace(options.inplace()));
}

void RReLUImpl::pretty_print(std::ostream& stream) const {
  stream << "RReLU(lower=" << options.lower() << ", upper=" << options.upper();
  if (options.inplace()) stream << ", inplace=true";
  stream << ")";
}

// clone() of the modules above: a new one built from the same options, holding copies of the values.
EMBER_CLONE_WITH_OPTIONS(GELUImpl)
EMBER_CLONE_WITH_OPTIONS(ReLUImpl)
EMBER_CLONE_WITH_OPTIONS(SoftmaxImpl)

}  // namespace ember::nn
