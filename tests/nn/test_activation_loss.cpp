// The activations and losses of nn/activation.h and nn/loss.h against PyTorch 1.13: forward values
// and gradients (kinks and float32 overflow included), gradcheck in float64, the modules (options,
// parameters, printouts, Sequential stacks against PyTorch), and bad input.
//
// Fixtures come from scripts/gen_activation_loss_fixtures.py (tests/fixtures/nn/activation_*.json); each table line
// is the C++ twin of one `case(...)` there. The harness makes the floating inputs that have a stored
// gradient require grad, seeds the generator when the case has a seed, compares the output, then
// backpropagates (out * w).sum() and compares each gradient.
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <sstream>

#include "fixture_cases.h"
#include "module_case.h"
#include "test_util.h"

using namespace ember;
namespace F = ember::nn::functional;
using namespace ember::test;  // fixture_cases.h: the fixture readers and runners

namespace {

using Inputs = NamedInputs;
using Case = std::function<Tensor(const Inputs&)>;

Case unary(Tensor (*fn)(const Tensor&)) {
  return [fn](const Inputs& in) { return fn(in.at("x")); };
}

// Each line mirrors the case of the same name in gen_activation_loss_fixtures.py.
const std::map<std::string, Case>& cases() {
  static const std::map<std::string, Case> table = [] {
    std::map<std::string, Case> t;
    for (auto [name, fn] :
         std::vector<std::pair<std::string, Tensor (*)(const Tensor&)>>{{"sigmoid", F::sigmoid},
                                                                        {"tanh", F::tanh},
                                                                        {"silu", F::silu},
                                                                        {"mish", F::mish},
                                                                        {"softsign", F::softsign},
                                                                        {"logsigmoid", F::logsigmoid}}) {
      t[name] = unary(fn);
      t[name + "_kinks"] = unary(fn);
    }
    t["silu_f64"] = unary(F::silu);
    t["elu"] = [](const Inputs& in) { return F::elu(in.at("x")); };
    t["elu_alpha_kinks"] = [](const Inputs& in) { return F::elu(in.at("x"), F::ELUFuncOptions().alpha(1.3)); };
    t["selu_kinks"] = [](const Inputs& in) { return F::selu(in.at("x")); };
    t["celu_kinks"] = [](const Inputs& in) { return F::celu(in.at("x"), F::CELUFuncOptions().alpha(0.7)); };
    t["leaky_relu_kinks"] = [](const Inputs& in) {
      return F::leaky_relu(in.at("x"), F::LeakyReLUFuncOptions().negative_slope(0.2));
    };
    t["leaky_relu_default"] = [](const Inputs& in) { return F::leaky_relu(in.at("x")); };
    for (const char* name : {"prelu_shared", "prelu_channels", "prelu_kinks"})
      t[name] = [](const Inputs& in) { return F::prelu(in.at("x"), in.at("w")); };
    t["hardtanh_kinks"] = [](const Inputs& in) {
      return F::hardtanh(in.at("x"), F::HardtanhFuncOptions().min_val(-0.5).max_val(0.8));
    };
    t["hardtanh_default"] = [](const Inputs& in) { return F::hardtanh(in.at("x")); };
    t["softplus"] = [](const Inputs& in) { return F::softplus(in.at("x")); };
    t["softplus_kinks"] = [](const Inputs& in) { return F::softplus(in.at("x")); };
    t["softplus_beta_threshold"] = [](const Inputs& in) {
      return F::softplus(in.at("x"), F::SoftplusFuncOptions().beta(2.0).threshold(1.5));
    };
    t["softmin"] = [](const Inputs& in) { return F::softmin(in.at("x"), 1); };
    t["log_softmax_module"] = [](const Inputs& in) { return nn::LogSoftmax(-1)(in.at("x")); };
    t["threshold_kinks"] = [](const Inputs& in) {
      return F::threshold(in.at("x"), F::ThresholdFuncOptions(0.5, -2.0));
    };
    t["dropout2d_4d"] = [](const Inputs& in) { return F::dropout2d(in.at("x"), F::Dropout2dFuncOptions().p(0.4)); };
    t["dropout2d_3d"] = [](const Inputs& in) { return F::dropout2d(in.at("x"), F::Dropout2dFuncOptions().p(0.5)); };
    t["relu6_kinks"] = [](const Inputs& in) { return F::relu6(in.at("x")); };
    t["relu6"] = [](const Inputs& in) { return F::relu6(in.at("x")); };
    t["hardshrink_kinks"] = [](const Inputs& in) { return F::hardshrink(in.at("x")); };
    t["hardshrink_lambda"] = [](const Inputs& in) { return F::hardshrink(in.at("x"), 1.2); };
    t["softshrink_kinks"] = [](const Inputs& in) { return F::softshrink(in.at("x")); };
    t["softshrink_lambda"] = [](const Inputs& in) { return F::softshrink(in.at("x"), 1.2); };
    t["tanhshrink"] = unary(F::tanhshrink);
    t["glu_last"] = [](const Inputs& in) { return F::glu(in.at("x")); };
    t["glu_dim0"] = [](const Inputs& in) { return F::glu(in.at("x"), 0); };
    t["normalize"] = [](const Inputs& in) { return F::normalize(in.at("x")); };
    t["normalize_p1_dim0"] = [](const Inputs& in) {
      return F::normalize(in.at("x"), F::NormalizeFuncOptions().p(1.0).dim(0));
    };
    t["normalize_zero_row"] = [](const Inputs& in) {
      return F::normalize(in.at("x"), F::NormalizeFuncOptions().eps(1e-3));
    };
    t["softmax2d"] = [](const Inputs& in) { return nn::Softmax2d()(in.at("x")); };
    t["dropout3d"] = [](const Inputs& in) { return F::dropout3d(in.at("x"), F::Dropout3dFuncOptions().p(0.4)); };
    t["alpha_dropout"] = [](const Inputs& in) {
      return F::alpha_dropout(in.at("x"), F::AlphaDropoutFuncOptions().p(0.3).training(true));
    };
    t["feature_alpha_dropout"] = [](const Inputs& in) {
      return F::feature_alpha_dropout(in.at("x"), F::FeatureAlphaDropoutFuncOptions().p(0.5).training(true));
    };

    // ---- losses ----
    // (Clang 14 cannot capture a structured binding, so the reduction is copied out of the pair.)
    for (const auto& entry :
         std::vector<std::pair<std::string, Reduction>>{{"mean", kMean}, {"sum", kSum}, {"none", kNone}}) {
      const std::string& suffix = entry.first;
      const Reduction red = entry.second;
      t["bce_" + suffix] = [red](const Inputs& in) {
        return F::binary_cross_entropy(in.at("x"), in.at("t"), F::BinaryCrossEntropyFuncOptions().reduction(red));
      };
      t["bce_logits_" + suffix] = [red](const Inputs& in) {
        return F::binary_cross_entropy_with_logits(in.at("x"), in.at("t"),
                                                   F::BinaryCrossEntropyWithLogitsFuncOptions().reduction(red));
      };
    }
    t["bce_weight"] = [](const Inputs& in) {
      return F::binary_cross_entropy(in.at("x"), in.at("t"), F::BinaryCrossEntropyFuncOptions().weight(in.at("w")));
    };
    t["bce_edges"] = [](const Inputs& in) {
      return F::binary_cross_entropy(in.at("x"), in.at("t"), F::BinaryCrossEntropyFuncOptions().reduction(kSum));
    };
    t["bce_logits_big"] = [](const Inputs& in) {
      return F::binary_cross_entropy_with_logits(in.at("x"), in.at("t"),
                                                 F::BinaryCrossEntropyWithLogitsFuncOptions().reduction(kSum));
    };
    t["bce_logits_weight_pos_weight"] = [](const Inputs& in) {
      return F::binary_cross_entropy_with_logits(
          in.at("x"), in.at("t"),
          F::BinaryCrossEntropyWithLogitsFuncOptions().weight(in.at("w")).pos_weight(in.at("pw")));
    };
    t["kl_div_mean"] = [](const Inputs& in) { return F::kl_div(in.at("x"), in.at("t")); };
    t["kl_div_sum"] = [](const Inputs& in) { return F::kl_div(in.at("x"), in.at("t"), F::KLDivFuncOptions(kSum)); };
    t["kl_div_none"] = [](const Inputs& in) { return F::kl_div(in.at("x"), in.at("t"), F::KLDivFuncOptions(kNone)); };
    t["kl_div_batchmean"] = [](const Inputs& in) {
      return F::kl_div(in.at("x"), in.at("t"), F::KLDivFuncOptions(kBatchMean));
    };
    t["kl_div_log_target"] = [](const Inputs& in) {
      return F::kl_div(in.at("x"), in.at("t"), F::KLDivFuncOptions(kBatchMean).log_target(true));
    };
    t["huber"] = [](const Inputs& in) { return F::huber_loss(in.at("x"), in.at("y")); };
    t["huber_delta_sum"] = [](const Inputs& in) {
      return F::huber_loss(in.at("x"), in.at("y"), F::HuberLossFuncOptions(kSum).delta(0.5));
    };
    t["huber_none"] = [](const Inputs& in) {
      return F::huber_loss(in.at("x"), in.at("y"), F::HuberLossFuncOptions(kNone).delta(1.5));
    };
    t["margin_ranking"] = [](const Inputs& in) {
      return F::margin_ranking_loss(in.at("a"), in.at("b"), in.at("y"), F::MarginRankingLossFuncOptions().margin(0.2));
    };
    t["margin_ranking_sum"] = [](const Inputs& in) {
      return F::margin_ranking_loss(in.at("a"), in.at("b"), in.at("y"),
                                    F::MarginRankingLossFuncOptions().reduction(kSum));
    };
    t["hinge_embedding"] = [](const Inputs& in) {
      return F::hinge_embedding_loss(in.at("x"), in.at("y"), F::HingeEmbeddingLossFuncOptions().margin(1.5));
    };
    t["hinge_embedding_none"] = [](const Inputs& in) {
      return F::hinge_embedding_loss(in.at("x"), in.at("y"), F::HingeEmbeddingLossFuncOptions().reduction(kNone));
    };
    t["cosine_embedding"] = [](const Inputs& in) {
      return F::cosine_embedding_loss(in.at("a"), in.at("b"), in.at("y"),
                                      F::CosineEmbeddingLossFuncOptions().margin(0.1));
    };
    t["cosine_embedding_none"] = [](const Inputs& in) {
      return F::cosine_embedding_loss(in.at("a"), in.at("b"), in.at("y"),
                                      F::CosineEmbeddingLossFuncOptions().margin(-0.5).reduction(kNone));
    };
    t["cosine_embedding_1d"] = [](const Inputs& in) {
      return F::cosine_embedding_loss(in.at("a"), in.at("b"), in.at("y"),
                                      F::CosineEmbeddingLossFuncOptions().margin(-0.2));
    };
    t["triplet"] = [](const Inputs& in) { return F::triplet_margin_loss(in.at("a"), in.at("p"), in.at("n")); };
    t["triplet_p1_swap"] = [](const Inputs& in) {
      return F::triplet_margin_loss(in.at("a"), in.at("p"), in.at("n"),
                                    F::TripletMarginLossFuncOptions().margin(0.5).p(1).swap(true).reduction(kSum));
    };
    t["triplet_p3_none"] = [](const Inputs& in) {
      return F::triplet_margin_loss(in.at("a"), in.at("p"), in.at("n"),
                                    F::TripletMarginLossFuncOptions().margin(2.0).p(3).eps(1e-3).reduction(kNone));
    };
    t["pairwise_distance"] = [](const Inputs& in) { return F::pairwise_distance(in.at("a"), in.at("b")); };
    t["poisson_nll"] = [](const Inputs& in) { return F::poisson_nll_loss(in.at("x"), in.at("t")); };
    t["poisson_nll_rate_full"] = [](const Inputs& in) {
      return F::poisson_nll_loss(in.at("x"), in.at("t"),
                                 F::PoissonNLLLossFuncOptions().log_input(false).full(true).reduction(kSum));
    };
    t["poisson_nll_full_none"] = [](const Inputs& in) {
      return F::poisson_nll_loss(in.at("x"), in.at("t"), F::PoissonNLLLossFuncOptions().full(true).reduction(kNone));
    };
    t["gaussian_nll"] = [](const Inputs& in) { return F::gaussian_nll_loss(in.at("x"), in.at("t"), in.at("v")); };
    t["gaussian_nll_full_sum"] = [](const Inputs& in) {
      return F::gaussian_nll_loss(in.at("x"), in.at("t"), in.at("v"),
                                  F::GaussianNLLLossFuncOptions().full(true).reduction(kSum));
    };
    t["gaussian_nll_batch_var"] = [](const Inputs& in) {
      return F::gaussian_nll_loss(in.at("x"), in.at("t"), in.at("v"), F::GaussianNLLLossFuncOptions().reduction(kNone));
    };
    t["gaussian_nll_hetero_var"] = [](const Inputs& in) {
      return F::gaussian_nll_loss(in.at("x"), in.at("t"), in.at("v"), F::GaussianNLLLossFuncOptions().eps(0.3));
    };
    return t;
  }();
  return table;
}

const nlohmann::json& functional_fixture() { return ember::test::cached_fixture("nn/activation_loss_functional.json"); }
const nlohmann::json& module_fixture() { return ember::test::cached_fixture("nn/activation_modules.json"); }

class ActivationLossReference : public ::testing::TestWithParam<std::string> {};

TEST_P(ActivationLossReference, ForwardAndBackwardMatchPyTorch) {
  ASSERT_TRUE(cases().count(GetParam())) << "no C++ case for " << GetParam();
  check_fixture_case(functional_fixture().at(GetParam()), RequireGrad::kFloatingWithStoredGrad, cases().at(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(Fixture, ActivationLossReference, ::testing::ValuesIn(case_names(functional_fixture())),
                         [](const auto& info) { return info.param; });

TEST(ActivationLoss, EveryTableCaseHasAFixture) {
  for (const auto& [name, fn] : cases()) EXPECT_TRUE(functional_fixture().contains(name)) << name;
}

// ---- gradient check: central differences in float64, inputs away from kinks ----

TEST(ActivationLoss, GradientsMatchFiniteDifferences) {
  Tensor sign = tensor({1.0, -1.0, -1.0, 1.0}, dtype(kFloat64));
  Tensor targets01 = wave64({4, 3}, 1.7, 0.5, 0.5);
  const std::vector<GradCase> table = {
      {"silu", [](const tensor_list& x) { return F::silu(x[0]); }, {wave64({2, 4}, 0, 3)}},
      {"mish", [](const tensor_list& x) { return F::mish(x[0]); }, {wave64({2, 4}, 0, 3)}},
      {"softsign", [](const tensor_list& x) { return F::softsign(x[0]); }, {wave64({2, 4}, 0, 3)}},
      {"logsigmoid", [](const tensor_list& x) { return F::logsigmoid(x[0]); }, {wave64({2, 4}, 0, 3)}},
      {"elu",
       [](const tensor_list& x) { return F::elu(x[0], F::ELUFuncOptions().alpha(0.8)); },
       {wave64({2, 4}, 0, 3)}},
      {"selu", [](const tensor_list& x) { return F::selu(x[0]); }, {wave64({2, 4}, 0, 3)}},
      {"celu",
       [](const tensor_list& x) { return F::celu(x[0], F::CELUFuncOptions().alpha(1.7)); },
       {wave64({2, 4}, 0, 3)}},
      {"leaky_relu", [](const tensor_list& x) { return F::leaky_relu(x[0]); }, {wave64({2, 4}, 0, 3)}},
      {"prelu_channels_transposed",
       [](const tensor_list& x) { return F::prelu(x[0].transpose(0, 2), x[1]); },
       {wave64({4, 3, 2}, 0, 2), wave64({3}, 1.0, 0.5)}},
      {"hardtanh", [](const tensor_list& x) { return F::hardtanh(x[0]); }, {wave64({2, 4}, 0, 3)}},
      {"softplus",
       [](const tensor_list& x) { return F::softplus(x[0], F::SoftplusFuncOptions().beta(1.5).threshold(2)); },
       {wave64({2, 4}, 0, 3)}},
      {"softmin", [](const tensor_list& x) { return F::softmin(x[0], 0); }, {wave64({3, 4})}},
      {"threshold",
       [](const tensor_list& x) { return F::threshold(x[0], F::ThresholdFuncOptions(0.1, 2.0)); },
       {wave64({2, 4})}},
      {"bce",
       [targets01](const tensor_list& x) { return F::binary_cross_entropy(x[0].sigmoid(), targets01); },
       {wave64({4, 3}, 0, 2)},
       false},
      {"bce_with_logits_pos_weight",
       [targets01](const tensor_list& x) {
         return F::binary_cross_entropy_with_logits(
             x[0], x[1],
             F::BinaryCrossEntropyWithLogitsFuncOptions().pos_weight(tensor({0.5, 2.0, 3.0}, dtype(kFloat64))));
       },
       {wave64({4, 3}, 0, 3), targets01}},
      {"kl_div_batchmean",
       [](const tensor_list& x) {
         return F::kl_div(x[0].log_softmax(1), x[1].softmax(1), F::KLDivFuncOptions(kBatchMean));
       },
       {wave64({3, 4}), wave64({3, 4}, 0.6)}},
      {"kl_div_log_target",
       [](const tensor_list& x) { return F::kl_div(x[0], x[1], F::KLDivFuncOptions(kSum).log_target(true)); },
       {wave64({3, 4}), wave64({3, 4}, 0.6)}},
      {"huber",
       [](const tensor_list& x) { return F::huber_loss(x[0], x[1], F::HuberLossFuncOptions().delta(0.7)); },
       {wave64({3, 4}, 0, 2), wave64({3, 4}, 1.3)}},
      {"margin_ranking",
       [sign](const tensor_list& x) {
         return F::margin_ranking_loss(x[0], x[1], sign, F::MarginRankingLossFuncOptions().margin(0.2));
       },
       {wave64({4}), wave64({4}, 0.8)}},
      {"hinge_embedding",
       [sign](const tensor_list& x) { return F::hinge_embedding_loss(x[0], sign); },
       {wave64({4}, 0, 2)}},
      {"cosine_embedding",
       [](const tensor_list& x) {
         return F::cosine_embedding_loss(x[0], x[1], tensor({1, -1, 1, -1}, dtype(kInt64)),
                                         F::CosineEmbeddingLossFuncOptions().margin(-0.3));
       },
       {wave64({4, 3}), wave64({4, 3}, 0.5)}},
      {"triplet_swap",
       [](const tensor_list& x) {
         return F::triplet_margin_loss(x[0], x[1], x[2], F::TripletMarginLossFuncOptions().margin(2.0).swap(true));
       },
       {wave64({3, 4}), wave64({3, 4}, 0.3), wave64({3, 4}, 1.2)}},
      {"triplet_p3",
       [](const tensor_list& x) {
         return F::triplet_margin_loss(x[0], x[1], x[2], F::TripletMarginLossFuncOptions().p(3).margin(3));
       },
       {wave64({3, 4}), wave64({3, 4}, 0.3), wave64({3, 4}, 1.2)}},
      {"poisson_nll_rate",
       [](const tensor_list& x) {
         return F::poisson_nll_loss(x[0].abs() + 0.5, tensor({{0.0, 2.0}, {3.5, 1.0}}, dtype(kFloat64)),
                                    F::PoissonNLLLossFuncOptions().log_input(false).full(true));
       },
       {wave64({2, 2})}},
      {"gaussian_nll",
       [](const tensor_list& x) { return F::gaussian_nll_loss(x[0], x[1], x[2].abs() + 0.1); },
       {wave64({3, 2}), wave64({3, 2}, 1.0), wave64({3}, 2.0)}},
  };
  check_grad_cases(table);
}

// ---- no NaN where a discarded branch overflows ----

bool all_finite(const Tensor& t) {
  return t.abs().lt(std::numeric_limits<double>::infinity()).all().item<bool>();  // NaN compares false
}

TEST(ActivationLoss, LargeInputsGiveFiniteGradients) {
  Tensor x = tensor({-200.0f, -100.0f, 0.0f, 100.0f, 200.0f}, requires_grad());
  for (auto [name, f] : std::vector<std::pair<const char*, std::function<Tensor(const Tensor&)>>>{
           {"softplus", [](const Tensor& t) { return F::softplus(t); }},
           {"logsigmoid", [](const Tensor& t) { return F::logsigmoid(t); }},
           {"mish", [](const Tensor& t) { return F::mish(t); }},
           {"elu", [](const Tensor& t) { return F::elu(t); }},
           {"celu", [](const Tensor& t) { return F::celu(t, F::CELUFuncOptions().alpha(0.5)); }},
           {"bce_with_logits", [](const Tensor& t) {
              return F::binary_cross_entropy_with_logits(t, tensor({1.0f, 0.0f, 1.0f, 0.0f, 1.0f}),
                                                         F::BinaryCrossEntropyWithLogitsFuncOptions().reduction(kNone));
            }}}) {
    SCOPED_TRACE(name);
    x.mutable_grad() = Tensor();
    Tensor y = f(x);
    EXPECT_TRUE(all_finite(y)) << y;
    y.sum().backward();
    EXPECT_TRUE(all_finite(x.grad())) << x.grad();
  }
}

// ---- modules ----

TEST(ActivationModules, SequentialStacksMatchPyTorch) {
  std::map<std::string, nn::Sequential> stacks;
  stacks.emplace(
      "activation_stack",
      nn::Sequential(nn::Flatten(), nn::Linear(12, 6), nn::PReLU(nn::PReLUOptions().num_parameters(6)),
                     nn::Linear(6, 8), nn::Mish(), nn::SELU(), nn::Unflatten(nn::UnflattenOptions(1, {2, 4})),
                     nn::Softplus(nn::SoftplusOptions().beta(2.0)), nn::Softmin(-1), nn::Identity()));
  stacks.emplace(
      "activation_stack_2",
      nn::Sequential(nn::Linear(5, 6), nn::ELU(nn::ELUOptions().alpha(0.5)), nn::Linear(6, 6),
                     nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.1)),
                     nn::Hardtanh(nn::HardtanhOptions().min_val(-0.7).max_val(0.6)), nn::Linear(6, 4),
                     nn::CELU(nn::CELUOptions().alpha(2.0)), nn::Tanh(), nn::Linear(4, 3), nn::LogSigmoid(),
                     nn::Threshold(-0.9, 0.3), nn::SiLU(), nn::Softsign(), nn::Sigmoid(), nn::LogSoftmax(1)));
  for (auto& [name, stack] : stacks) {
    SCOPED_TRACE(name);
    nn::Sequential& m = stack;  // a plain reference: Clang 14 cannot capture a structured binding
    const nlohmann::json& c = module_fixture().at(name);
    ember::test::expect_parameter_names(*m, c);
    ember::test::load_case_parameters(*m, c);
    ember::test::check_case(
        *m, c, [&](const tensor_list& in) { return m(in[0]); }, 1e-5, 1e-6);
  }
}

TEST(ActivationModules, PReLUInitAndParameters) {
  nn::PReLU prelu(nn::PReLUOptions().num_parameters(4).init(0.1));
  EXPECT_TENSOR_CLOSE(prelu->weight, tensor_from_json(module_fixture().at("prelu_init").at("weight")), 0, 0);
  EXPECT_EQ(prelu->parameters().size(), 1u);
  EXPECT_TRUE(prelu->weight.requires_grad());
  nn::PReLU shared;
  EXPECT_TENSOR_CLOSE(shared->weight, full({1}, 0.25), 0, 0);
}

TEST(ActivationModules, Dropout2dDrawsLikePyTorchAndIsIdentityInEval) {
  const auto& c = module_fixture().at("dropout2d_module");
  nn::Dropout2d drop(0.3);
  Tensor x = tensor_from_json(c.at("input"));
  manual_seed(c.at("seed").get<uint64_t>());
  Tensor y = drop(x);
  EXPECT_TENSOR_CLOSE(y, tensor_from_json(c.at("output")), 0.0, 0.0);
  // whole channels: each (n, c) plane is all zero or all x / 0.7
  Tensor kept = y.ne(0).to(kFloat32).sum({2, 3});
  EXPECT_TRUE((kept.eq(0) || kept.eq(9)).all().item<bool>()) << kept;
  drop->eval();
  EXPECT_TRUE(drop(x).is_same(x));
}

TEST(ActivationModules, ShrinksGluAndAlphaDropouts) {
  Tensor x = tensor({{-2.0f, -0.4f, 0.0f, 0.3f}, {0.6f, 1.5f, -0.6f, 4.0f}});
  EXPECT_TENSOR_CLOSE(nn::ReLU6()(x * 2), F::hardtanh(x * 2, F::HardtanhFuncOptions().min_val(0).max_val(6)), 0, 0);
  EXPECT_TENSOR_CLOSE(nn::Hardshrink(0.5)(x), tensor({{-2.0f, 0.0f, 0.0f, 0.0f}, {0.6f, 1.5f, -0.6f, 4.0f}}), 0, 0);
  EXPECT_TENSOR_CLOSE(nn::Softshrink(0.5)(x), tensor({{-1.5f, 0.0f, 0.0f, 0.0f}, {0.1f, 1.0f, -0.1f, 3.5f}}), 1e-6,
                      1e-6);
  EXPECT_TENSOR_CLOSE(nn::GLU()(x), x.narrow(1, 0, 2) * x.narrow(1, 2, 2).sigmoid(), 0, 0);
  EXPECT_TENSOR_CLOSE(nn::GLU(0)(x), x[0].unsqueeze(0) * x[1].unsqueeze(0).sigmoid(), 0, 0);
  // ReLU6 in place writes into its input
  Tensor h = x.clone();
  nn::ReLU6(true)(h);
  EXPECT_TENSOR_CLOSE(h, x.clamp(0, 6), 0, 0);
  // The alpha dropouts keep zero mean and unit variance of a standard normal input.
  manual_seed(3);
  Tensor n = randn({200000});
  Tensor y = F::alpha_dropout(n, F::AlphaDropoutFuncOptions().p(0.3).training(true));
  EXPECT_NEAR(y.mean().item<double>(), 0.0, 0.01);
  EXPECT_NEAR(y.std().item<double>(), 1.0, 0.01);
  nn::AlphaDropout alpha(0.3);
  alpha->eval();
  EXPECT_TRUE(alpha(n).is_same(n));
  EXPECT_TRUE(F::alpha_dropout(n).is_same(n));  // training is false by default, as libtorch's
  // FeatureAlphaDropout and Dropout3d drop whole channels
  Tensor v = ones({2, 6, 3, 3});
  Tensor z = nn::FeatureAlphaDropout(0.5)(v);
  Tensor per_channel = z.amax({2, 3}) - z.amin({2, 3});
  EXPECT_EQ(per_channel.abs().max().item<float>(), 0.0f);
  Tensor d = nn::Dropout3d(0.5)(ones({2, 4, 2, 2, 2}));
  EXPECT_TRUE((d.amax({2, 3, 4}) == d.amin({2, 3, 4})).all().item<bool>());
  EXPECT_TENSOR_CLOSE(F::normalize(tensor({{3.0, 4.0}})), tensor({{0.6, 0.8}}), 1e-15, 1e-15);
}

TEST(ActivationModules, ShrinksGluAndDropoutsPrintAndRefuseBadInput) {
  std::ostringstream text;
  text << nn::ReLU6() << ' ' << nn::ReLU6(true) << ' ' << nn::Hardshrink(0.2) << ' ' << nn::Softshrink() << ' '
       << nn::Tanhshrink() << ' ' << nn::GLU() << ' ' << nn::Softmax2d() << ' ' << nn::Dropout3d(0.4) << ' '
       << nn::AlphaDropout() << ' ' << nn::FeatureAlphaDropout(0.1);
  EXPECT_EQ(text.str(),
            "ReLU6() ReLU6(inplace=true) Hardshrink(0.2) Softshrink(0.5) Tanhshrink() GLU(dim=-1) Softmax2d() "
            "Dropout3d(p=0.4, inplace=false) AlphaDropout(p=0.5, inplace=false) FeatureAlphaDropout(p=0.1, "
            "inplace=false)");
  EXPECT_THROWS_WITH(F::glu(zeros({2, 3})), "Halving dimension must be even, but dimension 1 is size 3");
  EXPECT_THROWS_WITH(F::glu(zeros({2, 4}), 2), "glu: dimension out of range");
  EXPECT_THROWS_WITH(F::softshrink(zeros({2}), -1.0), "softshrink: lambda must be greater or equal to 0");
  EXPECT_THROWS_WITH(nn::Softmax2d()(zeros({2, 3})),
                     "Softmax2d: expected input of 3 or 4 dimensions, got shape [2, 3]");
  EXPECT_THROWS_WITH(nn::AlphaDropout(1.5), "dropout probability has to be between 0 and 1, but got 1.5");
  EXPECT_THROWS_WITH(F::alpha_dropout(zeros({2}), F::AlphaDropoutFuncOptions().p(-0.1)),
                     "alpha_dropout: dropout probability has to be between 0 and 1, but got -0.1");
  EXPECT_THROWS_WITH(F::dropout3d(zeros({4})), "dropout3d: feature dropout requires at least 2 dimensions");
}

TEST(ActivationModules, FlattenUnflattenIdentity) {
  Tensor x = arange(24, dtype(kFloat32)).reshape({2, 3, 4});
  EXPECT_EQ(nn::Flatten()(x).sizes().vec(), (std::vector<int64_t>{2, 12}));
  EXPECT_EQ(nn::Flatten(nn::FlattenOptions().start_dim(0).end_dim(1))(x).sizes().vec(), (std::vector<int64_t>{6, 4}));
  EXPECT_EQ(nn::Unflatten(nn::UnflattenOptions(2, {2, -1}))(x).sizes().vec(), (std::vector<int64_t>{2, 3, 2, 2}));
  EXPECT_TRUE(nn::Identity()(x).is_same(x));
  EXPECT_TENSOR_CLOSE(nn::Unflatten(nn::UnflattenOptions(1, {3, 4}))(nn::Flatten()(x)), x, 0, 0);
}

TEST(ActivationModules, InplaceOptionsWriteIntoTheInputAndKeepGradients) {
  Tensor w = tensor({-1.0, 0.5, 2.0}, dtype(kFloat64).requires_grad(true));
  Tensor h = w * 2;
  Tensor y = nn::ELU(nn::ELUOptions().inplace(true))(h);
  EXPECT_TRUE(y.is_same(h));
  EXPECT_NEAR(h[0].item<double>(), std::exp(-2.0) - 1, 1e-12);
  y.sum().backward();
  EXPECT_NEAR(w.grad()[0].item<double>(), 2 * std::exp(-2.0), 1e-12);  // d/dw elu(2w) = 2 exp(2w) for w < 0
  EXPECT_NEAR(w.grad()[2].item<double>(), 2.0, 1e-12);
  Tensor z = ones({2, 3}, dtype(kFloat64)) * -3;
  F::leaky_relu(z, F::LeakyReLUFuncOptions().inplace(true));
  EXPECT_TENSOR_CLOSE(z, full({2, 3}, -0.03, dtype(kFloat64)));
  F::hardtanh(z, F::HardtanhFuncOptions().min_val(0).max_val(1).inplace(true));
  EXPECT_TENSOR_CLOSE(z, zeros({2, 3}, dtype(kFloat64)));
}

TEST(ActivationModules, LossModulesForwardToTheirFunctions) {
  Tensor x = tensor({{0.2, -1.0, 3.0}, {0.5, 0.0, -2.0}});
  Tensor t = tensor({{1.0, 0.0, 1.0}, {0.0, 0.5, 1.0}});
  nn::BCEWithLogitsLoss bce(nn::BCEWithLogitsLossOptions().pos_weight(tensor({1.0f, 2.0f, 0.5f})));
  EXPECT_TENSOR_CLOSE(bce(x, t), F::binary_cross_entropy_with_logits(x, t, bce->options), 0, 0);
  nn::BCELoss bce_prob(nn::BCELossOptions().reduction(kSum));
  EXPECT_TENSOR_CLOSE(
      bce_prob(x.sigmoid(), t),
      F::binary_cross_entropy_with_logits(x, t, F::BinaryCrossEntropyWithLogitsFuncOptions().reduction(kSum)), 1e-5,
      1e-5);
  nn::KLDivLoss kl{nn::KLDivLossOptions(kBatchMean)};
  EXPECT_NEAR(kl(x.log_softmax(1), t.softmax(1)).item<double>(),
              F::kl_div(x.log_softmax(1), t.softmax(1), F::KLDivFuncOptions(kSum)).item<double>() / 2, 1e-6);
  nn::HuberLoss huber(nn::HuberLossOptions().delta(0.5));
  nn::SmoothL1Loss smooth(nn::SmoothL1LossOptions().beta(0.5));
  EXPECT_TENSOR_CLOSE(huber(x, t), smooth(x, t) * 0.5, 1e-6, 1e-7);  // huber = beta * smooth_l1 for delta = beta
  nn::TripletMarginLoss triplet(nn::TripletMarginLossOptions().margin(0.3));
  EXPECT_TENSOR_CLOSE(triplet(x, t, -x), F::triplet_margin_loss(x, t, -x, triplet->options), 0, 0);
  nn::MarginRankingLoss ranking;
  nn::CosineEmbeddingLoss cosine;
  nn::HingeEmbeddingLoss hinge;
  nn::PoissonNLLLoss poisson;
  nn::GaussianNLLLoss gaussian;
  Tensor y = tensor({1.0f, -1.0f});
  EXPECT_NEAR(ranking(x.select(1, 0), x.select(1, 1), y).item<double>(), (0.0 + 0.5) / 2,
              1e-6);                                                            // max(0, -(1.2)), max(0, 0.5)
  EXPECT_NEAR(hinge(x.select(1, 0), y).item<double>(), (0.2 + 0.5) / 2, 1e-6);  // x, max(0, 1 - 0.5)
  EXPECT_TRUE(cosine(x, t, y).defined());
  EXPECT_NEAR(poisson(zeros({3}), ones({3})).item<double>(), 1.0, 1e-7);  // exp(0) - 1 * 0
  EXPECT_NEAR(gaussian(zeros({2}), zeros({2}), ones({2})).item<double>(), 0.0, 1e-7);
}

TEST(ActivationModules, PrintoutsNameTheOptions) {
  std::ostringstream s;
  s << nn::Sequential(nn::Flatten(), nn::PReLU(nn::PReLUOptions().num_parameters(3)), nn::ELU(), nn::SELU(),
                      nn::CELU(nn::CELUOptions().alpha(0.5)), nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.2)),
                      nn::Hardtanh(), nn::Softplus(), nn::Softmin(1), nn::LogSoftmax(-1), nn::Threshold(0.1, 20),
                      nn::Identity(), nn::Unflatten(nn::UnflattenOptions(1, {2, 3})), nn::Dropout2d(0.2), nn::Sigmoid(),
                      nn::Tanh(), nn::SiLU(), nn::Mish(), nn::Softsign(), nn::LogSigmoid());
  EXPECT_EQ(s.str(),
            "Sequential(\n"
            "  (0): Flatten(start_dim=1, end_dim=-1)\n"
            "  (1): PReLU(num_parameters=3)\n"
            "  (2): ELU(alpha=1)\n"
            "  (3): SELU()\n"
            "  (4): CELU(alpha=0.5)\n"
            "  (5): LeakyReLU(negative_slope=0.2)\n"
            "  (6): Hardtanh(min_val=-1, max_val=1)\n"
            "  (7): Softplus(beta=1, threshold=20)\n"
            "  (8): Softmin(dim=1)\n"
            "  (9): LogSoftmax(dim=-1)\n"
            "  (10): Threshold(threshold=0.1, value=20)\n"
            "  (11): Identity()\n"
            "  (12): Unflatten(dim=1, unflattened_size=[2, 3])\n"
            "  (13): Dropout2d(p=0.2, inplace=false)\n"
            "  (14): Sigmoid()\n"
            "  (15): Tanh()\n"
            "  (16): SiLU()\n"
            "  (17): Mish()\n"
            "  (18): Softsign()\n"
            "  (19): LogSigmoid()\n"
            ")");
}

// ---- bad input ----

TEST(ActivationLoss, BadInputNamesTheOpAndValues) {
  EXPECT_THROWS_WITH(F::prelu(ones({2, 4, 3}), full({3}, 0.25)),
                     "prelu: mismatch of parameter numbers and input channel size. Found parameter numbers = 3 and "
                     "channel size = 4 (input [2, 4, 3])");
  EXPECT_THROWS_WITH(F::prelu(ones({2, 3}), full({3, 1}, 0.25)), "prelu: weight must be a 1-D tensor, got [3, 1]");
  EXPECT_THROWS_WITH(nn::PReLU(nn::PReLUOptions().num_parameters(0)),
                     "PReLU: num_parameters must be at least 1, got 0");
  EXPECT_THROWS_WITH(nn::CELU(nn::CELUOptions().alpha(0)), "CELU: alpha must not be 0");
  EXPECT_THROWS_WITH(F::celu(ones({2}), F::CELUFuncOptions().alpha(0)), "celu: alpha must not be 0");
  EXPECT_THROWS_WITH(nn::Hardtanh(nn::HardtanhOptions().min_val(1).max_val(-1)),
                     "Hardtanh: max_val (-1) must be greater than min_val (1)");
  EXPECT_THROWS_WITH(F::softplus(ones({2}), F::SoftplusFuncOptions().beta(0)), "softplus: beta must not be 0");
  EXPECT_THROWS_WITH(nn::Dropout2d(1.5), "Dropout2d: dropout probability has to be between 0 and 1, but got 1.5");
  EXPECT_THROWS_WITH(F::dropout2d(ones({4})),
                     "dropout2d: feature dropout requires at least 2 dimensions (N, C, *) in the input, got [4]");
  EXPECT_THROWS_WITH(nn::Unflatten(nn::UnflattenOptions(1, {4, 2}))(ones({2, 6})), "unflatten");
  EXPECT_THROWS_WITH(F::softmin(ones({2, 3}), 2), "softmax");

  EXPECT_THROWS_WITH(F::binary_cross_entropy(full({2, 3}, 0.5), full({3}, 0.5)),
                     "binary_cross_entropy: using a target size ([3]) that is different to the input size ([2, 3])");
  EXPECT_THROWS_WITH(F::binary_cross_entropy(tensor({0.5f, 1.5f}), tensor({0.0f, 1.0f})),
                     "binary_cross_entropy: all elements of input should be between 0 and 1");
  EXPECT_THROWS_WITH(F::binary_cross_entropy_with_logits(ones({2, 3}), ones({3, 2})),
                     "binary_cross_entropy_with_logits: target size ([3, 2]) must be the same as input size ([2, 3])");
  EXPECT_THROWS_WITH(
      F::binary_cross_entropy_with_logits(ones({2, 3}), ones({2, 3}),
                                          F::BinaryCrossEntropyWithLogitsFuncOptions().pos_weight(ones({2}))),
      "binary_cross_entropy_with_logits: pos_weight (one weight per class, the last dim) of shape [2] must "
      "broadcast to the input's shape [2, 3]");
  EXPECT_THROWS_WITH(F::binary_cross_entropy_with_logits(ones({2}, dtype(kInt64)), ones({2})),
                     "binary_cross_entropy_with_logits: input must be floating point, got int64");
  EXPECT_THROWS_WITH(F::kl_div(ones({2, 3}), ones({2, 2})),
                     "kl_div: input [2, 3] and target [2, 2] must have the same shape");
  EXPECT_THROWS_WITH(F::huber_loss(ones({2}), ones({2}), F::HuberLossFuncOptions().delta(0)),
                     "huber_loss: delta must be positive, got 0");
  EXPECT_THROWS_WITH(F::huber_loss(ones({2}), ones({3})),
                     "huber_loss: input [2] and target [3] must have the same shape");
  EXPECT_THROWS_WITH(F::margin_ranking_loss(ones({3}), ones({3}), ones({1, 3})),
                     "margin_ranking_loss: all input tensors should have the same number of dimensions but got sizes: "
                     "input1: [3], input2: [3], target: [1, 3]");
  EXPECT_THROWS_WITH(F::cosine_embedding_loss(ones({2, 3}), ones({2, 3}), ones({2, 1})),
                     "cosine_embedding_loss: 0-D or 1-D target tensor expected, multi-target not supported");
  EXPECT_THROWS_WITH(
      F::cosine_embedding_loss(ones({3}), ones({3}), ones({2})),
      "cosine_embedding_loss: a 1-D target expects 2-D input tensors, but found inputs with sizes [3] and [3]");
  EXPECT_THROWS_WITH(F::triplet_margin_loss(ones({2, 3}), ones({2, 3}), ones({3})),
                     "triplet_margin_loss: all inputs should have the same dimension but got 2-D, 2-D and 1-D inputs");
  EXPECT_THROWS_WITH(F::pairwise_distance(ones({3}), ones({3}), F::PairwiseDistanceFuncOptions().p(0)),
                     "pairwise_distance: p must be positive, got 0");
  EXPECT_THROWS_WITH(F::poisson_nll_loss(ones({2}), ones({2, 1})),
                     "poisson_nll_loss: input [2] and target [2, 1] must have the same shape");
  EXPECT_THROWS_WITH(F::gaussian_nll_loss(ones({4, 3}), ones({4, 3}), ones({4, 2})),
                     "gaussian_nll_loss: var [4, 2] is of incorrect size for input [4, 3]");
  EXPECT_THROWS_WITH(F::gaussian_nll_loss(ones({2}), ones({2}), tensor({1.0f, -0.5f})),
                     "gaussian_nll_loss: var has negative entry/entries");
}

}  // namespace

TEST(Activation, ReluWithOptionsIsInPlaceWhenAsked) {
  Tensor x = from_vector<float>({-1.5, 0, 2}, {3});
  Tensor y = F::relu(x, F::ReLUFuncOptions());
  EXPECT_TENSOR_CLOSE(y, from_vector<float>({0, 0, 2}, {3}));
  EXPECT_EQ(x[0].item<float>(), -1.5f);
  F::relu(x, F::ReLUFuncOptions().inplace(true));
  EXPECT_TENSOR_CLOSE(x, from_vector<float>({0, 0, 2}, {3}));
}
