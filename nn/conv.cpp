// Convolution layers and functions: options turned into the arguments of ember::conv2d and friends
// (autograd/conv.cpp), PyTorch's initialisation, libtorch's printing.
#include "nn/conv.h"
#include "nn/fold.h"

#include <algorithm>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "nn/init.h"
#include "nn/padding.h"

namespace ember::nn {

namespace {

// The convolution with `padding` (values, kValid or kSame) for a D-d layer or function.
template <size_t D>
Tensor conv_with_padding(const Tensor& input, const Tensor& weight, const Tensor& bias, const ExpandingArray<D>& stride,
                         const conv_padding_t<D>& padding, const ExpandingArray<D>& dilation, int64_t groups) {
  constexpr const char* kOps[] = {"conv1d", "conv2d", "conv3d"};
  const char* op = kOps[D - 1];
  if (std::holds_alternative<enumtype::kSame>(padding)) {
    const bool unit_stride = std::all_of(stride->begin(), stride->end(), [](int64_t s) { return s == 1; });
    EMBER_CHECK(unit_stride, "{}: padding='same' is not supported for strided convolutions (stride={})", op, *stride);
    return ember::detail::conv_same(op, D, input, weight, bias, *dilation, groups);
  }
  const ExpandingArray<D> values =
      std::holds_alternative<enumtype::kValid>(padding) ? ExpandingArray<D>(0) : std::get<ExpandingArray<D>>(padding);
  if constexpr (D == 1) return ember::conv1d(input, weight, bias, *stride, *values, *dilation, groups);
  if constexpr (D == 2) return ember::conv2d(input, weight, bias, *stride, *values, *dilation, groups);
  return ember::conv3d(input, weight, bias, *stride, *values, *dilation, groups);
}

// PyTorch's ConvNd.reset_parameters: weight ~ kaiming_uniform(a = sqrt(5)), bias ~ U(-1/sqrt(fan_in), +).
void reset_conv_parameters(Tensor& weight, Tensor& bias) {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (!bias.defined()) return;
  const int64_t fan_in = init::calculate_fan_in_and_fan_out(weight).first;
  if (fan_in == 0) return;
  const double bound = 1.0 / std::sqrt(static_cast<double>(fan_in));
  init::uniform_(bias, -bound, bound);
}

// The checks of PyTorch's _ConvNd.__init__, naming the layer.
void check_layer(const char* layer, int64_t in_channels, int64_t out_channels, int64_t groups) {
  EMBER_CHECK(in_channels > 0 && out_channels > 0,
              "{}: in_channels and out_channels must be positive, got in_channels={}, out_channels={}", layer,
              in_channels, out_channels);
  EMBER_CHECK(groups > 0, "{}: groups must be a positive integer, got groups={}", layer, groups);
  EMBER_CHECK(in_channels % groups == 0, "{}: in_channels must be divisible by groups (in_channels={}, groups={})",
              layer, in_channels, groups);
  EMBER_CHECK(out_channels % groups == 0, "{}: out_channels must be divisible by groups (out_channels={}, groups={})",
              layer, out_channels, groups);
}

// PyTorch's _reversed_padding_repeated_twice: a layer's padding as F::pad takes it, (left, right) for the
// last dim first. "same" splits dilation * (kernel - 1) with the smaller half on the left.
template <size_t D>
std::vector<int64_t> reversed_padding_repeated_twice(const ConvOptions<D>& options) {
  std::vector<int64_t> pad(2 * D, 0);
  for (size_t d = 0; d < D; ++d) {
    int64_t left = 0, right = 0;
    if (std::holds_alternative<enumtype::kSame>(options.padding())) {
      const int64_t total = (*options.dilation())[d] * ((*options.kernel_size())[d] - 1);
      left = total / 2;
      right = total - left;
    } else if (const auto* values = std::get_if<ExpandingArray<D>>(&options.padding())) {
      left = right = (**values)[d];
    }
    pad[2 * (D - 1 - d)] = left;
    pad[2 * (D - 1 - d) + 1] = right;
  }
  return pad;
}

// The F::pad mode of a padding_mode other than kZeros.
functional::PadFuncOptions::mode_t pad_mode(const conv_padding_mode_t& padding_mode) {
  if (std::holds_alternative<enumtype::kReflect>(padding_mode)) return kReflect;
  if (std::holds_alternative<enumtype::kReplicate>(padding_mode)) return kReplicate;
  return kCircular;
}

const char* padding_mode_name(const conv_padding_mode_t& padding_mode) {
  constexpr const char* kNames[] = {"kZeros", "kReflect", "kReplicate", "kCircular"};
  return kNames[padding_mode.index()];
}

// The transposed convolution of D dims, from a layer's or a function's options.
template <size_t D, typename Options>
Tensor conv_transpose(const Tensor& input, const Tensor& weight, const Tensor& bias, const Options& o) {
  if constexpr (D == 1)
    return ember::conv_transpose1d(input, weight, bias, *o.stride(), *o.padding(), *o.output_padding(), o.groups(),
                                   *o.dilation());
  if constexpr (D == 2)
    return ember::conv_transpose2d(input, weight, bias, *o.stride(), *o.padding(), *o.output_padding(), o.groups(),
                                   *o.dilation());
  return ember::conv_transpose3d(input, weight, bias, *o.stride(), *o.padding(), *o.output_padding(), o.groups(),
                                 *o.dilation());
}

template <size_t D>
std::vector<int64_t> weight_shape(const char* layer, int64_t first, int64_t second,
                                  const ExpandingArray<D>& kernel_size) {
  std::vector<int64_t> shape{first, second};
  for (size_t d = 0; d < D; ++d) {
    EMBER_CHECK(kernel_size[d] > 0, "{}: kernel_size must be positive, got kernel_size={}", layer, *kernel_size);
    shape.push_back(kernel_size[d]);
  }
  return shape;
}

}  // namespace

namespace functional {

Tensor conv1d(const Tensor& input, const Tensor& weight, const Conv1dFuncOptions& options) {
  return conv_with_padding<1>(input, weight, options.bias(), options.stride(), options.padding(), options.dilation(),
                              options.groups());
}

Tensor conv2d(const Tensor& input, const Tensor& weight, const Conv2dFuncOptions& options) {
  return conv_with_padding<2>(input, weight, options.bias(), options.stride(), options.padding(), options.dilation(),
                              options.groups());
}

Tensor conv3d(const Tensor& input, const Tensor& weight, const Conv3dFuncOptions& options) {
  return conv_with_padding<3>(input, weight, options.bias(), options.stride(), options.padding(), options.dilation(),
                              options.groups());
}

Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const ConvTranspose1dFuncOptions& options) {
  return conv_transpose<1>(input, weight, options.bias(), options);
}

Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const ConvTranspose2dFuncOptions& options) {
  return conv_transpose<2>(input, weight, options.bias(), options);
}

Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const ConvTranspose3dFuncOptions& options) {
  return conv_transpose<3>(input, weight, options.bias(), options);
}

Tensor unfold(const Tensor& input, const UnfoldFuncOptions& options) {
  return ember::im2col(input, *options.kernel_size(), *options.dilation(), *options.padding(), *options.stride());
}

Tensor fold(const Tensor& input, const FoldFuncOptions& options) {
  return ember::col2im(input, *options.output_size(), *options.kernel_size(), *options.dilation(), *options.padding(),
                       *options.stride());
}

}  // namespace functional

template <size_t D>
ConvImpl<D>::ConvImpl(const ConvOptions<D>& options_) : options(options_) {
  constexpr const char* kLayers[] = {"Conv1d", "Conv2d", "Conv3d"};
  const char* layer = kLayers[D - 1];
  check_layer(layer, options.in_channels(), options.out_channels(), options.groups());
  if (std::holds_alternative<enumtype::kSame>(options.padding())) {
    const bool unit_stride =
        std::all_of(options.stride()->begin(), options.stride()->end(), [](int64_t s) { return s == 1; });
    EMBER_CHECK(unit_stride, "{}: padding='same' is not supported for strided convolutions (stride={})", layer,
                *options.stride());
  }
  weight = register_parameter(
      "weight", ember::empty(weight_shape<D>(layer, options.out_channels(), options.in_channels() / options.groups(),
                                             options.kernel_size())));
  bias = register_parameter("bias", options.bias() ? ember::empty({options.out_channels()}) : Tensor(), options.bias());
  reset_parameters();
}

template <size_t D>
void ConvImpl<D>::reset_parameters() {
  reset_conv_parameters(weight, bias);
}

// padding_mode kReflect / kReplicate / kCircular: F::pad in that mode, then the convolution unpadded.
template <size_t D>
Tensor ConvImpl<D>::forward(const Tensor& input) {
  if (std::holds_alternative<enumtype::kZeros>(options.padding_mode())) {
    return conv_with_padding<D>(input, weight, bias, options.stride(), options.padding(), options.dilation(),
                                options.groups());
  }
  const Tensor padded = functional::pad(input, functional::PadFuncOptions(reversed_padding_repeated_twice(options))
                                                   .mode(pad_mode(options.padding_mode())));
  return conv_with_padding<D>(padded, weight, bias, options.stride(), ExpandingArray<D>(0), options.dilation(),
                              options.groups());
}

// libtorch's ConvNdImpl::pretty_print: stride always, the other options where they differ from the default.
template <size_t D>
void ConvImpl<D>::pretty_print(std::ostream& stream) const {
  stream << "Conv" << D << "d(" << options.in_channels() << ", " << options.out_channels()
         << ", kernel_size=" << options.kernel_size() << ", stride=" << options.stride();
  if (std::holds_alternative<enumtype::kValid>(options.padding())) {
    stream << ", padding='valid'";
  } else if (std::holds_alternative<enumtype::kSame>(options.padding())) {
    stream << ", padding='same'";
  } else if (!(std::get<ExpandingArray<D>>(options.padding()) == ExpandingArray<D>(0))) {
    stream << ", padding=" << std::get<ExpandingArray<D>>(options.padding());
  }
  if (!(options.dilation() == ExpandingArray<D>(1))) stream << ", dilation=" << options.dilation();
  if (options.groups() != 1) stream << ", groups=" << options.groups();
  if (!options.bias()) stream << ", bias=false";
  if (!std::holds_alternative<enumtype::kZeros>(options.padding_mode()))
    stream << ", padding_mode=" << padding_mode_name(options.padding_mode());
  stream << ")";
}

template class ConvImpl<1>;
template class ConvImpl<2>;
template class ConvImpl<3>;

template <size_t D>
ConvTransposeImpl<D>::ConvTransposeImpl(const ConvTransposeOptions<D>& options_) : options(options_) {
  const std::string layer = fmt::format("ConvTranspose{}d", D);
  check_layer(layer.c_str(), options.in_channels(), options.out_channels(), options.groups());
  EMBER_CHECK(std::holds_alternative<enumtype::kZeros>(options.padding_mode()),
              "{}: Only `zeros` padding mode is supported for {} (got padding_mode={})", layer, layer,
              padding_mode_name(options.padding_mode()));
  weight = register_parameter(
      "weight", ember::empty(weight_shape<D>(layer.c_str(), options.in_channels(),
                                             options.out_channels() / options.groups(), options.kernel_size())));
  bias = register_parameter("bias", options.bias() ? ember::empty({options.out_channels()}) : Tensor(), options.bias());
  reset_parameters();
}

template <size_t D>
void ConvTransposeImpl<D>::reset_parameters() {
  reset_conv_parameters(weight, bias);
}

// PyTorch's _ConvTransposeNd._output_padding: the output_padding that makes the output output_size.
template <size_t D>
Tensor ConvTransposeImpl<D>::forward(const Tensor& input, const std::optional<IntArrayRef>& output_size) {
  if (!output_size) return conv_transpose<D>(input, weight, bias, options);
  const std::string layer = fmt::format("ConvTranspose{}d", D);
  EMBER_CHECK(input.dim() == D + 1 || input.dim() == D + 2,
              "{}: expected a {}-d (unbatched) or {}-d (batched) input, got input of shape {}", layer, D + 1, D + 2,
              input.sizes());
  const size_t leading = static_cast<size_t>(input.dim()) - D;  // the batch and channel dims, or the channel
  std::vector<int64_t> wanted = output_size->vec();
  if (wanted.size() == D + leading) wanted.erase(wanted.begin(), wanted.begin() + static_cast<std::ptrdiff_t>(leading));
  EMBER_CHECK(wanted.size() == D, "{}: for {}-d input, output_size must have {} or {} elements (got {})", layer,
              input.dim(), D, D + leading, output_size->size());
  std::vector<int64_t> min_sizes(D), max_sizes(D);
  for (size_t d = 0; d < D; ++d) {
    min_sizes[d] = (input.size(static_cast<int64_t>(leading + d)) - 1) * (*options.stride())[d] -
                   2 * (*options.padding())[d] + (*options.dilation())[d] * ((*options.kernel_size())[d] - 1) + 1;
    max_sizes[d] = min_sizes[d] + (*options.stride())[d] - 1;
  }
  ConvTransposeOptions<D> with_padding = options;
  for (size_t d = 0; d < D; ++d) {
    EMBER_CHECK(wanted[d] >= min_sizes[d] && wanted[d] <= max_sizes[d],
                "{}: requested an output size of {}, but valid sizes range from {} to {} (for an input of {})", layer,
                wanted, min_sizes, max_sizes, input.sizes().slice(leading));
    with_padding.output_padding()[d] = wanted[d] - min_sizes[d];
  }
  return conv_transpose<D>(input, weight, bias, with_padding);
}

template <size_t D>
void ConvTransposeImpl<D>::pretty_print(std::ostream& stream) const {
  stream << "ConvTranspose" << D << "d(" << options.in_channels() << ", " << options.out_channels()
         << ", kernel_size=" << options.kernel_size() << ", stride=" << options.stride();
  if (!(options.padding() == ExpandingArray<D>(0))) stream << ", padding=" << options.padding();
  if (!(options.dilation() == ExpandingArray<D>(1))) stream << ", dilation=" << options.dilation();
  if (!(options.output_padding() == ExpandingArray<D>(0))) stream << ", output_padding=" << options.output_padding();
  if (options.groups() != 1) stream << ", groups=" << options.groups();
  if (!options.bias()) stream << ", bias=false";
  stream << ")";
}

template class ConvTransposeImpl<1>;
template class ConvTransposeImpl<2>;
template class ConvTransposeImpl<3>;

void FoldImpl::pretty_print(std::ostream& stream) const {
  stream << "Fold(output_size=" << options.output_size() << ", kernel_size=" << options.kernel_size()
         << ", dilation=" << options.dilation() << ", padding=" << options.padding() << ", stride=" << options.stride()
         << ")";
}

void UnfoldImpl::pretty_print(std::ostream& stream) const {
  stream << "Unfold(kernel_size=" << options.kernel_size() << ", dilation=" << options.dilation()
         << ", padding=" << options.padding() << ", stride=" << options.stride() << ")";
}

// clone() of the modules above: a new one built from the same options, holding copies of the values.
EMBER_CLONE_WITH_OPTIONS(Conv1dImpl)
EMBER_CLONE_WITH_OPTIONS(Conv2dImpl)
EMBER_CLONE_WITH_OPTIONS(Conv3dImpl)
EMBER_CLONE_WITH_OPTIONS(ConvTranspose1dImpl)
EMBER_CLONE_WITH_OPTIONS(ConvTranspose2dImpl)
EMBER_CLONE_WITH_OPTIONS(ConvTranspose3dImpl)
EMBER_CLONE_WITH_OPTIONS(FoldImpl)
EMBER_CLONE_WITH_OPTIONS(UnfoldImpl)

}  // namespace ember::nn
