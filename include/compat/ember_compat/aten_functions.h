// ATen's function forms of Tensor methods, for <torch/torch.h>: `torch::transpose(x, 0, 1)` is
// `x.transpose(0, 1)`, as in libtorch, where every method of Tensor also exists as a function of
// namespace at (and so of torch). And ATen's out= forms of them: `torch::add_out(out, a, b)` and
// `torch::add_outf(a, b, out)` compute `a.add(b)` into `out`, resizing it when its shape differs
// (with libtorch's warning when it was not empty) and casting to its dtype when that dtype can hold
// the result; as in libtorch they refuse arguments that require grad while grad mode is on.
//
// Everything here forwards to the method: it adds names, not behaviour. Only names whose ATen function
// takes `self` first are listed (at::where takes the condition first and is Ember's own).
#pragma once

#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include <ember/ember.h>

namespace ember::compat_aten {

template <typename T>
concept TensorArg = std::same_as<std::remove_cvref_t<T>, Tensor>;

// Methods whose arguments are scalars, dims or tensors (deduced, so each overload of the method is
// reachable). `Self&&` keeps in-place methods (zero_, clamp_) callable on a non-const tensor.
#define EMBER_ATEN_FUNCTION(name)                                                      \
  template <TensorArg Self, typename... Args>                                          \
  auto name(Self&& self, Args&&... args)->decltype(self.name(std::forward<Args>(args)...)) { \
    return self.name(std::forward<Args>(args)...);                                     \
  }                                                                                    \
  /* a braced list of dims first: torch::std(x, {1}, true) */                          \
  template <TensorArg Self, typename... Args>                                          \
  auto name(Self&& self, IntArrayRef dims, Args&&... args)->decltype(self.name(dims, std::forward<Args>(args)...)) { \
    return self.name(dims, std::forward<Args>(args)...);                               \
  }
EMBER_ATEN_FUNCTION(add)
EMBER_ATEN_FUNCTION(sub)
EMBER_ATEN_FUNCTION(mul)
EMBER_ATEN_FUNCTION(div)
EMBER_ATEN_FUNCTION(eq)
EMBER_ATEN_FUNCTION(ne)
EMBER_ATEN_FUNCTION(lt)
EMBER_ATEN_FUNCTION(le)
EMBER_ATEN_FUNCTION(gt)
EMBER_ATEN_FUNCTION(ge)
EMBER_ATEN_FUNCTION(logical_and)
EMBER_ATEN_FUNCTION(logical_or)
EMBER_ATEN_FUNCTION(logical_xor)
EMBER_ATEN_FUNCTION(logical_not)
EMBER_ATEN_FUNCTION(clamp_min)
EMBER_ATEN_FUNCTION(clamp_max)
EMBER_ATEN_FUNCTION(clamp_min_)
EMBER_ATEN_FUNCTION(clamp_max_)
EMBER_ATEN_FUNCTION(addmv_)
EMBER_ATEN_FUNCTION(xlogy_)
EMBER_ATEN_FUNCTION(clamp_)
EMBER_ATEN_FUNCTION(clone)
EMBER_ATEN_FUNCTION(detach)
EMBER_ATEN_FUNCTION(detach_)
EMBER_ATEN_FUNCTION(zero_)
EMBER_ATEN_FUNCTION(fill_)
EMBER_ATEN_FUNCTION(relu_)
EMBER_ATEN_FUNCTION(exp_)
EMBER_ATEN_FUNCTION(sqrt_)
EMBER_ATEN_FUNCTION(tanh_)
EMBER_ATEN_FUNCTION(neg_)
EMBER_ATEN_FUNCTION(masked_fill)
EMBER_ATEN_FUNCTION(gather)
EMBER_ATEN_FUNCTION(scatter_add)
EMBER_ATEN_FUNCTION(index_add)
EMBER_ATEN_FUNCTION(index_select)
EMBER_ATEN_FUNCTION(slice_scatter)
EMBER_ATEN_FUNCTION(select_scatter)
EMBER_ATEN_FUNCTION(diagonal_scatter)
EMBER_ATEN_FUNCTION(is_same_size)
EMBER_ATEN_FUNCTION(scatter)
EMBER_ATEN_FUNCTION(scatter_reduce)
EMBER_ATEN_FUNCTION(index_copy)
EMBER_ATEN_FUNCTION(index_fill)
EMBER_ATEN_FUNCTION(masked_scatter)
EMBER_ATEN_FUNCTION(put)
EMBER_ATEN_FUNCTION(aminmax)
EMBER_ATEN_FUNCTION(transpose)
EMBER_ATEN_FUNCTION(t)
EMBER_ATEN_FUNCTION(squeeze)
EMBER_ATEN_FUNCTION(unsqueeze)
EMBER_ATEN_FUNCTION(flatten)
EMBER_ATEN_FUNCTION(narrow)
EMBER_ATEN_FUNCTION(select)
EMBER_ATEN_FUNCTION(slice)
EMBER_ATEN_FUNCTION(split)
EMBER_ATEN_FUNCTION(chunk)
EMBER_ATEN_FUNCTION(unbind)
EMBER_ATEN_FUNCTION(size)
EMBER_ATEN_FUNCTION(stride)
EMBER_ATEN_FUNCTION(var)
EMBER_ATEN_FUNCTION(std)
EMBER_ATEN_FUNCTION(sort)
EMBER_ATEN_FUNCTION(argsort)
EMBER_ATEN_FUNCTION(topk)
EMBER_ATEN_FUNCTION(cumsum)
EMBER_ATEN_FUNCTION(cumprod)
EMBER_ATEN_FUNCTION(isnan)
EMBER_ATEN_FUNCTION(isinf)
EMBER_ATEN_FUNCTION(isfinite)
EMBER_ATEN_FUNCTION(is_nonzero)
// Reductions, selection, vector products and arranging.
EMBER_ATEN_FUNCTION(prod)
EMBER_ATEN_FUNCTION(nansum)
EMBER_ATEN_FUNCTION(nanmean)
EMBER_ATEN_FUNCTION(count_nonzero)
EMBER_ATEN_FUNCTION(median)
EMBER_ATEN_FUNCTION(kthvalue)
EMBER_ATEN_FUNCTION(nanmedian)
EMBER_ATEN_FUNCTION(mode)
EMBER_ATEN_FUNCTION(quantile)
EMBER_ATEN_FUNCTION(nanquantile)
EMBER_ATEN_FUNCTION(renorm)
EMBER_ATEN_FUNCTION(nonzero_numpy)
EMBER_ATEN_FUNCTION(lu_solve)
EMBER_ATEN_FUNCTION(nonzero)
EMBER_ATEN_FUNCTION(argwhere)
EMBER_ATEN_FUNCTION(masked_select)
EMBER_ATEN_FUNCTION(outer)
EMBER_ATEN_FUNCTION(ger)
EMBER_ATEN_FUNCTION(dot)
EMBER_ATEN_FUNCTION(mv)
EMBER_ATEN_FUNCTION(moveaxis)
EMBER_ATEN_FUNCTION(swapaxes)
EMBER_ATEN_FUNCTION(swapdims)
EMBER_ATEN_FUNCTION(broadcast_to)
EMBER_ATEN_FUNCTION(ravel)
EMBER_ATEN_FUNCTION(diagonal)
EMBER_ATEN_FUNCTION(diag)
EMBER_ATEN_FUNCTION(trace)
EMBER_ATEN_FUNCTION(tensor_split)
EMBER_ATEN_FUNCTION(diff)
EMBER_ATEN_FUNCTION(tile)
// The elementwise math of autograd/math.cpp, its libtorch spellings and in-place forms.
EMBER_ATEN_FUNCTION(tan)
EMBER_ATEN_FUNCTION(asin)
EMBER_ATEN_FUNCTION(acos)
EMBER_ATEN_FUNCTION(atan)
EMBER_ATEN_FUNCTION(sinh)
EMBER_ATEN_FUNCTION(cosh)
EMBER_ATEN_FUNCTION(asinh)
EMBER_ATEN_FUNCTION(acosh)
EMBER_ATEN_FUNCTION(atanh)
EMBER_ATEN_FUNCTION(expm1)
EMBER_ATEN_FUNCTION(exp2)
EMBER_ATEN_FUNCTION(log2)
EMBER_ATEN_FUNCTION(log10)
EMBER_ATEN_FUNCTION(sinc)
EMBER_ATEN_FUNCTION(deg2rad)
EMBER_ATEN_FUNCTION(rad2deg)
EMBER_ATEN_FUNCTION(logit)
EMBER_ATEN_FUNCTION(nan_to_num)
EMBER_ATEN_FUNCTION(floor)
EMBER_ATEN_FUNCTION(ceil)
EMBER_ATEN_FUNCTION(trunc)
EMBER_ATEN_FUNCTION(round)
EMBER_ATEN_FUNCTION(frac)
EMBER_ATEN_FUNCTION(floor_divide)
EMBER_ATEN_FUNCTION(atan2)
EMBER_ATEN_FUNCTION(hypot)
EMBER_ATEN_FUNCTION(logaddexp)
EMBER_ATEN_FUNCTION(logaddexp2)
EMBER_ATEN_FUNCTION(xlogy)
EMBER_ATEN_FUNCTION(float_power)
EMBER_ATEN_FUNCTION(lerp)
EMBER_ATEN_FUNCTION(addcmul)
EMBER_ATEN_FUNCTION(addcdiv)
EMBER_ATEN_FUNCTION(arcsin)
EMBER_ATEN_FUNCTION(arccos)
EMBER_ATEN_FUNCTION(arctan)
EMBER_ATEN_FUNCTION(arcsinh)
EMBER_ATEN_FUNCTION(arccosh)
EMBER_ATEN_FUNCTION(arctanh)
EMBER_ATEN_FUNCTION(arctan2)
EMBER_ATEN_FUNCTION(fix)
EMBER_ATEN_FUNCTION(absolute)
EMBER_ATEN_FUNCTION(negative)
EMBER_ATEN_FUNCTION(clip)
EMBER_ATEN_FUNCTION(multiply)
EMBER_ATEN_FUNCTION(divide)
EMBER_ATEN_FUNCTION(true_divide)
EMBER_ATEN_FUNCTION(subtract)
EMBER_ATEN_FUNCTION(greater)
EMBER_ATEN_FUNCTION(greater_equal)
EMBER_ATEN_FUNCTION(less)
EMBER_ATEN_FUNCTION(less_equal)
EMBER_ATEN_FUNCTION(not_equal)
EMBER_ATEN_FUNCTION(abs_)
EMBER_ATEN_FUNCTION(sign_)
EMBER_ATEN_FUNCTION(square_)
EMBER_ATEN_FUNCTION(reciprocal_)
EMBER_ATEN_FUNCTION(log_)
EMBER_ATEN_FUNCTION(log1p_)
EMBER_ATEN_FUNCTION(rsqrt_)
EMBER_ATEN_FUNCTION(erf_)
EMBER_ATEN_FUNCTION(erfc_)
EMBER_ATEN_FUNCTION(sin_)
EMBER_ATEN_FUNCTION(cos_)
EMBER_ATEN_FUNCTION(sigmoid_)
EMBER_ATEN_FUNCTION(tan_)
EMBER_ATEN_FUNCTION(asin_)
EMBER_ATEN_FUNCTION(acos_)
EMBER_ATEN_FUNCTION(atan_)
EMBER_ATEN_FUNCTION(sinh_)
EMBER_ATEN_FUNCTION(cosh_)
EMBER_ATEN_FUNCTION(asinh_)
EMBER_ATEN_FUNCTION(acosh_)
EMBER_ATEN_FUNCTION(atanh_)
EMBER_ATEN_FUNCTION(expm1_)
EMBER_ATEN_FUNCTION(exp2_)
EMBER_ATEN_FUNCTION(log2_)
EMBER_ATEN_FUNCTION(log10_)
EMBER_ATEN_FUNCTION(sinc_)
EMBER_ATEN_FUNCTION(deg2rad_)
EMBER_ATEN_FUNCTION(rad2deg_)
EMBER_ATEN_FUNCTION(logit_)
EMBER_ATEN_FUNCTION(nan_to_num_)
EMBER_ATEN_FUNCTION(floor_)
EMBER_ATEN_FUNCTION(ceil_)
EMBER_ATEN_FUNCTION(trunc_)
EMBER_ATEN_FUNCTION(round_)
EMBER_ATEN_FUNCTION(frac_)
EMBER_ATEN_FUNCTION(arcsin_)
EMBER_ATEN_FUNCTION(arccos_)
EMBER_ATEN_FUNCTION(arctan_)
EMBER_ATEN_FUNCTION(arcsinh_)
EMBER_ATEN_FUNCTION(arccosh_)
EMBER_ATEN_FUNCTION(arctanh_)
EMBER_ATEN_FUNCTION(fix_)
EMBER_ATEN_FUNCTION(absolute_)
EMBER_ATEN_FUNCTION(negative_)
EMBER_ATEN_FUNCTION(clip_)
#undef EMBER_ATEN_FUNCTION

// Methods taking a list of sizes or dims, which programs pass as a braced list (`torch::reshape(x,
// {2, -1})`): a deduced parameter cannot take a braced list, so these are spelled out.
inline Tensor reshape(const Tensor& self, IntArrayRef shape) { return self.reshape(shape); }
inline Tensor permute(const Tensor& self, IntArrayRef dims) { return self.permute(dims); }
inline Tensor unflatten(const Tensor& self, int64_t dim, IntArrayRef sizes) { return self.unflatten(dim, sizes); }
inline tensor_list split_with_sizes(const Tensor& self, IntArrayRef split_sizes, int64_t dim = 0) {
  return self.split_with_sizes(split_sizes, dim);
}
inline tensor_list split(const Tensor& self, IntArrayRef split_sizes, int64_t dim = 0) {
  return self.split_with_sizes(split_sizes, dim);
}
inline Tensor flip(const Tensor& self, IntArrayRef dims) { return self.flip(dims); }
inline Tensor movedim(const Tensor& self, IntArrayRef source, IntArrayRef destination) {
  return self.movedim(source, destination);
}
inline Tensor movedim(const Tensor& self, int64_t source, int64_t destination) {
  return self.movedim(source, destination);
}
inline Tensor roll(const Tensor& self, IntArrayRef shifts, IntArrayRef dims = {}) { return self.roll(shifts, dims); }
inline Tensor as_strided(const Tensor& self, IntArrayRef sizes, IntArrayRef strides,
                         std::optional<int64_t> storage_offset = std::nullopt) {
  return self.as_strided(sizes, strides, storage_offset);
}

// ATen's unique: _unique2 (what Python's torch.unique calls) and _unique (unique_consecutive is Ember's own).
inline std::tuple<Tensor, Tensor, Tensor> _unique2(const Tensor& self, bool sorted = true, bool return_inverse = false,
                                                   bool return_counts = false) {
  return ember::unique(self, sorted, return_inverse, return_counts);
}
inline std::tuple<Tensor, Tensor> _unique(const Tensor& self, bool sorted = true, bool return_inverse = false) {
  auto [values, inverse, counts] = ember::unique(self, sorted, return_inverse, false);
  return {values, inverse};
}

// ATen's small functional forms. unsafe_ means "no view tracking" in libtorch; Ember's pieces are views.
inline tensor_list unsafe_chunk(const Tensor& self, int64_t chunks, int64_t dim = 0) { return self.chunk(chunks, dim); }
inline tensor_list unsafe_split(const Tensor& self, int64_t split_size, int64_t dim = 0) {
  return self.split(split_size, dim);
}
inline tensor_list unsafe_split_with_sizes(const Tensor& self, IntArrayRef split_sizes, int64_t dim = 0) {
  return self.split_with_sizes(split_sizes, dim);
}
inline Tensor fill(const Tensor& self, const Scalar& value) { return full_like(self, value); }
inline Tensor fill(const Tensor& self, const Tensor& value) {  // differentiable in value, as libtorch's
  EMBER_CHECK(value.dim() == 0, "fill only supports 0-dimension value tensor but got tensor with {} dimensions.",
              value.dim());
  return value.to(self.dtype()).expand(self.sizes()).clone();
}
inline Tensor zero(const Tensor& self) { return zeros_like(self); }
// The random fills' functional forms: a new tensor like self, drawn as the in-place form draws.
inline Tensor cauchy(const Tensor& self, double median = 0, double sigma = 1,
                     std::optional<Generator> generator = std::nullopt) {
  return empty_like(self).cauchy_(median, sigma, generator);
}
inline Tensor log_normal(const Tensor& self, double mean = 1, double std = 2,
                         std::optional<Generator> generator = std::nullopt) {
  return empty_like(self).log_normal_(mean, std, generator);
}
inline Tensor geometric(const Tensor& self, double p, std::optional<Generator> generator = std::nullopt) {
  return empty_like(self).geometric_(p, generator);
}
inline Tensor exponential(const Tensor& self, double lambd = 1, std::optional<Generator> generator = std::nullopt) {
  return empty_like(self).exponential_(lambd, generator);
}
inline Tensor isreal(const Tensor& self) { return ones_like(self, TensorOptions().dtype(kBool)); }  // no complex dtypes
// Whether a value of dtype `from` may be written into a tensor of dtype `to` by an in-place op:
// floating into integral (or bool), and anything else into bool, may not.
inline bool can_cast(ScalarType from, ScalarType to) {
  if (is_floating_point(from) && !is_floating_point(to)) return false;
  return from == kBool || to != kBool;
}

namespace detail {

// Writes `result` into `out` as ATen's out= kernels do; `op` is the name the user called.
inline Tensor& assign_out(Tensor& out, const Tensor& result, const char* op) {
  EMBER_CHECK(out.defined(), "{}: out= is an undefined tensor", op);
  EMBER_CHECK(dtype_category(result.scalar_type()) <= dtype_category(out.scalar_type()),
              "{}: result type {} can't be cast to the desired output type {}", op,
              scalar_type_name(result.scalar_type()), scalar_type_name(out.scalar_type()));
  EMBER_CHECK(out.device() == result.device(), "{}: out= is on {} but the result is on {}", op, out.device().str(),
              result.device().str());
  if (out.sizes() != result.sizes()) {
    if (out.numel() != 0) {
      ember::warn(Warning(SourceLocation{op, __FILE__, static_cast<uint32_t>(__LINE__)},
                          "An output with one or more elements was resized since it had shape " +
                              shape_str(out.sizes()) + ", which does not match the required output shape " +
                              shape_str(result.sizes()) +
                              ". This behavior is deprecated, and in a future PyTorch release outputs will not be "
                              "resized unless they have zero elements. You can explicitly reuse an out tensor t by "
                              "resizing it, inplace, to zero elements with t.resize_(0).",
                          false));
    }
    out.resize_(result.sizes());
  }
  NoGradGuard no_grad;
  out.copy_(result);
  return out;
}

template <typename... Inputs>
void refuse_grad(const char* op, const Inputs&... inputs) {
  if (!GradMode::is_enabled()) return;
  bool any = false;
  auto check = [&](const auto& value) {
    if constexpr (TensorArg<decltype(value)>) any = any || (value.defined() && value.requires_grad());
  };
  (check(inputs), ...);
  EMBER_CHECK(!any,
              "{}(): functions with out=... arguments don't support automatic differentiation, but one of the "
              "arguments requires grad.",
              op);
}

// Calls f with the first N elements of the tuple.
template <typename F, typename Tuple, std::size_t... I>
decltype(auto) apply_first(F&& f, Tuple&& tuple, std::index_sequence<I...>) {
  return std::forward<F>(f)(std::get<I>(std::forward<Tuple>(tuple))...);
}

}  // namespace detail

// name_out(out, self, args...) and name_outf(self, args..., out).
#define EMBER_ATEN_OUT(name)                                                                          \
  template <typename... Args>                                                                         \
  auto name##_out(Tensor& out, const Tensor& self, Args&&... args)                                    \
      ->decltype(self.name(std::forward<Args>(args)...), std::declval<Tensor&>()) {                   \
    detail::refuse_grad(#name "_out", self, args...);                                                 \
    return detail::assign_out(out, self.name(std::forward<Args>(args)...), #name "_out");             \
  }                                                                                                   \
  template <typename... Args> /* a braced list of dims: torch::sum_out(out, x, {0}) */                \
  auto name##_out(Tensor& out, const Tensor& self, IntArrayRef dims, Args&&... args)                  \
      ->decltype(self.name(dims, std::forward<Args>(args)...), std::declval<Tensor&>()) {             \
    detail::refuse_grad(#name "_out", self, args...);                                                 \
    return detail::assign_out(out, self.name(dims, std::forward<Args>(args)...), #name "_out");       \
  }                                                                                                   \
  template <typename... Args>                                                                         \
  requires(sizeof...(Args) >= 2) Tensor& name##_outf(Args&&... args) {                                \
    auto all = std::forward_as_tuple(std::forward<Args>(args)...);                                    \
    Tensor& out = std::get<sizeof...(Args) - 1>(all);                                                 \
    return detail::apply_first(                                                                       \
        [&out](const Tensor& self, auto&&... rest) -> Tensor& {                                       \
          detail::refuse_grad(#name "_outf", self, rest...);                                          \
          return detail::assign_out(out, self.name(std::forward<decltype(rest)>(rest)...), #name "_outf"); \
        },                                                                                            \
        all, std::make_index_sequence<sizeof...(Args) - 1>{});                                        \
  }
EMBER_ATEN_OUT(abs)
EMBER_ATEN_OUT(add)
EMBER_ATEN_OUT(sub)
EMBER_ATEN_OUT(mul)
EMBER_ATEN_OUT(div)
EMBER_ATEN_OUT(remainder)
EMBER_ATEN_OUT(fmod)
EMBER_ATEN_OUT(pow)
EMBER_ATEN_OUT(neg)
EMBER_ATEN_OUT(reciprocal)
EMBER_ATEN_OUT(exp)
EMBER_ATEN_OUT(log)
EMBER_ATEN_OUT(log1p)
EMBER_ATEN_OUT(sqrt)
EMBER_ATEN_OUT(rsqrt)
EMBER_ATEN_OUT(square)
EMBER_ATEN_OUT(sin)
EMBER_ATEN_OUT(cos)
EMBER_ATEN_OUT(tanh)
EMBER_ATEN_OUT(sigmoid)
EMBER_ATEN_OUT(relu)
EMBER_ATEN_OUT(erf)
EMBER_ATEN_OUT(erfc)
EMBER_ATEN_OUT(sign)
EMBER_ATEN_OUT(clamp)
EMBER_ATEN_OUT(clamp_min)
EMBER_ATEN_OUT(clamp_max)
EMBER_ATEN_OUT(maximum)
EMBER_ATEN_OUT(minimum)
EMBER_ATEN_OUT(eq)
EMBER_ATEN_OUT(ne)
EMBER_ATEN_OUT(lt)
EMBER_ATEN_OUT(le)
EMBER_ATEN_OUT(gt)
EMBER_ATEN_OUT(ge)
EMBER_ATEN_OUT(logical_and)
EMBER_ATEN_OUT(logical_or)
EMBER_ATEN_OUT(logical_xor)
EMBER_ATEN_OUT(logical_not)
EMBER_ATEN_OUT(masked_fill)
EMBER_ATEN_OUT(gather)
EMBER_ATEN_OUT(scatter_add)
EMBER_ATEN_OUT(index_add)
EMBER_ATEN_OUT(index_select)
EMBER_ATEN_OUT(slice_scatter)
EMBER_ATEN_OUT(sum)
EMBER_ATEN_OUT(mean)
EMBER_ATEN_OUT(amax)
EMBER_ATEN_OUT(amin)
EMBER_ATEN_OUT(argmax)
EMBER_ATEN_OUT(argmin)
EMBER_ATEN_OUT(all)
EMBER_ATEN_OUT(any)
EMBER_ATEN_OUT(logsumexp)
EMBER_ATEN_OUT(var)
EMBER_ATEN_OUT(std)
EMBER_ATEN_OUT(softmax)
EMBER_ATEN_OUT(log_softmax)
EMBER_ATEN_OUT(tril)
EMBER_ATEN_OUT(triu)
EMBER_ATEN_OUT(mm)
EMBER_ATEN_OUT(bmm)
EMBER_ATEN_OUT(matmul)
EMBER_ATEN_OUT(prod)
EMBER_ATEN_OUT(nansum)
EMBER_ATEN_OUT(nanmean)
EMBER_ATEN_OUT(count_nonzero)
EMBER_ATEN_OUT(nonzero)
EMBER_ATEN_OUT(masked_select)
EMBER_ATEN_OUT(outer)
EMBER_ATEN_OUT(ger)
EMBER_ATEN_OUT(dot)
EMBER_ATEN_OUT(mv)
EMBER_ATEN_OUT(diag)
EMBER_ATEN_OUT(trace)
EMBER_ATEN_OUT(tan)
EMBER_ATEN_OUT(asin)
EMBER_ATEN_OUT(acos)
EMBER_ATEN_OUT(atan)
EMBER_ATEN_OUT(sinh)
EMBER_ATEN_OUT(cosh)
EMBER_ATEN_OUT(asinh)
EMBER_ATEN_OUT(acosh)
EMBER_ATEN_OUT(atanh)
EMBER_ATEN_OUT(expm1)
EMBER_ATEN_OUT(exp2)
EMBER_ATEN_OUT(log2)
EMBER_ATEN_OUT(log10)
EMBER_ATEN_OUT(sinc)
EMBER_ATEN_OUT(deg2rad)
EMBER_ATEN_OUT(rad2deg)
EMBER_ATEN_OUT(logit)
EMBER_ATEN_OUT(nan_to_num)
EMBER_ATEN_OUT(floor)
EMBER_ATEN_OUT(ceil)
EMBER_ATEN_OUT(trunc)
EMBER_ATEN_OUT(round)
EMBER_ATEN_OUT(frac)
EMBER_ATEN_OUT(floor_divide)
EMBER_ATEN_OUT(atan2)
EMBER_ATEN_OUT(hypot)
EMBER_ATEN_OUT(logaddexp)
EMBER_ATEN_OUT(logaddexp2)
EMBER_ATEN_OUT(xlogy)
EMBER_ATEN_OUT(float_power)
EMBER_ATEN_OUT(lerp)
EMBER_ATEN_OUT(addcmul)
EMBER_ATEN_OUT(addcdiv)
EMBER_ATEN_OUT(arcsin)
EMBER_ATEN_OUT(arccos)
EMBER_ATEN_OUT(arctan)
EMBER_ATEN_OUT(arcsinh)
EMBER_ATEN_OUT(arccosh)
EMBER_ATEN_OUT(arctanh)
EMBER_ATEN_OUT(arctan2)
EMBER_ATEN_OUT(fix)
EMBER_ATEN_OUT(absolute)
EMBER_ATEN_OUT(negative)
EMBER_ATEN_OUT(clip)
EMBER_ATEN_OUT(multiply)
EMBER_ATEN_OUT(divide)
EMBER_ATEN_OUT(true_divide)
EMBER_ATEN_OUT(subtract)
EMBER_ATEN_OUT(greater)
EMBER_ATEN_OUT(greater_equal)
EMBER_ATEN_OUT(less)
EMBER_ATEN_OUT(less_equal)
EMBER_ATEN_OUT(not_equal)
#undef EMBER_ATEN_OUT

}  // namespace ember::compat_aten
