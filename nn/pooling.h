// Pooling, as torch::nn's modules and torch::nn::functional's functions: MaxPool1d/2d/3d,
// AvgPool1d/2d/3d, AdaptiveAvgPool1d/2d/3d, AdaptiveMaxPool1d/2d/3d and LPPool1d/2d, each with
// PyTorch's options (ceil_mode, padding, dilation, count_include_pad, divisor_override) and the argmax
// indices where PyTorch gives them.
//
//   namespace F = ember::nn::functional;
//   ember::nn::MaxPool2d pool(ember::nn::MaxPool2dOptions(3).stride(2).padding(1));
//   ember::Tensor y = pool(x);                                   // x (N, C, H, W) or (C, H, W)
//   auto [m, idx] = F::max_pool2d_with_indices(x, F::MaxPool2dFuncOptions({2, 3}).ceil_mode(true));
//   ember::Tensor g = F::adaptive_avg_pool2d(x, F::AdaptiveAvgPool2dFuncOptions({1, 1}));  // global average
//
// The 1-d forms are the 2-d ones over a plane of height 1; the 3-d ones are separable: the 2-d
// pooling of each depth slice, then a 1-d pooling along the depth (a window's max or sum is the max
// or sum of its slices' ones, and its divisor the product of the per-dim ones). The kernels and their
// backward are in autograd/pool.h; here are the checks (PyTorch's, with the op and the values in the
// message), the output sizes and the reshapes. max_unpool is a scatter_add into zeros; fractional
// max pooling gathers its windows (starts computed on the host) and takes their max. Not here:
// adaptive output sizes of None.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <tuple>
#include <vector>

#include "nn/expanding_array.h"
#include "nn/any_module.h"
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
using MaxPool3dOptions = MaxPoolOptions<3>;

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
using AvgPool3dOptions = AvgPoolOptions<3>;

// The output size of an adaptive pooling; the 2-d and 3-d ones may leave a size None (std::nullopt),
// which keeps the input's: AdaptiveAvgPool2dOptions({std::nullopt, 1}).
template <typename output_size_t>
struct AdaptiveAvgPoolOptions {
  using Size = output_size_t;
  AdaptiveAvgPoolOptions(output_size_t output_size) : output_size_(output_size) {}
  EMBER_ARG(output_size_t, output_size);
};
template <typename output_size_t>
struct AdaptiveMaxPoolOptions {
  using Size = output_size_t;
  AdaptiveMaxPoolOptions(output_size_t output_size) : output_size_(output_size) {}
  EMBER_ARG(output_size_t, output_size);
};
using AdaptiveAvgPool1dOptions = AdaptiveAvgPoolOptions<ExpandingArray<1>>;
using AdaptiveAvgPool2dOptions = AdaptiveAvgPoolOptions<ExpandingArrayWithOptionalElem<2>>;
using AdaptiveAvgPool3dOptions = AdaptiveAvgPoolOptions<ExpandingArrayWithOptionalElem<3>>;
using AdaptiveMaxPool1dOptions = AdaptiveMaxPoolOptions<ExpandingArray<1>>;
using AdaptiveMaxPool2dOptions = AdaptiveMaxPoolOptions<ExpandingArrayWithOptionalElem<2>>;
using AdaptiveMaxPool3dOptions = AdaptiveMaxPoolOptions<ExpandingArrayWithOptionalElem<3>>;

// Power-average pooling: (sum of x^p over the window)^(1/p), no padding.
template <size_t D>
struct LPPoolOptions {
  LPPoolOptions(double norm_type, ExpandingArray<D> kernel_size)
      : norm_type_(norm_type), kernel_size_(kernel_size), stride_(kernel_size) {}
  EMBER_ARG(double, norm_type);
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  // Defaults to kernel_size.
  EMBER_ARG(ExpandingArray<D>, stride);
  EMBER_ARG(bool, ceil_mode) = false;
};
using LPPool1dOptions = LPPoolOptions<1>;
using LPPool2dOptions = LPPoolOptions<2>;

// The inverse of max pooling: the values put back at their indices, zeros elsewhere.
template <size_t D>
struct MaxUnpoolOptions {
  using Size = ExpandingArray<D>;
  MaxUnpoolOptions(ExpandingArray<D> kernel_size) : kernel_size_(kernel_size), stride_(kernel_size) {}
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  // Defaults to kernel_size.
  EMBER_ARG(ExpandingArray<D>, stride);
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
};
using MaxUnpool1dOptions = MaxUnpoolOptions<1>;
using MaxUnpool2dOptions = MaxUnpoolOptions<2>;
using MaxUnpool3dOptions = MaxUnpoolOptions<3>;

// Fractional max pooling (Graham, 2014): windows of kernel_size at pseudo-random, increasing starts,
// as many as output_size (or input size * output_ratio). _random_samples (N, C, D) in [0, 1) fixes
// the starts (for 2-d: [.., 0] the width's, [.., 1] the height's; for 3-d: depth, height, width);
// undefined, they are drawn with ember::rand as PyTorch draws them.
template <size_t D>
struct FractionalMaxPoolOptions {
  using Size = ExpandingArray<D>;
  using ExpandingArrayDouble = ExpandingArray<D, double>;
  FractionalMaxPoolOptions(ExpandingArray<D> kernel_size) : kernel_size_(kernel_size) {}
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(std::optional<ExpandingArray<D>>, output_size) = std::nullopt;
  EMBER_ARG(std::optional<ExpandingArrayDouble>, output_ratio) = std::nullopt;
  EMBER_ARG(Tensor, _random_samples) = {};
};
using FractionalMaxPool2dOptions = FractionalMaxPoolOptions<2>;
using FractionalMaxPool3dOptions = FractionalMaxPoolOptions<3>;

namespace functional {

using FractionalMaxPool2dFuncOptions = FractionalMaxPool2dOptions;
using FractionalMaxPool3dFuncOptions = FractionalMaxPool3dOptions;
// input (N, C, H, W) or (C, H, W) -> (N, C, OH, OW); indices h * W + w, the first maximum of each window.
Tensor fractional_max_pool2d(const Tensor& input, const FractionalMaxPool2dFuncOptions& options);
std::tuple<Tensor, Tensor> fractional_max_pool2d_with_indices(const Tensor& input,
                                                              const FractionalMaxPool2dFuncOptions& options);
// input (N, C, D, H, W) or (C, D, H, W) -> (N, C, OD, OH, OW); indices (d * H + h) * W + w.
Tensor fractional_max_pool3d(const Tensor& input, const FractionalMaxPool3dFuncOptions& options);
std::tuple<Tensor, Tensor> fractional_max_pool3d_with_indices(const Tensor& input,
                                                              const FractionalMaxPool3dFuncOptions& options);

template <size_t D>
struct MaxUnpoolFuncOptions {
  MaxUnpoolFuncOptions(ExpandingArray<D> kernel_size) : kernel_size_(kernel_size), stride_(kernel_size) {}
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride);
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  // The output's spatial sizes (D values, or D + 2 with the batch and channel ones), each within
  // stride of the default (in - 1) * stride + kernel_size - 2 * padding.
  EMBER_ARG(std::optional<std::vector<int64_t>>, output_size) = std::nullopt;
};
using MaxUnpool1dFuncOptions = MaxUnpoolFuncOptions<1>;
using MaxUnpool2dFuncOptions = MaxUnpoolFuncOptions<2>;
using MaxUnpool3dFuncOptions = MaxUnpoolFuncOptions<3>;

// input (N, C, *spatial) or (C, *spatial) and indices of its shape (positions in each output plane,
// as max_poolNd_with_indices gives them) -> (N, C, *output_size), zero where no index points. An
// index given twice (overlapping windows) keeps its last value, as PyTorch (which writes in order).
// Backward: the output gradient gathered at the indices, as PyTorch's.
Tensor max_unpool1d(const Tensor& input, const Tensor& indices, const MaxUnpool1dFuncOptions& options);
Tensor max_unpool2d(const Tensor& input, const Tensor& indices, const MaxUnpool2dFuncOptions& options);
Tensor max_unpool3d(const Tensor& input, const Tensor& indices, const MaxUnpool3dFuncOptions& options);

using MaxPool1dFuncOptions = MaxPool1dOptions;
using MaxPool2dFuncOptions = MaxPool2dOptions;
using AvgPool1dFuncOptions = AvgPool1dOptions;
using AvgPool2dFuncOptions = AvgPool2dOptions;
using AdaptiveAvgPool2dFuncOptions = AdaptiveAvgPool2dOptions;
using AdaptiveMaxPool2dFuncOptions = AdaptiveMaxPool2dOptions;
using MaxPool3dFuncOptions = MaxPool3dOptions;
using AvgPool3dFuncOptions = AvgPool3dOptions;
using AdaptiveAvgPool1dFuncOptions = AdaptiveAvgPool1dOptions;
using AdaptiveAvgPool3dFuncOptions = AdaptiveAvgPool3dOptions;
using AdaptiveMaxPool1dFuncOptions = AdaptiveMaxPool1dOptions;
using AdaptiveMaxPool3dFuncOptions = AdaptiveMaxPool3dOptions;
using LPPool1dFuncOptions = LPPool1dOptions;
using LPPool2dFuncOptions = LPPool2dOptions;

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
Tensor adaptive_avg_pool1d(const Tensor& input, const AdaptiveAvgPool1dFuncOptions& options);
Tensor adaptive_max_pool1d(const Tensor& input, const AdaptiveMaxPool1dFuncOptions& options);
std::tuple<Tensor, Tensor> adaptive_max_pool1d_with_indices(const Tensor& input,
                                                            const AdaptiveMaxPool1dFuncOptions& options);

// input (N, C, D, H, W) or (C, D, H, W) -> (N, C, OD, OH, OW) or (C, OD, OH, OW); indices are
// (d * H + h) * W + w.
Tensor max_pool3d(const Tensor& input, const MaxPool3dFuncOptions& options);
std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& input, const MaxPool3dFuncOptions& options);
Tensor avg_pool3d(const Tensor& input, const AvgPool3dFuncOptions& options);
Tensor adaptive_avg_pool3d(const Tensor& input, const AdaptiveAvgPool3dFuncOptions& options);
Tensor adaptive_max_pool3d(const Tensor& input, const AdaptiveMaxPool3dFuncOptions& options);
std::tuple<Tensor, Tensor> adaptive_max_pool3d_with_indices(const Tensor& input,
                                                            const AdaptiveMaxPool3dFuncOptions& options);

// (avg_pool(x^p) * window size)^(1/p), as PyTorch composes it (a window whose sum is negative gives 0).
Tensor lp_pool1d(const Tensor& input, const LPPool1dFuncOptions& options);
Tensor lp_pool2d(const Tensor& input, const LPPool2dFuncOptions& options);

}  // namespace functional

// The modules: options, forward, and libtorch's printout. Pooling has no parameters.
#define EMBER_POOL_MODULE(Name, OptionsType)                                                          \
  class Name##Impl : public Module {                                                                  \
   public:                                                                                            \
    explicit Name##Impl(const OptionsType& options_) : options(options_) {}                           \
    explicit Name##Impl(const OptionsType::Size& size) : options(OptionsType(size)) {}                \
    Tensor forward(const Tensor& input);                                                              \
    void pretty_print(std::ostream& stream) const override;                                           \
    std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override; \
    OptionsType options;                                                                              \
    EMBER_POOL_MODULE_EXTRA                                                                           \
  };                                                                                                  \
  EMBER_MODULE(Name)

// Max pooling modules also give the indices, as libtorch's forward_with_indices.
#define EMBER_POOL_MODULE_EXTRA std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
EMBER_POOL_MODULE(MaxPool1d, MaxPool1dOptions);
EMBER_POOL_MODULE(MaxPool2d, MaxPool2dOptions);
EMBER_POOL_MODULE(AdaptiveMaxPool2d, AdaptiveMaxPool2dOptions);
EMBER_POOL_MODULE(MaxPool3d, MaxPool3dOptions);
EMBER_POOL_MODULE(AdaptiveMaxPool1d, AdaptiveMaxPool1dOptions);
EMBER_POOL_MODULE(AdaptiveMaxPool3d, AdaptiveMaxPool3dOptions);
#undef EMBER_POOL_MODULE_EXTRA
#define EMBER_POOL_MODULE_EXTRA
EMBER_POOL_MODULE(AvgPool1d, AvgPool1dOptions);
EMBER_POOL_MODULE(AvgPool2d, AvgPool2dOptions);
EMBER_POOL_MODULE(AdaptiveAvgPool2d, AdaptiveAvgPool2dOptions);
EMBER_POOL_MODULE(AvgPool3d, AvgPool3dOptions);
EMBER_POOL_MODULE(AdaptiveAvgPool1d, AdaptiveAvgPool1dOptions);
EMBER_POOL_MODULE(AdaptiveAvgPool3d, AdaptiveAvgPool3dOptions);
#undef EMBER_POOL_MODULE_EXTRA
#undef EMBER_POOL_MODULE

// FractionalMaxPool2d / 3d: the options' checks when built, as libtorch's reset().
#define EMBER_FRACTIONAL_MAX_POOL_MODULE(D)                                                           \
  class FractionalMaxPool##D##dImpl : public Module {                                                 \
   public:                                                                                            \
    explicit FractionalMaxPool##D##dImpl(const FractionalMaxPool##D##dOptions& options_);             \
    Tensor forward(const Tensor& input);                                                              \
    std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);                             \
    void pretty_print(std::ostream& stream) const override;                                           \
    std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override; \
    FractionalMaxPool##D##dOptions options;                                                           \
  };                                                                                                  \
  EMBER_MODULE(FractionalMaxPool##D##d)
EMBER_FRACTIONAL_MAX_POOL_MODULE(2);
EMBER_FRACTIONAL_MAX_POOL_MODULE(3);
#undef EMBER_FRACTIONAL_MAX_POOL_MODULE

// MaxUnpool1d / 2d / 3d: forward(input, indices, output_size).
template <size_t D>
class MaxUnpoolImpl : public Module {
 public:
  explicit MaxUnpoolImpl(const MaxUnpoolOptions<D>& options_) : options(options_) {}
  explicit MaxUnpoolImpl(const ExpandingArray<D>& kernel_size) : options(kernel_size) {}
  Tensor forward(const Tensor& input, const Tensor& indices,
                 const std::optional<std::vector<int64_t>>& output_size = std::nullopt);
  EMBER_FORWARD_HAS_DEFAULT_ARGS({2, AnyValue(std::optional<std::vector<int64_t>>())})
  void pretty_print(std::ostream& stream) const override;

  MaxUnpoolOptions<D> options;
};
#define EMBER_MAX_UNPOOL_MODULE(D)                                                                    \
  class MaxUnpool##D##dImpl : public MaxUnpoolImpl<D> {                                               \
   public:                                                                                            \
    using MaxUnpoolImpl<D>::MaxUnpoolImpl;                                                            \
    std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override; \
  };                                                                                                  \
  EMBER_MODULE(MaxUnpool##D##d)
EMBER_MAX_UNPOOL_MODULE(1);
EMBER_MAX_UNPOOL_MODULE(2);
EMBER_MAX_UNPOOL_MODULE(3);
#undef EMBER_MAX_UNPOOL_MODULE

// LPPool1d / LPPool2d: built from their options (norm_type and kernel_size).
#define EMBER_LP_POOL_MODULE(D)                                                                       \
  class LPPool##D##dImpl : public Module {                                                            \
   public:                                                                                            \
    explicit LPPool##D##dImpl(const LPPool##D##dOptions& options_) : options(options_) {}             \
    Tensor forward(const Tensor& input);                                                              \
    void pretty_print(std::ostream& stream) const override;                                           \
    std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override; \
    LPPool##D##dOptions options;                                                                      \
  };                                                                                                  \
  EMBER_MODULE(LPPool##D##d)
EMBER_LP_POOL_MODULE(1);
EMBER_LP_POOL_MODULE(2);
#undef EMBER_LP_POOL_MODULE

}  // namespace ember::nn
