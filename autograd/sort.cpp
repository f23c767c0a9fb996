// Sorting and scans along a dim: sort, argsort, topk, median, nanmedian, mode, kthvalue, cumsum, cumprod,
// logcumsumexp, and unique built on them.
//
// Each runs its kernel (Backend::sort, Backend::cumulative, Backend::logcumsumexp) over contiguous
// rows with the dim moved last, then moves it back. Backward:
//   sort / topk:  the gradient goes back to where each value came from (scatter by the indices)
//   cumsum:       dx = the reversed running sum of g
//   cumprod:      y = cumprod(x). Before a row's first zero, dx_k = (sum_{i>=k} g_i y_i) / x_k; at the
//                 first zero z, dx_z = sum_{i>=z} g_i prod_{j<=i, j!=z} x_j, which is the reversed
//                 running sum of g * cumprod(x with x_z set to 1); after it, 0 (every product holds
//                 x_z). The formulas are ops, so second derivatives work too.
//   logcumsumexp: y = logcumsumexp(x). dx_i = sum_{k>=i} g_k exp(x_i - y_k): the positive and the
//                 negative parts of g summed apart, each as a reversed logcumsumexp in log space
//                 (PyTorch's formula), so that nothing overflows.
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "autograd/aten_functions.h"
#include "autograd/autocast.h"
#include "autograd/autograd.h"
#include "core/kernel.h"
#include "core/trace.h"

namespace ember {

using autograd::any_requires_grad;
using autograd::record;
using autograd::SavedVariable;

namespace {

// Runs `kernel(out..., in)` over x with dim d moved last and made contiguous; returns the outputs
// with d moved back. A 0-dim x is one row of one element.
template <typename Kernel>
tensor_list along_last_dim(const Tensor& x, int64_t d, std::initializer_list<ScalarType> out_dtypes, Kernel kernel) {
  const int64_t last = x.dim() - 1;
  const bool moved = x.dim() > 0 && d != last;
  Tensor in = kernel::contiguous(moved ? x.transpose(d, last) : x);
  tensor_list outs;
  for (ScalarType t : out_dtypes) outs.push_back(raw_empty(in.sizes(), t, in.device()));
  kernel(outs, in);
  if (moved)  // d back in place: a plain strided tensor, not an autograd view of the kernel's buffer
    for (Tensor& o : outs) {
      std::vector<int64_t> sizes = o.sizes().vec(), strides = o.strides().vec();
      std::swap(sizes[d], sizes[last]);
      std::swap(strides[d], strides[last]);
      o = raw_view(o, sizes, strides, 0);
    }
  return outs;
}

// (values, indices) of x sorted along d, without autograd. bfloat16 and float16 sort through
// float32 (exactly).
std::tuple<Tensor, Tensor> sorted_along(const Tensor& x, int64_t d, bool descending) {
  NoGradGuard no_grad;
  const Tensor src = is_reduced_floating_point(x.dtype()) ? x.to(kFloat32) : x;
  tensor_list r = along_last_dim(src, d, {src.dtype(), kInt64}, [&](const tensor_list& o, const Tensor& in) {
    backend_for(in).sort(o[0], o[1], in, descending);
  });
  return {r[0].to(x.dtype()), r[1]};
}

// The gradient of values taken from x at `indices` along d: g placed back where each came from.
void record_selection(const char* name, const Tensor& values, const Tensor& x, const Tensor& indices, int64_t d) {
  record(name, values, {x}, [sizes = x.sizes().vec(), indices, d](const Tensor& g) -> tensor_list {
    if (sizes.empty()) return {g.reshape({})};  // a 0-dim x: its one value went straight through
    return {zeros(sizes, g.options()).scatter_add(d, indices, g)};
  });
}

// The running sum or product along d (no autograd), in dtype `dt`.
Tensor scan(const Tensor& x, int64_t d, ScalarType dt, bool prod) {
  NoGradGuard no_grad;
  // bfloat16 and float16 run through float32 (accumulated in double there), rounded once at the end.
  const ScalarType run = is_reduced_floating_point(dt) ? kFloat32 : dt;
  tensor_list r = along_last_dim(kernel::cast(x, run), d, {run}, [&](const tensor_list& o, const Tensor& in) {
    backend_for(in).cumulative(o[0], in, prod);
  });
  return r[0].to(dt);
}

// Running sum of g from the end of d backwards: sum_{i >= k} g_i.
Tensor reversed_cumsum(const Tensor& g, int64_t d) { return g.flip({d}).cumsum(d).flip({d}); }

// cumprod's gradient as a function that is itself differentiable everywhere, zeros included (for
// double backward): dx_k = sum_{i >= k} g_i prod_{j <= i, j != k} x_j, the running product of x with
// x_k set to 1, one k at a time. O(n^2) along d; the backward uses it only for create_graph with zeros
// in x, as libtorch does.
Tensor cumprod_backward_differentiable(const Tensor& x, const Tensor& g, int64_t d) {
  if (x.dim() == 0) return g;  // cumprod of one element is itself
  const int64_t n = x.sizes()[d];
  std::vector<int64_t> along(x.dim(), 1);
  along[d] = n;
  const Tensor position = arange(n, TensorOptions().dtype(kInt64).device(x.device())).view(along);
  tensor_list parts;
  for (int64_t k = 0; k < n; ++k) {
    const Tensor without_k = x.masked_fill(position.eq(k), 1).cumprod(d);
    parts.push_back((g * without_k).narrow(d, k, n - k).sum({d}, /*keepdim=*/true));
  }
  return cat(parts, d);
}

ScalarType scan_dtype(const Tensor& x, std::optional<ScalarType> dtype) {
  return dtype.value_or(x.is_floating_point() ? x.dtype() : kInt64);  // integers and bools give int64
}

}  // namespace

std::tuple<Tensor, Tensor> Tensor::sort(int64_t dim_, bool descending) const {
  EMBER_TRACE_OP();
  const int64_t d = wrap_dim(dim_, dim(), "sort");
  auto [values, indices] = sorted_along(*this, d, descending);
  if (any_requires_grad({this})) record_selection("SortBackward0", values, *this, indices, d);
  return {values, indices};
}
std::tuple<Tensor, Tensor> Tensor::sort(std::optional<bool> /*stable*/, int64_t dim, bool descending) const {
  return sort(dim, descending);
}

Tensor Tensor::argsort(int64_t dim_, bool descending) const {
  EMBER_TRACE_OP();
  return std::get<1>(sorted_along(*this, wrap_dim(dim_, dim(), "argsort"), descending));
}
Tensor Tensor::argsort(bool /*stable*/, int64_t dim, bool descending) const { return argsort(dim, descending); }

std::tuple<Tensor, Tensor> Tensor::topk(int64_t k, int64_t dim_, bool largest, bool /*sorted*/) const {
  EMBER_TRACE_OP();
  const int64_t d = wrap_dim(dim_, dim(), "topk");
  const int64_t n = dim() ? sizes()[d] : 1;
  EMBER_CHECK(k >= 0 && k <= n, "topk: selected index k out of range (k = {}, dimension {} has size {})", k, d, n);
  auto [all, order] = sorted_along(dim() ? *this : reshape({1}), d, largest);  // a 0-dim tensor as one element
  // The first k along d, as plain tensors (raw views: the outputs are not views of anything for autograd).
  auto first_k = [&](const Tensor& t) {
    if (dim() == 0)
      return raw_view(t, k == 1 ? std::vector<int64_t>{} : std::vector<int64_t>{0},
                      k == 1 ? std::vector<int64_t>{} : std::vector<int64_t>{1}, 0);
    std::vector<int64_t> sizes = t.sizes().vec();
    sizes[d] = k;
    return raw_view(t, sizes, t.strides().vec(), t.storage_offset());
  };
  Tensor values = first_k(all), indices = first_k(order);
  if (any_requires_grad({this})) record_selection("TopkBackward0", values, *this, indices, d);
  return {values, indices};
}

namespace {

// The element at sorted position `pos` (keepdim shape, int64) along d, and where it came from; the
// gradient goes back to that index. The median's and kthvalue's common step.
std::tuple<Tensor, Tensor> pick_sorted(const char* name, const Tensor& x, int64_t d, const Tensor& sorted,
                                       const Tensor& order, const Tensor& pos, bool keepdim) {
  Tensor values = sorted.gather(d, pos), indices = order.gather(d, pos);
  if (!keepdim) {
    values = values.squeeze(d);
    indices = indices.squeeze(d);
  }
  if (any_requires_grad({&x})) {
    record(name, values, {x}, [sizes = x.sizes().vec(), indices, d, keepdim](const Tensor& g) -> tensor_list {
      return {zeros(sizes, g.options())
                  .scatter_add(d, keepdim ? indices : indices.unsqueeze(d), keepdim ? g : g.unsqueeze(d))};
    });
  }
  return {values, indices};
}

}  // namespace

// The lower median along dim (the ((n - 1) / 2)-th smallest) and its index; a row with NaN gives NaN
// and the index of its first NaN, as PyTorch's median does.
std::tuple<Tensor, Tensor> Tensor::median(int64_t dim_, bool keepdim) const {
  EMBER_TRACE_OP();
  const Tensor x = dim() == 0 ? reshape({1}) : *this;
  const int64_t d = wrap_dim(dim_, x.dim(), "median");
  const int64_t n = x.size(d);
  EMBER_CHECK(n > 0, "median(): Expected reduction dim {} to have non-zero size (shape {})", d, sizes());
  auto [sorted, order] = sorted_along(x, d, false);
  Tensor pos;
  {
    NoGradGuard no_grad;
    const Tensor nans = x.isnan().sum({d}, /*keepdim=*/true);  // NaN sorts last: the first NaN is at n - nans
    pos = ember::where(nans.gt(0), n - nans, full_like(nans, (n - 1) / 2));
  }
  auto [values, indices] = pick_sorted("MedianBackward1", x, d, sorted, order, pos, keepdim || dim() == 0);
  if (dim() == 0) return {values.reshape({}), indices.reshape({})};
  return {values, indices};
}

// The lower median of all elements (NaN if any is NaN). Its gradient is spread evenly over the
// elements equal to it, as PyTorch's.
Tensor Tensor::median() const {
  EMBER_TRACE_OP();
  EMBER_CHECK(numel() > 0, "median() input tensor cannot be empty");
  Tensor y;
  {
    NoGradGuard no_grad;
    y = std::get<0>(reshape({-1}).median(0));
  }
  if (any_requires_grad({this})) {
    // The median's value, detached: the node must not hold its own output (a cycle through grad_fn).
    record("MedianBackward0", y, {*this},
           [sx = SavedVariable(*this, false), value = y.detach()](const Tensor& g) -> tensor_list {
             const Tensor x = sx.unpack("MedianBackward0");
             const Tensor hit = (value.isnan().item<bool>() ? x.isnan() : x.eq(value)).to(g.dtype());
             return {g * hit / hit.sum()};
           });
  }
  return y;
}

// The lower median of the values that are not NaN, along dim: the ((valid - 1) / 2)-th smallest. A
// row of NaN only gives NaN and index 0; PyTorch gives NaN and whichever index its std::nth_element
// leaves first.
std::tuple<Tensor, Tensor> Tensor::nanmedian(int64_t dim_, bool keepdim) const {
  EMBER_TRACE_OP();
  const Tensor x = dim() == 0 ? reshape({1}) : *this;
  const int64_t d = wrap_dim(dim_, x.dim(), "nanmedian");
  const int64_t n = x.size(d);
  EMBER_CHECK(n > 0, "nanmedian(): Expected reduction dim {} to have non-zero size (shape {})", d, sizes());
  auto [sorted, order] = sorted_along(x, d, false);
  Tensor pos;
  {
    NoGradGuard no_grad;
    const Tensor valid = n - x.isnan().sum({d}, /*keepdim=*/true);  // NaN sorts last
    pos = (valid - 1).clamp_min(0).div(2, "floor");
  }
  auto [values, indices] = pick_sorted("NanmedianBackward1", x, d, sorted, order, pos, keepdim || dim() == 0);
  if (dim() == 0) return {values.reshape({}), indices.reshape({})};
  return {values, indices};
}

// The lower median of the values that are not NaN; its gradient is spread over the elements equal
// to it, as median()'s.
Tensor Tensor::nanmedian() const {
  EMBER_TRACE_OP();
  EMBER_CHECK(numel() > 0, "nanmedian() input tensor cannot be empty");
  Tensor y;
  {
    NoGradGuard no_grad;
    y = std::get<0>(reshape({-1}).nanmedian(0));
  }
  if (any_requires_grad({this})) {
    record("NanmedianBackward0", y, {*this},
           [sx = SavedVariable(*this, false), value = y.detach()](const Tensor& g) -> tensor_list {
             const Tensor x = sx.unpack("NanmedianBackward0");
             const Tensor hit = (value.isnan().item<bool>() ? x.isnan() : x.eq(value)).to(g.dtype());
             return {g * hit / hit.sum()};
           });
  }
  return y;
}

// The most frequent value along dim (the smallest of equally frequent ones) and the index of its
// last occurrence. PyTorch's CPU kernel finds runs in a sorted copy the same way; its sort is not
// stable, so on rows longer than 16 its index among equal values may be another occurrence.
std::tuple<Tensor, Tensor> Tensor::mode(int64_t dim_, bool keepdim) const {
  EMBER_TRACE_OP();
  const Tensor x = dim() == 0 ? reshape({1}) : *this;
  const int64_t d = wrap_dim(dim_, x.dim(), "mode");
  const int64_t n = x.size(d);
  EMBER_CHECK(n > 0, "mode(): Expected reduction dim {} to have non-zero size (shape {})", d, sizes());
  auto [sorted, order] = sorted_along(x, d, false);
  Tensor pos;
  {
    NoGradGuard no_grad;
    // same[r][k]: sorted element k + 1 equals element k; the rows laid out along the last dim.
    const Tensor rows = sorted.movedim(d, -1).reshape({-1, n});
    const std::vector<uint8_t> same =
        n > 1 ? rows.narrow(1, 1, n - 1).eq(rows.narrow(1, 0, n - 1)).to(kUInt8).to_vector<uint8_t>()
              : std::vector<uint8_t>();
    const int64_t count = rows.size(0);
    std::vector<int64_t> best(static_cast<size_t>(count));
    for (int64_t r = 0; r < count; ++r) {
      int64_t best_freq = 0, run = 0;
      for (int64_t k = 0; k < n; ++k) {
        ++run;
        const bool run_ends = k == n - 1 || !same[static_cast<size_t>(r * (n - 1) + k)];
        if (!run_ends) continue;
        if (run > best_freq) {  // strictly more: the first (smallest) value wins a tie
          best_freq = run;
          best[static_cast<size_t>(r)] = k;  // the run's last element: its largest index (stable sort)
        }
        run = 0;
      }
    }
    std::vector<int64_t> at = sorted.movedim(d, -1).sizes().vec();
    at.back() = 1;
    pos = from_vector(best, at, TensorOptions().dtype(kInt64)).to(device()).movedim(-1, d);
  }
  auto [values, indices] = pick_sorted("ModeBackward0", x, d, sorted, order, pos, keepdim || dim() == 0);
  if (dim() == 0) return {values.reshape({}), indices.reshape({})};
  return {values, indices};
}

// The k-th smallest along dim (k from 1), NaN counting as the largest, and its index.
std::tuple<Tensor, Tensor> Tensor::kthvalue(int64_t k, int64_t dim_, bool keepdim) const {
  EMBER_TRACE_OP();
  const Tensor x = dim() == 0 ? reshape({1}) : *this;
  const int64_t d = wrap_dim(dim_, x.dim(), "kthvalue");
  EMBER_CHECK(k >= 1 && k <= x.size(d), "kthvalue(): selected number k out of range for dimension {} (k = {}, size {})",
              d, k, x.size(d));
  auto [sorted, order] = sorted_along(x, d, false);
  std::vector<int64_t> at = x.sizes().vec();
  at[d] = 1;
  const Tensor pos = full(at, k - 1, TensorOptions().dtype(kInt64).device(device()));
  auto [values, indices] = pick_sorted("KthvalueBackward0", x, d, sorted, order, pos, keepdim || dim() == 0);
  if (dim() == 0) return {values.reshape({}), indices.reshape({})};
  return {values, indices};
}

Tensor Tensor::cumsum(int64_t dim_, std::optional<ScalarType> dtype) const {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::cumsum, {*this}, !dtype}) return cast[0].cumsum(dim_);
  const int64_t d = wrap_dim(dim_, dim(), "cumsum");
  Tensor y = scan(*this, d, scan_dtype(*this, dtype), false);
  if (any_requires_grad({this}))
    record("CumsumBackward0", y, {*this},
           [d, src = this->dtype()](const Tensor& g) -> tensor_list { return {reversed_cumsum(g, d).to(src)}; });
  return y;
}

Tensor Tensor::cumprod(int64_t dim_, std::optional<ScalarType> dtype) const {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::cumprod, {*this}, !dtype}) return cast[0].cumprod(dim_);
  const int64_t d = wrap_dim(dim_, dim(), "cumprod");
  const ScalarType dt = scan_dtype(*this, dtype);
  Tensor y = scan(*this, d, dt, true);
  if (any_requires_grad({this}))
    record("CumprodBackward0", y, {*this},
           [saved = SavedVariable(to(dt), false), d, src = this->dtype()](const Tensor& g) -> tensor_list {
             const Tensor x = saved.unpack("CumprodBackward0");
             const Tensor zero = x.eq(0);
             if (GradMode::is_enabled() && zero.any().item<bool>())
               return {cumprod_backward_differentiable(x, g, d).to(src)};
             const Tensor y = x.cumprod(d);  // computed again, not saved: the node keeps no handle to its output
             const Tensor zeros_so_far = zero.cumsum(d);  // int64: how many zeros up to and including k
             const Tensor before = zeros_so_far.eq(0), first_zero = zero.logical_and(zeros_so_far.eq(1));
             const Tensor safe_x = x.masked_fill(zero, 1);
             const Tensor dx_before = reversed_cumsum(g * y, d) / safe_x;
             const Tensor dx_first = reversed_cumsum(g * x.masked_fill(first_zero, 1).cumprod(d), d);
             return {ember::where(before, dx_before, ember::where(first_zero, dx_first, zeros_like(x))).to(src)};
           });
  return y;
}

Tensor logcumsumexp(const Tensor& self, int64_t dim) {
  EMBER_TRACE_OP();
  const int64_t d = wrap_dim(dim, self.dim(), "logcumsumexp");
  EMBER_CHECK(is_floating_point(self.dtype()), "logcumsumexp: \"logcumsumexp_out_{}\" not implemented for '{}'",
              self.device().is_cuda() ? "cuda" : "cpu", scalar_type_name(self.dtype()));
  // bfloat16 and float16 run through float32, rounded once at the end.
  const ScalarType run = is_reduced_floating_point(self.dtype()) ? kFloat32 : self.dtype();
  Tensor y;
  {
    NoGradGuard no_grad;
    y = along_last_dim(kernel::cast(self, run), d, {run},
                       [](const tensor_list& o, const Tensor& in) { backend_for(in).logcumsumexp(o[0], in); })[0]
            .to(self.dtype());
  }
  if (any_requires_grad({&self}))
    record("LogcumsumexpBackward0", y, {self},
           [saved = SavedVariable(self.to(run), false), d, src = self.dtype()](const Tensor& g_in) -> tensor_list {
             const Tensor x = saved.unpack("LogcumsumexpBackward0");
             if (x.dim() == 0 || x.numel() == 0) return {g_in};
             const Tensor g = g_in.to(x.dtype());
             const Tensor y = logcumsumexp(x, d);  // computed again: the node keeps no handle to its output
             const auto reversed = [d](const Tensor& t) { return logcumsumexp(t.flip({d}), d).flip({d}); };
             // log|g| where g has the part's sign, else the dtype's lowest value (exp of it is 0)
             const double lowest = x.dtype() == kFloat64 ? std::numeric_limits<double>::lowest()
                                                         : static_cast<double>(std::numeric_limits<float>::lowest());
             const Tensor log_abs_g = g.abs().log();
             const Tensor log_pos = log_abs_g.masked_fill(g.le(0), lowest),
                          log_neg = log_abs_g.masked_fill(g.ge(0), lowest);
             return {((reversed(log_pos - y) + x).exp() - (reversed(log_neg - y) + x).exp()).to(src)};
           });
  return y;
}

namespace {
Tensor& scan_in_place(Tensor& self, const char* op, const Tensor& result) {
  autograd::check_inplace(self, op);
  kernel::check_no_overlap(op, self);
  autograd::commit_inplace(self, result.to(self.dtype()));
  return self;
}
}  // namespace

Tensor& Tensor::cumsum_(int64_t dim, std::optional<ScalarType> dtype) {
  EMBER_TRACE_OP();
  return scan_in_place(*this, "cumsum_", (any_requires_grad({this}) ? clone() : detach()).cumsum(dim, dtype));
}
Tensor& Tensor::cumprod_(int64_t dim, std::optional<ScalarType> dtype) {
  EMBER_TRACE_OP();
  return scan_in_place(*this, "cumprod_", (any_requires_grad({this}) ? clone() : detach()).cumprod(dim, dtype));
}

// ---- unique ----

namespace {

// The distinct runs of a flattened, run-ordered `values` (n > 0): for each element, whether it
// starts a run, and its run's number.
std::tuple<Tensor, Tensor> runs_of(const Tensor& values) {
  const int64_t n = values.numel();
  Tensor starts = cat({ones({1}, TensorOptions().dtype(kBool).device(values.device())),
                       values.narrow(0, 1, n - 1).ne(values.narrow(0, 0, n - 1))});
  return {starts, starts.cumsum(0) - 1};
}

Tensor run_counts(const Tensor& run, int64_t runs) {
  return zeros({runs}, run.options()).scatter_add(0, run, ones_like(run));
}

std::tuple<Tensor, Tensor, Tensor> nothing_unique(const Tensor& x, bool return_inverse) {
  const TensorOptions index = TensorOptions().dtype(kInt64).device(x.device());
  return {empty({0}, x.options()), return_inverse ? zeros(x.sizes(), index) : empty({0}, index), empty({0}, index)};
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> unique(const Tensor& x, bool /*sorted*/, bool return_inverse, bool return_counts) {
  EMBER_TRACE_OP();
  NoGradGuard no_grad;  // as in libtorch, unique has no derivative
  if (x.numel() == 0) return nothing_unique(x, return_inverse);
  auto [values, order] = x.reshape({-1}).sort(0);
  auto [starts, run] = runs_of(values);
  Tensor distinct = values.index({starts});
  const TensorOptions index = TensorOptions().dtype(kInt64).device(x.device());
  Tensor inverse =
      return_inverse ? zeros({x.numel()}, index).scatter_add(0, order, run).view(x.sizes()) : empty({0}, index);
  Tensor counts = return_counts ? run_counts(run, distinct.numel()) : empty({0}, index);
  return {distinct, inverse, counts};
}

std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& x, bool return_inverse, bool return_counts,
                                                      std::optional<int64_t> dim) {
  EMBER_TRACE_OP();
  EMBER_CHECK(!dim.has_value(), "unique_consecutive: a `dim` is not supported by Ember yet (got dim {})", *dim);
  NoGradGuard no_grad;
  if (x.numel() == 0) return nothing_unique(x, return_inverse);
  Tensor flat = x.reshape({-1});
  auto [starts, run] = runs_of(flat);
  Tensor distinct = flat.index({starts});
  const TensorOptions index = TensorOptions().dtype(kInt64).device(x.device());
  Tensor inverse = return_inverse ? run.view(x.sizes()) : empty({0}, index);
  Tensor counts = return_counts ? run_counts(run, distinct.numel()) : empty({0}, index);
  return {distinct, inverse, counts};
}

}  // namespace ember
