// The tutorial's attention classes (nn/attention.h). Each forward is written the way chapter 3
// writes it: scores = queries @ keys^T, hidden positions set to -inf, softmax(scores / sqrt(d_k)),
// dropout on the weights, weights @ values. Sizes: B batch, T query tokens, S key tokens,
// NH heads, HS head size.
#include "nn/attention.h"

#include <cmath>
#include <limits>

#include "core/random.h"

namespace ember::nn {
namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// triu(ones(n, n), 1): 1 above the diagonal, where a query would see a later token.
Tensor causal_mask(int64_t n) { return ember::triu(ember::ones({n, n}), 1); }

// The top-left (T, T) block of a float mask buffer, as a bool mask for masked_fill.
Tensor mask_block(const Tensor& mask, int64_t T) { return mask.slice(0, 0, T).slice(1, 0, T).to(kBool); }

// Checks the last dim of x is the module's input size, naming the module and the shapes.
void check_features(const char* op, const Tensor& x, int64_t d_in) {
  EMBER_CHECK(x.size(-1) == d_in, "{}: input has {} features but the module expects d_in = {} (input {})", op,
              x.size(-1), d_in, x.sizes());
}

void check_dims(const char* op, const Tensor& x, int64_t lo, int64_t hi, const char* expected) {
  EMBER_CHECK(x.dim() >= lo && x.dim() <= hi, "{}: expected input of shape {}, got {}", op, expected, x.sizes());
}

void check_context(const char* op, int64_t T, const Tensor& mask) {
  EMBER_CHECK(T <= mask.size(0), "{}: input has {} tokens but context_length is {}", op, T, mask.size(0));
}

// softmax(scores / sqrt(d_k)) over the keys (last dim).
Tensor scaled_softmax(const Tensor& scores, int64_t d_k) {
  return ember::softmax(scores / std::sqrt(static_cast<double>(d_k)), -1);
}

}  // namespace

// ---- SelfAttentionV1 ----

SelfAttentionV1Impl::SelfAttentionV1Impl(int64_t d_in, int64_t d_out) {
  W_query = register_parameter("W_query", ember::rand({d_in, d_out}));
  W_key = register_parameter("W_key", ember::rand({d_in, d_out}));
  W_value = register_parameter("W_value", ember::rand({d_in, d_out}));
}

Tensor SelfAttentionV1Impl::forward(const Tensor& x) {
  check_dims("SelfAttentionV1", x, 2, 3, "(T, d_in) or (B, T, d_in)");
  check_features("SelfAttentionV1", x, W_query.size(0));
  Tensor keys = x.matmul(W_key);                   // (T, d_out)
  Tensor queries = x.matmul(W_query);              // (T, d_out)
  Tensor values = x.matmul(W_value);               // (T, d_out)
  Tensor attn_scores = queries.matmul(keys.mT());  // (T, T): omega
  Tensor attn_weights = scaled_softmax(attn_scores, keys.size(-1));
  return attn_weights.matmul(values);
}

// ---- SelfAttentionV2 ----

SelfAttentionV2Impl::SelfAttentionV2Impl(int64_t d_in, int64_t d_out, bool qkv_bias) {
  W_query = register_module("W_query", Linear(LinearOptions(d_in, d_out).bias(qkv_bias)));
  W_key = register_module("W_key", Linear(LinearOptions(d_in, d_out).bias(qkv_bias)));
  W_value = register_module("W_value", Linear(LinearOptions(d_in, d_out).bias(qkv_bias)));
}

Tensor SelfAttentionV2Impl::forward(const Tensor& x) {
  check_dims("SelfAttentionV2", x, 2, 3, "(T, d_in) or (B, T, d_in)");
  check_features("SelfAttentionV2", x, W_query->weight.size(1));
  Tensor keys = W_key(x);
  Tensor queries = W_query(x);
  Tensor values = W_value(x);
  Tensor attn_scores = queries.matmul(keys.mT());
  Tensor attn_weights = scaled_softmax(attn_scores, keys.size(-1));
  return attn_weights.matmul(values);
}

// ---- CausalAttention ----

CausalAttentionImpl::CausalAttentionImpl(int64_t d_in, int64_t d_out, int64_t context_length, double dropout_p,
                                         bool qkv_bias)
    : d_out(d_out) {
  W_query = register_module("W_query", Linear(LinearOptions(d_in, d_out).bias(qkv_bias)));
  W_key = register_module("W_key", Linear(LinearOptions(d_in, d_out).bias(qkv_bias)));
  W_value = register_module("W_value", Linear(LinearOptions(d_in, d_out).bias(qkv_bias)));
  dropout = register_module("dropout", Dropout(dropout_p));
  mask = register_buffer("mask", causal_mask(context_length));
}

Tensor CausalAttentionImpl::forward(const Tensor& x) {
  check_dims("CausalAttention", x, 3, 3, "(B, T, d_in)");
  check_features("CausalAttention", x, W_query->weight.size(1));
  int64_t T = x.size(1);
  check_context("CausalAttention", T, mask);
  Tensor keys = W_key(x);                                     // (B, T, d_out)
  Tensor queries = W_query(x);                                // (B, T, d_out)
  Tensor values = W_value(x);                                 // (B, T, d_out)
  Tensor attn_scores = queries.matmul(keys.transpose(1, 2));  // (B, T, T)
  attn_scores = attn_scores.masked_fill(mask_block(mask, T), kNegInf);
  Tensor attn_weights = dropout(scaled_softmax(attn_scores, keys.size(-1)));
  return attn_weights.matmul(values);
}

// ---- MultiHeadAttentionWrapper ----

MultiHeadAttentionWrapperImpl::MultiHeadAttentionWrapperImpl(int64_t d_in, int64_t d_out, int64_t context_length,
                                                             double dropout, int64_t num_heads, bool qkv_bias) {
  EMBER_CHECK(num_heads > 0, "MultiHeadAttentionWrapper: num_heads must be positive, got {}", num_heads);
  heads = register_module("heads", ModuleList());
  for (int64_t h = 0; h < num_heads; ++h) {
    heads->push_back(CausalAttention(d_in, d_out, context_length, dropout, qkv_bias));
  }
}

Tensor MultiHeadAttentionWrapperImpl::forward(const Tensor& x) {
  tensor_list outputs;
  for (size_t h = 0; h < heads->size(); ++h) outputs.push_back(heads->at<CausalAttentionImpl>(h).forward(x));
  return ember::cat(outputs, -1);
}

// ---- MultiHeadAttention ----

MultiHeadAttentionImpl::MultiHeadAttentionImpl(int64_t d_in, int64_t d_out, int64_t context_length, double dropout_p,
                                               int64_t num_heads, bool qkv_bias)
    : d_out(d_out), num_heads(num_heads), head_dim(num_heads > 0 ? d_out / num_heads : 0) {
  EMBER_CHECK(num_heads > 0 && d_out % num_heads == 0,
              "MultiHeadAttention: d_out must be divisible by num_heads (d_out = {}, num_heads = {})", d_out,
              num_heads);
  W_query = register_module("W_query", Linear(LinearOptions(d_in, d_out).bias(qkv_bias)));
  W_key = register_module("W_key", Linear(LinearOptions(d_in, d_out).bias(qkv_bias)));
  W_value = register_module("W_value", Linear(LinearOptions(d_in, d_out).bias(qkv_bias)));
  out_proj = register_module("out_proj", Linear(d_out, d_out));
  dropout = register_module("dropout", Dropout(dropout_p));
  mask = register_buffer("mask", causal_mask(context_length));
}

Tensor MultiHeadAttentionImpl::forward(const Tensor& x) { return attend(x, x, /*causal=*/true, {}); }

Tensor MultiHeadAttentionImpl::forward(const Tensor& x, const Tensor& key_value, const Tensor& key_padding_mask) {
  return attend(x, key_value, /*causal=*/false, key_padding_mask);
}

Tensor MultiHeadAttentionImpl::attend(const Tensor& x, const Tensor& key_value, bool causal,
                                      const Tensor& key_padding_mask) {
  const char* op = "MultiHeadAttention";
  check_dims(op, x, 3, 3, "(B, T, d_in)");
  check_dims(op, key_value, 3, 3, "(B, S, d_in) for keys and values");
  int64_t d_in = W_query->weight.size(1);
  check_features(op, x, d_in);
  check_features(op, key_value, d_in);
  int64_t B = x.size(0), T = x.size(1), S = key_value.size(1);
  EMBER_CHECK(key_value.size(0) == B, "{}: queries have batch size {} but keys/values have {} ({} vs {})", op, B,
              key_value.size(0), x.sizes(), key_value.sizes());
  if (causal) check_context(op, T, mask);

  // Project, then split d_out into NH heads of HS: (B, L, d_out) -> (B, NH, L, HS), views only.
  Tensor queries = W_query(x).view({B, T, num_heads, head_dim}).transpose(1, 2);
  Tensor keys = W_key(key_value).view({B, S, num_heads, head_dim}).transpose(1, 2);
  Tensor values = W_value(key_value).view({B, S, num_heads, head_dim}).transpose(1, 2);

  Tensor attn_scores = queries.matmul(keys.transpose(2, 3));  // (B, NH, T, S): one dot product per head
  if (causal) attn_scores = attn_scores.masked_fill(mask_block(mask, T), kNegInf);
  if (key_padding_mask.defined()) {
    EMBER_CHECK(key_padding_mask.dim() == 2 && key_padding_mask.size(0) == B && key_padding_mask.size(1) == S,
                "{}: key_padding_mask must have shape [{}, {}] (batch, key tokens), got {}", op, B, S,
                key_padding_mask.sizes());
    Tensor hidden = key_padding_mask.to(kBool).view({B, 1, 1, S});
    attn_scores = attn_scores.masked_fill(hidden, kNegInf);
  }
  Tensor attn_weights = dropout(scaled_softmax(attn_scores, head_dim));

  // (B, NH, T, HS) -> (B, T, NH, HS) -> (B, T, d_out): heads side by side again.
  Tensor context_vec = attn_weights.matmul(values).transpose(1, 2).contiguous().view({B, T, d_out});
  return out_proj(context_vec);
}

}  // namespace ember::nn
