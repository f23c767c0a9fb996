// Tensor metadata, storage, and the shape arithmetic behind views (core/shape.h).
//
// Nothing here computes on tensor values except the small host-side helpers (item, to_vector)
// that go through the backend's copy kernel.
#include "core/tensor.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <iostream>
#include <numeric>

#include "core/backend.h"
#include "core/caching_allocator.h"
#include "core/shape.h"

namespace ember {

namespace detail {
void throw_error(std::string msg) { throw Error(std::move(msg)); }
}  // namespace detail

namespace {
std::atomic<ScalarType> default_dtype{kFloat32};
}  // namespace

ScalarType get_default_dtype() { return default_dtype.load(std::memory_order_relaxed); }
void set_default_dtype(ScalarType dtype) {
  EMBER_CHECK(is_floating_point(dtype),
              "set_default_dtype: only floating-point types are supported as the default "
              "type, got {}",
              dtype_name(dtype));
  default_dtype = dtype;
}

Device::Device(const std::string& spec) {
  if (spec == "cpu") {
    type = kCPU;
  } else if (spec.rfind("cuda", 0) == 0) {
    type = kCUDA;
    if (spec.size() > 4) {
      EMBER_CHECK(spec[4] == ':' && spec.size() > 5, "Device: expected 'cpu', 'cuda' or 'cuda:N', got '{}'", spec);
      size_t used = 0;
      try {
        index = std::stoi(spec.substr(5), &used);
      } catch (const std::exception&) {
        used = 0;
      }
      EMBER_CHECK(used == spec.size() - 5 && index >= 0, "Device: expected 'cpu', 'cuda' or 'cuda:N', got '{}'", spec);
    }
  } else {
    EMBER_FAIL("Device: expected 'cpu', 'cuda' or 'cuda:N', got '{}'", spec);
  }
}

std::string Device::str() const { return is_cpu() ? "cpu" : fmt::format("cuda:{}", index); }

namespace {
std::atomic<int64_t> bytes_in_use{0};
}  // namespace

Storage make_storage(size_t nbytes, Device device) {
  Backend& be = backend_for(device);
  void* data = nbytes ? be.allocate(nbytes, device) : nullptr;
  bytes_in_use += static_cast<int64_t>(nbytes);
  return std::make_shared<StorageImpl>(data, nbytes, device, [&be, device, nbytes](void* p) {
    bytes_in_use -= static_cast<int64_t>(nbytes);
    if (p) be.deallocate(p, device);
  });
}

int64_t storage_bytes_in_use() { return bytes_in_use; }

// ---- TensorImpl ----

int64_t TensorImpl::numel() const { return numel_of(sizes); }

bool TensorImpl::is_contiguous() const {
  int64_t expected = 1;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    if (sizes[d] == 1) continue;
    if (strides[d] != expected) return sizes[d] == 0 ? true : numel() == 0;
    expected *= sizes[d];
  }
  return true;
}

// ---- Tensor metadata ----

int64_t Tensor::size(int64_t dim) const { return sizes()[wrap_dim(dim, this->dim(), "size")]; }
int64_t Tensor::stride(int64_t dim) const { return strides()[wrap_dim(dim, this->dim(), "stride")]; }

TensorOptions Tensor::options() const { return TensorOptions().dtype(dtype()).device(device()); }

void* Tensor::raw_data_ptr() const {
  return static_cast<char*>(storage()->data) + storage_offset() * static_cast<int64_t>(element_size());
}

void Tensor::check_accessor(const char* op, size_t dims, bool host, int64_t max_index) const {
  EMBER_CHECK(dim() == static_cast<int64_t>(dims), "{}: TensorAccessor expected {} dims but tensor has {}", op, dims,
              dim());
  EMBER_CHECK(!host || is_cpu(), "{}: the tensor is on {}; an accessor reads host memory, so call .cpu() first", op,
              device().str());
  int64_t last = 0;  // the largest element offset the accessor can form
  for (int64_t d = 0; d < dim(); ++d) {
    if (size(d) > 0) last += (size(d) - 1) * std::abs(stride(d));
  }
  EMBER_CHECK(numel() <= max_index && last <= max_index,
              "{}: a tensor of shape {} needs 64-bit indexing (the largest offset is {}); use packed_accessor64", op,
              shape_str(sizes()), last);
}

template <typename T>
T* Tensor::data_ptr() const {
  EMBER_CHECK(dtype() == dtype_of<T>::value, "data_ptr: tensor has dtype {} but {} was requested", dtype_name(dtype()),
              dtype_name(dtype_of<T>::value));
  return static_cast<T*>(raw_data_ptr());
}

template <typename T>
std::vector<T> Tensor::to_vector() const {
  // Materialise as a contiguous host tensor of type T, then copy out.
  Tensor host = raw_empty(sizes(), dtype_of<T>::value, Device(kCPU));
  if (is_cpu()) {
    backend_for(Device(kCPU)).copy(host, *this);
  } else {
    Tensor dense = raw_empty(sizes(), dtype_of<T>::value, device());
    backend_for(device()).copy(dense, *this);
    backend_for(device()).copy_to_host(host.raw_data_ptr(), dense.raw_data_ptr(), dense.nbytes(), device());
  }
  const T* p = static_cast<const T*>(host.raw_data_ptr());
  return std::vector<T>(p, p + numel());
}

Scalar Tensor::item() const {
  EMBER_CHECK(numel() == 1, "item: a Tensor with {} elements cannot be converted to a scalar (shape {})", numel(),
              sizes());
  switch (dtype()) {
    case kFloat32:
    case kFloat64:
      return to_vector<double>()[0];
    case kInt64:
      return to_vector<int64_t>()[0];
    case kBool:
      return static_cast<bool>(to_vector<bool>()[0]);
    case kBFloat16:
    case kFloat16:
      return to_vector<double>()[0];
    case kUInt8:
    case kInt8:
    case kInt16:
    case kInt32:
      return to_vector<int64_t>()[0];
  }
  EMBER_FAIL("item: unsupported dtype");
}

Tensor& Tensor::resize_(IntArrayRef new_sizes, std::optional<MemoryFormat> memory_format) {
  EMBER_CHECK(!requires_grad(), "resize_: cannot resize variables that require grad");
  for (int64_t s : new_sizes)
    EMBER_CHECK(s >= 0, "resize_: Trying to create tensor with negative dimension {}: {}", s, new_sizes);
  EMBER_CHECK(memory_format != MemoryFormat::Preserve, "resize_: Unsupported memory format {}",
              memory_format_name(MemoryFormat::Preserve));
  TensorImpl* self = impl();
  // The same sizes keep their strides, unless a memory format asks for its own.
  const std::vector<int64_t> restrided =
      memory_format ? format_strides(new_sizes, *memory_format, "resize_") : contiguous_strides(new_sizes);
  if (self->sizes == std::vector<int64_t>(new_sizes.begin(), new_sizes.end())) {
    if (memory_format) self->strides = restrided;
    return *this;
  }
  const int64_t numel = checked_numel(new_sizes, "resize_");
  const size_t needed = static_cast<size_t>(self->offset + numel) * element_size();
  StorageImpl& storage = *self->storage;
  if (needed > storage.nbytes) {
    // Grow in place, so that every view of this storage sees the new memory: the old bytes are
    // copied to the front of a new block, and the two blocks trade places.
    Storage grown = make_storage(needed, storage.device);
    const int64_t old_elems = static_cast<int64_t>(storage.nbytes / element_size());
    if (old_elems > 0) {
      auto whole = [&](const Storage& st) {
        auto t = std::make_shared<TensorImpl>();
        t->storage = st;
        t->sizes = {old_elems};
        t->strides = {1};
        t->dtype = dtype();
        return Tensor(std::move(t));
      };
      backend_for(device()).copy(whole(grown), whole(self->storage));
    }
    std::swap(storage.data, grown->data);
    std::swap(storage.nbytes, grown->nbytes);
    std::swap(storage.deleter, grown->deleter);
  }
  self->sizes = new_sizes.vec();
  self->strides = restrided;
  return *this;
}

Tensor& Tensor::resize_as_(const Tensor& the_template, std::optional<MemoryFormat> memory_format) {
  if (memory_format == MemoryFormat::Preserve) memory_format = the_template.suggest_memory_format();
  return resize_(the_template.sizes(), memory_format);
}

void Tensor::set_data(const Tensor& new_data) const {
  EMBER_CHECK(new_data.defined(), "set_data: the new data is an undefined tensor");
  EMBER_CHECK(new_data.device() == device(),
              "set_data: Attempted to call `variable.set_data(tensor)`, but `variable` and `tensor` have incompatible "
              "tensor type ({} and {})",
              toString(), new_data.toString());
  TensorImpl* self = impl();
  const TensorImpl& src = *new_data.unsafeGetTensorImpl();
  self->storage = src.storage;
  self->sizes = src.sizes;
  self->strides = src.strides;
  self->offset = src.offset;
  self->dtype = src.dtype;
}

#define EMBER_INSTANTIATE(T)               \
  template T* Tensor::data_ptr<T>() const; \
  template std::vector<T> Tensor::to_vector<T>() const;
EMBER_INSTANTIATE(float)
EMBER_INSTANTIATE(double)
EMBER_INSTANTIATE(int64_t)
EMBER_INSTANTIATE(bool)
EMBER_INSTANTIATE(BFloat16)
EMBER_INSTANTIATE(Half)
EMBER_INSTANTIATE(uint8_t)
EMBER_INSTANTIATE(int8_t)
EMBER_INSTANTIATE(int16_t)
EMBER_INSTANTIATE(int32_t)
#undef EMBER_INSTANTIATE

std::string Tensor::toString() const {
  // libtorch's "CPUFloatType", "CPUBFloat16Type": the device, c10's name of the dtype, "Type".
  return std::string(is_cpu() ? "CPU" : "CUDA") + std::string(scalar_type_name(dtype())) + "Type";
}

void Tensor::print() const { std::cout << *this << '\n'; }

// ---- shape arithmetic ----

int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op) {
  int64_t n = std::max<int64_t>(ndim, 1);  // a 0-dim tensor accepts dim 0 and -1, as in PyTorch
  EMBER_CHECK(dim >= -n && dim < n, "{}: dimension out of range (expected to be in range of [{}, {}], but got {})", op,
              -n, n - 1, dim);
  return dim < 0 ? dim + n : dim;
}

std::vector<int64_t> wrap_dims(IntArrayRef dims, int64_t ndim, const char* op) {
  std::vector<int64_t> out;
  if (dims.empty()) {
    out.resize(ndim);
    std::iota(out.begin(), out.end(), 0);
    return out;
  }
  for (int64_t d : dims) {
    int64_t w = wrap_dim(d, ndim, op);
    EMBER_CHECK(std::find(out.begin(), out.end(), w) == out.end(),
                "{}: dim {} appears multiple times in the list of dims", op, w);
    out.push_back(w);
  }
  if (ndim == 0) out.clear();
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<int64_t> contiguous_strides(IntArrayRef sizes) {
  std::vector<int64_t> strides(sizes.size());
  int64_t s = 1;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    strides[d] = s;
    s *= std::max<int64_t>(sizes[d], 1);
  }
  return strides;
}

int64_t numel_of(IntArrayRef sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

namespace {
// The product of `sizes` with each 0 counted as 1 (the span contiguous strides need), or nothing on
// an int64 overflow. Negative sizes are rejected first, naming `op`.
std::optional<int64_t> checked_span(IntArrayRef sizes, const char* op) {
  for (int64_t s : sizes) EMBER_CHECK(s >= 0, "{}: negative dimension {} in shape {}", op, s, sizes);
  int64_t span = 1;
  for (int64_t s : sizes)
    if (__builtin_mul_overflow(span, std::max<int64_t>(s, 1), &span)) return std::nullopt;
  return span;
}
bool has_zero(IntArrayRef sizes) { return std::find(sizes.begin(), sizes.end(), 0) != sizes.end(); }
}  // namespace

int64_t checked_numel(IntArrayRef sizes, const char* op) {
  std::optional<int64_t> span = checked_span(sizes, op);
  EMBER_CHECK(span.has_value(), "{}: shape {} has too many elements (the product of the sizes overflows 64 bits)", op,
              sizes);
  return has_zero(sizes) ? 0 : *span;
}

int64_t checked_nbytes(IntArrayRef sizes, ScalarType dtype, const char* op) {
  std::optional<int64_t> span = checked_span(sizes, op);
  int64_t nbytes = 0;
  if (!span || __builtin_mul_overflow(*span, static_cast<int64_t>(element_size(dtype)), &nbytes))
    throw OutOfMemoryError(fmt::format("{}: cannot allocate a tensor of shape {} {} (the size overflows 64 bits)", op,
                                       sizes, dtype_name(dtype)));
  return has_zero(sizes) ? 0 : nbytes;
}

std::vector<int64_t> broadcast_shapes(IntArrayRef a, IntArrayRef b, const char* op) {
  size_t n = std::max(a.size(), b.size());
  std::vector<int64_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    EMBER_CHECK(da == db || da == 1 || db == 1,
                "{}: shapes {} and {} cannot be broadcast (the size of dimension {} is {} in one and {} in the other)",
                op, a, b, i, da, db);
    out[i] = da == 1 ? db : da;
  }
  return out;
}

std::vector<int64_t> infer_size(IntArrayRef shape, int64_t numel, const char* op) {
  std::vector<int64_t> out = shape.vec();
  int64_t known = 1;
  std::optional<size_t> infer;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1) {
      EMBER_CHECK(!infer, "{}: only one dimension can be inferred (shape {})", op, shape);
      infer = i;
    } else {
      EMBER_CHECK(out[i] >= 0, "{}: invalid shape dimension {} in {}", op, out[i], shape);
      EMBER_CHECK(!__builtin_mul_overflow(known, out[i], &known),
                  "{}: shape {} is invalid for input of size {} (the product of the sizes overflows 64 bits)", op,
                  shape, numel);
    }
  }
  if (infer) {
    EMBER_CHECK(known != 0 && numel % known == 0, "{}: shape {} is invalid for input of size {}", op, shape, numel);
    out[*infer] = numel / known;
  } else {
    EMBER_CHECK(known == numel, "{}: shape {} is invalid for input of size {}", op, shape, numel);
  }
  checked_numel(out, op);  // an empty tensor's new strides must fit too
  return out;
}

// Walks the old dims in chunks that are contiguous among themselves and matches each chunk
// against a run of new dims with the same element count (the algorithm of THTensor_compute_stride).
std::optional<std::vector<int64_t>> view_strides(IntArrayRef sizes, IntArrayRef strides, IntArrayRef new_sizes) {
  std::vector<int64_t> out(new_sizes.size());
  if (sizes.empty()) {
    std::fill(out.begin(), out.end(), 1);
    return out;
  }
  if (numel_of(sizes) == 0) return contiguous_strides(new_sizes);
  int64_t view_d = static_cast<int64_t>(new_sizes.size()) - 1;
  int64_t chunk_base_stride = strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    tensor_numel *= sizes[d];
    if (d == 0 || (sizes[d - 1] != 1 && strides[d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || new_sizes[view_d] == 1)) {
        out[view_d] = view_numel * chunk_base_stride;
        view_numel *= new_sizes[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (d > 0) {
        chunk_base_stride = strides[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return out;
}

Tensor raw_view(const Tensor& base, std::vector<int64_t> sizes, std::vector<int64_t> strides, int64_t offset) {
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = base.storage();
  impl->sizes = std::move(sizes);
  impl->strides = std::move(strides);
  impl->offset = offset;
  impl->dtype = base.dtype();
  return Tensor(std::move(impl));
}

Tensor raw_empty(IntArrayRef sizes, ScalarType dtype, Device device, const char* op) {
  const int64_t nbytes = checked_nbytes(sizes, dtype, op);
  auto impl = std::make_shared<TensorImpl>();
  impl->sizes = sizes.vec();
  impl->strides = contiguous_strides(sizes);
  impl->dtype = dtype;
  try {
    impl->storage = make_storage(static_cast<size_t>(nbytes), device);
  } catch (const OutOfMemoryError& e) {
    throw OutOfMemoryError(fmt::format("{}: cannot allocate a tensor of shape {} {} ({}): {}", op, sizes,
                                       dtype_name(dtype), format_bytes(static_cast<size_t>(nbytes)), e.what()));
  }
  return Tensor(std::move(impl));
}

}  // namespace ember
