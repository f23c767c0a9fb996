// torch.nn.init in C++: the same formulas, evaluated in double as Python does, then one fill.
// orthogonal_'s QR is a small Gram-Schmidt in double here (Ember has no linalg.qr).
#include "nn/init.h"

#include <algorithm>
#include <cmath>
#include <vector>

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

// The Q of the thin QR decomposition of `a` (m, n), m >= n, row-major, with R's diagonal positive:
// modified Gram-Schmidt, each column orthogonalised twice ("twice is enough", Giraud et al. 2005) so Q is
// orthogonal to double precision. Returned column by column: q[j * m + i] = Q(i, j). A column that
// depends on the ones before it comes out zero, as PyTorch's q * sign(diag(r)) makes it.
std::vector<double> orthonormal_columns(const std::vector<double>& a, int64_t m, int64_t n) {
  std::vector<double> q(static_cast<size_t>(m * n));
  for (int64_t j = 0; j < n; ++j) {
    double* v = q.data() + j * m;
    for (int64_t i = 0; i < m; ++i) v[i] = a[i * n + j];
    for (int pass = 0; pass < 2; ++pass) {
      for (int64_t p = 0; p < j; ++p) {
        const double* u = q.data() + p * m;
        double dot = 0;
        for (int64_t i = 0; i < m; ++i) dot += u[i] * v[i];
        for (int64_t i = 0; i < m; ++i) v[i] -= dot * u[i];
      }
    }
    double norm = 0;
    for (int64_t i = 0; i < m; ++i) norm += v[i] * v[i];
    norm = std::sqrt(norm);
    for (int64_t i = 0; i < m; ++i) v[i] = norm > 0 ? v[i] / norm : 0.0;
  }
  return q;
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

Tensor dirac_(Tensor tensor, int64_t groups) {
  EMBER_TRACE_OP();
  const int64_t dims = tensor.dim();
  EMBER_CHECK(dims >= 3 && dims <= 5, "dirac_: Only tensors with 3, 4, or 5 dimensions are supported (got shape {})",
              tensor.sizes());
  EMBER_CHECK(groups > 0 && tensor.size(0) % groups == 0,
              "dirac_: dim 0 must be divisible by groups (dim 0 is {}, groups is {})", tensor.size(0), groups);
  const int64_t out_per_group = tensor.size(0) / groups;
  const int64_t channels = std::min(out_per_group, tensor.size(1));
  Tensor values = zeros(tensor.sizes(), TensorOptions(kFloat64));  // built on the host, then one copy
  double* v = values.data_ptr<double>();
  int64_t centre = 0;  // the offset of the kernel's centre, sizes[k] / 2 in each kernel dim
  for (int64_t k = 2; k < dims; ++k) centre += tensor.size(k) / 2 * values.stride(k);
  for (int64_t g = 0; g < groups; ++g)
    for (int64_t d = 0; d < channels; ++d)
      v[(g * out_per_group + d) * values.stride(0) + d * values.stride(1) + centre] = 1;
  NoGradGuard no_grad;
  tensor.copy_(values);
  return tensor;
}

Tensor eye_(Tensor matrix) {
  EMBER_TRACE_OP();
  EMBER_CHECK(matrix.dim() == 2, "eye_: Only tensors with 2 dimensions are supported (got shape {})", matrix.sizes());
  NoGradGuard no_grad;
  matrix.copy_(eye(matrix.size(0), matrix.size(1), TensorOptions(kFloat64)));
  return matrix;
}

Tensor orthogonal_(Tensor tensor, double gain, std::optional<Generator> generator) {
  EMBER_TRACE_OP();
  EMBER_CHECK(tensor.dim() >= 2, "orthogonal_: Only tensors with 2 or more dimensions are supported (got shape {})",
              tensor.sizes());
  if (tensor.numel() == 0) return tensor;  // PyTorch warns and leaves an empty tensor alone
  NoGradGuard no_grad;
  const int64_t rows = tensor.size(0), cols = tensor.numel() / rows;
  Tensor draws = generator ? randn({rows, cols}, *generator) : randn({rows, cols});
  Tensor flat = draws.to(kFloat64).contiguous();
  // QR of the draws, or of their transpose when they are wide, as a (m, n) matrix with m >= n.
  const bool wide = rows < cols;
  const int64_t m = wide ? cols : rows, n = wide ? rows : cols;
  std::vector<double> a(static_cast<size_t>(m * n));
  const double* f = flat.data_ptr<double>();
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) a[wide ? c * n + r : r * n + c] = f[r * cols + c];
  const std::vector<double> q = orthonormal_columns(a, m, n);
  Tensor result = empty({rows, cols}, TensorOptions(kFloat64));  // Q, or Q^T when wide
  double* out = result.data_ptr<double>();
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) out[r * cols + c] = wide ? q[r * m + c] : q[c * m + r];
  tensor.copy_(result.reshape(tensor.sizes()));
  tensor.mul_(gain);
  return tensor;
}

}  // namespace ember::nn::init
