// torch.histogram (autograd/aten_functions.h): bins counted on the host in float64, as histc is.
#include <algorithm>
#include <numeric>
#include <vector>

#include "autograd/aten_functions.h"
#include "autograd/grad_mode.h"
#include "core/error.h"

namespace ember {

std::tuple<Tensor, Tensor> histogram(const Tensor& self, const Tensor& bins, const std::optional<Tensor>& weight,
                                     bool density) {
  const char* op = "torch.histogram";
  EMBER_CHECK(self.is_floating_point(), "\"histogramdd\" not implemented for '{}'", dtype_name(self.dtype()));
  EMBER_CHECK(bins.dim() == 1 && bins.numel() >= 2 && bins.dtype() == self.dtype(),
              "{}: bins must be a 1-d tensor of at least 2 edges and input's dtype ({}), got {} {}", op,
              dtype_name(self.dtype()), dtype_name(bins.dtype()), bins.sizes());
  const bool weighted = weight.has_value() && weight->defined();
  EMBER_CHECK(!weighted || weight->sizes() == self.sizes(),
              "{}: weight must have the same shape as input (input {}, weight {})", op, self.sizes(),
              weighted ? weight->sizes() : IntArrayRef{});
  NoGradGuard no_grad;
  const Tensor x = self.to(kCPU).to(kFloat64).contiguous().reshape({-1});
  const Tensor edges = bins.to(kCPU).to(kFloat64).contiguous();
  const Tensor w = weighted ? weight->to(kCPU).to(kFloat64).contiguous().reshape({-1}) : Tensor();
  const int64_t count = edges.numel() - 1;
  const double* e = edges.data_ptr<double>();
  std::vector<double> hist(static_cast<size_t>(count), 0.0);
  for (int64_t i = 0; i < x.numel(); ++i) {
    const double v = x.data_ptr<double>()[i];
    if (!(v >= e[0] && v <= e[count])) continue;  // outside the edges, or NaN
    const int64_t b = std::min<int64_t>(std::upper_bound(e, e + count + 1, v) - e - 1, count - 1);
    hist[static_cast<size_t>(b)] += weighted ? w.data_ptr<double>()[i] : 1.0;
  }
  if (density) {
    const double total = std::accumulate(hist.begin(), hist.end(), 0.0);
    for (int64_t b = 0; b < count; ++b) hist[static_cast<size_t>(b)] /= total * (e[b + 1] - e[b]);
  }
  return {from_vector<double>(hist, {count}).to(self.options().requires_grad(false)), bins};
}

std::tuple<Tensor, Tensor> histogram(const Tensor& self, int64_t bins, std::optional<ArrayRef<double>> range,
                                     const std::optional<Tensor>& weight, bool density) {
  EMBER_CHECK(bins > 0, "torch.histogram(): bins must be > 0, but got {} for dimension 0", bins);
  EMBER_CHECK(self.is_floating_point(), "\"histogramdd\" not implemented for '{}'", dtype_name(self.dtype()));
  double lo = 0, hi = 0;
  if (range) {
    EMBER_CHECK(range->size() == 2, "torch.histogram(): range should have 2 elements, but got {}", range->size());
    lo = (*range)[0], hi = (*range)[1];
  } else if (self.numel() > 0) {
    NoGradGuard no_grad;
    lo = self.min().item<double>(), hi = self.max().item<double>();
  }
  EMBER_CHECK(lo <= hi, "torch.histogram(): max must be larger than min, but got min {} max {}", lo, hi);
  if (lo == hi) lo -= 0.5, hi += 0.5;
  return histogram(self, linspace(lo, hi, bins + 1, self.options().requires_grad(false)), weight, density);
}

}  // namespace ember
