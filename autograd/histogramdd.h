// torch.histogramdd: a histogram over the last dimension's N coordinates of a floating tensor.
//
//   ember::Tensor points = ember::rand({100, 2});                       // 100 points in 2-d
//   auto [hist, edges] = ember::histogramdd(points, std::vector<int64_t>{4, 3});
//   // hist (4, 3): points per cell; edges[0] has 5 edges, edges[1] has 4
//   auto [density, e] = ember::histogramdd(points, 5, std::nullopt, std::nullopt, /*density=*/true);
//
// As libtorch 1.13: input (*, N) is read as rows of N coordinates; a point lands in the bin whose
// left edge it reaches in every dimension, the last bin of a dimension also holding its last edge;
// points outside the edges (or NaN) are left out. Counts are summed in the input's dtype. Computed
// on the host; the results require grad when an input does, and backward refuses, as in libtorch.
#pragma once

#include <optional>
#include <tuple>
#include <vector>

#include "core/tensor.h"

namespace ember {

// bins[d] equal bins per dimension over range (x0_min, x0_max, x1_min, ...; default each
// dimension's min and max, widened by 0.5 each way where they are equal; [0, 1] for empty input).
std::tuple<Tensor, std::vector<Tensor>> histogramdd(const Tensor& self, IntArrayRef bins,
                                                    std::optional<ArrayRef<double>> range = std::nullopt,
                                                    const std::optional<Tensor>& weight = {}, bool density = false);
// The same number of bins in every dimension.
std::tuple<Tensor, std::vector<Tensor>> histogramdd(const Tensor& self, int64_t bins,
                                                    std::optional<ArrayRef<double>> range = std::nullopt,
                                                    const std::optional<Tensor>& weight = {}, bool density = false);
// Given edges per dimension (1-d, increasing, input's dtype); range is ignored, as in libtorch.
// The edges returned are these tensors.
std::tuple<Tensor, std::vector<Tensor>> histogramdd(const Tensor& self, ArrayRef<Tensor> bins,
                                                    std::optional<ArrayRef<double>> range = std::nullopt,
                                                    const std::optional<Tensor>& weight = {}, bool density = false);

}  // namespace ember
