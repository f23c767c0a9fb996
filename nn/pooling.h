// Pooling, as torch::nn's modules and torch::nn::functional's functions: MaxPool1d/2d, AvgPool1d/2d,
// AdaptiveAvgPool2d, AdaptiveMaxPool2d, each with PyTorch's options (ceil_mode, padding, dilation,
// count_include_pad, divisor_override) and the argmax indices where PyTorch gives them.
//
//   namespace F = ember::nn::functional;
//   ember::nn::MaxPool2d pool(ember::nn::MaxPool2dOptions(3).stride(2).padding(1));
//   ember::Tensor y = pool(x);                                   // x (N, C, H, W) or (C, H, W)
//   auto [m, idx] = F::max_pool2d_with_indices(x, F::MaxPool2dFuncOptions({2, 3}).ceil_mode(true));
//   ember::Tensor g = F::adaptive_avg_pool2d(x, F::AdaptiveAvgPool2dFuncOptions({1, 1}));  // global average
//
// The 1-d forms are the 2-d ones over a plane of height 1. The kernels and their backward are in
// autograd/pool.h; here are the checks (PyTorch's, with the op and the values in the message), the
// output sizes and the reshapes. Not here: fractional and LP pooling, 3-d pooling, max_unpool, and
// adaptive output sizes of None.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <tuple>

#include "nn/expanding_array.h"
#include "nn/module.h"
#include "nn/options.h"

namespace ember::nn {

template <size_t D>
struct MaxPoolOptions {
  using Size = ExpandingArray<D>;
  MaxPoolOptions(ExpandingArray<D> kernel_size) : kernel_size_(kernel_size), stride_(kernel_size) {}
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  // Defaults to kernel_size.
  EMBER_ARG(ExpandingArray<D>, stride);
  // Implicit -inf on both sides; at most half the kernel.
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
  // Rounds the output size up: a last window may start in the right padding.
  EMBER_ARG(bool, ceil_mode) = false;
};
using MaxPool1dOptions = MaxPoolOptions<1>;
using MaxPool2dOptions = MaxPoolOptions<2>;

template <size_t D>
struct AvgPoolOptions {
  using Size = ExpandingArray<D>;
  AvgPoolOptions(ExpandingArray<D> kernel_size) : kernel_size_(kernel_size), stride_(kernel_size) {}
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride);
  // Implicit zeros on both sides; at most half the kernel.
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  EMBER_ARG(bool, ceil_mode) = false;
  // Divide by the window's size with its padding (true) or by the input elements it covers.
  EMBER_ARG(bool, count_include_pad) = true;
  // Divide by this instead (not 0).
  EMBER_ARG(std::optional<int64_t>, divisor_override) = std::nullopt;
};
using AvgPool1dOptions = AvgPoolOptions<1>;
using AvgPool2dOptions = AvgPoolOptions<2>;

template <size_t D>
struct AdaptivePoolOptions {
  using Size = ExpandingArray<D>;
  AdaptivePoolOptions(ExpandingArray<D> output_size) : output_size_(output_size) {}
  EMBER_ARG(ExpandingArray<D>, output_size);
};
using AdaptiveAvgPool2dOptions = AdaptivePoolOptions<2>;
using AdaptiveMaxPool2dOptions = AdaptivePoolOptions<2>;

namespace functional {

using MaxPool1dFuncOptions = MaxPool1dOptions;
using MaxPool2dFuncOptions = MaxPool2dOptions;
using AvgPool1dFuncOptions = AvgPool1dOptions;
using AvgPool2dFuncOptions = AvgPool2dOptions;
using AdaptiveAvgPool2dFuncOptions = AdaptiveAvgPool2dOptions;
using AdaptiveMaxPool2dFuncOptions = AdaptiveMaxPool2dOptions;

// input (N, C, L) or (C, L) -> (N, C, OL) or (C, OL); indices (int64) are positions in L.
Tensor max_pool1d(const Tensor& input, const MaxPool1dFuncOptions& options);
std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input, const MaxPool1dFuncOptions& options);
// input (N, C, H, W) or (C, H, W) -> (N, C, OH, OW) or (C, OH, OW); indices are h * W + w.
Tensor max_pool2d(const Tensor& input, const MaxPool2dFuncOptions& options);
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, const MaxPool2dFuncOptions& options);
Tensor avg_pool1d(const Tensor& input, const AvgPool1dFuncOptions& options);
Tensor avg_pool2d(const Tensor& input, const AvgPool2dFuncOptions& options);
// Output o of a dim L -> OL pools [floor(o L / OL), ceil((o + 1) L / OL)).
Tensor adaptive_avg_pool2d(const Tensor& input, const AdaptiveAvgPool2dFuncOptions& options);
Tensor adaptive_max_pool2d(const Tensor& input, const AdaptiveMaxPool2dFuncOptions& options);
std::tuple<Tensor, Tensor> adaptive_max_pool2d_with_indices(const Tensor& input,
                                                            const AdaptiveMaxPool2dFuncOptions& options);

}  // namespace functional

// The modules: options, forward, and libtorch's printout. Pooling has no parameters.
#define EMBER_POOL_MODULE(Name, OptionsType)                                                           \
  class Name##Impl : public Module {                                                                   \
   public:                                                                                             \
    explicit Name##Impl(const OptionsType& options_) : options(options_) {}                            \
    explicit Name##Impl(const OptionsType::Size& size) : options(OptionsType(size)) {}                 \
    Tensor forward(const Tensor& input);                                                               \
    void pretty_print(std::ostream& stream) const override;                                            \
    std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override { \
      return detail::clone_with_options(*this, device);                                                \
    }                                                                                                  \
    OptionsType options;                                                                               \
    EMBER_POOL_MODULE_EXTRA                                                                            \
  };                                                                                                   \
  EMBER_MODULE(Name)

// Max pooling modules also give the indices, as libtorch's forward_with_indices.
#define EMBER_POOL_MODULE_EXTRA std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
EMBER_POOL_MODULE(MaxPool1d, MaxPool1dOptions);
EMBER_POOL_MODULE(MaxPool2d, MaxPool2dOptions);
EMBER_POOL_MODULE(AdaptiveMaxPool2d, AdaptiveMaxPool2dOptions);
#undef EMBER_POOL_MODULE_EXTRA
#define EMBER_POOL_MODULE_EXTRA
EMBER_POOL_MODULE(AvgPool1d, AvgPool1dOptions);
EMBER_POOL_MODULE(AvgPool2d, AvgPool2dOptions);
EMBER_POOL_MODULE(AdaptiveAvgPool2d, AdaptiveAvgPool2dOptions);
#undef EMBER_POOL_MODULE_EXTRA
#undef EMBER_POOL_MODULE

}  // namespace ember::nn
