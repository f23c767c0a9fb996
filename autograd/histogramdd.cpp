// torch.histogramdd (autograd/histogramdd.h), as libtorch 1.13's CPU kernel computes it: edges
// first (linspace over each dimension's range for bin counts), then one pass over the points,
// counting in the input's dtype, then the density scaling. Each check and its message follows
// libtorch's order, so a bad input fails with the error libtorch gives. Not a kernel per device:
// the points are read on the host, as torch.histogram's are (autograd/histogram.cpp).
#include "autograd/histogramdd.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <type_traits>

#include "autograd/grad_mode.h"
#include "autograd/node.h"
#include "core/error.h"

namespace ember {

namespace {

// How the bin of a value is found: binary search over given edges, or, for equal bins, the
// linear estimate refined by a search of the edges around it (libtorch's two CPU algorithms).
enum class BinSearch { kBinary, kLinearThenLocal };

// A double as libtorch's messages print it (std::ostream's default: 6 significant digits).
std::string c10_str(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

// The dtype as caffe2::TypeMeta names it in libtorch's messages.
std::string meta_name(ScalarType type) {
  if (type == kFloat32) return "float";
  if (type == kFloat64) return "double";
  if (type == kInt64) return "long int";
  return std::string(dtype_name(type));
}

void check_floating(const Tensor& self) {
  EMBER_CHECK(self.scalar_type() == kFloat32 || self.scalar_type() == kFloat64,
              "\"histogramdd\" not implemented for '{}'", scalar_type_name(self.scalar_type()));
}

// torch.linspace(lo, hi, steps) in T as libtorch 1.13's CPU kernel rounds it (AVX2 build, where
// start + step * i is one fused multiply-add): the first half counts up from lo, the second down
// from hi; runs of 2 * kLanes values are vectors whose lanes add the rounded lane * step to the
// vector's first value (two roundings there, as Vectorized::arange), and the tail is done one value
// at a time. Checked against torch 1.13 in tests/core/test_discrete_draws.cpp.
template <typename T>
Tensor bin_edges(double lo, double hi, int64_t steps) {
  constexpr int64_t kLanes = 32 / sizeof(T);  // one AVX2 register
  const T start = static_cast<T>(lo), end = static_cast<T>(hi);
  const T step = steps > 1 ? (end - start) / static_cast<T>(steps - 1) : T(0);
  const int64_t halfway = steps / 2;
  auto at = [&](int64_t i) {
    return i < halfway ? std::fma(step, static_cast<T>(i), start) : std::fma(-step, static_cast<T>(steps - i - 1), end);
  };
  Tensor edges = empty({steps}, TensorOptions().dtype(std::is_same_v<T, float> ? kFloat32 : kFloat64));
  T* e = edges.data_ptr<T>();
  int64_t i = 0;
  for (; i + 2 * kLanes <= steps; i += 2 * kLanes) {
    for (int64_t v = i; v < i + 2 * kLanes; v += kLanes) {
      const T base = at(v);
      for (int64_t lane = 0; lane < kLanes; ++lane) e[v + lane] = base + static_cast<T>(lane) * step;
    }
  }
  for (; i < steps; ++i) e[i] = at(i);
  return edges;
}

// libtorch's histogramdd_check_inputs and the bin counts of histogramdd_prepare_out.
std::vector<int64_t> check_inputs(const Tensor& self, ArrayRef<Tensor> edges, const std::optional<Tensor>& weight) {
  EMBER_CHECK(self.dim() >= 2, "torch.histogramdd: input tensor should have at least 2 dimensions");
  const int64_t N = self.size(-1);
  EMBER_CHECK(static_cast<int64_t>(edges.size()) == N,
              "torch.histogramdd: expected {} sequences of bin edges for a {}-dimensional histogram but got {}", N, N,
              edges.size());
  for (int64_t d = 0; d < N; ++d) {
    const Tensor& e = edges[d];
    EMBER_CHECK(e.scalar_type() == self.scalar_type(),
                "torch.histogramdd: input tensor and bins tensors should have the same dtype, but got input with "
                "dtype {} and bins for dimension {} with dtype {}",
                meta_name(self.scalar_type()), d, meta_name(e.scalar_type()));
    EMBER_CHECK(e.dim() == 1,
                "torch.histogramdd: bins tensor should have one dimension, but got {} dimensions in the bins tensor "
                "for dimension {}",
                e.dim(), d);
    EMBER_CHECK(e.numel() > 0,
                "torch.histogramdd: bins tensor should have at least 1 element, but got {} elements in the bins "
                "tensor for dimension {}",
                e.numel(), d);
  }
  if (weight.has_value() && weight->defined()) {
    EMBER_CHECK(weight->scalar_type() == self.scalar_type(),
                "torch.histogramdd: if weight tensor is provided, input tensor and weight tensor should have the "
                "same dtype, but got input({}), and weight({})",
                meta_name(self.scalar_type()), meta_name(weight->scalar_type()));
    const bool leading_shape =
        weight->dim() + 1 == self.dim() && weight->sizes() == self.sizes().slice(0, weight->dim());
    EMBER_CHECK(leading_shape,
                "torch.histogramdd: if weight tensor is provided it should have the same shape as the input tensor "
                "excluding its innermost dimension, but got input with shape {} and weight with shape {}",
                self.sizes(), weight->sizes());
  }
  std::vector<int64_t> counts;
  for (int64_t d = 0; d < N; ++d) {
    counts.push_back(edges[d].numel() - 1);
    EMBER_CHECK(counts.back() > 0, "torch.histogram(): bins must be > 0, but got {} for dimension {}", counts.back(),
                d);
  }
  return counts;
}

// Adds each row of x (M, N) to the cell of hist (counts) that holds it; T is the input's dtype.
template <typename T>
Tensor count_points(const Tensor& x, const std::vector<Tensor>& edges, const Tensor& w, IntArrayRef counts,
                    BinSearch search) {
  const int64_t M = x.size(0), N = x.size(1);
  Tensor hist = zeros(counts, TensorOptions().dtype(x.scalar_type()));
  T* h = hist.data_ptr<T>();
  const T* xd = x.data_ptr<T>();
  const T* wd = w.defined() ? w.data_ptr<T>() : nullptr;
  std::vector<const T*> e(N);
  std::vector<int64_t> stride(N, 1);
  for (int64_t d = 0; d < N; ++d) e[d] = edges[d].data_ptr<T>();
  for (int64_t d = N - 2; d >= 0; --d) stride[d] = stride[d + 1] * counts[d + 1];
  for (int64_t i = 0; i < M; ++i) {
    int64_t cell = 0;
    bool inside = true;
    for (int64_t d = 0; d < N && inside; ++d) {
      const T v = xd[i * N + d];
      const int64_t n_edges = counts[d] + 1;
      const T left = e[d][0], right = e[d][n_edges - 1];
      inside = v >= left && v <= right;  // false for NaN
      if (!inside) break;
      int64_t lo = 0, hi = n_edges;
      if (search == BinSearch::kLinearThenLocal) {
        const auto guess = static_cast<int64_t>((v - left) * T(n_edges - 1) / (right - left));
        lo = std::max<int64_t>(0, guess - 1), hi = std::min<int64_t>(guess + 2, n_edges);
      }
      int64_t pos = std::upper_bound(e[d] + lo, e[d] + hi, v) - e[d] - 1;
      if (pos == n_edges - 1) pos -= 1;  // the last bin holds its right edge
      cell += stride[d] * pos;
    }
    if (inside) h[cell] += wd ? wd[i] : T(1);
  }
  return hist;
}

// The histogram of self (*, N) over the given edges; the shared part of every overload.
Tensor histogram_over(const Tensor& self, ArrayRef<Tensor> edges, const std::optional<Tensor>& weight, bool density,
                      BinSearch search) {
  const std::vector<int64_t> counts = check_inputs(self, edges, weight);
  check_floating(self);
  NoGradGuard no_grad;
  const int64_t N = self.size(-1);
  const Tensor x = self.detach().to(kCPU).contiguous().reshape({-1, N});
  const bool weighted = weight.has_value() && weight->defined();
  const Tensor w = weighted ? weight->detach().to(kCPU).contiguous().reshape({-1}) : Tensor();
  std::vector<Tensor> host_edges;
  for (const Tensor& e : edges) host_edges.push_back(e.detach().to(kCPU).contiguous());
  Tensor hist = self.scalar_type() == kFloat32 ? count_points<float>(x, host_edges, w, counts, search)
                                               : count_points<double>(x, host_edges, w, counts, search);
  if (density) {
    // hist / (total * each bin's volume), one dimension's widths at a time, in the input's dtype.
    hist.div_(hist.sum().item<double>());
    for (int64_t d = 0; d < N; ++d) {
      std::vector<int64_t> shape(N, 1);
      shape[d] = counts[d];
      hist.div_(host_edges[d].diff().reshape(shape));
    }
  }
  return hist.to(self.device());
}

// libtorch defines no derivative for histogramdd: the results join the graph, backward refuses.
void record_no_derivative(const char* op, const Tensor& output, const tensor_list& inputs) {
  if (!autograd::any_requires_grad(inputs)) return;
  const std::string message = fmt::format("derivative for aten::{} is not implemented", op);
  autograd::record("NotImplemented", {output}, inputs,
                   [message](const tensor_list&) -> tensor_list { EMBER_FAIL("{}", message); });
}

tensor_list present(const Tensor& self, const std::optional<Tensor>& weight) {
  tensor_list inputs{self};
  if (weight.has_value() && weight->defined()) inputs.push_back(*weight);
  return inputs;
}

}  // namespace

std::tuple<Tensor, std::vector<Tensor>> histogramdd(const Tensor& self, IntArrayRef bins,
                                                    std::optional<ArrayRef<double>> range,
                                                    const std::optional<Tensor>& weight, bool density) {
  EMBER_CHECK(self.dim() > 0, "Dimension specified as -1 but tensor has no dimensions");
  EMBER_CHECK(self.dim() >= 2, "torch.histogramdd: input tensor should have at least 2 dimensions");
  check_floating(self);
  const int64_t N = self.size(-1);
  EMBER_CHECK(static_cast<int64_t>(bins.size()) >= N,
              "torch.histogramdd: expected {} sequences of bin edges for a {}-dimensional histogram but got {}", N, N,
              bins.size());
  // Each dimension's outer edges: range, else the data's min and max, else [0, 1] (empty input).
  std::vector<double> lo(N, 0.0), hi(N, 1.0);
  if (range.has_value()) {
    EMBER_CHECK(static_cast<int64_t>(range->size()) == 2 * N,
                "torch.histogramdd: for a {}-dimensional histogram range should have {} elements, but got {}", N, 2 * N,
                range->size());
    for (int64_t d = 0; d < N; ++d) lo[d] = (*range)[2 * d], hi[d] = (*range)[2 * d + 1];
  } else if (self.numel() > 0) {
    NoGradGuard no_grad;
    const Tensor rows = self.detach().reshape({-1, N});
    const Tensor mins = rows.amin(0).to(kCPU).to(kFloat64), maxs = rows.amax(0).to(kCPU).to(kFloat64);
    for (int64_t d = 0; d < N; ++d) lo[d] = mins.data_ptr<double>()[d], hi[d] = maxs.data_ptr<double>()[d];
  }
  std::vector<Tensor> edges;
  for (int64_t d = 0; d < N; ++d) {
    EMBER_CHECK(std::isfinite(lo[d]) && std::isfinite(hi[d]),
                "torch.histogramdd: dimension {}'s range [{}, {}] is not finite", d, c10_str(lo[d]), c10_str(hi[d]));
    EMBER_CHECK(lo[d] <= hi[d], "torch.histogramdd: min should not exceed max, but got min {} max {} for dimension {}",
                c10_str(lo[d]), c10_str(hi[d]), d);
    if (lo[d] == hi[d]) lo[d] -= 0.5, hi[d] += 0.5;  // as numpy: no empty range, no division by 0
    EMBER_CHECK(bins[d] + 1 >= 0, "torch.histogramdd: number of steps must be non-negative");
    edges.push_back(self.scalar_type() == kFloat32 ? bin_edges<float>(lo[d], hi[d], bins[d] + 1)
                                                   : bin_edges<double>(lo[d], hi[d], bins[d] + 1));
  }
  Tensor hist = histogram_over(self, edges, weight, density, BinSearch::kLinearThenLocal);
  for (Tensor& e : edges) {
    e = e.to(self.device());
    record_no_derivative("_histogramdd_bin_edges", e, present(self, weight));
  }
  record_no_derivative("_histogramdd_from_bin_cts", hist, present(self, weight));
  return {hist, edges};
}

std::tuple<Tensor, std::vector<Tensor>> histogramdd(const Tensor& self, int64_t bins,
                                                    std::optional<ArrayRef<double>> range,
                                                    const std::optional<Tensor>& weight, bool density) {
  EMBER_CHECK(self.dim() > 0, "Dimension specified as -1 but tensor has no dimensions");
  const std::vector<int64_t> every(static_cast<size_t>(self.size(-1)), bins);
  return histogramdd(self, IntArrayRef(every), range, weight, density);
}

std::tuple<Tensor, std::vector<Tensor>> histogramdd(const Tensor& self, ArrayRef<Tensor> bins,
                                                    std::optional<ArrayRef<double>> /*range*/,
                                                    const std::optional<Tensor>& weight, bool density) {
  EMBER_CHECK(self.dim() > 0, "Dimension specified as -1 but tensor has no dimensions");
  Tensor hist = histogram_over(self, bins, weight, density, BinSearch::kBinary);
  tensor_list inputs = present(self, weight);
  inputs.insert(inputs.begin() + 1, bins.begin(), bins.end());
  record_no_derivative("_histogramdd_from_bin_tensors", hist, inputs);
  return {hist, bins.vec()};
}

}  // namespace ember
