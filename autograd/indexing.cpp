// Tensor indexing: x.index({...}), x.index_put_({...}, v), x[i] and assignment through them.
//
// Two stages, as in libtorch (ATen/TensorIndexing.h): ints, slices, None, Ellipsis and bools
// become a view of select / slice / unsqueeze ("basic" indexing, no copy, autograd through the
// view ops), and the tensor indices left over go to the ATen form index(list of optional tensors).
// That form ("advanced" indexing) moves the indexed dims to the front, turns the broadcast index
// tensors into one row index of the flattened front dims, and gathers with index_select, whose
// backward scatters the gradient with index_add (repeated indices add up). index_put_ builds the
// new value out of place the same way and writes it with commit_inplace (autograd/inplace.cpp).
// Bool masks become integer indices on the host (a nonzero), so every device runs the same code.
#include <numeric>

#include "autograd/autograd.h"
#include "core/kernel.h"
#include "core/shape.h"
#include "core/trace.h"

namespace ember {

using indexing::Slice;
using indexing::TensorIndex;

namespace indexing {

std::ostream& operator<<(std::ostream& os, const Slice& slice) {
  return os << slice.start() << ':' << slice.stop() << ':' << slice.step();
}

std::ostream& operator<<(std::ostream& os, const TensorIndex& index) {
  switch (index.type()) {
    case TensorIndexType::None:
      return os << "None";
    case TensorIndexType::Ellipsis:
      return os << "...";
    case TensorIndexType::Integer:
      return os << index.integer();
    case TensorIndexType::Boolean:
      return os << (index.boolean() ? "true" : "false");
    case TensorIndexType::Slice:
      return os << index.slice();
    case TensorIndexType::Tensor:
      return os << "Tensor(" << shape_str(index.tensor().sizes()) << ")";
  }
  return os;
}

}  // namespace indexing

namespace {

using OptionalTensors = std::vector<std::optional<Tensor>>;

// ---- basic indexing: views ----

Tensor select_checked(const Tensor& self, int64_t dim, int64_t index, int64_t real_dim, const char* op) {
  EMBER_CHECK(self.dim() > 0,
              "{}: invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to "
              "convert a 0-dim tensor to a number",
              op);
  const int64_t size = self.sizes()[dim];
  EMBER_CHECK(index >= -size && index < size, "{}: index {} is out of bounds for dimension {} with size {} (shape {})",
              op, index, real_dim, size, self.sizes());
  return self.select(dim, index);
}

Tensor slice_checked(const Tensor& self, int64_t dim, const Slice& s, const char* op) {
  EMBER_CHECK(s.step() > 0, "{}: step must be greater than zero, got {}", op, s.step());
  return self.slice(dim, s.start(), s.stop(), s.step());
}

// x[True] is x[None] with an index of [0]; x[False] with an empty index.
Tensor bool_index_tensor(const Tensor& self, bool value) {
  return value ? zeros({1}, self.options().dtype(kInt64)) : empty({0}, self.options().dtype(kInt64));
}

// How many of self's dims the indices name: a bool or int tensor index names as many as it has dims
// (one for an int tensor), None, Ellipsis and bools none.
int64_t count_specified_dims(ArrayRef<TensorIndex> indices) {
  int64_t count = 0;
  for (const TensorIndex& i : indices) {
    if (i.is_tensor())
      count += i.tensor().dtype() == kBool ? i.tensor().dim() : 1;
    else if (!i.is_none() && !i.is_ellipsis() && !i.is_boolean())
      count += 1;
  }
  return count;
}

// Applies the basic indices to self (a view) and collects the tensor indices, each at the dim of the
// view it indexes (undefined for dims taken whole): libtorch's applySlicing.
Tensor apply_slicing(const Tensor& self, ArrayRef<TensorIndex> indices, OptionalTensors& tensor_indices,
                     const char* op) {
  const int64_t specified = count_specified_dims(indices);
  EMBER_CHECK(specified <= self.dim(), "{}: too many indices for tensor of dimension {} (got {} indices)", op,
              self.dim(), specified);
  auto record_tensor = [&](int64_t& dim, const Tensor& t) {
    tensor_indices.resize(dim + 1);
    tensor_indices[dim] = t;
    ++dim;
  };
  Tensor result = self;
  int64_t dim = 0;
  for (size_t i = 0; i < indices.size(); ++i) {
    const TensorIndex& index = indices[i];
    const int64_t real_dim = static_cast<int64_t>(i);
    if (index.is_integer()) {
      result = select_checked(result, dim, index.integer(), real_dim, op);
    } else if (index.is_slice()) {
      result = slice_checked(result, dim++, index.slice(), op);
    } else if (index.is_ellipsis()) {
      dim += self.dim() - specified;
    } else if (index.is_none()) {
      result = result.unsqueeze(dim++);
    } else if (index.is_boolean()) {
      result = result.unsqueeze(dim);
      record_tensor(dim, bool_index_tensor(result, index.boolean()));
    } else {
      const Tensor& t = index.tensor();
      EMBER_CHECK(t.defined(), "{}: index {} is an undefined tensor", op, i);
      if (t.dim() == 0 && t.dtype() == kInt64) {
        result = select_checked(result, dim, t.item<int64_t>(), real_dim, op);
      } else if (t.dim() == 0 && t.dtype() == kBool) {
        result = result.unsqueeze(dim);
        record_tensor(dim, bool_index_tensor(result, t.item<bool>()));
      } else {
        record_tensor(dim, t);
      }
    }
  }
  return result;
}

bool has_tensor(const OptionalTensors& indices) {
  for (const auto& t : indices)
    if (t && t->defined()) return true;
  return false;
}

// A view of self under a new handle (x.index({"..."}) is not x itself, as in libtorch).
Tensor alias_of(const Tensor& self, const Tensor& sliced) {
  return sliced.is_same(self) ? self.view(self.sizes()) : sliced;
}

// ---- advanced indexing: the plan shared by index and index_put_ ----

// Where advanced indexing takes its elements: self's indexed dims moved to the front and
// flattened into rows, and the row of each result element.
struct AdvancedPlan {
  std::vector<int64_t> perm;         // self.permute(perm): indexed dims first, then the rest in order
  std::vector<int64_t> front_sizes;  // sizes of the indexed dims, in order
  std::vector<int64_t> rest_sizes;   // sizes of the other dims, in order
  std::vector<int64_t> index_shape;  // the index tensors broadcast together (B)
  Tensor rows;                       // (B) int64: the row of self.permute(perm).reshape({-1, rest...})
  int64_t insert_at = 0;             // where the B dims go in the result: the first indexed dim if the
                                     // indexed dims are adjacent, else 0 (PyTorch's rule)
  int64_t num_rows() const { return numel_of(front_sizes); }
  // The result's shape: rest[:insert_at] + B + rest[insert_at:].
  std::vector<int64_t> result_shape() const {
    std::vector<int64_t> s(rest_sizes.begin(), rest_sizes.begin() + insert_at);
    s.insert(s.end(), index_shape.begin(), index_shape.end());
    s.insert(s.end(), rest_sizes.begin() + insert_at, rest_sizes.end());
    return s;
  }
};

// The positions of the true elements of a bool mask, one int64 tensor per mask dim (a nonzero,
// computed on the host).
tensor_list mask_to_indices(const Tensor& mask) {
  const std::vector<bool> values = mask.to_vector<bool>();
  const int64_t k = mask.dim();
  std::vector<std::vector<int64_t>> coords(k);
  const std::vector<int64_t> strides = contiguous_strides(mask.sizes());
  for (int64_t flat = 0; flat < static_cast<int64_t>(values.size()); ++flat) {
    if (!values[flat]) continue;
    for (int64_t d = 0; d < k; ++d) coords[d].push_back(flat / strides[d] % mask.sizes()[d]);
  }
  tensor_list out;
  for (int64_t d = 0; d < k; ++d) {
    const int64_t n = static_cast<int64_t>(coords[d].size());
    out.push_back(from_vector(coords[d], {n}, TensorOptions().dtype(kInt64).device(mask.device())));
  }
  return out;
}

AdvancedPlan plan_advanced(const Tensor& self, const OptionalTensors& indices, const char* op) {
  // Bool masks become one int64 index per dim they cover.
  std::vector<Tensor> per_dim;  // undefined: the dim is taken whole
  for (size_t i = 0; i < indices.size(); ++i) {
    if (!indices[i] || !indices[i]->defined()) {
      per_dim.emplace_back();
      continue;
    }
    const Tensor& t = *indices[i];
    EMBER_CHECK(t.dtype() == kInt64 || t.dtype() == kBool,
                "{}: tensors used as indices must be long, byte or bool tensors, got {} (index {}, shape {})", op,
                dtype_name(t.dtype()), i, t.sizes());
    if (t.dtype() == kInt64) {
      per_dim.push_back(t);
      continue;
    }
    const int64_t first = static_cast<int64_t>(per_dim.size());
    EMBER_CHECK(first + t.dim() <= self.dim(), "{}: too many indices for tensor of dimension {} (a mask of shape {})",
                op, self.dim(), t.sizes());
    for (int64_t j = 0; j < t.dim(); ++j)
      EMBER_CHECK(t.sizes()[j] == self.sizes()[first + j],
                  "{}: the shape of the mask {} at index {} does not match the shape of the indexed tensor {} at "
                  "index {}",
                  op, t.sizes(), j, self.sizes(), first + j);
    for (const Tensor& coord : mask_to_indices(t)) per_dim.push_back(coord);
  }
  EMBER_CHECK(static_cast<int64_t>(per_dim.size()) <= self.dim(),
              "{}: too many indices for tensor of dimension {} (got {})", op, self.dim(), per_dim.size());

  AdvancedPlan plan;
  std::vector<int64_t> indexed;
  std::string shapes;
  for (int64_t d = 0; d < static_cast<int64_t>(per_dim.size()); ++d) {
    if (!per_dim[d].defined()) continue;
    shapes += (indexed.empty() ? "" : ", ") + shape_str(per_dim[d].sizes());
    indexed.push_back(d);
  }
  EMBER_CHECK(!indexed.empty(), "{}: expected at least one index tensor", op);
  plan.index_shape = per_dim[indexed[0]].sizes().vec();
  for (int64_t d : indexed) {
    try {
      plan.index_shape = broadcast_shapes(plan.index_shape, per_dim[d].sizes(), op);
    } catch (const Error&) {
      EMBER_FAIL("{}: shape mismatch: indexing tensors could not be broadcast together with shapes {}", op, shapes);
    }
  }
  const bool adjacent = indexed.back() - indexed.front() + 1 == static_cast<int64_t>(indexed.size());
  plan.perm = indexed;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (d < static_cast<int64_t>(per_dim.size()) && per_dim[d].defined()) {
      plan.front_sizes.push_back(self.sizes()[d]);
    } else {
      plan.perm.push_back(d);
      plan.rest_sizes.push_back(self.sizes()[d]);
      if (adjacent && d < indexed.front()) ++plan.insert_at;
    }
  }

  // rows = sum_j wrap(index_j) * (product of the later front sizes), range-checked per dim.
  NoGradGuard no_grad;
  Tensor rows = zeros(plan.index_shape, TensorOptions().dtype(kInt64).device(self.device()));
  int64_t row_stride = 1;
  for (int64_t j = static_cast<int64_t>(indexed.size()) - 1; j >= 0; --j) {
    const int64_t d = indexed[j], size = self.sizes()[d];
    Tensor idx = per_dim[d].to(self.device());
    if (idx.numel() > 0) {
      const int64_t lo = idx.min().item<int64_t>(), hi = idx.max().item<int64_t>();
      EMBER_CHECK(lo >= -size && hi < size, "{}: index {} is out of bounds for dimension {} with size {} (shape {})",
                  op, lo < -size ? lo : hi, d, size, self.sizes());
      idx = idx + idx.lt(0).to(kInt64) * size;
    }
    rows = rows + idx * row_stride;
    row_stride *= size;
  }
  plan.rows = rows;
  return plan;
}

// self's elements as rows of the indexed dims: (N, rest...) with N the product of the front sizes.
Tensor as_rows(const Tensor& self, const AdvancedPlan& plan) {
  std::vector<int64_t> shape{plan.num_rows()};
  shape.insert(shape.end(), plan.rest_sizes.begin(), plan.rest_sizes.end());
  return self.permute(plan.perm).reshape(shape);
}

// The order of a result-shaped tensor's dims with the B dims moved to the front (for index_put_'s
// values) and its inverse (for index's result).
std::vector<int64_t> b_first_order(const AdvancedPlan& plan) {
  const int64_t nb = static_cast<int64_t>(plan.index_shape.size()), at = plan.insert_at;
  std::vector<int64_t> order;
  for (int64_t i = 0; i < nb; ++i) order.push_back(at + i);
  for (int64_t i = 0; i < at; ++i) order.push_back(i);
  for (int64_t i = at + nb; i < nb + static_cast<int64_t>(plan.rest_sizes.size()); ++i) order.push_back(i);
  return order;
}

std::vector<int64_t> inverse(const std::vector<int64_t>& perm) {
  std::vector<int64_t> inv(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inv[perm[i]] = static_cast<int64_t>(i);
  return inv;
}

Tensor advanced_index(const Tensor& self, const OptionalTensors& indices) {
  const AdvancedPlan plan = plan_advanced(self, indices, "index");
  // out = rows of self picked by plan.rows: (B..., rest...), then B moved to insert_at.
  Tensor picked = as_rows(self, plan).index_select(0, plan.rows.reshape({-1}));
  std::vector<int64_t> b_first = plan.index_shape;
  b_first.insert(b_first.end(), plan.rest_sizes.begin(), plan.rest_sizes.end());
  picked = picked.view(b_first);
  return plan.insert_at == 0 ? picked : picked.permute(inverse(b_first_order(plan)));
}

// The new value of self after index_put_, computed out of place from `base` (self's values).
// d self = g with the overwritten elements zeroed (kept whole with accumulate); d values = g at them.
Tensor index_put_value(const Tensor& base, const AdvancedPlan& plan, const Tensor& values, bool accumulate) {
  const std::vector<int64_t> result = plan.result_shape();
  bool fits = values.dim() <= static_cast<int64_t>(result.size());
  for (int64_t i = 0; fits && i < values.dim(); ++i) {
    const int64_t have = values.sizes()[values.dim() - 1 - i], want = result[result.size() - 1 - i];
    fits = have == want || have == 1;
  }
  EMBER_CHECK(fits,
              "index_put_: shape mismatch: value tensor of shape {} cannot be broadcast to indexing result of shape "
              "{}",
              values.sizes(), IntArrayRef(result));
  Tensor vals = values.to(base.device()).expand(result);
  if (plan.insert_at != 0) vals = vals.permute(b_first_order(plan));
  std::vector<int64_t> val_rows{numel_of(plan.index_shape)};
  val_rows.insert(val_rows.end(), plan.rest_sizes.begin(), plan.rest_sizes.end());
  vals = vals.reshape(val_rows);
  Tensor rows_of_self = as_rows(base, plan);
  Tensor flat_rows = plan.rows.reshape({-1});
  Tensor updated;
  if (accumulate) {
    updated = rows_of_self.index_add(0, flat_rows, vals);
  } else if (flat_rows.numel() == 0) {
    updated = rows_of_self;
  } else {
    // Each row of self takes the value row that wrote it last (PyTorch leaves repeats unspecified).
    const std::vector<int64_t> rows = flat_rows.to_vector<int64_t>();
    std::vector<int64_t> source(plan.num_rows(), 0);
    std::vector<bool> hit(plan.num_rows(), false);
    for (size_t i = 0; i < rows.size(); ++i) {
      source[rows[i]] = static_cast<int64_t>(i);
      hit[rows[i]] = true;
    }
    std::vector<int64_t> mask_shape(rows_of_self.dim(), 1);
    mask_shape[0] = plan.num_rows();
    const TensorOptions on_device = TensorOptions().device(base.device());
    Tensor written = vals.index_select(0, from_vector(source, {plan.num_rows()}, on_device.dtype(kInt64)));
    updated = where(from_vector(hit, mask_shape, on_device.dtype(kBool)), written, rows_of_self);
  }
  std::vector<int64_t> permuted = plan.front_sizes;
  permuted.insert(permuted.end(), plan.rest_sizes.begin(), plan.rest_sizes.end());
  return updated.view(permuted).permute(inverse(plan.perm));
}

// libtorch's copy_to: src broadcast into dst after dropping its leading size-1 dims.
void copy_to(Tensor dst, const Tensor& src) {
  IntArrayRef s = src.sizes();
  while (!s.empty() && s.front() == 1) s = s.slice(1);
  bool fits = s.size() <= static_cast<size_t>(dst.dim());
  for (size_t i = 0; fits && i < s.size(); ++i) {
    const int64_t want = dst.sizes()[dst.dim() - s.size() + i];
    fits = s[i] == want || s[i] == 1;
  }
  EMBER_CHECK(fits,
              "index_put_: shape mismatch: value tensor of shape {} cannot be broadcast to indexing result of "
              "shape {}",
              src.sizes(), dst.sizes());
  dst.copy_(src.reshape(s));
}

}  // namespace

// ---- Tensor's methods ----

Tensor Tensor::operator[](const Scalar& index) const {
  EMBER_CHECK(!index.is_floating_point() && index.type() != kBool,
              "operator[]: can only index tensors with integral scalars, got {}", index.toDouble());
  return select(0, index.toLong());
}

Tensor Tensor::operator[](const Tensor& index) const {
  EMBER_CHECK(index.defined(), "operator[]: can only index with tensors that are defined");
  EMBER_CHECK(index.dim() == 0, "operator[]: can only index with tensors that are scalars (zero-dim), got shape {}",
              index.sizes());
  return (*this)[index.item()];
}

Tensor Tensor::index(std::initializer_list<TensorIndex> indices) const {
  return index(ArrayRef<TensorIndex>(indices.begin(), indices.size()));
}

Tensor Tensor::index(ArrayRef<TensorIndex> indices) const {
  EMBER_TRACE_OP();
  if (indices.size() == 1 && indices[0].is_integer()) return select_checked(*this, 0, indices[0].integer(), 0, "index");
  OptionalTensors tensor_indices;
  Tensor sliced = apply_slicing(*this, indices, tensor_indices, "index");
  if (!has_tensor(tensor_indices)) return alias_of(*this, sliced);
  return advanced_index(sliced, tensor_indices);
}

Tensor Tensor::index(const std::vector<std::optional<Tensor>>& indices) const {
  EMBER_TRACE_OP();
  if (!has_tensor(indices)) return alias_of(*this, *this);
  return advanced_index(*this, indices);
}

Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices, const Tensor& values) {
  return index_put_(ArrayRef<TensorIndex>(indices.begin(), indices.size()), values);
}
Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices, const Scalar& value) {
  return index_put_(ArrayRef<TensorIndex>(indices.begin(), indices.size()), value);
}
Tensor& Tensor::index_put_(ArrayRef<TensorIndex> indices, const Scalar& value) {
  return index_put_(indices, scalar_tensor(value, options()));
}

// libtorch's set_item: basic indices select a view that values are copied into; tensor indices
// go to the ATen form with values' leading size-1 dims dropped.
Tensor& Tensor::index_put_(ArrayRef<TensorIndex> indices, const Tensor& values) {
  EMBER_TRACE_OP();
  EMBER_CHECK(values.defined(), "index_put_: values is an undefined tensor");
  if (indices.size() == 1 && indices[0].is_boolean() && !indices[0].boolean()) return *this;
  OptionalTensors tensor_indices;
  Tensor sliced = apply_slicing(*this, indices, tensor_indices, "index_put_");
  if (!has_tensor(tensor_indices)) {
    copy_to(sliced, values);
    return *this;
  }
  IntArrayRef s = values.sizes();
  while (!s.empty() && s.front() == 1) s = s.slice(1);
  sliced.index_put_(tensor_indices, values.reshape(s));
  return *this;
}

Tensor& Tensor::index_put_(const std::vector<std::optional<Tensor>>& indices, const Tensor& values, bool accumulate) {
  EMBER_TRACE_OP();
  EMBER_CHECK(values.defined(), "index_put_: values is an undefined tensor");
  EMBER_CHECK(values.dtype() == dtype(),
              "index_put_: Index put requires the source and destination dtypes match, got {} for the destination "
              "and {} for the source.",
              scalar_type_name(dtype()), scalar_type_name(values.dtype()));
  if (!has_tensor(indices)) {
    EMBER_CHECK(!accumulate, "index_put_: accumulate needs at least one index tensor");
    copy_to(*this, values);
    return *this;
  }
  autograd::check_inplace(*this, "index_put_");
  const AdvancedPlan plan = plan_advanced(*this, indices, "index_put_");
  const Tensor base = autograd::any_requires_grad({this}) ? clone() : detach();
  autograd::commit_inplace(*this, index_put_value(base, plan, values, accumulate));
  return *this;
}

Tensor Tensor::index_put(const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
                         bool accumulate) const {
  EMBER_TRACE_OP();
  return clone().index_put_(indices, values, accumulate);
}

// ---- nonzero and masked_select ----

// The coordinates of the non-zero elements, one row each, in row-major order: (n, dim) int64.
Tensor Tensor::nonzero() const {
  EMBER_TRACE_OP();
  NoGradGuard no_grad;
  const TensorOptions long_options = TensorOptions().dtype(kInt64).device(device());
  if (dim() == 0) return zeros({item<bool>() ? 1 : 0, 0}, long_options);  // a 0-dim tensor has no coordinates
  const tensor_list coords = mask_to_indices(ne(0));
  return stack(coords, 1);
}
Tensor Tensor::argwhere() const { return nonzero(); }

// The elements where mask (broadcast with self) is true, as a 1-d tensor; the gradient goes back to
// those positions.
Tensor Tensor::masked_select(const Tensor& mask) const {
  EMBER_TRACE_OP();
  EMBER_CHECK(mask.dtype() == kBool, "masked_select: expected BoolTensor for mask, got {} (shape {})",
              dtype_name(mask.dtype()), mask.sizes());
  const std::vector<int64_t> shape = broadcast_shapes(sizes(), mask.sizes(), "masked_select");
  return expand(shape).index({TensorIndex(mask.expand(shape))});
}

}  // namespace ember
