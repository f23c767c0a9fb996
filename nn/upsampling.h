// Resizing, as torch::nn::functional::interpolate and torch::nn::Upsample: modes kNearest,
// kNearestExact, kLinear (N, C, W), kBilinear and kBicubic (N, C, H, W), kTrilinear (N, C, D, H, W)
// and kArea (adaptive average pooling, 1 to 3 spatial dims), with PyTorch 1.13's index arithmetic.
//
//   namespace F = ember::nn::functional;
//   ember::Tensor y = F::interpolate(x, F::InterpolateFuncOptions()            // x (N, C, H, W)
//                                           .scale_factor(std::vector<double>{2, 2})
//                                           .mode(ember::kBilinear)
//                                           .align_corners(false));           // -> (N, C, 2H, 2W)
//   ember::nn::Upsample up(ember::nn::UpsampleOptions().size(std::vector<int64_t>{8}).mode(ember::kLinear));
//   std::cout << *up;   // Upsample(size=[8], mode=kLinear)
//
// Each spatial dim is resized on its own: nearest modes pick input positions (index_select), the
// others multiply by a (out, in) matrix of interpolation weights computed as PyTorch's kernels compute
// them (float32 arithmetic for float32 inputs), so the gradients are the same weights transposed.
// antialias (bilinear and bicubic) widens the filter when shrinking, as PyTorch's (and PIL's) resize.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <variant>
#include <vector>

#include "nn/expanding_array.h"
#include "nn/init.h"
#include "nn/module.h"
#include "nn/options.h"

namespace ember::nn {

namespace functional {

struct InterpolateFuncOptions {
  using mode_t = std::variant<enumtype::kNearest, enumtype::kLinear, enumtype::kBilinear, enumtype::kBicubic,
                              enumtype::kTrilinear, enumtype::kArea, enumtype::kNearestExact>;
  // One output size per spatial dim, or one scale factor per spatial dim (output = floor(in * scale)).
  EMBER_ARG(std::optional<std::vector<int64_t>>, size) = std::nullopt;
  EMBER_ARG(std::optional<std::vector<double>>, scale_factor) = std::nullopt;
  EMBER_ARG(mode_t, mode) = kNearest;
  // Linear and cubic modes only: map the corner pixels' centres onto each other (default false).
  EMBER_ARG(std::optional<bool>, align_corners) = std::nullopt;
  // true: interpolate with in / out computed from the output size instead of 1 / scale_factor.
  EMBER_ARG(std::optional<bool>, recompute_scale_factor) = std::nullopt;
  // Bilinear and bicubic only: the filter is widened by in / out when shrinking, so that every input
  // pixel contributes, as PIL's resize (bicubic's A is then PIL's -0.5).
  EMBER_ARG(bool, antialias) = false;
};

// input (N, C, d_1, ..., d_k), k = 1, 2 or 3 -> (N, C, o_1, ..., o_k)
Tensor interpolate(const Tensor& input, const InterpolateFuncOptions& options = {});

}  // namespace functional

struct UpsampleOptions {
  using mode_t = std::variant<enumtype::kNearest, enumtype::kLinear, enumtype::kBilinear, enumtype::kBicubic,
                              enumtype::kTrilinear>;
  EMBER_ARG(std::optional<std::vector<int64_t>>, size) = std::nullopt;
  EMBER_ARG(std::optional<std::vector<double>>, scale_factor) = std::nullopt;
  EMBER_ARG(mode_t, mode) = kNearest;
  EMBER_ARG(std::optional<bool>, align_corners) = std::nullopt;
};

// F::interpolate with the module's options (recompute_scale_factor unset); no parameters.
class UpsampleImpl : public Module {
 public:
  explicit UpsampleImpl(const UpsampleOptions& options_ = {}) : options(options_) {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;

  UpsampleOptions options;
};
EMBER_MODULE(Upsample);

}  // namespace ember::nn
