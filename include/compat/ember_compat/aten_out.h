// <torch/torch.h>, part 4: ATen's out= forms of the functions the other parts provide, with
// libtorch's argument order (ATen/ops/<name>.h):
//
//   torch::Tensor values = torch::empty({0}), indices = torch::empty({0}, torch::kLong);
//   torch::sort_out(values, indices, x, /*dim=*/0);   // std::tuple<Tensor&, Tensor&>
//   torch::cat_out(out, {a, b}, 1);
//   torch::where_out(out, x > 0, x, y);
//
// Each form computes the function and writes the result into out by aten_functions.h's
// detail::assign_out (resize with libtorch's warning, dtype check), refusing inputs that require grad
// in grad mode; it returns its out references. It adds names, not kernels: a form exists only where
// Ember has its function. Included after functional.h, so at::name already names every function
// here. The factories' and random draws' forms are in aten_out_factories.h.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "ember_compat/aliases.h"
#include "ember_compat/functional.h"

namespace ember::compat_aten {
namespace detail {

// Calls f(out, inputs...) for an _outf form's arguments (inputs..., out).
template <typename F, typename... Args>
decltype(auto) call_out_last(F&& f, Args&&... args) {
  auto all = std::forward_as_tuple(std::forward<Args>(args)...);
  constexpr std::size_t n = sizeof...(Args) - 1;
  return apply_first(
      [&](auto&&... inputs) -> decltype(auto) {
        return f(std::get<n>(all), std::forward<decltype(inputs)>(inputs)...);
      },
      all, std::make_index_sequence<n>{});
}

inline void refuse_grad_list(const char* op, TensorList tensors) {
  for (const Tensor& t : tensors) refuse_grad(op, t);
}

// Multi-output forms: result i goes into outs[i] by assign_out; returns the outs.
template <typename Results, std::size_t... I, typename... Outs>
std::tuple<Outs&...> assign_outs_at(const char* op, const Results& results, std::index_sequence<I...>, Outs&... outs) {
  (assign_out(outs, std::get<I>(results), op), ...);
  return std::tuple<Outs&...>(outs...);
}
template <typename Results, typename... Outs>
std::tuple<Outs&...> assign_outs(const char* op, const Results& results, Outs&... outs) {
  return assign_outs_at(op, results, std::index_sequence_for<Outs...>{}, outs...);
}

}  // namespace detail

// name_out(out, args...) and name_outf(args..., out) for at::name(args...): its overloads, defaults
// and dtype rules are at::name's. Left defined for the parts included after this one (linalg.h,
// special.h, which undefines it).
#define EMBER_ATEN_OUT_OF(name)                                                                        \
  template <typename... Args>                                                                          \
  auto name##_out(Tensor& out, Args&&... args)                                                         \
      ->decltype(::at::name(std::forward<Args>(args)...), std::declval<Tensor&>()) {                   \
    detail::refuse_grad(#name "_out", args...);                                                        \
    return detail::assign_out(out, ::at::name(std::forward<Args>(args)...), #name "_out");             \
  }                                                                                                    \
  template <typename... Args> /* a braced list after the input: torch::flip_out(out, x, {0}) */        \
  auto name##_out(Tensor& out, const Tensor& self, IntArrayRef list, Args&&... args)                   \
      ->decltype(::at::name(self, list, std::forward<Args>(args)...), std::declval<Tensor&>()) {       \
    detail::refuse_grad(#name "_out", self, args...);                                                  \
    return detail::assign_out(out, ::at::name(self, list, std::forward<Args>(args)...), #name "_out"); \
  }                                                                                                    \
  template <typename... Args>                                                                          \
  requires(sizeof...(Args) >= 2) Tensor& name##_outf(Args&&... args) {                                 \
    return detail::call_out_last(                                                                      \
        [](Tensor& out, auto&&... inputs) -> Tensor& {                                                 \
          return name##_out(out, std::forward<decltype(inputs)>(inputs)...);                           \
        },                                                                                             \
        std::forward<Args>(args)...);                                                                  \
  }                                                                                                    \
  template <typename... Args> /* torch::flip_outf(x, {0}, out) */                                      \
  Tensor& name##_outf(const Tensor& self, IntArrayRef list, Args&&... args) {                          \
    return detail::call_out_last(                                                                      \
        [&self, list](Tensor& out, auto&&... rest) -> Tensor& {                                        \
          return name##_out(out, self, list, std::forward<decltype(rest)>(rest)...);                   \
        },                                                                                             \
        std::forward<Args>(args)...);                                                                  \
  }
// Elementwise and binary functions.
EMBER_ATEN_OUT_OF(quantile)
EMBER_ATEN_OUT_OF(renorm)
EMBER_ATEN_OUT_OF(cauchy)
EMBER_ATEN_OUT_OF(log_normal)
EMBER_ATEN_OUT_OF(geometric)
EMBER_ATEN_OUT_OF(exponential)
EMBER_ATEN_OUT_OF(nanquantile)
EMBER_ATEN_OUT_OF(select_scatter)
EMBER_ATEN_OUT_OF(diagonal_scatter)
EMBER_ATEN_OUT_OF(bitwise_and)
EMBER_ATEN_OUT_OF(bitwise_or)
EMBER_ATEN_OUT_OF(bitwise_xor)
EMBER_ATEN_OUT_OF(bitwise_not)
EMBER_ATEN_OUT_OF(bitwise_left_shift)
EMBER_ATEN_OUT_OF(bitwise_right_shift)
EMBER_ATEN_OUT_OF(copysign)
EMBER_ATEN_OUT_OF(digamma)
EMBER_ATEN_OUT_OF(erfinv)
EMBER_ATEN_OUT_OF(fmax)
EMBER_ATEN_OUT_OF(fmin)
EMBER_ATEN_OUT_OF(gcd)
EMBER_ATEN_OUT_OF(lcm)
EMBER_ATEN_OUT_OF(heaviside)
EMBER_ATEN_OUT_OF(isin)
EMBER_ATEN_OUT_OF(isinf)
EMBER_ATEN_OUT_OF(isnan)
EMBER_ATEN_OUT_OF(isneginf)
EMBER_ATEN_OUT_OF(isposinf)
EMBER_ATEN_OUT_OF(ldexp)
EMBER_ATEN_OUT_OF(lgamma)
EMBER_ATEN_OUT_OF(mvlgamma)
EMBER_ATEN_OUT_OF(nextafter)
EMBER_ATEN_OUT_OF(polygamma)
EMBER_ATEN_OUT_OF(rsub)
EMBER_ATEN_OUT_OF(signbit)
EMBER_ATEN_OUT_OF(where)
// Matrix products.
EMBER_ATEN_OUT_OF(addbmm)
EMBER_ATEN_OUT_OF(addmm)
EMBER_ATEN_OUT_OF(addmv)
EMBER_ATEN_OUT_OF(addr)
EMBER_ATEN_OUT_OF(baddbmm)
EMBER_ATEN_OUT_OF(cross)
EMBER_ATEN_OUT_OF(inner)
EMBER_ATEN_OUT_OF(kron)
EMBER_ATEN_OUT_OF(vdot)
// Reductions, scans, sorting, searching.
EMBER_ATEN_OUT_OF(argsort)
EMBER_ATEN_OUT_OF(bincount)
EMBER_ATEN_OUT_OF(bucketize)
EMBER_ATEN_OUT_OF(diff)
EMBER_ATEN_OUT_OF(dist)
EMBER_ATEN_OUT_OF(frobenius_norm)
EMBER_ATEN_OUT_OF(histc)
EMBER_ATEN_OUT_OF(logcumsumexp)
EMBER_ATEN_OUT_OF(msort)
EMBER_ATEN_OUT_OF(norm)
EMBER_ATEN_OUT_OF(searchsorted)
// Shapes, copies and indexing.
EMBER_ATEN_OUT_OF(clone)
EMBER_ATEN_OUT_OF(diag_embed)
EMBER_ATEN_OUT_OF(flip)
EMBER_ATEN_OUT_OF(repeat_interleave)
EMBER_ATEN_OUT_OF(take)
EMBER_ATEN_OUT_OF(take_along_dim)
EMBER_ATEN_OUT_OF(embedding)
// Tensor-shaped factories: the *_like functions (self's dtype, as libtorch's).
EMBER_ATEN_OUT_OF(empty_like)
EMBER_ATEN_OUT_OF(zeros_like)
EMBER_ATEN_OUT_OF(ones_like)
EMBER_ATEN_OUT_OF(full_like)
EMBER_ATEN_OUT_OF(rand_like)
EMBER_ATEN_OUT_OF(randn_like)
// Random draws shaped by their input.
EMBER_ATEN_OUT_OF(multinomial)
// functional.h's activations, losses, pooling and sampling.
EMBER_ATEN_OUT_OF(celu)
EMBER_ATEN_OUT_OF(elu)
EMBER_ATEN_OUT_OF(glu)
EMBER_ATEN_OUT_OF(hardshrink)
EMBER_ATEN_OUT_OF(hardtanh)
EMBER_ATEN_OUT_OF(leaky_relu)
EMBER_ATEN_OUT_OF(log_sigmoid)
EMBER_ATEN_OUT_OF(mish)
EMBER_ATEN_OUT_OF(prelu)
EMBER_ATEN_OUT_OF(rrelu_with_noise)
EMBER_ATEN_OUT_OF(silu)
EMBER_ATEN_OUT_OF(softplus)
EMBER_ATEN_OUT_OF(softshrink)
EMBER_ATEN_OUT_OF(threshold)
EMBER_ATEN_OUT_OF(binary_cross_entropy)
EMBER_ATEN_OUT_OF(binary_cross_entropy_with_logits)
EMBER_ATEN_OUT_OF(huber_loss)
EMBER_ATEN_OUT_OF(mse_loss)
EMBER_ATEN_OUT_OF(nll_loss)
EMBER_ATEN_OUT_OF(nll_loss2d)
EMBER_ATEN_OUT_OF(smooth_l1_loss)
EMBER_ATEN_OUT_OF(linear)
EMBER_ATEN_OUT_OF(adaptive_avg_pool2d)
EMBER_ATEN_OUT_OF(constant_pad_nd)
EMBER_ATEN_OUT_OF(pixel_shuffle)
EMBER_ATEN_OUT_OF(grid_sampler_2d)
EMBER_ATEN_OUT_OF(grid_sampler_3d)

// cumsum_out and cumprod_out accumulate in out's dtype unless dtype is given, as libtorch's do.
inline Tensor& cumsum_out(Tensor& out, const Tensor& self, int64_t dim,
                          std::optional<ScalarType> dtype = std::nullopt) {
  detail::refuse_grad("cumsum_out", self);
  return detail::assign_out(out, self.cumsum(dim, dtype.value_or(out.scalar_type())), "cumsum_out");
}
inline Tensor& cumsum_outf(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype, Tensor& out) {
  return cumsum_out(out, self, dim, dtype);
}
inline Tensor& cumprod_out(Tensor& out, const Tensor& self, int64_t dim,
                           std::optional<ScalarType> dtype = std::nullopt) {
  detail::refuse_grad("cumprod_out", self);
  return detail::assign_out(out, self.cumprod(dim, dtype.value_or(out.scalar_type())), "cumprod_out");
}
inline Tensor& cumprod_outf(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype, Tensor& out) {
  return cumprod_out(out, self, dim, dtype);
}

// ---- several lists of sizes: a braced list anywhere, so typed as libtorch types them ----
inline Tensor& roll_out(Tensor& out, const Tensor& self, IntArrayRef shifts, IntArrayRef dims = {}) {
  detail::refuse_grad("roll_out", self);
  return detail::assign_out(out, self.roll(shifts, dims), "roll_out");
}
inline Tensor& roll_outf(const Tensor& self, IntArrayRef shifts, IntArrayRef dims, Tensor& out) {
  return roll_out(out, self, shifts, dims);
}
inline Tensor& rot90_out(Tensor& out, const Tensor& self, int64_t k = 1, IntArrayRef dims = {0, 1}) {
  detail::refuse_grad("rot90_out", self);
  return detail::assign_out(out, self.rot90(k, dims), "rot90_out");
}
inline Tensor& rot90_outf(const Tensor& self, int64_t k, IntArrayRef dims, Tensor& out) {
  return rot90_out(out, self, k, dims);
}
inline Tensor& tensordot_out(Tensor& out, const Tensor& self, const Tensor& other, IntArrayRef dims_self,
                             IntArrayRef dims_other) {
  detail::refuse_grad("tensordot_out", self, other);
  return detail::assign_out(out, tensordot(self, other, dims_self, dims_other), "tensordot_out");
}
inline Tensor& tensordot_outf(const Tensor& self, const Tensor& other, IntArrayRef dims_self, IntArrayRef dims_other,
                              Tensor& out) {
  return tensordot_out(out, self, other, dims_self, dims_other);
}
inline Tensor& norm_out(Tensor& out, const Tensor& self, const std::optional<Scalar>& p, IntArrayRef dim,
                        bool keepdim = false) {
  detail::refuse_grad("norm_out", self);
  return detail::assign_out(out, self.norm(p, dim, keepdim), "norm_out");
}
inline Tensor& norm_outf(const Tensor& self, const std::optional<Scalar>& p, IntArrayRef dim, bool keepdim,
                         Tensor& out) {
  return norm_out(out, self, p, dim, keepdim);
}
inline Tensor& im2col_out(Tensor& out, const Tensor& self, IntArrayRef kernel_size, IntArrayRef dilation,
                          IntArrayRef padding, IntArrayRef stride) {
  detail::refuse_grad("im2col_out", self);
  return detail::assign_out(out, im2col(self, kernel_size, dilation, padding, stride), "im2col_out");
}
inline Tensor& im2col_outf(const Tensor& self, IntArrayRef kernel_size, IntArrayRef dilation, IntArrayRef padding,
                           IntArrayRef stride, Tensor& out) {
  return im2col_out(out, self, kernel_size, dilation, padding, stride);
}
inline Tensor& col2im_out(Tensor& out, const Tensor& self, IntArrayRef output_size, IntArrayRef kernel_size,
                          IntArrayRef dilation, IntArrayRef padding, IntArrayRef stride) {
  detail::refuse_grad("col2im_out", self);
  return detail::assign_out(out, col2im(self, output_size, kernel_size, dilation, padding, stride), "col2im_out");
}
inline Tensor& col2im_outf(const Tensor& self, IntArrayRef output_size, IntArrayRef kernel_size, IntArrayRef dilation,
                           IntArrayRef padding, IntArrayRef stride, Tensor& out) {
  return col2im_out(out, self, output_size, kernel_size, dilation, padding, stride);
}
inline Tensor& avg_pool2d_out(Tensor& out, const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {},
                              IntArrayRef padding = 0, bool ceil_mode = false, bool count_include_pad = true,
                              std::optional<int64_t> divisor_override = std::nullopt) {
  detail::refuse_grad("avg_pool2d_out", self);
  return detail::assign_out(
      out, ::at::avg_pool2d(self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override),
      "avg_pool2d_out");
}
inline Tensor& avg_pool2d_outf(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                               bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override,
                               Tensor& out) {
  return avg_pool2d_out(out, self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override);
}
inline Tensor& affine_grid_generator_out(Tensor& out, const Tensor& theta, IntArrayRef size, bool align_corners) {
  detail::refuse_grad("affine_grid_generator_out", theta);
  return detail::assign_out(out, ::at::affine_grid_generator(theta, size, align_corners), "affine_grid_generator_out");
}
inline Tensor& affine_grid_generator_outf(const Tensor& theta, IntArrayRef size, bool align_corners, Tensor& out) {
  return affine_grid_generator_out(out, theta, size, align_corners);
}

// ---- list inputs: cat_out(out, {a, b}, dim) ----
#define EMBER_ATEN_LIST_OUT(name)                                                                         \
  template <typename... Args>                                                                             \
  auto name##_out(Tensor& out, TensorList tensors, Args&&... args)                                        \
      ->decltype(::at::name(tensors.vec(), std::forward<Args>(args)...), std::declval<Tensor&>()) {       \
    detail::refuse_grad_list(#name "_out", tensors);                                                      \
    return detail::assign_out(out, ::at::name(tensors.vec(), std::forward<Args>(args)...), #name "_out"); \
  }                                                                                                       \
  template <typename... Args>                                                                             \
  Tensor& name##_outf(TensorList tensors, Args&&... args) {                                               \
    return detail::call_out_last(                                                                         \
        [&tensors](Tensor& out, auto&&... rest) -> Tensor& { return name##_out(out, tensors, rest...); }, \
        std::forward<Args>(args)...);                                                                     \
  }
EMBER_ATEN_LIST_OUT(cat)
EMBER_ATEN_LIST_OUT(concat)
EMBER_ATEN_LIST_OUT(concatenate)
EMBER_ATEN_LIST_OUT(stack)
EMBER_ATEN_LIST_OUT(hstack)
EMBER_ATEN_LIST_OUT(vstack)
EMBER_ATEN_LIST_OUT(dstack)
EMBER_ATEN_LIST_OUT(column_stack)
EMBER_ATEN_LIST_OUT(row_stack)
EMBER_ATEN_LIST_OUT(block_diag)
EMBER_ATEN_LIST_OUT(chain_matmul)
#undef EMBER_ATEN_LIST_OUT

// ---- Tensor methods with no at:: function ----
inline Tensor& gelu_out(Tensor& out, const Tensor& self, std::string_view approximate = "none") {
  detail::refuse_grad("gelu_out", self);
  return detail::assign_out(out, self.gelu(std::string(approximate)), "gelu_out");
}
inline Tensor& gelu_outf(const Tensor& self, std::string_view approximate, Tensor& out) {
  return gelu_out(out, self, approximate);
}
inline Tensor& repeat_out(Tensor& out, const Tensor& self, IntArrayRef repeats) {
  detail::refuse_grad("repeat_out", self);
  return detail::assign_out(out, self.repeat(repeats), "repeat_out");
}
inline Tensor& repeat_outf(const Tensor& self, IntArrayRef repeats, Tensor& out) {
  return repeat_out(out, self, repeats);
}
// index_out(out, self, indices): indices is libtorch's c10::List<c10::optional<Tensor>>.
inline Tensor& index_out(Tensor& out, const Tensor& self, const std::vector<std::optional<Tensor>>& indices) {
  detail::refuse_grad("index_out", self);
  return detail::assign_out(out, self.index(indices), "index_out");
}
inline Tensor& index_outf(const Tensor& self, const std::vector<std::optional<Tensor>>& indices, Tensor& out) {
  return index_out(out, self, indices);
}
inline Tensor& index_put_out(Tensor& out, const Tensor& self, const std::vector<std::optional<Tensor>>& indices,
                             const Tensor& values, bool accumulate = false) {
  detail::refuse_grad("index_put_out", self, values);
  return detail::assign_out(out, self.index_put(indices, values, accumulate), "index_put_out");
}
inline Tensor& index_put_outf(const Tensor& self, const std::vector<std::optional<Tensor>>& indices,
                              const Tensor& values, bool accumulate, Tensor& out) {
  return index_put_out(out, self, indices, values, accumulate);
}
// new_*_out(out, self, size): self's dtype, as self.new_zeros(size).
inline Tensor& new_empty_out(Tensor& out, const Tensor& self, IntArrayRef size) {
  return detail::assign_out(out, self.new_empty(size), "new_empty_out");
}
inline Tensor& new_empty_outf(const Tensor& self, IntArrayRef size, Tensor& out) {
  return new_empty_out(out, self, size);
}
inline Tensor& new_zeros_out(Tensor& out, const Tensor& self, IntArrayRef size) {
  return detail::assign_out(out, self.new_zeros(size), "new_zeros_out");
}
inline Tensor& new_zeros_outf(const Tensor& self, IntArrayRef size, Tensor& out) {
  return new_zeros_out(out, self, size);
}
inline Tensor& new_ones_out(Tensor& out, const Tensor& self, IntArrayRef size) {
  return detail::assign_out(out, self.new_ones(size), "new_ones_out");
}
inline Tensor& new_ones_outf(const Tensor& self, IntArrayRef size, Tensor& out) {
  return new_ones_out(out, self, size);
}
inline Tensor& new_full_out(Tensor& out, const Tensor& self, IntArrayRef size, const Scalar& fill_value) {
  return detail::assign_out(out, self.new_full(size, fill_value), "new_full_out");
}
inline Tensor& new_full_outf(const Tensor& self, IntArrayRef size, const Scalar& fill_value, Tensor& out) {
  return new_full_out(out, self, size, fill_value);
}

// ---- several outputs: std::tuple<Tensor&, Tensor&>, outputs first ----
using OutPair = std::tuple<Tensor&, Tensor&>;
inline OutPair sort_out(Tensor& values, Tensor& indices, const Tensor& self, int64_t dim = -1,
                        bool descending = false) {
  detail::refuse_grad("sort_out", self);
  return detail::assign_outs("sort_out", self.sort(dim, descending), values, indices);
}
inline OutPair sort_outf(const Tensor& self, int64_t dim, bool descending, Tensor& values, Tensor& indices) {
  return sort_out(values, indices, self, dim, descending);
}
inline OutPair sort_out(Tensor& values, Tensor& indices, const Tensor& self, std::optional<bool> stable,
                        int64_t dim = -1, bool descending = false) {
  detail::refuse_grad("sort_out", self);
  return detail::assign_outs("sort_out", self.sort(stable, dim, descending), values, indices);
}
inline OutPair sort_outf(const Tensor& self, std::optional<bool> stable, int64_t dim, bool descending, Tensor& values,
                         Tensor& indices) {
  return sort_out(values, indices, self, stable, dim, descending);
}
inline OutPair topk_out(Tensor& values, Tensor& indices, const Tensor& self, int64_t k, int64_t dim = -1,
                        bool largest = true, bool sorted = true) {
  detail::refuse_grad("topk_out", self);
  return detail::assign_outs("topk_out", self.topk(k, dim, largest, sorted), values, indices);
}
inline OutPair topk_outf(const Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted, Tensor& values,
                         Tensor& indices) {
  return topk_out(values, indices, self, k, dim, largest, sorted);
}
inline OutPair kthvalue_out(Tensor& values, Tensor& indices, const Tensor& self, int64_t k, int64_t dim = -1,
                            bool keepdim = false) {
  detail::refuse_grad("kthvalue_out", self);
  return detail::assign_outs("kthvalue_out", self.kthvalue(k, dim, keepdim), values, indices);
}
inline OutPair kthvalue_outf(const Tensor& self, int64_t k, int64_t dim, bool keepdim, Tensor& values,
                             Tensor& indices) {
  return kthvalue_out(values, indices, self, k, dim, keepdim);
}
// max_out(max, max_values, self, dim), min_out and median_out: (values, indices) along dim.
#define EMBER_ATEN_DIM_PAIR_OUT(name)                                                                                 \
  inline OutPair name##_out(Tensor& values, Tensor& indices, const Tensor& self, int64_t dim, bool keepdim = false) { \
    detail::refuse_grad(#name "_out", self);                                                                          \
    return detail::assign_outs(#name "_out", self.name(dim, keepdim), values, indices);                               \
  }                                                                                                                   \
  inline OutPair name##_outf(const Tensor& self, int64_t dim, bool keepdim, Tensor& values, Tensor& indices) {        \
    return name##_out(values, indices, self, dim, keepdim);                                                           \
  }
EMBER_ATEN_DIM_PAIR_OUT(max)
EMBER_ATEN_DIM_PAIR_OUT(min)
EMBER_ATEN_DIM_PAIR_OUT(median)
EMBER_ATEN_DIM_PAIR_OUT(nanmedian)
EMBER_ATEN_DIM_PAIR_OUT(mode)
#undef EMBER_ATEN_DIM_PAIR_OUT
// The one-output forms beside them: max_out(out, self, other), min_out(out, self, other), median_out(out, self).
inline Tensor& max_out(Tensor& out, const Tensor& self, const Tensor& other) {
  detail::refuse_grad("max_out", self, other);
  return detail::assign_out(out, self.max(other), "max_out");
}
inline Tensor& max_outf(const Tensor& self, const Tensor& other, Tensor& out) { return max_out(out, self, other); }
inline Tensor& min_out(Tensor& out, const Tensor& self, const Tensor& other) {
  detail::refuse_grad("min_out", self, other);
  return detail::assign_out(out, self.min(other), "min_out");
}
inline Tensor& min_outf(const Tensor& self, const Tensor& other, Tensor& out) { return min_out(out, self, other); }
inline Tensor& median_out(Tensor& out, const Tensor& self) {
  detail::refuse_grad("median_out", self);
  return detail::assign_out(out, self.median(), "median_out");
}
inline Tensor& median_outf(const Tensor& self, Tensor& out) { return median_out(out, self); }
inline Tensor& nanmedian_out(Tensor& out, const Tensor& self) {
  detail::refuse_grad("nanmedian_out", self);
  return detail::assign_out(out, self.nanmedian(), "nanmedian_out");
}
inline Tensor& nanmedian_outf(const Tensor& self, Tensor& out) { return nanmedian_out(out, self); }
inline OutPair cummax_out(Tensor& values, Tensor& indices, const Tensor& self, int64_t dim) {
  detail::refuse_grad("cummax_out", self);
  return detail::assign_outs("cummax_out", self.cummax(dim), values, indices);
}
inline OutPair cummax_outf(const Tensor& self, int64_t dim, Tensor& values, Tensor& indices) {
  return cummax_out(values, indices, self, dim);
}
inline OutPair cummin_out(Tensor& values, Tensor& indices, const Tensor& self, int64_t dim) {
  detail::refuse_grad("cummin_out", self);
  return detail::assign_outs("cummin_out", self.cummin(dim), values, indices);
}
inline OutPair cummin_outf(const Tensor& self, int64_t dim, Tensor& values, Tensor& indices) {
  return cummin_out(values, indices, self, dim);
}
inline OutPair frexp_out(Tensor& mantissa, Tensor& exponent, const Tensor& self) {
  detail::refuse_grad("frexp_out", self);
  return detail::assign_outs("frexp_out", self.frexp(), mantissa, exponent);
}
inline OutPair frexp_outf(const Tensor& self, Tensor& mantissa, Tensor& exponent) {
  return frexp_out(mantissa, exponent, self);
}

namespace detail {
// var_mean and std_mean with libtorch's correction (the divisor is N - correction, default 1).
inline std::tuple<Tensor, Tensor> var_mean_corrected(const Tensor& self, std::optional<IntArrayRef> dim,
                                                     std::optional<int64_t> correction, bool keepdim) {
  std::vector<int64_t> all_dims;
  for (int64_t d = 0; d < self.dim(); ++d) all_dims.push_back(d);
  const IntArrayRef dims = dim && !dim->empty() ? *dim : IntArrayRef(all_dims);
  const int64_t c = correction.value_or(1);
  if (c == 0 || c == 1) return var_mean(self, dims, c == 1, keepdim);
  auto [var, mean] = var_mean(self, dims, false, keepdim);
  const double n = mean.numel() == 0 ? 0.0 : static_cast<double>(self.numel()) / static_cast<double>(mean.numel());
  return {var.mul(n).div(std::max(n - static_cast<double>(c), 0.0)), mean};
}
inline std::tuple<Tensor, Tensor> std_mean_corrected(const Tensor& self, std::optional<IntArrayRef> dim,
                                                     std::optional<int64_t> correction, bool keepdim) {
  auto [var, mean] = var_mean_corrected(self, dim, correction, keepdim);
  return {var.sqrt(), mean};
}
}  // namespace detail
// dim is a list ({1}) or c10::nullopt (every dim), as libtorch's at::OptionalIntArrayRef.
#define EMBER_ATEN_MOMENTS_OUT(name, DimType)                                                                       \
  inline OutPair name##_out(Tensor& out0, Tensor& out1, const Tensor& self, DimType dim,                            \
                            std::optional<int64_t> correction, bool keepdim = false) {                              \
    detail::refuse_grad(#name "_out", self);                                                                        \
    return detail::assign_outs(#name "_out", detail::name##_corrected(self, dim, correction, keepdim), out0, out1); \
  }                                                                                                                 \
  inline OutPair name##_outf(const Tensor& self, DimType dim, std::optional<int64_t> correction, bool keepdim,      \
                             Tensor& out0, Tensor& out1) {                                                          \
    return name##_out(out0, out1, self, dim, correction, keepdim);                                                  \
  }
EMBER_ATEN_MOMENTS_OUT(var_mean, IntArrayRef)
EMBER_ATEN_MOMENTS_OUT(var_mean, std::nullopt_t)
EMBER_ATEN_MOMENTS_OUT(std_mean, IntArrayRef)
EMBER_ATEN_MOMENTS_OUT(std_mean, std::nullopt_t)
#undef EMBER_ATEN_MOMENTS_OUT
inline OutPair max_pool2d_with_indices_out(Tensor& out, Tensor& indices, const Tensor& self, IntArrayRef kernel_size,
                                           IntArrayRef stride = {}, IntArrayRef padding = 0, IntArrayRef dilation = 1,
                                           bool ceil_mode = false) {
  detail::refuse_grad("max_pool2d_with_indices_out", self);
  return detail::assign_outs("max_pool2d_with_indices_out",
                             ::at::max_pool2d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode),
                             out, indices);
}
inline OutPair max_pool2d_with_indices_outf(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                            IntArrayRef padding, IntArrayRef dilation, bool ceil_mode, Tensor& out,
                                            Tensor& indices) {
  return max_pool2d_with_indices_out(out, indices, self, kernel_size, stride, padding, dilation, ceil_mode);
}
inline OutPair adaptive_max_pool2d_out(Tensor& out, Tensor& indices, const Tensor& self, IntArrayRef output_size) {
  detail::refuse_grad("adaptive_max_pool2d_out", self);
  return detail::assign_outs("adaptive_max_pool2d_out", ::at::adaptive_max_pool2d(self, output_size), out, indices);
}
inline OutPair adaptive_max_pool2d_outf(const Tensor& self, IntArrayRef output_size, Tensor& out, Tensor& indices) {
  return adaptive_max_pool2d_out(out, indices, self, output_size);
}
inline std::tuple<Tensor&, Tensor&, Tensor&> unique_consecutive_out(Tensor& out0, Tensor& out1, Tensor& out2,
                                                                    const Tensor& self, bool return_inverse = false,
                                                                    bool return_counts = false,
                                                                    std::optional<int64_t> dim = std::nullopt) {
  detail::refuse_grad("unique_consecutive_out", self);
  return detail::assign_outs("unique_consecutive_out",
                             ::at::unique_consecutive(self, return_inverse, return_counts, dim), out0, out1, out2);
}
inline std::tuple<Tensor&, Tensor&, Tensor&> unique_consecutive_outf(const Tensor& self, bool return_inverse,
                                                                     bool return_counts, std::optional<int64_t> dim,
                                                                     Tensor& out0, Tensor& out1, Tensor& out2) {
  return unique_consecutive_out(out0, out1, out2, self, return_inverse, return_counts, dim);
}

}  // namespace ember::compat_aten
