// Result types, broadcasting and allocation around the backend's kernels (see core/kernel.h).
#include "core/kernel.h"

#include <algorithm>
#include <optional>
#include <utility>

namespace ember::kernel {

namespace {

// PyTorch's combine_categories(higher, lower).
std::optional<ScalarType> combine(std::optional<ScalarType> higher, std::optional<ScalarType> lower) {
  if (!higher) return lower;
  if (!lower) return higher;
  if (is_floating_point(*higher)) return higher;
  if (*higher == kBool || is_floating_point(*lower)) return promote_types(*higher, *lower);
  return higher;
}

struct ResultState {
  std::optional<ScalarType> dim, zero, wrapped;
  void add(const Tensor& t) {
    auto& slot = t.dim() > 0 ? dim : zero;
    slot = slot ? promote_types(*slot, t.dtype()) : t.dtype();
  }
  void add(const Scalar& s) {
    ScalarType t = s.is_floating_point() ? get_default_dtype() : s.type();  // the default dtype for Python floats
    wrapped = wrapped ? promote_types(*wrapped, t) : t;
  }
  ScalarType result() const { return *combine(dim, combine(zero, wrapped)); }
};

}  // namespace

ScalarType result_type(const Tensor& a, const Tensor& b) {
  ResultState s;
  s.add(a);
  s.add(b);
  return s.result();
}

ScalarType result_type(const Tensor& a, const Scalar& b) {
  ResultState s;
  s.add(a);
  s.add(b);
  return s.result();
}

Tensor scalar(const Scalar& value, ScalarType dtype, Device device) {
  Tensor t = raw_empty({}, dtype, device);
  backend_for(device).fill(t, value);
  return t;
}

Tensor cast(const Tensor& t, ScalarType dtype) {
  if (t.dtype() == dtype) return t;
  Tensor out = raw_empty(t.sizes(), dtype, t.device());
  backend_for(t).copy(out, t);
  return out;
}

Tensor contiguous(const Tensor& t) { return t.is_contiguous() ? t : clone(t); }

Tensor clone(const Tensor& t) {
  Tensor out = raw_empty(t.sizes(), t.dtype(), t.device());
  backend_for(t).copy(out, t);
  return out;
}

Tensor broadcast_to(const Tensor& t, IntArrayRef sizes) {
  if (t.sizes() == sizes) return t;
  const int64_t nd = static_cast<int64_t>(sizes.size()), lead = nd - t.dim();
  EMBER_CHECK(lead >= 0,
              "expand: the number of sizes provided ({}) must be greater or equal to the number of "
              "dimensions in the tensor ({})",
              nd, t.dim());
  checked_numel(sizes, "expand");
  std::vector<int64_t> strides(nd, 0);
  for (int64_t d = 0; d < t.dim(); ++d) {
    int64_t have = t.sizes()[d], want = sizes[d + lead];
    EMBER_CHECK(have == want || have == 1,
                "expand: the expanded size of the tensor ({}) must match the existing size ({}) at non-singleton "
                "dimension {}. Target sizes: {}. Tensor sizes: {}",
                want, have, d + lead, sizes, t.sizes());
    strides[d + lead] = have == 1 && want != 1 ? 0 : t.strides()[d];
  }
  return raw_view(t, sizes.vec(), std::move(strides), t.storage_offset());
}

void check_same_device(const char* op, std::initializer_list<std::reference_wrapper<const Tensor>> tensors) {
  const Tensor* first = nullptr;
  for (const Tensor& t : tensors) {
    if (!t.defined()) continue;
    if (!first) first = &t;
    EMBER_CHECK(t.device() == first->device(),
                "{}: expected all tensors to be on the same device, but found at least two devices, {} and {}", op,
                first->device().str(), t.device().str());
  }
}

static void check_same_device(const Tensor& a, const Tensor& b, const char* op) { check_same_device(op, {a, b}); }

void check_index(const Tensor& index, int64_t bound, const char* op, IntArrayRef shape, int64_t dim) {
  EMBER_CHECK(index.dtype() == kInt64, "{}: expected an int64 index tensor, got {}", op, dtype_name(index.dtype()));
  if (index.numel() == 0) return;
  std::vector<int64_t> every_dim(index.dim());
  for (int64_t d = 0; d < index.dim(); ++d) every_dim[d] = d;
  const int64_t lo = reduce(ReduceOp::Min, index, every_dim, false).item<int64_t>();
  const int64_t hi = reduce(ReduceOp::Max, index, every_dim, false).item<int64_t>();
  if (lo >= 0 && hi < bound) return;
  const int64_t bad = lo < 0 ? lo : hi;
  if (shape.empty()) EMBER_FAIL("{}: index {} is out of bounds for size {}", op, bad, bound);
  EMBER_FAIL("{}: index {} is out of bounds for dimension {} with size {} (input shape {})", op, bad, dim, bound,
             shape);
}

namespace {

// PyTorch's is_non_overlapping_and_dense: some order of the dims makes the tensor contiguous.
bool non_overlapping_and_dense(const Tensor& t) {
  std::vector<std::pair<int64_t, int64_t>> dims;  // (stride, size) of the dims of size > 1
  for (int64_t d = 0; d < t.dim(); ++d)
    if (t.sizes()[d] != 1) dims.emplace_back(t.strides()[d], t.sizes()[d]);
  std::sort(dims.begin(), dims.end());
  int64_t expected = 1;
  for (const auto& [stride, size] : dims) {
    if (stride != expected) return false;
    expected *= size;
  }
  return true;
}

}  // namespace

void check_no_overlap(const char* op, const Tensor& out,
                      std::initializer_list<std::reference_wrapper<const Tensor>> inputs) {
  if (out.numel() <= 1) return;
  for (int64_t d = 0; d < out.dim(); ++d)
    EMBER_CHECK(out.strides()[d] != 0 || out.sizes()[d] == 1,
                "{}: unsupported operation: more than one element of the written-to tensor refers to a single "
                "memory location. Please clone() the tensor before performing the operation. (written-to tensor: "
                "shape {}, strides {})",
                op, out.sizes(), out.strides());
  if (!non_overlapping_and_dense(out)) return;
  const auto* out_begin = static_cast<const char*>(out.raw_data_ptr());
  const char* out_end = out_begin + out.nbytes();
  for (const Tensor& in : inputs) {
    if (!in.defined() || in.numel() == 0 || !in.is_alias_of(out) || !non_overlapping_and_dense(in)) continue;
    const auto* in_begin = static_cast<const char*>(in.raw_data_ptr());
    const char* in_end = in_begin + in.nbytes();
    const bool same = in_begin == out_begin && in_end == out_end && in.strides() == out.strides();
    EMBER_CHECK(same || in_end <= out_begin || out_end <= in_begin,
                "{}: unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
                "single memory location. Please clone() the tensor before performing the operation. (written-to "
                "tensor: shape {}, strides {}, storage offset {}; input: shape {}, strides {}, storage offset {})",
                op, out.sizes(), out.strides(), out.storage_offset(), in.sizes(), in.strides(), in.storage_offset());
  }
}

Tensor unary(UnaryOp op, const Tensor& x) {
  Tensor out = raw_empty(x.sizes(), x.dtype(), x.device());
  backend_for(x).unary(op, out, x);
  return out;
}

Tensor binary(BinaryOp op, const Tensor& a, const Tensor& b) {
  check_same_device(a, b, op_name(op));
  const ScalarType common = result_type(a, b);
  std::vector<int64_t> shape = broadcast_shapes(a.sizes(), b.sizes(), op_name(op));
  Tensor out = raw_empty(shape, returns_bool(op) ? kBool : common, a.device());
  backend_for(a).binary(op, out, broadcast_to(cast(a, common), shape), broadcast_to(cast(b, common), shape));
  return out;
}

void binary_(BinaryOp op, const Tensor& self, const Tensor& other) {
  check_same_device(self, other, op_name(op));
  const ScalarType common = result_type(self, other);
  EMBER_CHECK(dtype_category(common) <= dtype_category(self.dtype()) || returns_bool(op),
              "{}_: result type {} can't be cast to the desired output type {}", op_name(op), dtype_name(common),
              dtype_name(self.dtype()));
  std::vector<int64_t> shape = broadcast_shapes(self.sizes(), other.sizes(), op_name(op));
  EMBER_CHECK(IntArrayRef(shape) == self.sizes(), "{}_: output with shape {} doesn't match the broadcast shape {}",
              op_name(op), self.sizes(), shape);
  Backend& be = backend_for(self);
  if (common == self.dtype() && !returns_bool(op)) {
    be.binary(op, self, self, broadcast_to(cast(other, common), shape));
  } else {  // compute in the common type, then convert into self
    Tensor tmp = raw_empty(shape, returns_bool(op) ? kBool : common, self.device());
    be.binary(op, tmp, cast(self, common), broadcast_to(cast(other, common), shape));
    be.copy(self, tmp);
  }
  self.bump_version();
}

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  check_same_device(a, b, "where");
  check_same_device(cond, a, "where");
  EMBER_CHECK(cond.dtype() == kBool, "where: expected condition to be a boolean tensor, but got a tensor with dtype {}",
              dtype_name(cond.dtype()));
  const ScalarType common = result_type(a, b);
  std::vector<int64_t> shape = broadcast_shapes(broadcast_shapes(a.sizes(), b.sizes(), "where"), cond.sizes(), "where");
  Tensor out = raw_empty(shape, common, a.device());
  backend_for(a).where(out, broadcast_to(cond, shape), broadcast_to(cast(a, common), shape),
                       broadcast_to(cast(b, common), shape));
  return out;
}

Tensor reduce(ReduceOp op, const Tensor& x, IntArrayRef dims, bool keepdim) {
  std::vector<int64_t> keep = x.sizes().vec();
  const std::vector<int64_t> all = wrap_dims(dims, x.dim(), op_name(op));
  for (int64_t d : all) keep[d] = 1;
  const bool logical = op == ReduceOp::All || op == ReduceOp::Any;
  if (!logical && (op == ReduceOp::Max || op == ReduceOp::Min)) {
    for (int64_t d : all)
      EMBER_CHECK(x.sizes()[d] > 0,
                  "{}: cannot reduce over dimension {} of size 0 (shape {}): the operation has no identity",
                  op_name(op), d, x.sizes());
  }
  Tensor out = raw_empty(keep, logical ? kBool : x.dtype(), x.device());
  backend_for(x).reduce(op, out, x, all);
  if (keepdim) return out;
  std::vector<int64_t> squeezed;
  for (int64_t d = 0; d < x.dim(); ++d)
    if (std::find(all.begin(), all.end(), d) == all.end()) squeezed.push_back(x.sizes()[d]);
  return raw_view(out, squeezed, contiguous_strides(squeezed), 0);
}

}  // namespace ember::kernel
