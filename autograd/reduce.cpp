// Reductions and their backward formulas: sum, mean, var/std, max/min, logsumexp, norm, all/any, prod,
// nansum/nanmean and count_nonzero.
//
// A reduction's gradient is the output gradient broadcast back over the reduced dims (unsqueezed
// there first when keepdim was false), times the local derivative.
#include <algorithm>
#include <cmath>

#include "autograd/autocast.h"
#include "autograd/autograd.h"
#include "autograd/fused.h"
#include "core/kernel.h"
#include "core/trace.h"

namespace ember {

using autograd::any_requires_grad;
using autograd::record;
using autograd::SavedVariable;

namespace {

// g (reduced shape) -> broadcastable against the input: re-insert the reduced dims as size 1.
Tensor unsqueeze_reduced(const Tensor& g, IntArrayRef in_sizes, const std::vector<int64_t>& dims, bool keepdim) {
  if (keepdim || in_sizes.empty()) return g;
  std::vector<int64_t> sz = in_sizes.vec();
  for (int64_t d : dims) sz[d] = 1;
  return g.reshape(sz);
}

// A bool input is widened to the sum's dtype (int64) this many elements at a time, so a
// 128 MiB mask costs 32 MiB of int64 rather than a 1 GiB copy.
constexpr int64_t kSumSlabElements = int64_t(1) << 22;

// sum(x.to(dt), dims, keepdim=true), casting one slab of x along its longest dim at a time: the
// slab's sum is added into the whole output when that dim is summed, else into the output's slab.
Tensor sum_widened_in_slabs(const Tensor& x, ScalarType dt, const std::vector<int64_t>& dims) {
  const int64_t c = std::max_element(x.sizes().begin(), x.sizes().end()) - x.sizes().begin();
  const int64_t len = x.size(c), per_index = x.numel() / len;
  const int64_t step = std::max<int64_t>(1, kSumSlabElements / per_index);
  const bool summed = std::find(dims.begin(), dims.end(), c) != dims.end();
  std::vector<int64_t> out_sizes = x.sizes().vec();
  for (int64_t d : dims) out_sizes[d] = 1;
  Tensor out = zeros(out_sizes, x.options().dtype(dt));
  for (int64_t start = 0; start < len; start += step) {
    const int64_t n = std::min(step, len - start);
    Tensor part = kernel::reduce(ReduceOp::Sum, kernel::cast(x.narrow(c, start, n), dt), dims, /*keepdim=*/true);
    kernel::binary_(BinaryOp::Add, summed ? out : out.narrow(c, start, n), part);
  }
  return out;
}

int64_t count_over(IntArrayRef sizes, const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= sizes[d];
  return n;
}

}  // namespace

// d sum = g broadcast back
Tensor Tensor::sum(IntArrayRef dims_in, bool keepdim, std::optional<ScalarType> dtype_) const {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::sum, {*this}, !dtype_}) return cast[0].sum(dims_in, keepdim);
  // Integers and bools sum as int64, as in PyTorch.
  ScalarType dt = dtype_.value_or(is_floating_point() ? dtype() : kInt64);
  std::vector<int64_t> dims = wrap_dims(dims_in, dim(), "sum");
  Tensor y;
  if (!is_floating_point() && !ember::is_floating_point(dt) && element_size() < ember::element_size(dt) &&
      numel() > kSumSlabElements) {
    y = sum_widened_in_slabs(*this, dt, dims);
    if (!keepdim) y = y.squeeze_dims(dims);
  } else {
    y = kernel::reduce(ReduceOp::Sum, kernel::cast(*this, dt), dims, keepdim);
  }
  if (any_requires_grad({this})) {
    record(dims_in.empty() ? "SumBackward0" : "SumBackward1", y, {*this},
           [in = sizes().vec(), dims, keepdim, src = dtype()](const Tensor& g) -> tensor_list {
             return {unsqueeze_reduced(g, in, dims, keepdim).expand(in).to(src)};
           });
  }
  return y;
}
Tensor Tensor::sum(std::optional<ScalarType> dtype_) const { return sum(IntArrayRef{}, false, dtype_); }

Tensor Tensor::mean(IntArrayRef dims_in, bool keepdim, std::optional<ScalarType> dtype_) const {
  EMBER_TRACE_OP();
  ScalarType dt = dtype_.value_or(dtype());
  EMBER_CHECK(ember::is_floating_point(dt),
              "mean: could not infer output dtype. Input dtype must be either a floating point "
              "or complex dtype. Got: {}",
              dtype_name(dt));
  std::vector<int64_t> dims = wrap_dims(dims_in, dim(), "mean");
  const double n = static_cast<double>(count_over(sizes(), dims));
  Tensor y;
  {
    NoGradGuard no_grad;
    y = sum(dims_in, keepdim, dt).div_(n);
  }
  // d mean = g / n broadcast back
  if (any_requires_grad({this})) {
    record(dims_in.empty() ? "MeanBackward0" : "MeanBackward1", y, {*this},
           [in = sizes().vec(), dims, keepdim, n, src = dtype()](const Tensor& g) -> tensor_list {
             return {(unsqueeze_reduced(g, in, dims, keepdim) / n).expand(in).to(src)};
           });
  }
  return y;
}
Tensor Tensor::mean(std::optional<ScalarType> dtype_) const { return mean(IntArrayRef{}, false, dtype_); }

// var = sum((x - mean)^2) / (n - correction), composed so its gradient comes for free.
Tensor Tensor::var(IntArrayRef dims_in, bool unbiased, bool keepdim) const {
  EMBER_TRACE_OP();
  std::vector<int64_t> dims = wrap_dims(dims_in, dim(), "var");
  const int64_t n = count_over(sizes(), dims);
  Tensor centered = *this - mean(dims_in, true);
  return centered.square().sum(dims_in, keepdim) / static_cast<double>(std::max<int64_t>(n - (unbiased ? 1 : 0), 0));
}
Tensor Tensor::var(bool unbiased) const { return var(IntArrayRef{}, unbiased, false); }
Tensor Tensor::std(IntArrayRef dims, bool unbiased, bool keepdim) const { return var(dims, unbiased, keepdim).sqrt(); }

std::tuple<Tensor, Tensor> var_mean(const Tensor& x, IntArrayRef dims, bool unbiased, bool keepdim) {
  return {x.var(dims, unbiased, keepdim), x.mean(dims, keepdim)};
}
std::tuple<Tensor, Tensor> var_mean(const Tensor& x, bool unbiased) { return var_mean(x, {}, unbiased, false); }
std::tuple<Tensor, Tensor> std_mean(const Tensor& x, IntArrayRef dims, bool unbiased, bool keepdim) {
  return {x.std(dims, unbiased, keepdim), x.mean(dims, keepdim)};
}
std::tuple<Tensor, Tensor> std_mean(const Tensor& x, bool unbiased) { return std_mean(x, {}, unbiased, false); }
Tensor Tensor::std(bool unbiased) const { return var(unbiased).sqrt(); }

// d amax = g spread evenly over the positions that hold the max
static Tensor amax_amin(const Tensor& x, IntArrayRef dims_in, bool keepdim, bool is_max) {
  std::vector<int64_t> dims = wrap_dims(dims_in, x.dim(), is_max ? "amax" : "amin");
  Tensor y = kernel::reduce(is_max ? ReduceOp::Max : ReduceOp::Min, x, dims, keepdim);
  if (any_requires_grad({&x}))
    autograd::record_fused(is_max ? "AmaxBackward0" : "AminBackward0", y, {x}, {x}, autograd::SaveOutput::kYes,
                           {.composed = [dims, keepdim](const Tensor& g, const tensor_list& saved) -> tensor_list {
                             const Tensor &in = saved[0], &out = saved[1];
                             Tensor hit = in.eq(unsqueeze_reduced(out, in.sizes(), dims, keepdim)).to(g.dtype());
                             Tensor count = hit.sum(dims, true);
                             return {unsqueeze_reduced(g, in.sizes(), dims, keepdim) * hit / count};
                           }});
  return y;
}
Tensor Tensor::amax(IntArrayRef dims, bool keepdim) const { return amax_amin(*this, dims, keepdim, true); }
Tensor Tensor::amin(IntArrayRef dims, bool keepdim) const { return amax_amin(*this, dims, keepdim, false); }
Tensor Tensor::max() const {
  EMBER_TRACE_OP();
  EMBER_CHECK(numel() > 0, "max: expected a non-empty tensor (operation has no identity), got shape {}", sizes());
  return amax({}, false);
}
Tensor Tensor::min() const {
  EMBER_TRACE_OP();
  EMBER_CHECK(numel() > 0, "min: expected a non-empty tensor (operation has no identity), got shape {}", sizes());
  return amin({}, false);
}

// d max(dim) = g placed at the index of the max
static std::tuple<Tensor, Tensor> max_min_dim(const Tensor& x, int64_t dim_, bool keepdim, bool is_max) {
  const char* op = is_max ? "max" : "min";
  int64_t d = wrap_dim(dim_, x.dim(), op);
  Tensor src = x.dim() == 0 ? x.reshape({1}) : x;
  EMBER_CHECK(src.sizes()[d] > 0, "{}: cannot compute over dimension {} of size 0 (shape {})", op, d, x.sizes());
  std::vector<int64_t> ks = src.sizes().vec();
  ks[d] = 1;
  Tensor values = raw_empty(ks, x.dtype(), x.device());
  Tensor indices = raw_empty(ks, kInt64, x.device());
  backend_for(x).arg_reduce(is_max, values, indices, src, d);
  if (!keepdim || x.dim() == 0) {
    std::vector<int64_t> sz = x.sizes().vec();
    if (x.dim() > 0) sz.erase(sz.begin() + d);
    values = raw_view(values, sz, contiguous_strides(sz), 0);
    indices = raw_view(indices, sz, contiguous_strides(sz), 0);
  }
  if (any_requires_grad({&x})) {
    record(is_max ? "MaxBackward0" : "MinBackward0", values, {x},
           [in = x.sizes().vec(), idx = indices, d, keepdim](const Tensor& g) -> tensor_list {
             if (in.empty()) return {g.reshape(in)};
             Tensor gi = keepdim ? g : g.unsqueeze(d);
             Tensor ii = keepdim ? idx : idx.unsqueeze(d);
             return {zeros(in, g.options()).scatter_add(d, ii, gi)};
           });
  }
  return {values, indices};
}
std::tuple<Tensor, Tensor> Tensor::max(int64_t dim, bool keepdim) const {
  EMBER_TRACE_OP();
  return max_min_dim(*this, dim, keepdim, true);
}
std::tuple<Tensor, Tensor> Tensor::min(int64_t dim, bool keepdim) const {
  EMBER_TRACE_OP();
  return max_min_dim(*this, dim, keepdim, false);
}

Tensor Tensor::argmax(std::optional<int64_t> dim, bool keepdim) const {
  EMBER_TRACE_OP();
  NoGradGuard no_grad;
  if (!dim) return std::get<1>(reshape({-1}).max(0, false));
  return std::get<1>(max(*dim, keepdim));
}
Tensor Tensor::argmin(std::optional<int64_t> dim, bool keepdim) const {
  EMBER_TRACE_OP();
  NoGradGuard no_grad;
  if (!dim) return std::get<1>(reshape({-1}).min(0, false));
  return std::get<1>(min(*dim, keepdim));
}

// logsumexp = m + log(sum(exp(x - m))) with m the (detached) max, so large inputs don't overflow.
// Its gradient, softmax(x), comes from the composition.
Tensor Tensor::logsumexp(IntArrayRef dims_in, bool keepdim) const {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::logsumexp, {*this}}) return cast[0].logsumexp(dims_in, keepdim);
  Tensor x = is_floating_point() ? *this : to(get_default_dtype());
  std::vector<int64_t> dims = wrap_dims(dims_in, dim(), "logsumexp");
  Tensor m = x.detach().amax(dims, true);
  m = ember::where(m.abs().eq(INFINITY), zeros_like(m), m);
  Tensor r = (x - m).exp().sum(dims, true).log() + m;
  return keepdim ? r : r.squeeze_dims(dims);
}

Tensor Tensor::norm(const Scalar& p) const { return norm(p, {}, false); }

// The 2-norm records its own backward, d/dx ||x|| = x / ||x||, taken as 0 where the norm is 0
// (as PyTorch does; the composition would give NaN there). Other p are compositions.
Tensor Tensor::norm(const std::optional<Scalar>& p_opt, IntArrayRef dims_in, bool keepdim) const {
  EMBER_TRACE_OP();
  EMBER_CHECK(is_floating_point(), "norm(): input dtype should be either floating point or complex. Got {} instead.",
              scalar_type_name(dtype()));
  const double p = p_opt ? p_opt->toDouble() : 2.0;
  std::vector<int64_t> dims = wrap_dims(dims_in, dim(), "norm");
  if (p == 2.0) {
    Tensor y;
    {
      NoGradGuard no_grad;
      y = square().sum(dims, keepdim).sqrt();
    }
    if (any_requires_grad({this}))
      record("NormBackward1", y, {*this},
             [sx = SavedVariable(*this, false), sy = SavedVariable(y, true), dims,
              keepdim](const Tensor& g) -> tensor_list {
               Tensor x = sx.unpack("NormBackward1"), norm = sy.unpack("NormBackward1");
               Tensor scale = (g / norm).masked_fill(norm.eq(0), 0);
               return {x * unsqueeze_reduced(scale, x.sizes(), dims, keepdim)};
             });
    return y;
  }
  Tensor a = abs();
  if (p == 1.0) return a.sum(dims, keepdim);
  if (std::isinf(p)) {
    EMBER_CHECK(numel() > 0, "norm: expected a non-empty tensor for p = {}, got shape {}", p, sizes());
    return p > 0 ? a.amax(dims, keepdim) : a.amin(dims, keepdim);
  }
  if (p == 0.0) return a.ne(0).to(dtype()).sum(dims, keepdim);
  return a.pow(p).sum(dims, keepdim).pow(1.0 / p);
}

Tensor Tensor::all() const { return kernel::reduce(ReduceOp::All, *this, {}, false); }
Tensor Tensor::any() const { return kernel::reduce(ReduceOp::Any, *this, {}, false); }
Tensor Tensor::all(int64_t dim, bool keepdim) const {
  EMBER_TRACE_OP();
  return kernel::reduce(ReduceOp::All, *this, wrap_dims({dim}, this->dim(), "all"), keepdim);
}
Tensor Tensor::any(int64_t dim, bool keepdim) const {
  EMBER_TRACE_OP();
  return kernel::reduce(ReduceOp::Any, *this, wrap_dims({dim}, this->dim(), "any"), keepdim);
}

// Removes the (size-1) dims listed, highest first.
Tensor Tensor::squeeze_dims(IntArrayRef dims) const {
  EMBER_TRACE_OP();
  std::vector<int64_t> ds = wrap_dims(dims, dim(), "squeeze");
  Tensor r = *this;
  for (auto it = ds.rbegin(); it != ds.rend(); ++it) r = r.squeeze(*it);
  return r;
}

Tensor sum(const Tensor& x) { return x.sum(); }
Tensor mean(const Tensor& x) { return x.mean(); }

// close = a == b, or |a - b| finite and <= atol + |rtol b| (PyTorch's isclose); NaN == NaN with equal_nan.
Tensor Tensor::isclose(const Tensor& other, double rtol, double atol, bool equal_nan) const {
  EMBER_TRACE_OP();
  EMBER_CHECK(dtype() == other.dtype(), "isclose: {} did not match {}", scalar_type_name(dtype()),
              scalar_type_name(other.dtype()));
  EMBER_CHECK(rtol >= 0, "isclose: rtol must be greater than or equal to zero, but got {}", rtol);
  EMBER_CHECK(atol >= 0, "isclose: atol must be greater than or equal to zero, but got {}", atol);
  NoGradGuard no_grad;
  Tensor close = eq(other);
  if (equal_nan && is_floating_point()) close = close.logical_or(ne(*this).logical_and(other.ne(other)));
  // Bools compare as the default floating dtype; integers keep their dtype (rtol * b promotes).
  const Tensor a = dtype() == kBool ? to(get_default_dtype()) : *this;
  const Tensor b = dtype() == kBool ? other.to(get_default_dtype()) : other;
  Tensor allowed = (b * rtol).abs() + atol;
  Tensor actual = (a - b).abs();
  Tensor within = actual.le(allowed);
  if (actual.is_floating_point()) within = within.logical_and(actual.lt(INFINITY));  // NaN and inf are never within
  return close.logical_or(within);
}

bool Tensor::allclose(const Tensor& other, double rtol, double atol, bool equal_nan) const {
  return isclose(other, rtol, atol, equal_nan).all().item<bool>();
}
bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  return a.allclose(b, rtol, atol, equal_nan);
}
Tensor isclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  EMBER_TRACE_OP();
  return a.isclose(b, rtol, atol, equal_nan);
}

bool equal(const Tensor& a, const Tensor& b) {
  NoGradGuard no_grad;
  return a.sizes() == b.sizes() && a.eq(b).all().item<bool>();
}

bool Tensor::equal(const Tensor& other) const { return ember::equal(*this, other); }

// ---- prod, and sums that skip NaN ----

namespace {

// d prod / d x_i = the product of the other elements along `d`. Where no element is 0 that is
// y / x_i (PyTorch's formula); with zeros, the exclusive prefix and suffix products, which are exact.
// y is recomputed from x, so that both forms are differentiable again (create_graph).
Tensor prod_backward(const Tensor& g, const Tensor& x, int64_t d) {
  const int64_t n = x.size(d);
  if (n == 0) return zeros_like(x);
  bool has_zero = false;
  {
    NoGradGuard no_grad;
    has_zero = x.eq(0).any().item<bool>();
  }
  if (!has_zero) return g * (x.prod(d, /*keepdim=*/true) / x);
  const Tensor one = ones_like(x.narrow(d, 0, 1));
  const Tensor before = cat({one, x.narrow(d, 0, n - 1)}, d).cumprod(d);
  const Tensor after = cat({x.narrow(d, 1, n - 1), one}, d).flip({d}).cumprod(d).flip({d});
  return g * before * after;
}

}  // namespace

Tensor Tensor::prod(int64_t dim_, bool keepdim, std::optional<ScalarType> dtype_) const {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::prod, {*this}, !dtype_}) return cast[0].prod(dim_, keepdim);
  const ScalarType dt = dtype_.value_or(is_floating_point() ? dtype() : kInt64);  // integers as int64
  const int64_t d = wrap_dim(dim_, std::max<int64_t>(dim(), 1), "prod");
  const Tensor x = dim() == 0 ? reshape({1}) : *this;
  Tensor y = kernel::reduce(ReduceOp::Prod, kernel::cast(x, dt), {d}, keepdim && dim() > 0);
  if (dim() == 0) y = y.reshape({});
  if (any_requires_grad({this})) {
    record("ProdBackward1", y, {*this}, [sx = SavedVariable(*this, false), d, keepdim](const Tensor& g) -> tensor_list {
      const Tensor in = sx.unpack("ProdBackward1");
      if (in.dim() == 0) return {g};
      const Tensor gk = keepdim ? g : g.unsqueeze(d);
      return {prod_backward(gk, in, d).to(in.dtype())};
    });
  }
  return y;
}
Tensor Tensor::prod(std::optional<ScalarType> dtype_) const {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::prod, {*this}, !dtype_}) return cast[0].prod();
  const ScalarType dt = dtype_.value_or(is_floating_point() ? dtype() : kInt64);
  Tensor y = kernel::reduce(ReduceOp::Prod, kernel::cast(*this, dt), {}, false);
  if (any_requires_grad({this})) {
    record("ProdBackward0", y, {*this}, [sx = SavedVariable(*this, false)](const Tensor& g) -> tensor_list {
      const Tensor in = sx.unpack("ProdBackward0");
      return {prod_backward(g.reshape({1}), in.reshape({-1}), 0).reshape(in.sizes()).to(in.dtype())};
    });
  }
  return y;
}

// composed: NaN counts as 0 (nansum) or is left out of the count (nanmean); the gradient is g where
// the element is a number and 0 where it is NaN.
Tensor Tensor::nansum(IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype_) const {
  EMBER_TRACE_OP();
  if (!is_floating_point()) return sum(dims, keepdim, dtype_);
  return ember::where(isnan(), zeros({}, options()), *this).sum(dims, keepdim, dtype_);
}
Tensor Tensor::nansum(std::optional<ScalarType> dtype_) const { return nansum({}, false, dtype_); }
Tensor Tensor::nanmean(IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype_) const {
  EMBER_TRACE_OP();
  EMBER_CHECK(is_floating_point(), "nanmean(): expected input to have floating point dtype but got {}",
              scalar_type_name(dtype()));
  const Tensor count = isnan().logical_not().sum(dims, keepdim);
  return nansum(dims, keepdim, dtype_) / count;
}
Tensor Tensor::nanmean(std::optional<ScalarType> dtype_) const { return nanmean({}, false, dtype_); }

// The number of non-zero elements, as int64.
Tensor Tensor::count_nonzero(IntArrayRef dims) const {
  EMBER_TRACE_OP();
  NoGradGuard no_grad;
  return ne(0).sum(dims);
}
Tensor Tensor::count_nonzero(std::optional<int64_t> dim) const {
  return dim ? count_nonzero(IntArrayRef{*dim}) : count_nonzero(IntArrayRef{});
}

}  // namespace ember
