// Convolution as torch::conv1d / conv2d / conv3d / conv_transpose1d / conv_transpose2d / conv_transpose3d, and the
// sliding-block primitives under them, torch::im2col / col2im (F::unfold / F::fold in nn/conv.h).
//
//   ember::Tensor x = ember::randn({8, 3, 28, 28});
//   ember::Tensor w = ember::randn({16, 3, 3, 3}, ember::requires_grad());
//   ember::Tensor y = ember::conv2d(x, w, {}, /*stride=*/2, /*padding=*/1);   // (8, 16, 14, 14)
//
// Each convolution is im2col, one matmul batched over (batch, group) and, for the transposed one,
// col2im: compositions of differentiable ops, so every gradient (and double backward) comes from
// im2col's and col2im's backward, which are each other. The 3-d forms are one 2-d convolution over
// planes gathered along the depth (index_select, and index_add for the transposed one). Not here:
// padding modes other than zeros, and a direct (Winograd, oneDNN) algorithm.
#pragma once

#include <cstdint>

#include "core/tensor.h"

namespace ember {

// The blocks of an image as columns. input (N, C, H, W) -> (N, C*kh*kw, L), L = number of blocks;
// column l holds block l's values in (c, ki, kj) order, zero where it reaches into the padding.
Tensor im2col(const Tensor& input, IntArrayRef kernel_size, IntArrayRef dilation, IntArrayRef padding,
              IntArrayRef stride);
// The adjoint: columns (N, C*kh*kw, L) summed back into an image (N, C, output_size).
Tensor col2im(const Tensor& input, IntArrayRef output_size, IntArrayRef kernel_size, IntArrayRef dilation,
              IntArrayRef padding, IntArrayRef stride);

// input (N, C_in, L) or (C_in, L), weight (C_out, C_in / groups, k), bias (C_out) or undefined.
Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, IntArrayRef stride = 1,
              IntArrayRef padding = 0, IntArrayRef dilation = 1, int64_t groups = 1);
// input (N, C_in, H, W) or (C_in, H, W), weight (C_out, C_in / groups, kh, kw), bias (C_out).
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, IntArrayRef stride = 1,
              IntArrayRef padding = 0, IntArrayRef dilation = 1, int64_t groups = 1);
// The adjoint of conv2d in its input: input (N, C_in, H, W) or (C_in, H, W),
// weight (C_in, C_out / groups, kh, kw), bias (C_out); out size (H-1)*stride - 2*padding +
// dilation*(k-1) + output_padding + 1.
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, IntArrayRef stride = 1,
                        IntArrayRef padding = 0, IntArrayRef output_padding = 0, int64_t groups = 1,
                        IntArrayRef dilation = 1);

// input (N, C_in, D, H, W) or (C_in, D, H, W), weight (C_out, C_in / groups, kd, kh, kw), bias (C_out).
Tensor conv3d(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, IntArrayRef stride = 1,
              IntArrayRef padding = 0, IntArrayRef dilation = 1, int64_t groups = 1);
// The adjoint of conv1d in its input: input (N, C_in, L) or (C_in, L), weight (C_in, C_out / groups, k).
Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, IntArrayRef stride = 1,
                        IntArrayRef padding = 0, IntArrayRef output_padding = 0, int64_t groups = 1,
                        IntArrayRef dilation = 1);
// The adjoint of conv3d in its input: input (N, C_in, D, H, W) or (C_in, D, H, W),
// weight (C_in, C_out / groups, kd, kh, kw).
Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, IntArrayRef stride = 1,
                        IntArrayRef padding = 0, IntArrayRef output_padding = 0, int64_t groups = 1,
                        IntArrayRef dilation = 1);

namespace detail {

// conv1d / conv2d / conv3d with "same" padding ("valid" is padding 0): the total padding dilation*(k-1) of
// each dim split as PyTorch does, the smaller half first. Stride must be 1.
Tensor conv_same(const char* op, int64_t dims, const Tensor& input, const Tensor& weight, const Tensor& bias,
                 IntArrayRef dilation, int64_t groups);

}  // namespace detail

}  // namespace ember
