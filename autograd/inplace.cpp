// In-place writes under autograd: self's history becomes the history of the value written, and
// when self is a view, its base's history too (PyTorch's CopySlices).
//
//   x = w * 1; v = x.select(0, 0); v.mul_(2);   // x's gradient flows through the write into v
//
// The op computes the new value out of place (from a clone of self, so the old value its
// backward may need survives) and hands it here. Bases are contiguous (every op allocates
// contiguous outputs), so a view's region of a base-shaped gradient is the view's own geometry.
#include "autograd/autograd.h"
#include "core/kernel.h"

namespace ember::autograd {

namespace {

// The elements of `t` (shaped like `base`, contiguous) that `view` covers.
Tensor region(const Tensor& t, const Tensor& view, const Tensor& base) {
  return raw_view(t, view.sizes().vec(), view.strides().vec(),
                  t.storage_offset() + view.storage_offset() - base.storage_offset());
}

}  // namespace

void commit_inplace(const Tensor& self, const Tensor& result) {
  {
    NoGradGuard no_grad;
    backend_for(self).copy(self, result);
  }
  self.bump_version();
  AutogradMeta* m = meta(self);
  const Tensor base = m ? m->view_base : Tensor();
  if (!base.defined()) {
    if (!result.requires_grad()) return;
    AutogradMeta& sm = ensure_meta(self);
    sm.grad_fn = result.grad_fn();
    sm.output_nr = result.output_nr();
    return;
  }
  if (!result.requires_grad() && !base.requires_grad()) return;
  EMBER_CHECK(base.is_contiguous(),
              "in-place op on a view: the view's base must be contiguous for autograd (got "
              "strides {} for shape {}); clone() the base first",
              base.strides(), base.sizes());
  // base_new = base_old with the view's region replaced by result.
  // d base_old = g with the region zeroed; d result = g's region
  const Tensor view = self.detach(), base_geom = base.detach();
  record("CopySlices", base, {base, result}, [view, base_geom](const Tensor& g) -> tensor_list {
    NoGradGuard no_grad;
    Tensor gb = kernel::clone(g), gr = kernel::clone(region(gb, view, base_geom));
    backend_for(gb).fill(region(gb, view, base_geom), 0);
    return {gb, gr};
  });
  // The view now reads base_new: its gradient lands in its region of a zero base-shaped gradient.
  record("AsStridedBackward0", self, {base}, [view, base_geom](const Tensor& g) -> tensor_list {
    NoGradGuard no_grad;
    Tensor gb = zeros(base_geom.sizes(), g.options());
    backend_for(gb).copy(region(gb, view, base_geom), g);
    return {gb};
  });
}

void track_view(const Tensor& view, const Tensor& source) {
  AutogradMeta* sm = meta(source);
  const Tensor base = sm && sm->view_base.defined() ? sm->view_base : source;
  ensure_meta(view).view_base = base;
}

}  // namespace ember::autograd
