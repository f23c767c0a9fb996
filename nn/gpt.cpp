// nanoGPT's model in Ember (nn/gpt.h). Sizes: B batch, T tokens, C = n_embd, NH heads, HS = C / NH,
// V vocabulary. Views (split, view, transpose) carry the heads; the only copy per attention is the
// contiguous() that puts the heads side by side again before c_proj.
#include "nn/gpt.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_set>
#include <vector>

#include "autograd/grad_mode.h"
#include "core/random.h"
#include "nn/functional.h"
#include "nn/init.h"

namespace ember::nn {
namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();
constexpr double kInitStd = 0.02;  // nanoGPT's (and GPT-2's) std for every weight

// nanoGPT's LayerNorm: a weight, and a bias only when asked for.
LayerNorm layer_norm(int64_t n, bool bias) {
  LayerNorm ln(LayerNormOptions({n}).eps(1e-5));
  if (!bias) ln->bias = ln->replace_parameter("bias", Tensor());
  return ln;
}

void check_tokens(const char* op, const Tensor& x, int64_t C) {
  EMBER_CHECK(x.dim() == 3 && x.size(2) == C, "{}: expected input (B, T, {}), got {}", op, C, x.sizes());
}

}  // namespace

// ---- Head ----

HeadImpl::HeadImpl(int64_t n_embd, int64_t head_size, int64_t block_size, double dropout_p) {
  key = register_module("key", Linear(LinearOptions(n_embd, head_size).bias(false)));
  query = register_module("query", Linear(LinearOptions(n_embd, head_size).bias(false)));
  value = register_module("value", Linear(LinearOptions(n_embd, head_size).bias(false)));
  tril = register_buffer("tril", ember::tril(ember::ones({block_size, block_size})));
  dropout = register_module("dropout", Dropout(dropout_p));
}

Tensor HeadImpl::forward(const Tensor& x) {
  check_tokens("Head", x, key->weight.size(1));
  int64_t T = x.size(1);
  EMBER_CHECK(T <= tril.size(0), "Head: input has {} tokens but block_size is {}", T, tril.size(0));
  Tensor k = key(x);                                                                             // (B, T, HS)
  Tensor q = query(x);                                                                           // (B, T, HS)
  Tensor wei = q.matmul(k.transpose(-2, -1)) * std::pow(static_cast<double>(k.size(-1)), -0.5);  // (B, T, T)
  wei = wei.masked_fill(tril.slice(0, 0, T).slice(1, 0, T) == 0, kNegInf);
  wei = dropout(ember::softmax(wei, -1));
  return wei.matmul(value(x));
}

// ---- CausalSelfAttention ----

CausalSelfAttentionImpl::CausalSelfAttentionImpl(const GPTConfig& config)
    : n_head(config.n_head), n_embd(config.n_embd), dropout_p(config.dropout) {
  EMBER_CHECK(config.n_head > 0 && config.n_embd % config.n_head == 0,
              "CausalSelfAttention: n_embd must be divisible by n_head (n_embd = {}, n_head = {})", config.n_embd,
              config.n_head);
  c_attn = register_module("c_attn", Linear(LinearOptions(n_embd, 3 * n_embd).bias(config.bias)));
  c_proj = register_module("c_proj", Linear(LinearOptions(n_embd, n_embd).bias(config.bias)));
  attn_dropout = register_module("attn_dropout", Dropout(config.dropout));
  resid_dropout = register_module("resid_dropout", Dropout(config.dropout));
}

Tensor CausalSelfAttentionImpl::forward(const Tensor& x) {
  check_tokens("CausalSelfAttention", x, n_embd);
  int64_t B = x.size(0), T = x.size(1), C = n_embd, NH = n_head, HS = C / NH;
  tensor_list qkv = c_attn(x).split(C, 2);                 // 3 x (B, T, C), views
  Tensor q = qkv[0].view({B, T, NH, HS}).transpose(1, 2);  // (B, NH, T, HS)
  Tensor k = qkv[1].view({B, T, NH, HS}).transpose(1, 2);
  Tensor v = qkv[2].view({B, T, NH, HS}).transpose(1, 2);
  // softmax(q k^T / sqrt(HS), causal) with attn_dropout, @ v: nanoGPT's flash path, one fused op on
  // CPU (the scores never leave the kernel); the composed form elsewhere. (B, NH, T, HS)
  const double p = attn_dropout->is_training() ? attn_dropout->options.p() : 0.0;
  Tensor att = functional::scaled_dot_product_attention(q, k, v, {}, p, /*is_causal=*/true);
  Tensor y = att.transpose(1, 2).contiguous().view({B, T, C});  // heads side by side (free when fused)
  return resid_dropout(c_proj(y));
}

Tensor CausalSelfAttentionImpl::forward(const Tensor& x, KVCache& cache, int64_t block_size) {
  check_tokens("CausalSelfAttention", x, n_embd);
  int64_t B = x.size(0), T = x.size(1), C = n_embd, NH = n_head, HS = C / NH;
  const int64_t past = cache.length, S = past + T;  // S: the keys the new queries may see
  EMBER_CHECK(S <= block_size, "CausalSelfAttention: {} cached and {} new positions exceed block_size {}", past, T,
              block_size);
  if (!cache.key.defined() || cache.key.size(0) != B) {
    EMBER_CHECK(past == 0, "CausalSelfAttention: the cache holds {} positions of batch size {}, got batch size {}",
                past, cache.key.defined() ? cache.key.size(0) : 0, B);
    cache.key = ember::empty({B, NH, block_size, HS}, x.options());
    cache.value = ember::empty({B, NH, block_size, HS}, x.options());
  }
  tensor_list qkv = c_attn(x).split(C, 2);                 // 3 x (B, T, C), views
  Tensor q = qkv[0].view({B, T, NH, HS}).transpose(1, 2);  // (B, NH, T, HS)
  cache.key.narrow(2, past, T).copy_(qkv[1].view({B, T, NH, HS}).transpose(1, 2));
  cache.value.narrow(2, past, T).copy_(qkv[2].view({B, T, NH, HS}).transpose(1, 2));
  cache.length = S;
  Tensor k = cache.key.narrow(2, 0, S), v = cache.value.narrow(2, 0, S);  // (B, NH, S, HS), views
  Tensor att;
  if (past == 0) {  // the whole sequence at once: the same causal attention as forward(x)
    att = functional::scaled_dot_product_attention(q, k, v, {}, 0.0, /*is_causal=*/true);
  } else if (T == 1) {  // one new position: it sees every key
    att = functional::scaled_dot_product_attention(q, k, v);
  } else {  // new query i sits at position past + i and sees keys j <= past + i
    TensorOptions index = ember::dtype(kInt64).device(x.device());
    Tensor visible = ember::arange(S, index).unsqueeze(0).le(ember::arange(past, S, index).unsqueeze(1));  // (T, S)
    att = functional::scaled_dot_product_attention(q, k, v, visible);
  }
  Tensor y = att.transpose(1, 2).contiguous().view({B, T, C});
  return c_proj(y);
}

// ---- FeedForward ----

FeedForwardImpl::FeedForwardImpl(const GPTConfig& config) {
  c_fc = register_module("c_fc", Linear(LinearOptions(config.n_embd, 4 * config.n_embd).bias(config.bias)));
  gelu = register_module("gelu", GELU());
  c_proj = register_module("c_proj", Linear(LinearOptions(4 * config.n_embd, config.n_embd).bias(config.bias)));
  dropout = register_module("dropout", Dropout(config.dropout));
}

Tensor FeedForwardImpl::forward(const Tensor& x) { return dropout(c_proj(gelu(c_fc(x)))); }

// ---- Block ----

BlockImpl::BlockImpl(const GPTConfig& config) {
  ln_1 = register_module("ln_1", layer_norm(config.n_embd, config.bias));
  attn = register_module("attn", CausalSelfAttention(config));
  ln_2 = register_module("ln_2", layer_norm(config.n_embd, config.bias));
  mlp = register_module("mlp", FeedForward(config));
}

Tensor BlockImpl::forward(const Tensor& x) {
  Tensor y = x + attn(ln_1(x));  // communicate: tokens look at each other
  return y + mlp(ln_2(y));       // compute: each token on its own
}

Tensor BlockImpl::forward(const Tensor& x, KVCache& cache, int64_t block_size) {
  Tensor y = x + attn->forward(ln_1(x), cache, block_size);
  return y + mlp(ln_2(y));
}

// ---- GPT ----

GPTImpl::GPTImpl(const GPTConfig& config) : config_(config) {
  EMBER_CHECK(config.vocab_size > 0 && config.block_size > 0 && config.n_layer > 0 && config.n_embd > 0,
              "GPT: vocab_size, block_size, n_layer and n_embd must be positive (got {}, {}, {}, {})",
              config.vocab_size, config.block_size, config.n_layer, config.n_embd);
  transformer = register_module("transformer", ModuleDict());
  wte = transformer->insert("wte", Embedding(config.vocab_size, config.n_embd));
  wpe = transformer->insert("wpe", Embedding(config.block_size, config.n_embd));
  drop = transformer->insert("drop", Dropout(config.dropout));
  h = transformer->insert("h", ModuleList());
  for (int64_t i = 0; i < config.n_layer; ++i) h->push_back(Block(config));
  ln_f = transformer->insert("ln_f", layer_norm(config.n_embd, config.bias));
  lm_head = register_module("lm_head", Linear(LinearOptions(config.n_embd, config.vocab_size).bias(false)));
  if (config.weight_tying) wte->weight = wte->replace_parameter("weight", lm_head->weight);

  // nanoGPT's init, in its order (module.apply visits children before parents, in registration order):
  // N(0, 0.02) for every Linear and Embedding weight, zero biases; then the residual projections
  // c_proj get std 0.02 / sqrt(2 n_layer), so the residual stream does not grow with depth.
  init::normal_(wte->weight, 0.0, kInitStd);
  init::normal_(wpe->weight, 0.0, kInitStd);
  auto init_linear = [](Linear& lin) {
    init::normal_(lin->weight, 0.0, kInitStd);
    if (lin->bias.defined()) init::zeros_(lin->bias);
  };
  for (size_t i = 0; i < h->size(); ++i) {
    BlockImpl* block = &h->at<BlockImpl>(i);
    init_linear(block->attn->c_attn);
    init_linear(block->attn->c_proj);
    init_linear(block->mlp->c_fc);
    init_linear(block->mlp->c_proj);
  }
  init_linear(lm_head);
  double proj_std = kInitStd / std::sqrt(2.0 * static_cast<double>(config.n_layer));
  for (size_t i = 0; i < h->size(); ++i) {
    BlockImpl* block = &h->at<BlockImpl>(i);
    init::normal_(block->attn->c_proj->weight, 0.0, proj_std);
    init::normal_(block->mlp->c_proj->weight, 0.0, proj_std);
  }
}

Tensor GPTImpl::trunk(const Tensor& idx) {
  EMBER_CHECK(idx.dim() == 2 && idx.dtype() == kInt64, "GPT: idx must be (B, T) int64 token ids, got {} {}",
              idx.sizes(), dtype_name(idx.dtype()));
  int64_t T = idx.size(1);
  EMBER_CHECK(T <= config_.block_size, "GPT: cannot forward a sequence of length {}, block_size is only {}", T,
              config_.block_size);
  Tensor pos = ember::arange(T, ember::dtype(kInt64).device(idx.device()));  // (T), where the tokens are
  Tensor x = drop(wte(idx) + wpe(pos));                                      // (B, T, C)
  for (size_t i = 0; i < h->size(); ++i) x = h->at<BlockImpl>(i).forward(x);
  return ln_f(x);
}

std::tuple<Tensor, Tensor> GPTImpl::forward(const Tensor& idx, const Tensor& targets) {
  Tensor logits = lm_head(trunk(idx));  // (B, T, V)
  if (!targets.defined()) return {logits, Tensor()};
  EMBER_CHECK(targets.sizes() == idx.sizes(), "GPT: targets must have idx's shape {}, got {}", idx.sizes(),
              targets.sizes());
  Tensor loss = functional::cross_entropy(logits.view({-1, logits.size(-1)}), targets.view({-1}),
                                          functional::CrossEntropyFuncOptions().ignore_index(-1));
  return {logits, loss};
}

Tensor GPTImpl::trunk(const Tensor& idx, std::vector<KVCache>& caches) {
  EMBER_CHECK(idx.dim() == 2 && idx.dtype() == kInt64, "GPT: idx must be (B, T) int64 token ids, got {} {}",
              idx.sizes(), dtype_name(idx.dtype()));
  caches.resize(h->size());
  const int64_t past = caches[0].length, T = idx.size(1);
  EMBER_CHECK(past + T <= config_.block_size,
              "GPT: cannot forward {} tokens after {} cached ones, block_size is only {}", T, past, config_.block_size);
  Tensor pos = ember::arange(past, past + T, ember::dtype(kInt64).device(idx.device()));  // (T)
  Tensor x = drop(wte(idx) + wpe(pos));                                                   // (B, T, C)
  for (size_t i = 0; i < h->size(); ++i) x = h->at<BlockImpl>(i).forward(x, caches[i], config_.block_size);
  return ln_f(x);
}

Tensor GPTImpl::next_logits(const Tensor& idx, std::vector<KVCache>* caches) {
  const int64_t T = idx.size(1), block = config_.block_size;
  Tensor x;
  if (!caches || T >= block) {
    // Without the cache, or once the context fills block_size: from here on the window is cropped
    // and every position in it shifts at each step, so nothing cached would be used again.
    x = trunk(T <= block ? idx : idx.narrow(1, T - block, block));
  } else if (!caches->empty() && (*caches)[0].length == T - 1) {
    x = trunk(idx.narrow(1, T - 1, 1), *caches);  // one new position after the cached ones
  } else {
    for (KVCache& c : *caches) c.length = 0;  // the first step: the whole prompt at once
    x = trunk(idx, *caches);
  }
  return lm_head(x.select(1, x.size(1) - 1));  // (B, V): the last position only
}

void GPTImpl::generate_stream(const Tensor& idx, int64_t max_new_tokens,
                              const std::function<void(const Tensor&)>& on_token, double temperature,
                              std::optional<int64_t> top_k, std::optional<Generator> generator, bool use_cache) {
  EMBER_CHECK(idx.dim() == 2 && idx.dtype() == kInt64, "GPT::generate: idx must be (B, T) int64 token ids, got {} {}",
              idx.sizes(), dtype_name(idx.dtype()));
  EMBER_CHECK(idx.size(1) > 0,
              "GPT::generate: the context idx {} holds no token; give at least one to start from (a newline, say)",
              idx.sizes());
  EMBER_CHECK(max_new_tokens >= 0, "GPT::generate: max_new_tokens must be non-negative, got {}", max_new_tokens);
  EMBER_CHECK(temperature > 0, "GPT::generate: temperature must be positive, got {}", temperature);
  EMBER_CHECK(!top_k || *top_k > 0, "GPT::generate: top_k must be positive, got {}", top_k.value_or(0));
  NoGradGuard no_grad;
  const int64_t block = config_.block_size;
  // (B, <= block): all the model ever sees of the text; next_logits crops no further.
  Tensor context = idx.size(1) <= block ? idx : idx.narrow(1, idx.size(1) - block, block);
  std::vector<KVCache> caches;
  for (int64_t i = 0; i < max_new_tokens; ++i) {
    Tensor logits = next_logits(context, use_cache ? &caches : nullptr) / temperature;  // (B, V)
    if (top_k) logits = keep_top_k(logits, *top_k);
    Tensor probs = ember::softmax(logits, -1);
    Tensor idx_next = ember::multinomial(probs, 1, /*replacement=*/false, generator);  // (B, 1)
    context = ember::cat({context, idx_next}, 1);
    if (context.size(1) > block) context = context.narrow(1, 1, block);
    if (on_token) on_token(idx_next);
  }
}

Tensor GPTImpl::generate(Tensor idx, int64_t max_new_tokens, double temperature, std::optional<int64_t> top_k,
                         std::optional<Generator> generator, bool use_cache,
                         const std::function<void(const Tensor&)>& on_token) {
  std::vector<Tensor> pieces = {idx};  // the prompt, then each (B, 1) token: one cat at the end
  generate_stream(
      idx, max_new_tokens,
      [&](const Tensor& next) {
        pieces.push_back(next);
        if (on_token) on_token(next);
      },
      temperature, top_k, std::move(generator), use_cache);
  return pieces.size() == 1 ? idx : ember::cat(pieces, 1);
}

int64_t GPTImpl::num_parameters(bool non_embedding) const {
  int64_t n = 0;
  std::unordered_set<const TensorImpl*> seen;
  for (const Tensor& p : parameters()) {
    if (seen.insert(p.unsafeGetTensorImpl()).second) n += p.numel();
  }
  return non_embedding ? n - wpe->weight.numel() : n;
}

WeightDecayGroups GPTImpl::weight_decay_groups() const { return nn::weight_decay_groups(*this); }

WeightDecayGroups weight_decay_groups(const Module& module) {
  WeightDecayGroups groups;
  std::unordered_set<const TensorImpl*> seen;
  for (const Tensor& p : module.parameters()) {
    if (!seen.insert(p.unsafeGetTensorImpl()).second) continue;
    (p.dim() >= 2 ? groups.decay : groups.no_decay).push_back(p);
  }
  return groups;
}

Tensor keep_top_k(const Tensor& logits, int64_t k) {
  int64_t B = logits.size(0), V = logits.size(1);
  k = std::min(k, V);
  std::vector<float> values = logits.to(kFloat32).to_vector<float>();
  std::vector<float> kth(B);
  for (int64_t b = 0; b < B; ++b) {
    std::vector<float> row(values.begin() + b * V, values.begin() + (b + 1) * V);
    std::nth_element(row.begin(), row.begin() + (k - 1), row.end(), std::greater<float>());
    kth[b] = row[k - 1];
  }
  Tensor threshold = ember::from_vector(kth, {B, 1}).to(logits.device(), logits.dtype());
  return logits.masked_fill(logits < threshold, kNegInf);
}

}  // namespace ember::nn
