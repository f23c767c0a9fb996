// Padding, as torch::nn::functional::pad and torch::nn's padding modules: constant (any number of
// trailing dims, negative values crop), reflect, replicate and circular (the last 1, 2 or 3 dims).
//
//   namespace F = ember::nn::functional;
//   ember::Tensor y = F::pad(x, F::PadFuncOptions({1, 2}).mode(ember::kReflect));  // x (N, C, W) -> (N, C, W + 3)
//   ember::Tensor z = F::pad(x, F::PadFuncOptions({1, 1, -1, 0}).value(0.5));      // last dim +2, the one before -1
//   ember::nn::ReflectionPad2d pad2(ember::nn::ReflectionPad2dOptions({1, 1, 2, 0}));
//   std::cout << *pad2;   // ReflectionPad2d(padding=[1, 1, 2, 0])
//
// `pad` lists (left, right) pairs starting from the last dim, as PyTorch. Every mode is composed of
// differentiable views, cat and index_select (one index vector per padded dim), so gradients and the
// CUDA device come for free. Not here: ZeroPad1d/3d (PyTorch 2.1). Unlike PyTorch, the non-constant
// modes also pad integer tensors.
#pragma once

#include <cstdint>
#include <ostream>
#include <variant>
#include <vector>

#include "nn/expanding_array.h"
#include "nn/module.h"
#include "nn/options.h"

namespace ember::nn {

namespace functional {

struct PadFuncOptions {
  using mode_t = std::variant<enumtype::kConstant, enumtype::kReflect, enumtype::kReplicate, enumtype::kCircular>;
  PadFuncOptions(std::vector<int64_t> pad) : pad_(std::move(pad)) {}  // NOLINT: implicit, as in libtorch
  // (left, right) amounts for the last dim, then the one before it, ...
  EMBER_ARG(std::vector<int64_t>, pad);
  EMBER_ARG(mode_t, mode) = kConstant;
  // The fill of kConstant; other modes take no value.
  EMBER_ARG(double, value) = 0;
};

// input (*, d_k, ..., d_1) -> each padded dim d_i grows by pad[2(i-1)] + pad[2(i-1)+1].
//   kReflect / kReplicate: the input has pad.size()/2 + 1 or + 2 dims (unbatched or batched);
//   kCircular: exactly pad.size()/2 + 2 dims (N, C, ...), as PyTorch 1.13.
Tensor pad(const Tensor& input, const PadFuncOptions& options);

}  // namespace functional

template <size_t D>
struct ReflectionPadOptions {
  ReflectionPadOptions(ExpandingArray<D * 2> padding) : padding_(padding) {}  // NOLINT
  EMBER_ARG(ExpandingArray<D * 2>, padding);
};
using ReflectionPad1dOptions = ReflectionPadOptions<1>;
using ReflectionPad2dOptions = ReflectionPadOptions<2>;
using ReflectionPad3dOptions = ReflectionPadOptions<3>;

template <size_t D>
struct ReplicationPadOptions {
  ReplicationPadOptions(ExpandingArray<D * 2> padding) : padding_(padding) {}  // NOLINT
  EMBER_ARG(ExpandingArray<D * 2>, padding);
};
using ReplicationPad1dOptions = ReplicationPadOptions<1>;
using ReplicationPad2dOptions = ReplicationPadOptions<2>;
using ReplicationPad3dOptions = ReplicationPadOptions<3>;

struct ZeroPad2dOptions {
  ZeroPad2dOptions(ExpandingArray<4> padding) : padding_(padding) {}  // NOLINT
  EMBER_ARG(ExpandingArray<4>, padding);
};

template <size_t D>
struct ConstantPadOptions {
  ConstantPadOptions(ExpandingArray<D * 2> padding, double value) : padding_(padding), value_(value) {}
  EMBER_ARG(ExpandingArray<D * 2>, padding);
  EMBER_ARG(double, value);
};
using ConstantPad1dOptions = ConstantPadOptions<1>;
using ConstantPad2dOptions = ConstantPadOptions<2>;
using ConstantPad3dOptions = ConstantPadOptions<3>;

// The modules hold their options and call F::pad; they have no parameters. Each prints as libtorch's
// (ReflectionPad2d(padding=[1, 1, 2, 0]), ConstantPad1d(padding=[1, 2], value=0.5)).
template <typename Options>
class PadImplBase : public Module {
 public:
  explicit PadImplBase(const Options& options_) : options(options_) {}
  Options options;
};

// Params: the constructor's parameters in parentheses, Args: how they build the options.
#define EMBER_PAD_MODULE(Name, OptionsType, Params, Args)                                             \
  class Name##Impl : public PadImplBase<OptionsType> {                                                \
   public:                                                                                            \
    using PadImplBase<OptionsType>::PadImplBase;                                                      \
    explicit Name##Impl Params : PadImplBase(OptionsType Args) {}                                     \
    Tensor forward(const Tensor& input);                                                              \
    void pretty_print(std::ostream& stream) const override;                                           \
    std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override; \
  };                                                                                                  \
  EMBER_MODULE(Name)

EMBER_PAD_MODULE(ReflectionPad1d, ReflectionPad1dOptions, (ExpandingArray<2> padding), (padding));
EMBER_PAD_MODULE(ReflectionPad2d, ReflectionPad2dOptions, (ExpandingArray<4> padding), (padding));
EMBER_PAD_MODULE(ReflectionPad3d, ReflectionPad3dOptions, (ExpandingArray<6> padding), (padding));
EMBER_PAD_MODULE(ReplicationPad1d, ReplicationPad1dOptions, (ExpandingArray<2> padding), (padding));
EMBER_PAD_MODULE(ReplicationPad2d, ReplicationPad2dOptions, (ExpandingArray<4> padding), (padding));
EMBER_PAD_MODULE(ReplicationPad3d, ReplicationPad3dOptions, (ExpandingArray<6> padding), (padding));
EMBER_PAD_MODULE(ZeroPad2d, ZeroPad2dOptions, (ExpandingArray<4> padding), (padding));
EMBER_PAD_MODULE(ConstantPad1d, ConstantPad1dOptions, (ExpandingArray<2> padding, double value), (padding, value));
EMBER_PAD_MODULE(ConstantPad2d, ConstantPad2dOptions, (ExpandingArray<4> padding, double value), (padding, value));
EMBER_PAD_MODULE(ConstantPad3d, ConstantPad3dOptions, (ExpandingArray<6> padding, double value), (padding, value));
#undef EMBER_PAD_MODULE

}  // namespace ember::nn
