// PyTorch's MultiheadAttention and transformer encoder/decoder layers (nn/transformer.h), following
// torch 1.13's F.multi_head_attention_forward step by step: project with slices of in_proj_weight,
// scale the queries by 1/sqrt(HS), add the (additive) mask to q @ k^T, softmax, dropout, @ v,
// out_proj. Sizes: L query tokens, S key tokens, N batch, E embedding, NH heads, HS = E / NH.
#include "nn/transformer.h"

#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "core/trace.h"

namespace ember::nn {
namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// A bool mask (true = not allowed) as PyTorch turns it into an additive one: 0 / -inf.
Tensor additive_mask(const Tensor& mask, ScalarType dtype) {
  if (mask.dtype() != kBool) return mask;
  return ember::zeros(mask.sizes(), ember::dtype(dtype)).masked_fill(mask, kNegInf);
}

Tensor activate(const activation_t& activation, const Tensor& x) {
  if (std::holds_alternative<enumtype::kGELU>(activation)) return x.gelu();
  if (std::holds_alternative<enumtype::kReLU>(activation)) return x.relu();
  return std::get<std::function<Tensor(const Tensor&)>>(activation)(x);
}

void check_layer_input(const char* op, const char* name, const Tensor& x, int64_t d_model) {
  EMBER_CHECK(x.dim() == 3, "{}: {} must be 3-d ((N, L, E) with batch_first, else (L, N, E)), got {}", op, name,
              x.sizes());
  EMBER_CHECK(x.size(2) == d_model, "{}: {} has {} features but d_model is {} ({} {})", op, name, x.size(2), d_model,
              name, x.sizes());
}

// Runs PyTorch's attention on batch-first or sequence-first inputs; returns the layout it was given.
Tensor run_attention(MultiheadAttention& mha, const Tensor& q, const Tensor& kv, const Tensor& mask,
                     const Tensor& key_padding_mask, bool batch_first) {
  if (!batch_first) return std::get<0>(mha->forward(q, kv, kv, key_padding_mask, false, mask));
  Tensor kv_t = kv.transpose(0, 1);
  Tensor out = std::get<0>(mha->forward(q.transpose(0, 1), kv_t, kv_t, key_padding_mask, false, mask));
  return out.transpose(0, 1);
}

void check_options(const char* op, const TransformerEncoderLayerOptions& o) {
  EMBER_CHECK(o.dim_feedforward() > 0, "{}: dim_feedforward must be positive, got {}", op, o.dim_feedforward());
  const auto* function = std::get_if<std::function<Tensor(const Tensor&)>>(&o.activation());
  EMBER_CHECK(function == nullptr || *function, "{}: the activation function is empty", op);
}

LayerNorm layer_norm(const TransformerEncoderLayerOptions& o) {
  return LayerNorm(LayerNormOptions({o.d_model()}).eps(o.layer_norm_eps()));
}

}  // namespace

Tensor generate_square_subsequent_mask(int64_t T) { return ember::triu(ember::full({T, T}, kNegInf), 1); }

// ---- MultiheadAttention ----

TransformerEncoderLayerOptions& TransformerEncoderLayerOptions::activation(const std::string& name) {
  EMBER_CHECK(name == "relu" || name == "gelu",
              "TransformerEncoderLayerOptions: activation must be \"relu\" or "
              "\"gelu\", got \"{}\"",
              name);
  if (name == "gelu") return activation(enumtype::kGELU{});
  return activation(enumtype::kReLU{});
}

// ---- multi_head_attention_forward and MultiheadAttention ----

namespace functional {
namespace {

// mask with `count` columns of zeros (false for bool) appended on its last dim, for the keys that
// bias_k and the zero attention add.
Tensor pad_keys(const Tensor& mask, int64_t count = 1) {
  if (!mask.defined()) return mask;
  std::vector<int64_t> sizes = mask.sizes().vec();
  sizes.back() = count;
  return cat({mask, ember::zeros(sizes, mask.options())}, -1);
}

}  // namespace

std::tuple<Tensor, Tensor> multi_head_attention_forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                                        const MultiheadAttentionForwardFuncOptions& options) {
  EMBER_TRACE_OP();
  const char* op = "multi_head_attention_forward";
  const auto& o = options;
  EMBER_CHECK(query.dim() == 3 && key.dim() == 3 && value.dim() == 3,
              "{}: query, key and value must be 3-d (sequence, batch, features), got {}, {} and {}", op, query.sizes(),
              key.sizes(), value.sizes());
  const int64_t L = query.size(0), N = query.size(1), E = query.size(2), NH = o.num_heads();
  EMBER_CHECK(E == o.embed_dim_to_check(), "{}: was expecting embedding dimension of {}, but got {} (query {})", op,
              o.embed_dim_to_check(), E, query.sizes());
  EMBER_CHECK(NH > 0 && E % NH == 0, "{}: embed_dim {} must be divisible by num_heads {}", op, E, NH);
  EMBER_CHECK(key.size(0) == value.size(0) && key.size(1) == N && value.size(1) == N,
              "{}: batch or length mismatch: query {}, key {}, value {} (key and value hold the same tokens)", op,
              query.sizes(), key.sizes(), value.sizes());
  const int64_t HS = E / NH;

  // Projections: slices of the fused in_proj_weight, or three separate weights.
  auto bias = [&](int64_t i) { return o.in_proj_bias().defined() ? o.in_proj_bias().narrow(0, i * E, E) : Tensor(); };
  Tensor q, k, v;
  if (!o.use_separate_proj_weight()) {
    EMBER_CHECK(o.in_proj_weight().defined() && o.in_proj_weight().dim() == 2 && o.in_proj_weight().size(0) == 3 * E &&
                    o.in_proj_weight().size(1) == E && key.size(2) == E && value.size(2) == E,
                "{}: in_proj_weight must be ({}, {}) with key and value of {} features, got {}, key {}, value {}", op,
                3 * E, E, E, o.in_proj_weight().sizes(), key.sizes(), value.sizes());
    q = linear(query, o.in_proj_weight().narrow(0, 0, E), bias(0));
    k = linear(key, o.in_proj_weight().narrow(0, E, E), bias(1));
    v = linear(value, o.in_proj_weight().narrow(0, 2 * E, E), bias(2));
  } else {
    const std::pair<const Tensor*, const Tensor*> parts[] = {
        {&o.q_proj_weight(), &query}, {&o.k_proj_weight(), &key}, {&o.v_proj_weight(), &value}};
    for (const auto& [weight, input] : parts) {
      EMBER_CHECK(weight->defined() && weight->dim() == 2 && weight->size(0) == E && weight->size(1) == input->size(2),
                  "{}: a separate projection weight must be ({}, {}) for an input of {}, got {}", op, E, input->size(2),
                  input->sizes(), weight->defined() ? weight->sizes() : IntArrayRef());
    }
    q = linear(query, o.q_proj_weight(), bias(0));
    k = linear(key, o.k_proj_weight(), bias(1));
    v = linear(value, o.v_proj_weight(), bias(2));
  }

  Tensor attn_mask = o.attn_mask(), key_padding_mask = o.key_padding_mask();
  EMBER_CHECK(o.bias_k().defined() == o.bias_v().defined(), "{}: bias_k and bias_v come together", op);
  if (o.bias_k().defined()) {
    EMBER_CHECK(!o.static_k().defined() && !o.static_v().defined(), "{}: bias cannot be added to static key or value",
                op);
    k = cat({k, o.bias_k().expand({1, N, E})});
    v = cat({v, o.bias_v().expand({1, N, E})});
    attn_mask = pad_keys(attn_mask);
    key_padding_mask = pad_keys(key_padding_mask);
  }
  // Heads: (tokens, N, E) -> (N, NH, tokens, HS); static keys and values are (N * NH, S, HS).
  auto heads = [&](const Tensor& x) { return x.reshape({x.size(0), N, NH, HS}).permute({1, 2, 0, 3}); };
  auto static_heads = [&](const Tensor& x, const char* name) {
    EMBER_CHECK(x.dim() == 3 && x.size(0) == N * NH && x.size(2) == HS, "{}: {} must be ({}, S, {}), got {}", op, name,
                N * NH, HS, x.sizes());
    return x.view({N, NH, x.size(1), HS});
  };
  q = heads(q);
  k = o.static_k().defined() ? static_heads(o.static_k(), "static_k") : heads(k);
  v = o.static_v().defined() ? static_heads(o.static_v(), "static_v") : heads(v);
  if (o.add_zero_attn()) {
    k = cat({k, ember::zeros({N, NH, 1, HS}, k.options())}, 2);
    v = cat({v, ember::zeros({N, NH, 1, HS}, v.options())}, 2);
    attn_mask = pad_keys(attn_mask);
    key_padding_mask = pad_keys(key_padding_mask);
  }
  const int64_t S = k.size(2);

  Tensor scores = (q / std::sqrt(static_cast<double>(HS))).matmul(k.transpose(-2, -1));  // (N, NH, L, S)
  if (attn_mask.defined()) {
    const bool ok =
        (attn_mask.dim() == 2 && attn_mask.size(0) == L && attn_mask.size(1) == S) ||
        (attn_mask.dim() == 3 && attn_mask.size(0) == N * NH && attn_mask.size(1) == L && attn_mask.size(2) == S);
    EMBER_CHECK(ok, "{}: attn_mask must be [{}, {}] or [{}, {}, {}], got {}", op, L, S, N * NH, L, S,
                attn_mask.sizes());
    Tensor m = additive_mask(attn_mask, scores.dtype());
    scores = scores + (m.dim() == 2 ? m : m.view({N, NH, L, S}));
  }
  if (key_padding_mask.defined()) {
    EMBER_CHECK(key_padding_mask.dim() == 2 && key_padding_mask.size(0) == N && key_padding_mask.size(1) == S,
                "{}: key_padding_mask must be [{}, {}] (batch, key tokens), got {}", op, N, S,
                key_padding_mask.sizes());
    scores = scores + additive_mask(key_padding_mask, scores.dtype()).view({N, 1, 1, S});
  }
  Tensor weights = ember::softmax(scores, -1);
  if (o.dropout_p() > 0) weights = dropout(weights, o.dropout_p(), o.training());

  Tensor out = weights.matmul(v).permute({2, 0, 1, 3}).reshape({L, N, E});  // heads side by side
  out = linear(out, o.out_proj_weight(), o.out_proj_bias());
  if (!o.need_weights()) return {out, Tensor()};
  return {out, o.average_attn_weights() ? weights.mean({1}) : weights};
}

}  // namespace functional

MultiheadAttentionImpl::MultiheadAttentionImpl(int64_t embed_dim, int64_t num_heads)
    : MultiheadAttentionImpl(MultiheadAttentionOptions(embed_dim, num_heads)) {}

MultiheadAttentionImpl::MultiheadAttentionImpl(const MultiheadAttentionOptions& options_) : options(options_) {
  reset();
}

void MultiheadAttentionImpl::reset() {
  const int64_t E = options.embed_dim(), NH = options.num_heads();
  EMBER_CHECK(E > 0 && NH > 0 && E % NH == 0,
              "MultiheadAttention: embed_dim must be divisible by num_heads (embed_dim = {}, num_heads = {})", E, NH);
  EMBER_CHECK(options.kdim() > 0 && options.vdim() > 0, "MultiheadAttention: kdim ({}) and vdim ({}) must be positive",
              options.kdim(), options.vdim());
  _qkv_same_embed_dim = options.kdim() == E && options.vdim() == E;
  head_dim = E / NH;
  // PyTorch's order: parameters first, then out_proj (whose Linear init draws), then the init above.
  if (_qkv_same_embed_dim) {
    in_proj_weight = register_parameter("in_proj_weight", ember::empty({3 * E, E}));
    for (const char* name : {"q_proj_weight", "k_proj_weight", "v_proj_weight"}) register_parameter(name, {}, false);
  } else {
    q_proj_weight = register_parameter("q_proj_weight", ember::empty({E, E}));
    k_proj_weight = register_parameter("k_proj_weight", ember::empty({E, options.kdim()}));
    v_proj_weight = register_parameter("v_proj_weight", ember::empty({E, options.vdim()}));
    register_parameter("in_proj_weight", {}, false);
  }
  in_proj_bias = register_parameter("in_proj_bias", options.bias() ? ember::empty({3 * E}) : Tensor(), options.bias());
  out_proj = register_module("out_proj", Linear(LinearOptions(E, E).bias(options.bias())));
  if (options.add_bias_kv()) {
    bias_k = register_parameter("bias_k", ember::empty({1, 1, E}));
    bias_v = register_parameter("bias_v", ember::empty({1, 1, E}));
  } else {
    bias_k = bias_v = Tensor();
  }
  _reset_parameters();
}

void MultiheadAttentionImpl::_reset_parameters() {
  if (_qkv_same_embed_dim) {
    init::xavier_uniform_(in_proj_weight);
  } else {
    init::xavier_uniform_(q_proj_weight);
    init::xavier_uniform_(k_proj_weight);
    init::xavier_uniform_(v_proj_weight);
  }
  if (in_proj_bias.defined()) {
    init::zeros_(in_proj_bias);
    init::zeros_(out_proj->bias);
  }
  if (bias_k.defined()) init::xavier_normal_(bias_k);
  if (bias_v.defined()) init::xavier_normal_(bias_v);
}

std::tuple<Tensor, Tensor> MultiheadAttentionImpl::forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                                           const Tensor& key_padding_mask, bool need_weights,
                                                           const Tensor& attn_mask, bool average_attn_weights) {
  functional::MultiheadAttentionForwardFuncOptions o(options.embed_dim(), options.num_heads(), in_proj_weight,
                                                     in_proj_bias, bias_k, bias_v, options.add_zero_attn(),
                                                     options.dropout(), out_proj->weight, out_proj->bias);
  o.training(is_training())
      .key_padding_mask(key_padding_mask)
      .need_weights(need_weights)
      .attn_mask(attn_mask)
      .average_attn_weights(average_attn_weights);
  if (!_qkv_same_embed_dim) {
    o.use_separate_proj_weight(true)
        .q_proj_weight(q_proj_weight)
        .k_proj_weight(k_proj_weight)
        .v_proj_weight(v_proj_weight);
  }
  return functional::multi_head_attention_forward(query, key, value, o);
}

// ---- TransformerEncoderLayer ----

TransformerEncoderLayerImpl::TransformerEncoderLayerImpl(int64_t d_model, int64_t nhead)
    : TransformerEncoderLayerImpl(TransformerEncoderLayerOptions(d_model, nhead)) {}

TransformerEncoderLayerImpl::TransformerEncoderLayerImpl(const TransformerEncoderLayerOptions& options_)
    : options(options_) {
  reset();
}

void TransformerEncoderLayerImpl::reset() {
  check_options("TransformerEncoderLayer", options);
  const auto& o = options;
  self_attn = register_module(
      "self_attn", MultiheadAttention(MultiheadAttentionOptions(o.d_model(), o.nhead()).dropout(o.dropout())));
  linear1 = register_module("linear1", Linear(o.d_model(), o.dim_feedforward()));
  dropout = register_module("dropout", Dropout(o.dropout()));
  linear2 = register_module("linear2", Linear(o.dim_feedforward(), o.d_model()));
  norm1 = register_module("norm1", layer_norm(o));
  norm2 = register_module("norm2", layer_norm(o));
  dropout1 = register_module("dropout1", Dropout(o.dropout()));
  dropout2 = register_module("dropout2", Dropout(o.dropout()));
}

void TransformerEncoderLayerImpl::reset_parameters() {
  self_attn->_reset_parameters();
  linear1->reset_parameters();
  linear2->reset_parameters();
  norm1->reset_parameters();
  norm2->reset_parameters();
}

Tensor TransformerEncoderLayerImpl::self_attention_block(const Tensor& x, const Tensor& mask,
                                                         const Tensor& key_padding_mask) {
  return dropout1(run_attention(self_attn, x, x, mask, key_padding_mask, options.batch_first()));
}

Tensor TransformerEncoderLayerImpl::feed_forward_block(const Tensor& x) {
  return dropout2(linear2(dropout(activate(options.activation(), linear1(x)))));
}

Tensor TransformerEncoderLayerImpl::forward(const Tensor& src, const Tensor& src_mask,
                                            const Tensor& src_key_padding_mask) {
  check_layer_input("TransformerEncoderLayer", "src", src, options.d_model());
  Tensor x = src;
  if (options.norm_first()) {
    x = x + self_attention_block(norm1(x), src_mask, src_key_padding_mask);
    x = x + feed_forward_block(norm2(x));
  } else {
    x = norm1(x + self_attention_block(x, src_mask, src_key_padding_mask));
    x = norm2(x + feed_forward_block(x));
  }
  return x;
}

// ---- TransformerDecoderLayer ----

TransformerDecoderLayerImpl::TransformerDecoderLayerImpl(int64_t d_model, int64_t nhead)
    : TransformerDecoderLayerImpl(TransformerDecoderLayerOptions(d_model, nhead)) {}

TransformerDecoderLayerImpl::TransformerDecoderLayerImpl(const TransformerDecoderLayerOptions& options_)
    : options(options_) {
  reset();
}

void TransformerDecoderLayerImpl::reset() {
  check_options("TransformerDecoderLayer", options);
  const auto& o = options;
  auto attention_options = MultiheadAttentionOptions(o.d_model(), o.nhead()).dropout(o.dropout());
  self_attn = register_module("self_attn", MultiheadAttention(attention_options));
  multihead_attn = register_module("multihead_attn", MultiheadAttention(attention_options));
  linear1 = register_module("linear1", Linear(o.d_model(), o.dim_feedforward()));
  dropout = register_module("dropout", Dropout(o.dropout()));
  linear2 = register_module("linear2", Linear(o.dim_feedforward(), o.d_model()));
  norm1 = register_module("norm1", layer_norm(o));
  norm2 = register_module("norm2", layer_norm(o));
  norm3 = register_module("norm3", layer_norm(o));
  dropout1 = register_module("dropout1", Dropout(o.dropout()));
  dropout2 = register_module("dropout2", Dropout(o.dropout()));
  dropout3 = register_module("dropout3", Dropout(o.dropout()));
}

void TransformerDecoderLayerImpl::reset_parameters() {
  self_attn->_reset_parameters();
  multihead_attn->_reset_parameters();
  linear1->reset_parameters();
  linear2->reset_parameters();
  norm1->reset_parameters();
  norm2->reset_parameters();
  norm3->reset_parameters();
}

Tensor TransformerDecoderLayerImpl::feed_forward_block(const Tensor& x) {
  return dropout3(linear2(dropout(activate(options.activation(), linear1(x)))));
}

Tensor TransformerDecoderLayerImpl::forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask,
                                            const Tensor& memory_mask, const Tensor& tgt_key_padding_mask,
                                            const Tensor& memory_key_padding_mask) {
  const char* op = "TransformerDecoderLayer";
  check_layer_input(op, "tgt", tgt, options.d_model());
  check_layer_input(op, "memory", memory, options.d_model());
  bool bf = options.batch_first();
  auto self_block = [&](const Tensor& x) {
    return dropout1(run_attention(self_attn, x, x, tgt_mask, tgt_key_padding_mask, bf));
  };
  auto cross_block = [&](const Tensor& x) {
    return dropout2(run_attention(multihead_attn, x, memory, memory_mask, memory_key_padding_mask, bf));
  };
  Tensor x = tgt;
  if (options.norm_first()) {
    x = x + self_block(norm1(x));
    x = x + cross_block(norm2(x));
    x = x + feed_forward_block(norm3(x));
  } else {
    x = norm1(x + self_block(x));
    x = norm2(x + cross_block(x));
    x = norm3(x + feed_forward_block(x));
  }
  return x;
}

// ---- TransformerEncoder, TransformerDecoder: clones of one layer ----

TransformerEncoderImpl::TransformerEncoderImpl(TransformerEncoderLayer encoder_layer, int64_t num_layers)
    : TransformerEncoderImpl(TransformerEncoderOptions(std::move(encoder_layer), num_layers)) {}

TransformerEncoderImpl::TransformerEncoderImpl(TransformerEncoderOptions options_) : options(std::move(options_)) {
  reset();
}

void TransformerEncoderImpl::reset() {
  EMBER_CHECK(!options.encoder_layer().is_empty(), "TransformerEncoder: encoder_layer is null");
  EMBER_CHECK(options.num_layers() >= 0, "TransformerEncoder: num_layers must not be negative, got {}",
              options.num_layers());
  layers = register_module("layers", ModuleList());
  for (int64_t i = 0; i < options.num_layers(); ++i) layers->push_back(options.encoder_layer()->clone());
  if (!options.norm().is_empty()) {
    norm = options.norm().clone();
    register_module("norm", norm.ptr());
  }
}

void TransformerEncoderImpl::reset_parameters() {
  for (size_t i = 0; i < layers->size(); ++i) layers->at<TransformerEncoderLayerImpl>(i).reset_parameters();
  if (!norm.is_empty()) {
    norm = options.norm().clone();
    replace_module("norm", norm.ptr());
  }
}

Tensor TransformerEncoderImpl::forward(const Tensor& src, const Tensor& src_mask, const Tensor& src_key_padding_mask) {
  Tensor output = src;
  for (size_t i = 0; i < layers->size(); ++i) {
    output = layers->at<TransformerEncoderLayerImpl>(i).forward(output, src_mask, src_key_padding_mask);
  }
  return norm.is_empty() ? output : norm.forward(output);
}

TransformerDecoderImpl::TransformerDecoderImpl(TransformerDecoderLayer decoder_layer, int64_t num_layers)
    : TransformerDecoderImpl(TransformerDecoderOptions(std::move(decoder_layer), num_layers)) {}

TransformerDecoderImpl::TransformerDecoderImpl(TransformerDecoderOptions options_) : options(std::move(options_)) {
  reset();
}

void TransformerDecoderImpl::reset() {
  EMBER_CHECK(!options.decoder_layer().is_empty(), "TransformerDecoder: decoder_layer is null");
  EMBER_CHECK(options.num_layers() >= 0, "TransformerDecoder: num_layers must not be negative, got {}",
              options.num_layers());
  layers = register_module("layers", ModuleList());
  for (int64_t i = 0; i < options.num_layers(); ++i) layers->push_back(options.decoder_layer()->clone());
  if (!options.norm().is_empty()) {
    norm = options.norm().clone();
    register_module("norm", norm.ptr());
  }
}

void TransformerDecoderImpl::reset_parameters() {
  for (size_t i = 0; i < layers->size(); ++i) layers->at<TransformerDecoderLayerImpl>(i).reset_parameters();
  if (!norm.is_empty()) {
    norm = options.norm().clone();
    replace_module("norm", norm.ptr());
  }
}

Tensor TransformerDecoderImpl::forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask,
                                       const Tensor& memory_mask, const Tensor& tgt_key_padding_mask,
                                       const Tensor& memory_key_padding_mask) {
  Tensor output = tgt;
  for (size_t i = 0; i < layers->size(); ++i) {
    output = layers->at<TransformerDecoderLayerImpl>(i).forward(output, memory, tgt_mask, memory_mask,
                                                                tgt_key_padding_mask, memory_key_padding_mask);
  }
  return norm.is_empty() ? output : norm.forward(output);
}

// ---- Transformer ----

TransformerImpl::TransformerImpl(TransformerOptions options_) : options(std::move(options_)) { reset(); }

void TransformerImpl::reset() {
  const auto& o = options;
  EMBER_CHECK(o.d_model() > 0 && o.nhead() > 0 && o.d_model() % o.nhead() == 0,
              "Transformer: d_model must be divisible by nhead (d_model = {}, nhead = {})", o.d_model(), o.nhead());
  // libtorch's order: the encoder's layer draws, its clones draw again, then the decoder's, then
  // reset_parameters() draws every matrix anew.
  if (o.custom_encoder().is_empty()) {
    auto layer = TransformerEncoderLayerOptions(o.d_model(), o.nhead())
                     .dim_feedforward(o.dim_feedforward())
                     .dropout(o.dropout())
                     .activation(o.activation());
    encoder = AnyModule(TransformerEncoder(TransformerEncoderOptions(layer, o.num_encoder_layers())
                                               .norm(AnyModule(LayerNorm(LayerNormOptions({o.d_model()}))))));
  } else {
    encoder = o.custom_encoder().clone();
  }
  register_module("encoder", encoder.ptr());
  if (o.custom_decoder().is_empty()) {
    auto layer = TransformerDecoderLayerOptions(o.d_model(), o.nhead())
                     .dim_feedforward(o.dim_feedforward())
                     .dropout(o.dropout())
                     .activation(o.activation());
    decoder = AnyModule(TransformerDecoder(TransformerDecoderOptions(layer, o.num_decoder_layers())
                                               .norm(AnyModule(LayerNorm(LayerNormOptions({o.d_model()}))))));
  } else {
    decoder = o.custom_decoder().clone();
  }
  register_module("decoder", decoder.ptr());
  reset_parameters();
}

void TransformerImpl::reset_parameters() {
  for (Tensor& p : parameters()) {
    if (p.dim() > 1) init::xavier_uniform_(p);
  }
}

Tensor TransformerImpl::forward(const Tensor& src, const Tensor& tgt, const Tensor& src_mask, const Tensor& tgt_mask,
                                const Tensor& memory_mask, const Tensor& src_key_padding_mask,
                                const Tensor& tgt_key_padding_mask, const Tensor& memory_key_padding_mask) {
  const char* op = "Transformer";
  EMBER_CHECK(src.dim() == 3 && tgt.dim() == 3, "{}: src and tgt should have 3 dimensions (S, N, E), but got {} and {}",
              op, src.sizes(), tgt.sizes());
  EMBER_CHECK(src.size(1) == tgt.size(1),
              "{}: src and tgt should have equal batch size (at dim 1), but got {} and {} (src {}, tgt {})", op,
              src.size(1), tgt.size(1), src.sizes(), tgt.sizes());
  EMBER_CHECK(src.size(2) == options.d_model() && tgt.size(2) == options.d_model(),
              "{}: src and tgt should have the feature size d_model = {} (at dim 2), but got {} and {}", op,
              options.d_model(), src.size(2), tgt.size(2));
  Tensor memory = encoder.forward(src, src_mask, src_key_padding_mask);
  return decoder.forward(tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask);
}

Tensor TransformerImpl::generate_square_subsequent_mask(int64_t sz) {
  EMBER_CHECK(sz > 0, "Transformer::generate_square_subsequent_mask: the size must be positive, got {}", sz);
  return nn::generate_square_subsequent_mask(sz);
}

}  // namespace ember::nn
