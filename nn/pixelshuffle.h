// Sub-pixel rearrangement, as torch::nn::PixelShuffle / PixelUnshuffle and their functionals: channels
// traded for resolution and back, with no arithmetic.
//
//   namespace F = ember::nn::functional;
//   ember::nn::PixelShuffle shuffle(2);
//   ember::Tensor y = shuffle(x);                                  // x (N, 4C, H, W) -> (N, C, 2H, 2W)
//   ember::Tensor z = F::pixel_unshuffle(y, F::PixelUnshuffleFuncOptions(2));   // back to x
//   std::cout << *shuffle;                                         // PixelShuffle(upscale_factor=2)
//
// Both are a reshape, a permute and a reshape (differentiable views and one copy).
#pragma once

#include <cstdint>
#include <ostream>

#include "nn/module.h"
#include "nn/options.h"

namespace ember::nn {

struct PixelShuffleOptions {
  PixelShuffleOptions(int64_t upscale_factor) : upscale_factor_(upscale_factor) {}  // NOLINT
  EMBER_ARG(int64_t, upscale_factor);
};

struct PixelUnshuffleOptions {
  PixelUnshuffleOptions(int64_t downscale_factor) : downscale_factor_(downscale_factor) {}  // NOLINT
  EMBER_ARG(int64_t, downscale_factor);
};

namespace functional {

using PixelShuffleFuncOptions = PixelShuffleOptions;
using PixelUnshuffleFuncOptions = PixelUnshuffleOptions;

// input (*, C r^2, H, W) -> (*, C, H r, W r): out[c, h r + i, w r + j] = in[c r^2 + i r + j, h, w]
Tensor pixel_shuffle(const Tensor& input, const PixelShuffleFuncOptions& options);
// input (*, C, H r, W r) -> (*, C r^2, H, W), the inverse.
Tensor pixel_unshuffle(const Tensor& input, const PixelUnshuffleFuncOptions& options);

}  // namespace functional

class PixelShuffleImpl : public Module {
 public:
  explicit PixelShuffleImpl(const PixelShuffleOptions& options_) : options(options_) {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;
  PixelShuffleOptions options;
};
EMBER_MODULE(PixelShuffle);

class PixelUnshuffleImpl : public Module {
 public:
  explicit PixelUnshuffleImpl(const PixelUnshuffleOptions& options_) : options(options_) {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;
  PixelUnshuffleOptions options;
};
EMBER_MODULE(PixelUnshuffle);

}  // namespace ember::nn
