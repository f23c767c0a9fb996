// Pooling primitives with their own backward, over contiguous planes: the kernels of core/pool.h
// wrapped as differentiable ops. nn/pooling.h builds max_pool2d, avg_pool2d, the 1-d and adaptive
// forms on these (checks, output sizes and the (N, C, H, W) <-> (P, H, W) reshapes live there).
//
//   PoolGeometry g{.H = 4, .W = 4, .OH = 2, .OW = 2, .kH = 2, .kW = 2, .sH = 2, .sW = 2};
//   auto [out, indices] = ember::max_pool_planes(x, g);     // x (P, 4, 4) -> (P, 2, 2) twice
//   Tensor avg = ember::avg_pool_planes(x, g);
#pragma once

#include <tuple>

#include "core/pool.h"
#include "core/tensor.h"

namespace ember {

// input (P, H, W) -> out (P, OH, OW) and indices (P, OH, OW) int64 (h * W + w of each max).
// Backward (MaxPool2DWithIndicesBackward0): dout added into zeros at the indices.
std::tuple<Tensor, Tensor> max_pool_planes(const Tensor& input, const PoolGeometry& g);

// input (P, H, W) -> (P, OH, OW), each window's sum / pool_divisor (AvgPool2DBackward0).
Tensor avg_pool_planes(const Tensor& input, const PoolGeometry& g);

// avg_pool_planes's backward as an op of its own: dout (P, OH, OW) -> din (P, H, W). It is linear
// in dout, so its own backward is avg_pool_planes: gradients of gradients come for free.
Tensor avg_pool_planes_backward(const Tensor& dout, const PoolGeometry& g);

}  // namespace ember
