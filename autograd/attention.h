// Causal attention as one autograd primitive, where the backend has the fused kernel
// (Backend::causal_attention), else composed from differentiable ops.
// nn::functional::scaled_dot_product_attention(..., is_causal=true) calls it.
#pragma once

#include <optional>

#include "core/tensor.h"

namespace ember::autograd {

// softmax(scale * q k^T) with key j > query i masked (top-left aligned, as PyTorch's is_causal),
// from differentiable ops. q (..., L, E), k (..., S, E) -> (..., L, S).
Tensor causal_softmax(const Tensor& q, const Tensor& k, double scale);

// causal_softmax(q, k, scale) (* noise) @ v. With the fused kernel (q (B, H, L, E), k (B, H, S, E),
// v (B, H, S, Ev) of one dtype and device, nothing broadcast or empty) it is one node,
// ScaledDotProductAttentionBackward0; otherwise the composition records its own graph. noise is
// dropout's scaled keep mask over the weights' shape (..., L, S), or undefined.
Tensor causal_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& noise, double scale);

// The same with dropout of probability dropout_p in [0, 1) on the weights. Where the backend has
// flash_attention (CUDA), its kernels draw the mask from the Philox stream (core/philox.h) and keep
// no (..., L, S) tensor; elsewhere noise = dropout_noise(weights' shape, dropout_p) (core/random.h:
// on the CPU, PyTorch's bernoulli draws) and the overload above.
Tensor causal_attention(const Tensor& q, const Tensor& k, const Tensor& v, double dropout_p, double scale);

}  // namespace ember::autograd
