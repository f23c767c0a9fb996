// The self-attention classes of "Build a Large Language Model (From Scratch)", chapter 3, each built
// from the previous one, with the tutorial's names, parameter names and construction order, so that
// the same seed gives the same weights (and the same printed numbers) as the PyTorch code.
//
//   ember::manual_seed(123);
//   ember::nn::MultiHeadAttention mha(/*d_in=*/3, /*d_out=*/2, /*context_length=*/6, /*dropout=*/0.0,
//                                     /*num_heads=*/2);
//   ember::Tensor y = mha(batch);                 // (B, T, 3) -> (B, T, 2), causal self-attention
//   ember::Tensor c = mha(queries, encoder_out);  // cross-attention over another sequence
//
// These are teaching classes: PyTorch's own nn.MultiheadAttention (fused in_proj_weight) lives in
// nn/transformer.h, and nanoGPT's fused-QKV attention in nn/gpt.h.
#pragma once

#include <cstdint>

#include "core/tensor.h"
#include "nn/nn.h"

namespace ember::nn {

// Section 3.4.1: raw weight matrices drawn with rand(d_in, d_out), applied as x @ W.
class SelfAttentionV1Impl : public Module {
 public:
  SelfAttentionV1Impl(int64_t d_in, int64_t d_out);
  // x: (T, d_in) or (B, T, d_in) -> same leading dims, d_out features.
  Tensor forward(const Tensor& x);

  Tensor W_query, W_key, W_value;  // (d_in, d_out)
};
EMBER_MODULE(SelfAttentionV1);

// Section 3.4.2: the same computation with Linear projections (weights (d_out, d_in), x @ W^T).
class SelfAttentionV2Impl : public Module {
 public:
  SelfAttentionV2Impl(int64_t d_in, int64_t d_out, bool qkv_bias = false);
  // x: (T, d_in) or (B, T, d_in) -> same leading dims, d_out features.
  Tensor forward(const Tensor& x);

  Linear W_query{nullptr}, W_key{nullptr}, W_value{nullptr};
};
EMBER_MODULE(SelfAttentionV2);

// Section 3.5: batched, causal (token t sees tokens <= t) and with dropout on the attention weights.
class CausalAttentionImpl : public Module {
 public:
  CausalAttentionImpl(int64_t d_in, int64_t d_out, int64_t context_length, double dropout, bool qkv_bias = false);
  // x: (B, T, d_in) with T <= context_length -> (B, T, d_out).
  Tensor forward(const Tensor& x);

  int64_t d_out;
  Linear W_query{nullptr}, W_key{nullptr}, W_value{nullptr};
  Dropout dropout{nullptr};
  Tensor mask;  // buffer "mask": triu(ones(context_length, context_length), 1); 1 = hidden
};
EMBER_MODULE(CausalAttention);

// Section 3.6.1: num_heads independent CausalAttention heads, outputs concatenated on the last dim.
class MultiHeadAttentionWrapperImpl : public Module {
 public:
  MultiHeadAttentionWrapperImpl(int64_t d_in, int64_t d_out, int64_t context_length, double dropout, int64_t num_heads,
                                bool qkv_bias = false);
  // x: (B, T, d_in) -> (B, T, num_heads * d_out).
  Tensor forward(const Tensor& x);

  ModuleList heads{nullptr};  // of CausalAttention
};
EMBER_MODULE(MultiHeadAttentionWrapper);

// Section 3.6.2: one projection each for queries, keys and values (d_in -> d_out), split into
// num_heads heads of d_out / num_heads features with view/transpose, then out_proj (d_out -> d_out).
class MultiHeadAttentionImpl : public Module {
 public:
  MultiHeadAttentionImpl(int64_t d_in, int64_t d_out, int64_t context_length, double dropout, int64_t num_heads,
                         bool qkv_bias = false);
  // Causal self-attention. x: (B, T, d_in), T <= context_length -> (B, T, d_out).
  Tensor forward(const Tensor& x);
  // Cross-attention: queries from x (B, T, d_in), keys and values from key_value (B, S, d_in), any S;
  // no causal mask. key_padding_mask (B, S) bool, optional: true = ignore that key (PyTorch's meaning).
  Tensor forward(const Tensor& x, const Tensor& key_value, const Tensor& key_padding_mask = {});

  int64_t d_out, num_heads, head_dim;
  Linear W_query{nullptr}, W_key{nullptr}, W_value{nullptr}, out_proj{nullptr};
  Dropout dropout{nullptr};
  Tensor mask;  // buffer "mask": triu(ones(context_length, context_length), 1); 1 = hidden

 private:
  Tensor attend(const Tensor& x, const Tensor& key_value, bool causal, const Tensor& key_padding_mask);
};
EMBER_MODULE(MultiHeadAttention);

}  // namespace ember::nn
