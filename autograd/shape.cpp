// Shape ops and copies: views (stride arithmetic, never a copy), reshape, to/clone/copy_, cat/stack.
//
// Every view's backward undoes its geometry on the gradient: transpose transposes it back,
// expand sums it, narrow/select place it into zeros of the input's shape.
#include <algorithm>
#include <numeric>

#include "autograd/autograd.h"
#include "core/kernel.h"
#include "core/shape.h"
#include "core/trace.h"

namespace ember {

using autograd::any_requires_grad;
using autograd::record;

namespace {

// A view of self with new geometry, recorded with `name` and the backward `bw`.
Tensor make_view(const Tensor& self, std::vector<int64_t> sizes, std::vector<int64_t> strides, int64_t offset,
                 const char* name, std::function<tensor_list(const Tensor&)> bw) {
  Tensor v = raw_view(self, std::move(sizes), std::move(strides), offset);
  autograd::track_view(v, self);
  if (any_requires_grad({&self})) record(name, v, {self}, std::move(bw));
  return v;
}

}  // namespace

// ---- memory formats ----

namespace {

// The dims of a ChannelsLast (4-d) or ChannelsLast3d (5-d) tensor from the innermost in memory out.
std::vector<int64_t> channels_last_inner_first(int64_t dim) {
  return dim == 4 ? std::vector<int64_t>{1, 3, 2, 0} : std::vector<int64_t>{1, 4, 3, 2, 0};
}

// c10's is_non_overlapping_and_dense: the elements fill exactly numel() slots, in some dim order.
bool non_overlapping_and_dense(const Tensor& t) {
  std::vector<int64_t> order(t.dim());
  std::iota(order.begin(), order.end(), 0);
  // Innermost first; dims of size 0 or 1 last, as their strides do not matter.
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    if (t.size(a) < 2) return false;
    if (t.size(b) < 2) return true;
    return t.stride(a) < t.stride(b);
  });
  int64_t expected = 1;
  for (int64_t d : order) {
    if (t.size(d) < 2) return true;
    if (t.stride(d) != expected) return false;
    expected *= t.size(d);
  }
  return true;
}

// c10's infer_dense_strides: dense strides that keep t's dims in the order its strides put them (a
// transposed, sliced tensor copies to transposed dense strides). Ties go to the smaller dim inside.
std::vector<int64_t> dense_strides_like(const Tensor& t) {
  const int64_t dim = t.dim();
  std::vector<int64_t> inner_first(dim);
  for (int64_t i = 0; i < dim; ++i) inner_first[i] = dim - 1 - i;
  // > 0 when dim a belongs outside dim b; a zero stride compares as a tie (it keeps its place).
  auto outside = [&](int64_t a, int64_t b) -> int {
    if (t.stride(a) == 0 || t.stride(b) == 0) return 0;
    if (t.stride(a) != t.stride(b)) return t.stride(a) < t.stride(b) ? -1 : 1;
    return t.size(a) > t.size(b) ? 1 : 0;
  };
  for (int64_t i = 1; i < dim; ++i) {  // insertion sort, stable
    int64_t moving = i;
    for (int64_t j = i - 1; j >= 0; --j) {
      const int order = outside(inner_first[j], inner_first[moving]);
      if (order > 0) {
        std::swap(inner_first[j], inner_first[moving]);
        moving = j;
      } else if (order < 0) {
        break;
      }
    }
  }
  std::vector<int64_t> strides(dim);
  int64_t stride = 1;
  for (int64_t d : inner_first) {
    strides[d] = stride;
    if (t.size(d) > 1) stride *= t.size(d);
  }
  return strides;
}

// An uninitialised tensor of self's sizes, dtype dt on dev, laid out in `format` (Preserve: self's
// strides when self is dense, else dense strides in self's dim order), as libtorch's _to_copy makes.
Tensor empty_in_format(const Tensor& self, ScalarType dt, Device dev, MemoryFormat format, const char* op) {
  // The common case (every autocast cast): a row-major copy, no stride analysis.
  if (format == MemoryFormat::Contiguous || (format == MemoryFormat::Preserve && self.is_contiguous()))
    return raw_empty(self.sizes(), dt, dev, op);
  std::vector<int64_t> strides;
  if (format == MemoryFormat::Preserve) {
    strides = non_overlapping_and_dense(self) ? self.strides().vec() : dense_strides_like(self);
  } else {
    strides = format_strides(self.sizes(), format, op);
  }
  if (strides == contiguous_strides(self.sizes())) return raw_empty(self.sizes(), dt, dev, op);
  return raw_view(raw_empty({self.numel()}, dt, dev, op), self.sizes().vec(), std::move(strides), 0);
}

}  // namespace

std::vector<int64_t> format_strides(IntArrayRef sizes, MemoryFormat format, const char* op) {
  if (format != MemoryFormat::ChannelsLast && format != MemoryFormat::ChannelsLast3d) return contiguous_strides(sizes);
  const auto dim = static_cast<int64_t>(sizes.size());
  const bool two_d = format == MemoryFormat::ChannelsLast;
  EMBER_CHECK(dim == (two_d ? 4 : 5), "{}: required rank {} tensor to use {} format (got shape {})", op, two_d ? 4 : 5,
              two_d ? "channels_last" : "channels_last_3d", sizes);
  std::vector<int64_t> strides(sizes.size());
  int64_t stride = 1;
  for (int64_t d : channels_last_inner_first(dim)) {
    strides[d] = stride;
    stride *= sizes[d];
  }
  return strides;
}

bool Tensor::is_non_overlapping_and_dense() const { return non_overlapping_and_dense(*this); }

bool Tensor::is_contiguous(MemoryFormat memory_format) const {
  if (memory_format != MemoryFormat::ChannelsLast && memory_format != MemoryFormat::ChannelsLast3d)
    return is_contiguous();
  if (dim() != (memory_format == MemoryFormat::ChannelsLast ? 4 : 5)) return false;
  int64_t expected = 1;  // as c10: a dim of size 1 may have any stride
  for (int64_t d : channels_last_inner_first(dim())) {
    if (size(d) == 1) continue;
    if (stride(d) != expected) return false;
    expected *= size(d);
  }
  return true;
}

// c10's is_channels_last_strides_2d / _3d: the dims' strides grow in channels-last order (C, W, H, N),
// with the ambiguous cases (C's stride 0, N's stride equal to C's) left to Contiguous.
MemoryFormat Tensor::suggest_memory_format(bool channels_last_strides_exact_match) const {
  if (dim() != 4 && dim() != 5) return MemoryFormat::Contiguous;
  if (stride(1) == 0) return MemoryFormat::Contiguous;
  int64_t min = 0;
  for (int64_t d : channels_last_inner_first(dim())) {
    if (size(d) == 0 || stride(d) < min) return MemoryFormat::Contiguous;
    if (d == 0 && min == stride(1)) return MemoryFormat::Contiguous;
    min = stride(d);
    if (size(d) > 1) min *= size(d);
  }
  const MemoryFormat format = dim() == 4 ? MemoryFormat::ChannelsLast : MemoryFormat::ChannelsLast3d;
  if (channels_last_strides_exact_match && strides().vec() != format_strides(sizes(), format, "suggest_memory_format"))
    return MemoryFormat::Contiguous;
  return format;
}

Tensor Tensor::contiguous(MemoryFormat memory_format) const {
  EMBER_TRACE_OP();
  if (is_contiguous(memory_format)) return *this;
  EMBER_CHECK(memory_format != MemoryFormat::Preserve,
              "contiguous: preserve memory format is unsupported by the contiguous operator");
  Tensor out = empty_in_format(*this, dtype(), device(), memory_format, "contiguous");
  backend_for(device()).copy(out, *this);
  if (any_requires_grad({this}))
    record("CloneBackward0", out, {*this}, [](const Tensor& g) -> tensor_list { return {g}; });
  return out;
}

// ---- conversions and copies ----

Tensor Tensor::to(ScalarType dtype, bool non_blocking, bool copy, std::optional<MemoryFormat> memory_format) const {
  return to(device(), dtype, non_blocking, copy, memory_format);
}
Tensor Tensor::to(Device device, bool non_blocking, bool copy, std::optional<MemoryFormat> memory_format) const {
  return to(device, dtype(), non_blocking, copy, memory_format);
}
Tensor Tensor::to(const Tensor& other, bool non_blocking, bool copy, std::optional<MemoryFormat> memory_format) const {
  return to(other.device(), other.dtype(), non_blocking, copy, memory_format);
}
// An options' memory format counts where the argument is not given, as libtorch's.
Tensor Tensor::to(const TensorOptions& options, bool non_blocking, bool copy,
                  std::optional<MemoryFormat> memory_format) const {
  EMBER_TRACE_OP();
  return to(options.device(), options.has_dtype() ? options.dtype() : dtype(), non_blocking, copy,
            memory_format ? memory_format : options.memory_format_opt());
}

// d to(x) = g converted back to x's dtype and device
Tensor Tensor::to(Device dev, ScalarType dt, bool /*non_blocking: Ember's copies are synchronous*/, bool copy,
                  std::optional<MemoryFormat> memory_format) const {
  EMBER_TRACE_OP();
  const MemoryFormat format = memory_format.value_or(MemoryFormat::Preserve);
  if (dev == device() && dt == dtype() && !copy &&
      (format == MemoryFormat::Preserve || suggest_memory_format() == format))
    return *this;
  Tensor out = empty_in_format(*this, dt, dev, format, "to");
  if (dev == device()) {
    backend_for(dev).copy(out, *this);
  } else {
    // Across devices: make it dense on the source, convert on the host, move, as needed; then lay it
    // out as asked on the destination.
    Tensor src = kernel::contiguous(kernel::cast(*this, dt));
    Tensor dense = out.is_contiguous() ? out : raw_empty(sizes(), dt, dev, "to");
    if (dev.is_cpu()) {
      backend_for(device()).copy_to_host(dense.raw_data_ptr(), src.raw_data_ptr(), src.nbytes(), device());
    } else {
      Tensor host = src.is_cpu() ? src : src.to(Device(kCPU));
      backend_for(dev).copy_from_host(dense.raw_data_ptr(), host.raw_data_ptr(), host.nbytes(), dev);
    }
    if (!out.is_contiguous()) backend_for(dev).copy(out, dense);
  }
  if (any_requires_grad({this}) && ember::is_floating_point(dt)) {
    record("ToCopyBackward0", out, {*this},
           [src_dev = device(), src_dt = dtype()](const Tensor& g) -> tensor_list { return {g.to(src_dev, src_dt)}; });
  }
  return out;
}

Tensor Tensor::clone() const {
  EMBER_TRACE_OP();
  Tensor out = kernel::clone(*this);
  if (any_requires_grad({this}))
    record("CloneBackward0", out, {*this}, [](const Tensor& g) -> tensor_list { return {g}; });
  return out;
}

Tensor Tensor::contiguous() const { return is_contiguous() ? *this : clone(); }

// d copy_(self, src) = (0 for the old self, g for src)
Tensor& Tensor::copy_(const Tensor& src) {
  EMBER_TRACE_OP();
  autograd::check_inplace(*this, "copy_");
  kernel::check_no_overlap("copy_", *this, {src});
  if (!any_requires_grad({this, &src})) {
    Tensor s = kernel::broadcast_to(src, sizes());
    if (s.device() != device()) s = s.to(device());
    backend_for(*this).copy(*this, s);
    bump_version();
    return *this;
  }
  autograd::commit_inplace(*this, src.expand(sizes()).to(device(), dtype()));
  return *this;
}

Tensor& Tensor::fill_(const Scalar& value) {
  EMBER_TRACE_OP();
  autograd::check_inplace(*this, "fill_");
  if (!any_requires_grad({this})) {
    backend_for(*this).fill(*this, value);
    bump_version();
    return *this;
  }
  autograd::commit_inplace(*this, full(sizes(), value, options()));
  return *this;
}

Tensor& Tensor::zero_() { return fill_(0); }

// ---- views ----

Tensor Tensor::view(IntArrayRef shape) const {
  EMBER_TRACE_OP();
  std::vector<int64_t> sz = infer_size(shape, numel(), "view");
  auto st = view_strides(sizes(), strides(), sz);
  EMBER_CHECK(st.has_value(),
              "view: size {} is not compatible with input tensor's size {} and stride {} (at least one "
              "dimension spans across two contiguous subspaces). Use .reshape(...) instead.",
              IntArrayRef(sz), sizes(), strides());
  return make_view(*this, sz, *st, storage_offset(), "ViewBackward0",
                   [in = sizes().vec()](const Tensor& g) -> tensor_list { return {g.reshape(in)}; });
}

Tensor Tensor::reshape(IntArrayRef shape) const {
  EMBER_TRACE_OP();
  std::vector<int64_t> sz = infer_size(shape, numel(), "reshape");
  if (view_strides(sizes(), strides(), sz)) return view(sz);
  return clone().view(sz);
}

namespace {
// d transpose = transpose back. `name` is the node PyTorch records: t() is TBackward0.
Tensor transpose_view(const Tensor& self, int64_t dim0, int64_t dim1, const char* name) {
  const int64_t n = self.dim();
  std::vector<int64_t> sz = self.sizes().vec(), st = self.strides().vec();
  int64_t a = 0, b = 0;
  if (n > 0) {
    a = wrap_dim(dim0, n, "transpose");
    b = wrap_dim(dim1, n, "transpose");
    std::swap(sz[a], sz[b]);
    std::swap(st[a], st[b]);
  }
  return make_view(self, sz, st, self.storage_offset(), name,
                   [a, b, n](const Tensor& g) -> tensor_list { return {n > 0 ? g.transpose(a, b) : g}; });
}
}  // namespace

Tensor Tensor::transpose(int64_t dim0, int64_t dim1) const {
  EMBER_TRACE_OP();
  return transpose_view(*this, dim0, dim1, "TransposeBackward0");
}

Tensor Tensor::t() const {
  EMBER_TRACE_OP();
  EMBER_CHECK(dim() <= 2, "t: expects a tensor with <= 2 dimensions, but self is {}D", dim());
  return transpose_view(*this, 0, dim() < 2 ? 0 : 1, "TBackward0");
}

// d permute(dims) = permute by the inverse permutation
Tensor Tensor::permute(IntArrayRef dims) const {
  EMBER_TRACE_OP();
  EMBER_CHECK(static_cast<int64_t>(dims.size()) == dim(),
              "permute: number of dims don't match in permute (got {} dims for a {}-D tensor)", dims.size(), dim());
  std::vector<int64_t> sz(dim()), st(dim()), inverse(dim());
  std::vector<bool> used(dim(), false);
  for (int64_t i = 0; i < dim(); ++i) {
    int64_t d = wrap_dim(dims[i], dim(), "permute");
    EMBER_CHECK(!used[d], "permute: repeated dim {} in {}", d, dims);
    used[d] = true;
    sz[i] = sizes()[d];
    st[i] = strides()[d];
    inverse[d] = i;
  }
  return make_view(*this, sz, st, storage_offset(), "PermuteBackward0",
                   [inverse](const Tensor& g) -> tensor_list { return {g.permute(inverse)}; });
}

Tensor Tensor::unsqueeze(int64_t dim_) const {
  EMBER_TRACE_OP();
  int64_t d = wrap_dim(dim_, dim() + 1, "unsqueeze");
  std::vector<int64_t> sz = sizes().vec(), st = strides().vec();
  int64_t stride = d < dim() ? sz[d] * st[d] : 1;
  sz.insert(sz.begin() + d, 1);
  st.insert(st.begin() + d, stride);
  return make_view(*this, sz, st, storage_offset(), "UnsqueezeBackward0",
                   [d](const Tensor& g) -> tensor_list { return {g.squeeze(d)}; });
}

Tensor Tensor::squeeze() const {
  EMBER_TRACE_OP();
  std::vector<int64_t> sz, st;
  for (int64_t d = 0; d < dim(); ++d)
    if (sizes()[d] != 1) {
      sz.push_back(sizes()[d]);
      st.push_back(strides()[d]);
    }
  return make_view(*this, sz, st, storage_offset(), "SqueezeBackward0",
                   [in = sizes().vec()](const Tensor& g) -> tensor_list { return {g.reshape(in)}; });
}

Tensor Tensor::squeeze(int64_t dim_) const {
  EMBER_TRACE_OP();
  if (dim() == 0) return view(sizes());
  int64_t d = wrap_dim(dim_, dim(), "squeeze");
  if (sizes()[d] != 1) return view(sizes());
  std::vector<int64_t> sz = sizes().vec(), st = strides().vec();
  sz.erase(sz.begin() + d);
  st.erase(st.begin() + d);
  return make_view(*this, sz, st, storage_offset(), "SqueezeBackward1",
                   [d](const Tensor& g) -> tensor_list { return {g.unsqueeze(d)}; });
}

// d expand = sum over the expanded dims
Tensor Tensor::expand(IntArrayRef want) const {
  EMBER_TRACE_OP();
  std::vector<int64_t> sz = want.vec();
  const int64_t lead = static_cast<int64_t>(sz.size()) - dim();
  EMBER_CHECK(lead >= 0,
              "expand: the number of sizes provided ({}) must be greater or equal to the number of "
              "dimensions in the tensor ({})",
              sz.size(), dim());
  for (int64_t d = 0; d < static_cast<int64_t>(sz.size()); ++d)
    if (sz[d] == -1) {
      EMBER_CHECK(d >= lead, "expand: -1 is not allowed in a leading, non-existing dimension ({})", d);
      sz[d] = sizes()[d - lead];
    }
  Tensor v = kernel::broadcast_to(*this, sz);
  // Already of that shape: broadcast_to returned this tensor itself, which must not become the output
  // of its own ExpandBackward0 (a leaf would lose its leafness and a double backward its gradients).
  if (v.is_same(*this)) return v;
  autograd::track_view(v, *this);
  if (any_requires_grad({this}))
    record("ExpandBackward0", v, {*this},
           [in = sizes().vec()](const Tensor& g) -> tensor_list { return {autograd::sum_to(g, in)}; });
  return v;
}

// d narrow = the gradient placed at [start, start + length) of zeros
Tensor Tensor::narrow(int64_t dim_, int64_t start, int64_t length) const {
  EMBER_TRACE_OP();
  EMBER_CHECK(dim() > 0, "narrow: cannot be applied to a 0-dim tensor");
  int64_t d = wrap_dim(dim_, dim(), "narrow");
  const int64_t n = sizes()[d];
  if (start < 0) start += n;
  EMBER_CHECK(start >= 0 && length >= 0 && start <= n && length <= n - start,  // no start + length: it may overflow
              "narrow: start ({}) + length ({}) exceeds dimension size ({}) of dim {} (shape {})", start, length, n, d,
              sizes());
  return slice(d, start, start + length);
}

Tensor Tensor::slice(int64_t dim_, std::optional<int64_t> start_, std::optional<int64_t> end_, int64_t step) const {
  EMBER_TRACE_OP();
  EMBER_CHECK(dim() > 0, "slice: cannot be applied to a 0-dim tensor");
  EMBER_CHECK(step > 0, "slice: step must be positive, got {}", step);
  int64_t d = wrap_dim(dim_, dim(), "slice");
  const int64_t n = sizes()[d];
  int64_t start = start_.value_or(0), end = end_.value_or(n);
  if (start < 0) start += n;
  if (end < 0) end += n;
  start = std::clamp<int64_t>(start, 0, n);
  end = std::clamp<int64_t>(end, start, n);
  std::vector<int64_t> sz = sizes().vec(), st = strides().vec();
  sz[d] = end == start ? 0 : (end - start - 1) / step + 1;  // ceil((end - start) / step) without overflow
  if (sz[d] > 1) st[d] *= step;  // step < n here, so the product stays inside the storage's span
  const int64_t offset = storage_offset() + start * strides()[d];
  return make_view(*this, sz, st, offset, "SliceBackward0",
                   [in = sizes().vec(), d, start, end, step](const Tensor& g) -> tensor_list {
                     Tensor z = zeros(in, g.options());
                     return {z.slice_scatter(g, d, start, end, step)};
                   });
}

// d select = the gradient placed at `index` of zeros
Tensor Tensor::select(int64_t dim_, int64_t index) const {
  EMBER_TRACE_OP();
  EMBER_CHECK(dim() > 0, "select: cannot be applied to a 0-dim tensor");
  int64_t d = wrap_dim(dim_, dim(), "select");
  const int64_t n = sizes()[d];
  EMBER_CHECK(index >= -n && index < n, "select: index {} out of range for tensor of size {} at dimension {}", index,
              sizes(), d);
  if (index < 0) index += n;
  std::vector<int64_t> sz = sizes().vec(), st = strides().vec();
  const int64_t offset = storage_offset() + index * st[d];
  sz.erase(sz.begin() + d);
  st.erase(st.begin() + d);
  return make_view(*this, sz, st, offset, "SelectBackward0",
                   [in = sizes().vec(), d, index](const Tensor& g) -> tensor_list {
                     Tensor z = zeros(in, g.options());
                     return {z.slice_scatter(g.unsqueeze(d), d, index, index + 1, 1)};
                   });
}

// The diagonal `offset` above (below, when negative) the main one of the (dim1, dim2) planes, as a view
// whose last dim runs along it. d = g written into that diagonal of zeros.
Tensor Tensor::diagonal(int64_t offset, int64_t dim1_, int64_t dim2_) const {
  EMBER_TRACE_OP();
  EMBER_CHECK(dim() >= 2, "diagonal: expected a tensor with at least 2 dimensions, got shape {}", sizes());
  const int64_t d1 = wrap_dim(dim1_, dim(), "diagonal"), d2 = wrap_dim(dim2_, dim(), "diagonal");
  EMBER_CHECK(d1 != d2, "diagonal dimensions cannot be identical {}, {}", dim1_, dim2_);
  const int64_t len =
      std::max<int64_t>(0, offset >= 0 ? std::min(size(d1), size(d2) - offset) : std::min(size(d1) + offset, size(d2)));
  int64_t start = storage_offset();
  if (len > 0) start += offset >= 0 ? offset * stride(d2) : -offset * stride(d1);
  std::vector<int64_t> sz = sizes().vec(), st = strides().vec();
  const int64_t step = st[d1] + st[d2];
  for (int64_t d : {std::max(d1, d2), std::min(d1, d2)}) {
    sz.erase(sz.begin() + d);
    st.erase(st.begin() + d);
  }
  sz.push_back(len);
  st.push_back(step);
  return make_view(*this, sz, st, start, "DiagonalBackward0",
                   [in = sizes().vec(), offset, d1, d2](const Tensor& g) -> tensor_list {
                     Tensor z = zeros(in, g.options());
                     z.diagonal(offset, d1, d2).copy_(g);
                     return {z};
                   });
}

// Every window of `size` elements `step` apart along `dimension`, as a new last dim: the dim's
// stride times step, then its stride. d = the windows' gradients added back at their positions.
Tensor Tensor::unfold(int64_t dimension, int64_t size, int64_t step) const {
  EMBER_TRACE_OP();
  const int64_t d = dim() == 0 ? 0 : wrap_dim(dimension, dim(), "unfold");
  const int64_t length = dim() == 0 ? 1 : sizes()[d];
  EMBER_CHECK(size <= length, "unfold: maximum size for tensor at dimension {} is {} but size is {}", d, length,
              size);
  EMBER_CHECK(size >= 0, "unfold: size is {} but must be >= 0", size);
  EMBER_CHECK(step > 0, "unfold: step is {} but must be > 0", step);
  std::vector<int64_t> sz = sizes().vec(), st = strides().vec();
  const int64_t windows = (length - size) / step + 1;
  if (dim() == 0) {
    sz = {size};
    st = {1};
  } else {
    sz[d] = windows;
    st[d] = strides()[d] * step;
    sz.push_back(size);
    st.push_back(strides()[d]);
  }
  return make_view(*this, sz, st, storage_offset(), "UnfoldBackward0",
                   [in = sizes().vec(), d, size, step, windows](const Tensor& g) -> tensor_list {
                     if (in.empty()) return {g.sum().view({})};
                     // (windows, size) positions along d, row-major like g's windows-then-size dims.
                     const TensorOptions longs = TensorOptions().dtype(kInt64).device(g.device());
                     const Tensor at = arange(windows, longs).mul(step).unsqueeze(1).add(arange(size, longs));
                     const Tensor moved = g.movedim(-1, d + 1).flatten(d, d + 1);
                     return {zeros(in, g.options()).index_add(d, at.reshape({-1}), moved)};
                   });
}

Tensor Tensor::flatten(int64_t start_dim, int64_t end_dim) const {
  EMBER_TRACE_OP();
  if (dim() == 0) return reshape({1});
  int64_t s = wrap_dim(start_dim, dim(), "flatten"), e = wrap_dim(end_dim, dim(), "flatten");
  EMBER_CHECK(s <= e, "flatten: start_dim ({}) cannot come after end_dim ({})", s, e);
  std::vector<int64_t> sz(sizes().begin(), sizes().begin() + s);
  int64_t prod = 1;
  for (int64_t d = s; d <= e; ++d) prod *= sizes()[d];
  sz.push_back(prod);
  sz.insert(sz.end(), sizes().begin() + e + 1, sizes().end());
  return reshape(sz);
}

Tensor Tensor::unflatten(int64_t dim_, IntArrayRef parts) const {
  EMBER_TRACE_OP();
  int64_t d = wrap_dim(dim_, dim(), "unflatten");
  std::vector<int64_t> inner = infer_size(parts, sizes()[d], "unflatten");
  std::vector<int64_t> sz(sizes().begin(), sizes().begin() + d);
  sz.insert(sz.end(), inner.begin(), inner.end());
  sz.insert(sz.end(), sizes().begin() + d + 1, sizes().end());
  return view(sz);
}

namespace {

// The pieces of self along d, as views, recorded as one node (SplitBackward0 /
// SplitWithSizesBackward0, as PyTorch) whose backward writes every piece's gradient into one
// buffer: one copy each, where a backward per piece would zero and add a whole input's worth.
tensor_list split_views(const Tensor& self, int64_t d, IntArrayRef lengths, const char* name) {
  tensor_list parts;
  int64_t start = 0;
  for (int64_t n : lengths) {
    std::vector<int64_t> sz = self.sizes().vec();
    sz[d] = n;
    Tensor part = raw_view(self, sz, self.strides().vec(), self.storage_offset() + start * self.strides()[d]);
    autograd::track_view(part, self);
    parts.push_back(part);
    start += n;
  }
  if (!any_requires_grad({&self})) return parts;
  record(name, parts, {self},
         [in = self.sizes().vec(), d, lengths = lengths.vec()](const tensor_list& grads) -> tensor_list {
           const Tensor* some = nullptr;
           for (const Tensor& g : grads)
             if (g.defined()) some = &g;
           if (!some) return {Tensor()};
           if (GradMode::is_enabled()) {  // create_graph: cat is differentiable
             tensor_list pieces;
             for (size_t i = 0; i < grads.size(); ++i) {
               std::vector<int64_t> sz = in;
               sz[d] = lengths[i];
               pieces.push_back(grads[i].defined() ? grads[i] : zeros(sz, some->options()));
             }
             return {cat(pieces, d)};
           }
           bool all = true;
           for (const Tensor& g : grads) all = all && g.defined();
           Tensor out = all ? raw_empty(in, some->dtype(), some->device()) : zeros(in, some->options());
           int64_t start = 0;
           for (size_t i = 0; i < grads.size(); ++i) {
             if (grads[i].defined()) {
               std::vector<int64_t> sz = in;
               sz[d] = lengths[i];
               const std::vector<int64_t> st = out.strides().vec();
               backend_for(out).copy(raw_view(out, sz, st, start * st[d]), grads[i]);
             }
             start += lengths[i];
           }
           return {out};
         });
  return parts;
}

}  // namespace

tensor_list Tensor::split(int64_t split_size, int64_t dim_) const {
  EMBER_TRACE_OP();
  int64_t d = wrap_dim(dim_, dim(), "split");
  EMBER_CHECK(split_size > 0 || sizes()[d] == 0, "split: split_size must be positive, got {}", split_size);
  std::vector<int64_t> lengths;
  for (int64_t start = 0; start < sizes()[d]; start += split_size)
    lengths.push_back(std::min(split_size, sizes()[d] - start));
  return split_views(*this, d, lengths, "SplitBackward0");
}

tensor_list Tensor::split_with_sizes(IntArrayRef split_sizes, int64_t dim_) const {
  EMBER_TRACE_OP();
  int64_t d = wrap_dim(dim_, dim(), "split_with_sizes");
  int64_t total = 0;
  for (int64_t n : split_sizes) {
    EMBER_CHECK(n >= 0, "split_with_sizes: split sizes must be non-negative, got {}", split_sizes);
    EMBER_CHECK(!__builtin_add_overflow(total, n, &total),
                "split_with_sizes: sizes {} add up to more than 64 bits hold, but dimension {} has size {}",
                split_sizes, d, sizes()[d]);
  }
  EMBER_CHECK(total == sizes()[d], "split_with_sizes: sizes {} add up to {} but dimension {} has size {}", split_sizes,
              total, d, sizes()[d]);
  return split_views(*this, d, split_sizes, "SplitWithSizesBackward0");
}

tensor_list Tensor::chunk(int64_t chunks, int64_t dim_) const {
  EMBER_TRACE_OP();
  EMBER_CHECK(chunks > 0, "chunk: number of chunks must be greater than 0, got {}", chunks);
  int64_t d = wrap_dim(dim_, dim(), "chunk");
  const int64_t n = sizes()[d];
  return split(n == 0 ? 1 : (n - 1) / chunks + 1, d);  // ceil(n / chunks) without overflow
}

tensor_list Tensor::unbind(int64_t dim_) const {
  EMBER_TRACE_OP();
  int64_t d = wrap_dim(dim_, dim(), "unbind");
  tensor_list parts;
  for (int64_t i = 0; i < sizes()[d]; ++i) parts.push_back(select(d, i));
  return parts;
}

Tensor Tensor::as_strided(IntArrayRef sz, IntArrayRef st, std::optional<int64_t> offset) const {
  EMBER_TRACE_OP();
  EMBER_CHECK(sz.size() == st.size(), "as_strided: got {} sizes and {} strides", sz.size(), st.size());
  const int64_t off = offset.value_or(storage_offset());
  const int64_t numel = checked_numel(sz, "as_strided");
  // The last element's byte offset, computed with overflow checks; strides must be non-negative.
  int64_t last = off, last_byte = 0;
  bool fits = off >= 0;
  for (size_t d = 0; d < sz.size() && fits && numel > 0; ++d) {
    int64_t step = 0;
    fits = st[d] >= 0 && !__builtin_mul_overflow(sz[d] - 1, st[d], &step) && !__builtin_add_overflow(last, step, &last);
  }
  fits = fits && !__builtin_mul_overflow(last, static_cast<int64_t>(element_size()), &last_byte);
  EMBER_CHECK(numel == 0 || (fits && last_byte < static_cast<int64_t>(storage()->nbytes)),
              "as_strided: sizes {} and strides {} at offset {} reach outside the storage ({} bytes)", sz, st, off,
              storage()->nbytes);
  EMBER_CHECK(!any_requires_grad({this}), "as_strided: not differentiable in Ember; use view/narrow/expand instead");
  Tensor v = raw_view(*this, sz.vec(), st.vec(), off);
  autograd::track_view(v, *this);
  return v;
}

// ---- joining ----

// d cat = the gradient split back into the pieces
Tensor cat(const tensor_list& tensors, int64_t dim) {
  EMBER_TRACE_OP();
  EMBER_CHECK(!tensors.empty(), "cat: expected a non-empty list of Tensors");
  const Tensor& first = tensors[0];
  for (const Tensor& t : tensors) kernel::check_same_device("cat", {first, t});
  int64_t d = wrap_dim(dim, first.dim(), "cat");
  std::vector<int64_t> sz = first.sizes().vec();
  ScalarType dt = first.dtype();
  int64_t total = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    EMBER_CHECK(t.dim() == first.dim(),
                "cat: tensors must have the same number of dimensions: got {} and {} (tensor {})", first.dim(), t.dim(),
                i);
    EMBER_CHECK(t.device() == first.device(), "cat: all tensors must be on the same device");
    for (int64_t k = 0; k < t.dim(); ++k)
      EMBER_CHECK(k == d || t.sizes()[k] == sz[k],
                  "cat: sizes of tensors must match except in dimension {}. Expected "
                  "size {} but got size {} for tensor number {} in the list (shapes {} and {})",
                  d, sz[k], t.sizes()[k], i, first.sizes(), t.sizes());
    EMBER_CHECK(!__builtin_add_overflow(total, t.sizes()[d], &total),
                "cat: the sizes in dimension {} add up to more than 64 bits hold (at tensor {}, shape {})", d, i,
                t.sizes());
    dt = promote_types(dt, t.dtype());
  }
  sz[d] = total;
  Tensor out = raw_empty(sz, dt, first.device(), "cat");
  int64_t start = 0;
  std::vector<int64_t> lengths;
  for (const Tensor& t : tensors) {
    std::vector<int64_t> part_sz = sz;
    part_sz[d] = t.sizes()[d];
    Tensor part = raw_view(out, part_sz, out.strides().vec(), start * out.strides()[d]);
    backend_for(out).copy(part, t);
    start += t.sizes()[d];
    lengths.push_back(t.sizes()[d]);
  }
  if (any_requires_grad(tensors))
    record("CatBackward0", out, tensors,
           [lengths, d](const Tensor& g) -> tensor_list { return g.split_with_sizes(lengths, d); });
  return out;
}

Tensor stack(const tensor_list& tensors, int64_t dim) {
  EMBER_TRACE_OP();
  EMBER_CHECK(!tensors.empty(), "stack: expects a non-empty TensorList");
  int64_t d = wrap_dim(dim, tensors[0].dim() + 1, "stack");
  tensor_list parts;
  for (size_t i = 0; i < tensors.size(); ++i) {
    EMBER_CHECK(tensors[i].sizes() == tensors[0].sizes(),
                "stack: expects each tensor to be equal size, but got {} at "
                "entry 0 and {} at entry {}",
                tensors[0].sizes(), tensors[i].sizes(), i);
    parts.push_back(tensors[i].unsqueeze(d));
  }
  return cat(parts, d);
}

// ---- in-place views ----

namespace {

// Makes self (every handle to it) show `view`, a view of self: its geometry, and when autograd
// recorded the view, the view's node as self's history. Self keeps its own view base (a view of a
// view still shows the first base), so no handle points back at itself.
Tensor& become_view(Tensor& self, const Tensor& view, const char* op) {
  autograd::check_inplace(self, op);
  self.set_data(view);
  if (autograd::AutogradMeta* vm = autograd::meta(view); vm && vm->grad_fn) {
    autograd::AutogradMeta& sm = autograd::ensure_meta(self);
    sm.grad_fn = vm->grad_fn;
    sm.output_nr = vm->output_nr;
  }
  self.bump_version();  // as libtorch, which counts a view's change of shape as a write
  return self;
}

}  // namespace

Tensor& Tensor::unsqueeze_(int64_t dim) {
  EMBER_TRACE_OP();
  return become_view(*this, unsqueeze(dim), "unsqueeze_");
}
Tensor& Tensor::squeeze_() {
  EMBER_TRACE_OP();
  return become_view(*this, squeeze(), "squeeze_");
}
Tensor& Tensor::squeeze_(int64_t dim) {
  EMBER_TRACE_OP();
  return become_view(*this, squeeze(dim), "squeeze_");
}
Tensor& Tensor::as_strided_(IntArrayRef sizes, IntArrayRef strides, std::optional<int64_t> offset) {
  EMBER_TRACE_OP();
  return become_view(*this, as_strided(sizes, strides, offset), "as_strided_");
}
Tensor& Tensor::t_() {
  EMBER_TRACE_OP();
  return become_view(*this, t(), "t_");
}
Tensor& Tensor::transpose_(int64_t dim0, int64_t dim1) {
  EMBER_TRACE_OP();
  return become_view(*this, transpose(dim0, dim1), "transpose_");
}

// ---- reordering and repeating: copies, made of index_select, cat and expand, so each has their backward ----

Tensor Tensor::flip(IntArrayRef dims) const {
  EMBER_TRACE_OP();
  Tensor out = *this;
  if (dims.empty()) return clone();  // (wrap_dims reads an empty list as every dim)
  for (int64_t d : wrap_dims(dims, dim(), "flip")) {
    const int64_t n = sizes()[d];
    if (n > 1) out = out.index_select(d, arange(n - 1, -1, -1, TensorOptions().dtype(kInt64).device(device())));
  }
  return out.is_same(*this) ? clone() : out;
}

Tensor Tensor::roll(IntArrayRef shifts, IntArrayRef dims) const {
  EMBER_TRACE_OP();
  if (dims.empty()) {
    EMBER_CHECK(shifts.size() == 1, "roll: `shifts` required to be of size 1 when `dims` is empty, got {}", shifts);
    return flatten().roll(shifts, {0}).view(sizes());
  }
  EMBER_CHECK(shifts.size() == dims.size(), "roll: shifts and dimensions must align. shifts: {}, dims:{}",
              shifts.size(), dims.size());
  Tensor out = *this;
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = wrap_dim(dims[i], dim(), "roll"), n = sizes()[d];
    if (n == 0) continue;
    const int64_t s = ((shifts[i] % n) + n) % n;  // elements move s places up: the last s come first
    if (s != 0) out = cat({out.narrow(d, n - s, s), out.narrow(d, 0, n - s)}, d);
  }
  return out.is_same(*this) ? clone() : out;
}

Tensor Tensor::repeat(IntArrayRef repeats) const {
  EMBER_TRACE_OP();
  const int64_t nd = static_cast<int64_t>(repeats.size());
  EMBER_CHECK(nd >= dim(),
              "repeat: Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor "
              "(repeats {} for a tensor of shape {})",
              repeats, sizes());
  for (int64_t r : repeats) EMBER_CHECK(r >= 0, "repeat: Trying to create tensor with negative dimension {}", r);
  // (s0, s1, ...) -> (1, s0, 1, s1, ...) expanded to (r0, s0, r1, s1, ...) -> (r0 * s0, r1 * s1, ...)
  std::vector<int64_t> padded(nd - dim(), 1), pairs, expanded, result;
  padded.insert(padded.end(), sizes().begin(), sizes().end());
  for (int64_t i = 0; i < nd; ++i) {
    pairs.insert(pairs.end(), {1, padded[i]});
    expanded.insert(expanded.end(), {repeats[i], padded[i]});
    result.push_back(repeats[i] * padded[i]);
  }
  return reshape(pairs).expand(expanded).contiguous().view(result);
}

}  // namespace ember
