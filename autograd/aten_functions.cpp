// ATen's free functions composed from Ember's ops (autograd/aten_functions.h). The differentiable ones
// are views, products, cat and gather, so their backward is those ops'; the searching and counting
// ones read the values on the host.
#include "autograd/aten_functions.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <unordered_set>
#include <vector>

#include "autograd/autocast.h"
#include "autograd/grad_mode.h"
#include "core/error.h"
#include "core/shape.h"
#include "core/trace.h"

namespace ember {

namespace {

// The values of t on the host, flattened, as doubles or as int64.
std::vector<double> host_doubles(const Tensor& t) {
  return t.detach().to(kCPU).to(kFloat64).contiguous().to_vector<double>();
}
std::vector<int64_t> host_longs(const Tensor& t) {
  return t.detach().to(kCPU).to(kInt64).contiguous().to_vector<int64_t>();
}
// For comparing values of any dtype exactly: x86's long double holds every int64 (a double rounds
// those above 2^53, so two different int64 values could compare equal) and every float.
std::vector<long double> host_values(const Tensor& t) {
  std::vector<long double> out;
  if (t.is_floating_point()) {
    for (double v : host_doubles(t)) out.push_back(v);
  } else {
    for (int64_t v : host_longs(t)) out.push_back(static_cast<long double>(v));
  }
  return out;
}

Tensor index_tensor(const std::vector<int64_t>& values, IntArrayRef sizes, bool out_int32, Device device) {
  Tensor t = from_vector<int64_t>(values, sizes);
  if (out_int32) t = t.to(kInt32);
  return t.to(device);
}

void check_integral_index(const Tensor& t, const char* op, const char* what) {
  EMBER_CHECK(
      t.dtype() == kInt64 || t.dtype() == kInt32 || t.dtype() == kInt16 || t.dtype() == kInt8 || t.dtype() == kUInt8,
      "{}: {} must be an integer tensor, got {} (shape {})", op, what, dtype_name(t.dtype()), t.sizes());
}

}  // namespace

// ---- products ----

// a (a0, a1, ...) and b (b0, b1, ...) as (a0, 1, a1, 1, ...) * (1, b0, 1, b1, ...), then each pair of
// dims merged: element (i0 * b0 + j0, ...) is a[i] * b[j].
Tensor kron(const Tensor& self, const Tensor& other) {
  EMBER_TRACE_OP();
  const int64_t n = std::max(self.dim(), other.dim());
  std::vector<int64_t> as(n - self.dim(), 1), bs(n - other.dim(), 1);
  as.insert(as.end(), self.sizes().begin(), self.sizes().end());
  bs.insert(bs.end(), other.sizes().begin(), other.sizes().end());
  std::vector<int64_t> a_shape, b_shape, out_shape;
  for (int64_t d = 0; d < n; ++d) {
    a_shape.insert(a_shape.end(), {as[d], 1});
    b_shape.insert(b_shape.end(), {1, bs[d]});
    out_shape.push_back(as[d] * bs[d]);
  }
  return (self.reshape(a_shape) * other.reshape(b_shape)).reshape(out_shape);
}

Tensor tensordot(const Tensor& a, const Tensor& b, IntArrayRef dims_a, IntArrayRef dims_b) {
  EMBER_TRACE_OP();
  EMBER_CHECK(dims_a.size() == dims_b.size(), "tensordot: both dimension lists should have same length (got {} and {})",
              dims_a.size(), dims_b.size());
  std::vector<int64_t> da, db;  // wrapped one by one: pairs stay in their order
  for (int64_t d : dims_a) da.push_back(wrap_dim(d, a.dim(), "tensordot"));
  for (int64_t d : dims_b) db.push_back(wrap_dim(d, b.dim(), "tensordot"));
  int64_t contracted = 1;
  for (size_t i = 0; i < da.size(); ++i) {
    EMBER_CHECK(a.size(da[i]) == b.size(db[i]),
                "tensordot: contracted dimensions need to match, but first has size {} in dim {} and second has size "
                "{} in dim {} (shapes {} and {})",
                a.size(da[i]), da[i], b.size(db[i]), db[i], a.sizes(), b.sizes());
    contracted *= a.size(da[i]);
  }
  std::vector<int64_t> perm_a, perm_b, out_shape;
  int64_t free_a = 1, free_b = 1;
  for (int64_t d = 0; d < a.dim(); ++d) {
    if (std::find(da.begin(), da.end(), d) != da.end()) continue;
    perm_a.push_back(d);
    out_shape.push_back(a.size(d));
    free_a *= a.size(d);
  }
  perm_a.insert(perm_a.end(), da.begin(), da.end());
  perm_b.assign(db.begin(), db.end());
  for (int64_t d = 0; d < b.dim(); ++d) {
    if (std::find(db.begin(), db.end(), d) != db.end()) continue;
    perm_b.push_back(d);
    out_shape.push_back(b.size(d));
    free_b *= b.size(d);
  }
  const Tensor a2 = a.permute(perm_a).reshape({free_a, contracted});
  const Tensor b2 = b.permute(perm_b).reshape({contracted, free_b});
  return a2.mm(b2).reshape(out_shape);
}

// Every pair of rows differenced, then the p-norm over the last dim: PyTorch's direct computation
// (its matrix-product shortcut for p = 2 with more than 25 rows rounds differently, within 1e-6).
Tensor cdist(const Tensor& x1, const Tensor& x2, double p, std::optional<int64_t> compute_mode) {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::cdist, {x1, x2}})
    return cdist(cast[0], cast[1], p, compute_mode);
  EMBER_CHECK(x1.dim() >= 2, "cdist only supports at least 2D tensors, X1 got: {}D (shape {})", x1.dim(), x1.sizes());
  EMBER_CHECK(x2.dim() >= 2, "cdist only supports at least 2D tensors, X2 got: {}D (shape {})", x2.dim(), x2.sizes());
  EMBER_CHECK(x1.size(-1) == x2.size(-1),
              "cdist: X1 and X2 must have the same number of columns. X1: {} X2: {} (shapes {} and {})", x1.size(-1),
              x2.size(-1), x1.sizes(), x2.sizes());
  EMBER_CHECK(x1.is_floating_point() && x2.is_floating_point(),
              "cdist only supports floating-point dtypes, X1 got: {}, X2 got: {}", dtype_name(x1.dtype()),
              dtype_name(x2.dtype()));
  EMBER_CHECK(p >= 0, "cdist only supports non-negative p values (got p = {})", p);
  EMBER_CHECK(!compute_mode || (*compute_mode >= 0 && *compute_mode <= 2),
              "cdist: possible modes: 0, 1, 2, but was: {}", compute_mode.value_or(0));
  const Tensor diff = x1.unsqueeze(-2) - x2.unsqueeze(-3);  // (..., P, R, M)
  if (x1.size(-1) == 0) return diff.sum({-1});              // no columns: every distance is 0
  // p = 0 counts the differing columns; through sign, whose gradient is 0 (PyTorch's is zeros too).
  if (p == 0) return diff.sign().abs().sum({-1});
  return diff.norm(Scalar(p), {-1});
}

namespace {
Tensor cross_along(const Tensor& self, const Tensor& other, int64_t dim, const char* op) {
  EMBER_CHECK(self.dim() == other.dim(), "{}: inputs must have the same number of dimensions (shapes {} and {})", op,
              self.sizes(), other.sizes());
  const std::vector<int64_t> shape = broadcast_shapes(self.sizes(), other.sizes(), op);
  const Tensor a = self.expand(shape), b = other.expand(shape);
  const int64_t d = wrap_dim(dim, static_cast<int64_t>(shape.size()), op);
  EMBER_CHECK(shape[d] == 3, "{}: inputs dimension {} must have length 3 (shapes {} and {})", op, dim, self.sizes(),
              other.sizes());
  auto at = [&](const Tensor& t, int64_t i) { return t.narrow(d, i, 1); };
  return cat({at(a, 1) * at(b, 2) - at(a, 2) * at(b, 1), at(a, 2) * at(b, 0) - at(a, 0) * at(b, 2),
              at(a, 0) * at(b, 1) - at(a, 1) * at(b, 0)},
             d);
}
}  // namespace

Tensor cross(const Tensor& self, const Tensor& other, std::optional<int64_t> dim) {
  EMBER_TRACE_OP();
  if (dim) return cross_along(self, other, *dim, "cross");
  const std::vector<int64_t> shape = broadcast_shapes(self.sizes(), other.sizes(), "cross");
  const auto first3 = std::find(shape.begin(), shape.end(), 3);
  EMBER_CHECK(first3 != shape.end(), "cross: no dimension of size 3 in input (shapes {} and {})", self.sizes(),
              other.sizes());
  return cross_along(self, other, first3 - shape.begin(), "cross");
}

Tensor linalg_cross(const Tensor& self, const Tensor& other, int64_t dim) {
  EMBER_TRACE_OP();
  return cross_along(self, other, dim, "linalg_cross");
}

Tensor cartesian_prod(const tensor_list& tensors) {
  EMBER_TRACE_OP();
  EMBER_CHECK(!tensors.empty(), "cartesian_prod: expects a non-empty TensorList");
  for (const Tensor& t : tensors)
    EMBER_CHECK(t.dim() == 1, "cartesian_prod: Expect a 1D vector, but got shape {}", t.sizes());
  if (tensors.size() == 1) return tensors[0];
  tensor_list grids = meshgrid(tensors, "ij");
  for (Tensor& g : grids) g = g.flatten();
  return stack(grids, 1);
}

// ---- arranging ----

namespace {
// Index i repeated counts[i] times, along dim of self (or of the flattened self).
Tensor repeat_by_counts(const Tensor& self, const std::vector<int64_t>& counts, std::optional<int64_t> dim,
                        std::optional<int64_t> output_size) {
  const Tensor input = dim ? self : self.flatten();
  const int64_t d = dim ? wrap_dim(*dim, std::max<int64_t>(self.dim(), 1), "repeat_interleave") : 0;
  const int64_t n = input.dim() == 0 ? 1 : input.size(d);
  EMBER_CHECK(counts.size() == 1 || static_cast<int64_t>(counts.size()) == n,
              "repeat_interleave: repeats must have the same size as input along dim (got {} repeats for size {})",
              counts.size(), n);
  std::vector<int64_t> index;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t r = counts.size() == 1 ? counts[0] : counts[i];
    EMBER_CHECK(r >= 0, "repeat_interleave: repeats can not be negative (got {})", r);
    index.insert(index.end(), r, i);
  }
  EMBER_CHECK(!output_size || *output_size == static_cast<int64_t>(index.size()),
              "repeat_interleave: output_size {} is not the sum of repeats, {}", output_size.value_or(0), index.size());
  const Tensor idx = from_vector<int64_t>(index, {static_cast<int64_t>(index.size())}).to(self.device());
  return input.dim() == 0 ? input.reshape({1}).index_select(0, idx) : input.index_select(d, idx);
}
}  // namespace

Tensor repeat_interleave(const Tensor& self, int64_t repeats, std::optional<int64_t> dim,
                         std::optional<int64_t> output_size) {
  EMBER_TRACE_OP();
  return repeat_by_counts(self, {repeats}, dim, output_size);
}

Tensor repeat_interleave(const Tensor& self, const Tensor& repeats, std::optional<int64_t> dim,
                         std::optional<int64_t> output_size) {
  EMBER_TRACE_OP();
  check_integral_index(repeats, "repeat_interleave", "repeats");
  EMBER_CHECK(repeats.dim() <= 1, "repeat_interleave: repeats must be 0-dim or 1-dim tensor (got shape {})",
              repeats.sizes());
  return repeat_by_counts(self, host_longs(repeats), dim, output_size);
}

Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> output_size) {
  EMBER_TRACE_OP();
  check_integral_index(repeats, "repeat_interleave", "repeats");
  EMBER_CHECK(repeats.dim() == 1, "repeat_interleave: repeats must be 1-d (got shape {})", repeats.sizes());
  return repeat_by_counts(arange(repeats.size(0), dtype(kInt64).device(repeats.device())), host_longs(repeats), 0,
                          output_size);
}

Tensor take_along_dim(const Tensor& self, const Tensor& indices, std::optional<int64_t> dim) {
  EMBER_TRACE_OP();
  EMBER_CHECK(indices.dtype() == kInt64, "torch.take_along_dim(): dtype of indices should be Long but got {}",
              dtype_name(indices.dtype()));
  if (!dim) return self.flatten().gather(0, indices.flatten());
  EMBER_CHECK(self.dim() == indices.dim(),
              "torch.take_along_dim(): input and indices should have the same number of dimensions, but got {} "
              "dimensions for input, and {} dimensions for indices",
              self.dim(), indices.dim());
  const int64_t d = wrap_dim(*dim, self.dim(), "take_along_dim");
  std::vector<int64_t> self_shape = self.sizes().vec(), index_shape = indices.sizes().vec();
  self_shape[d] = 1;
  index_shape[d] = 1;
  std::vector<int64_t> shape = broadcast_shapes(self_shape, index_shape, "take_along_dim");
  std::vector<int64_t> self_target = shape, index_target = shape;
  self_target[d] = self.size(d);
  index_target[d] = indices.size(d);
  return self.expand(self_target).gather(d, indices.expand(index_target));
}

Tensor rot90(const Tensor& self, int64_t k, IntArrayRef dims) {
  EMBER_TRACE_OP();
  EMBER_CHECK(dims.size() == 2, "rot90: expected total rotation dims == 2, but got dims = {}", dims.size());
  EMBER_CHECK(self.dim() >= 2, "rot90: expected total dims >= 2, but got total dims = {}", self.dim());
  const int64_t d0 = wrap_dim(dims[0], self.dim(), "rot90"), d1 = wrap_dim(dims[1], self.dim(), "rot90");
  EMBER_CHECK(d0 != d1, "rot90: expected rotation dims to be different, but got dim0 = {} and dim1 = {}", dims[0],
              dims[1]);
  switch (((k % 4) + 4) % 4) {
    case 1:
      return self.flip({d1}).transpose(d0, d1);
    case 2:
      return self.flip({d0, d1});
    case 3:
      return self.flip({d0}).transpose(d0, d1);
    default:
      return self.clone();
  }
}

// The input's rows added into the flattened (m, m) matrices at the diagonal's positions (index_add,
// which carries the gradient back to them), then the two new dims moved to dim1 and dim2.
Tensor diag_embed(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  EMBER_TRACE_OP();
  EMBER_CHECK(self.dim() >= 1, "diag_embed: the input must have at least 1 dimension (got shape {})", self.sizes());
  const int64_t out_dim = self.dim() + 1;
  const int64_t d1 = wrap_dim(dim1, out_dim, "diag_embed"), d2 = wrap_dim(dim2, out_dim, "diag_embed");
  EMBER_CHECK(d1 != d2, "diag_embed: diagonal dimensions cannot be identical {}, {}", dim1, dim2);
  const int64_t n = self.size(-1), m = n + std::abs(offset);
  std::vector<int64_t> positions(n);
  for (int64_t i = 0; i < n; ++i) positions[i] = offset >= 0 ? i * m + i + offset : (i - offset) * m + i;
  std::vector<int64_t> batch = self.sizes().vec();
  batch.pop_back();
  const int64_t rows = numel_of(batch);
  const Tensor flat = self.reshape({rows, n});
  const Tensor index = from_vector<int64_t>(positions, {n}).to(self.device());
  Tensor out = zeros({rows, m * m}, self.options()).index_add(1, index, flat);
  std::vector<int64_t> shape = batch;
  shape.insert(shape.end(), {m, m});
  return out.reshape(shape).movedim({out_dim - 2, out_dim - 1}, {d1, d2});  // rows to dim1, columns to dim2
}

Tensor block_diag(const tensor_list& tensors) {
  EMBER_TRACE_OP();
  if (tensors.empty()) return empty({1, 0});
  ScalarType type = tensors[0].dtype();
  std::vector<Tensor> mats;
  int64_t cols = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    EMBER_CHECK(t.dim() <= 2,
                "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {} has {} dimensions", i,
                t.dim());
    type = promote_types(type, t.dtype());
    mats.push_back(t.dim() == 2 ? t : t.reshape({1, t.numel()}));
    cols += mats.back().size(1);
  }
  tensor_list rows;
  int64_t before = 0;
  for (const Tensor& mat : mats) {
    const int64_t r = mat.size(0), c = mat.size(1);
    const TensorOptions options = mat.options().dtype(type);
    rows.push_back(cat({zeros({r, before}, options), mat.to(type), zeros({r, cols - before - c}, options)}, 1));
    before += c;
  }
  return cat(rows, 0);
}

namespace {
Tensor triangle_indices(int64_t row, int64_t col, int64_t offset, const TensorOptions& options, bool lower,
                        const char* op) {
  EMBER_CHECK(row >= 0, "{}: row must be non-negative, got {}", op, row);
  EMBER_CHECK(col >= 0, "{}: col must be non-negative, got {}", op, col);
  std::vector<int64_t> rs, cs;
  for (int64_t i = 0; i < row; ++i) {
    for (int64_t j = 0; j < col; ++j) {
      if (lower ? j - i <= offset : j - i >= offset) {
        rs.push_back(i);
        cs.push_back(j);
      }
    }
  }
  const int64_t n = static_cast<int64_t>(rs.size());
  rs.insert(rs.end(), cs.begin(), cs.end());
  return from_vector<int64_t>(rs, {2, n}).to(options);
}
}  // namespace

Tensor tril_indices(int64_t row, int64_t col, int64_t offset, const TensorOptions& options) {
  EMBER_TRACE_OP();
  return triangle_indices(row, col, offset, options, /*lower=*/true, "tril_indices");
}

Tensor triu_indices(int64_t row, int64_t col, int64_t offset, const TensorOptions& options) {
  EMBER_TRACE_OP();
  return triangle_indices(row, col, offset, options, /*lower=*/false, "triu_indices");
}

Tensor fliplr(const Tensor& self) {
  EMBER_TRACE_OP();
  EMBER_CHECK(self.dim() >= 2, "Input must be >= 2-d.");
  return self.flip({1});
}

Tensor flipud(const Tensor& self) {
  EMBER_TRACE_OP();
  EMBER_CHECK(self.dim() >= 1, "Input must be >= 1-d.");
  return self.flip({0});
}

namespace {
// hsplit/vsplit/dsplit: tensor_split along `dim` of a tensor with at least min_dims dims.
tensor_list split_along(const char* op, const Tensor& self, int64_t min_dims, int64_t dim,
                        std::optional<int64_t> sections, IntArrayRef indices) {
  EMBER_CHECK(self.dim() >= min_dims,
              "torch.{} requires a tensor with at least {} dimension, but got a tensor with {} "
              "dimensions!",
              op, min_dims, self.dim());
  if (!sections) return self.tensor_split(indices, dim);
  EMBER_CHECK(*sections != 0 && self.size(dim) % *sections == 0,
              "torch.{} attempted to split along dimension {}, but the size of the dimension {} is not divisible by "
              "the split_size {}!",
              op, dim, self.size(dim), *sections);
  return self.tensor_split(*sections, dim);
}
}  // namespace

tensor_list hsplit(const Tensor& self, int64_t sections) {
  EMBER_TRACE_OP();
  return split_along("hsplit", self, 1, self.dim() == 1 ? 0 : 1, sections, {});
}
tensor_list hsplit(const Tensor& self, IntArrayRef indices) {
  EMBER_TRACE_OP();
  return split_along("hsplit", self, 1, self.dim() == 1 ? 0 : 1, std::nullopt, indices);
}
tensor_list vsplit(const Tensor& self, int64_t sections) {
  EMBER_TRACE_OP();
  return split_along("vsplit", self, 2, 0, sections, {});
}
tensor_list vsplit(const Tensor& self, IntArrayRef indices) {
  EMBER_TRACE_OP();
  return split_along("vsplit", self, 2, 0, std::nullopt, indices);
}
tensor_list dsplit(const Tensor& self, int64_t sections) {
  EMBER_TRACE_OP();
  return split_along("dsplit", self, 3, 2, sections, {});
}
tensor_list dsplit(const Tensor& self, IntArrayRef indices) {
  EMBER_TRACE_OP();
  return split_along("dsplit", self, 3, 2, std::nullopt, indices);
}

Tensor concat(const tensor_list& tensors, int64_t dim) { return cat(tensors, dim); }
Tensor concatenate(const tensor_list& tensors, int64_t dim) { return cat(tensors, dim); }

tensor_list broadcast_tensors(const tensor_list& tensors) {
  EMBER_TRACE_OP();
  std::vector<int64_t> shape;
  for (const Tensor& t : tensors) shape = broadcast_shapes(shape, t.sizes(), "broadcast_tensors");
  tensor_list out;
  for (const Tensor& t : tensors) out.push_back(t.expand(shape));
  return out;
}

Tensor diagflat(const Tensor& self, int64_t offset) {
  EMBER_TRACE_OP();
  return self.contiguous().view({-1}).diag(offset);
}

Tensor msort(const Tensor& self) {
  EMBER_TRACE_OP();
  return std::get<0>(self.sort(0));
}

Tensor take(const Tensor& self, const Tensor& index) {
  EMBER_TRACE_OP();
  EMBER_CHECK(index.dtype() == kInt64, "take(): Expected a long tensor for index, but got {}",
              dtype_name(index.dtype()));
  const int64_t n = self.numel();
  for (int64_t i : host_longs(index))
    EMBER_CHECK(i >= -n && i < n, "out of range: tried to access index {} on a tensor of {} elements.", i, n);
  const Tensor flat = index.reshape({-1});
  return self.reshape({-1}).index_select(0, flat.remainder(std::max<int64_t>(n, 1))).view(index.sizes());
}

// On the host, so that the sign of a NaN and of -0.0 count (x < 0 sees neither).
Tensor signbit(const Tensor& self) {
  EMBER_TRACE_OP();
  if (!self.is_floating_point()) return self.lt(0);
  std::vector<uint8_t> bits;
  for (double v : host_doubles(self)) bits.push_back(std::signbit(v) ? 1 : 0);
  return from_vector<uint8_t>(bits, self.sizes()).to(kBool).to(self.device());
}

// ---- cumulative extremes ----

namespace {
// The index of the running extreme along dim (the last of ties; NaN, once seen, stays the extreme),
// then the values gathered there, so that the gradient goes to the element each value came from.
std::tuple<Tensor, Tensor> cumulative_extreme(const Tensor& self, int64_t dim, bool is_max, const char* op) {
  const int64_t d = wrap_dim(dim, std::max<int64_t>(self.dim(), 1), op);
  if (self.dim() == 0) return {self.clone(), zeros({}, dtype(kInt64).device(self.device()))};
  const Tensor moved = self.movedim(d, -1).contiguous();
  const int64_t n = moved.size(-1), rows = n == 0 ? 0 : moved.numel() / n;
  const std::vector<long double> v = host_values(moved);
  std::vector<int64_t> index(v.size());
  for (int64_t r = 0; r < rows; ++r) {
    int64_t best = 0;
    for (int64_t j = 0; j < n; ++j) {
      const long double x = v[r * n + j], b = v[r * n + best];
      if (std::isnan(b)) {
        // a NaN stays the extreme
      } else if (std::isnan(x) || (is_max ? x >= b : x <= b)) {
        best = j;
      }
      index[r * n + j] = best;
    }
  }
  const Tensor indices = from_vector<int64_t>(index, moved.sizes()).to(self.device()).movedim(-1, d).contiguous();
  return {self.gather(d, indices), indices};
}
}  // namespace

std::tuple<Tensor, Tensor> cummax(const Tensor& self, int64_t dim) {
  EMBER_TRACE_OP();
  return cumulative_extreme(self, dim, /*is_max=*/true, "cummax");
}

std::tuple<Tensor, Tensor> cummin(const Tensor& self, int64_t dim) {
  EMBER_TRACE_OP();
  return cumulative_extreme(self, dim, /*is_max=*/false, "cummin");
}

// ---- searching and counting ----

namespace {
// For each value of self, its insertion point in the innermost rows of seq (sorted, or sorted through
// `order`): the first index whose value is >= it (right: > it).
Tensor insertion_points(const Tensor& seq, const Tensor& self, bool out_int32, bool right,
                        const std::optional<Tensor>& sorter, const char* op) {
  const bool one_d = seq.dim() == 1;
  if (!one_d) {
    EMBER_CHECK(seq.dim() == self.dim() && std::equal(seq.sizes().begin(), seq.sizes().end() - 1, self.sizes().begin()),
                "{}: boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries tensor and "
                "input value tensor must match, but we got boundaries tensor {} and input value tensor {}",
                op, seq.sizes(), self.sizes());
  }
  const int64_t len = seq.dim() == 0 ? 1 : seq.size(-1);
  const std::vector<long double> s = host_values(seq.dim() == 0 ? seq.reshape({1}) : seq);
  std::vector<int64_t> order;
  if (sorter) {
    EMBER_CHECK(sorter->sizes() == seq.sizes(),
                "{}: boundaries and sorter must have the same size, but got boundaries tensor {} and sorter tensor {}",
                op, seq.sizes(), sorter->sizes());
    check_integral_index(*sorter, op, "sorter");
    order = host_longs(*sorter);
    for (int64_t o : order)
      EMBER_CHECK(o >= 0 && o < len, "{}: sorter index out of range (got {} for size {})", op, o, len);
  }
  const std::vector<long double> x = host_values(self);
  const int64_t inner = self.dim() == 0 ? 1 : self.size(-1);
  std::vector<int64_t> out(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const int64_t base = one_d ? 0 : static_cast<int64_t>(i) / std::max<int64_t>(inner, 1) * len;
    auto value = [&](int64_t j) { return sorter ? s[base + order[base + j]] : s[base + j]; };
    int64_t lo = 0, hi = len;  // binary search for the first j whose value is >= x (right: > x)
    while (lo < hi) {
      const int64_t mid = (lo + hi) / 2;
      if (right ? value(mid) <= x[i] : value(mid) < x[i])
        lo = mid + 1;
      else
        hi = mid;
    }
    out[i] = lo;
  }
  return index_tensor(out, self.sizes(), out_int32, self.device());
}

bool right_side(bool right, std::optional<std::string_view> side, const char* op) {
  if (!side) return right;
  EMBER_CHECK(*side == "left" || *side == "right", "{}: side can only be 'left' or 'right' but got {}", op,
              std::string(*side));
  EMBER_CHECK(!(right && *side == "left"),
              "torch.searchsorted(): side and right can't be set to opposites, got side of left while right was True");
  return *side == "right";
}
}  // namespace

Tensor bucketize(const Tensor& self, const Tensor& boundaries, bool out_int32, bool right) {
  EMBER_TRACE_OP();
  EMBER_CHECK(boundaries.dim() == 1, "bucketize: boundaries tensor must be 1 dimension, but got dim({})",
              boundaries.dim());
  return insertion_points(boundaries, self, out_int32, right, std::nullopt, "bucketize");
}

Tensor bucketize(const Scalar& self, const Tensor& boundaries, bool out_int32, bool right) {
  return bucketize(scalar_tensor(self, boundaries.options()), boundaries, out_int32, right);
}

Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& self, bool out_int32, bool right,
                    std::optional<std::string_view> side, const std::optional<Tensor>& sorter) {
  EMBER_TRACE_OP();
  return insertion_points(sorted_sequence, self, out_int32, right_side(right, side, "searchsorted"), sorter,
                          "searchsorted");
}

Tensor searchsorted(const Tensor& sorted_sequence, const Scalar& self, bool out_int32, bool right,
                    std::optional<std::string_view> side, const std::optional<Tensor>& sorter) {
  EMBER_CHECK(sorted_sequence.dim() == 1,
              "searchsorted: input value can be a scalar only when boundaries tensor dimension is 1, but we got "
              "boundaries tensor dim({})",
              sorted_sequence.dim());
  return searchsorted(sorted_sequence, scalar_tensor(self, sorted_sequence.options()), out_int32, right, side, sorter);
}

Tensor histc(const Tensor& self, int64_t bins, const Scalar& min, const Scalar& max) {
  EMBER_TRACE_OP();
  EMBER_CHECK(self.is_floating_point(), "histc: \"histogram_cpu\" not implemented for '{}'", dtype_name(self.dtype()));
  EMBER_CHECK(bins > 0, "torch.histogram(): bins must be > 0, but got {} for dimension 0", bins);
  const std::vector<double> x = host_doubles(self);
  double lo = min.toDouble(), hi = max.toDouble();
  if (lo == hi && !x.empty()) {
    lo = *std::min_element(x.begin(), x.end());
    hi = *std::max_element(x.begin(), x.end());
  }
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  EMBER_CHECK(std::isfinite(lo) && std::isfinite(hi), "torch.histc: range of [{}, {}] is not finite", lo, hi);
  EMBER_CHECK(lo < hi, "torch.histc: max must be larger than min (min {}, max {})", lo, hi);
  std::vector<double> counts(bins, 0.0);
  for (double v : x) {
    if (!(v >= lo && v <= hi)) continue;  // outside, or NaN
    int64_t b = static_cast<int64_t>((v - lo) * static_cast<double>(bins) / (hi - lo));
    counts[std::min(b, bins - 1)] += 1;
  }
  return from_vector<double>(counts, {bins}).to(self.dtype()).to(self.device());
}

Tensor bincount(const Tensor& self, const std::optional<Tensor>& weights, int64_t minlength) {
  EMBER_TRACE_OP();
  EMBER_CHECK(minlength >= 0, "bincount: minlength should be >= 0 (got {})", minlength);
  EMBER_CHECK(!self.is_floating_point() && self.dtype() != kBool, "bincount: \"bincount_cpu\" not implemented for '{}'",
              dtype_name(self.dtype()));
  const std::vector<int64_t> x = host_longs(self);
  EMBER_CHECK(self.dim() == 1 && std::all_of(x.begin(), x.end(), [](int64_t v) { return v >= 0; }),
              "bincount only supports 1-d non-negative integral inputs (got shape {})", self.sizes());
  const bool weighted = weights.has_value() && weights->defined();
  if (weighted)
    EMBER_CHECK(weights->dim() == 1 && weights->size(0) == self.size(0),
                "bincount: weights should be 1-d and have the same length as input (shapes {} and {})", self.sizes(),
                weights->sizes());
  const int64_t length = std::max(x.empty() ? 0 : *std::max_element(x.begin(), x.end()) + 1, minlength);
  const std::vector<double> w = weighted ? host_doubles(*weights) : std::vector<double>();
  std::vector<double> counts(length, 0.0);
  for (size_t i = 0; i < x.size(); ++i) counts[x[i]] += weighted ? w[i] : 1.0;
  const ScalarType type = !weighted ? kInt64 : (weights->dtype() == kFloat32 ? kFloat32 : kFloat64);
  return from_vector<double>(counts, {length}).to(type).to(self.device());
}

Tensor isin(const Tensor& elements, const Tensor& test_elements, bool assume_unique, bool invert) {
  EMBER_TRACE_OP();
  const std::vector<long double> x = host_values(elements), t = host_values(test_elements);
  const std::unordered_set<long double> members(t.begin(), t.end());
  std::vector<uint8_t> out(x.size());
  for (size_t i = 0; i < x.size(); ++i) out[i] = (members.count(x[i]) > 0) != invert;
  return from_vector<uint8_t>(out, elements.sizes()).to(kBool).to(elements.device());
}

Tensor isin(const Tensor& elements, const Scalar& test_element, bool assume_unique, bool invert) {
  return isin(elements, scalar_tensor(test_element, dtype(test_element.type())), assume_unique, invert);
}

Tensor isin(const Scalar& element, const Tensor& test_elements, bool assume_unique, bool invert) {
  return isin(scalar_tensor(element, dtype(element.type())), test_elements, assume_unique, invert);
}

}  // namespace ember
