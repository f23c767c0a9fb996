// Convolution layers and functions, as torch::nn::Conv1d/2d/3d, ConvTranspose1d/2d/3d and
// torch::nn::functional::conv1d/2d/3d, conv_transpose1d/2d/3d, unfold, fold.
//
//   namespace nn = ember::nn;
//   namespace F = ember::nn::functional;
//   nn::Conv2d conv(nn::Conv2dOptions(1, 32, 3).stride(1).padding(ember::kSame));
//   ember::Tensor y = conv(ember::randn({64, 1, 28, 28}));                       // (64, 32, 28, 28)
//   ember::Tensor z = F::conv2d(y, w, F::Conv2dFuncOptions().stride(2).groups(4));
//   ember::Tensor cols = F::unfold(y, F::UnfoldFuncOptions({3, 3}).padding(1));  // (64, 32*9, 784)
//   std::cout << *conv;   // Conv2d(1, 32, kernel_size=[3, 3], stride=[1, 1], padding='same')
//
// The layers hold weight and bias and draw them as PyTorch does; the functions are ember::conv2d and
// friends (autograd/conv.h) with libtorch's option classes. A layer's padding_mode kReflect, kReplicate or
// kCircular pads the input with F::pad in that mode and convolves it unpadded, as PyTorch does;
// ConvTranspose takes only kZeros (PyTorch's rule). ConvTranspose's forward takes an output_size, which
// chooses the output_padding (PyTorch's _output_padding).
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>

#include "autograd/conv.h"
#include "nn/any_module.h"
#include "nn/expanding_array.h"
#include "nn/module.h"
#include "nn/options.h"

namespace ember::nn {

// Padding of a convolution: D values, or kValid (none), or kSame (the output keeps the input's size;
// stride 1 only). Also settable as "valid" / "same".
template <size_t D>
using conv_padding_t = std::variant<ExpandingArray<D>, enumtype::kValid, enumtype::kSame>;
using conv_padding_mode_t =
    std::variant<enumtype::kZeros, enumtype::kReflect, enumtype::kReplicate, enumtype::kCircular>;

namespace detail {
// "same" / "valid" as the padding variant; any other string is an error naming `op`.
template <size_t D>
conv_padding_t<D> padding_from_string(const std::string& padding) {
  if (padding == "same") return enumtype::kSame{};
  if (padding == "valid") return enumtype::kValid{};
  EMBER_FAIL("Invalid padding string '{}', should be one of ['valid', 'same']", padding);
}
}  // namespace detail

// Adds the setters libtorch programs also use for padding: a braced list and a string.
#define EMBER_CONV_PADDING_SETTERS(D)                                                    \
 public:                                                                                 \
  auto padding(std::initializer_list<int64_t> values)->decltype(*this) {                 \
    return padding(conv_padding_t<D>(ExpandingArray<D>(values)));                        \
  }                                                                                      \
  template <typename S>                                                                  \
  requires std::is_convertible_v<S, std::string_view>                                    \
  auto padding(const S& name)->decltype(*this) {                                         \
    return padding(detail::padding_from_string<D>(std::string(std::string_view(name)))); \
  }

// The options of Conv1d / Conv2d / Conv3d (libtorch's ConvOptions<D>).
template <size_t D>
struct ConvOptions {
  using padding_t = conv_padding_t<D>;
  using padding_mode_t = conv_padding_mode_t;
  ConvOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  EMBER_ARG(int64_t, in_channels);
  EMBER_ARG(int64_t, out_channels);
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  EMBER_ARG(padding_t, padding) = ExpandingArray<D>(0);
  EMBER_CONV_PADDING_SETTERS(D)
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
  EMBER_ARG(int64_t, groups) = 1;
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(padding_mode_t, padding_mode) = enumtype::kZeros{};
};
using Conv1dOptions = ConvOptions<1>;
using Conv2dOptions = ConvOptions<2>;
using Conv3dOptions = ConvOptions<3>;

// The options of ConvTranspose1d / 2d / 3d (libtorch's ConvTransposeOptions<D>).
template <size_t D>
struct ConvTransposeOptions {
  using padding_mode_t = conv_padding_mode_t;
  ConvTransposeOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  EMBER_ARG(int64_t, in_channels);
  EMBER_ARG(int64_t, out_channels);
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  EMBER_ARG(ExpandingArray<D>, output_padding) = 0;  // added to one side of the output
  EMBER_ARG(int64_t, groups) = 1;
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
  EMBER_ARG(padding_mode_t, padding_mode) = enumtype::kZeros{};
};
using ConvTranspose1dOptions = ConvTransposeOptions<1>;
using ConvTranspose2dOptions = ConvTransposeOptions<2>;
using ConvTranspose3dOptions = ConvTransposeOptions<3>;

namespace functional {

// The options of F::conv1d / conv2d / conv3d (libtorch's ConvFuncOptions<D>).
template <size_t D>
struct ConvFuncOptions {
  using padding_t = conv_padding_t<D>;
  EMBER_ARG(Tensor, bias) = {};
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  EMBER_ARG(padding_t, padding) = ExpandingArray<D>(0);
  EMBER_CONV_PADDING_SETTERS(D)
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
  EMBER_ARG(int64_t, groups) = 1;
};
using Conv1dFuncOptions = ConvFuncOptions<1>;
using Conv2dFuncOptions = ConvFuncOptions<2>;
using Conv3dFuncOptions = ConvFuncOptions<3>;

// input (N, C_in, L), weight (C_out, C_in / groups, k) -> (N, C_out, L_out)
Tensor conv1d(const Tensor& input, const Tensor& weight, const Conv1dFuncOptions& options = {});
// input (N, C_in, H, W), weight (C_out, C_in / groups, kh, kw) -> (N, C_out, H_out, W_out)
Tensor conv2d(const Tensor& input, const Tensor& weight, const Conv2dFuncOptions& options = {});
// input (N, C_in, D, H, W), weight (C_out, C_in / groups, kd, kh, kw) -> (N, C_out, D_out, H_out, W_out)
Tensor conv3d(const Tensor& input, const Tensor& weight, const Conv3dFuncOptions& options = {});

// The options of F::conv_transpose1d / 2d / 3d (libtorch's ConvTransposeFuncOptions<D>).
template <size_t D>
struct ConvTransposeFuncOptions {
  EMBER_ARG(Tensor, bias) = {};
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  EMBER_ARG(ExpandingArray<D>, output_padding) = 0;
  EMBER_ARG(int64_t, groups) = 1;
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
};
using ConvTranspose1dFuncOptions = ConvTransposeFuncOptions<1>;
using ConvTranspose2dFuncOptions = ConvTransposeFuncOptions<2>;
using ConvTranspose3dFuncOptions = ConvTransposeFuncOptions<3>;

// input (N, C_in, L), weight (C_in, C_out / groups, k) -> (N, C_out, L_out)
Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const ConvTranspose1dFuncOptions& options = {});
// input (N, C_in, H, W), weight (C_in, C_out / groups, kh, kw) -> (N, C_out, H_out, W_out)
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const ConvTranspose2dFuncOptions& options = {});
// input (N, C_in, D, H, W), weight (C_in, C_out / groups, kd, kh, kw) -> (N, C_out, D_out, H_out, W_out)
Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const ConvTranspose3dFuncOptions& options = {});

struct UnfoldFuncOptions {
  UnfoldFuncOptions(ExpandingArray<2> kernel_size) : kernel_size_(kernel_size) {}
  EMBER_ARG(ExpandingArray<2>, kernel_size);
  EMBER_ARG(ExpandingArray<2>, dilation) = 1;
  EMBER_ARG(ExpandingArray<2>, padding) = 0;
  EMBER_ARG(ExpandingArray<2>, stride) = 1;
};
// im2col: input (N, C, H, W) -> (N, C*kh*kw, L), one column per block.
Tensor unfold(const Tensor& input, const UnfoldFuncOptions& options);

struct FoldFuncOptions {
  FoldFuncOptions(ExpandingArray<2> output_size, ExpandingArray<2> kernel_size)
      : output_size_(output_size), kernel_size_(kernel_size) {}
  EMBER_ARG(ExpandingArray<2>, output_size);
  EMBER_ARG(ExpandingArray<2>, kernel_size);
  EMBER_ARG(ExpandingArray<2>, dilation) = 1;
  EMBER_ARG(ExpandingArray<2>, padding) = 0;
  EMBER_ARG(ExpandingArray<2>, stride) = 1;
};
// col2im: input (N, C*kh*kw, L) -> (N, C, output_size), overlapping blocks summed.
Tensor fold(const Tensor& input, const FoldFuncOptions& options);

}  // namespace functional

// ---- modules ----

// Conv1d, Conv2d and Conv3d: weight (out_channels, in_channels / groups, *kernel_size), bias (out_channels),
// drawn as PyTorch's reset_parameters: kaiming_uniform(a = sqrt(5)), then U(-1/sqrt(fan_in), +).
template <size_t D>
class ConvImpl : public Module {
 public:
  explicit ConvImpl(const ConvOptions<D>& options);
  ConvImpl(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : ConvImpl(ConvOptions<D>(in_channels, out_channels, kernel_size)) {}
  void reset_parameters();
  // input (N, C_in, *spatial) or (C_in, *spatial) -> (N, C_out, *spatial_out)
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;

  ConvOptions<D> options;
  Tensor weight;  // (out_channels, in_channels / groups, *kernel_size)
  Tensor bias;    // (out_channels), undefined when options.bias() is false
};

class Conv1dImpl : public ConvImpl<1> {
 public:
  using ConvImpl<1>::ConvImpl;
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;
};
class Conv2dImpl : public ConvImpl<2> {
 public:
  using ConvImpl<2>::ConvImpl;
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;
};
class Conv3dImpl : public ConvImpl<3> {
 public:
  using ConvImpl<3>::ConvImpl;
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;
};
EMBER_MODULE(Conv1d);
EMBER_MODULE(Conv2d);
EMBER_MODULE(Conv3d);

// ConvTranspose1d, 2d and 3d: weight (in_channels, out_channels / groups, *kernel_size), bias
// (out_channels); fan_in is computed from this weight as PyTorch does (out_channels / groups * prod(kernel)).
template <size_t D>
class ConvTransposeImpl : public Module {
 public:
  explicit ConvTransposeImpl(const ConvTransposeOptions<D>& options);
  ConvTransposeImpl(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : ConvTransposeImpl(ConvTransposeOptions<D>(in_channels, out_channels, kernel_size)) {}
  void reset_parameters();
  // input (N, C_in, *spatial) or (C_in, *spatial) -> (N, C_out, *spatial_out). output_size (D sizes, or
  // D + 2 with the batch and channel ones) picks the output_padding that gives those sizes: each within
  // [(in - 1) * stride - 2 * padding + dilation * (kernel - 1) + 1, that + stride - 1].
  Tensor forward(const Tensor& input, const std::optional<IntArrayRef>& output_size = std::nullopt);
  EMBER_FORWARD_HAS_DEFAULT_ARGS({1, AnyValue(std::optional<IntArrayRef>())})
  void pretty_print(std::ostream& stream) const override;

  ConvTransposeOptions<D> options;
  Tensor weight;  // (in_channels, out_channels / groups, *kernel_size)
  Tensor bias;    // (out_channels), undefined when options.bias() is false
};

#define EMBER_CONV_TRANSPOSE_MODULE(D)                                                                \
  class ConvTranspose##D##dImpl : public ConvTransposeImpl<D> {                                       \
   public:                                                                                            \
    using ConvTransposeImpl<D>::ConvTransposeImpl;                                                    \
    std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override; \
  };                                                                                                  \
  EMBER_MODULE(ConvTranspose##D##d)
EMBER_CONV_TRANSPOSE_MODULE(1);
EMBER_CONV_TRANSPOSE_MODULE(2);
EMBER_CONV_TRANSPOSE_MODULE(3);
#undef EMBER_CONV_TRANSPOSE_MODULE

}  // namespace ember::nn
