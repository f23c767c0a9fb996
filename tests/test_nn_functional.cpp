// nn::functional against PyTorch: forward values and gradients, table-driven, plus bad input.
//
// Fixtures come from scripts/gen_nn_fixtures.py (tests/fixtures/nn/functional.json). Each table line
// is the C++ twin of one `case(...)` there. The harness makes every floating input require grad,
// seeds the generator when the case has a seed, compares the output, then backpropagates
// (out * w).sum() with the stored weights and compares each input's gradient.
#include <cmath>
#include <functional>
#include <limits>
#include <map>

#include "fixture_json.h"
#include "test_util.h"

using namespace ember;
namespace F = ember::nn::functional;
using ember::test::load_fixture;
using ember::test::tensor_from_json;

namespace {

using Inputs = std::map<std::string, Tensor>;
using Case = std::function<Tensor(const Inputs&)>;

// Each line mirrors the case of the same name in gen_nn_fixtures.py.
const std::map<std::string, Case>& cases() {
  static const std::map<std::string, Case> table = {
      {"linear", [](const Inputs& in) { return F::linear(in.at("x"), in.at("w"), in.at("b")); }},
      {"linear_3d", [](const Inputs& in) { return F::linear(in.at("x"), in.at("w"), in.at("b")); }},
      {"linear_no_bias", [](const Inputs& in) { return F::linear(in.at("x"), in.at("w")); }},
      {"linear_1d_f64", [](const Inputs& in) { return F::linear(in.at("x"), in.at("w"), in.at("b")); }},
      {"embedding", [](const Inputs& in) { return F::embedding(in.at("idx"), in.at("w")); }},
      {"embedding_padding",
       [](const Inputs& in) { return F::embedding(in.at("idx"), in.at("w"), F::EmbeddingFuncOptions().padding_idx(3)); }},
      {"layer_norm", [](const Inputs& in) { return F::layer_norm(in.at("x"), {4}, in.at("w"), in.at("b"), 1e-5); }},
      {"layer_norm_2dims_eps",
       [](const Inputs& in) {
         return F::layer_norm(in.at("x"), F::LayerNormFuncOptions({3, 4}).weight(in.at("w")).bias(in.at("b")).eps(1e-3));
       }},
      {"layer_norm_no_affine_f64", [](const Inputs& in) { return F::layer_norm(in.at("x"), {5}); }},
      {"gelu", [](const Inputs& in) { return F::gelu(in.at("x")); }},
      {"gelu_tanh", [](const Inputs& in) { return F::gelu(in.at("x"), F::GELUFuncOptions().approximate("tanh")); }},
      {"relu", [](const Inputs& in) { return F::relu(in.at("x")); }},
      {"softmax_dim1", [](const Inputs& in) { return F::softmax(in.at("x"), 1); }},
      {"softmax_last", [](const Inputs& in) { return F::softmax(in.at("x"), -1); }},
      {"log_softmax_dim0", [](const Inputs& in) { return F::log_softmax(in.at("x"), 0); }},
      {"masked_softmax", [](const Inputs& in) { return F::masked_softmax(in.at("x"), in.at("mask")); }},
      {"masked_softmax_causal_broadcast", [](const Inputs& in) { return F::masked_softmax(in.at("x"), in.at("mask")); }},
      {"dropout", [](const Inputs& in) { return F::dropout(in.at("x"), F::DropoutFuncOptions().p(0.3)); }},
      {"dropout_f64", [](const Inputs& in) { return F::dropout(in.at("x"), 0.5, true); }},
      {"dropout_p1", [](const Inputs& in) { return F::dropout(in.at("x"), 1.0, true); }},
      {"cross_entropy", [](const Inputs& in) { return F::cross_entropy(in.at("x"), in.at("t")); }},
      {"cross_entropy_sum",
       [](const Inputs& in) { return F::cross_entropy(in.at("x"), in.at("t"), F::CrossEntropyFuncOptions().reduction(kSum)); }},
      {"cross_entropy_none",
       [](const Inputs& in) { return F::cross_entropy(in.at("x"), in.at("t"), F::CrossEntropyFuncOptions().reduction(kNone)); }},
      {"cross_entropy_ignore", [](const Inputs& in) { return F::cross_entropy(in.at("x"), in.at("t")); }},
      {"cross_entropy_ignore_custom",
       [](const Inputs& in) { return F::cross_entropy(in.at("x"), in.at("t"), F::CrossEntropyFuncOptions().ignore_index(3)); }},
      {"cross_entropy_smoothing",
       [](const Inputs& in) {
         return F::cross_entropy(in.at("x"), in.at("t"), F::CrossEntropyFuncOptions().label_smoothing(0.1));
       }},
      {"cross_entropy_smoothing_sum",
       [](const Inputs& in) {
         return F::cross_entropy(in.at("x"), in.at("t"), F::CrossEntropyFuncOptions().label_smoothing(0.2).reduction(kSum));
       }},
      {"cross_entropy_smoothing_none",
       [](const Inputs& in) {
         return F::cross_entropy(in.at("x"), in.at("t"), F::CrossEntropyFuncOptions().label_smoothing(0.2).reduction(kNone));
       }},
      {"cross_entropy_3d", [](const Inputs& in) { return F::cross_entropy(in.at("x"), in.at("t")); }},
      {"cross_entropy_1d", [](const Inputs& in) { return F::cross_entropy(in.at("x"), in.at("t")); }},
      {"cross_entropy_probs", [](const Inputs& in) { return F::cross_entropy(in.at("x"), in.at("t").detach()); }},
      {"cross_entropy_probs_smoothing",
       [](const Inputs& in) {
         return F::cross_entropy(in.at("x"), in.at("t").detach(), F::CrossEntropyFuncOptions().label_smoothing(0.3));
       }},
      {"cross_entropy_f64", [](const Inputs& in) { return F::cross_entropy(in.at("x"), in.at("t")); }},
      {"mse_loss", [](const Inputs& in) { return F::mse_loss(in.at("x"), in.at("y")); }},
      {"mse_loss_sum", [](const Inputs& in) { return F::mse_loss(in.at("x"), in.at("y"), kSum); }},
      {"mse_loss_none", [](const Inputs& in) { return F::mse_loss(in.at("x"), in.at("y"), kNone); }},
      {"sdpa", [](const Inputs& in) { return F::scaled_dot_product_attention(in.at("q"), in.at("k"), in.at("v")); }},
      {"sdpa_f64", [](const Inputs& in) { return F::scaled_dot_product_attention(in.at("q"), in.at("k"), in.at("v")); }},
      {"sdpa_scale",
       [](const Inputs& in) {
         return F::scaled_dot_product_attention(in.at("q"), in.at("k"), in.at("v"), {}, 0.0, false, 0.3);
       }},
      {"sdpa_causal",
       [](const Inputs& in) { return F::scaled_dot_product_attention(in.at("q"), in.at("k"), in.at("v"), {}, 0.0, true); }},
      {"sdpa_causal_rect",
       [](const Inputs& in) { return F::scaled_dot_product_attention(in.at("q"), in.at("k"), in.at("v"), {}, 0.0, true); }},
      {"sdpa_bool_mask",
       [](const Inputs& in) {
         return F::scaled_dot_product_attention(in.at("q"), in.at("k"), in.at("v"), in.at("mask"));
       }},
      {"sdpa_float_mask",
       [](const Inputs& in) {
         return F::scaled_dot_product_attention(in.at("q"), in.at("k"), in.at("v"), in.at("mask").detach());
       }},
      {"sdpa_3d", [](const Inputs& in) { return F::scaled_dot_product_attention(in.at("q"), in.at("k"), in.at("v")); }},
      {"sdpa_dropout",
       [](const Inputs& in) { return F::scaled_dot_product_attention(in.at("q"), in.at("k"), in.at("v"), {}, 0.25); }},
  };
  return table;
}

const nlohmann::json& fixture() {
  static const nlohmann::json j = load_fixture("nn/functional.json");
  return j;
}

class NnFunctionalReference : public ::testing::TestWithParam<std::string> {};

TEST_P(NnFunctionalReference, ForwardAndBackwardMatchPyTorch) {
  const nlohmann::json& c = fixture().at(GetParam());
  Inputs in;
  for (const auto& [name, value] : c.at("inputs").items()) {
    Tensor t = tensor_from_json(value);
    if (t.is_floating_point()) t.requires_grad_();
    in[name] = t;
  }
  if (c.contains("seed")) manual_seed(c.at("seed").get<uint64_t>());
  Tensor out = cases().at(GetParam())(in);
  Tensor expected = tensor_from_json(c.at("output"));
  EXPECT_EQ(out.dtype(), expected.dtype());
  const double tol = out.dtype() == kFloat64 ? 1e-12 : 1e-5;
  EXPECT_TENSOR_CLOSE(out, expected, tol, tol);
  if (!c.contains("weight")) return;
  (out * tensor_from_json(c.at("weight"))).sum().backward();
  for (const auto& [name, grad] : c.at("grads").items()) {
    SCOPED_TRACE("gradient of " + name);
    ASSERT_TRUE(in.at(name).grad().defined());
    EXPECT_TENSOR_CLOSE(in.at(name).grad(), tensor_from_json(grad), tol, tol);
  }
}

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  for (const auto& [name, value] : fixture().items()) names.push_back(name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Fixture, NnFunctionalReference, ::testing::ValuesIn(case_names()),
                         [](const auto& info) { return info.param; });

TEST(NnFunctional, EveryTableCaseHasAFixture) {
  for (const auto& [name, fn] : cases()) EXPECT_TRUE(fixture().contains(name)) << name;
}

// ---- rows that are fully masked ----

TEST(NnFunctional, FullyMaskedRowGivesZerosAndNoNaNGradient) {
  Tensor scores = tensor({{1.0, 2.0, 3.0}, {0.5, -1.0, 2.0}}, dtype(kFloat64).requires_grad(true));
  Tensor mask = tensor({{true, true, true}, {false, true, false}});
  Tensor p = F::masked_softmax(scores, mask);
  EXPECT_TENSOR_CLOSE(p[0], zeros({3}, dtype(kFloat64)));
  Tensor expected_row = tensor({0.5, 2.0}, dtype(kFloat64)).softmax(0);
  EXPECT_NEAR(p[1][0].item<double>(), expected_row[0].item<double>(), 1e-12);
  EXPECT_EQ(p[1][1].item<double>(), 0.0);
  (p * tensor({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}}, dtype(kFloat64))).sum().backward();
  EXPECT_TRUE(scores.grad().eq(scores.grad()).all().item<bool>()) << scores.grad();  // no NaN
  EXPECT_TENSOR_CLOSE(scores.grad()[0], zeros({3}, dtype(kFloat64)));
  EXPECT_EQ(scores.grad()[1][1].item<double>(), 0.0);
}

TEST(NnFunctional, MaskedSoftmaxGradientMatchesFiniteDifferences) {
  Tensor mask = tensor({{false, true, false, false}, {true, true, true, true}});
  Tensor w = tensor({{0.3, -1.2, 0.7, 2.0}, {1.0, 1.0, 1.0, 1.0}}, dtype(kFloat64));
  auto f = [&](const Tensor& s) { return (F::masked_softmax(s, mask) * w).sum(); };
  Tensor s = tensor({{0.1, 0.4, -0.3, 0.9}, {0.2, 0.5, 0.8, -0.1}}, dtype(kFloat64).requires_grad(true));
  f(s).backward();
  const double h = 1e-6;
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 4; ++j) {
      Tensor plus = s.detach().clone(), minus = s.detach().clone();
      plus[i][j].add_(h);
      minus[i][j].sub_(h);
      const double numeric = (f(plus).item<double>() - f(minus).item<double>()) / (2 * h);
      EXPECT_NEAR(s.grad()[i][j].item<double>(), numeric, 1e-7) << i << "," << j;
    }
}

// ---- dropout semantics ----

TEST(NnFunctional, DropoutIdentityWithoutDraws) {
  Tensor x = ones({3, 3});
  manual_seed(0);
  Tensor state = default_generator().get_state();
  EXPECT_TRUE(F::dropout(x, 0.5, false).is_same(x));
  EXPECT_TRUE(F::dropout(x, 0.0, true).is_same(x));
  EXPECT_TRUE(equal(default_generator().get_state(), state));  // nothing was drawn
}

TEST(NnFunctional, DropoutKeepsExpectedValue) {
  manual_seed(1);
  Tensor y = F::dropout(ones({200, 100}), 0.2, true);
  EXPECT_NEAR(y.mean().item<double>(), 1.0, 0.02);
  // every element is 0 or 1/(1-p)
  EXPECT_TRUE((y.eq(0) || (y - 1.25).abs().lt(1e-6)).all().item<bool>());
}

// ---- bad input ----

TEST(NnFunctional, BadInputNamesOpAndShapes) {
  EXPECT_THROWS_WITH(F::linear(ones({2, 5}), ones({4, 3})),
                     "linear: input has 5 features but weight expects 3 (input [2, 5], weight [4, 3])");
  EXPECT_THROWS_WITH(F::linear(ones({2, 3}), ones({4, 3}), ones({3})), "linear: bias must have shape [4]");
  EXPECT_THROWS_WITH(F::dropout(ones({2}), 1.5, true), "dropout: probability has to be between 0 and 1, but got 1.5");
  EXPECT_THROWS_WITH(F::dropout(ones({2}), -0.1, false), "dropout: probability has to be between 0 and 1");
  Tensor idx = tensor({0, 7}, dtype(kInt64));
  EXPECT_THROWS_WITH(F::embedding(idx, ones({5, 3})), "embedding: index 7 is out of bounds");
  EXPECT_THROWS_WITH(F::cross_entropy(ones({2, 3}), tensor({0, 3}, dtype(kInt64))),
                     "cross_entropy: target 3 is out of bounds for 3 classes (input [2, 3], target [2])");
  EXPECT_THROWS_WITH(F::cross_entropy(ones({2, 3}), tensor({-1, 0}, dtype(kInt64))),
                     "cross_entropy: target -1 is out of bounds for 3 classes");
  EXPECT_THROWS_WITH(F::cross_entropy(ones({2, 3}), tensor({0, 1, 2}, dtype(kInt64))),
                     "cross_entropy: expected target of shape [2] for input [2, 3], got [3]");
  EXPECT_THROWS_WITH(F::layer_norm(ones({2, 3}), {4}), "layer_norm: input of shape [2, 3] does not end with normalized_shape [4]");
  EXPECT_THROWS_WITH(F::mse_loss(ones({2, 3}), ones({3})), "mse_loss: input [2, 3] and target [3] must have the same shape");
  EXPECT_THROWS_WITH(F::masked_softmax(ones({2, 2}), ones({2, 2})), "masked_softmax: expected a bool mask");
  EXPECT_THROWS_WITH(F::scaled_dot_product_attention(ones({2, 3, 4}), ones({2, 5, 3}), ones({2, 5, 4})),
                     "scaled_dot_product_attention: query [2, 3, 4] and key [2, 5, 3] must have the same embedding size");
  EXPECT_THROWS_WITH(F::scaled_dot_product_attention(ones({3, 4}), ones({3, 4}), ones({3, 4}), ones({3, 3}), 0.0, true),
                     "scaled_dot_product_attention: attn_mask must not be given when is_causal is true");
}

TEST(NnFunctional, CrossEntropyAllIgnoredIsNaNAsInPyTorch) {
  Tensor loss = F::cross_entropy(ones({2, 3}), tensor({-100, -100}, dtype(kInt64)));
  EXPECT_TRUE(std::isnan(loss.item<double>()));
}

}  // namespace
