// The tutorial's attention classes (nn/attention.h) against the PyTorch classes of chapter 3 of
// "Build a Large Language Model (From Scratch)", as written in scripts/gen_attention_fixtures.py:
// forward values and every gradient with the fixture's weights, then the same after building each
// module from the fixture's seed (same weights as PyTorch's manual_seed + constructor), then bad input.
#include <functional>
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
  static const json c = ember::test::load_fixture("attention/attention.json");
  return c;
}

struct Built {
  std::shared_ptr<nn::Module> module;
  std::function<Tensor(const tensor_list&)> forward;
};

// Builds the module of fixture case `name` from its constructor arguments (drawing from the RNG as
// PyTorch's constructor does) and says how to call it on the case's inputs.
Built build(const std::string& name, const json& c) {
  const json& a = c.at("ctor");
  auto i = [&](const char* k) { return a.at(k).get<int64_t>(); };
  if (name == "sa_v1") {
    nn::SelfAttentionV1 m(i("d_in"), i("d_out"));
    return {m.ptr(), [m](const tensor_list& in) mutable { return m(in[0]); }};
  }
  if (name.rfind("sa_v2", 0) == 0) {
    nn::SelfAttentionV2 m(i("d_in"), i("d_out"), a.at("qkv_bias").get<bool>());
    return {m.ptr(), [m](const tensor_list& in) mutable { return m(in[0]); }};
  }
  if (name.rfind("causal", 0) == 0) {
    nn::CausalAttention m(i("d_in"), i("d_out"), i("context_length"), a.at("dropout").get<double>(),
                          a.at("qkv_bias").get<bool>());
    return {m.ptr(), [m](const tensor_list& in) mutable { return m(in[0]); }};
  }
  if (name == "mha_wrapper") {
    nn::MultiHeadAttentionWrapper m(i("d_in"), i("d_out"), i("context_length"), a.at("dropout").get<double>(),
                                    i("num_heads"), a.at("qkv_bias").get<bool>());
    return {m.ptr(), [m](const tensor_list& in) mutable { return m(in[0]); }};
  }
  nn::MultiHeadAttention m(i("d_in"), i("d_out"), i("context_length"), a.at("dropout").get<double>(), i("num_heads"),
                           a.at("qkv_bias").get<bool>());
  if (name == "mha_cross") return {m.ptr(), [m](const tensor_list& in) mutable { return m(in[0], in[1]); }};
  if (name == "mha_cross_padding") {
    Tensor pad = tensor_from_json(c.at("key_padding_mask"));
    return {m.ptr(), [m, pad](const tensor_list& in) mutable { return m(in[0], in[1], pad); }};
  }
  return {m.ptr(), [m](const tensor_list& in) mutable { return m(in[0]); }};
}

class AttentionCase : public ::testing::TestWithParam<std::string> {};

// Weights copied from the fixture: forward and backward as in PyTorch, whatever the RNG does.
TEST_P(AttentionCase, MatchesPyTorchWithFixtureWeights) {
  const json& c = cases().at(GetParam());
  Built b = build(GetParam(), c);
  b.module->eval();
  ember::test::expect_parameter_names(*b.module, c);
  ember::test::load_case_parameters(*b.module, c);
  ember::test::check_case(*b.module, c, b.forward);
}

// manual_seed(seed) then the constructor: the tutorial's weights, hence the tutorial's numbers.
TEST_P(AttentionCase, SeededConstructionMatchesPyTorch) {
  const json& c = cases().at(GetParam());
  manual_seed(c.at("seed").get<uint64_t>());
  Built b = build(GetParam(), c);
  b.module->eval();
  ember::test::expect_parameters_equal(*b.module, c);
  ember::test::check_case(*b.module, c, b.forward);
}

INSTANTIATE_TEST_SUITE_P(Attention, AttentionCase,
                         ::testing::Values("sa_v1", "sa_v2", "sa_v2_bias", "causal", "causal_short_bias", "mha_wrapper",
                                           "mha", "mha_4heads_bias", "mha_cross", "mha_cross_padding"));

// Dropout 0.5 on the attention weights in training mode: the dropout draws follow the constructor's.
TEST(Attention, CausalDropoutMatchesPyTorchAfterSeed) {
  const json& c = cases().at("causal_dropout");
  manual_seed(c.at("seed").get<uint64_t>());
  Built b = build("causal", c);
  b.module->train();
  ember::test::expect_parameters_equal(*b.module, c);
  ember::test::check_case(*b.module, c, b.forward);
}

TEST(Attention, CausalMaskIsABufferNamedMask) {
  nn::CausalAttention ca(3, 2, 4, 0.0);
  Tensor expected = tensor({{0.0, 1.0, 1.0, 1.0}, {0.0, 0.0, 1.0, 1.0}, {0.0, 0.0, 0.0, 1.0}, {0.0, 0.0, 0.0, 0.0}});
  bool found = false;
  for (const auto& [name, buffer] : ca->named_buffers()) {
    if (name != "mask") continue;
    found = true;
    EXPECT_TENSOR_CLOSE(buffer, expected, 0.0, 0.0);
  }
  EXPECT_TRUE(found);
}

TEST(Attention, CrossAttentionIgnoresPaddedKeys) {
  // Keys marked as padding must not change the output: drop them, or change them, and nothing moves.
  manual_seed(0);
  nn::MultiHeadAttention mha(4, 4, 8, 0.0, 2);
  Tensor q = randn({1, 3, 4}), kv = randn({1, 5, 4});
  Tensor pad = tensor({{false, false, false, true, true}});
  Tensor full = mha(q, kv, pad);
  Tensor trimmed = mha(q, kv.narrow(1, 0, 3));
  EXPECT_TENSOR_CLOSE(full, trimmed, 1e-5, 1e-6);
}

TEST(Attention, RejectsBadInput) {
  EXPECT_THROWS_WITH(nn::MultiHeadAttention(3, 5, 6, 0.0, 2),
                     "d_out must be divisible by num_heads (d_out = 5, num_heads = 2)");
  nn::CausalAttention ca(3, 2, 6, 0.0);
  EXPECT_THROWS_WITH(ca(ones({2, 7, 3})), "CausalAttention: input has 7 tokens but context_length is 6");
  EXPECT_THROWS_WITH(ca(ones({2, 6, 4})), "CausalAttention: input has 4 features but the module expects d_in = 3");
  EXPECT_THROWS_WITH(ca(ones({6, 3})), "CausalAttention: expected input of shape (B, T, d_in), got [6, 3]");
  nn::MultiHeadAttention mha(3, 4, 6, 0.0, 2);
  EXPECT_THROWS_WITH(mha(ones({1, 7, 3})), "MultiHeadAttention: input has 7 tokens but context_length is 6");
  EXPECT_THROWS_WITH(mha(ones({1, 5, 4})), "MultiHeadAttention: input has 4 features");
  EXPECT_THROWS_WITH(mha(ones({1, 5, 3}), ones({2, 9, 3})), "queries have batch size 1 but keys/values have 2");
  EXPECT_THROWS_WITH(mha(ones({1, 5, 3}), ones({1, 9, 3}), zeros({1, 8}, dtype(kBool))),
                     "key_padding_mask must have shape [1, 9]");
  nn::SelfAttentionV2 sa(3, 2);
  EXPECT_THROWS_WITH(sa(ones({6, 5})), "SelfAttentionV2: input has 5 features but the module expects d_in = 3");
  nn::SelfAttentionV1 sa1(3, 2);
  EXPECT_THROWS_WITH(sa1(ones({6, 5})), "SelfAttentionV1: input has 5 features");
}

}  // namespace
