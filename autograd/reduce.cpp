// Reductions and their backward formulas: sum, mean, var/std, max/min, logsumexp, norm, all/any.
//
// A reduction's gradient is the output gradient broadcast back over the reduced dims (unsqueezed
// there first when keepdim was false), times the local derivative.
#include <cmath>

#include "autograd/autograd.h"
#include "autograd/fused.h"
#include "core/kernel.h"

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

int64_t count_over(IntArrayRef sizes, const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= sizes[d];
  return n;
}

}  // namespace

// d sum = g broadcast back
Tensor Tensor::sum(IntArrayRef dims_in, bool keepdim, std::optional<ScalarType> dtype_) const {
  // Integers and bools sum as int64, as in PyTorch.
  ScalarType dt = dtype_.value_or(is_floating_point() ? dtype() : kInt64);
  Tensor x = kernel::cast(*this, dt);
  std::vector<int64_t> dims = wrap_dims(dims_in, dim(), "sum");
  Tensor y = kernel::reduce(ReduceOp::Sum, x, dims, keepdim);
  if (any_requires_grad({this})) {
    record(dims_in.empty() ? "SumBackward0" : "SumBackward1", y, {*this}, [in = sizes().vec(), dims, keepdim, src = dtype()](const Tensor& g) -> tensor_list {
      return {unsqueeze_reduced(g, in, dims, keepdim).expand(in).to(src)};
    });
  }
  return y;
}
Tensor Tensor::sum(std::optional<ScalarType> dtype_) const { return sum(IntArrayRef{}, false, dtype_); }

Tensor Tensor::mean(IntArrayRef dims_in, bool keepdim, std::optional<ScalarType> dtype_) const {
  ScalarType dt = dtype_.value_or(dtype());
  EMBER_CHECK(ember::is_floating_point(dt), "mean: could not infer output dtype. Input dtype must be either a floating point "
              "or complex dtype. Got: {}", dtype_name(dt));
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
  std::vector<int64_t> dims = wrap_dims(dims_in, dim(), "var");
  const int64_t n = count_over(sizes(), dims);
  Tensor centered = *this - mean(dims_in, true);
  return centered.square().sum(dims_in, keepdim) / static_cast<double>(std::max<int64_t>(n - (unbiased ? 1 : 0), 0));
}
Tensor Tensor::var(bool unbiased) const { return var(IntArrayRef{}, unbiased, false); }
Tensor Tensor::std(IntArrayRef dims, bool unbiased, bool keepdim) const { return var(dims, unbiased, keepdim).sqrt(); }
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
  EMBER_CHECK(numel() > 0, "max: expected a non-empty tensor (operation has no identity), got shape {}", sizes());
  return amax({}, false);
}
Tensor Tensor::min() const {
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
std::tuple<Tensor, Tensor> Tensor::max(int64_t dim, bool keepdim) const { return max_min_dim(*this, dim, keepdim, true); }
std::tuple<Tensor, Tensor> Tensor::min(int64_t dim, bool keepdim) const { return max_min_dim(*this, dim, keepdim, false); }

Tensor Tensor::argmax(std::optional<int64_t> dim, bool keepdim) const {
  NoGradGuard no_grad;
  if (!dim) return std::get<1>(reshape({-1}).max(0, false));
  return std::get<1>(max(*dim, keepdim));
}
Tensor Tensor::argmin(std::optional<int64_t> dim, bool keepdim) const {
  NoGradGuard no_grad;
  if (!dim) return std::get<1>(reshape({-1}).min(0, false));
  return std::get<1>(min(*dim, keepdim));
}

// logsumexp = m + log(sum(exp(x - m))) with m the (detached) max, so large inputs don't overflow.
// Its gradient, softmax(x), comes from the composition.
Tensor Tensor::logsumexp(IntArrayRef dims_in, bool keepdim) const {
  Tensor x = is_floating_point() ? *this : to(kFloat32);
  std::vector<int64_t> dims = wrap_dims(dims_in, dim(), "logsumexp");
  Tensor m = x.detach().amax(dims, true);
  m = ember::where(m.abs().eq(INFINITY), zeros_like(m), m);
  Tensor r = (x - m).exp().sum(dims, true).log() + m;
  return keepdim ? r : r.squeeze_dims(dims);
}

Tensor Tensor::norm(const Scalar& p) const {
  const double pv = p.toDouble();
  if (pv == 2.0) return square().sum().sqrt();
  if (pv == 1.0) return abs().sum();
  if (std::isinf(pv)) return pv > 0 ? abs().max() : abs().min();
  return abs().pow(pv).sum().pow(1.0 / pv);
}

Tensor Tensor::all() const { return kernel::reduce(ReduceOp::All, *this, {}, false); }
Tensor Tensor::any() const { return kernel::reduce(ReduceOp::Any, *this, {}, false); }
Tensor Tensor::all(int64_t dim, bool keepdim) const {
  return kernel::reduce(ReduceOp::All, *this, wrap_dims({dim}, this->dim(), "all"), keepdim);
}
Tensor Tensor::any(int64_t dim, bool keepdim) const {
  return kernel::reduce(ReduceOp::Any, *this, wrap_dims({dim}, this->dim(), "any"), keepdim);
}

// Removes the (size-1) dims listed, highest first.
Tensor Tensor::squeeze_dims(IntArrayRef dims) const {
  std::vector<int64_t> ds = wrap_dims(dims, dim(), "squeeze");
  Tensor r = *this;
  for (auto it = ds.rbegin(); it != ds.rend(); ++it) r = r.squeeze(*it);
  return r;
}

Tensor sum(const Tensor& x) { return x.sum(); }
Tensor mean(const Tensor& x) { return x.mean(); }

bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol) {
  NoGradGuard no_grad;
  Tensor x = a.to(kFloat64), y = b.to(kFloat64);
  return (x - y).abs().le(y.abs() * rtol + atol).all().item<bool>();
}

bool equal(const Tensor& a, const Tensor& b) {
  NoGradGuard no_grad;
  return a.sizes() == b.sizes() && a.eq(b).all().item<bool>();
}

bool Tensor::equal(const Tensor& other) const { return ember::equal(*this, other); }

}  // namespace ember
