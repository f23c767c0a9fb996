// nn::Fold and nn::Unfold, as torch::nn's: the modules around F::fold (col2im) and F::unfold (im2col)
// of nn/conv.h, whose option classes they share (libtorch's FoldOptions is FoldFuncOptions); defined in
// nn/conv.cpp.
//
//   ember::nn::Unfold unfold(ember::nn::UnfoldOptions({2, 2}).stride(2));
//   ember::Tensor cols = unfold(x);          // x (N, C, H, W) -> (N, C*4, L)
//   std::cout << *unfold;                    // Unfold(kernel_size=[2, 2], dilation=[1, 1], padding=[0, 0], stride=[2,
//   2])
#pragma once

#include <ostream>

#include "nn/conv.h"
#include "nn/module.h"

namespace ember::nn {

using FoldOptions = functional::FoldFuncOptions;
using UnfoldOptions = functional::UnfoldFuncOptions;

class FoldImpl : public Module {
 public:
  FoldImpl(ExpandingArray<2> output_size, ExpandingArray<2> kernel_size)
      : FoldImpl(FoldOptions(output_size, kernel_size)) {}
  explicit FoldImpl(const FoldOptions& options_) : options(options_) {}
  // input (N, C*kh*kw, L) -> (N, C, output_size)
  Tensor forward(const Tensor& input) { return functional::fold(input, options); }
  void pretty_print(std::ostream& stream) const override;
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;
  FoldOptions options;
};
EMBER_MODULE(Fold);

class UnfoldImpl : public Module {
 public:
  UnfoldImpl(ExpandingArray<2> kernel_size) : UnfoldImpl(UnfoldOptions(kernel_size)) {}  // NOLINT
  explicit UnfoldImpl(const UnfoldOptions& options_) : options(options_) {}
  // input (N, C, H, W) -> (N, C*kh*kw, L)
  Tensor forward(const Tensor& input) { return functional::unfold(input, options); }
  void pretty_print(std::ostream& stream) const override;
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;
  UnfoldOptions options;
};
EMBER_MODULE(Unfold);

}  // namespace ember::nn
