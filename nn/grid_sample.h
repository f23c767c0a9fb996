// Sampling an input at arbitrary points, as torch::nn::functional::grid_sample, and the grids of
// affine transforms, as F::affine_grid (the spatial transformer's two halves).
//
//   namespace F = ember::nn::functional;
//   ember::Tensor grid = F::affine_grid(theta, {N, C, 8, 8}, /*align_corners=*/false);  // theta (N, 2, 3)
//   ember::Tensor y = F::grid_sample(x, grid, F::GridSampleFuncOptions()             // x (N, C, H, W)
//                                                 .mode(ember::kBilinear)
//                                                 .padding_mode(ember::kBorder)
//                                                 .align_corners(false));          // -> (N, C, 8, 8)
//
// Both are compositions of tensor ops with PyTorch 1.13's arithmetic (nn/grid_sample.cpp), so they
// run on every device and are differentiable in the input, the grid and theta. One extension: the
// mode may be kBicubic, which libtorch 1.13's options lack but its ATen grid_sampler (mode 2) has.
// Not here: cuDNN's sampler (PyTorch picks it for some CUDA inputs; its results are the same).
#pragma once

#include <optional>
#include <variant>

#include "core/tensor.h"
#include "nn/expanding_array.h"
#include "nn/options.h"

namespace ember::nn::functional {

struct GridSampleFuncOptions {
  using mode_t = std::variant<enumtype::kBilinear, enumtype::kNearest, enumtype::kBicubic>;
  using padding_mode_t = std::variant<enumtype::kZeros, enumtype::kBorder, enumtype::kReflection>;
  // How output values are interpolated from the input (kBicubic: 4-d inputs only).
  EMBER_ARG(mode_t, mode) = kBilinear;
  // What points outside the input see: zeros, the nearest border value, or the input reflected.
  EMBER_ARG(padding_mode_t, padding_mode) = kZeros;
  // true: -1 and 1 are the centres of the corner pixels; false (the default when unset, with a
  // warning as libtorch gives): their outer edges.
  EMBER_ARG(std::optional<bool>, align_corners) = std::nullopt;
};

// input (N, C, H, W), grid (N, Ho, Wo, 2) -> (N, C, Ho, Wo);
// input (N, C, D, H, W), grid (N, Do, Ho, Wo, 3) -> (N, C, Do, Ho, Wo).
// grid[..., 0] is the x (width) coordinate, [..., 1] y (height), [..., 2] z (depth), each in [-1, 1]
// across the input; points outside it are padded as options.padding_mode says.
Tensor grid_sample(const Tensor& input, const Tensor& grid, const GridSampleFuncOptions& options = {});

// The sampling grid of a batch of affine maps of normalised coordinates:
// theta (N, 2, 3), size {N, C, H, W} -> (N, H, W, 2); theta (N, 3, 4), size {N, C, D, H, W} -> (N, D, H, W, 3).
Tensor affine_grid(const Tensor& theta, IntArrayRef size, bool align_corners = false);

}  // namespace ember::nn::functional
