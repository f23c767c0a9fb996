// The view scatters: a copy of self with one view of it (slice, select, diagonal, as_strided)
// replaced by src, as torch.slice_scatter, select_scatter, diagonal_scatter and as_strided_scatter.
// One helper makes the copy, writes src through the view with the copy kernel, and records the
// gradient: dself = g with the view zeroed, dsrc = the view of g (PyTorch's formulas, which for
// as_strided assume that the view's elements do not overlap).
#include <functional>

#include "autograd/autograd.h"
#include "core/kernel.h"
#include "core/trace.h"

namespace ember {

using autograd::any_requires_grad;
using autograd::record;

namespace {

using ViewOf = std::function<Tensor(const Tensor&)>;

// `what` names the view in errors ("slice"); `node` is the gradient's name.
Tensor scatter_into_view(const char* op, const char* what, const char* node, const Tensor& self, const Tensor& src,
                         const ViewOf& view) {
  Tensor out = kernel::clone(self);
  Tensor part;
  {
    NoGradGuard no_grad;
    part = view(out);
  }
  EMBER_CHECK(part.sizes() == src.sizes(), "{}: expected src to have a size equal to the {} of self ({}), got {}", op,
              what, shape_str(part.sizes()), shape_str(src.sizes()));
  backend_for(out).copy(part, kernel::cast(src, self.dtype()));
  if (any_requires_grad({&self, &src})) {
    record(node, out, {self, src}, [op, what, node, view](const Tensor& g) -> tensor_list {
      const Tensor dsrc = view(g);
      return {scatter_into_view(op, what, node, g, zeros_like(dsrc), view), dsrc};
    });
  }
  return out;
}

}  // namespace

Tensor Tensor::slice_scatter(const Tensor& src, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end,
                             int64_t step) const {
  EMBER_TRACE_OP();
  return scatter_into_view("slice_scatter", "slice", "SliceScatterBackward0", *this, src,
                           [=](const Tensor& t) { return t.slice(dim, start, end, step); });
}

Tensor Tensor::select_scatter(const Tensor& src, int64_t dim, int64_t index) const {
  EMBER_TRACE_OP();
  return scatter_into_view("select_scatter", "select", "SelectScatterBackward0", *this, src,
                           [=](const Tensor& t) { return t.select(dim, index); });
}

Tensor Tensor::diagonal_scatter(const Tensor& src, int64_t offset, int64_t dim1, int64_t dim2) const {
  EMBER_TRACE_OP();
  return scatter_into_view("diagonal_scatter", "diagonal", "DiagonalScatterBackward0", *this, src,
                           [=](const Tensor& t) { return t.diagonal(offset, dim1, dim2); });
}

Tensor Tensor::as_strided_scatter(const Tensor& src, IntArrayRef sizes, IntArrayRef strides,
                                  std::optional<int64_t> offset) const {
  EMBER_TRACE_OP();
  std::vector<int64_t> sz = sizes.vec(), st = strides.vec();
  return scatter_into_view("as_strided_scatter", "as_strided view", "AsStridedScatterBackward0", *this, src,
                           [=](const Tensor& t) { return t.as_strided(sz, st, offset); });
}

}  // namespace ember
