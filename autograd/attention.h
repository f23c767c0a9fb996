// Causal attention as one autograd primitive, where the backend has the fused kernel
// (Backend::causal_attention). nn::functional::scaled_dot_product_attention(..., is_causal=true)
// uses it and falls back to its composed form when this returns nothing.
#pragma once

#include <optional>

#include "core/tensor.h"

namespace ember::autograd {

// softmax(scale * q k^T, causal) (* noise) @ v for q (B, H, L, E), k (B, H, S, E), v (B, H, S, Ev),
// recorded as ScaledDotProductAttentionBackward0. noise is dropout's scaled keep mask (B, H, L, S),
// or undefined. std::nullopt when the fused path does not apply (device, dtype, shapes).
std::optional<Tensor> fused_causal_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& noise,
                                             double scale);

}  // namespace ember::autograd
