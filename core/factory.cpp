// Creation functions: empty/zeros/ones/full, arange/linspace/eye, the _like forms, from_vector,
// from_blob and tensor literals. Values are written on the CPU and moved when another device
// is asked for.
#include <cmath>

#include "core/backend.h"
#include "core/shape.h"
#include "core/tensor.h"

namespace ember {

namespace {

Tensor finish(Tensor t, const TensorOptions& options) {
  if (options.requires_grad()) t.requires_grad_(true);
  return t;
}

TensorOptions like(const Tensor& t, const std::optional<TensorOptions>& options) {
  TensorOptions o = t.options();
  if (!options) return o;
  if (options->has_dtype()) o = o.dtype(options->dtype());
  if (options->device() != Device(kCPU) || t.is_cpu()) o = o.device(options->device());
  return o.requires_grad(options->requires_grad());
}

// Writes host values into a tensor on options' device.
template <typename T>
Tensor from_host(const std::vector<T>& values, IntArrayRef sizes, ScalarType dtype, Device device) {
  Tensor host = raw_empty(sizes, dtype_of<T>::value, Device(kCPU));
  std::copy(values.begin(), values.end(), host.data_ptr<T>());
  Tensor out = raw_empty(sizes, dtype, device);
  if (device.is_cpu()) {
    backend_for(device).copy(out, host);
  } else {
    Tensor converted = raw_empty(sizes, dtype, Device(kCPU));
    backend_for(Device(kCPU)).copy(converted, host);
    backend_for(device).copy_from_host(out.raw_data_ptr(), converted.raw_data_ptr(), converted.nbytes(), device);
  }
  return out;
}

}  // namespace

Tensor empty(IntArrayRef sizes, const TensorOptions& options) {
  return finish(raw_empty(sizes, options.dtype(), options.device()), options);
}

Tensor full(IntArrayRef sizes, const Scalar& value, const TensorOptions& options) {
  // Like torch.full, an unspecified dtype follows the value: bool, int64 or float32.
  ScalarType dt = options.has_dtype() ? options.dtype() : (value.is_floating_point() ? kFloat32 : value.type());
  Tensor t = raw_empty(sizes, dt, options.device());
  backend_for(t).fill(t, value);
  return finish(t, options);
}

Tensor zeros(IntArrayRef sizes, const TensorOptions& options) { return full(sizes, 0.0, options.dtype(options.dtype())); }
Tensor ones(IntArrayRef sizes, const TensorOptions& options) { return full(sizes, 1.0, options.dtype(options.dtype())); }
Tensor scalar_tensor(const Scalar& value, const TensorOptions& options) { return full({}, value, options); }

Tensor empty_like(const Tensor& t, std::optional<TensorOptions> o) { return empty(t.sizes(), like(t, o)); }
Tensor zeros_like(const Tensor& t, std::optional<TensorOptions> o) { return zeros(t.sizes(), like(t, o)); }
Tensor ones_like(const Tensor& t, std::optional<TensorOptions> o) { return ones(t.sizes(), like(t, o)); }
Tensor full_like(const Tensor& t, const Scalar& v, std::optional<TensorOptions> o) { return full(t.sizes(), v, like(t, o)); }

Tensor arange(const Scalar& end, const TensorOptions& options) { return arange(0, end, 1, options); }
Tensor arange(const Scalar& start, const Scalar& end, const TensorOptions& options) {
  return arange(start, end, 1, options);
}
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, const TensorOptions& options) {
  const double s = start.toDouble(), e = end.toDouble(), st = step.toDouble();
  EMBER_CHECK(st != 0, "arange: step must be nonzero");
  EMBER_CHECK((st > 0 && e >= s) || (st < 0 && e <= s),
              "arange: upper bound and larger bound inconsistent with step sign (start {}, end {}, step {})", s, e, st);
  const bool all_int = !start.is_floating_point() && !end.is_floating_point() && !step.is_floating_point();
  ScalarType dt = options.has_dtype() ? options.dtype() : (all_int ? kInt64 : kFloat32);
  const int64_t n = static_cast<int64_t>(std::ceil((e - s) / st));
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = s + static_cast<double>(i) * st;
  return finish(from_host(v, {n}, dt, options.device()), options);
}

Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, const TensorOptions& options) {
  EMBER_CHECK(steps >= 0, "linspace: number of steps must be non-negative, got {}", steps);
  const double s = start.toDouble(), e = end.toDouble();
  std::vector<double> v(steps);
  // PyTorch fills the first half from the start and the second half from the end.
  const double step = steps > 1 ? (e - s) / static_cast<double>(steps - 1) : 0.0;
  const int64_t half = steps == 1 ? 1 : steps / 2;  // a single step is the start, as in PyTorch
  for (int64_t i = 0; i < steps; ++i) v[i] = i < half ? s + step * i : e - step * (steps - i - 1);
  return finish(from_host(v, {steps}, options.dtype(), options.device()), options);
}

Tensor eye(int64_t n, const TensorOptions& options) { return eye(n, n, options); }
Tensor eye(int64_t n, int64_t m, const TensorOptions& options) {
  EMBER_CHECK(n >= 0 && m >= 0, "eye: n and m must be non-negative, got {} and {}", n, m);
  std::vector<double> v(n * m, 0.0);
  for (int64_t i = 0; i < std::min(n, m); ++i) v[i * m + i] = 1.0;
  return finish(from_host(v, {n, m}, options.dtype(), options.device()), options);
}

template <typename T>
Tensor from_vector(const std::vector<T>& data, IntArrayRef sizes, const TensorOptions& options) {
  EMBER_CHECK(static_cast<int64_t>(data.size()) == numel_of(sizes),
              "from_vector: {} values cannot fill a tensor of shape {} ({} elements)", data.size(), sizes, numel_of(sizes));
  ScalarType dt = options.has_dtype() ? options.dtype() : dtype_of<T>::value;
  return finish(from_host(data, sizes, dt, options.device()), options);
}
template Tensor from_vector<float>(const std::vector<float>&, IntArrayRef, const TensorOptions&);
template Tensor from_vector<double>(const std::vector<double>&, IntArrayRef, const TensorOptions&);
template Tensor from_vector<int64_t>(const std::vector<int64_t>&, IntArrayRef, const TensorOptions&);
template Tensor from_vector<bool>(const std::vector<bool>&, IntArrayRef, const TensorOptions&);

Tensor from_blob(void* data, IntArrayRef sizes, const TensorOptions& options, std::function<void(void*)> deleter) {
  auto impl = std::make_shared<TensorImpl>();
  impl->sizes = sizes.vec();
  impl->strides = contiguous_strides(sizes);
  impl->dtype = options.dtype();
  impl->storage = std::make_shared<StorageImpl>(data, numel_of(sizes) * element_size(options.dtype()), options.device(),
                                                std::move(deleter));
  return finish(Tensor(std::move(impl)), options);
}

// ---- literals ----

TensorLiteral::TensorLiteral(std::initializer_list<TensorLiteral> rows) : is_scalar_(false), rows_(rows) {
  sizes_ = {static_cast<int64_t>(rows_.size())};
  kind_ = kBool;
  for (size_t i = 0; i < rows_.size(); ++i) {
    const TensorLiteral& r = rows_[i];
    if (i == 0) {
      sizes_.insert(sizes_.end(), r.sizes_.begin(), r.sizes_.end());
    } else {
      EMBER_CHECK(std::vector<int64_t>(sizes_.begin() + 1, sizes_.end()) == r.sizes_,
                  "tensor: expected a sequence of length {} at element {}, got shape {} (rows must all have one shape)",
                  sizes_.size() > 1 ? sizes_[1] : 0, i, IntArrayRef(r.sizes_));
    }
    kind_ = promote_types(kind_, r.kind_);
  }
  if (rows_.empty()) kind_ = kFloat32;
}

void TensorLiteral::flatten(std::vector<double>& out) const {
  if (is_scalar_) {
    out.push_back(scalar_);
    return;
  }
  for (const TensorLiteral& r : rows_) r.flatten(out);
}

Tensor tensor(const TensorLiteral& data, const TensorOptions& options) {
  std::vector<double> values;
  data.flatten(values);
  ScalarType dt = options.has_dtype() ? options.dtype() : data.inferred_dtype();
  return finish(from_host(values, data.sizes(), dt, options.device()), options);
}

}  // namespace ember
