// A GPT in the style of Karpathy's nanoGPT: the same module names (transformer.wte, transformer.h.0.attn.c_attn,
// lm_head, ...), the same initialisation and the same forward, plus the lecture's single attention Head.
//
//   ember::nn::GPTConfig cfg;
//   cfg.vocab_size = 65; cfg.block_size = 64; cfg.n_layer = 4; cfg.n_head = 4; cfg.n_embd = 128;
//   ember::nn::GPT model(cfg);
//   auto [logits, loss] = model->forward(idx, targets);      // idx, targets: (B, T) int64
//   loss.backward();
//   ember::Tensor out = model->generate(prompt, 100, /*temperature=*/0.8, /*top_k=*/40);
//
// generate keeps each layer's keys and values (KVCache), so a new token costs one position rather
// than the whole context; use_cache = false recomputes the context each step, as nanoGPT does.
// generate_stream hands each token to a callback and keeps only the last block_size as context, so
// a text of any length streams out in constant memory.
//
// Training loops, data loading and optimizers are not here (see examples/charlm and optim/).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <tuple>
#include <vector>

#include "core/generator.h"
#include "core/tensor.h"
#include "nn/nn.h"

namespace ember::nn {

struct GPTConfig {
  int64_t vocab_size = 50304;  // GPT-2's 50257 rounded up to a multiple of 64
  int64_t block_size = 1024;   // the longest context
  int64_t n_layer = 12;
  int64_t n_head = 12;
  int64_t n_embd = 768;
  double dropout = 0.0;
  bool bias = true;          // biases in the Linear layers and LayerNorms
  bool weight_tying = true;  // lm_head.weight is transformer.wte.weight
};

// The lecture's single causal self-attention head (key, query, value without bias; mask buffer "tril").
class HeadImpl : public Module {
 public:
  HeadImpl(int64_t n_embd, int64_t head_size, int64_t block_size, double dropout = 0.0);
  // x: (B, T, n_embd) with T <= block_size -> (B, T, head_size).
  Tensor forward(const Tensor& x);

  Linear key{nullptr}, query{nullptr}, value{nullptr};
  Tensor tril;  // buffer (block_size, block_size): 1 where a query may see a key
  Dropout dropout{nullptr};
};
EMBER_MODULE(Head);

// The keys and values one attention layer has computed for the positions [0, length) of a
// sequence, kept between calls while generating. Storage is allocated once for block_size
// positions, so its memory does not grow with the text.
struct KVCache {
  Tensor key, value;   // (B, NH, block_size, HS); positions past `length` are unused
  int64_t length = 0;  // positions filled
};

// Causal self-attention with one fused projection c_attn (n_embd -> 3 n_embd) and the output c_proj.
class CausalSelfAttentionImpl : public Module {
 public:
  explicit CausalSelfAttentionImpl(const GPTConfig& config);
  // x: (B, T, n_embd) -> (B, T, n_embd).
  Tensor forward(const Tensor& x);
  // x (B, T, n_embd) holds positions [cache.length, cache.length + T) of a sequence whose earlier
  // keys and values are in `cache`: each new query sees the cached positions and the new ones up to
  // its own. Appends the new keys and values (allocating the cache at the first call, for
  // block_size positions). Inference only: no dropout. -> (B, T, n_embd).
  Tensor forward(const Tensor& x, KVCache& cache, int64_t block_size);

  int64_t n_head, n_embd;
  double dropout_p;
  Linear c_attn{nullptr}, c_proj{nullptr};
  Dropout attn_dropout{nullptr}, resid_dropout{nullptr};
};
EMBER_MODULE(CausalSelfAttention);

// The position-wise MLP: Linear n_embd -> 4 n_embd, GELU, Linear back, dropout (nanoGPT's MLP).
class FeedForwardImpl : public Module {
 public:
  explicit FeedForwardImpl(const GPTConfig& config);
  // x: (B, T, n_embd) -> (B, T, n_embd).
  Tensor forward(const Tensor& x);

  Linear c_fc{nullptr}, c_proj{nullptr};
  GELU gelu{nullptr};
  Dropout dropout{nullptr};
};
EMBER_MODULE(FeedForward);

// A pre-LayerNorm transformer block: x = x + attn(ln_1(x)); x = x + mlp(ln_2(x)).
class BlockImpl : public Module {
 public:
  explicit BlockImpl(const GPTConfig& config);
  // x: (B, T, n_embd) -> (B, T, n_embd).
  Tensor forward(const Tensor& x);
  // The same with the attention's keys and values kept in `cache` (see CausalSelfAttention).
  Tensor forward(const Tensor& x, KVCache& cache, int64_t block_size);

  LayerNorm ln_1{nullptr}, ln_2{nullptr};
  CausalSelfAttention attn{nullptr};
  FeedForward mlp{nullptr};
};
EMBER_MODULE(Block);

// Parameters split for AdamW as nanoGPT does: weight decay for matrices (dim >= 2), none for the rest.
struct WeightDecayGroups {
  tensor_list decay;     // Linear and Embedding weights
  tensor_list no_decay;  // biases and LayerNorm parameters
};
// The split of any module's parameters (a parameter shared by two submodules counts once).
WeightDecayGroups weight_decay_groups(const Module& module);

// Sets every logit below the k-th largest of its row to -inf (k above V keeps them all), as
// nanoGPT's generate does before sampling. logits: (B, V).
Tensor keep_top_k(const Tensor& logits, int64_t k);

class GPTImpl : public Module {
 public:
  explicit GPTImpl(const GPTConfig& config);
  // idx (B, T) int64 with T <= block_size -> logits (B, T, vocab_size) for every position, and, when
  // targets (B, T) int64 are given, the mean cross-entropy (targets equal to -1 are ignored).
  std::tuple<Tensor, Tensor> forward(const Tensor& idx, const Tensor& targets = {});
  // Appends max_new_tokens sampled tokens to idx (B, T): the context is cropped to the last block_size
  // tokens, the last logits divided by temperature, optionally kept to the top_k, then
  // multinomial(softmax(logits), 1). Runs without autograd. Returns (B, T + max_new_tokens).
  // use_cache: each layer keeps its keys and values, so a step computes only the new position. The
  // context the logits come from is nanoGPT's either way: once it reaches block_size it is cropped
  // and its positions shift at every step, so each step is a whole forward over the window, as
  // without the cache. on_token, when given, is called with each new (B, 1) token as it is drawn.
  // idx must hold at least one token.
  Tensor generate(Tensor idx, int64_t max_new_tokens, double temperature = 1.0,
                  std::optional<int64_t> top_k = std::nullopt, std::optional<Generator> generator = std::nullopt,
                  bool use_cache = true, const std::function<void(const Tensor&)>& on_token = nullptr);
  // The same draws as generate, each (B, 1) token handed to on_token and not kept: the context is
  // only ever the last block_size tokens, so time and memory per token stay flat however many are
  // drawn (sampling a book, character by character).
  void generate_stream(const Tensor& idx, int64_t max_new_tokens, const std::function<void(const Tensor&)>& on_token,
                       double temperature = 1.0, std::optional<int64_t> top_k = std::nullopt,
                       std::optional<Generator> generator = std::nullopt, bool use_cache = true);

  // Number of distinct parameter elements (a tied weight counts once); nanoGPT's non_embedding
  // count leaves out the position embeddings.
  int64_t num_parameters(bool non_embedding = false) const;
  WeightDecayGroups weight_decay_groups() const;
  const GPTConfig& config() const { return config_; }

  ModuleDict transformer{nullptr};  // holds wte, wpe, drop, h, ln_f, as nanoGPT's ModuleDict
  Embedding wte{nullptr}, wpe{nullptr};
  Dropout drop{nullptr};
  ModuleList h{nullptr};  // of Block
  LayerNorm ln_f{nullptr};
  Linear lm_head{nullptr};

 private:
  Tensor trunk(const Tensor& idx);  // (B, T) -> (B, T, n_embd), after ln_f
  // The same for tokens at positions [caches[0].length, + T), one cache per layer.
  Tensor trunk(const Tensor& idx, std::vector<KVCache>& caches);
  // The logits (B, V) of the next token after idx (B, T), from the last position.
  Tensor next_logits(const Tensor& idx, std::vector<KVCache>* caches);
  GPTConfig config_;
};
EMBER_MODULE(GPT);

}  // namespace ember::nn
