// <torch/torch.h>, part 5: ATen's out= forms of the factories and random draws, with libtorch's
// argument order (ATen/ops/<name>.h):
//
//   torch::Tensor out = torch::empty({0}, torch::kLong);
//   torch::arange_out(out, 5);          // 0 1 2 3 4, made in out's dtype
//   torch::randint_out(out, 10, {3});   // the numbers torch::randint(10, {3}) gives
//
// As in libtorch, factories make their values in out's dtype and resize out without the deprecation
// warning; the window, tril/triu_indices and scalar_tensor forms make theirs as the function does
// and write them by detail::assign_out (aten_out.h's rules, which the *_like forms there follow too).
// Random forms draw from the generator the function uses.
#pragma once

#include <optional>
#include <string>

#include "ember_compat/aten_out.h"

namespace ember::compat_aten {
namespace detail {

// Factories make their values in out's dtype and on its device.
inline TensorOptions options_of(const Tensor& out) {
  return TensorOptions().dtype(out.scalar_type()).device(out.device());
}
// libtorch's factories resize out without the deprecation warning (zeros_out, rand_out, eye_out...).
inline Tensor& fill_out(Tensor& out, const Tensor& values) {
  NoGradGuard no_grad;
  if (out.sizes() != values.sizes()) out.resize_(values.sizes());
  out.copy_(values);
  return out;
}
// arange, range, linspace, logspace resize out only when the count differs: a (2, 3) out of
// arange_out(out, 6) keeps its shape and takes the values in order. arange and range warn when they
// resize a non-empty out, with libtorch's message.
inline Tensor& fill_sequence_out(Tensor& out, const Tensor& values, const char* warn_as = nullptr) {
  NoGradGuard no_grad;
  if (out.numel() != values.numel()) {
    if (warn_as && out.numel() != 0) {
      const std::string count = std::to_string(values.numel());
      ember::warn(Warning(SourceLocation{warn_as, __FILE__, static_cast<uint32_t>(__LINE__)},
                          "The number of elements in the out tensor of shape " + shape_str(out.sizes()) + " is " +
                              std::to_string(out.numel()) + " which does not match the computed number of elements " +
                              count +
                              ". Note that this may occur as a result of rounding error. The out tensor will "
                              "be resized to a tensor of shape (" +
                              count + ",).",
                          false));
    }
    out.resize_(values.sizes());
  }
  out.copy_(values.reshape(out.sizes()));
  return out;
}

}  // namespace detail

// ---- factories: the values in out's dtype, out resized silently ----
inline Tensor& empty_out(Tensor& out, IntArrayRef size, std::optional<MemoryFormat> = std::nullopt) {
  NoGradGuard no_grad;
  return out.resize_(size);
}
inline Tensor& empty_outf(IntArrayRef size, std::optional<MemoryFormat> memory_format, Tensor& out) {
  return empty_out(out, size, memory_format);
}
inline Tensor& zeros_out(Tensor& out, IntArrayRef size) {
  return detail::fill_out(out, zeros(size, detail::options_of(out)));
}
inline Tensor& zeros_outf(IntArrayRef size, Tensor& out) { return zeros_out(out, size); }
inline Tensor& ones_out(Tensor& out, IntArrayRef size) {
  return detail::fill_out(out, ones(size, detail::options_of(out)));
}
inline Tensor& ones_outf(IntArrayRef size, Tensor& out) { return ones_out(out, size); }
inline Tensor& full_out(Tensor& out, IntArrayRef size, const Scalar& fill_value) {
  return detail::fill_out(out, full(size, fill_value, detail::options_of(out)));
}
inline Tensor& full_outf(IntArrayRef size, const Scalar& fill_value, Tensor& out) {
  return full_out(out, size, fill_value);
}
inline Tensor& eye_out(Tensor& out, int64_t n) { return detail::fill_out(out, eye(n, detail::options_of(out))); }
inline Tensor& eye_outf(int64_t n, Tensor& out) { return eye_out(out, n); }
inline Tensor& eye_out(Tensor& out, int64_t n, int64_t m) {
  return detail::fill_out(out, eye(n, m, detail::options_of(out)));
}
inline Tensor& eye_outf(int64_t n, int64_t m, Tensor& out) { return eye_out(out, n, m); }
inline Tensor& scalar_tensor_out(Tensor& out, const Scalar& s) {
  return detail::assign_out(out, scalar_tensor(s), "scalar_tensor_out");
}
inline Tensor& scalar_tensor_outf(const Scalar& s, Tensor& out) { return scalar_tensor_out(out, s); }
inline Tensor& arange_out(Tensor& out, const Scalar& end) {
  return detail::fill_sequence_out(out, arange(end, detail::options_of(out)), "arange_out");
}
inline Tensor& arange_outf(const Scalar& end, Tensor& out) { return arange_out(out, end); }
inline Tensor& arange_out(Tensor& out, const Scalar& start, const Scalar& end, const Scalar& step = 1) {
  return detail::fill_sequence_out(out, arange(start, end, step, detail::options_of(out)), "arange_out");
}
inline Tensor& arange_outf(const Scalar& start, const Scalar& end, const Scalar& step, Tensor& out) {
  return arange_out(out, start, end, step);
}
inline Tensor& range_out(Tensor& out, const Scalar& start, const Scalar& end, const Scalar& step = 1) {
  return detail::fill_sequence_out(out, range(start, end, step, detail::options_of(out)), "range_out");
}
inline Tensor& range_outf(const Scalar& start, const Scalar& end, const Scalar& step, Tensor& out) {
  return range_out(out, start, end, step);
}
inline Tensor& range_outf(const Scalar& start, const Scalar& end, Tensor& out) { return range_out(out, start, end); }
inline Tensor& linspace_out(Tensor& out, const Scalar& start, const Scalar& end, int64_t steps) {
  return detail::fill_sequence_out(out, linspace(start, end, steps, detail::options_of(out)));
}
inline Tensor& linspace_outf(const Scalar& start, const Scalar& end, int64_t steps, Tensor& out) {
  return linspace_out(out, start, end, steps);
}
inline Tensor& logspace_out(Tensor& out, const Scalar& start, const Scalar& end, int64_t steps, double base = 10.0) {
  return detail::fill_sequence_out(out, logspace(start, end, steps, base, detail::options_of(out)));
}
inline Tensor& logspace_outf(const Scalar& start, const Scalar& end, int64_t steps, double base, Tensor& out) {
  return logspace_out(out, start, end, steps, base);
}
inline Tensor& tril_indices_out(Tensor& out, int64_t row, int64_t col, int64_t offset = 0) {
  return detail::assign_out(out, tril_indices(row, col, offset), "tril_indices_out");
}
inline Tensor& tril_indices_outf(int64_t row, int64_t col, int64_t offset, Tensor& out) {
  return tril_indices_out(out, row, col, offset);
}
inline Tensor& triu_indices_out(Tensor& out, int64_t row, int64_t col, int64_t offset = 0) {
  return detail::assign_out(out, triu_indices(row, col, offset), "triu_indices_out");
}
inline Tensor& triu_indices_outf(int64_t row, int64_t col, int64_t offset, Tensor& out) {
  return triu_indices_out(out, row, col, offset);
}
// Windows: made in the default dtype and written into out, as libtorch's generated out= forms do.
#define EMBER_ATEN_WINDOW_OUT(name)                                                                                \
  template <typename... Args>                                                                                      \
  auto name##_out(Tensor& out, int64_t window_length, Args... args)                                                \
      ->decltype(::at::name(window_length, args...), std::declval<Tensor&>()) {                                    \
    return detail::assign_out(out, ::at::name(window_length, args...), #name "_out");                              \
  }                                                                                                                \
  template <typename... Args>                                                                                      \
  Tensor& name##_outf(int64_t window_length, Args&&... args) {                                                     \
    return detail::call_out_last(                                                                                  \
        [window_length](Tensor& out, auto... rest) -> Tensor& { return name##_out(out, window_length, rest...); }, \
        std::forward<Args>(args)...);                                                                              \
  }
EMBER_ATEN_WINDOW_OUT(bartlett_window)
EMBER_ATEN_WINDOW_OUT(blackman_window)
EMBER_ATEN_WINDOW_OUT(hamming_window)
EMBER_ATEN_WINDOW_OUT(hann_window)
#undef EMBER_ATEN_WINDOW_OUT

// ---- random draws: the numbers Ember's generator gives the functional form, in out's dtype ----
inline Tensor& rand_out(Tensor& out, IntArrayRef size, OptGenerator generator = std::nullopt) {
  const TensorOptions options = detail::options_of(out);
  return detail::fill_out(out, generator ? rand(size, *generator, options) : rand(size, options));
}
inline Tensor& rand_outf(IntArrayRef size, OptGenerator generator, Tensor& out) {
  return rand_out(out, size, generator);
}
inline Tensor& rand_outf(IntArrayRef size, Tensor& out) { return rand_out(out, size); }
inline Tensor& randn_out(Tensor& out, IntArrayRef size, OptGenerator generator = std::nullopt) {
  const TensorOptions options = detail::options_of(out);
  return detail::fill_out(out, generator ? randn(size, *generator, options) : randn(size, options));
}
inline Tensor& randn_outf(IntArrayRef size, OptGenerator generator, Tensor& out) {
  return randn_out(out, size, generator);
}
inline Tensor& randn_outf(IntArrayRef size, Tensor& out) { return randn_out(out, size); }
inline Tensor& randint_out(Tensor& out, int64_t low, int64_t high, IntArrayRef size,
                           OptGenerator generator = std::nullopt) {
  const TensorOptions options = detail::options_of(out);
  return detail::fill_out(
      out, generator ? randint(low, high, size, *generator, options) : randint(low, high, size, options));
}
inline Tensor& randint_out(Tensor& out, int64_t high, IntArrayRef size, OptGenerator generator = std::nullopt) {
  return randint_out(out, 0, high, size, generator);
}
inline Tensor& randint_outf(int64_t high, IntArrayRef size, Tensor& out) { return randint_out(out, high, size); }
inline Tensor& randint_outf(int64_t high, IntArrayRef size, OptGenerator generator, Tensor& out) {
  return randint_out(out, high, size, generator);
}
inline Tensor& randint_outf(int64_t low, int64_t high, IntArrayRef size, Tensor& out) {
  return randint_out(out, low, high, size);
}
inline Tensor& randint_outf(int64_t low, int64_t high, IntArrayRef size, OptGenerator generator, Tensor& out) {
  return randint_out(out, low, high, size, generator);
}
inline Tensor& randperm_out(Tensor& out, int64_t n, OptGenerator generator = std::nullopt) {
  const TensorOptions options = detail::options_of(out);
  return detail::fill_out(out, generator ? randperm(n, *generator, options) : randperm(n, options));
}
inline Tensor& randperm_outf(int64_t n, OptGenerator generator, Tensor& out) { return randperm_out(out, n, generator); }
inline Tensor& randperm_outf(int64_t n, Tensor& out) { return randperm_out(out, n); }
// bernoulli_out(out, p): a draw per probability in p, out resized silently as libtorch's is.
inline Tensor& bernoulli_out(Tensor& out, const Tensor& self, OptGenerator generator = std::nullopt) {
  detail::refuse_grad("bernoulli_out", self);
  return detail::fill_out(out, bernoulli(self, generator));
}
inline Tensor& bernoulli_outf(const Tensor& self, OptGenerator generator, Tensor& out) {
  return bernoulli_out(out, self, generator);
}
inline Tensor& bernoulli_out(Tensor& out, const Tensor& self, double p, OptGenerator generator = std::nullopt) {
  detail::refuse_grad("bernoulli_out", self);
  return detail::assign_out(out, bernoulli(self, p, generator), "bernoulli_out");
}
inline Tensor& bernoulli_outf(const Tensor& self, double p, OptGenerator generator, Tensor& out) {
  return bernoulli_out(out, self, p, generator);
}
// normal_out: out takes the broadcast shape of mean and std, draws N(0, 1) and becomes
// out * std + mean, as libtorch's normal_out does.
namespace detail {
inline Tensor& normal_into(Tensor& out, const Tensor& mean, const Tensor& std, OptGenerator generator) {
  refuse_grad("normal_out", mean, std);
  assign_out(out, zeros_like(mean + std, options_of(out)), "normal_out");
  NoGradGuard no_grad;
  return out.normal_(0, 1, generator).mul_(std).add_(mean);
}
}  // namespace detail
inline Tensor& normal_out(Tensor& out, const Tensor& mean, double std = 1, OptGenerator generator = std::nullopt) {
  return detail::normal_into(out, mean, scalar_tensor(std, mean.options()), generator);
}
inline Tensor& normal_outf(const Tensor& mean, double std, OptGenerator generator, Tensor& out) {
  return normal_out(out, mean, std, generator);
}
inline Tensor& normal_out(Tensor& out, double mean, const Tensor& std, OptGenerator generator = std::nullopt) {
  return detail::normal_into(out, scalar_tensor(mean, std.options()), std, generator);
}
inline Tensor& normal_outf(double mean, const Tensor& std, OptGenerator generator, Tensor& out) {
  return normal_out(out, mean, std, generator);
}
inline Tensor& normal_out(Tensor& out, const Tensor& mean, const Tensor& std, OptGenerator generator = std::nullopt) {
  return detail::normal_into(out, mean, std, generator);
}
inline Tensor& normal_outf(const Tensor& mean, const Tensor& std, OptGenerator generator, Tensor& out) {
  return normal_out(out, mean, std, generator);
}
// normal_out(out, self, mean, std): self's shape and dtype, as self.normal_(mean, std) on a copy.
inline Tensor& normal_out(Tensor& out, const Tensor& self, double mean = 0, double std = 1,
                          OptGenerator generator = std::nullopt) {
  detail::refuse_grad("normal_out", self);
  return detail::assign_out(out, empty_like(self).normal_(mean, std, generator), "normal_out");
}
inline Tensor& normal_outf(const Tensor& self, double mean, double std, OptGenerator generator, Tensor& out) {
  return normal_out(out, self, mean, std, generator);
}
inline Tensor& normal_out(Tensor& out, double mean, double std, IntArrayRef size,
                          OptGenerator generator = std::nullopt) {
  NoGradGuard no_grad;
  out.resize_(size);
  return out.normal_(mean, std, generator);
}
inline Tensor& normal_outf(double mean, double std, IntArrayRef size, OptGenerator generator, Tensor& out) {
  return normal_out(out, mean, std, size, generator);
}

}  // namespace ember::compat_aten
