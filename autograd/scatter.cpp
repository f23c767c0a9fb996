// The scatter family: gather, scatter (with a value, a reduce), scatter_add, scatter_reduce,
// index_add / index_copy / index_fill, masked_scatter and put, with their in-place forms.
//
// gather, scatter_add and index_add have kernels (core/backend_kernels.h). The others address
// self's elements the same way and write through the kernels already there: each element of
// `index` names one flat (row-major) position of self, and the values go there with index_put_
// (which writes, last write winning, or adds). prod, amax and amin combine in rounds, each round
// taking at most one value per position, in the order the values come (PyTorch's CPU order).
// Every index is range-checked here, once, for every device (kernel::check_index).
#include <unordered_map>

#include "autograd/aten_functions.h"
#include "autograd/autograd.h"
#include "autograd/elementwise.h"
#include "core/kernel.h"
#include "core/shape.h"
#include "core/trace.h"

namespace ember {

using autograd::any_requires_grad;
using autograd::record;
using autograd::elementwise::inplace_unary;
using kernel::check_index;

namespace {

enum class Reduce { Sum, Prod, Mean, Amax, Amin };

Reduce parse_reduce(std::string_view name, const char* op) {
  if (name == "sum") return Reduce::Sum;
  if (name == "prod") return Reduce::Prod;
  if (name == "mean") return Reduce::Mean;
  if (name == "amax") return Reduce::Amax;
  if (name == "amin") return Reduce::Amin;
  EMBER_FAIL("{}: reduce argument must be one of sum, prod, mean, amax or amin, got {}", op, name);
}

// scatter's older spelling of the reduction: "add" or "multiply".
Reduce parse_scatter_reduce(std::string_view name) {
  if (name == "add") return Reduce::Sum;
  if (name == "multiply") return Reduce::Prod;
  EMBER_FAIL("scatter: reduce argument must be either add or multiply, got {}", name);
}

TensorOptions longs_on(const Tensor& t) { return TensorOptions().dtype(kInt64).device(t.device()); }

// PyTorch's scatter_shape_check: index has self's rank and, dim by dim, is no larger than src and
// (apart from dim) than self. src is undefined for the value forms.
void check_scatter_shapes(const char* op, const Tensor& self, int64_t d, const Tensor& index, const Tensor& src) {
  EMBER_CHECK(index.dim() == self.dim(),
              "{}: index tensor must have the same number of dimensions as self tensor (got index {} and self {})", op,
              index.sizes(), self.sizes());
  if (src.defined())
    EMBER_CHECK(src.dim() == self.dim(),
                "{}: index tensor must have the same number of dimensions as src tensor (got index {} and src {})",
                op, index.sizes(), src.sizes());
  for (int64_t k = 0; k < self.dim(); ++k) {
    const bool fits = (k == d || index.size(k) <= self.size(k)) && (!src.defined() || index.size(k) <= src.size(k));
    if (src.defined())
      EMBER_CHECK(fits,
                  "{}: expected index {} to be no larger than self {} apart from dimension {} and no larger than "
                  "src {}",
                  op, index.sizes(), self.sizes(), d, src.sizes());
    else
      EMBER_CHECK(fits, "{}: expected index {} to be no larger than self {} apart from dimension {}", op,
                  index.sizes(), self.sizes(), d);
  }
}

void check_same_dtype(const char* op, const Tensor& self, const Tensor& src, const char* src_name) {
  EMBER_CHECK(src.dtype() == self.dtype(), "{}: expected self and {} to have the same dtype, got {} and {}", op,
              src_name, dtype_name(self.dtype()), dtype_name(src.dtype()));
}

// The flat position in a contiguous tensor of `shape` that each element of index names along d:
// sum over k of (k == d ? index[i] : i_k) * stride_k. (index's shape, int64)
Tensor scatter_positions(IntArrayRef shape, int64_t d, const Tensor& index) {
  const std::vector<int64_t> strides = contiguous_strides(shape);
  Tensor pos = index.mul(strides[d]);
  for (int64_t k = 0; k < index.dim(); ++k) {
    if (k == d || index.size(k) == 1) continue;
    std::vector<int64_t> along(index.dim(), 1);
    along[k] = index.size(k);
    pos = pos.add(arange(index.size(k), longs_on(index)).view(along).mul(strides[k]));
  }
  return pos.reshape({-1});
}

// src's leading block of index's shape, flattened (scatter reads no more of src than index covers).
Tensor leading_block(const Tensor& src, const Tensor& index) {
  Tensor block = src;
  for (int64_t k = 0; k < index.dim(); ++k) block = block.narrow(k, 0, index.size(k));
  return block.reshape({-1});
}

// `flat` (self's elements, 1-d, a fresh tensor) with vals combined in at pos: written (reduce
// empty; the last write wins), or reduced, each position starting from its old value when
// include_self and from its first value otherwise. No autograd: callers record their own.
Tensor write_at(Tensor flat, const Tensor& pos, const Tensor& vals, std::optional<Reduce> reduce,
                bool include_self) {
  if (pos.numel() == 0) return flat;
  if (!reduce) return flat.index_put_({pos}, vals);
  if (*reduce == Reduce::Sum || *reduce == Reduce::Mean) {
    if (!include_self) flat.index_put_({pos}, zeros({1}, flat.options()).expand({pos.numel()}));
    flat.index_put_({pos}, vals, /*accumulate=*/true);
    if (*reduce == Reduce::Sum) return flat;
    Tensor count = full({flat.numel()}, include_self ? 1 : 0, flat.options());
    count.index_put_({pos}, ones({pos.numel()}, flat.options()), /*accumulate=*/true);
    count = count.clamp_min(1);
    return flat.is_floating_point() ? flat.div(count) : flat.div(count, "floor");
  }
  // prod, amax, amin: round r takes each position's r-th value, so no round names a position twice.
  const std::vector<int64_t> where = pos.to_vector<int64_t>();
  std::unordered_map<int64_t, int64_t> seen;
  std::vector<std::vector<int64_t>> rounds;
  for (size_t i = 0; i < where.size(); ++i) {
    const int64_t r = seen[where[i]]++;
    if (r == static_cast<int64_t>(rounds.size())) rounds.emplace_back();
    rounds[r].push_back(static_cast<int64_t>(i));
  }
  for (size_t r = 0; r < rounds.size(); ++r) {
    const Tensor picks = from_vector(rounds[r], {static_cast<int64_t>(rounds[r].size())}, longs_on(flat));
    const Tensor at = pos.index_select(0, picks), v = vals.index_select(0, picks);
    Tensor next = v;
    if (r > 0 || include_self) {
      const Tensor old = flat.index_select(0, at);
      next = *reduce == Reduce::Prod ? old.mul(v) : *reduce == Reduce::Amax ? old.maximum(v) : old.minimum(v);
    }
    flat.index_put_({at}, next);
  }
  return flat;
}

// self with vals (flat, in index order) combined in at index along d, as a new tensor.
Tensor scatter_into(const Tensor& self, int64_t d, const Tensor& index, const Tensor& vals,
                    std::optional<Reduce> reduce, bool include_self) {
  NoGradGuard no_grad;
  Tensor flat = self.contiguous().reshape({-1}).clone();
  flat = write_at(flat, scatter_positions(self.sizes(), d, index), vals, reduce, include_self);
  return flat.view(self.sizes());
}

// The value forms' src: the scalar, once per element of index.
Tensor value_block(const Tensor& self, const Tensor& index, const Scalar& value) {
  return full({index.numel()}, value, self.options());
}

// d src for a src larger than index: the gathered gradient in src's leading block, zeros elsewhere.
Tensor into_src_shape(const Tensor& gathered, IntArrayRef src_sizes) {
  if (gathered.sizes() == src_sizes) return gathered;
  Tensor out = zeros(src_sizes, gathered.options());
  Tensor block = out;
  for (int64_t k = 0; k < gathered.dim(); ++k) block = block.narrow(k, 0, gathered.size(k));
  block.copy_(gathered);
  return out;
}

// An index along d of self's size with negatives counted from the end (index_fill's rule),
// flattened; out of [-size, size) is an error naming op and the index.
Tensor wrap_index(const Tensor& index, int64_t size, const char* op, IntArrayRef shape, int64_t d) {
  EMBER_CHECK(index.dtype() == kInt64, "{}: expected an int64 index tensor, got {}", op, dtype_name(index.dtype()));
  EMBER_CHECK(index.dim() <= 1, "{}: index should have dimension 1 or 0, got shape {}", op, index.sizes());
  NoGradGuard no_grad;
  const Tensor flat = index.reshape({-1});
  for (int64_t i : flat.to_vector<int64_t>())
    EMBER_CHECK(i >= -size && i < size, "{}: index {} is out of bounds for dimension {} with size {} (input shape {})",
                op, i, d, size, shape);
  return flat.remainder(std::max<int64_t>(size, 1));
}

// index (1-d, numel n) shaped to address whole slices along d of a tensor of `sizes` (sizes[d] == n).
Tensor slice_index(const Tensor& index, int64_t d, IntArrayRef sizes) {
  std::vector<int64_t> along(sizes.size(), 1);
  along[d] = index.numel();
  return index.reshape(along).expand(sizes);
}

}  // namespace

// ---- gather and scatter_add (kernels of their own) ----

// d gather = scatter_add of g into zeros
Tensor Tensor::gather(int64_t dim_, const Tensor& index) const {
  EMBER_TRACE_OP();
  kernel::check_same_device("gather", {*this, index});
  int64_t d = wrap_dim(dim_, dim(), "gather");
  EMBER_CHECK(index.dim() == dim(),
              "gather: index tensor must have the same number of dimensions as input tensor "
              "(got {} and {})",
              index.dim(), dim());
  for (int64_t k = 0; k < dim(); ++k)
    EMBER_CHECK(k == d || index.sizes()[k] <= sizes()[k],
                "gather: size does not match at dimension {}: expected index "
                "{} to be smaller than self {} apart from dimension {}",
                k, index.sizes(), sizes(), d);
  check_index(index, sizes()[d], "gather", sizes(), d);
  Tensor idx = kernel::contiguous(index);
  Tensor out = raw_empty(idx.sizes(), dtype(), device());
  backend_for(*this).gather(out, *this, d, idx);
  if (any_requires_grad({this}))
    record("GatherBackward0", out, {*this}, [in_sz = sizes().vec(), d, idx](const Tensor& g) -> tensor_list {
      return {zeros(in_sz, g.options()).scatter_add(d, idx, g)};
    });
  return out;
}

// d scatter_add = (g, g.gather(dim, index))
Tensor Tensor::scatter_add(int64_t dim_, const Tensor& index, const Tensor& src) const {
  EMBER_TRACE_OP();
  kernel::check_same_device("scatter_add", {*this, index, src});
  int64_t d = wrap_dim(dim_, dim(), "scatter_add");
  EMBER_CHECK(index.dim() == dim() && src.sizes() == index.sizes(),
              "scatter_add: expected index {} and src {} of the same shape, with as many dims as self {}",
              index.sizes(), src.sizes(), sizes());
  check_index(index, sizes()[d], "scatter_add", sizes(), d);
  Tensor out = kernel::clone(*this);
  Tensor idx = kernel::contiguous(index);
  backend_for(out).scatter_add(out, d, idx, kernel::contiguous(kernel::cast(src, dtype())));
  if (any_requires_grad({this, &src}))
    record("ScatterAddBackward0", out, {*this, src}, [d, idx](const Tensor& g) -> tensor_list {
      return {g, g.gather(d, idx)};
    });
  return out;
}

Tensor& Tensor::scatter_add_(int64_t dim, const Tensor& index, const Tensor& src) {
  return inplace_unary(*this, "scatter_add_", [&](const Tensor& s) { return s.scatter_add(dim, index, src); });
}

// ---- scatter ----

// d self = g with the written positions zeroed; d src = g gathered at them
Tensor Tensor::scatter(int64_t dim_, const Tensor& index, const Tensor& src) const {
  EMBER_TRACE_OP();
  kernel::check_same_device("scatter", {*this, index, src});
  const int64_t d = wrap_dim(dim_, dim(), "scatter");
  check_same_dtype("scatter", *this, src, "src");
  if (index.numel() == 0) return clone();
  check_scatter_shapes("scatter", *this, d, index, src);
  check_index(index, size(d), "scatter", sizes(), d);
  Tensor out = scatter_into(*this, d, index, leading_block(src.detach(), index), std::nullopt, true);
  if (any_requires_grad({this, &src}))
    record("ScatterBackward0", out, {*this, src}, [d, index, src_sz = src.sizes().vec()](const Tensor& g) {
      return tensor_list{g.scatter(d, index, 0), into_src_shape(g.gather(d, index), src_sz)};
    });
  return out;
}

Tensor Tensor::scatter(int64_t dim_, const Tensor& index, const Scalar& value) const {
  EMBER_TRACE_OP();
  kernel::check_same_device("scatter", {*this, index});
  const int64_t d = wrap_dim(dim_, dim(), "scatter");
  if (index.numel() == 0) return clone();
  check_scatter_shapes("scatter", *this, d, index, Tensor());
  check_index(index, size(d), "scatter", sizes(), d);
  Tensor out = scatter_into(*this, d, index, value_block(*this, index, value), std::nullopt, true);
  if (any_requires_grad({this}))
    record("ScatterBackward1", out, {*this},
           [d, index](const Tensor& g) { return tensor_list{g.scatter(d, index, 0)}; });
  return out;
}

// With reduce, the values combine with self's (include_self): scatter_reduce's sum or prod.
Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce) const {
  EMBER_TRACE_OP();
  const Reduce r = parse_scatter_reduce(reduce);
  return scatter_reduce(dim, index, src, r == Reduce::Sum ? "sum" : "prod", true);
}

Tensor Tensor::scatter(int64_t dim_, const Tensor& index, const Scalar& value, std::string_view reduce) const {
  EMBER_TRACE_OP();
  const Reduce r = parse_scatter_reduce(reduce);
  kernel::check_same_device("scatter", {*this, index});
  const int64_t d = wrap_dim(dim_, dim(), "scatter");
  if (index.numel() == 0) return clone();
  check_scatter_shapes("scatter", *this, d, index, Tensor());
  check_index(index, size(d), "scatter", sizes(), d);
  Tensor out = scatter_into(*this, d, index, value_block(*this, index, value), r, true);
  // d self = g (add), or g times the product of the values written at each element (multiply)
  if (any_requires_grad({this}))
    record("ScatterBackward1", out, {*this}, [d, index, r, value, self_sz = sizes().vec()](const Tensor& g) {
      if (r == Reduce::Sum) return tensor_list{g};
      return tensor_list{g * ones(self_sz, g.options()).scatter(d, index, value, "multiply")};
    });
  return out;
}

Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Tensor& src) {
  return inplace_unary(*this, "scatter_", [&](const Tensor& s) { return s.scatter(dim, index, src); });
}
Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Scalar& value) {
  return inplace_unary(*this, "scatter_", [&](const Tensor& s) { return s.scatter(dim, index, value); });
}
Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce) {
  return inplace_unary(*this, "scatter_", [&](const Tensor& s) { return s.scatter(dim, index, src, reduce); });
}
Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Scalar& value, std::string_view reduce) {
  return inplace_unary(*this, "scatter_", [&](const Tensor& s) { return s.scatter(dim, index, value, reduce); });
}

// ---- scatter_reduce ----

// PyTorch 1.13's scatter_reduce_backward. Positions written without include_self give self no
// gradient. sum: d self = g, d src = g at index. mean: both divided by each element's count.
// amax / amin: g shared equally among the values (self's and src's) equal to the result.
// prod: d self = g * result / self, d src = g * result / src, with a single zero handled by
// recomputing the product without it (two zeros at one element give src a zero gradient).
tensor_list scatter_reduce_backward(const Tensor& g, const Tensor& self, int64_t d, const Tensor& index,
                                    const Tensor& src, Reduce r, bool include_self, const Tensor& result) {
  Tensor dself, dsrc;
  switch (r) {
    case Reduce::Sum:
      dself = g;
      dsrc = g.gather(d, index);
      break;
    case Reduce::Mean: {
      Tensor n = include_self ? ones_like(self) : zeros_like(self);
      n = n.scatter_add(d, index, ones_like(src));
      n = n.masked_fill(n.eq(0), 1);
      dself = g / n;
      dsrc = dself.gather(d, index);
      break;
    }
    case Reduce::Amax:
    case Reduce::Amin: {
      const Tensor value = result.gather(d, index);
      const Tensor self_is = self.eq(result).to(self.dtype()), src_is = src.eq(value).to(self.dtype());
      const Tensor shared = g / self_is.scatter_add(d, index, src_is);
      dself = self_is * shared;
      dsrc = src_is * shared.gather(d, index);
      break;
    }
    case Reduce::Prod: {
      const Tensor masked_self = self.masked_fill(self.eq(0), 1);
      const Tensor masked_self_result = masked_self.scatter_reduce(d, index, src, "prod", include_self);
      dself = g * masked_self_result / masked_self;
      const Tensor src_zero = src.eq(0);
      const Tensor zeros_at = zeros_like(self).scatter_add(d, index, src_zero.to(self.dtype())).gather(d, index);
      const Tensor single_zero = src_zero.logical_and(zeros_at.eq(1));
      const Tensor masked_src_result = self.scatter_reduce(d, index, src.masked_fill(single_zero, 1), "prod",
                                                           include_self);
      dsrc = where(single_zero, (g * masked_src_result).gather(d, index),
                   (g * result).gather(d, index) / src.masked_fill(src_zero, 1));
      break;
    }
  }
  if (!include_self) dself = dself.scatter(d, index, 0);
  return {dself, dsrc};
}

Tensor Tensor::scatter_reduce(int64_t dim_, const Tensor& index, const Tensor& src, std::string_view reduce,
                              bool include_self) const {
  EMBER_TRACE_OP();
  const Reduce r = parse_reduce(reduce, "scatter_reduce");
  kernel::check_same_device("scatter_reduce", {*this, index, src});
  const int64_t d = wrap_dim(dim_, dim(), "scatter_reduce");
  check_same_dtype("scatter_reduce", *this, src, "src");
  if (index.numel() == 0) return clone();
  check_scatter_shapes("scatter_reduce", *this, d, index, src);
  check_index(index, size(d), "scatter_reduce", sizes(), d);
  Tensor out = scatter_into(*this, d, index, leading_block(src.detach(), index), r, include_self);
  if (any_requires_grad({this, &src})) {
    EMBER_CHECK(src.sizes() == index.sizes(),
                "scatter_reduce: the gradient needs src {} and index {} of one shape", src.sizes(), index.sizes());
    const Tensor self_v = detach(), src_v = src.detach(), out_v = out.detach();
    record("ScatterReduceBackward0", out, {*this, src},
           [self_v, src_v, out_v, d, index, r, include_self](const Tensor& g) {
             return scatter_reduce_backward(g, self_v, d, index, src_v, r, include_self, out_v);
           });
  }
  return out;
}

Tensor& Tensor::scatter_reduce_(int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce,
                                bool include_self) {
  return inplace_unary(*this, "scatter_reduce_",
                       [&](const Tensor& s) { return s.scatter_reduce(dim, index, src, reduce, include_self); });
}

// ---- index_add, index_copy, index_fill: whole slices along dim ----

// d index_add = (g, alpha * g.index_select(dim, index))
Tensor Tensor::index_add(int64_t dim_, const Tensor& index, const Tensor& source, const Scalar& alpha) const {
  EMBER_TRACE_OP();
  kernel::check_same_device("index_add", {*this, index, source});
  int64_t d = wrap_dim(dim_, dim(), "index_add");
  EMBER_CHECK(index.dim() <= 1, "index_add: index should have dimension 1 or 0, got shape {}", index.sizes());
  check_index(index, sizes()[d], "index_add", sizes(), d);
  std::vector<int64_t> want = sizes().vec();
  want[d] = index.numel();
  EMBER_CHECK(source.sizes() == IntArrayRef(want),
              "index_add: source has shape {} but {} was expected (self {} with {} "
              "indices along dim {})",
              source.sizes(), IntArrayRef(want), sizes(), index.numel(), d);
  const bool scaled = alpha.toDouble() != 1.0;
  Tensor added;
  {
    NoGradGuard no_grad;
    added = scaled ? source.mul(alpha) : source;
  }
  Tensor out = kernel::clone(*this);
  backend_for(out).index_add(out, d, kernel::contiguous(index.reshape({-1})),
                             kernel::contiguous(kernel::cast(added, dtype())));
  if (any_requires_grad({this, &source}))
    record("IndexAddBackward0", out, {*this, source}, [d, index, alpha, scaled](const Tensor& g) -> tensor_list {
      Tensor picked = g.index_select(d, index);
      return {g, scaled ? picked.mul(alpha) : picked};
    });
  return out;
}

Tensor& Tensor::index_add_(int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  return inplace_unary(*this, "index_add_", [&](const Tensor& s) { return s.index_add(dim, index, source, alpha); });
}

// d self = g with the copied slices zeroed; d source = g's slices at index
Tensor Tensor::index_copy(int64_t dim_, const Tensor& index, const Tensor& source) const {
  EMBER_TRACE_OP();
  kernel::check_same_device("index_copy", {*this, index, source});
  const int64_t d = wrap_dim(dim_, dim(), "index_copy");
  EMBER_CHECK(index.dim() <= 1, "index_copy: index should have dimension 1 or 0, got shape {}", index.sizes());
  check_same_dtype("index_copy", *this, source, "source");
  EMBER_CHECK(source.dim() == dim(),
              "index_copy: source and self must have the same number of dimensions, got source {} and self {}",
              source.sizes(), sizes());
  for (int64_t k = 0; k < dim(); ++k)
    EMBER_CHECK(k == d ? source.size(k) == index.numel() : source.size(k) == size(k),
                "index_copy: source {} should have self's shape {} apart from dimension {}, where it should "
                "have the number of indices ({})",
                source.sizes(), sizes(), d, index.numel());
  check_index(index, size(d), "index_copy", sizes(), d);
  const Tensor flat_index = index.reshape({-1});
  Tensor out = scatter_into(*this, d, slice_index(flat_index, d, source.sizes()), source.detach().reshape({-1}),
                            std::nullopt, true);
  if (any_requires_grad({this, &source}))
    record("IndexCopyBackward0", out, {*this, source}, [d, flat_index](const Tensor& g) {
      return tensor_list{g.index_fill(d, flat_index, 0), g.index_select(d, flat_index)};
    });
  return out;
}

Tensor& Tensor::index_copy_(int64_t dim, const Tensor& index, const Tensor& source) {
  return inplace_unary(*this, "index_copy_", [&](const Tensor& s) { return s.index_copy(dim, index, source); });
}

// d self = g with the filled slices zeroed; d value = the sum of g over them (each slice once)
Tensor Tensor::index_fill(int64_t dim_, const Tensor& index, const Tensor& value) const {
  EMBER_TRACE_OP();
  kernel::check_same_device("index_fill", {*this, index});
  EMBER_CHECK(value.dim() == 0, "index_fill: only supports a 0-dimensional value tensor, got shape {}",
              value.sizes());
  Tensor self_1d = dim() == 0 ? reshape({1}) : *this;
  const int64_t d = wrap_dim(dim_, self_1d.dim(), "index_fill");
  const Tensor flat_index = wrap_index(index, self_1d.size(d), "index_fill", self_1d.sizes(), d);
  std::vector<int64_t> slices = self_1d.sizes().vec();
  slices[d] = flat_index.numel();
  Tensor out;
  {
    NoGradGuard no_grad;
    const Tensor fill = value.to(dtype()).to(device()).expand({numel_of(slices)});
    out = scatter_into(self_1d, d, slice_index(flat_index, d, slices), fill, std::nullopt, true).view(sizes());
  }
  if (any_requires_grad({this, &value}))
    record("IndexFillBackward1", out, {*this, value}, [d, flat_index, sz = sizes().vec()](const Tensor& g) {
      const Tensor g_1d = g.reshape(sz.empty() ? std::vector<int64_t>{1} : sz);
      const Tensor once = std::get<0>(unique(flat_index));
      return tensor_list{g_1d.index_fill(d, flat_index, 0).view(sz), g_1d.index_select(d, once).sum()};
    });
  return out;
}

Tensor Tensor::index_fill(int64_t dim, const Tensor& index, const Scalar& value) const {
  return index_fill(dim, index, scalar_tensor(value, TensorOptions().dtype(dtype()).device(device())));
}

Tensor& Tensor::index_fill_(int64_t dim, const Tensor& index, const Scalar& value) {
  return inplace_unary(*this, "index_fill_", [&](const Tensor& s) { return s.index_fill(dim, index, value); });
}
Tensor& Tensor::index_fill_(int64_t dim, const Tensor& index, const Tensor& value) {
  return inplace_unary(*this, "index_fill_", [&](const Tensor& s) { return s.index_fill(dim, index, value); });
}

// ---- masked_scatter and put: flat positions ----

// d self = g where mask is false; d source = g where mask is true, in source's leading elements
Tensor Tensor::masked_scatter(const Tensor& mask, const Tensor& source) const {
  EMBER_TRACE_OP();
  kernel::check_same_device("masked_scatter", {*this, mask, source});
  EMBER_CHECK(mask.dtype() == kBool, "masked_scatter: only supports boolean masks, got a mask of dtype {}",
              dtype_name(mask.dtype()));
  check_same_dtype("masked_scatter", *this, source, "source");
  const std::vector<int64_t> shape = broadcast_shapes(sizes(), mask.sizes(), "masked_scatter");
  EMBER_CHECK(IntArrayRef(shape) == sizes(), "masked_scatter: mask {} does not broadcast to self's shape {}",
              mask.sizes(), sizes());
  const Tensor full_mask = mask.expand(sizes());
  Tensor out;
  {
    NoGradGuard no_grad;
    const Tensor pos = full_mask.reshape({-1}).nonzero().reshape({-1});
    EMBER_CHECK(source.numel() >= pos.numel(),
                "masked_scatter: mask has {} true elements but source has only {} elements", pos.numel(),
                source.numel());
    Tensor flat = contiguous().reshape({-1}).clone();
    out = write_at(flat, pos, source.reshape({-1}).narrow(0, 0, pos.numel()), std::nullopt, true).view(sizes());
  }
  if (any_requires_grad({this, &source}))
    record("MaskedScatterBackward0", out, {*this, source},
           [full_mask, src_sz = source.sizes().vec(), n = source.numel()](const Tensor& g) {
             const Tensor picked = g.masked_select(full_mask);
             const Tensor padded = cat({picked, zeros({n - picked.numel()}, g.options())});
             return tensor_list{g.masked_fill(full_mask, 0), padded.view(src_sz)};
           });
  return out;
}

Tensor& Tensor::masked_scatter_(const Tensor& mask, const Tensor& source) {
  return inplace_unary(*this, "masked_scatter_", [&](const Tensor& s) { return s.masked_scatter(mask, source); });
}

// d self = g (accumulate) or g with the written elements zeroed; d source = g at index
Tensor Tensor::put(const Tensor& index, const Tensor& source, bool accumulate) const {
  EMBER_TRACE_OP();
  kernel::check_same_device("put", {*this, index, source});
  EMBER_CHECK(index.dtype() == kInt64, "put: expected an int64 index tensor, got {}", dtype_name(index.dtype()));
  check_same_dtype("put", *this, source, "source");
  EMBER_CHECK(index.numel() == source.numel(),
              "put: expected source and index to have the same number of elements, got {} (source {}) and {} "
              "(index {})",
              source.numel(), source.sizes(), index.numel(), index.sizes());
  const int64_t n = numel();
  Tensor pos;
  Tensor out;
  {
    NoGradGuard no_grad;
    for (int64_t i : index.reshape({-1}).to_vector<int64_t>())
      EMBER_CHECK(i >= -n && i < n, "put: index {} is out of bounds for a tensor of {} elements (shape {})", i, n,
                  sizes());
    pos = index.reshape({-1}).remainder(std::max<int64_t>(n, 1));
    Tensor flat = contiguous().reshape({-1}).clone();
    out = write_at(flat, pos, source.reshape({-1}),
                   accumulate ? std::optional<Reduce>(Reduce::Sum) : std::nullopt, true)
              .view(sizes());
  }
  if (any_requires_grad({this, &source}))
    record("PutBackward0", out, {*this, source}, [pos, accumulate, src_sz = source.sizes().vec()](const Tensor& g) {
      const Tensor flat = g.reshape({-1});
      const Tensor dself = accumulate ? g : flat.index_fill(0, pos, 0).view(g.sizes());
      return tensor_list{dself, flat.index_select(0, pos).view(src_sz)};
    });
  return out;
}

Tensor& Tensor::put_(const Tensor& index, const Tensor& source, bool accumulate) {
  return inplace_unary(*this, "put_", [&](const Tensor& s) { return s.put(index, source, accumulate); });
}

Tensor index_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, std::string_view reduce,
                    bool include_self) {
  EMBER_CHECK(reduce == "prod" || reduce == "mean" || reduce == "amax" || reduce == "amin",
              "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {}.", reduce);
  const int64_t d = dim < 0 ? dim + std::max<int64_t>(self.dim(), 1) : dim;
  EMBER_CHECK(d >= 0 && d < std::max<int64_t>(self.dim(), 1),
              "index_reduce(): dim {} is out of range for a tensor "
              "of {} dims",
              dim, self.dim());
  EMBER_CHECK(index.dim() <= 1, "index_reduce_(): Index is supposed to be a vector, got {}", index.sizes());
  EMBER_CHECK(index.dtype() == kInt64 || index.dtype() == kInt32,
              "index_reduce_(): Expected dtype int32/int64 for index but got: {}", dtype_name(index.dtype()));
  EMBER_CHECK(self.dim() == source.dim(),
              "index_reduce_(): Source and destination must have the same number of "
              "dims (self {}, source {})",
              self.sizes(), source.sizes());
  const int64_t slices = source.dim() == 0 ? 1 : source.size(d);
  EMBER_CHECK(index.numel() == slices,
              "index_reduce_(): Number of indices ({}) should be equal to source.size(dim) "
              "({})",
              index.numel(), slices);
  for (int64_t i = 0; i < self.dim(); ++i)
    EMBER_CHECK(i == d || self.size(i) == source.size(i),
                "index_reduce_(): self ({}) and source ({}) must have the "
                "same size at every dim but dim {}",
                self.sizes(), source.sizes(), d);
  if (source.dim() == 0) return self.scatter_reduce(0, index.to(kInt64).reshape({}), source, reduce, include_self);
  std::vector<int64_t> shape(static_cast<size_t>(source.dim()), 1);
  shape[static_cast<size_t>(d)] = slices;
  Tensor spread = index.to(kInt64).reshape(shape).expand(source.sizes());
  return self.scatter_reduce(d, spread, source, reduce, include_self);
}

}  // namespace ember
