// quantile and nanquantile (core/tensor.h), composed of sort, gather and lerp as PyTorch's are, in
// the same order of operations, so that values round alike and gradients flow through the sorted
// values to the inputs they came from:
//
//   ranks = q (n - 1)                  quantile; n - 1 for a row with NaN, which then gives NaN
//   ranks = q (valid - 1), at least 0  nanquantile; valid counts the values that are not NaN
//   lower / higher / nearest:  ranks rounded down / up / to even
//   result = lerp(sorted[floor(ranks)], sorted[ceil(ranks)], w),  w = ranks - floor(ranks)
//                                      (0.5 for midpoint; no lerp for the rounded modes)
#include <optional>
#include <string_view>
#include <vector>

#include "autograd/aten_functions.h"
#include "autograd/grad_mode.h"
#include "core/error.h"
#include "core/shape.h"
#include "core/trace.h"

namespace ember {

namespace {

enum class Interpolation { kLinear, kLower, kHigher, kMidpoint, kNearest };

Interpolation parse_interpolation(const char* op, std::string_view name) {
  if (name == "linear") return Interpolation::kLinear;
  if (name == "lower") return Interpolation::kLower;
  if (name == "higher") return Interpolation::kHigher;
  if (name == "midpoint") return Interpolation::kMidpoint;
  if (name == "nearest") return Interpolation::kNearest;
  EMBER_FAIL("{}() interpolation must be one of linear, lower, higher, midpoint or nearest. Got {}", op, name);
}

Tensor quantile_impl(const char* op, const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                     std::string_view interpolation_name, bool ignore_nan) {
  const Interpolation interpolation = parse_interpolation(op, interpolation_name);
  EMBER_CHECK(self.numel() > 0, "{}() input tensor must be non-empty", op);
  EMBER_CHECK(q.dim() <= 1, "{}() q must be a scalar or 1D tensor, got {} dims", op, q.dim());
  EMBER_CHECK(self.dtype() == kFloat32 || self.dtype() == kFloat64,
              "{}() input tensor must be either float or double dtype, got {}", op, dtype_name(self.dtype()));
  EMBER_CHECK(self.dtype() == q.dtype(), "{}() q tensor must be same dtype as the input tensor ({} and {})", op,
              dtype_name(q.dtype()), dtype_name(self.dtype()));
  EMBER_CHECK(self.device() == q.device(), "{}() q tensor must be on the same device as the input tensor", op);
  {
    NoGradGuard no_grad;
    EMBER_CHECK(q.numel() == 0 || (q.ge(0).all().item<bool>() && q.le(1).all().item<bool>()),
                "{}() q values must be in the range [0, 1]", op);
  }

  // The reduced dim moved last (or everything flattened), sorted; the other dims keep their order.
  std::vector<int64_t> out_sizes;  // the result's shape, without q's dim
  Tensor x;
  if (dim) {
    const int64_t d = wrap_dim(*dim, std::max<int64_t>(self.dim(), 1), op);
    const Tensor s = self.dim() == 0 ? self.reshape({1}) : self;
    x = s.movedim(d, -1);
    out_sizes = s.sizes().vec();
    if (keepdim) {
      out_sizes[static_cast<size_t>(d)] = 1;
    } else {
      out_sizes.erase(out_sizes.begin() + d);
    }
    if (self.dim() == 0 && !keepdim) out_sizes.clear();
  } else {
    x = self.reshape({-1});
    if (keepdim) out_sizes.assign(static_cast<size_t>(self.dim()), 1);
  }
  const Tensor sorted = std::get<0>(x.sort(-1));
  const int64_t n = sorted.size(-1);

  // q as a column over the rows: (Q, 1, ..., 1) against sorted's (rows..., n).
  std::vector<int64_t> q_shape(static_cast<size_t>(sorted.dim()), 1);
  q_shape.insert(q_shape.begin(), q.numel());
  const Tensor qc = q.reshape(q_shape);
  Tensor ranks;
  {
    NoGradGuard no_grad;
    if (ignore_nan) {
      const Tensor valid = sorted.isnan().logical_not().sum({-1}, /*keepdim=*/true).to(self.dtype());
      ranks = qc * (valid - 1);
      ranks = ranks.masked_fill(ranks.lt(0), 0);
    } else {
      const Tensor has_nan = sorted.isnan().any(-1, /*keepdim=*/true);
      ranks = where(has_nan, scalar_tensor(static_cast<double>(n - 1), self.options()),
                    qc * static_cast<double>(n - 1));  // broadcast to (Q, rows..., 1)
    }
    if (interpolation == Interpolation::kLower) ranks = ranks.floor();
    if (interpolation == Interpolation::kHigher) ranks = ranks.ceil();
    if (interpolation == Interpolation::kNearest) ranks = ranks.round();
  }
  std::vector<int64_t> expanded = ranks.sizes().vec();
  expanded.back() = n;
  const Tensor rows = sorted.unsqueeze(0).expand(expanded);
  const Tensor below_rank = ranks.to(kInt64);
  Tensor result = rows.gather(-1, below_rank);
  if (interpolation == Interpolation::kLinear || interpolation == Interpolation::kMidpoint) {
    Tensor weights;
    Tensor above_rank;
    {
      NoGradGuard no_grad;
      weights = interpolation == Interpolation::kMidpoint ? full_like(ranks, 0.5) : ranks - below_rank;
      above_rank = ranks.ceil().to(kInt64);
    }
    result = result.lerp(rows.gather(-1, above_rank), weights);
  }
  result = result.squeeze(-1);  // (Q, rows...)
  std::vector<int64_t> final_sizes = out_sizes;
  if (q.dim() == 1) final_sizes.insert(final_sizes.begin(), q.numel());
  return result.reshape(final_sizes);
}

Tensor scalar_q(const Tensor& self, double q) { return scalar_tensor(q, self.options()); }

}  // namespace

Tensor Tensor::quantile(const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                        std::string_view interpolation) const {
  EMBER_TRACE_OP();
  return quantile_impl("quantile", *this, q, dim, keepdim, interpolation, /*ignore_nan=*/false);
}

Tensor Tensor::quantile(double q, std::optional<int64_t> dim, bool keepdim, std::string_view interpolation) const {
  EMBER_TRACE_OP();
  EMBER_CHECK(q >= 0 && q <= 1, "quantile() q must be in the range [0, 1] but got {}", q);
  return quantile_impl("quantile", *this, scalar_q(*this, q), dim, keepdim, interpolation, false);
}

Tensor Tensor::nanquantile(const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                           std::string_view interpolation) const {
  EMBER_TRACE_OP();
  return quantile_impl("nanquantile", *this, q, dim, keepdim, interpolation, /*ignore_nan=*/true);
}

Tensor Tensor::nanquantile(double q, std::optional<int64_t> dim, bool keepdim, std::string_view interpolation) const {
  EMBER_TRACE_OP();
  EMBER_CHECK(q >= 0 && q <= 1, "nanquantile() q must be in the range [0, 1] but got {}", q);
  return quantile_impl("nanquantile", *this, scalar_q(*this, q), dim, keepdim, interpolation, true);
}

}  // namespace ember
