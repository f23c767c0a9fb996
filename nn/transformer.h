// PyTorch's transformer building blocks: nn::MultiheadAttention (one fused in_proj_weight for Q, K
// and V), nn::TransformerEncoderLayer and nn::TransformerDecoderLayer, with PyTorch's options,
// parameter names (self_attn.in_proj_weight, linear1, norm1, ...), masks and defaults, so weights
// move between the two frameworks by name and forward outputs match torch 1.13.
//
//   ember::nn::TransformerDecoderLayer layer(
//       ember::nn::TransformerDecoderLayerOptions(/*d_model=*/64, /*nhead=*/4).dim_feedforward(256).batch_first(true));
//   auto causal = ember::nn::generate_square_subsequent_mask(tgt.size(1));   // (T, T): 0 / -inf
//   ember::Tensor y = layer(tgt, memory, causal);    // (B, T, 64) attending to memory (B, S, 64)
//
// Masks follow PyTorch: attn masks are additive floats (L, S) or bool (true = not allowed);
// key padding masks are bool (N, S), true = ignore that key. Whole encoders/decoders (stacks of
// layers) are not here: a ModuleList of layers does that.
#pragma once

#include <cstdint>
#include <string>
#include <tuple>

#include "core/tensor.h"
#include "nn/nn.h"

namespace ember::nn {

// (T, T) float mask: 0 on and below the diagonal, -inf above (position t sees positions <= t).
Tensor generate_square_subsequent_mask(int64_t T);

struct MultiheadAttentionOptions {
  MultiheadAttentionOptions(int64_t embed_dim, int64_t num_heads) : embed_dim_(embed_dim), num_heads_(num_heads) {}
  MultiheadAttentionOptions& dropout(double v) {
    dropout_ = v;
    return *this;
  }
  MultiheadAttentionOptions& bias(bool v) {
    bias_ = v;
    return *this;
  }
  int64_t embed_dim_, num_heads_;
  double dropout_ = 0.0;
  bool bias_ = true;
};

// torch.nn.MultiheadAttention without kdim/vdim/add_bias_kv. Inputs are sequence-first (L, N, E),
// as in libtorch; the transformer layers transpose batch-first inputs before calling it.
class MultiheadAttentionImpl : public Module {
 public:
  MultiheadAttentionImpl(int64_t embed_dim, int64_t num_heads)
      : MultiheadAttentionImpl(MultiheadAttentionOptions(embed_dim, num_heads)) {}
  explicit MultiheadAttentionImpl(const MultiheadAttentionOptions& options);
  // query (L, N, E), key and value (S, N, E) -> (output (L, N, E), weights averaged over heads (N, L, S)
  // when need_weights, else undefined).
  std::tuple<Tensor, Tensor> forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                     const Tensor& key_padding_mask = {}, bool need_weights = true,
                                     const Tensor& attn_mask = {});

  MultiheadAttentionOptions options;
  Tensor in_proj_weight;  // (3E, E): rows [0, E) queries, [E, 2E) keys, [2E, 3E) values
  Tensor in_proj_bias;    // (3E), undefined without bias
  Linear out_proj{nullptr};
};
EMBER_MODULE(MultiheadAttention);

struct TransformerEncoderLayerOptions {
  TransformerEncoderLayerOptions(int64_t d_model, int64_t nhead) : d_model_(d_model), nhead_(nhead) {}
  TransformerEncoderLayerOptions& dim_feedforward(int64_t v) {
    dim_feedforward_ = v;
    return *this;
  }
  TransformerEncoderLayerOptions& dropout(double v) {
    dropout_ = v;
    return *this;
  }
  TransformerEncoderLayerOptions& activation(std::string v) {
    activation_ = std::move(v);
    return *this;
  }
  TransformerEncoderLayerOptions& layer_norm_eps(double v) {
    layer_norm_eps_ = v;
    return *this;
  }
  TransformerEncoderLayerOptions& batch_first(bool v) {
    batch_first_ = v;
    return *this;
  }
  TransformerEncoderLayerOptions& norm_first(bool v) {
    norm_first_ = v;
    return *this;
  }
  int64_t d_model_, nhead_;
  int64_t dim_feedforward_ = 2048;
  double dropout_ = 0.1;
  std::string activation_ = "relu";  // "relu" or "gelu"
  double layer_norm_eps_ = 1e-5;
  bool batch_first_ = false;  // inputs (N, L, E) when true, (L, N, E) otherwise
  bool norm_first_ = false;   // pre-LayerNorm (x + f(norm(x))) when true, post (norm(x + f(x))) otherwise
};
using TransformerDecoderLayerOptions = TransformerEncoderLayerOptions;

// Self-attention then a feed-forward network, each with a residual connection and LayerNorm.
class TransformerEncoderLayerImpl : public Module {
 public:
  TransformerEncoderLayerImpl(int64_t d_model, int64_t nhead)
      : TransformerEncoderLayerImpl(TransformerEncoderLayerOptions(d_model, nhead)) {}
  explicit TransformerEncoderLayerImpl(const TransformerEncoderLayerOptions& options);
  // src (N, L, E) or (L, N, E); src_mask (L, L); src_key_padding_mask (N, L) bool.
  Tensor forward(const Tensor& src, const Tensor& src_mask = {}, const Tensor& src_key_padding_mask = {});

  TransformerEncoderLayerOptions options;
  MultiheadAttention self_attn{nullptr};
  Linear linear1{nullptr}, linear2{nullptr};
  Dropout dropout{nullptr}, dropout1{nullptr}, dropout2{nullptr};
  LayerNorm norm1{nullptr}, norm2{nullptr};

 private:
  Tensor self_attention_block(const Tensor& x, const Tensor& mask, const Tensor& key_padding_mask);
  Tensor feed_forward_block(const Tensor& x);
};
EMBER_MODULE(TransformerEncoderLayer);

// Self-attention over the target, cross-attention over the encoder's output (memory), then a
// feed-forward network; each with a residual connection and LayerNorm.
class TransformerDecoderLayerImpl : public Module {
 public:
  TransformerDecoderLayerImpl(int64_t d_model, int64_t nhead)
      : TransformerDecoderLayerImpl(TransformerDecoderLayerOptions(d_model, nhead)) {}
  explicit TransformerDecoderLayerImpl(const TransformerDecoderLayerOptions& options);
  // tgt (N, T, E) or (T, N, E); memory (N, S, E) or (S, N, E); tgt_mask (T, T); memory_mask (T, S);
  // key padding masks (N, T) and (N, S) bool.
  Tensor forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask = {}, const Tensor& memory_mask = {},
                 const Tensor& tgt_key_padding_mask = {}, const Tensor& memory_key_padding_mask = {});

  TransformerDecoderLayerOptions options;
  MultiheadAttention self_attn{nullptr}, multihead_attn{nullptr};
  Linear linear1{nullptr}, linear2{nullptr};
  Dropout dropout{nullptr}, dropout1{nullptr}, dropout2{nullptr}, dropout3{nullptr};
  LayerNorm norm1{nullptr}, norm2{nullptr}, norm3{nullptr};

 private:
  Tensor feed_forward_block(const Tensor& x);
};
EMBER_MODULE(TransformerDecoderLayer);

}  // namespace ember::nn
