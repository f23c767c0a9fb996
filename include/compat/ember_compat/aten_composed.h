// <torch/torch.h>, part 6: ATen functions that libtorch programs call and Ember composes from its own
// ops, with ATen's argument lists (ATen/ops/<name>.h in libtorch 1.13): the list-indexed forms
// at::index / index_put(_); the functional copies (copy, alias, expand_copy, view_copy, unfold_copy)
// and draws (uniform, random, normal_functional, randint_like); gradient (torch.gradient's central
// differences), unique_dim(_consecutive), combinations, kaiser_window, norm_except_dim, result_type, empty_strided,
// for_blob, from_file, flatten/unflatten_dense_tensors; and out= forms of these and of earlier parts' functions that
// lacked them. Values, gradients and error texts are libtorch 1.13's (tests/compat/programs/
// aten_composed.cpp prints them beside a real libtorch build's output).
#pragma once

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <numeric>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "autograd/special.h"
#include "core/kernel.h"
#include "ember_compat/aten_out.h"

namespace torch {

// ---- indexing by a list of optional index tensors (ATen's c10::List<c10::optional<Tensor>>) ----
inline Tensor index(const Tensor& self, const std::vector<std::optional<Tensor>>& indices) {
  return self.index(indices);
}
inline Tensor index_put(const Tensor& self, const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
                        bool accumulate = false) {
  return self.index_put(indices, values, accumulate);
}
inline Tensor& index_put_(Tensor& self, const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
                          bool accumulate = false) {
  return self.index_put_(indices, values, accumulate);
}

// ---- functional copies: a new tensor holding what the view or the in-place op would show ----
namespace compat_detail {
inline Tensor materialize(const Tensor& view) { return view.is_contiguous() ? view.clone() : view.contiguous(); }
}  // namespace compat_detail
inline Tensor copy(const Tensor& self, const Tensor& src, bool /*non_blocking*/ = false) {
  Tensor out = self.clone();
  out.copy_(src);
  return out;
}
// A second tensor on self's storage, with self's sizes, strides and offset.
inline Tensor alias(const Tensor& self) { return self.as_strided(self.sizes(), self.strides(), self.storage_offset()); }
inline Tensor expand_copy(const Tensor& self, IntArrayRef size, bool /*implicit*/ = false) {
  return compat_detail::materialize(self.expand(size));
}
inline Tensor view_copy(const Tensor& self, IntArrayRef size) { return compat_detail::materialize(self.view(size)); }
inline Tensor unfold_copy(const Tensor& self, int64_t dimension, int64_t size, int64_t step) {
  return compat_detail::materialize(self.unfold(dimension, size, step));
}
inline Tensor uniform(const Tensor& self, double from = 0, double to = 1,
                      std::optional<Generator> generator = std::nullopt) {
  Tensor out = self.detach().clone();
  return out.uniform_(from, to, std::move(generator));
}
inline Tensor normal_functional(const Tensor& self, double mean = 0, double std = 1,
                                std::optional<Generator> generator = std::nullopt) {
  Tensor out = self.detach().clone();
  return out.normal_(mean, std, std::move(generator));
}
inline Tensor random(const Tensor& self, int64_t from, std::optional<int64_t> to,
                     std::optional<Generator> generator = std::nullopt) {
  Tensor out = self.detach().clone();
  return out.random_(from, to, std::move(generator));
}
inline Tensor random(const Tensor& self, int64_t to, std::optional<Generator> generator = std::nullopt) {
  Tensor out = self.detach().clone();
  return out.random_(to, std::move(generator));
}
inline Tensor random(const Tensor& self, std::optional<Generator> generator = std::nullopt) {
  Tensor out = self.detach().clone();
  return out.random_(std::move(generator));
}
// self's shape, dtype and device unless options name others; the draws of randint(low, high).
inline Tensor randint_like(const Tensor& self, int64_t low, int64_t high, const TensorOptions& options = {},
                           std::optional<MemoryFormat> /*memory_format*/ = std::nullopt) {
  TensorOptions merged = self.options().dtype(options.dtype_opt().value_or(self.dtype()));
  if (options.device() != Device()) merged = merged.device(options.device());
  return randint(low, high, self.sizes(), merged);
}
inline Tensor randint_like(const Tensor& self, int64_t high, const TensorOptions& options = {},
                           std::optional<MemoryFormat> memory_format = std::nullopt) {
  return randint_like(self, 0, high, options, memory_format);
}

// ---- numerical derivatives: torch.gradient ----
namespace compat_detail {
// One dim's derivative: central differences inside, one-sided ones (first or second order) at the
// ends, as torch.gradient. spacing: a number h, or the coordinates (a 1-d tensor of dim's size).
inline Tensor gradient_along(const Tensor& f, int64_t dim, const std::optional<double>& h, const Tensor& coordinates,
                             int64_t edge_order) {
  const auto part = [&](int64_t start, int64_t end) { return f.slice(dim, start, end); };
  const int64_t n = f.size(dim);
  if (h) {
    const double dx = *h;
    Tensor center = (part(2, n) - part(0, n - 2)) / (2 * dx);
    Tensor first =
        edge_order == 1 ? (part(1, 2) - part(0, 1)) / dx : (part(0, 1) * -1.5 + part(1, 2) * 2 - part(2, 3) * 0.5) / dx;
    Tensor last = edge_order == 1 ? (part(n - 1, n) - part(n - 2, n - 1)) / dx
                                  : (part(n - 3, n - 2) * 0.5 - part(n - 2, n - 1) * 2 + part(n - 1, n) * 1.5) / dx;
    return cat({first, center, last}, dim);
  }
  Tensor dx = coordinates.diff(1, 0);  // (n - 1)
  std::vector<int64_t> shape(f.dim(), 1);
  shape[dim] = n - 2;
  Tensor d1 = dx.slice(0, 0, n - 2), d2 = dx.slice(0, 1, n - 1);
  Tensor a = (-d2 / (d1 * (d1 + d2))).reshape(shape), b = ((d2 - d1) / (d1 * d2)).reshape(shape),
         c = (d1 / (d2 * (d1 + d2))).reshape(shape);
  Tensor center = a * part(0, n - 2) + b * part(1, n - 1) + c * part(2, n);
  Tensor first, last;
  if (edge_order == 1) {
    first = (part(1, 2) - part(0, 1)) / dx[0];
    last = (part(n - 1, n) - part(n - 2, n - 1)) / dx[n - 2];
  } else {
    Tensor h0 = dx[0], h1 = dx[1], hl = dx[n - 2], hm = dx[n - 3];
    first = part(0, 1) * (-(h0 * 2 + h1) / (h0 * (h0 + h1))) + part(1, 2) * ((h0 + h1) / (h0 * h1)) +
            part(2, 3) * (-h0 / (h1 * (h0 + h1)));
    last = part(n - 3, n - 2) * (hl / (hm * (hl + hm))) + part(n - 2, n - 1) * (-(hl + hm) / (hl * hm)) +
           part(n - 1, n) * ((hl * 2 + hm) / (hl * (hl + hm)));
  }
  return cat({first, center, last}, dim);
}

// The dims asked for (all when none), each checked, with one spacing (number or coordinates) per dim.
inline std::vector<Tensor> gradient_impl(const Tensor& self, const std::vector<double>& steps,
                                         const std::vector<Tensor>& coordinates, std::optional<IntArrayRef> dims,
                                         int64_t edge_order) {
  EMBER_CHECK(edge_order == 1 || edge_order == 2, "torch.gradient only supports edge_order=1 and edge_order=2.");
  std::vector<int64_t> which;
  if (dims) {
    for (int64_t d : *dims) which.push_back(d < 0 ? d + self.dim() : d);
  } else {
    which.resize(static_cast<size_t>(self.dim()));
    std::iota(which.begin(), which.end(), 0);
  }
  const size_t count = steps.empty() ? coordinates.size() : steps.size();
  EMBER_CHECK(count == 1 || count == which.size(),
              "torch.gradient expected spacing to be unspecified, a scalar or "
              "it's spacing and dim arguments to have the same length, but got a spacing argument of length {} and a "
              "dim argument of length {}.",
              count, which.size());
  Tensor f = self.is_floating_point() ? self : self.to(get_default_dtype());
  std::vector<Tensor> result;
  for (size_t i = 0; i < which.size(); ++i) {
    const int64_t d = which[i];
    EMBER_CHECK(d >= 0 && d < self.dim(), "torch.gradient: dim {} is out of range for a tensor of {} dims", d,
                self.dim());
    EMBER_CHECK(self.size(d) >= edge_order + 1,
                "torch.gradient expected each dimension size to be at least "
                "edge_order+1");
    const size_t k = count == 1 ? 0 : i;
    if (!steps.empty()) {
      result.push_back(gradient_along(f, d, steps[k], {}, edge_order));
    } else {
      const Tensor& x = coordinates[k];
      EMBER_CHECK(x.dim() == 1 && x.size(0) == self.size(d),
                  "torch.gradient expected each tensor to be on the same "
                  "device and of size {} along dim {}, got {}",
                  self.size(d), d, x.sizes());
      result.push_back(gradient_along(f, d, std::nullopt, x.to(f.dtype()), edge_order));
    }
  }
  return result;
}
inline std::vector<double> scalar_steps(ArrayRef<Scalar> spacing) {
  std::vector<double> steps;
  for (const Scalar& s : spacing) steps.push_back(s.toDouble());
  return steps;
}
}  // namespace compat_detail

inline std::vector<Tensor> gradient(const Tensor& self, const std::optional<Scalar>& spacing = std::nullopt,
                                    std::optional<int64_t> dim = std::nullopt, int64_t edge_order = 1) {
  const std::vector<int64_t> one{dim.value_or(0)};
  return compat_detail::gradient_impl(self, {spacing ? spacing->toDouble() : 1.0}, {},
                                      dim ? std::optional<IntArrayRef>(one) : std::nullopt, edge_order);
}
inline std::vector<Tensor> gradient(const Tensor& self, const Scalar& spacing, IntArrayRef dim,
                                    int64_t edge_order = 1) {
  return compat_detail::gradient_impl(self, {spacing.toDouble()}, {}, dim, edge_order);
}
inline std::vector<Tensor> gradient(const Tensor& self, IntArrayRef dim, int64_t edge_order = 1) {
  return compat_detail::gradient_impl(self, {1.0}, {}, dim, edge_order);
}
inline std::vector<Tensor> gradient(const Tensor& self, ArrayRef<Scalar> spacing,
                                    std::optional<int64_t> dim = std::nullopt, int64_t edge_order = 1) {
  const std::vector<int64_t> one{dim.value_or(0)};
  return compat_detail::gradient_impl(self, compat_detail::scalar_steps(spacing), {},
                                      dim ? std::optional<IntArrayRef>(one) : std::nullopt, edge_order);
}
inline std::vector<Tensor> gradient(const Tensor& self, ArrayRef<Scalar> spacing, IntArrayRef dim,
                                    int64_t edge_order = 1) {
  return compat_detail::gradient_impl(self, compat_detail::scalar_steps(spacing), {}, dim, edge_order);
}
inline std::vector<Tensor> gradient(const Tensor& self, TensorList spacing, std::optional<int64_t> dim = std::nullopt,
                                    int64_t edge_order = 1) {
  const std::vector<int64_t> one{dim.value_or(0)};
  return compat_detail::gradient_impl(self, {}, std::vector<Tensor>(spacing.begin(), spacing.end()),
                                      dim ? std::optional<IntArrayRef>(one) : std::nullopt, edge_order);
}
inline std::vector<Tensor> gradient(const Tensor& self, TensorList spacing, IntArrayRef dim, int64_t edge_order = 1) {
  return compat_detail::gradient_impl(self, {}, std::vector<Tensor>(spacing.begin(), spacing.end()), dim, edge_order);
}

// ---- unique slices along a dim ----
namespace compat_detail {
// The distinct slices of self along dim (sorted lexicographically, or in runs when consecutive), the
// slice each input slice became, and how many each holds; computed on the host.
inline std::tuple<Tensor, Tensor, Tensor> unique_slices(const char* op, const Tensor& self, int64_t dim,
                                                        bool consecutive, bool return_inverse, bool return_counts) {
  const int64_t d = dim < 0 ? dim + self.dim() : dim;
  EMBER_CHECK(d >= 0 && d < self.dim(), "{}: dim {} is out of range for a tensor of {} dims", op, dim, self.dim());
  NoGradGuard no_grad;
  const Tensor moved = self.movedim(d, 0).contiguous();
  const int64_t n = moved.size(0), width = n == 0 ? 0 : moved.numel() / n;
  const Tensor keys = (self.is_floating_point() ? moved.to(kFloat64) : moved.to(kInt64)).to(kCPU).reshape({n, width});
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  const auto compare = [&](auto* values) {
    const auto row_less = [&](int64_t a, int64_t b) {
      return std::lexicographical_compare(values + a * width, values + (a + 1) * width, values + b * width,
                                          values + (b + 1) * width);
    };
    const auto row_equal = [&](int64_t a, int64_t b) {
      return std::equal(values + a * width, values + (a + 1) * width, values + b * width);
    };
    if (!consecutive) std::stable_sort(order.begin(), order.end(), row_less);
    std::vector<int64_t> firsts, inverse(static_cast<size_t>(n)), counts;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t row = order[static_cast<size_t>(i)];
      if (firsts.empty() || !row_equal(firsts.back(), row)) firsts.push_back(row), counts.push_back(0);
      inverse[static_cast<size_t>(row)] = static_cast<int64_t>(firsts.size()) - 1;
      ++counts.back();
    }
    return std::make_tuple(firsts, inverse, counts);
  };
  auto [firsts, inverse, counts] = self.is_floating_point() ? compare(keys.contiguous().data_ptr<double>())
                                                            : compare(keys.contiguous().data_ptr<int64_t>());
  const int64_t k = static_cast<int64_t>(firsts.size());
  const TensorOptions longs = TensorOptions().dtype(kInt64).device(self.device());
  Tensor unique = moved.index_select(0, from_vector<int64_t>(firsts, {k}).to(self.device())).movedim(0, d);
  return {unique, return_inverse ? from_vector<int64_t>(inverse, {n}).to(self.device()) : empty({0}, longs),
          return_counts ? from_vector<int64_t>(counts, {k}).to(self.device()) : empty({0}, longs)};
}
}  // namespace compat_detail
inline std::tuple<Tensor, Tensor, Tensor> unique_dim(const Tensor& self, int64_t dim, bool /*sorted*/ = true,
                                                     bool return_inverse = false, bool return_counts = false) {
  return compat_detail::unique_slices("unique_dim", self, dim, false, return_inverse, return_counts);
}
inline std::tuple<Tensor, Tensor, Tensor> unique_dim_consecutive(const Tensor& self, int64_t dim,
                                                                 bool return_inverse = false,
                                                                 bool return_counts = false) {
  return compat_detail::unique_slices("unique_dim_consecutive", self, dim, true, return_inverse, return_counts);
}

// ---- small composites ----

// The r-element combinations of a 1-d tensor's elements, in lexicographic order of position: (k, r).
inline Tensor combinations(const Tensor& self, int64_t r = 2, bool with_replacement = false) {
  EMBER_CHECK(self.dim() == 1, "Expect a 1D vector, but got shape {}", self.sizes());
  EMBER_CHECK(r >= 0, "Expect a non-negative number, but got {}", r);
  if (r == 0) return empty({0}, self.options());
  const int64_t n = self.size(0);
  std::vector<std::vector<int64_t>> columns(static_cast<size_t>(r));
  std::vector<int64_t> pick(static_cast<size_t>(r));
  // Depth-first over positions: each next pick at or after (with replacement) or after the previous.
  std::function<void(int64_t, int64_t)> visit = [&](int64_t slot, int64_t from) {
    if (slot == r) {
      for (int64_t s = 0; s < r; ++s) columns[static_cast<size_t>(s)].push_back(pick[static_cast<size_t>(s)]);
      return;
    }
    for (int64_t i = from; i < n; ++i) {
      pick[static_cast<size_t>(slot)] = i;
      visit(slot + 1, with_replacement ? i : i + 1);
    }
  };
  visit(0, 0);
  const int64_t k = static_cast<int64_t>(columns[0].size());
  std::vector<Tensor> picked;
  for (const auto& column : columns)
    picked.push_back(self.index_select(0, from_vector<int64_t>(column, {k}).to(self.device())));
  return stack(picked, 1);
}

// The Kaiser window: I0(beta sqrt(1 - ((n - a) / a)^2)) / I0(beta), a = (N - 1) / 2, computed in
// float64; periodic drops the last of N + 1 points.
inline Tensor kaiser_window(int64_t window_length, bool periodic, double beta, const TensorOptions& options = {}) {
  EMBER_CHECK(window_length >= 0, "kaiser_window requires non-negative window_length, got window_length={}",
              window_length);
  const ScalarType dtype = options.dtype();
  EMBER_CHECK(is_floating_point(dtype), "kaiser_window expects floating point dtypes, got: {}", dtype_name(dtype));
  if (window_length == 0) return empty({0}, options);
  if (window_length == 1) return ones({1}, options);
  const int64_t n = periodic ? window_length + 1 : window_length;
  const double alpha = static_cast<double>(n - 1) / 2;
  Tensor x = arange(n, TensorOptions().dtype(kFloat64));
  Tensor w = ember::special::i0(((x - alpha) / alpha).square().neg().add(1).sqrt() * beta) /
             ember::special::i0(scalar_tensor(beta, TensorOptions().dtype(kFloat64)));
  if (periodic) w = w.slice(0, 0, window_length);
  return w.to(options.dtype(dtype).requires_grad(false)).requires_grad_(options.requires_grad());
}
inline Tensor kaiser_window(int64_t window_length, bool periodic, const TensorOptions& options = {}) {
  return kaiser_window(window_length, periodic, 12.0, options);
}
inline Tensor kaiser_window(int64_t window_length, const TensorOptions& options = {}) {
  return kaiser_window(window_length, true, 12.0, options);
}

// The p-norm of v over every dim but dim, shaped to broadcast against v (dim -1: over everything).
inline Tensor norm_except_dim(const Tensor& v, int64_t pow = 2, int64_t dim = 0) {
  if (dim == -1) return v.norm(pow);
  EMBER_CHECK(dim >= 0 && dim < v.dim(), "norm_except_dim: dim {} is out of range for a tensor of {} dims", dim,
              v.dim());
  std::vector<int64_t> kept(static_cast<size_t>(v.dim()), 1);
  kept[static_cast<size_t>(dim)] = v.size(dim);
  return v.movedim(dim, 0).reshape({v.size(dim), -1}).norm(pow, {1}).reshape(kept);
}

inline bool is_distributed(const Tensor& self) { return self.is_distributed(); }

// ATen's type promotion of two operands (core/kernel.h's result_type); two plain numbers promote by
// kind: bool, then int64, then the default float dtype.
inline ScalarType result_type(const Tensor& tensor, const Tensor& other) {
  return ember::kernel::result_type(tensor, other);
}
inline ScalarType result_type(const Tensor& tensor, const Scalar& other) {
  return ember::kernel::result_type(tensor, other);
}
inline ScalarType result_type(const Scalar& scalar, const Tensor& tensor) {
  return ember::kernel::result_type(tensor, scalar);
}
inline ScalarType result_type(const Scalar& scalar1, const Scalar& scalar2) {
  const auto kind = [](const Scalar& s) { return s.isBool() ? 0 : s.isFloatingPoint() ? 2 : 1; };
  const int k = std::max(kind(scalar1), kind(scalar2));
  return k == 0 ? kBool : k == 1 ? kInt64 : get_default_dtype();
}

// An uninitialised tensor with the given strides, over the least storage they need.
inline Tensor empty_strided(IntArrayRef size, IntArrayRef stride, const TensorOptions& options = {}) {
  EMBER_CHECK(size.size() == stride.size(),
              "empty_strided: mismatch in length of strides and shape ({} sizes, {} "
              "strides)",
              size.size(), stride.size());
  int64_t extent = 1;
  for (size_t i = 0; i < size.size(); ++i) {
    EMBER_CHECK(size[i] >= 0 && stride[i] >= 0, "empty_strided: sizes and strides must be non-negative, got {} and {}",
                size, stride);
    if (size[i] == 0) extent = 0;
  }
  if (extent != 0)
    for (size_t i = 0; i < size.size(); ++i) extent += (size[i] - 1) * stride[i];
  return empty({extent}, options.requires_grad(false)).as_strided(size, stride).requires_grad_(options.requires_grad());
}

// at::for_blob(data, sizes).strides(...).deleter(...).options(...).make_tensor(): memory the caller
// owns, wrapped without a copy.
class TensorMaker {
 public:
  TensorMaker(void* data, IntArrayRef sizes) : data_(data), sizes_(sizes.vec()) {}
  TensorMaker& strides(IntArrayRef value) noexcept {
    strides_ = value.vec();
    return *this;
  }
  TensorMaker& strides(std::nullopt_t) noexcept {
    strides_ = std::nullopt;
    return *this;
  }
  TensorMaker& storage_offset(std::optional<int64_t> value) noexcept {
    offset_ = value.value_or(0);
    return *this;
  }
  TensorMaker& deleter(std::function<void(void*)> value) noexcept {
    deleter_ = std::move(value);
    return *this;
  }
  TensorMaker& target_device(std::optional<Device> value) noexcept {
    if (value) options_ = options_.device(*value);
    return *this;
  }
  TensorMaker& options(TensorOptions value) noexcept {
    options_ = value;
    return *this;
  }
  Tensor make_tensor() {
    std::vector<int64_t> strides = strides_.value_or(contiguous_strides(sizes_));
    EMBER_CHECK(strides.size() == sizes_.size(), "for_blob: {} strides for {} sizes", strides.size(), sizes_.size());
    int64_t extent = offset_ + 1;
    for (size_t i = 0; i < sizes_.size(); ++i) {
      if (sizes_[i] == 0) extent = offset_;
      if (extent > offset_) extent += (sizes_[i] - 1) * strides[i];
    }
    Tensor storage = from_blob(data_, {extent}, options_, deleter_);
    return storage.as_strided(sizes_, strides, offset_);
  }

 private:
  static std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& sizes) {
    std::vector<int64_t> strides(sizes.size(), 1);
    for (size_t i = sizes.size(); i-- > 1;) strides[i - 1] = strides[i] * std::max<int64_t>(sizes[i], 1);
    return strides;
  }
  void* data_;
  std::vector<int64_t> sizes_;
  std::optional<std::vector<int64_t>> strides_;
  int64_t offset_ = 0;
  std::function<void(void*)> deleter_;
  TensorOptions options_;
};
inline TensorMaker for_blob(void* data, IntArrayRef sizes) noexcept { return TensorMaker(data, sizes); }

// size elements of options' dtype read from the start of a file (a copy: shared = true, libtorch's
// mapping whose writes reach the file, is refused).
inline Tensor from_file(std::string_view filename, std::optional<bool> shared = std::nullopt,
                        std::optional<int64_t> size = 0, const TensorOptions& options = {}) {
  EMBER_CHECK(!shared.value_or(false),
              "from_file: shared=true (a mapping whose writes reach '{}') is not supported "
              "by Ember; read the file with shared=false",
              filename);
  const int64_t count = size.value_or(0);
  EMBER_CHECK(count >= 0, "from_file: size must be non-negative, got {}", count);
  Tensor out = empty({count}, options.device(kCPU).requires_grad(false));
  const std::string path(filename);
  std::FILE* file = std::fopen(path.c_str(), "rb");
  EMBER_CHECK(file != nullptr, "from_file: cannot open '{}' for reading", filename);
  const size_t bytes = static_cast<size_t>(count) * out.element_size();
  const size_t got = bytes == 0 ? 0 : std::fread(out.data_ptr(), 1, bytes, file);
  std::fclose(file);
  EMBER_CHECK(got == bytes, "from_file: '{}' holds {} bytes, fewer than the {} that {} elements of {} need", filename,
              got, bytes, count, dtype_name(out.dtype()));
  return out.to(options.device()).requires_grad_(options.requires_grad());
}

// One flat tensor of every tensor's elements in turn, and the inverse: views of flat shaped as tensors.
inline Tensor flatten_dense_tensors(TensorList tensors) {
  std::vector<Tensor> flat;
  for (const Tensor& t : tensors) flat.push_back(t.reshape({-1}));
  return flat.empty() ? empty({0}) : cat(flat, 0);
}
inline std::vector<Tensor> unflatten_dense_tensors(const Tensor& flat, TensorList tensors) {
  std::vector<Tensor> out;
  int64_t offset = 0;
  for (const Tensor& t : tensors) {
    EMBER_CHECK(offset + t.numel() <= flat.numel(),
                "unflatten_dense_tensors: flat has {} elements, fewer than the "
                "tensors' {}",
                flat.numel(), offset + t.numel());
    out.push_back(flat.narrow(0, offset, t.numel()).view(t.sizes()));
    offset += t.numel();
  }
  return out;
}

// ---- geometry: as_strided_, as_strided_scatter, and the functional forms of resize_ and set_ ----
inline const Tensor& as_strided_(const Tensor& self, IntArrayRef size, IntArrayRef stride,
                                 std::optional<int64_t> storage_offset = std::nullopt) {
  Tensor handle = self;  // a handle shares the tensor: every handle of self takes the new geometry
  handle.as_strided_(size, stride, storage_offset);
  return self;
}
inline Tensor as_strided_scatter(const Tensor& self, const Tensor& src, IntArrayRef size, IntArrayRef stride,
                                 std::optional<int64_t> storage_offset = std::nullopt) {
  return self.as_strided_scatter(src, size, stride, storage_offset);
}
inline const Tensor& resize_as_(const Tensor& self, const Tensor& the_template,
                                std::optional<MemoryFormat> memory_format = std::nullopt) {
  Tensor handle = self;
  handle.resize_as_(the_template, memory_format);
  return self;
}
// The functional forms return a new tensor and leave self alone: a copy of self resized (its first
// elements kept, new ones uninitialised), and a new tensor viewing source's storage (or an empty one).
inline Tensor resize(const Tensor& self, IntArrayRef size, std::optional<MemoryFormat> memory_format = std::nullopt) {
  NoGradGuard no_grad;  // as resize_, not differentiable
  Tensor out = self.clone();
  out.resize_(size, memory_format);
  return out;
}
inline Tensor resize_as(const Tensor& self, const Tensor& the_template,
                        std::optional<MemoryFormat> memory_format = std::nullopt) {
  NoGradGuard no_grad;
  Tensor out = self.clone();
  out.resize_as_(the_template, memory_format);
  return out;
}
inline Tensor set(const Tensor& self, const Tensor& source) {
  Tensor out = empty({0}, self.options().requires_grad(false));
  return out.set_(source);
}
inline Tensor set(const Tensor& self) { return empty({0}, self.options().requires_grad(false)); }

}  // namespace torch

namespace at {
using torch::alias;
using torch::as_strided_;
using torch::as_strided_scatter;
using torch::combinations;
using torch::copy;
using torch::empty_strided;
using torch::expand_copy;
using torch::flatten_dense_tensors;
using torch::for_blob;
using torch::from_file;
using torch::gradient;
using torch::histogram;
using torch::index;
using torch::index_put;
using torch::index_put_;
using torch::index_reduce;
using torch::is_distributed;
using torch::kaiser_window;
using torch::norm_except_dim;
using torch::normal_functional;
using torch::randint_like;
using torch::random;
using torch::resize;
using torch::resize_as;
using torch::resize_as_;
using torch::result_type;
using torch::set;
using torch::TensorMaker;
using torch::unflatten_dense_tensors;
using torch::unfold_copy;
using torch::uniform;
using torch::unique_dim;
using torch::unique_dim_consecutive;
using torch::view_copy;
}  // namespace at

// ---- out= forms ----
namespace ember::compat_aten {
EMBER_ATEN_OUT_OF(copy)
EMBER_ATEN_OUT_OF(expand_copy)
EMBER_ATEN_OUT_OF(view_copy)
EMBER_ATEN_OUT_OF(unfold_copy)
EMBER_ATEN_OUT_OF(index_reduce)
EMBER_ATEN_OUT_OF(randint_like)
EMBER_ATEN_OUT_OF(uniform)
EMBER_ATEN_OUT_OF(random)
EMBER_ATEN_OUT_OF(index_fill)
EMBER_ATEN_OUT_OF(masked_scatter)
EMBER_ATEN_OUT_OF(put)
EMBER_ATEN_OUT_OF(scatter)
EMBER_ATEN_OUT_OF(scatter_reduce)
EMBER_ATEN_OUT_OF(hardsigmoid)
EMBER_ATEN_OUT_OF(hardswish)
EMBER_ATEN_OUT_OF(pixel_unshuffle)
EMBER_ATEN_OUT_OF(multi_margin_loss)
EMBER_ATEN_OUT_OF(multilabel_margin_loss)
EMBER_ATEN_OUT_OF(soft_margin_loss)
EMBER_ATEN_OUT_OF(reflection_pad1d)
EMBER_ATEN_OUT_OF(reflection_pad2d)
EMBER_ATEN_OUT_OF(reflection_pad3d)
EMBER_ATEN_OUT_OF(replication_pad1d)
EMBER_ATEN_OUT_OF(replication_pad2d)
EMBER_ATEN_OUT_OF(replication_pad3d)
EMBER_ATEN_OUT_OF(fill)
EMBER_ATEN_OUT_OF(zero)

// The geometry functions' out= forms (libtorch's argument lists; resize_out and resize_as_out take
// the out tensor const, as libtorch's do). As in libtorch 1.13, these do not refuse inputs that
// require grad: the out tensor gets the values, without history.
inline Tensor& as_strided_scatter_out(Tensor& out, const Tensor& self, const Tensor& src, IntArrayRef size,
                                      IntArrayRef stride, std::optional<int64_t> storage_offset = std::nullopt) {
  return detail::assign_out(out, ::at::as_strided_scatter(self, src, size, stride, storage_offset),
                            "as_strided_scatter_out");
}
inline Tensor& as_strided_scatter_outf(const Tensor& self, const Tensor& src, IntArrayRef size, IntArrayRef stride,
                                       std::optional<int64_t> storage_offset, Tensor& out) {
  return as_strided_scatter_out(out, self, src, size, stride, storage_offset);
}
inline const Tensor& resize_out(const Tensor& out, const Tensor& self, IntArrayRef size,
                                std::optional<MemoryFormat> memory_format = std::nullopt) {
  Tensor handle = out;
  detail::assign_out(handle, ::at::resize(self, size, memory_format), "resize_out");
  return out;
}
inline const Tensor& resize_outf(const Tensor& self, IntArrayRef size, std::optional<MemoryFormat> memory_format,
                                 const Tensor& out) {
  return resize_out(out, self, size, memory_format);
}
inline const Tensor& resize_as_out(const Tensor& out, const Tensor& self, const Tensor& the_template,
                                   std::optional<MemoryFormat> memory_format = std::nullopt) {
  Tensor handle = out;
  detail::assign_out(handle, ::at::resize_as(self, the_template, memory_format), "resize_as_out");
  return out;
}
inline const Tensor& resize_as_outf(const Tensor& self, const Tensor& the_template,
                                    std::optional<MemoryFormat> memory_format, const Tensor& out) {
  return resize_as_out(out, self, the_template, memory_format);
}
inline Tensor& set_out(Tensor& out, const Tensor& self, const Tensor& source) {
  return detail::assign_out(out, ::at::set(self, source), "set_out");
}
inline Tensor& set_outf(const Tensor& self, const Tensor& source, Tensor& out) { return set_out(out, self, source); }
inline Tensor& set_out(Tensor& out, const Tensor& self) { return detail::assign_out(out, ::at::set(self), "set_out"); }
inline Tensor& set_outf(const Tensor& self, Tensor& out) { return set_out(out, self); }

// The factories' out= forms: out takes the shape, its own dtype and device.
inline Tensor& empty_strided_out(Tensor& out, IntArrayRef size, IntArrayRef stride) {
  return detail::assign_out(out, ::at::empty_strided(size, stride, out.options()), "empty_strided_out");
}
inline Tensor& empty_strided_outf(IntArrayRef size, IntArrayRef stride, Tensor& out) {
  return empty_strided_out(out, size, stride);
}
inline Tensor& new_empty_strided_out(Tensor& out, const Tensor& self, IntArrayRef size, IntArrayRef stride) {
  return detail::assign_out(out, self.new_empty_strided(size, stride, out.options()), "new_empty_strided_out");
}
inline Tensor& new_empty_strided_outf(const Tensor& self, IntArrayRef size, IntArrayRef stride, Tensor& out) {
  return new_empty_strided_out(out, self, size, stride);
}
inline Tensor& from_file_out(Tensor& out, std::string_view filename, std::optional<bool> shared = std::nullopt,
                             std::optional<int64_t> size = 0) {
  return detail::assign_out(out, ::at::from_file(filename, shared, size, out.options()), "from_file_out");
}
inline Tensor& from_file_outf(std::string_view filename, std::optional<bool> shared, std::optional<int64_t> size,
                              Tensor& out) {
  return from_file_out(out, filename, shared, size);
}
inline Tensor& kaiser_window_out(Tensor& out, int64_t window_length, bool periodic = true, double beta = 12.0) {
  return detail::assign_out(out, ::at::kaiser_window(window_length, periodic, beta, out.options()),
                            "kaiser_window_out");
}
inline Tensor& kaiser_window_outf(int64_t window_length, Tensor& out) { return kaiser_window_out(out, window_length); }
inline Tensor& kaiser_window_outf(int64_t window_length, bool periodic, Tensor& out) {
  return kaiser_window_out(out, window_length, periodic);
}
inline Tensor& kaiser_window_outf(int64_t window_length, bool periodic, double beta, Tensor& out) {
  return kaiser_window_out(out, window_length, periodic, beta);
}

namespace detail {
// Each piece into its out tensor, as ATen's split_copy out= kernels: one out tensor per piece.
inline void assign_pieces(TensorList out, const std::vector<Tensor>& pieces, const char* op) {
  EMBER_CHECK(out.size() == pieces.size(), "{}() expected an out= argument of size {}, got size {}", op, pieces.size(),
              out.size());
  for (size_t i = 0; i < pieces.size(); ++i) {
    Tensor handle = out[i];
    assign_out(handle, pieces[i], op);
  }
}
}  // namespace detail
inline void unsafe_split_out(TensorList out, const Tensor& self, int64_t split_size, int64_t dim = 0) {
  detail::assign_pieces(out, self.unsafe_split(split_size, dim), "unsafe_split_out");
}
inline void unsafe_split_outf(const Tensor& self, int64_t split_size, int64_t dim, TensorList out) {
  unsafe_split_out(out, self, split_size, dim);
}
inline void unsafe_split_with_sizes_out(TensorList out, const Tensor& self, IntArrayRef split_sizes, int64_t dim = 0) {
  detail::assign_pieces(out, self.unsafe_split_with_sizes(split_sizes, dim), "unsafe_split_with_sizes_out");
}
inline void unsafe_split_with_sizes_outf(const Tensor& self, IntArrayRef split_sizes, int64_t dim, TensorList out) {
  unsafe_split_with_sizes_out(out, self, split_sizes, dim);
}

inline std::tuple<Tensor&, Tensor&> histogram_out(Tensor& hist, Tensor& bin_edges, const Tensor& self,
                                                  const Tensor& bins, const std::optional<Tensor>& weight = {},
                                                  bool density = false) {
  detail::refuse_grad("histogram_out", self);
  return detail::assign_outs("histogram_out", ::at::histogram(self, bins, weight, density), hist, bin_edges);
}
inline std::tuple<Tensor&, Tensor&> histogram_out(Tensor& hist, Tensor& bin_edges, const Tensor& self,
                                                  int64_t bins = 100,
                                                  std::optional<ArrayRef<double>> range = std::nullopt,
                                                  const std::optional<Tensor>& weight = {}, bool density = false) {
  detail::refuse_grad("histogram_out", self);
  return detail::assign_outs("histogram_out", ::at::histogram(self, bins, range, weight, density), hist, bin_edges);
}
inline std::tuple<Tensor&, Tensor&> histogram_outf(const Tensor& self, const Tensor& bins,
                                                   const std::optional<Tensor>& weight, bool density, Tensor& hist,
                                                   Tensor& bin_edges) {
  return histogram_out(hist, bin_edges, self, bins, weight, density);
}
inline std::tuple<Tensor&, Tensor&> histogram_outf(const Tensor& self, int64_t bins,
                                                   std::optional<ArrayRef<double>> range,
                                                   const std::optional<Tensor>& weight, bool density, Tensor& hist,
                                                   Tensor& bin_edges) {
  return histogram_out(hist, bin_edges, self, bins, range, weight, density);
}
inline std::tuple<Tensor&, Tensor&, Tensor&> unique_dim_out(Tensor& out0, Tensor& out1, Tensor& out2,
                                                            const Tensor& self, int64_t dim, bool sorted = true,
                                                            bool return_inverse = false, bool return_counts = false) {
  detail::refuse_grad("unique_dim_out", self);
  return detail::assign_outs("unique_dim_out", ::at::unique_dim(self, dim, sorted, return_inverse, return_counts), out0,
                             out1, out2);
}
inline std::tuple<Tensor&, Tensor&, Tensor&> unique_dim_outf(const Tensor& self, int64_t dim, bool sorted,
                                                             bool return_inverse, bool return_counts, Tensor& out0,
                                                             Tensor& out1, Tensor& out2) {
  return unique_dim_out(out0, out1, out2, self, dim, sorted, return_inverse, return_counts);
}
inline std::tuple<Tensor&, Tensor&, Tensor&> unique_dim_consecutive_out(Tensor& out0, Tensor& out1, Tensor& out2,
                                                                        const Tensor& self, int64_t dim,
                                                                        bool return_inverse = false,
                                                                        bool return_counts = false) {
  detail::refuse_grad("unique_dim_consecutive_out", self);
  return detail::assign_outs("unique_dim_consecutive_out",
                             ::at::unique_dim_consecutive(self, dim, return_inverse, return_counts), out0, out1, out2);
}
inline std::tuple<Tensor&, Tensor&, Tensor&> unique_dim_consecutive_outf(const Tensor& self, int64_t dim,
                                                                         bool return_inverse, bool return_counts,
                                                                         Tensor& out0, Tensor& out1, Tensor& out2) {
  return unique_dim_consecutive_out(out0, out1, out2, self, dim, return_inverse, return_counts);
}
inline std::tuple<Tensor&, Tensor&> aminmax_out(Tensor& min, Tensor& max, const Tensor& self,
                                                std::optional<int64_t> dim = std::nullopt, bool keepdim = false) {
  detail::refuse_grad("aminmax_out", self);
  return detail::assign_outs("aminmax_out", ::at::aminmax(self, dim, keepdim), min, max);
}
inline std::tuple<Tensor&, Tensor&> aminmax_outf(const Tensor& self, std::optional<int64_t> dim, bool keepdim,
                                                 Tensor& min, Tensor& max) {
  return aminmax_out(min, max, self, dim, keepdim);
}
}  // namespace ember::compat_aten
