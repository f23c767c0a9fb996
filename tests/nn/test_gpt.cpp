// The nanoGPT pieces (nn/gpt.h) against Karpathy's nanoGPT model code run in torch 1.13
// (scripts/gen_attention_fixtures.py): Head, CausalSelfAttention, FeedForward (nanoGPT's MLP) and Block
// as module cases; the whole GPT's logits, loss and every parameter gradient; seeded construction
// (nanoGPT's init order), sampling with temperature and top-k, parameter counts and groups, bad input.
#include <string>

#include <gtest/gtest.h>

#include "fixture_json.h"
#include "module_case.h"
#include "test_util.h"

namespace {

using namespace ember;
using ember::test::tensor_from_json;
using nlohmann::json;

const json& cases() {
  static const json c = ember::test::load_fixture("attention/gpt.json");
  return c;
}

nn::GPTConfig config_from(const json& a) {
  nn::GPTConfig cfg;
  cfg.vocab_size = a.at("vocab_size").get<int64_t>();
  cfg.block_size = a.at("block_size").get<int64_t>();
  cfg.n_layer = a.at("n_layer").get<int64_t>();
  cfg.n_head = a.at("n_head").get<int64_t>();
  cfg.n_embd = a.at("n_embd").get<int64_t>();
  cfg.dropout = a.at("dropout").get<double>();
  cfg.bias = a.at("bias").get<bool>();
  cfg.weight_tying = a.value("tie", true);
  return cfg;
}

// ---- the pieces ----

template <typename Holder>
void check_piece(const std::string& name, Holder m) {
  const json& c = cases().at(name);
  m->eval();
  ember::test::expect_parameter_names(*m, c);
  ember::test::load_case_parameters(*m, c);
  ember::test::check_case(*m, c, [&](const tensor_list& in) { return m(in[0]); });
}

TEST(GPTPieces, Head) { check_piece("head", nn::Head(8, 4, 8, 0.0)); }
TEST(GPTPieces, CausalSelfAttention) {
  check_piece("causal_self_attention", nn::CausalSelfAttention(config_from(cases()["causal_self_attention"]["ctor"])));
}
TEST(GPTPieces, FeedForward) {
  check_piece("feed_forward", nn::FeedForward(config_from(cases()["feed_forward"]["ctor"])));
}
TEST(GPTPieces, Block) { check_piece("block", nn::Block(config_from(cases()["block"]["ctor"]))); }

// ---- the whole model ----

class GPTCase : public ::testing::TestWithParam<std::string> {};

void check_forward_backward(nn::GPT& model, const json& c) {
  Tensor idx = tensor_from_json(c.at("idx")), targets = tensor_from_json(c.at("targets"));
  auto [logits, loss] = model->forward(idx, targets);
  EXPECT_TENSOR_CLOSE(logits, tensor_from_json(c.at("logits")), 1e-4, 1e-5);
  EXPECT_NEAR(loss.item<double>(), c.at("loss").get<double>(), 1e-5);
  loss.backward();
  for (const auto& [name, p] : ember::test::unique_named_parameters(*model)) {
    EXPECT_TENSOR_CLOSE(p.grad(), tensor_from_json(c.at("param_grads").at(name)), 1e-3, 1e-6) << "grad of " << name;
  }
}

TEST_P(GPTCase, LogitsLossAndGradientsMatchNanoGPT) {
  const json& c = cases().at(GetParam());
  nn::GPT model(config_from(c.at("config")));
  ember::test::expect_parameter_names(*model, c);
  ember::test::load_case_parameters(*model, c);
  check_forward_backward(model, c);
  auto [logits, loss] = model->forward(tensor_from_json(c.at("idx")));
  EXPECT_FALSE(loss.defined());
  EXPECT_EQ(logits.sizes(), tensor_from_json(c.at("logits")).sizes());
}

TEST_P(GPTCase, SeededConstructionAndSamplingMatchNanoGPT) {
  const json& c = cases().at(GetParam());
  manual_seed(c.at("seed").get<uint64_t>());
  nn::GPT model(config_from(c.at("config")));
  ember::test::expect_parameters_equal(*model, c, 1e-6);
  EXPECT_EQ(model->num_parameters(), c.at("num_parameters").get<int64_t>());
  EXPECT_EQ(model->num_parameters(/*non_embedding=*/true), c.at("num_parameters_non_embedding").get<int64_t>());
  check_forward_backward(model, c);

  Tensor idx = tensor_from_json(c.at("idx"));
  manual_seed(c.at("generate_seed").get<uint64_t>());
  Tensor sample = model->generate(idx.narrow(1, 0, 3), 9, /*temperature=*/0.8, /*top_k=*/4);
  EXPECT_TRUE(equal(sample, tensor_from_json(c.at("generate_top_k")))) << sample;
  manual_seed(c.at("generate_plain_seed").get<uint64_t>());
  Tensor plain = model->generate(idx.narrow(0, 0, 1).narrow(1, 0, 2), 4);
  EXPECT_TRUE(equal(plain, tensor_from_json(c.at("generate_plain")))) << plain;
}

INSTANTIATE_TEST_SUITE_P(GPT, GPTCase, ::testing::Values("gpt_tied", "gpt_untied_nobias"));

TEST(GPT, WeightTyingSharesOneTensor) {
  nn::GPTConfig cfg;
  cfg.vocab_size = 7, cfg.block_size = 4, cfg.n_layer = 1, cfg.n_head = 2, cfg.n_embd = 4;
  nn::GPT tied(cfg);
  EXPECT_TRUE(tied->lm_head->weight.is_alias_of(tied->wte->weight));
  cfg.weight_tying = false;
  nn::GPT untied(cfg);
  EXPECT_FALSE(untied->lm_head->weight.is_alias_of(untied->wte->weight));
  EXPECT_EQ(untied->num_parameters() - tied->num_parameters(), 7 * 4);
}

TEST(GPT, WeightDecayGroupsSplitMatricesFromTheRest) {
  nn::GPTConfig cfg;
  cfg.vocab_size = 7, cfg.block_size = 4, cfg.n_layer = 2, cfg.n_head = 2, cfg.n_embd = 4;
  nn::GPT model(cfg);
  nn::WeightDecayGroups g = model->weight_decay_groups();
  int64_t n = 0;
  for (const Tensor& p : g.decay) {
    EXPECT_GE(p.dim(), 2);
    n += p.numel();
  }
  for (const Tensor& p : g.no_decay) {
    EXPECT_LT(p.dim(), 2);
    n += p.numel();
  }
  EXPECT_EQ(n, model->num_parameters());
  EXPECT_EQ(g.decay.size(), 2u + 4u * 2u);     // wte (tied with lm_head), wpe, 4 Linear weights per block
  EXPECT_EQ(g.no_decay.size(), 2u + 8u * 2u);  // ln_f; per block: 2 LayerNorms x 2, 4 Linear biases
}

TEST(GPT, GenerateCropsTheContextToBlockSize) {
  nn::GPTConfig cfg;
  cfg.vocab_size = 5, cfg.block_size = 4, cfg.n_layer = 1, cfg.n_head = 1, cfg.n_embd = 4;
  nn::GPT model(cfg);
  Generator gen(3);
  Tensor out = model->generate(zeros({2, 6}, dtype(kInt64)), 5, 1.0, std::nullopt, gen);
  EXPECT_EQ(out.sizes(), IntArrayRef({2, 11}));
  EXPECT_TRUE((out.narrow(1, 6, 5) >= 0).all().item<bool>() && (out.narrow(1, 6, 5) < 5).all().item<bool>());
}

// ---- generation with a KV cache ----

// Cached attention against the whole causal forward: positions fed one at a time (the step path), a
// prefix then a chunk of several (the masked path), and the whole sequence at once (the prefill).
TEST(GPTCache, CachedAttentionMatchesTheWholeCausalForward) {
  manual_seed(7);
  nn::GPTConfig cfg;
  cfg.block_size = 8, cfg.n_head = 2, cfg.n_embd = 8;
  nn::CausalSelfAttention attn(cfg);
  NoGradGuard no_grad;
  Tensor x = randn({2, 7, 8});
  Tensor full = attn(x);  // (2, 7, 8)
  for (std::vector<int64_t> chunks : {std::vector<int64_t>{1, 1, 1, 1, 1, 1, 1}, {2, 3, 2}, {7}}) {
    nn::KVCache cache;
    std::vector<Tensor> parts;
    int64_t at = 0;
    for (int64_t n : chunks) {
      parts.push_back(attn->forward(x.narrow(1, at, n), cache, cfg.block_size));
      at += n;
      EXPECT_EQ(cache.length, at);
    }
    EXPECT_EQ(cache.key.sizes(), IntArrayRef({2, 2, 8, 4}));  // block_size positions, allocated once
    Tensor got = ember::cat(parts, 1);
    EXPECT_TRUE(allclose(got, full, 1e-5, 1e-6))
        << "chunks " << chunks.size() << ": largest difference " << (got - full).abs().max().item<float>();
  }
}

TEST(GPTCache, RejectsPositionsPastBlockSize) {
  nn::GPTConfig cfg;
  cfg.block_size = 4, cfg.n_head = 2, cfg.n_embd = 8;
  nn::CausalSelfAttention attn(cfg);
  NoGradGuard no_grad;
  nn::KVCache cache;
  attn->forward(randn({1, 3, 8}), cache, cfg.block_size);
  EXPECT_THROWS_WITH(attn->forward(randn({1, 2, 8}), cache, cfg.block_size),
                     "CausalSelfAttention: 3 cached and 2 new positions exceed block_size 4");
  EXPECT_THROWS_WITH(attn->forward(randn({2, 1, 8}), cache, cfg.block_size),
                     "the cache holds 3 positions of batch size 1, got batch size 2");
}

// The same seed draws the same tokens with and without the cache: before block_size (steps from the
// cache), at it and well past it (the window is cropped and the cache rebuilt each step), with and
// without top_k, for a batch of two.
TEST(GPTCache, CachedAndUncachedGenerationDrawTheSameTokens) {
  for (bool tied : {true, false}) {
    manual_seed(11);
    nn::GPTConfig cfg;
    cfg.vocab_size = 13, cfg.block_size = 6, cfg.n_layer = 2, cfg.n_head = 2, cfg.n_embd = 16;
    cfg.weight_tying = tied;
    nn::GPT model(cfg);
    model->eval();
    Tensor prompt = randint(0, 13, {2, 2}, dtype(kInt64));
    for (std::optional<int64_t> top_k : {std::optional<int64_t>(), std::optional<int64_t>(5)}) {
      Tensor cached = model->generate(prompt, 20, 0.9, top_k, Generator(5), /*use_cache=*/true);
      Tensor plain = model->generate(prompt, 20, 0.9, top_k, Generator(5), /*use_cache=*/false);
      EXPECT_EQ(cached.sizes(), IntArrayRef({2, 22}));
      EXPECT_TRUE(equal(cached, plain)) << "cached " << cached << "\nplain " << plain;
    }
    // A prompt longer than block_size starts from the cropped window.
    Tensor long_prompt = randint(0, 13, {1, 9}, dtype(kInt64));
    EXPECT_TRUE(equal(model->generate(long_prompt, 5, 1.0, std::nullopt, Generator(2), true),
                      model->generate(long_prompt, 5, 1.0, std::nullopt, Generator(2), false)));
  }
}

TEST(GPTCache, GenerateReportsEachTokenAsItIsDrawn) {
  manual_seed(3);
  nn::GPTConfig cfg;
  cfg.vocab_size = 5, cfg.block_size = 4, cfg.n_layer = 1, cfg.n_head = 1, cfg.n_embd = 4;
  nn::GPT model(cfg);
  std::vector<int64_t> seen;
  Tensor out = model->generate(zeros({1, 1}, dtype(kInt64)), 6, 1.0, std::nullopt, Generator(1), true,
                               [&](const Tensor& next) { seen.push_back(next.item<int64_t>()); });
  std::vector<int64_t> drawn = out.narrow(1, 1, 6).contiguous().to_vector<int64_t>();
  EXPECT_EQ(seen, drawn);
}

// generate_stream draws what generate draws (with and without the cache, before and long after the
// context fills block_size), keeping no more than the window.
TEST(GPTCache, StreamingDrawsWhatGenerateDraws) {
  manual_seed(5);
  nn::GPTConfig cfg;
  cfg.vocab_size = 7, cfg.block_size = 4, cfg.n_layer = 1, cfg.n_head = 2, cfg.n_embd = 8;
  nn::GPT model(cfg);
  model->eval();
  const Tensor prompt = randint(0, 7, {2, 3}, dtype(kInt64));
  for (bool cache : {true, false}) {
    const Tensor whole = model->generate(prompt, 50, 0.9, 3, Generator(8), cache);
    std::vector<Tensor> streamed = {prompt};
    model->generate_stream(
        prompt, 50, [&](const Tensor& next) { streamed.push_back(next); }, 0.9, 3, Generator(8), cache);
    EXPECT_EQ(streamed.size(), 51u);
    EXPECT_TRUE(equal(ember::cat(streamed, 1), whole)) << "use_cache " << cache;
  }
}

TEST(GPT, RejectsBadInput) {
  nn::GPTConfig cfg;
  cfg.vocab_size = 5, cfg.block_size = 4, cfg.n_layer = 1, cfg.n_head = 2, cfg.n_embd = 4;
  nn::GPT model(cfg);
  EXPECT_THROWS_WITH(model->forward(zeros({1, 5}, dtype(kInt64))),
                     "GPT: cannot forward a sequence of length 5, block_size is only 4");
  EXPECT_THROWS_WITH(model->forward(zeros({1, 3})), "GPT: idx must be (B, T) int64 token ids");
  EXPECT_THROWS_WITH(model->forward(zeros({1, 3}, dtype(kInt64)), zeros({1, 2}, dtype(kInt64))),
                     "GPT: targets must have idx's shape [1, 3], got [1, 2]");
  EXPECT_THROWS_WITH(model->generate(zeros({1, 2}, dtype(kInt64)), 1, 0.0), "temperature must be positive");
  // An empty context used to fail deep inside as "select: index -1".
  EXPECT_THROWS_WITH(model->generate(zeros({1, 0}, dtype(kInt64)), 3),
                     "GPT::generate: the context idx [1, 0] holds no token");
  EXPECT_THROWS_WITH(model->generate(zeros({2}, dtype(kInt64)), 3), "GPT::generate: idx must be (B, T) int64");
  EXPECT_THROWS_WITH(model->generate(zeros({1, 2}, dtype(kInt64)), -1), "max_new_tokens must be non-negative, got -1");
  cfg.n_head = 3;
  EXPECT_THROWS_WITH(nn::GPT{cfg}, "n_embd must be divisible by n_head (n_embd = 4, n_head = 3)");
  nn::Head head(4, 2, 3);
  EXPECT_THROWS_WITH(head(ones({1, 4, 4})), "Head: input has 4 tokens but block_size is 3");
}

}  // namespace
