// Tensor: a handle to shared storage with a shape, strides, an offset, a dtype and a device.
//
//   ember::Tensor a = ember::tensor({{0.43, 0.15}, {0.55, 0.87}});
//   ember::Tensor w = ember::randn({2, 3}, ember::requires_grad());
//   ember::Tensor y = a.matmul(w).relu().sum();
//   y.backward();                 // w.grad() now holds dy/dw
//
// Copying a Tensor copies the handle, never the data (torch::Tensor semantics). Views
// (view, transpose, narrow, expand, ...) share storage and differ only in sizes/strides/offset.
// This header declares the whole API; core/tensor.cpp defines the metadata, autograd/<family>.cpp the
// ops with their backward, and some core files call those ops: docs/ARCHITECTURE.md, "core and autograd".
#pragma once

#include <concepts>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "core/array_ref.h"
#include "core/device.h"
#include "core/dtype.h"
#include "core/error.h"
#include "core/generator.h"
#include "core/scalar.h"
#include "core/storage.h"
#include "core/tensor_accessor.h"
#include "core/tensor_options.h"

namespace ember {

class Generator;  // core/generator.h

namespace autograd {
class Node;
struct AutogradMeta;
}  // namespace autograd

class Tensor;
namespace indexing {
class TensorIndex;  // core/indexing.h
}  // namespace indexing
using tensor_list = std::vector<Tensor>;

// The data behind a Tensor handle. Plain data; invariants are kept by the functions that
// create views (core/tensor.cpp). `autograd` is null for tensors that never took part in autograd.
struct TensorImpl {
  Storage storage;
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;  // in elements
  int64_t offset = 0;            // in elements
  ScalarType dtype = kFloat32;
  std::shared_ptr<autograd::AutogradMeta> autograd;

  int64_t numel() const;
  bool is_contiguous() const;
};

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  // ---- metadata (core/tensor.cpp) ----
  bool defined() const { return impl_ != nullptr; }
  IntArrayRef sizes() const { return impl()->sizes; }
  IntArrayRef strides() const { return impl()->strides; }
  int64_t size(int64_t dim) const;  // negative dims count from the end
  int64_t stride(int64_t dim) const;
  int64_t dim() const { return static_cast<int64_t>(impl()->sizes.size()); }
  int64_t ndimension() const { return dim(); }
  int64_t numel() const { return impl()->numel(); }
  int64_t storage_offset() const { return impl()->offset; }
  ScalarType dtype() const { return impl()->dtype; }
  ScalarType scalar_type() const { return impl()->dtype; }
  Device device() const { return impl()->storage->device; }
  bool is_cpu() const { return device().is_cpu(); }
  bool is_cuda() const { return device().is_cuda(); }
  bool is_floating_point() const { return ember::is_floating_point(dtype()); }
  bool is_contiguous() const { return impl()->is_contiguous(); }
  size_t element_size() const { return ember::element_size(dtype()); }
  size_t nbytes() const { return static_cast<size_t>(numel()) * element_size(); }
  TensorOptions options() const;
  const Storage& storage() const { return impl()->storage; }
  bool is_same(const Tensor& o) const { return impl_ == o.impl_; }
  bool is_alias_of(const Tensor& o) const { return storage() == o.storage(); }
  TensorImpl* unsafeGetTensorImpl() const { return impl_.get(); }
  const std::shared_ptr<TensorImpl>& impl_ptr() const { return impl_; }
  long use_count() const { return impl_.use_count(); }
  uint32_t _version() const { return storage()->version; }
  // Marks an in-place write: what autograd's saved-tensor checks look at (core/storage.h).
  void bump_version() const { ++storage()->version; }

  // Pointer to element [0, 0, ...] (storage offset applied). Checks the dtype.
  template <typename T>
  T* data_ptr() const;
  void* raw_data_ptr() const;
  void* data_ptr() const { return raw_data_ptr(); }  // libtorch's untyped form
  // a[i][j] without per-element checks (core/tensor_accessor.h). The dtype and the number of dims are
  // checked here; accessor() reads host memory (CPU tensors), packed accessors carry a device pointer.
  template <typename T, size_t N>
  TensorAccessor<T, N> accessor() const& {
    check_accessor("accessor", N, /*host=*/true, INT64_MAX);
    return {data_ptr<std::remove_const_t<T>>(), sizes().data(), strides().data()};
  }
  template <typename T, size_t N>
  TensorAccessor<T, N> accessor() && = delete;
  template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits, typename index_t = int64_t>
  GenericPackedTensorAccessor<T, N, PtrTraits, index_t> generic_packed_accessor() const& {
    check_accessor("generic_packed_accessor", N, /*host=*/false, std::numeric_limits<index_t>::max());
    return {data_ptr<std::remove_const_t<T>>(), sizes().data(), strides().data()};
  }
  template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits, typename index_t = int64_t>
  GenericPackedTensorAccessor<T, N, PtrTraits, index_t> generic_packed_accessor() && = delete;
  template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits>
  PackedTensorAccessor32<T, N, PtrTraits> packed_accessor32() const& {
    return generic_packed_accessor<T, N, PtrTraits, int32_t>();
  }
  template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits>
  PackedTensorAccessor32<T, N, PtrTraits> packed_accessor32() && = delete;
  template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits>
  PackedTensorAccessor64<T, N, PtrTraits> packed_accessor64() const& {
    return generic_packed_accessor<T, N, PtrTraits, int64_t>();
  }
  template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits>
  PackedTensorAccessor64<T, N, PtrTraits> packed_accessor64() && = delete;
  // Throws unless dim() == dims, the tensor is on the CPU (when `host`) and every offset fits max_index.
  void check_accessor(const char* op, size_t dims, bool host, int64_t max_index) const;
  // The value of a one-element tensor (any device), converted to T.
  template <typename T>
  T item() const {
    return item().to<T>();
  }
  // The same as a Scalar (double, int64 or bool as the dtype says): t.item().toFloat(), std::cout << t.item().
  Scalar item() const;
  // Copies the elements (any layout, any device) into a vector in row-major order.
  template <typename T>
  std::vector<T> to_vector() const;

  std::string toString() const;  // "CPUFloatType" as libtorch names it
  void print() const;            // std::cout << *this << '\n'

  // ---- autograd (autograd/variable.cpp) ----
  bool requires_grad() const;
  Tensor& requires_grad_(bool requires_grad = true);
  Tensor& set_requires_grad(bool r) { return requires_grad_(r); }
  const Tensor& grad() const;
  Tensor& mutable_grad() const;
  void set_grad(const Tensor& g) const;
  std::shared_ptr<autograd::Node> grad_fn() const;
  // grad_fn()->name() ("MulBackward0"), or "" without one: lets core print it without autograd's headers.
  std::string grad_fn_name() const;
  bool is_leaf() const;
  // Whether this tensor is a view of another (made by view, slice, expand, as_strided...), as libtorch's.
  bool is_view() const;
  uint32_t output_nr() const;
  // With `inputs`, gradients accumulate only into those tensors (leaves or not); an explicitly
  // empty list is an error, as in libtorch.
  void backward(const Tensor& gradient = {}, std::optional<bool> retain_graph = std::nullopt, bool create_graph = false,
                std::optional<tensor_list> inputs = std::nullopt) const;
  Tensor detach() const;
  Tensor& detach_();
  void retain_grad() const;
  // The same data without autograd history (requires_grad false), sharing storage and version
  // counter: libtorch's x.data(), x.tensor_data() and x.variable_data() (libtorch gives
  // variable_data a fresh version counter; Ember's counter lives in the storage, so all three share it).
  Tensor data() const { return detach(); }
  Tensor tensor_data() const { return detach(); }
  Tensor variable_data() const { return detach(); }
  // Makes this tensor (every handle to it) show new_data's storage, shape and dtype, keeping its
  // own autograd state: libtorch's x.set_data(y), used to swap a parameter's values.
  void set_data(const Tensor& new_data) const;
  bool retains_grad() const;
  // Called with the gradient of this tensor during backward; return a defined tensor to replace it.
  unsigned register_hook(std::function<Tensor(const Tensor&)> hook) const;
  // A hook that returns nothing only looks at the gradient (libtorch accepts both kinds).
  template <typename Hook>
  requires std::is_void_v<std::invoke_result_t<Hook&, const Tensor&>>
  unsigned register_hook(Hook hook) const {
    return register_hook(std::function<Tensor(const Tensor&)>([hook = std::move(hook)](const Tensor& g) mutable {
      hook(g);
      return Tensor();
    }));
  }
  void remove_hook(unsigned handle) const;
  // A name shown by autograd::to_dot and the debug trace ("W_query", "x").
  const Tensor& set_name(const std::string& name) const;
  std::string name() const;

  // ---- conversion and copies (autograd/shape.cpp) ----
  // libtorch's overloads: x itself when nothing changes and copy is false (and memory_format, if given,
  // is Preserve or x's suggested format), else a new tensor in memory_format (default Preserve: a dense
  // x's strides). non_blocking is accepted and has no effect: Ember's copies finish before they return.
  Tensor to(ScalarType dtype, bool non_blocking = false, bool copy = false,
            std::optional<MemoryFormat> memory_format = std::nullopt) const;
  Tensor to(Device device, bool non_blocking = false, bool copy = false,
            std::optional<MemoryFormat> memory_format = std::nullopt) const;
  Tensor to(DeviceType type, bool non_blocking = false, bool copy = false,  // x.to(kCUDA)
            std::optional<MemoryFormat> memory_format = std::nullopt) const {
    return to(Device(type), non_blocking, copy, memory_format);
  }
  Tensor to(Device device, ScalarType dtype, bool non_blocking = false, bool copy = false,
            std::optional<MemoryFormat> memory_format = std::nullopt) const;
  Tensor to(const TensorOptions& options, bool non_blocking = false, bool copy = false,
            std::optional<MemoryFormat> memory_format = std::nullopt) const;
  Tensor to(const Tensor& other, bool non_blocking = false, bool copy = false,  // other's dtype and device
            std::optional<MemoryFormat> memory_format = std::nullopt) const;
  Tensor cpu() const { return to(Device(kCPU)); }
  Tensor cuda() const { return to(Device(kCUDA)); }
  Tensor clone() const;
  Tensor contiguous() const;
  // x itself when it already lies in memory_format, else a copy that does (Preserve is an error).
  Tensor contiguous(MemoryFormat memory_format) const;
  bool is_contiguous(MemoryFormat memory_format) const;
  bool is_non_overlapping_and_dense() const;  // its elements fill numel() slots, in some dim order
  // ChannelsLast (ChannelsLast3d) when a 4-d (5-d) tensor's strides order its dims as that format
  // does (with exact_match: are exactly its dense strides), else Contiguous; libtorch's rules.
  MemoryFormat suggest_memory_format(bool channels_last_strides_exact_match = false) const;
  Layout layout() const { return kStrided; }
  bool is_sparse() const { return false; }
  Tensor& copy_(const Tensor& src);
  Tensor& fill_(const Scalar& value);
  Tensor& zero_();

  // ---- random fills (core/random.cpp); PyTorch's CPU generator, bit for bit ----
  Tensor& uniform_(double from = 0, double to = 1, std::optional<Generator> generator = std::nullopt);
  Tensor& normal_(double mean = 0, double std = 1, std::optional<Generator> generator = std::nullopt);
  Tensor& bernoulli_(double p = 0.5, std::optional<Generator> generator = std::nullopt);
  Tensor& random_(int64_t from, std::optional<int64_t> to, std::optional<Generator> generator = std::nullopt);
  Tensor& random_(int64_t to, std::optional<Generator> generator = std::nullopt);  // [0, to)
  Tensor& random_(std::optional<Generator> generator = std::nullopt);  // [0, 2^mantissa] floats, [0, max] ints
  Tensor& exponential_(double lambd = 1, std::optional<Generator> generator = std::nullopt);
  // exp(N(mean, std)); median + sigma tan(pi (u - 1/2)); the count of Bernoulli(p) trials up to the
  // first success (integral dtypes too).
  Tensor& log_normal_(double mean = 1, double std = 2, std::optional<Generator> generator = std::nullopt);
  Tensor& cauchy_(double median = 0, double sigma = 1, std::optional<Generator> generator = std::nullopt);
  Tensor& geometric_(double p, std::optional<Generator> generator = std::nullopt);
  // 0/1 draws with this tensor's values as the probabilities, or with probability p (a new tensor).
  Tensor bernoulli(std::optional<Generator> generator = std::nullopt) const;
  Tensor bernoulli(double p, std::optional<Generator> generator = std::nullopt) const;

  // ---- views (autograd/shape.cpp): share storage, never copy ----
  Tensor view(IntArrayRef shape) const;
  Tensor view_as(const Tensor& other) const { return view(other.sizes()); }
  Tensor reshape(IntArrayRef shape) const;  // a view when strides allow, else a copy
  Tensor reshape_as(const Tensor& other) const { return reshape(other.sizes()); }
  Tensor transpose(int64_t dim0, int64_t dim1) const;
  Tensor t() const;
  Tensor mT() const { return transpose(-2, -1); }
  Tensor permute(IntArrayRef dims) const;
  Tensor unsqueeze(int64_t dim) const;
  Tensor squeeze() const;
  Tensor squeeze(int64_t dim) const;
  Tensor squeeze_dims(IntArrayRef dims) const;  // removes each listed size-1 dim
  Tensor expand(IntArrayRef sizes) const;
  Tensor expand_as(const Tensor& other) const { return expand(other.sizes()); }
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  Tensor slice(int64_t dim, std::optional<int64_t> start = std::nullopt, std::optional<int64_t> end = std::nullopt,
               int64_t step = 1) const;
  Tensor select(int64_t dim, int64_t index) const;
  Tensor operator[](int64_t index) const { return select(0, index); }
  // ---- indexing (autograd/indexing.cpp; the index types in core/indexing.h) ----
  // x[i] = y and x.index({...}) = 3 write into the view (copy_ / fill_), as in libtorch; assigning
  // to a named Tensor (an lvalue) still rebinds the handle and copies nothing.
  Tensor(const Tensor&) = default;
  Tensor(Tensor&&) noexcept = default;
  Tensor& operator=(const Tensor&) & = default;
  Tensor& operator=(Tensor&&) & noexcept = default;
  Tensor& operator=(const Tensor& src) && { return copy_(src); }
  Tensor& operator=(Tensor&& src) && { return copy_(src); }
  Tensor& operator=(const Scalar& value) && { return fill_(value); }
  Tensor operator[](const Scalar& index) const;  // an integral Scalar
  Tensor operator[](const Tensor& index) const;  // a 0-dim integer tensor: select(0, index.item())
  // x.index({0, Slice(1, None), "...", None, mask, idx}): a view without tensor indices, else a copy.
  Tensor index(ArrayRef<indexing::TensorIndex> indices) const;
  Tensor index(std::initializer_list<indexing::TensorIndex> indices) const;
  // ATen's form: one optional int64 or bool tensor per leading dim (nullopt takes the whole dim).
  Tensor index(const std::vector<std::optional<Tensor>>& indices) const;
  Tensor& index_put_(ArrayRef<indexing::TensorIndex> indices, const Tensor& values);
  Tensor& index_put_(ArrayRef<indexing::TensorIndex> indices, const Scalar& value);
  Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices, const Tensor& values);
  Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices, const Scalar& value);
  // With accumulate, values at repeated indices add up; without, one of them is written.
  Tensor& index_put_(const std::vector<std::optional<Tensor>>& indices, const Tensor& values, bool accumulate = false);
  Tensor index_put(const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
                   bool accumulate = false) const;
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  Tensor unflatten(int64_t dim, IntArrayRef sizes) const;
  tensor_list split(int64_t split_size, int64_t dim = 0) const;
  tensor_list split_with_sizes(IntArrayRef split_sizes, int64_t dim = 0) const;
  tensor_list chunk(int64_t chunks, int64_t dim = 0) const;
  tensor_list unbind(int64_t dim = 0) const;
  // A copy of this tensor with slice(dim, start, end, step) replaced by src (torch.slice_scatter).
  Tensor slice_scatter(const Tensor& src, int64_t dim = 0, std::optional<int64_t> start = std::nullopt,
                       std::optional<int64_t> end = std::nullopt, int64_t step = 1) const;
  // The same with select(dim, index) / diagonal(offset, dim1, dim2) replaced (autograd/scatter.cpp).
  Tensor select_scatter(const Tensor& src, int64_t dim, int64_t index) const;
  Tensor diagonal_scatter(const Tensor& src, int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1) const;
  Tensor as_strided(IntArrayRef sizes, IntArrayRef strides, std::optional<int64_t> offset = std::nullopt) const;
  // This tensor (every handle to it) takes the geometry as_strided gives (libtorch's as_strided_).
  Tensor& as_strided_(IntArrayRef sizes, IntArrayRef strides, std::optional<int64_t> offset = std::nullopt);
  // A copy of this tensor with as_strided(sizes, strides, offset) of the copy replaced by src
  // (torch.as_strided_scatter); not differentiable, as as_strided is not.
  Tensor as_strided_scatter(const Tensor& src, IntArrayRef sizes, IntArrayRef strides,
                            std::optional<int64_t> offset = std::nullopt) const;
  // Gives this tensor the contiguous shape `sizes`, keeping its first elements in row-major order
  // and growing the storage (new elements uninitialised) when it needs more; libtorch's resize_.
  // Not for tensors that require grad.
  // A memory format (ChannelsLast for 4-d sizes, ChannelsLast3d for 5-d) gives the result its strides.
  Tensor& resize_(IntArrayRef sizes, std::optional<MemoryFormat> memory_format = std::nullopt);
  // In-place views: this tensor (every handle to it) takes the view's shape and strides, and its
  // autograd history the view's (libtorch's unsqueeze_, squeeze_, t_, transpose_).
  Tensor& unsqueeze_(int64_t dim);
  Tensor& squeeze_();
  Tensor& squeeze_(int64_t dim);
  Tensor& t_();
  Tensor& transpose_(int64_t dim0, int64_t dim1);
  // ---- reordering and repeating (autograd/shape.cpp): new tensors ----
  Tensor flip(IntArrayRef dims) const;
  // Elements shifted by shifts[i] along dims[i], wrapping around; without dims, over the flattened tensor.
  Tensor roll(IntArrayRef shifts, IntArrayRef dims = {}) const;
  // The tensor tiled repeats[i] times along dim i (leading repeats add dims), as torch.Tensor.repeat.
  Tensor repeat(IntArrayRef repeats) const;
  // ---- sorting and scans (autograd/sort.cpp) ----
  // Sorted along dim, with the indices the values came from. NaN sorts above every number; Ember's
  // sort is always stable (libtorch's CPU sort is too), so `stable` changes nothing.
  std::tuple<Tensor, Tensor> sort(int64_t dim = -1, bool descending = false) const;
  std::tuple<Tensor, Tensor> sort(std::optional<bool> stable, int64_t dim = -1, bool descending = false) const;
  Tensor argsort(int64_t dim = -1, bool descending = false) const;
  Tensor argsort(bool stable, int64_t dim = -1, bool descending = false) const;
  // The k largest (or smallest) along dim, in sorted order, with their indices.
  std::tuple<Tensor, Tensor> topk(int64_t k, int64_t dim = -1, bool largest = true, bool sorted = true) const;
  // Running sum and product along dim; integer and bool inputs give int64, as in PyTorch.
  Tensor cumsum(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor cumprod(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor& cumsum_(int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
  Tensor& cumprod_(int64_t dim, std::optional<ScalarType> dtype = std::nullopt);

  // ---- elementwise (autograd/elementwise.cpp): full broadcasting, scalars promote like PyTorch ----
  Tensor add(const Tensor& other, const Scalar& alpha = 1) const;
  Tensor add(const Scalar& other, const Scalar& alpha = 1) const;
  Tensor sub(const Tensor& other, const Scalar& alpha = 1) const;
  Tensor sub(const Scalar& other, const Scalar& alpha = 1) const;
  Tensor mul(const Tensor& other) const;
  Tensor mul(const Scalar& other) const;
  Tensor div(const Tensor& other) const;
  Tensor div(const Scalar& other) const;
  Tensor pow(const Tensor& exponent) const;
  Tensor pow(const Scalar& exponent) const;
  // PyTorch's remainder has the divisor's sign (Python's %); fmod has the dividend's (C's fmod).
  // Integer division by zero is an error ("ZeroDivisionError"), as in PyTorch.
  Tensor remainder(const Tensor& other) const;
  Tensor remainder(const Scalar& other) const;
  Tensor fmod(const Tensor& other) const;
  Tensor fmod(const Scalar& other) const;
  Tensor maximum(const Tensor& other) const;
  Tensor minimum(const Tensor& other) const;
  Tensor neg() const;
  Tensor exp() const;
  Tensor log() const;
  Tensor log1p() const;
  Tensor sqrt() const;
  Tensor rsqrt() const;
  Tensor abs() const;
  Tensor sign() const;
  Tensor square() const;
  Tensor reciprocal() const;
  Tensor erf() const;
  Tensor erfc() const;
  Tensor sin() const;
  Tensor cos() const;
  Tensor tanh() const;
  Tensor sigmoid() const;
  Tensor relu() const;
  Tensor gelu(const std::string& approximate = "none") const;
  // ---- more elementwise math (autograd/math.cpp); integer and bool inputs give floats as in PyTorch ----
  Tensor tan() const;
  Tensor asin() const;
  Tensor acos() const;
  Tensor atan() const;
  Tensor sinh() const;
  Tensor cosh() const;
  Tensor asinh() const;
  Tensor acosh() const;
  Tensor atanh() const;
  Tensor expm1() const;
  Tensor exp2() const;
  Tensor log2() const;
  Tensor log10() const;
  Tensor sinc() const;  // sin(pi x) / (pi x), 1 at 0
  Tensor deg2rad() const;
  Tensor rad2deg() const;
  // log(x / (1 - x)), with x clamped to [eps, 1 - eps] when eps is given.
  Tensor logit(std::optional<double> eps = std::nullopt) const;
  // NaN, +inf and -inf replaced (by 0 and the dtype's largest and lowest finite values by default).
  Tensor nan_to_num(std::optional<double> nan = std::nullopt, std::optional<double> posinf = std::nullopt,
                    std::optional<double> neginf = std::nullopt) const;
  // Rounding: integer tensors are whole already (a copy), bool is refused, no gradient flows back.
  // round is half to even; round(decimals) rounds to 10^-decimals as PyTorch does.
  Tensor floor() const;
  Tensor ceil() const;
  Tensor trunc() const;
  Tensor round() const;
  Tensor round(int64_t decimals) const;
  Tensor frac() const;  // x - trunc(x), floating tensors only
  // Division rounded as rounding_mode says: none (true division), "trunc" or "floor"; integers stay
  // integers under a rounding mode. floor_divide is div(other, "floor").
  Tensor div(const Tensor& other, std::optional<std::string_view> rounding_mode) const;
  Tensor div(const Scalar& other, std::optional<std::string_view> rounding_mode) const;
  Tensor floor_divide(const Tensor& other) const;
  Tensor floor_divide(const Scalar& other) const;
  Tensor atan2(const Tensor& other) const;
  Tensor hypot(const Tensor& other) const;
  Tensor logaddexp(const Tensor& other) const;   // log(e^a + e^b)
  Tensor logaddexp2(const Tensor& other) const;  // log2(2^a + 2^b)
  Tensor xlogy(const Tensor& other) const;       // x log(y), 0 where x == 0 (NaN where y is NaN)
  Tensor xlogy(const Scalar& other) const;
  Tensor float_power(const Tensor& exponent) const;  // pow in float64
  Tensor float_power(const Scalar& exponent) const;
  Tensor lerp(const Tensor& end, const Scalar& weight) const;  // self + weight (end - self)
  Tensor lerp(const Tensor& end, const Tensor& weight) const;
  Tensor addcmul(const Tensor& tensor1, const Tensor& tensor2, const Scalar& value = 1) const;
  Tensor addcdiv(const Tensor& tensor1, const Tensor& tensor2, const Scalar& value = 1) const;
  // libtorch's other spellings of the same ops.
  Tensor arcsin() const { return asin(); }
  Tensor arccos() const { return acos(); }
  Tensor arctan() const { return atan(); }
  Tensor arcsinh() const { return asinh(); }
  Tensor arccosh() const { return acosh(); }
  Tensor arctanh() const { return atanh(); }
  Tensor arctan2(const Tensor& other) const { return atan2(other); }
  Tensor fix() const { return trunc(); }
  Tensor absolute() const { return abs(); }
  Tensor negative() const { return neg(); }
  Tensor clip(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt) const { return clamp(min, max); }
  Tensor multiply(const Tensor& other) const { return mul(other); }
  Tensor multiply(const Scalar& other) const { return mul(other); }
  Tensor divide(const Tensor& other, std::optional<std::string_view> rounding_mode = std::nullopt) const {
    return div(other, rounding_mode);
  }
  Tensor divide(const Scalar& other, std::optional<std::string_view> rounding_mode = std::nullopt) const {
    return div(other, rounding_mode);
  }
  Tensor true_divide(const Tensor& other) const { return div(other); }
  Tensor true_divide(const Scalar& other) const { return div(other); }
  Tensor subtract(const Tensor& other, const Scalar& alpha = 1) const { return sub(other, alpha); }
  Tensor subtract(const Scalar& other, const Scalar& alpha = 1) const { return sub(other, alpha); }
  Tensor clamp(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt) const;
  // bool tensors of this one's shape; integer and bool tensors are never NaN or infinite.
  Tensor isnan() const;
  Tensor isinf() const;
  Tensor isfinite() const;
  // A one-element tensor's truth (libtorch's `if (t.is_nonzero())`); more or fewer elements is an error.
  bool is_nonzero() const;
  Tensor clamp_min(const Scalar& min) const { return clamp(min, std::nullopt); }
  Tensor clamp_max(const Scalar& max) const { return clamp(std::nullopt, max); }
  Tensor eq(const Tensor& other) const;
  Tensor eq(const Scalar& other) const;
  Tensor ne(const Tensor& other) const;
  Tensor ne(const Scalar& other) const;
  Tensor lt(const Tensor& other) const;
  Tensor lt(const Scalar& other) const;
  Tensor le(const Tensor& other) const;
  Tensor le(const Scalar& other) const;
  Tensor gt(const Tensor& other) const;
  Tensor gt(const Scalar& other) const;
  Tensor ge(const Tensor& other) const;
  Tensor ge(const Scalar& other) const;
  Tensor greater(const Tensor& other) const { return gt(other); }
  Tensor greater(const Scalar& other) const { return gt(other); }
  Tensor greater_equal(const Tensor& other) const { return ge(other); }
  Tensor greater_equal(const Scalar& other) const { return ge(other); }
  Tensor less(const Tensor& other) const { return lt(other); }
  Tensor less(const Scalar& other) const { return lt(other); }
  Tensor less_equal(const Tensor& other) const { return le(other); }
  Tensor less_equal(const Scalar& other) const { return le(other); }
  Tensor not_equal(const Tensor& other) const { return ne(other); }
  Tensor not_equal(const Scalar& other) const { return ne(other); }
  Tensor logical_and(const Tensor& other) const;
  Tensor logical_or(const Tensor& other) const;
  Tensor logical_xor(const Tensor& other) const;
  Tensor logical_not() const;
  Tensor masked_fill(const Tensor& mask, const Scalar& value) const;
  // The coordinates of the non-zero elements, (n, dim) int64 (argwhere is the same); the elements
  // where mask (broadcast) is true, as a 1-d tensor (autograd/indexing.cpp).
  Tensor nonzero() const;
  Tensor argwhere() const;
  Tensor masked_select(const Tensor& mask) const;
  // Vector products (autograd/matmul.cpp): outer (ger) u v^T, dot of two 1-d tensors, matrix @ vector.
  Tensor outer(const Tensor& vec2) const;
  Tensor ger(const Tensor& vec2) const { return outer(vec2); }
  Tensor dot(const Tensor& other) const;
  Tensor mv(const Tensor& vec) const;
  // ---- arranging (autograd/arrange.cpp; diagonal, a view, in autograd/shape.cpp) ----
  Tensor movedim(IntArrayRef source, IntArrayRef destination) const;
  Tensor movedim(int64_t source, int64_t destination) const;
  Tensor moveaxis(IntArrayRef source, IntArrayRef destination) const { return movedim(source, destination); }
  Tensor moveaxis(int64_t source, int64_t destination) const { return movedim(source, destination); }
  Tensor swapaxes(int64_t axis0, int64_t axis1) const { return transpose(axis0, axis1); }
  Tensor swapdims(int64_t dim0, int64_t dim1) const { return transpose(dim0, dim1); }
  Tensor broadcast_to(IntArrayRef size) const { return expand(size); }
  Tensor ravel() const { return reshape({-1}); }
  Tensor tile(IntArrayRef reps) const;  // repeat, with leading 1s when reps is shorter than dim()
  Tensor diagonal(int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1) const;
  Tensor diag(int64_t diagonal = 0) const;  // 1-d: a matrix with it on that diagonal; 2-d: that diagonal
  Tensor trace() const;
  tensor_list tensor_split(int64_t sections, int64_t dim = 0) const;
  tensor_list tensor_split(IntArrayRef indices, int64_t dim = 0) const;
  Tensor diff(int64_t n = 1, int64_t dim = -1, const Tensor& prepend = {}, const Tensor& append = {}) const;
  Tensor where(const Tensor& condition, const Tensor& other) const;  // condition ? *this : other

  // In place: the result is written into this tensor's storage (its dtype does not change).
  Tensor& add_(const Tensor& other, const Scalar& alpha = 1);
  Tensor& add_(const Scalar& other, const Scalar& alpha = 1);
  Tensor& sub_(const Tensor& other, const Scalar& alpha = 1);
  Tensor& sub_(const Scalar& other, const Scalar& alpha = 1);
  Tensor& mul_(const Tensor& other);
  Tensor& mul_(const Scalar& other);
  Tensor& div_(const Tensor& other);
  Tensor& div_(const Scalar& other);
  Tensor& pow_(const Scalar& exponent);
  Tensor& neg_();
  Tensor& exp_();
  Tensor& sqrt_();
  Tensor& tanh_();
  Tensor& relu_();
  Tensor& clamp_(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt);
  Tensor& masked_fill_(const Tensor& mask, const Scalar& value);
  // In-place forms of the math above: the result must fit self's dtype (an integer tensor cannot
  // take tan_), as in PyTorch.
  Tensor& abs_();
  Tensor& sign_();
  Tensor& square_();
  Tensor& reciprocal_();
  Tensor& log_();
  Tensor& log1p_();
  Tensor& rsqrt_();
  Tensor& erf_();
  Tensor& erfc_();
  Tensor& sin_();
  Tensor& cos_();
  Tensor& sigmoid_();
  Tensor& tan_();
  Tensor& asin_();
  Tensor& acos_();
  Tensor& atan_();
  Tensor& sinh_();
  Tensor& cosh_();
  Tensor& asinh_();
  Tensor& acosh_();
  Tensor& atanh_();
  Tensor& expm1_();
  Tensor& exp2_();
  Tensor& log2_();
  Tensor& log10_();
  Tensor& sinc_();
  Tensor& deg2rad_();
  Tensor& rad2deg_();
  Tensor& logit_(std::optional<double> eps = std::nullopt);
  Tensor& nan_to_num_(std::optional<double> nan = std::nullopt, std::optional<double> posinf = std::nullopt,
                      std::optional<double> neginf = std::nullopt);
  Tensor& floor_();
  Tensor& ceil_();
  Tensor& trunc_();
  Tensor& round_();
  Tensor& round_(int64_t decimals);
  Tensor& frac_();
  Tensor& div_(const Tensor& other, std::optional<std::string_view> rounding_mode);
  Tensor& div_(const Scalar& other, std::optional<std::string_view> rounding_mode);
  Tensor& floor_divide_(const Tensor& other);
  Tensor& floor_divide_(const Scalar& other);
  Tensor& atan2_(const Tensor& other);
  Tensor& hypot_(const Tensor& other);
  Tensor& xlogy_(const Tensor& other);
  Tensor& xlogy_(const Scalar& other);
  Tensor& float_power_(const Tensor& exponent);
  Tensor& float_power_(const Scalar& exponent);
  Tensor& lerp_(const Tensor& end, const Scalar& weight);
  Tensor& lerp_(const Tensor& end, const Tensor& weight);
  Tensor& addcmul_(const Tensor& tensor1, const Tensor& tensor2, const Scalar& value = 1);
  Tensor& addcdiv_(const Tensor& tensor1, const Tensor& tensor2, const Scalar& value = 1);
  Tensor& arcsin_() { return asin_(); }
  Tensor& arccos_() { return acos_(); }
  Tensor& arctan_() { return atan_(); }
  Tensor& arcsinh_() { return asinh_(); }
  Tensor& arccosh_() { return acosh_(); }
  Tensor& arctanh_() { return atanh_(); }
  Tensor& arctan2_(const Tensor& other) { return atan2_(other); }
  Tensor& fix_() { return trunc_(); }
  Tensor& absolute_() { return abs_(); }
  Tensor& negative_() { return neg_(); }
  Tensor& clip_(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt) { return clamp_(min, max); }
  Tensor& multiply_(const Tensor& other) { return mul_(other); }
  Tensor& multiply_(const Scalar& other) { return mul_(other); }
  Tensor& divide_(const Tensor& other, std::optional<std::string_view> rounding_mode = std::nullopt) {
    return div_(other, rounding_mode);
  }
  Tensor& divide_(const Scalar& other, std::optional<std::string_view> rounding_mode = std::nullopt) {
    return div_(other, rounding_mode);
  }
  Tensor& true_divide_(const Tensor& other) { return div_(other); }
  Tensor& true_divide_(const Scalar& other) { return div_(other); }
  Tensor& subtract_(const Tensor& other, const Scalar& alpha = 1) { return sub_(other, alpha); }
  Tensor& subtract_(const Scalar& other, const Scalar& alpha = 1) { return sub_(other, alpha); }

  // ---- reductions (autograd/reduce.cpp); dims may be negative, empty dims = all ----
  Tensor sum(std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor sum(IntArrayRef dims, bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor mean(std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor mean(IntArrayRef dims, bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor var(bool unbiased = true) const;
  Tensor var(IntArrayRef dims, bool unbiased = true, bool keepdim = false) const;
  Tensor std(bool unbiased = true) const;
  Tensor std(IntArrayRef dims, bool unbiased = true, bool keepdim = false) const;
  // x.std(1) / x.var(1) reduce over dim 1, as in libtorch (without these, 1 would convert to the
  // bool `unbiased` and reduce over everything).
  // (A template, so an int argument matches it exactly rather than tie with the bool overload.)
  template <std::integral I>
  requires(!std::same_as<I, bool>) Tensor var(I dim, bool unbiased = true, bool keepdim = false)
  const { return var(IntArrayRef{static_cast<int64_t>(dim)}, unbiased, keepdim); }
  template <std::integral I>
  requires(!std::same_as<I, bool>) Tensor std(I dim, bool unbiased = true, bool keepdim = false)
  const { return std(IntArrayRef{static_cast<int64_t>(dim)}, unbiased, keepdim); }
  // x.var({1}): a one-element braced list is an int here, not the bool `unbiased` (libtorch's gh-40287 overloads).
  Tensor var(int dim) const { return var(IntArrayRef{dim}); }
  Tensor std(int dim) const { return std(IntArrayRef{dim}); }
  Tensor max() const;
  Tensor min() const;
  std::tuple<Tensor, Tensor> max(int64_t dim, bool keepdim = false) const;
  Tensor max(const Tensor& other) const { return maximum(other); }
  Tensor min(const Tensor& other) const { return minimum(other); }
  std::tuple<Tensor, Tensor> min(int64_t dim, bool keepdim = false) const;
  Tensor amax(IntArrayRef dims, bool keepdim = false) const;
  Tensor amin(IntArrayRef dims, bool keepdim = false) const;
  Tensor argmax(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  Tensor argmin(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  Tensor logsumexp(IntArrayRef dims, bool keepdim = false) const;
  // The p-norm over all elements, or over `dims`: p = 2, 1, inf, -inf, 0 (count of non-zeros) or any
  // other real p (sum |x|^p)^(1/p). nullopt means 2. Floating-point tensors only.
  Tensor norm(const Scalar& p = 2) const;
  Tensor norm(const std::optional<Scalar>& p, IntArrayRef dims, bool keepdim = false) const;
  // Product of all elements or along dim; integers and bools give int64, as sum does.
  Tensor prod(std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor prod(int64_t dim, bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt) const;
  // Sums and means that skip NaN; the number of non-zero elements (int64).
  Tensor nansum(std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor nansum(IntArrayRef dims, bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor nanmean(std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor nanmean(IntArrayRef dims, bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor count_nonzero(IntArrayRef dims) const;
  Tensor count_nonzero(std::optional<int64_t> dim = std::nullopt) const;
  // The lower median and the k-th smallest (k from 1), with their indices (autograd/sort.cpp); NaN
  // sorts as the largest, and a median over NaN is NaN.
  Tensor median() const;
  std::tuple<Tensor, Tensor> median(int64_t dim, bool keepdim = false) const;
  std::tuple<Tensor, Tensor> kthvalue(int64_t k, int64_t dim = -1, bool keepdim = false) const;
  // The median of the values that are not NaN (NaN where all are); the most frequent value, the
  // smallest on a tie, with the index of its last occurrence (autograd/sort.cpp).
  Tensor nanmedian() const;
  std::tuple<Tensor, Tensor> nanmedian(int64_t dim, bool keepdim = false) const;
  std::tuple<Tensor, Tensor> mode(int64_t dim = -1, bool keepdim = false) const;
  // The q-th quantiles (q in [0, 1], a number or a 0-/1-d tensor of this dtype) over dim, or over all
  // elements; interpolation "linear", "lower", "higher", "midpoint" or "nearest" between the two
  // order statistics around q (n - 1). A 1-d q adds a leading dim. nanquantile skips NaN
  // (autograd/quantile.cpp).
  Tensor quantile(double q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                  std::string_view interpolation = "linear") const;
  Tensor quantile(const Tensor& q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                  std::string_view interpolation = "linear") const;
  Tensor nanquantile(double q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                     std::string_view interpolation = "linear") const;
  Tensor nanquantile(const Tensor& q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                     std::string_view interpolation = "linear") const;
  Tensor all() const;
  Tensor any() const;
  Tensor all(int64_t dim, bool keepdim = false) const;
  Tensor any(int64_t dim, bool keepdim = false) const;

  // ---- new tensors on this one's device with its dtype, unless `options` say otherwise (core/factory.cpp) ----
  Tensor new_empty(IntArrayRef sizes, const TensorOptions& options = {}) const;
  Tensor new_zeros(IntArrayRef sizes, const TensorOptions& options = {}) const;
  Tensor new_ones(IntArrayRef sizes, const TensorOptions& options = {}) const;
  Tensor new_full(IntArrayRef sizes, const Scalar& fill_value, const TensorOptions& options = {}) const;

  // ---- linear algebra (autograd/matmul.cpp) ----
  Tensor matmul(const Tensor& other) const;
  bool equal(const Tensor& other) const;  // ember::equal(*this, other): same sizes, same elements
  // |self - other| <= atol + rtol * |other| elementwise (broadcast), equal infinities close, NaN close
  // to NaN only with equal_nan; both tensors must have one dtype, as in PyTorch.
  Tensor isclose(const Tensor& other, double rtol = 1e-5, double atol = 1e-8, bool equal_nan = false) const;
  bool allclose(const Tensor& other, double rtol = 1e-5, double atol = 1e-8, bool equal_nan = false) const;
  Tensor mm(const Tensor& other) const;
  Tensor bmm(const Tensor& other) const;

  // ---- neural-network ops (autograd/nn_ops.cpp) ----
  Tensor softmax(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor log_softmax(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor tril(int64_t diagonal = 0) const;
  Tensor triu(int64_t diagonal = 0) const;
  Tensor index_select(int64_t dim, const Tensor& index) const;

  // ---- the scatter family (autograd/scatter.cpp): reads and writes at int64 indices along a dim ----
  // scatter: out[..., index[i][j], ...] = src[i][j] along dim (index no larger than src, and than
  // self apart from dim); where an index repeats, the last write wins (PyTorch leaves it unspecified).
  // reduce "add" or "multiply" combines instead of writing. index_copy / index_fill / index_add write
  // whole slices at index[i] along dim; masked_scatter writes source's leading elements where mask
  // is true; put writes at flat (row-major) indices, negative ones counting from the end.
  Tensor gather(int64_t dim, const Tensor& index) const;
  Tensor scatter(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor scatter(int64_t dim, const Tensor& index, const Scalar& value) const;
  Tensor scatter(int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce) const;
  Tensor scatter(int64_t dim, const Tensor& index, const Scalar& value, std::string_view reduce) const;
  Tensor& scatter_(int64_t dim, const Tensor& index, const Tensor& src);
  Tensor& scatter_(int64_t dim, const Tensor& index, const Scalar& value);
  Tensor& scatter_(int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce);
  Tensor& scatter_(int64_t dim, const Tensor& index, const Scalar& value, std::string_view reduce);
  Tensor scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor& scatter_add_(int64_t dim, const Tensor& index, const Tensor& src);
  // reduce is "sum", "prod", "mean", "amax" or "amin"; without include_self, a written element
  // reduces only what is scattered to it.
  Tensor scatter_reduce(int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce,
                        bool include_self = true) const;
  Tensor& scatter_reduce_(int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce,
                          bool include_self = true);
  Tensor index_add(int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha = 1) const;
  Tensor& index_add_(int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha = 1);
  Tensor index_copy(int64_t dim, const Tensor& index, const Tensor& source) const;
  Tensor& index_copy_(int64_t dim, const Tensor& index, const Tensor& source);
  Tensor index_fill(int64_t dim, const Tensor& index, const Scalar& value) const;
  Tensor index_fill(int64_t dim, const Tensor& index, const Tensor& value) const;  // a 0-dim value
  Tensor& index_fill_(int64_t dim, const Tensor& index, const Scalar& value);
  Tensor& index_fill_(int64_t dim, const Tensor& index, const Tensor& value);
  Tensor masked_scatter(const Tensor& mask, const Tensor& source) const;
  Tensor& masked_scatter_(const Tensor& mask, const Tensor& source);
  Tensor put(const Tensor& index, const Tensor& source, bool accumulate = false) const;
  Tensor& put_(const Tensor& index, const Tensor& source, bool accumulate = false);

  // ---- method forms of ATen's functions (autograd/aten_methods.cpp; the functions and their
  // contracts in autograd/aten_functions.h), as libtorch's Tensor has them. In-place forms check
  // that the result's dtype casts to this tensor's, as libtorch does. ----
  Tensor addmm(const Tensor& mat1, const Tensor& mat2, const Scalar& beta = 1, const Scalar& alpha = 1) const;
  Tensor addmv(const Tensor& mat, const Tensor& vec, const Scalar& beta = 1, const Scalar& alpha = 1) const;
  Tensor addr(const Tensor& vec1, const Tensor& vec2, const Scalar& beta = 1, const Scalar& alpha = 1) const;
  Tensor addbmm(const Tensor& batch1, const Tensor& batch2, const Scalar& beta = 1, const Scalar& alpha = 1) const;
  Tensor baddbmm(const Tensor& batch1, const Tensor& batch2, const Scalar& beta = 1, const Scalar& alpha = 1) const;
  Tensor& addmm_(const Tensor& mat1, const Tensor& mat2, const Scalar& beta = 1, const Scalar& alpha = 1);
  Tensor& addmv_(const Tensor& mat, const Tensor& vec, const Scalar& beta = 1, const Scalar& alpha = 1);
  Tensor& addr_(const Tensor& vec1, const Tensor& vec2, const Scalar& beta = 1, const Scalar& alpha = 1);
  Tensor& addbmm_(const Tensor& batch1, const Tensor& batch2, const Scalar& beta = 1, const Scalar& alpha = 1);
  Tensor& baddbmm_(const Tensor& batch1, const Tensor& batch2, const Scalar& beta = 1, const Scalar& alpha = 1);
  Tensor inner(const Tensor& other) const;
  Tensor vdot(const Tensor& other) const;
  Tensor kron(const Tensor& other) const;
  Tensor cross(const Tensor& other, std::optional<int64_t> dim = std::nullopt) const;
  Tensor dist(const Tensor& other, const Scalar& p = 2) const;
  Tensor fliplr() const;
  Tensor flipud() const;
  tensor_list hsplit(int64_t sections) const;
  tensor_list hsplit(IntArrayRef indices) const;
  tensor_list vsplit(int64_t sections) const;
  tensor_list vsplit(IntArrayRef indices) const;
  tensor_list dsplit(int64_t sections) const;
  tensor_list dsplit(IntArrayRef indices) const;
  Tensor diagflat(int64_t offset = 0) const;
  Tensor diag_embed(int64_t offset = 0, int64_t dim1 = -2, int64_t dim2 = -1) const;
  Tensor rot90(int64_t k = 1, IntArrayRef dims = {0, 1}) const;
  Tensor msort() const;
  Tensor take(const Tensor& index) const;
  Tensor take_along_dim(const Tensor& indices, std::optional<int64_t> dim = std::nullopt) const;
  Tensor repeat_interleave(int64_t repeats, std::optional<int64_t> dim = std::nullopt,
                           std::optional<int64_t> output_size = std::nullopt) const;
  Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> dim = std::nullopt,
                           std::optional<int64_t> output_size = std::nullopt) const;
  std::tuple<Tensor, Tensor> cummax(int64_t dim) const;
  std::tuple<Tensor, Tensor> cummin(int64_t dim) const;
  Tensor logcumsumexp(int64_t dim) const;
  Tensor cov(int64_t correction = 1, const std::optional<Tensor>& fweights = {},
             const std::optional<Tensor>& aweights = {}) const;
  Tensor corrcoef() const;
  Tensor histc(int64_t bins = 100, const Scalar& min = 0, const Scalar& max = 0) const;
  Tensor bincount(const std::optional<Tensor>& weights = {}, int64_t minlength = 0) const;
  Tensor fmax(const Tensor& other) const;
  Tensor fmin(const Tensor& other) const;
  Tensor heaviside(const Tensor& values) const;
  Tensor& heaviside_(const Tensor& values);
  Tensor isposinf() const;
  Tensor isneginf() const;
  Tensor signbit() const;
  Tensor positive() const;
  Tensor lgamma() const;
  Tensor digamma() const;
  Tensor polygamma(int64_t n) const;
  Tensor erfinv() const;
  Tensor mvlgamma(int64_t p) const;
  Tensor& lgamma_();
  Tensor& digamma_();
  Tensor& polygamma_(int64_t n);
  Tensor& erfinv_();
  Tensor& mvlgamma_(int64_t p);
  Tensor bitwise_and(const Tensor& other) const;
  Tensor bitwise_and(const Scalar& other) const;
  Tensor bitwise_or(const Tensor& other) const;
  Tensor bitwise_or(const Scalar& other) const;
  Tensor bitwise_xor(const Tensor& other) const;
  Tensor bitwise_xor(const Scalar& other) const;
  Tensor bitwise_not() const;
  Tensor bitwise_left_shift(const Tensor& other) const;
  Tensor bitwise_left_shift(const Scalar& other) const;
  Tensor bitwise_right_shift(const Tensor& other) const;
  Tensor bitwise_right_shift(const Scalar& other) const;
  Tensor& bitwise_and_(const Tensor& other);
  Tensor& bitwise_and_(const Scalar& other);
  Tensor& bitwise_or_(const Tensor& other);
  Tensor& bitwise_or_(const Scalar& other);
  Tensor& bitwise_xor_(const Tensor& other);
  Tensor& bitwise_xor_(const Scalar& other);
  Tensor& bitwise_not_();
  Tensor& bitwise_left_shift_(const Tensor& other);
  Tensor& bitwise_left_shift_(const Scalar& other);
  Tensor& bitwise_right_shift_(const Tensor& other);
  Tensor& bitwise_right_shift_(const Scalar& other);
  Tensor gcd(const Tensor& other) const;
  Tensor lcm(const Tensor& other) const;
  Tensor& gcd_(const Tensor& other);
  Tensor& lcm_(const Tensor& other);
  std::tuple<Tensor, Tensor> frexp() const;
  Tensor ldexp(const Tensor& other) const;
  Tensor& ldexp_(const Tensor& other);
  Tensor nextafter(const Tensor& other) const;
  Tensor& nextafter_(const Tensor& other);
  Tensor copysign(const Tensor& other) const;
  Tensor copysign(const Scalar& other) const;
  Tensor& copysign_(const Tensor& other);
  Tensor& copysign_(const Scalar& other);
  // In-place comparisons and logicals: the result written in this tensor's dtype (1 and 0 for a
  // floating tensor), as libtorch's eq_ and logical_and_ are.
  Tensor& eq_(const Tensor& other);
  Tensor& eq_(const Scalar& other);
  Tensor& ne_(const Tensor& other);
  Tensor& ne_(const Scalar& other);
  Tensor& lt_(const Tensor& other);
  Tensor& lt_(const Scalar& other);
  Tensor& le_(const Tensor& other);
  Tensor& le_(const Scalar& other);
  Tensor& gt_(const Tensor& other);
  Tensor& gt_(const Scalar& other);
  Tensor& ge_(const Tensor& other);
  Tensor& ge_(const Scalar& other);
  Tensor& greater_(const Tensor& other) { return gt_(other); }
  Tensor& greater_(const Scalar& other) { return gt_(other); }
  Tensor& greater_equal_(const Tensor& other) { return ge_(other); }
  Tensor& greater_equal_(const Scalar& other) { return ge_(other); }
  Tensor& less_(const Tensor& other) { return lt_(other); }
  Tensor& less_(const Scalar& other) { return lt_(other); }
  Tensor& less_equal_(const Tensor& other) { return le_(other); }
  Tensor& less_equal_(const Scalar& other) { return le_(other); }
  Tensor& not_equal_(const Tensor& other) { return ne_(other); }
  Tensor& not_equal_(const Scalar& other) { return ne_(other); }
  Tensor& logical_and_(const Tensor& other);
  Tensor& logical_or_(const Tensor& other);
  Tensor& logical_xor_(const Tensor& other);
  Tensor& logical_not_();
  Tensor& tril_(int64_t diagonal = 0);
  Tensor& triu_(int64_t diagonal = 0);
  Tensor& clamp_min_(const Scalar& min) { return clamp_(min, std::nullopt); }
  Tensor& clamp_max_(const Scalar& max) { return clamp_(std::nullopt, max); }
  Tensor& fmod_(const Tensor& other);
  Tensor& fmod_(const Scalar& other);
  Tensor& remainder_(const Tensor& other);
  Tensor& remainder_(const Scalar& other);
  Tensor& swapaxes_(int64_t axis0, int64_t axis1) { return transpose_(axis0, axis1); }
  Tensor& swapdims_(int64_t dim0, int64_t dim1) { return transpose_(dim0, dim1); }
  // resize_ to the_template's sizes; the memory format as resize_'s, Preserve: the template's.
  Tensor& resize_as_(const Tensor& the_template, std::optional<MemoryFormat> memory_format = std::nullopt);

  // ---- small queries and ops libtorch's Tensor has (autograd/aten_methods.cpp) ----
  // num_samples indices per row drawn from this tensor's weights (ember::multinomial, core/random.h).
  Tensor multinomial(int64_t num_samples, bool replacement = false,
                     std::optional<Generator> generator = std::nullopt) const;
  Tensor type_as(const Tensor& other) const { return to(other.options()); }  // other's dtype and device
  // Every window of `size` elements along dimension, `step` apart, as a new last dim: a view.
  Tensor unfold(int64_t dimension, int64_t size, int64_t step) const;
  Tensor sum_to_size(IntArrayRef size) const;  // summed down to `size`, which must expand to this shape
  bool is_same_size(const Tensor& other) const { return sizes() == other.sizes(); }
  // Ember has no page-locked host memory: pin_memory() is a contiguous copy, as libtorch's copy into
  // pinned memory, and is_pinned() is false.
  Tensor pin_memory() const { return to(device(), dtype(), false, /*copy=*/true, MemoryFormat::Contiguous); }
  bool is_pinned() const { return false; }
  Tensor toType(ScalarType dtype) const { return to(dtype); }  // libtorch's older spelling of to(dtype)
  bool has_storage() const { return defined() && storage() != nullptr; }
  // Whether this tensor and other are the same view: same storage, offset, sizes and strides.
  bool is_set_to(const Tensor& other) const;
  // Makes this tensor view source's storage with source's shape, strides and dtype (libtorch's set_);
  // every handle of this tensor sees it. Not for a tensor that requires grad, in grad mode.
  Tensor& set_(const Tensor& source);
  Tensor isreal() const;  // all true: Ember has no complex dtypes
  // unsafe_ in libtorch skips view tracking; here they are chunk and split.
  tensor_list unsafe_chunk(int64_t chunks, int64_t dim = 0) const { return chunk(chunks, dim); }
  tensor_list unsafe_split(int64_t split_size, int64_t dim = 0) const { return split(split_size, dim); }
  tensor_list unsafe_split_with_sizes(IntArrayRef split_sizes, int64_t dim = 0) const {
    return split_with_sizes(split_sizes, dim);
  }
  Tensor mH() const { return mT(); }  // the conjugate transpose of the last two dims: mT for real dtypes
  Tensor matrix_H() const { return mT(); }
  Tensor numpy_T() const;  // every dim reversed
  // Each slice along dim whose p-norm exceeds maxnorm, scaled to norm maxnorm (autograd/aten_methods.cpp).
  Tensor renorm(const Scalar& p, int64_t dim, const Scalar& maxnorm) const;
  Tensor& renorm_(const Scalar& p, int64_t dim, const Scalar& maxnorm);
  tensor_list nonzero_numpy() const;  // nonzero()'s columns, one index tensor per dim
  Tensor i0() const;                  // the modified Bessel function (ember::special::i0)
  Tensor& i0_();
  // X with A X = this, A given by its LU factorisation (linalg::lu_factor): libtorch's older lu_solve.
  Tensor lu_solve(const Tensor& LU_data, const Tensor& LU_pivots) const;
  // The regularized incomplete gamma functions P(this, other) and Q (ember::special::gammainc / gammaincc).
  Tensor igamma(const Tensor& other) const;
  Tensor& igamma_(const Tensor& other);
  Tensor igammac(const Tensor& other) const;
  Tensor& igammac_(const Tensor& other);
  // LAPACK's QR pieces and the deprecated symeig (autograd/linalg.h's geqrf, orgqr, ormqr, symeig).
  std::tuple<Tensor, Tensor> geqrf() const;
  Tensor orgqr(const Tensor& input2) const;
  Tensor ormqr(const Tensor& input2, const Tensor& input3, bool left = true, bool transpose = false) const;
  std::tuple<Tensor, Tensor> symeig(bool eigenvectors = false, bool upper = true) const;
  // torch.histogram and index_reduce (autograd/aten_functions.h).
  std::tuple<Tensor, Tensor> histogram(const Tensor& bins, const std::optional<Tensor>& weight = {},
                                       bool density = false) const;
  std::tuple<Tensor, Tensor> histogram(int64_t bins = 100, std::optional<ArrayRef<double>> range = std::nullopt,
                                       const std::optional<Tensor>& weight = {}, bool density = false) const;
  Tensor index_reduce(int64_t dim, const Tensor& index, const Tensor& source, std::string_view reduce,
                      bool include_self = true) const;
  Tensor& index_reduce_(int64_t dim, const Tensor& index, const Tensor& source, std::string_view reduce,
                        bool include_self = true);
  // A second tensor on this one's storage, with its sizes, strides and offset.
  Tensor alias() const { return as_strided(sizes(), strides(), storage_offset()); }
  bool is_distributed() const { return false; }  // no distributed tensors in Ember (or libtorch 1.13's CPU)
  // Drops this handle's reference, leaving it undefined, as libtorch's.
  void reset() { *this = Tensor(); }
  bool is_signed() const;
  size_t itemsize() const { return element_size(); }
  int64_t get_device() const { return device().is_cpu() ? -1 : device().index; }
  // Ember has no inference tensors (InferenceMode only turns recording off), so this is false.
  bool is_inference() const { return false; }
  Tensor new_empty_strided(IntArrayRef size, IntArrayRef stride, const TensorOptions& options = {}) const;
  // Fills the main diagonal (of a 2-d tensor, or of an n-d one with all sizes equal); with wrap, a
  // tall matrix's diagonal starts again every cols + 1 rows, as numpy's fill_diagonal does.
  Tensor& fill_diagonal_(const Scalar& fill_value, bool wrap = false);
  std::tuple<Tensor, Tensor> aminmax(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  Tensor hardshrink(const Scalar& lambd = 0.5) const;  // x where |x| > lambd, else 0
  Tensor prelu(const Tensor& weight) const;            // max(0, x) + weight * min(0, x), weight per channel (dim 1)
  // Linear algebra (autograd/linalg.h has the functions, torch.linalg's and ATen's; bodies in
  // autograd/linalg_ops.cpp). Square matrices over leading batch dims, float32 and float64.
  Tensor det() const;
  Tensor logdet() const;
  std::tuple<Tensor, Tensor> slogdet() const;
  Tensor inverse() const;
  Tensor cholesky(bool upper = false) const;
  Tensor cholesky_solve(const Tensor& input2, bool upper = false) const;
  Tensor cholesky_inverse(bool upper = false) const;
  std::tuple<Tensor, Tensor> qr(bool some = true) const;
  std::tuple<Tensor, Tensor, Tensor> svd(bool some = true, bool compute_uv = true) const;
  Tensor pinverse(double rcond = 1e-15) const;
  Tensor matrix_power(int64_t n) const;
  Tensor matrix_exp() const;
  std::tuple<Tensor, Tensor> triangular_solve(const Tensor& A, bool upper = true, bool transpose = false,
                                              bool unitriangular = false) const;

 private:
  TensorImpl* impl() const {
    EMBER_CHECK(impl_ != nullptr, "tensor: this operation needs a defined tensor, got an undefined one");
    return impl_.get();
  }
  std::shared_ptr<TensorImpl> impl_;
};

// ---- operators, as in libtorch ----
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator+(const Tensor& a, const Scalar& b);
Tensor operator-(const Tensor& a, const Scalar& b);
Tensor operator*(const Tensor& a, const Scalar& b);
Tensor operator/(const Tensor& a, const Scalar& b);
Tensor operator+(const Scalar& a, const Tensor& b);
Tensor operator-(const Scalar& a, const Tensor& b);
Tensor operator*(const Scalar& a, const Tensor& b);
Tensor operator/(const Scalar& a, const Tensor& b);
Tensor operator%(const Tensor& a, const Tensor& b);  // remainder: the divisor's sign, as in libtorch
Tensor operator%(const Tensor& a, const Scalar& b);
Tensor operator-(const Tensor& a);
Tensor operator==(const Tensor& a, const Tensor& b);
Tensor operator!=(const Tensor& a, const Tensor& b);
Tensor operator<(const Tensor& a, const Tensor& b);
Tensor operator<=(const Tensor& a, const Tensor& b);
Tensor operator>(const Tensor& a, const Tensor& b);
Tensor operator>=(const Tensor& a, const Tensor& b);
Tensor operator==(const Tensor& a, const Scalar& b);
Tensor operator!=(const Tensor& a, const Scalar& b);
Tensor operator<(const Tensor& a, const Scalar& b);
Tensor operator<=(const Tensor& a, const Scalar& b);
Tensor operator>(const Tensor& a, const Scalar& b);
Tensor operator>=(const Tensor& a, const Scalar& b);
Tensor operator&&(const Tensor& a, const Tensor& b);
Tensor operator||(const Tensor& a, const Tensor& b);
Tensor operator!(const Tensor& a);
// Bitwise on integer and bool tensors (bitwise_and, _or, _xor, _not; autograd/aten_methods.cpp).
Tensor operator&(const Tensor& a, const Tensor& b);
Tensor operator&(const Tensor& a, const Scalar& b);
Tensor operator&(const Scalar& a, const Tensor& b);
Tensor operator|(const Tensor& a, const Tensor& b);
Tensor operator|(const Tensor& a, const Scalar& b);
Tensor operator|(const Scalar& a, const Tensor& b);
Tensor operator^(const Tensor& a, const Tensor& b);
Tensor operator^(const Tensor& a, const Scalar& b);
Tensor operator^(const Scalar& a, const Tensor& b);
Tensor operator~(const Tensor& a);
Tensor& operator&=(Tensor& a, const Tensor& b);
Tensor& operator|=(Tensor& a, const Tensor& b);
Tensor& operator^=(Tensor& a, const Tensor& b);
Tensor& operator+=(Tensor& a, const Tensor& b);
Tensor& operator-=(Tensor& a, const Tensor& b);
Tensor& operator*=(Tensor& a, const Tensor& b);
Tensor& operator/=(Tensor& a, const Tensor& b);
Tensor& operator+=(Tensor& a, const Scalar& b);
Tensor& operator-=(Tensor& a, const Scalar& b);
Tensor& operator*=(Tensor& a, const Scalar& b);
Tensor& operator/=(Tensor& a, const Scalar& b);

// PyTorch's Python format: tensor([[0.4419, 0.6515]], grad_fn=<MmBackward0>). core/print.cpp
std::ostream& operator<<(std::ostream& os, const Tensor& t);

// ---- free functions mirroring torch:: (autograd/*.cpp) ----
Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b);
Tensor matmul(const Tensor& a, const Tensor& b);
Tensor mm(const Tensor& a, const Tensor& b);
Tensor bmm(const Tensor& a, const Tensor& b);
// beta * self + alpha * (mat1 @ mat2), self broadcast to the product's shape (nn::Linear's bias + x W^T).
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta = 1,
             const Scalar& alpha = 1);
Tensor cat(const tensor_list& tensors, int64_t dim = 0);
Tensor stack(const tensor_list& tensors, int64_t dim = 0);
Tensor softmax(const Tensor& x, int64_t dim);
Tensor log_softmax(const Tensor& x, int64_t dim);
Tensor embedding(const Tensor& weight, const Tensor& indices, std::optional<int64_t> padding_idx = std::nullopt);
// LayerNorm over the trailing dims `normalized_shape`; weight and bias may be undefined.
Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const Tensor& weight = {}, const Tensor& bias = {},
                  double eps = 1e-5);
Tensor one_hot(const Tensor& indices, int64_t num_classes = -1);
Tensor tril(const Tensor& x, int64_t diagonal = 0);
Tensor triu(const Tensor& x, int64_t diagonal = 0);
Tensor exp(const Tensor& x);
Tensor log(const Tensor& x);
Tensor sqrt(const Tensor& x);
Tensor tanh(const Tensor& x);
Tensor sigmoid(const Tensor& x);
Tensor relu(const Tensor& x);
Tensor abs(const Tensor& x);
Tensor maximum(const Tensor& a, const Tensor& b);
Tensor minimum(const Tensor& a, const Tensor& b);
// libtorch's stacking helpers (autograd/arrange.cpp): hstack joins 1-d tensors end to end and others
// along dim 1; vstack (row_stack) along dim 0 of atleast_2d; dstack along dim 2 of atleast_3d;
// column_stack makes 0-d and 1-d tensors columns first.
Tensor atleast_1d(const Tensor& t);
Tensor atleast_2d(const Tensor& t);
Tensor atleast_3d(const Tensor& t);
Tensor hstack(const tensor_list& tensors);
Tensor vstack(const tensor_list& tensors);
Tensor row_stack(const tensor_list& tensors);
Tensor dstack(const tensor_list& tensors);
Tensor column_stack(const tensor_list& tensors);
// Coordinate grids of 0-d and 1-d tensors, "ij" (matrix) or "xy" (Cartesian) indexing.
tensor_list meshgrid(const tensor_list& tensors, std::string_view indexing = "ij");
Tensor sum(const Tensor& x);
Tensor mean(const Tensor& x);
bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8, bool equal_nan = false);
Tensor isclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8, bool equal_nan = false);
bool equal(const Tensor& a, const Tensor& b);
// The method forms as torch:: functions (torch::pow(x, 2), torch::sum(x, 1), torch::erf(x)).
inline Tensor pow(const Tensor& x, const Scalar& exponent) { return x.pow(exponent); }
inline Tensor pow(const Tensor& x, const Tensor& exponent) { return x.pow(exponent); }
Tensor pow(const Scalar& base, const Tensor& exponent);  // base ** exponent, the dtype PyTorch promotes to
inline Tensor remainder(const Tensor& a, const Tensor& b) { return a.remainder(b); }
inline Tensor remainder(const Tensor& a, const Scalar& b) { return a.remainder(b); }
inline Tensor fmod(const Tensor& a, const Tensor& b) { return a.fmod(b); }
inline Tensor fmod(const Tensor& a, const Scalar& b) { return a.fmod(b); }
inline Tensor erf(const Tensor& x) { return x.erf(); }
inline Tensor erfc(const Tensor& x) { return x.erfc(); }
inline Tensor neg(const Tensor& x) { return x.neg(); }
inline Tensor log1p(const Tensor& x) { return x.log1p(); }
inline Tensor rsqrt(const Tensor& x) { return x.rsqrt(); }
inline Tensor square(const Tensor& x) { return x.square(); }
inline Tensor sign(const Tensor& x) { return x.sign(); }
inline Tensor reciprocal(const Tensor& x) { return x.reciprocal(); }
inline Tensor sin(const Tensor& x) { return x.sin(); }
inline Tensor cos(const Tensor& x) { return x.cos(); }
inline Tensor clamp(const Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt) {
  return x.clamp(min, max);
}
inline Tensor sum(const Tensor& x, IntArrayRef dims, bool keepdim = false,
                  std::optional<ScalarType> dtype = std::nullopt) {
  return x.sum(dims, keepdim, dtype);
}
inline Tensor mean(const Tensor& x, IntArrayRef dims, bool keepdim = false,
                   std::optional<ScalarType> dtype = std::nullopt) {
  return x.mean(dims, keepdim, dtype);
}
inline Tensor max(const Tensor& x) { return x.max(); }
inline Tensor max(const Tensor& a, const Tensor& b) { return a.maximum(b); }
inline Tensor min(const Tensor& a, const Tensor& b) { return a.minimum(b); }
inline Tensor min(const Tensor& x) { return x.min(); }
inline std::tuple<Tensor, Tensor> max(const Tensor& x, int64_t dim, bool keepdim = false) {
  return x.max(dim, keepdim);
}
inline std::tuple<Tensor, Tensor> min(const Tensor& x, int64_t dim, bool keepdim = false) {
  return x.min(dim, keepdim);
}
inline Tensor amax(const Tensor& x, IntArrayRef dims, bool keepdim = false) { return x.amax(dims, keepdim); }
inline Tensor amin(const Tensor& x, IntArrayRef dims, bool keepdim = false) { return x.amin(dims, keepdim); }
inline Tensor argmax(const Tensor& x, std::optional<int64_t> dim = std::nullopt, bool keepdim = false) {
  return x.argmax(dim, keepdim);
}
inline Tensor argmin(const Tensor& x, std::optional<int64_t> dim = std::nullopt, bool keepdim = false) {
  return x.argmin(dim, keepdim);
}
inline Tensor logsumexp(const Tensor& x, IntArrayRef dims, bool keepdim = false) { return x.logsumexp(dims, keepdim); }
inline Tensor all(const Tensor& x) { return x.all(); }
inline Tensor any(const Tensor& x) { return x.any(); }
inline Tensor norm(const Tensor& x, const Scalar& p = 2) { return x.norm(p); }
inline Tensor norm(const Tensor& x, const std::optional<Scalar>& p, IntArrayRef dims, bool keepdim = false) {
  return x.norm(p, dims, keepdim);
}
// sqrt(sum x^2), over everything or over `dims` (libtorch's frobenius_norm; Python's norm(p="fro")).
inline Tensor frobenius_norm(const Tensor& x) { return x.norm(2); }
inline Tensor frobenius_norm(const Tensor& x, IntArrayRef dims, bool keepdim = false) {
  return x.norm(2, dims, keepdim);
}

// (var, mean) and (std, mean) over everything or over `dims`, in one call (torch::var_mean).
std::tuple<Tensor, Tensor> var_mean(const Tensor& x, bool unbiased = true);
std::tuple<Tensor, Tensor> var_mean(const Tensor& x, IntArrayRef dims, bool unbiased = true, bool keepdim = false);
std::tuple<Tensor, Tensor> std_mean(const Tensor& x, bool unbiased = true);
std::tuple<Tensor, Tensor> std_mean(const Tensor& x, IntArrayRef dims, bool unbiased = true, bool keepdim = false);
// var_mean(x, {1}) and var_mean(x, 1) reduce over dim 1, as in libtorch (a braced int would pick `unbiased`).
inline std::tuple<Tensor, Tensor> var_mean(const Tensor& x, int dim) { return var_mean(x, IntArrayRef{dim}); }
inline std::tuple<Tensor, Tensor> std_mean(const Tensor& x, int dim) { return std_mean(x, IntArrayRef{dim}); }
// The distinct values of x, sorted, with (when asked) each element's position among them
// (`inverse`, x's shape) and each value's count; the tensors not asked for are empty, as in
// libtorch's _unique2. `sorted = false` still sorts (libtorch's CUDA does too).
std::tuple<Tensor, Tensor, Tensor> unique(const Tensor& x, bool sorted = true, bool return_inverse = false,
                                          bool return_counts = false);
// Collapses runs of equal neighbours in the flattened x (torch::unique_consecutive; a `dim` is not
// supported yet and is an error).
std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& x, bool return_inverse = false,
                                                      bool return_counts = false,
                                                      std::optional<int64_t> dim = std::nullopt);

// ---- creation (core/factory.cpp) ----
Tensor empty(IntArrayRef sizes, const TensorOptions& options = {});
Tensor zeros(IntArrayRef sizes, const TensorOptions& options = {});
Tensor ones(IntArrayRef sizes, const TensorOptions& options = {});
Tensor full(IntArrayRef sizes, const Scalar& value, const TensorOptions& options = {});
Tensor empty_like(const Tensor& t, std::optional<TensorOptions> options = std::nullopt);
Tensor zeros_like(const Tensor& t, std::optional<TensorOptions> options = std::nullopt);
Tensor ones_like(const Tensor& t, std::optional<TensorOptions> options = std::nullopt);
Tensor full_like(const Tensor& t, const Scalar& value, std::optional<TensorOptions> options = std::nullopt);
Tensor arange(const Scalar& end, const TensorOptions& options = {});
Tensor arange(const Scalar& start, const Scalar& end, const TensorOptions& options = {});
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, const TensorOptions& options = {});
Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, const TensorOptions& options = {});
Tensor eye(int64_t n, const TensorOptions& options = {});
Tensor eye(int64_t n, int64_t m, const TensorOptions& options = {});
Tensor scalar_tensor(const Scalar& value, const TensorOptions& options = {});
// Copies `data` (row-major) into a new tensor of the given shape.
template <typename T>
Tensor from_vector(const std::vector<T>& data, IntArrayRef sizes, const TensorOptions& options = {});
// Wraps memory the caller owns (no copy); `deleter` runs when the last view dies.
Tensor from_blob(void* data, IntArrayRef sizes, const TensorOptions& options = {},
                 std::function<void(void*)> deleter = nullptr);

// ---- building blocks of ops and kernels, not in libtorch (core/tensor.cpp); no autograd ----
// A new tensor on the same storage (no autograd information): how every view is made.
Tensor raw_view(const Tensor& base, std::vector<int64_t> sizes, std::vector<int64_t> strides, int64_t offset);
// A new, uninitialised, contiguous tensor. Sizes are checked (checked_nbytes in core/shape.h) and an
// allocation failure is an OutOfMemoryError naming `op`, the shape and the dtype.
Tensor raw_empty(IntArrayRef sizes, ScalarType dtype, Device device, const char* op = "empty");

}  // namespace ember

#include "core/indexing.h"         // Slice, None, Ellipsis: x.index({0, Slice(1, None)})
#include "core/tensor_literal.h"  // ember::tensor({{1, 2}, {3, 4}})
