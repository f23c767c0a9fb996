// torch.fft's real-valued functions (autograd/fft.h), composed of arange and roll as PyTorch does, so
// that float32 results round as PyTorch's: i * float(1 / (d n)).
#include "autograd/fft.h"

#include <vector>

#include "autograd/grad_mode.h"
#include "core/error.h"
#include "core/shape.h"

namespace ember::fft {

namespace {

void check_frequencies(const char* op, int64_t n, double d, const TensorOptions& options) {
  EMBER_CHECK(n >= 0, "{}: n must be non-negative, got {}", op, n);
  EMBER_CHECK(options.dtype_opt() == std::nullopt || is_floating_point(*options.dtype_opt()),
              "{}: the dtype must be floating point, got {}", op, dtype_name(*options.dtype_opt()));
  EMBER_CHECK(d != 0 || n == 0, "{}: the sample spacing d must not be 0", op);
}

// An unset dtype is the default floating dtype (arange alone would make integers).
TensorOptions floating(const TensorOptions& options) {
  return options.dtype_opt() ? options : options.dtype(get_default_dtype());
}

// Rolls every dim named (or all) by shift(size).
template <typename Shift>
Tensor shift_dims(const char* op, const Tensor& input, const OptionalDims& dim, Shift shift) {
  std::vector<int64_t> dims;
  if (dim.dims) {
    for (int64_t d : *dim.dims) dims.push_back(wrap_dim(d, input.dim(), op));
  } else {
    for (int64_t d = 0; d < input.dim(); ++d) dims.push_back(d);
  }
  if (dims.empty()) return input.clone();
  std::vector<int64_t> shifts;
  for (int64_t d : dims) shifts.push_back(shift(input.size(d)));
  return input.roll(shifts, dims);
}

}  // namespace

Tensor fftfreq(int64_t n, double d, const TensorOptions& options) {
  check_frequencies("fftfreq", n, d, options);
  Tensor result = arange(n, floating(options));
  NoGradGuard no_grad;  // like arange, the result has no history
  result.narrow(0, (n + 1) / 2, n / 2).sub_(n);
  return result.mul_(1.0 / (static_cast<double>(n) * d));
}

Tensor fftfreq(int64_t n, const TensorOptions& options) { return fftfreq(n, 1.0, options); }

Tensor rfftfreq(int64_t n, double d, const TensorOptions& options) {
  check_frequencies("rfftfreq", n, d, options);
  Tensor result = arange(n / 2 + 1, floating(options));
  NoGradGuard no_grad;
  return result.mul_(1.0 / (static_cast<double>(n) * d));
}

Tensor rfftfreq(int64_t n, const TensorOptions& options) { return rfftfreq(n, 1.0, options); }

Tensor fftshift(const Tensor& input, OptionalDims dim) {
  return shift_dims("fftshift", input, dim, [](int64_t size) { return size / 2; });
}

Tensor ifftshift(const Tensor& input, OptionalDims dim) {
  return shift_dims("ifftshift", input, dim, [](int64_t size) { return (size + 1) / 2; });
}

}  // namespace ember::fft
