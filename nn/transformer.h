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
// key padding masks are bool (N, S), true = ignore that key. The stacks (nn::TransformerEncoder,
// nn::TransformerDecoder) and the whole nn::Transformer follow libtorch 1.13's C++ classes: options,
// clones of one layer, parameter names, and the order of the initial draws.
//
//   ember::nn::Transformer model(ember::nn::TransformerOptions(/*d_model=*/64, /*nhead=*/4, 2, 2).dropout(0.0));
//   auto mask = ember::nn::TransformerImpl::generate_square_subsequent_mask(tgt.size(0));
//   ember::Tensor out = model(src, tgt, /*src_mask=*/{}, mask);    // (T, N, 64)
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <tuple>
#include <utility>
#include <variant>

#include "core/tensor.h"
#include "nn/nn.h"

namespace ember::nn {

// (T, T) float mask: 0 on and below the diagonal, -inf above (position t sees positions <= t).
Tensor generate_square_subsequent_mask(int64_t T);

struct MultiheadAttentionOptions {
  MultiheadAttentionOptions(int64_t embed_dim, int64_t num_heads)
      : embed_dim_(embed_dim), num_heads_(num_heads), kdim_(embed_dim), vdim_(embed_dim) {}
  EMBER_ARG(int64_t, embed_dim);
  EMBER_ARG(int64_t, num_heads);
  EMBER_ARG(double, dropout) = 0.0;  // on the attention weights, in training
  EMBER_ARG(bool, bias) = true;      // in_proj_bias and out_proj.bias
  // Learned key and value rows (bias_k, bias_v (1, 1, E)) appended to every sequence's keys and values.
  EMBER_ARG(bool, add_bias_kv) = false;
  // A key and value of zeros appended after them (so a query may attend to "nothing").
  EMBER_ARG(bool, add_zero_attn) = false;
  // The keys' and values' feature sizes (default embed_dim); either differing gives separate
  // q_proj_weight (E, E), k_proj_weight (E, kdim) and v_proj_weight (E, vdim) instead of in_proj_weight.
  EMBER_ARG(int64_t, kdim);
  EMBER_ARG(int64_t, vdim);
};

namespace functional {

struct MultiheadAttentionForwardFuncOptions {
  MultiheadAttentionForwardFuncOptions(int64_t embed_dim_to_check, int64_t num_heads, Tensor in_proj_weight,
                                       Tensor in_proj_bias, Tensor bias_k, Tensor bias_v, bool add_zero_attn,
                                       double dropout_p, Tensor out_proj_weight, Tensor out_proj_bias)
      : embed_dim_to_check_(embed_dim_to_check),
        num_heads_(num_heads),
        in_proj_weight_(std::move(in_proj_weight)),
        in_proj_bias_(std::move(in_proj_bias)),
        bias_k_(std::move(bias_k)),
        bias_v_(std::move(bias_v)),
        add_zero_attn_(add_zero_attn),
        dropout_p_(dropout_p),
        out_proj_weight_(std::move(out_proj_weight)),
        out_proj_bias_(std::move(out_proj_bias)) {}
  EMBER_ARG(int64_t, embed_dim_to_check);
  EMBER_ARG(int64_t, num_heads);
  EMBER_ARG(Tensor, in_proj_weight);  // (3E, E): query rows, then key rows, then value rows
  EMBER_ARG(Tensor, in_proj_bias);    // (3E) or undefined
  EMBER_ARG(Tensor, bias_k);          // (1, 1, E) or undefined (with bias_v)
  EMBER_ARG(Tensor, bias_v);
  EMBER_ARG(bool, add_zero_attn);
  EMBER_ARG(double, dropout_p);
  EMBER_ARG(Tensor, out_proj_weight);  // (E, E)
  EMBER_ARG(Tensor, out_proj_bias);    // (E) or undefined
  EMBER_ARG(bool, training) = false;   // dropout only in training
  EMBER_ARG(Tensor, key_padding_mask) = {};
  EMBER_ARG(bool, need_weights) = true;
  EMBER_ARG(Tensor, attn_mask) = {};
  EMBER_ARG(bool, use_separate_proj_weight) = false;  // then q/k/v_proj_weight instead of in_proj_weight
  EMBER_ARG(Tensor, q_proj_weight) = {};
  EMBER_ARG(Tensor, k_proj_weight) = {};
  EMBER_ARG(Tensor, v_proj_weight) = {};
  EMBER_ARG(Tensor, static_k) = {};  // (N * NH, S, HS): keys used as they are, after the projection
  EMBER_ARG(Tensor, static_v) = {};
  EMBER_ARG(bool, average_attn_weights) = true;  // weights (N, L, S) averaged over heads, else (N, NH, L, S)
};

// Attention of query (L, N, E) over key (S, N, kdim) and value (S, N, vdim), sequence first, as
// torch.nn.functional.multi_head_attention_forward: project, split into NH heads, add bias_k/bias_v
// and a zero attention when asked, softmax(q k^T / sqrt(HS) + masks), dropout, @ v, out_proj.
// attn_mask (L, S) or (N * NH, L, S): bool (true = not allowed) or additive floats; key_padding_mask
// (N, S): bool (true = ignore that key) or additive floats. Returns (output (L, N, E), weights or
// undefined when !need_weights).
std::tuple<Tensor, Tensor> multi_head_attention_forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                                        const MultiheadAttentionForwardFuncOptions& options);

}  // namespace functional

// torch.nn.MultiheadAttention. Inputs are sequence-first (L, N, E), as in libtorch; the transformer
// layers transpose batch-first inputs before calling it.
class MultiheadAttentionImpl : public Cloneable<MultiheadAttentionImpl> {
 public:
  MultiheadAttentionImpl(int64_t embed_dim, int64_t num_heads);
  explicit MultiheadAttentionImpl(const MultiheadAttentionOptions& options);
  // Registers the parameters, out_proj as a Linear (which draws its own), then _reset_parameters().
  void reset() override;
  // in_proj_weight (or q/k/v_proj_weight) ~ xavier_uniform, in_proj_bias and out_proj.bias 0,
  // bias_k and bias_v ~ xavier_normal (out_proj.weight is kept).
  void _reset_parameters();
  // query (L, N, E), key (S, N, kdim), value (S, N, vdim) -> (output (L, N, E), the attention weights
  // (N, L, S) averaged over heads, or (N, NH, L, S) when !average_attn_weights; undefined when
  // !need_weights). S counts the bias_k and zero-attention columns when those are on.
  std::tuple<Tensor, Tensor> forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                     const Tensor& key_padding_mask = {}, bool need_weights = true,
                                     const Tensor& attn_mask = {}, bool average_attn_weights = true);
  EMBER_FORWARD_HAS_DEFAULT_ARGS({3, AnyValue(Tensor())}, {4, AnyValue(true)}, {5, AnyValue(Tensor())},
                                 {6, AnyValue(true)})

  MultiheadAttentionOptions options;
  bool _qkv_same_embed_dim = true;
  int64_t head_dim = 0;
  Tensor in_proj_weight;  // (3E, E): rows [0, E) queries, [E, 2E) keys, [2E, 3E) values; undefined with kdim/vdim
  Tensor in_proj_bias;    // (3E), undefined without bias
  Tensor bias_k;          // (1, 1, E) with add_bias_kv
  Tensor bias_v;
  Linear out_proj{nullptr};
  Tensor q_proj_weight;  // (E, E), (E, kdim), (E, vdim) when kdim or vdim differ from E
  Tensor k_proj_weight;
  Tensor v_proj_weight;
};
EMBER_MODULE(MultiheadAttention);

}  // namespace ember::nn

// The feed-forward activation of the transformer layers: torch::kReLU (nn/init.h), torch::kGELU or
// any function (tags as torch::enumtype's).
namespace ember {
namespace enumtype {
struct kGELU {};
}  // namespace enumtype
inline constexpr enumtype::kGELU kGELU{};
}  // namespace ember

namespace ember::nn {

using activation_t = std::variant<enumtype::kReLU, enumtype::kGELU, std::function<Tensor(const Tensor&)>>;

struct TransformerEncoderLayerOptions {
  TransformerEncoderLayerOptions(int64_t d_model, int64_t nhead) : d_model_(d_model), nhead_(nhead) {}
  EMBER_ARG(int64_t, d_model);
  EMBER_ARG(int64_t, nhead);
  EMBER_ARG(int64_t, dim_feedforward) = 2048;
  EMBER_ARG(double, dropout) = 0.1;
  EMBER_ARG(activation_t, activation) = enumtype::kReLU{};
  EMBER_ARG(double, layer_norm_eps) = 1e-5;
  EMBER_ARG(bool, batch_first) = false;  // inputs (N, L, E) when true, (L, N, E) otherwise (as libtorch 1.13)
  EMBER_ARG(bool, norm_first) = false;   // pre-LayerNorm (x + f(norm(x))) when true, post (norm(x + f(x)))

 public:
  // PyTorch's spelling: "relu" or "gelu".
  TransformerEncoderLayerOptions& activation(const std::string& name);
  TransformerEncoderLayerOptions& activation(const char* name) { return activation(std::string(name)); }
};
using TransformerDecoderLayerOptions = TransformerEncoderLayerOptions;

// Self-attention then a feed-forward network, each with a residual connection and LayerNorm.
class TransformerEncoderLayerImpl : public Cloneable<TransformerEncoderLayerImpl> {
 public:
  TransformerEncoderLayerImpl(int64_t d_model, int64_t nhead);
  explicit TransformerEncoderLayerImpl(const TransformerEncoderLayerOptions& options);
  void reset() override;    // registers (and draws) every submodule, in PyTorch's order
  void reset_parameters();  // draws the parameters again, in the same order
  // src (N, L, E) or (L, N, E); src_mask (L, L); src_key_padding_mask (N, L) bool.
  Tensor forward(const Tensor& src, const Tensor& src_mask = {}, const Tensor& src_key_padding_mask = {});
  EMBER_FORWARD_HAS_DEFAULT_ARGS({1, AnyValue(Tensor())}, {2, AnyValue(Tensor())})

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
class TransformerDecoderLayerImpl : public Cloneable<TransformerDecoderLayerImpl> {
 public:
  TransformerDecoderLayerImpl(int64_t d_model, int64_t nhead);
  explicit TransformerDecoderLayerImpl(const TransformerDecoderLayerOptions& options);
  void reset() override;
  void reset_parameters();
  // tgt (N, T, E) or (T, N, E); memory (N, S, E) or (S, N, E); tgt_mask (T, T); memory_mask (T, S);
  // key padding masks (N, T) and (N, S) bool.
  Tensor forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask = {}, const Tensor& memory_mask = {},
                 const Tensor& tgt_key_padding_mask = {}, const Tensor& memory_key_padding_mask = {});
  EMBER_FORWARD_HAS_DEFAULT_ARGS({2, AnyValue(Tensor())}, {3, AnyValue(Tensor())}, {4, AnyValue(Tensor())},
                                 {5, AnyValue(Tensor())})

  TransformerDecoderLayerOptions options;
  MultiheadAttention self_attn{nullptr}, multihead_attn{nullptr};
  Linear linear1{nullptr}, linear2{nullptr};
  Dropout dropout{nullptr}, dropout1{nullptr}, dropout2{nullptr}, dropout3{nullptr};
  LayerNorm norm1{nullptr}, norm2{nullptr}, norm3{nullptr};

 private:
  Tensor feed_forward_block(const Tensor& x);
};
EMBER_MODULE(TransformerDecoderLayer);

// ---- stacks of layers ----

struct TransformerEncoderOptions {
  // The stack holds num_layers clones of encoder_layer (same values; libtorch's clone() draws for each).
  TransformerEncoderOptions(TransformerEncoderLayer encoder_layer, int64_t num_layers)
      : encoder_layer_(std::move(encoder_layer)), num_layers_(num_layers) {}
  TransformerEncoderOptions(const TransformerEncoderLayerOptions& encoder_layer_options, int64_t num_layers)
      : encoder_layer_(encoder_layer_options), num_layers_(num_layers) {}
  EMBER_ARG(TransformerEncoderLayer, encoder_layer) = nullptr;
  EMBER_ARG(int64_t, num_layers);
  EMBER_ARG(AnyModule, norm);  // applied to the last layer's output when given (a LayerNorm, usually)
};

struct TransformerDecoderOptions {
  TransformerDecoderOptions(TransformerDecoderLayer decoder_layer, int64_t num_layers)
      : decoder_layer_(std::move(decoder_layer)), num_layers_(num_layers) {}
  TransformerDecoderOptions(const TransformerDecoderLayerOptions& decoder_layer_options, int64_t num_layers)
      : decoder_layer_(decoder_layer_options), num_layers_(num_layers) {}
  EMBER_ARG(TransformerDecoderLayer, decoder_layer) = nullptr;
  EMBER_ARG(int64_t, num_layers);
  EMBER_ARG(AnyModule, norm);
};

// num_layers encoder layers applied in turn (parameters layers.0..., then norm.*).
class TransformerEncoderImpl : public Cloneable<TransformerEncoderImpl> {
 public:
  TransformerEncoderImpl(TransformerEncoderLayer encoder_layer, int64_t num_layers);
  explicit TransformerEncoderImpl(TransformerEncoderOptions options);
  // src (S, N, E) (or (N, S, E) for batch_first layers); src_mask (S, S); src_key_padding_mask (N, S).
  Tensor forward(const Tensor& src, const Tensor& src_mask = {}, const Tensor& src_key_padding_mask = {});
  EMBER_FORWARD_HAS_DEFAULT_ARGS({1, AnyValue(Tensor())}, {2, AnyValue(Tensor())})
  void reset() override;
  // Each layer draws its parameters again; norm becomes a fresh clone of options.norm().
  void reset_parameters();

  TransformerEncoderOptions options;
  ModuleList layers = nullptr;
  AnyModule norm;
};
EMBER_MODULE(TransformerEncoder);

// num_layers decoder layers applied in turn, each attending to the same memory.
class TransformerDecoderImpl : public Cloneable<TransformerDecoderImpl> {
 public:
  TransformerDecoderImpl(TransformerDecoderLayer decoder_layer, int64_t num_layers);
  explicit TransformerDecoderImpl(TransformerDecoderOptions options);
  // tgt (T, N, E); memory (S, N, E); tgt_mask (T, T); memory_mask (T, S); padding masks (N, T), (N, S).
  Tensor forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask = {}, const Tensor& memory_mask = {},
                 const Tensor& tgt_key_padding_mask = {}, const Tensor& memory_key_padding_mask = {});
  EMBER_FORWARD_HAS_DEFAULT_ARGS({2, AnyValue(Tensor())}, {3, AnyValue(Tensor())}, {4, AnyValue(Tensor())},
                                 {5, AnyValue(Tensor())})
  void reset() override;
  void reset_parameters();

  TransformerDecoderOptions options;
  ModuleList layers{nullptr};
  AnyModule norm;
};
EMBER_MODULE(TransformerDecoder);

struct TransformerOptions {
  TransformerOptions() = default;
  TransformerOptions(int64_t d_model, int64_t nhead) : d_model_(d_model), nhead_(nhead) {}
  TransformerOptions(int64_t d_model, int64_t nhead, int64_t num_encoder_layers, int64_t num_decoder_layers)
      : d_model_(d_model),
        nhead_(nhead),
        num_encoder_layers_(num_encoder_layers),
        num_decoder_layers_(num_decoder_layers) {}
  EMBER_ARG(int64_t, d_model) = 512;
  EMBER_ARG(int64_t, nhead) = 8;
  EMBER_ARG(int64_t, num_encoder_layers) = 6;
  EMBER_ARG(int64_t, num_decoder_layers) = 6;
  EMBER_ARG(int64_t, dim_feedforward) = 2048;
  EMBER_ARG(double, dropout) = 0.1;
  EMBER_ARG(activation_t, activation) = enumtype::kReLU{};
  // Replace the encoder / decoder: called as forward(src, src_mask, src_key_padding_mask) and
  // forward(tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask).
  EMBER_ARG(AnyModule, custom_encoder);
  EMBER_ARG(AnyModule, custom_decoder);
};

// The encoder-decoder model of "Attention Is All You Need", as torch::nn::Transformer (sequence first:
// src (S, N, E), tgt (T, N, E) -> (T, N, E)). Built like libtorch's: an encoder and a decoder, each
// with a final LayerNorm, then reset_parameters(): xavier_uniform_ on every parameter of dim > 1, in
// order, so a seeded program gets libtorch's values.
class TransformerImpl : public Cloneable<TransformerImpl> {
 public:
  explicit TransformerImpl(TransformerOptions options);
  Tensor forward(const Tensor& src, const Tensor& tgt, const Tensor& src_mask = {}, const Tensor& tgt_mask = {},
                 const Tensor& memory_mask = {}, const Tensor& src_key_padding_mask = {},
                 const Tensor& tgt_key_padding_mask = {}, const Tensor& memory_key_padding_mask = {});
  EMBER_FORWARD_HAS_DEFAULT_ARGS({2, AnyValue(Tensor())}, {3, AnyValue(Tensor())}, {4, AnyValue(Tensor())},
                                 {5, AnyValue(Tensor())}, {6, AnyValue(Tensor())}, {7, AnyValue(Tensor())})
  void reset() override;
  void reset_parameters();
  // The causal mask: (sz, sz) float, 0 on and below the diagonal, -inf above.
  static Tensor generate_square_subsequent_mask(int64_t sz);

  TransformerOptions options;
  AnyModule encoder;
  AnyModule decoder;
};
EMBER_MODULE(Transformer);

}  // namespace ember::nn
