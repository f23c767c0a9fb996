// Ops that arrange elements, composed from views, cat and the elementwise ops, so their gradients
// come from those: movedim, tile, tensor_split, diff, diag and trace, libtorch's stacking helpers
// (hstack, vstack, dstack, column_stack), atleast_1d/2d/3d and meshgrid.
#include <algorithm>
#include <numeric>
#include <string_view>

#include "core/shape.h"
#include "core/tensor.h"
#include "core/trace.h"

namespace ember {

// The dims `source` moved to `destination`, the others keeping their order in the remaining places.
Tensor Tensor::movedim(IntArrayRef source, IntArrayRef destination) const {
  EMBER_TRACE_OP();
  EMBER_CHECK(source.size() == destination.size(),
              "movedim: Invalid source or destination dims: source ({} dims) should contain the same number of dims "
              "as destination ({} dims)",
              source, destination);
  std::vector<int64_t> src, dst;  // wrapped one by one, in the order given (wrap_dims sorts)
  for (int64_t d : source) src.push_back(wrap_dim(d, dim(), "movedim"));
  for (int64_t d : destination) dst.push_back(wrap_dim(d, dim(), "movedim"));
  for (const auto* dims : {&src, &dst}) {
    std::vector<int64_t> sorted = *dims;
    std::sort(sorted.begin(), sorted.end());
    EMBER_CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end(), "movedim: repeated dim in `{}` ({})",
                dims == &src ? "source" : "destination", dims == &src ? source : destination);
  }
  std::vector<int64_t> order(dim(), -1);
  std::vector<bool> moved(dim(), false);
  for (size_t i = 0; i < src.size(); ++i) {
    order[dst[i]] = src[i];
    moved[src[i]] = true;
  }
  int64_t next = 0;  // the dims that stay, in order, into the places left
  for (int64_t& o : order) {
    if (o != -1) continue;
    while (moved[next]) ++next;
    o = next++;
  }
  return permute(order);
}
Tensor Tensor::movedim(int64_t source, int64_t destination) const {
  return movedim(IntArrayRef{source}, IntArrayRef{destination});
}

// repeat, with ones prepended to `reps` when it has fewer entries than this tensor has dims.
Tensor Tensor::tile(IntArrayRef reps) const {
  EMBER_TRACE_OP();
  std::vector<int64_t> full = reps.vec();
  if (static_cast<int64_t>(full.size()) < dim()) full.insert(full.begin(), dim() - full.size(), 1);
  return repeat(full);
}

// `sections` nearly equal parts along dim (the first size % sections one longer), as views.
tensor_list Tensor::tensor_split(int64_t sections, int64_t dim_) const {
  EMBER_TRACE_OP();
  EMBER_CHECK(sections > 0, "tensor_split: number of sections must be greater than 0, but was {}", sections);
  const int64_t d = wrap_dim(dim_, dim(), "tensor_split"), n = size(d);
  tensor_list parts;
  for (int64_t i = 0, start = 0; i < sections; ++i) {
    const int64_t len = n / sections + (i < n % sections ? 1 : 0);
    parts.push_back(narrow(d, start, len));
    start += len;
  }
  return parts;
}
// Parts split before each of `indices` (clamped to the dim's size), as views.
tensor_list Tensor::tensor_split(IntArrayRef indices, int64_t dim_) const {
  EMBER_TRACE_OP();
  const int64_t d = wrap_dim(dim_, dim(), "tensor_split"), n = size(d);
  tensor_list parts;
  int64_t start = 0;
  for (int64_t index : indices) {
    const int64_t end = std::clamp<int64_t>(index < 0 ? index + n : index, 0, n);
    parts.push_back(narrow(d, std::min(start, n), std::max<int64_t>(end - start, 0)));
    start = std::max(start, end);
  }
  parts.push_back(narrow(d, std::min(start, n), n - std::min(start, n)));
  return parts;
}

// The n-th forward difference along dim, after prepend and append are joined on; bool tensors
// differ by xor, as in PyTorch.
Tensor Tensor::diff(int64_t n, int64_t dim_, const Tensor& prepend, const Tensor& append) const {
  EMBER_TRACE_OP();
  EMBER_CHECK(dim() >= 1, "diff expects input to be at least one-dimensional");
  EMBER_CHECK(n >= 0, "order must be non-negative but got {}", n);
  const int64_t d = wrap_dim(dim_, dim(), "diff");
  tensor_list pieces;
  if (prepend.defined()) pieces.push_back(prepend);
  pieces.push_back(*this);
  if (append.defined()) pieces.push_back(append);
  Tensor x = pieces.size() == 1 ? *this : cat(pieces, d);
  for (int64_t i = 0; i < n && x.size(d) > 0; ++i) {
    const int64_t len = x.size(d) - 1;
    const Tensor later = x.narrow(d, 1, len), earlier = x.narrow(d, 0, len);
    x = x.dtype() == kBool ? later.logical_xor(earlier) : later - earlier;
  }
  return x;
}

// A 1-d tensor as the `diagonal`-th diagonal of a square matrix, or a 2-d tensor's diagonal as a copy.
Tensor Tensor::diag(int64_t diagonal) const {
  EMBER_TRACE_OP();
  EMBER_CHECK(dim() == 1 || dim() == 2, "diag(): Supports 1D or 2D tensors. Got {}D", dim());
  if (dim() == 2) return this->diagonal(diagonal).clone();
  // Element i lands at (i, i + k) for k >= 0, at (i - k, i) below: flat position i (m + 1) + k or - k m.
  const int64_t n = size(0), m = n + (diagonal < 0 ? -diagonal : diagonal);
  const int64_t start = diagonal >= 0 ? diagonal : -diagonal * m;
  const Tensor at = arange(start, start + n * (m + 1), m + 1, TensorOptions().dtype(kInt64).device(device()));
  return zeros({m * m}, options()).index_add(0, at, *this).reshape({m, m});
}

// The sum of a matrix's main diagonal (integers as int64).
Tensor Tensor::trace() const {
  EMBER_TRACE_OP();
  EMBER_CHECK(dim() == 2, "trace: expected a matrix, but got tensor with dim {}", dim());
  return diagonal().sum();
}

// ---- libtorch's stacking helpers ----

Tensor atleast_1d(const Tensor& t) { return t.dim() == 0 ? t.reshape({1}) : t; }
Tensor atleast_2d(const Tensor& t) {
  if (t.dim() == 0) return t.reshape({1, 1});
  return t.dim() == 1 ? t.unsqueeze(0) : t;
}
Tensor atleast_3d(const Tensor& t) {
  if (t.dim() == 0) return t.reshape({1, 1, 1});
  if (t.dim() == 1) return t.unsqueeze(0).unsqueeze(-1);
  return t.dim() == 2 ? t.unsqueeze(-1) : t;
}

namespace {
tensor_list each(const tensor_list& tensors, Tensor (*f)(const Tensor&), const char* op) {
  EMBER_CHECK(!tensors.empty(), "{} expects a non-empty TensorList", op);
  tensor_list out;
  for (const Tensor& t : tensors) out.push_back(f(t));
  return out;
}
}  // namespace

// Along dim 0 for 1-d tensors, else dim 1.
Tensor hstack(const tensor_list& tensors) {
  const tensor_list t = each(tensors, atleast_1d, "hstack");
  return cat(t, t[0].dim() == 1 ? 0 : 1);
}
Tensor vstack(const tensor_list& tensors) { return cat(each(tensors, atleast_2d, "vstack"), 0); }
Tensor row_stack(const tensor_list& tensors) { return vstack(tensors); }
Tensor dstack(const tensor_list& tensors) { return cat(each(tensors, atleast_3d, "dstack"), 2); }
// 0-d and 1-d tensors become columns; then joined along dim 1.
Tensor column_stack(const tensor_list& tensors) {
  return cat(each(
                 tensors,
                 [](const Tensor& t) {
                   return t.dim() <= 1 ? t.reshape({t.numel(), 1}) : t;
                 },
                 "column_stack"),
             1);
}

// Coordinate grids of 0-d or 1-d tensors: with "ij" output i varies along dim i; "xy" (Cartesian
// indexing) lays the first two inputs out in swapped order, so the first varies along dim 1.
tensor_list meshgrid(const tensor_list& tensors, std::string_view indexing) {
  EMBER_CHECK(!tensors.empty(), "meshgrid expects a non-empty TensorList");
  EMBER_CHECK(indexing == "ij" || indexing == "xy",
              "torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: {}", indexing);
  const bool xy = indexing == "xy" && tensors.size() >= 2;
  tensor_list in = tensors;
  if (xy) std::swap(in[0], in[1]);
  std::vector<int64_t> shape;
  for (size_t i = 0; i < in.size(); ++i) {
    EMBER_CHECK(in[i].dim() <= 1, "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {}D (shape {})",
                in[i].dim(), in[i].sizes());
    EMBER_CHECK(in[i].dtype() == in[0].dtype() && in[i].device() == in[0].device(),
                "torch.meshgrid: Expected all tensors in the tensor list to have the same dtype and device");
    shape.push_back(in[i].numel());
  }
  tensor_list grids;
  for (size_t i = 0; i < in.size(); ++i) {
    std::vector<int64_t> along(in.size(), 1);
    along[i] = -1;
    grids.push_back(in[i].reshape(along).expand(shape));
  }
  if (xy) std::swap(grids[0], grids[1]);
  return grids;
}

}  // namespace ember
