// torch.nn.init in C++: the same formulas, evaluated in double as Python does, then one fill.
#include "nn/init.h"

#include <cmath>

#include "autograd/grad_mode.h"
#include "core/error.h"
#include "core/random.h"
#include "core/trace.h"

namespace ember::nn::init {

namespace {

// erf^-1 by a rational first guess refined with two Newton steps on erf (full double accuracy).
double erfinv(double y) {
  if (y <= -1) return y == -1 ? -INFINITY : NAN;
  if (y >= 1) return y == 1 ? INFINITY : NAN;
  const double w = -std::log((1.0 - y) * (1.0 + y));
  double x;
  if (w < 5.0) {
    const double t = w - 2.5;
    x = 2.81022636e-08;
    for (double c : {3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503, -0.00417768164,
                     0.246640727, 1.50140941})
      x = x * t + c;
  } else {
    const double t = std::sqrt(w) - 3.0;
    x = -0.000200214257;
    for (double c : {0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613, 0.00943887047,
                     1.00167406, 2.83297682})
      x = x * t + c;
  }
  x *= y;
  const double two_over_sqrt_pi = 2.0 / std::sqrt(M_PI);
  for (int i = 0; i < 2; ++i) x -= (std::erf(x) - y) / (two_over_sqrt_pi * std::exp(-x * x));
  return x;
}

double fan(const Tensor& t, FanMode mode) {
  auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(t);
  return static_cast<double>(mode == FanMode::FanIn ? fan_in : fan_out);
}

}  // namespace

double calculate_gain(Nonlinearity nonlinearity, std::optional<double> param) {
  switch (nonlinearity) {
    case Nonlinearity::Linear:
    case Nonlinearity::Conv1D:
    case Nonlinearity::Conv2D:
    case Nonlinearity::Conv3D:
    case Nonlinearity::ConvTranspose1D:
    case Nonlinearity::ConvTranspose2D:
    case Nonlinearity::ConvTranspose3D:
    case Nonlinearity::Sigmoid:
      return 1.0;
    case Nonlinearity::Tanh:
      return 5.0 / 3;
    case Nonlinearity::ReLU:
      return std::sqrt(2.0);
    case Nonlinearity::LeakyReLU: {
      const double slope = param.value_or(0.01);
      return std::sqrt(2.0 / (1 + slope * slope));
    }
    case Nonlinearity::SELU:
      return 3.0 / 4;
  }
  return 1.0;
}

std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor& tensor) {
  EMBER_CHECK(tensor.dim() >= 2,
              "calculate_fan_in_and_fan_out: Fan in and fan out can not be computed for tensor with fewer than 2 "
              "dimensions (shape {})",
              tensor.sizes());
  int64_t receptive_field = 1;
  for (int64_t d = 2; d < tensor.dim(); ++d) receptive_field *= tensor.size(d);
  return {tensor.size(1) * receptive_field, tensor.size(0) * receptive_field};
}

Tensor uniform_(Tensor tensor, double a, double b, std::optional<Generator> generator) {
  EMBER_TRACE_OP();
  NoGradGuard no_grad;
  tensor.uniform_(a, b, generator);
  return tensor;
}

Tensor normal_(Tensor tensor, double mean, double std, std::optional<Generator> generator) {
  EMBER_TRACE_OP();
  NoGradGuard no_grad;
  tensor.normal_(mean, std, generator);
  return tensor;
}

Tensor trunc_normal_(Tensor tensor, double mean, double std, double a, double b, std::optional<Generator> generator) {
  EMBER_TRACE_OP();
  EMBER_CHECK(a < b, "trunc_normal_: expects a < b, got a={} b={}", a, b);
  NoGradGuard no_grad;
  // Inverse-CDF sampling: uniform in [cdf(a), cdf(b)] mapped through erfinv, as PyTorch does.
  auto norm_cdf = [](double x) { return (1.0 + std::erf(x / std::sqrt(2.0))) / 2.0; };
  const double l = norm_cdf((a - mean) / std), u = norm_cdf((b - mean) / std);
  Tensor draws = empty_like(tensor, TensorOptions(tensor.scalar_type()).device(Device(kCPU)));
  draws.uniform_(2 * l - 1, 2 * u - 1, generator);
  Tensor f = draws.to(kFloat64);
  double* d = f.data_ptr<double>();
  for (int64_t i = 0; i < f.numel(); ++i) d[i] = std::clamp(erfinv(d[i]) * (std * std::sqrt(2.0)) + mean, a, b);
  tensor.copy_(f);
  return tensor;
}

Tensor constant_(Tensor tensor, double value) {
  EMBER_TRACE_OP();
  NoGradGuard no_grad;
  tensor.fill_(value);
  return tensor;
}
Tensor ones_(Tensor tensor) { return constant_(tensor, 1.0); }
Tensor zeros_(Tensor tensor) { return constant_(tensor, 0.0); }

Tensor xavier_uniform_(Tensor tensor, double gain, std::optional<Generator> generator) {
  EMBER_TRACE_OP();
  auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(tensor);
  const double std = gain * std::sqrt(2.0 / double(fan_in + fan_out));
  const double a = std::sqrt(3.0) * std;
  return uniform_(tensor, -a, a, generator);
}

Tensor xavier_normal_(Tensor tensor, double gain, std::optional<Generator> generator) {
  EMBER_TRACE_OP();
  auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(tensor);
  const double std = gain * std::sqrt(2.0 / double(fan_in + fan_out));
  return normal_(tensor, 0.0, std, generator);
}

Tensor kaiming_uniform_(Tensor tensor, double a, FanMode mode, Nonlinearity nonlinearity,
                        std::optional<Generator> generator) {
  EMBER_TRACE_OP();
  if (tensor.numel() == 0) return tensor;  // PyTorch warns and leaves an empty tensor alone
  const double std = calculate_gain(nonlinearity, a) / std::sqrt(fan(tensor, mode));
  const double bound = std::sqrt(3.0) * std;
  return uniform_(tensor, -bound, bound, generator);
}

Tensor kaiming_normal_(Tensor tensor, double a, FanMode mode, Nonlinearity nonlinearity,
                       std::optional<Generator> generator) {
  EMBER_TRACE_OP();
  if (tensor.numel() == 0) return tensor;
  const double std = calculate_gain(nonlinearity, a) / std::sqrt(fan(tensor, mode));
  return normal_(tensor, 0.0, std, generator);
}

}  // namespace ember::nn::init
