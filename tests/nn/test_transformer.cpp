// nn::TransformerEncoderLayer / TransformerDecoderLayer (nn/transformer.h) against torch 1.13's
// nn.TransformerEncoderLayer / nn.TransformerDecoderLayer (eval mode, dropout 0), built in
// scripts/gen_attention_fixtures.py: parameter names and order, forward values with every mask kind,
// all gradients, seeded construction (PyTorch's init order), the causal-mask helper, bad input.
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
  static const json c = ember::test::load_fixture("attention/transformer.json");
  return c;
}

nn::TransformerEncoderLayerOptions layer_options(const json& a) {
  nn::TransformerEncoderLayerOptions o(a.at("d_model").get<int64_t>(), a.at("nhead").get<int64_t>());
  o.dim_feedforward(a.at("dim_feedforward").get<int64_t>()).dropout(a.at("dropout").get<double>());
  o.batch_first(a.value("batch_first", false)).norm_first(a.value("norm_first", false));
  o.activation(a.value("activation", std::string("relu"))).layer_norm_eps(a.value("layer_norm_eps", 1e-5));
  return o;
}

Tensor optional_tensor(const json& c, const char* key) { return c.contains(key) ? tensor_from_json(c[key]) : Tensor(); }

void run_encoder_case(const std::string& name, bool seeded) {
  const json& c = cases().at(name);
  if (seeded) manual_seed(c.at("seed").get<uint64_t>());
  nn::TransformerEncoderLayer layer(layer_options(c.at("ctor")));
  layer->eval();
  ember::test::expect_parameter_names(*layer, c);
  if (seeded) {
    ember::test::expect_parameters_equal(*layer, c);
  } else {
    ember::test::load_case_parameters(*layer, c);
  }
  Tensor mask = optional_tensor(c, "src_mask"), padding = optional_tensor(c, "src_key_padding_mask");
  ember::test::check_case(*layer, c, [&](const tensor_list& in) { return layer(in[0], mask, padding); });
}

void run_decoder_case(const std::string& name, bool seeded) {
  const json& c = cases().at(name);
  if (seeded) manual_seed(c.at("seed").get<uint64_t>());
  nn::TransformerDecoderLayer layer(layer_options(c.at("ctor")));
  layer->eval();
  ember::test::expect_parameter_names(*layer, c);
  if (seeded) {
    ember::test::expect_parameters_equal(*layer, c);
  } else {
    ember::test::load_case_parameters(*layer, c);
  }
  Tensor tgt_mask = optional_tensor(c, "tgt_mask"), memory_mask = optional_tensor(c, "memory_mask");
  Tensor tgt_pad = optional_tensor(c, "tgt_key_padding_mask"), mem_pad = optional_tensor(c, "memory_key_padding_mask");
  ember::test::check_case(
      *layer, c, [&](const tensor_list& in) { return layer(in[0], in[1], tgt_mask, memory_mask, tgt_pad, mem_pad); });
}

class EncoderCase : public ::testing::TestWithParam<std::string> {};
TEST_P(EncoderCase, MatchesPyTorchWithFixtureWeights) { run_encoder_case(GetParam(), false); }
TEST_P(EncoderCase, SeededConstructionMatchesPyTorch) { run_encoder_case(GetParam(), true); }
INSTANTIATE_TEST_SUITE_P(Transformer, EncoderCase,
                         ::testing::Values("encoder_relu", "encoder_causal_mask", "encoder_padding",
                                           "encoder_gelu_norm_first_seq_first", "encoder_bool_mask"));

class DecoderCase : public ::testing::TestWithParam<std::string> {};
TEST_P(DecoderCase, MatchesPyTorchWithFixtureWeights) { run_decoder_case(GetParam(), false); }
TEST_P(DecoderCase, SeededConstructionMatchesPyTorch) { run_decoder_case(GetParam(), true); }
INSTANTIATE_TEST_SUITE_P(Transformer, DecoderCase,
                         ::testing::Values("decoder_relu", "decoder_padding", "decoder_gelu_norm_first_seq_first"));

TEST(Transformer, SquareSubsequentMask) {
  EXPECT_TENSOR_CLOSE(nn::generate_square_subsequent_mask(4),
                      tensor_from_json(cases().at("square_subsequent_mask_4").at("output")), 0.0, 0.0);
}

TEST(Transformer, DefaultsArePyTorchs) {
  nn::TransformerEncoderLayerOptions o(16, 4);
  EXPECT_EQ(o.dim_feedforward(), 2048);
  EXPECT_DOUBLE_EQ(o.dropout(), 0.1);
  EXPECT_TRUE(std::holds_alternative<enumtype::kReLU>(o.activation()));
  EXPECT_TRUE(std::holds_alternative<enumtype::kGELU>(o.activation("gelu").activation()));
  EXPECT_DOUBLE_EQ(o.layer_norm_eps(), 1e-5);
  EXPECT_FALSE(o.batch_first());
  EXPECT_FALSE(o.norm_first());
}

TEST(Transformer, RejectsBadInput) {
  EXPECT_THROWS_WITH(nn::TransformerEncoderLayer(nn::TransformerEncoderLayerOptions(8, 3)),
                     "embed_dim must be divisible by num_heads (embed_dim = 8, num_heads = 3)");
  EXPECT_THROWS_WITH(nn::TransformerEncoderLayer(nn::TransformerEncoderLayerOptions(8, 2).activation("tanh")),
                     "activation must be \"relu\" or \"gelu\", got \"tanh\"");
  nn::TransformerEncoderLayer enc(nn::TransformerEncoderLayerOptions(8, 2).dim_feedforward(16).batch_first(true));
  EXPECT_THROWS_WITH(enc(ones({2, 5, 7})), "TransformerEncoderLayer: src has 7 features but d_model is 8");
  EXPECT_THROWS_WITH(enc(ones({5, 8})), "TransformerEncoderLayer: src must be 3-d");
  EXPECT_THROWS_WITH(enc(ones({2, 5, 8}), zeros({4, 4})), "attn_mask must be [5, 5]");
  EXPECT_THROWS_WITH(enc(ones({2, 5, 8}), Tensor(), zeros({2, 4}, dtype(kBool))), "key_padding_mask must be [2, 5]");
  nn::TransformerDecoderLayer dec(nn::TransformerDecoderLayerOptions(8, 2).dim_feedforward(16).batch_first(true));
  EXPECT_THROWS_WITH(dec(ones({2, 4, 8}), ones({2, 6, 5})), "TransformerDecoderLayer: memory has 5 features");
  EXPECT_THROWS_WITH(dec(ones({2, 4, 8}), ones({3, 6, 8})), "batch or length mismatch");
}

}  // namespace
