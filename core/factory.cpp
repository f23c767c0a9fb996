// Creation functions: empty/zeros/ones/full, arange/linspace/eye, the _like forms, from_vector,
// from_blob and tensor literals. Values are written on the CPU and moved when another device
// is asked for.
#include <cmath>

#include "core/backend.h"
#include "core/shape.h"
#include "core/tensor.h"

namespace ember {

namespace {

// The options' memory format (ChannelsLast, ChannelsLast3d) and requires_grad applied to a new tensor.
Tensor finish(Tensor t, const TensorOptions& options) {
  if (const auto format = options.memory_format_opt()) {
    EMBER_CHECK(*format != MemoryFormat::Preserve,
                "unsupported memory format Preserve (a creation function's TensorOptions; for shape {})", t.sizes());
    t = t.contiguous(*format);
  }
  if (options.requires_grad()) t.requires_grad_(true);
  return t;
}

TensorOptions like(const Tensor& t, const std::optional<TensorOptions>& options) {
  TensorOptions o = t.options();
  if (!options) return o;
  if (options->has_dtype()) o = o.dtype(options->dtype());
  if (options->device() != Device(kCPU) || t.is_cpu()) o = o.device(options->device());
  if (options->memory_format_opt()) o = o.memory_format(*options->memory_format_opt());
  return o.requires_grad(options->requires_grad());
}

// A host tensor converted to `dtype` on `device` (a new tensor; `host` is not kept).
Tensor convert_host(const Tensor& host, ScalarType dtype, Device device, const char* op) {
  Tensor out = raw_empty(host.sizes(), dtype, device, op);
  if (device.is_cpu()) {
    backend_for(device).copy(out, host);
  } else {
    Tensor converted = raw_empty(host.sizes(), dtype, Device(kCPU), op);
    backend_for(Device(kCPU)).copy(converted, host);
    backend_for(device).copy_from_host(out.raw_data_ptr(), converted.raw_data_ptr(), converted.nbytes(), device);
  }
  return out;
}

// Writes host values into a tensor on options' device.
template <typename T>
Tensor from_host(const std::vector<T>& values, IntArrayRef sizes, ScalarType dtype, Device device, const char* op) {
  Tensor host = raw_empty(sizes, dtype_of<T>::value, Device(kCPU), op);
  std::copy(values.begin(), values.end(), host.data_ptr<T>());
  return convert_host(host, dtype, device, op);
}

// A float64 host tensor of `sizes` whose element i is f(i), converted to `dtype` on `device`. The
// tensor is allocated (and its size checked) before any value is computed.
template <typename F>
Tensor generate(IntArrayRef sizes, ScalarType dtype, Device device, const char* op, F f) {
  Tensor host = raw_empty(sizes, kFloat64, Device(kCPU), op);
  double* v = host.data_ptr<double>();
  const int64_t n = host.numel();
  for (int64_t i = 0; i < n; ++i) v[i] = f(i);
  return convert_host(host, dtype, device, op);
}

}  // namespace

Tensor empty(IntArrayRef sizes, const TensorOptions& options) {
  return finish(raw_empty(sizes, options.dtype(), options.device()), options);
}

Tensor full(IntArrayRef sizes, const Scalar& value, const TensorOptions& options) {
  // Like torch.full, an unspecified dtype follows the value: bool, int64 or float32.
  ScalarType dt =
      options.has_dtype() ? options.dtype() : (value.is_floating_point() ? get_default_dtype() : value.type());
  Tensor t = raw_empty(sizes, dt, options.device());
  backend_for(t).fill(t, value);
  return finish(t, options);
}

Tensor zeros(IntArrayRef sizes, const TensorOptions& options) {
  return full(sizes, 0.0, options.dtype(options.dtype()));
}
Tensor ones(IntArrayRef sizes, const TensorOptions& options) {
  return full(sizes, 1.0, options.dtype(options.dtype()));
}
Tensor scalar_tensor(const Scalar& value, const TensorOptions& options) { return full({}, value, options); }

Tensor empty_like(const Tensor& t, std::optional<TensorOptions> o) { return empty(t.sizes(), like(t, o)); }
Tensor zeros_like(const Tensor& t, std::optional<TensorOptions> o) { return zeros(t.sizes(), like(t, o)); }
Tensor ones_like(const Tensor& t, std::optional<TensorOptions> o) { return ones(t.sizes(), like(t, o)); }
Tensor full_like(const Tensor& t, const Scalar& v, std::optional<TensorOptions> o) {
  return full(t.sizes(), v, like(t, o));
}

Tensor Tensor::new_empty(IntArrayRef sizes, const TensorOptions& o) const { return empty(sizes, like(*this, o)); }
Tensor Tensor::new_zeros(IntArrayRef sizes, const TensorOptions& o) const { return zeros(sizes, like(*this, o)); }
Tensor Tensor::new_ones(IntArrayRef sizes, const TensorOptions& o) const { return ones(sizes, like(*this, o)); }
Tensor Tensor::new_full(IntArrayRef sizes, const Scalar& value, const TensorOptions& o) const {
  return full(sizes, value, like(*this, o));
}

Tensor arange(const Scalar& end, const TensorOptions& options) { return arange(0, end, 1, options); }
Tensor arange(const Scalar& start, const Scalar& end, const TensorOptions& options) {
  return arange(start, end, 1, options);
}
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, const TensorOptions& options) {
  const double s = start.toDouble(), e = end.toDouble(), st = step.toDouble();
  EMBER_CHECK(std::isfinite(s) && std::isfinite(e), "arange: unsupported range: {} -> {}", s, e);
  EMBER_CHECK(st != 0, "arange: step must be nonzero");
  EMBER_CHECK((st > 0 && e >= s) || (st < 0 && e <= s),
              "arange: upper bound and larger bound inconsistent with step sign (start {}, end {}, step {})", s, e, st);
  const bool all_int = !start.is_floating_point() && !end.is_floating_point() && !step.is_floating_point();
  ScalarType dt = options.has_dtype() ? options.dtype() : (all_int ? kInt64 : get_default_dtype());
  // Compared as doubles: a count of 2^63 or more would be undefined as an int64.
  const double count = std::ceil((e - s) / st);
  EMBER_CHECK(count < 0x1p63, "arange: invalid size, possible overflow? (start {}, end {}, step {} give {} elements)",
              s, e, st, count);
  const int64_t n = static_cast<int64_t>(count);
  return finish(
      generate({n}, dt, options.device(), "arange", [&](int64_t i) { return s + static_cast<double>(i) * st; }),
      options);
}

Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, const TensorOptions& options) {
  EMBER_CHECK(steps >= 0, "linspace: number of steps must be non-negative, got {}", steps);
  const double s = start.toDouble(), e = end.toDouble();
  // PyTorch fills the first half from the start and the second half from the end.
  const double step = steps > 1 ? (e - s) / static_cast<double>(steps - 1) : 0.0;
  const int64_t half = steps == 1 ? 1 : steps / 2;  // a single step is the start, as in PyTorch
  return finish(generate({steps}, options.dtype(), options.device(), "linspace",
                         [&](int64_t i) { return i < half ? s + step * i : e - step * (steps - i - 1); }),
                options);
}

Tensor eye(int64_t n, const TensorOptions& options) { return eye(n, n, options); }
Tensor eye(int64_t n, int64_t m, const TensorOptions& options) {
  EMBER_CHECK(n >= 0 && m >= 0, "eye: n and m must be non-negative, got {} and {}", n, m);
  return finish(
      generate({n, m}, options.dtype(), options.device(), "eye", [m](int64_t i) { return i / m == i % m ? 1.0 : 0.0; }),
      options);
}

template <typename T>
Tensor from_vector(const std::vector<T>& data, IntArrayRef sizes, const TensorOptions& options) {
  const int64_t numel = checked_numel(sizes, "from_vector");
  EMBER_CHECK(static_cast<int64_t>(data.size()) == numel,
              "from_vector: {} values cannot fill a tensor of shape {} ({} elements)", data.size(), sizes, numel);
  ScalarType dt = options.has_dtype() ? options.dtype() : dtype_of<T>::value;
  return finish(from_host(data, sizes, dt, options.device(), "from_vector"), options);
}
template Tensor from_vector<float>(const std::vector<float>&, IntArrayRef, const TensorOptions&);
template Tensor from_vector<double>(const std::vector<double>&, IntArrayRef, const TensorOptions&);
template Tensor from_vector<int64_t>(const std::vector<int64_t>&, IntArrayRef, const TensorOptions&);
template Tensor from_vector<bool>(const std::vector<bool>&, IntArrayRef, const TensorOptions&);
template Tensor from_vector<uint8_t>(const std::vector<uint8_t>&, IntArrayRef, const TensorOptions&);
template Tensor from_vector<int8_t>(const std::vector<int8_t>&, IntArrayRef, const TensorOptions&);
template Tensor from_vector<int16_t>(const std::vector<int16_t>&, IntArrayRef, const TensorOptions&);
template Tensor from_vector<int32_t>(const std::vector<int32_t>&, IntArrayRef, const TensorOptions&);

Tensor from_blob(void* data, IntArrayRef sizes, const TensorOptions& options, std::function<void(void*)> deleter) {
  EMBER_CHECK(options.memory_format_opt().value_or(MemoryFormat::Contiguous) == MemoryFormat::Contiguous,
              "from_blob: the data is read as row-major (Contiguous); a memory_format {} would copy it (shape {})",
              memory_format_name(*options.memory_format_opt()), sizes);
  const int64_t nbytes = checked_nbytes(sizes, options.dtype(), "from_blob");
  auto impl = std::make_shared<TensorImpl>();
  impl->sizes = sizes.vec();
  impl->strides = contiguous_strides(sizes);
  impl->dtype = options.dtype();
  impl->storage =
      std::make_shared<StorageImpl>(data, static_cast<size_t>(nbytes), options.device(), std::move(deleter));
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
  // Floating literals take the default dtype (kFloat32 is the literal's "floating" category).
  ScalarType dt = options.has_dtype()                 ? options.dtype()
                  : data.inferred_dtype() == kFloat32 ? get_default_dtype()
                                                      : data.inferred_dtype();
  return finish(from_host(values, data.sizes(), dt, options.device(), "tensor"), options);
}

}  // namespace ember
