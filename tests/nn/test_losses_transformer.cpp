// The margin losses of nn/loss.h (multi_margin_loss, soft_margin_loss, multilabel_margin_loss,
// multilabel_soft_margin_loss, triplet_margin_with_distance_loss) and the transformer stacks of
// nn/transformer.h (TransformerEncoder, TransformerDecoder, Transformer) against PyTorch 1.13.
//
// Fixtures come from scripts/gen_losses_transformer_fixtures.py (tests/fixtures/nn/losses_transformer.json):
// each loss table line is the C++ twin of one `case(...)` there, run in float32 and float64 (the
// fixture's "_f64" twin); forward values and the gradients of (out * w).sum() are compared. The
// module cases compare parameter names, seeded initial values, outputs and every gradient. Plus
// gradcheck in float64, one case on the (emulated) CUDA device, and bad input.
#include <functional>
#include <map>
#include <string>

#include "cuda_test_util.h"
#include "fixture_cases.h"
#include "module_case.h"
#include "test_util.h"

using namespace ember;
namespace F = ember::nn::functional;
using namespace ember::test;

namespace {

using Case = std::function<Tensor(const NamedInputs&)>;

// Each line mirrors the case of the same name in gen_losses_transformer_fixtures.py.
const std::map<std::string, Case>& cases() {
  static const std::map<std::string, Case> table = [] {
    std::map<std::string, Case> t;
    for (const auto& entry :
         std::vector<std::pair<std::string, Reduction>>{{"mean", kMean}, {"sum", kSum}, {"none", kNone}}) {
      const std::string& suffix = entry.first;
      const Reduction red = entry.second;
      t["multi_margin_" + suffix] = [red](const NamedInputs& in) {
        return F::multi_margin_loss(in.at("x"), in.at("y"), F::MultiMarginLossFuncOptions().reduction(red));
      };
      t["soft_margin_" + suffix] = [red](const NamedInputs& in) {
        return F::soft_margin_loss(in.at("x"), in.at("y"), red);
      };
      t["multilabel_margin_" + suffix] = [red](const NamedInputs& in) {
        return F::multilabel_margin_loss(in.at("x"), in.at("y"), red);
      };
      t["multilabel_soft_margin_" + suffix] = [red](const NamedInputs& in) {
        return F::multilabel_soft_margin_loss(in.at("x"), in.at("y"),
                                              F::MultilabelSoftMarginLossFuncOptions().reduction(red));
      };
      t["triplet_distance_" + suffix] = [red](const NamedInputs& in) {
        return F::triplet_margin_with_distance_loss(in.at("a"), in.at("p"), in.at("n"),
                                                    F::TripletMarginWithDistanceLossFuncOptions().reduction(red));
      };
    }
    t["multi_margin_p2_margin_weight"] = [](const NamedInputs& in) {
      return F::multi_margin_loss(in.at("x"), in.at("y"),
                                  F::MultiMarginLossFuncOptions().p(2).margin(0.7).weight(in.at("w")));
    };
    t["multi_margin_1d"] = [](const NamedInputs& in) {
      return F::multi_margin_loss(in.at("x"), in.at("y"), F::MultiMarginLossFuncOptions().reduction(kNone));
    };
    t["multilabel_margin_1d"] = [](const NamedInputs& in) {
      return F::multilabel_margin_loss(in.at("x"), in.at("y"), kNone);
    };
    t["multilabel_soft_margin_weight"] = [](const NamedInputs& in) {
      return F::multilabel_soft_margin_loss(in.at("x"), in.at("y"),
                                            F::MultilabelSoftMarginLossFuncOptions().weight(in.at("w")));
    };
    t["triplet_distance_l1_swap"] = [](const NamedInputs& in) {
      auto l1 = [](const Tensor& x1, const Tensor& x2) { return (x1 - x2).abs().sum({-1}); };
      return F::triplet_margin_with_distance_loss(
          in.at("a"), in.at("p"), in.at("n"),
          F::TripletMarginWithDistanceLossFuncOptions().distance_function(l1).margin(2.5).swap(true));
    };
    t["triplet_distance_custom_margin"] = [](const NamedInputs& in) {
      auto squared = [](const Tensor& x1, const Tensor& x2) { return (x1 - x2).square().sum({-1}); };
      return F::triplet_margin_with_distance_loss(
          in.at("a"), in.at("p"), in.at("n"),
          F::TripletMarginWithDistanceLossFuncOptions().distance_function(squared).margin(0.3).reduction(kNone));
    };
    for (const auto& entry :
         std::vector<std::pair<std::string, Reduction>>{{"mean", kMean}, {"sum", kSum}, {"none", kNone}}) {
      const Reduction red = entry.second;
      t["ctc_padded_" + entry.first] = [red](const NamedInputs& in) {
        return F::ctc_loss(in.at("lp"), in.at("t"), in.at("il"), in.at("tl"), F::CTCLossFuncOptions().reduction(red));
      };
    }
    t["ctc_concat_blank4"] = [](const NamedInputs& in) {
      return F::ctc_loss(in.at("lp"), in.at("t"), in.at("il"), in.at("tl"),
                         F::CTCLossFuncOptions().blank(4).reduction(kSum));
    };
    t["ctc_logits"] = [](const NamedInputs& in) {
      return F::ctc_loss(in.at("x").log_softmax(2), in.at("t"), in.at("il"), in.at("tl"));
    };
    t["ctc_unbatched_none"] = [](const NamedInputs& in) {
      return F::ctc_loss(in.at("lp"), in.at("t"), in.at("il"), in.at("tl"), F::CTCLossFuncOptions().reduction(kNone));
    };
    t["ctc_unbatched_mean"] = [](const NamedInputs& in) {
      return F::ctc_loss(in.at("lp"), in.at("t"), in.at("il"), in.at("tl"));
    };
    t["ctc_zero_infinity"] = [](const NamedInputs& in) {
      return F::ctc_loss(in.at("lp"), in.at("t"), in.at("il"), in.at("tl"),
                         F::CTCLossFuncOptions().reduction(kNone).zero_infinity(true));
    };
    return t;
  }();
  return table;
}

const nlohmann::json& fixture() { return cached_fixture("nn/losses_transformer.json"); }

// The table line of a fixture case: its name without the "_f64" of the float64 twin.
std::string table_name(const std::string& name) {
  const std::string f64 = "_f64";
  const bool twin = name.size() > f64.size() && name.compare(name.size() - f64.size(), f64.size(), f64) == 0;
  return twin ? name.substr(0, name.size() - f64.size()) : name;
}

std::vector<std::string> loss_case_names() {
  std::vector<std::string> names;
  for (const std::string& name : case_names(fixture())) {
    if (name.rfind("module_", 0) != 0 && name.rfind("adaptive_", 0) != 0) names.push_back(name);
  }
  return names;
}

class MarginLossReference : public ::testing::TestWithParam<std::string> {};

TEST_P(MarginLossReference, ForwardAndBackwardMatchPyTorch) {
  const std::string name = table_name(GetParam());
  ASSERT_TRUE(cases().count(name)) << "no C++ case for " << GetParam();
  check_fixture_case(fixture().at(GetParam()), RequireGrad::kFloatingWithStoredGrad, cases().at(name));
}

INSTANTIATE_TEST_SUITE_P(Fixture, MarginLossReference, ::testing::ValuesIn(loss_case_names()),
                         [](const auto& info) { return info.param; });

TEST(MarginLoss, EveryTableCaseHasAFixtureInBothDtypes) {
  for (const auto& [name, fn] : cases()) {
    EXPECT_TRUE(fixture().contains(name)) << name;
    EXPECT_TRUE(fixture().contains(name + "_f64")) << name;
  }
}

TEST(MarginLoss, GradientsMatchFiniteDifferences) {
  Tensor classes = tensor({2, 0, 3}, dtype(kInt64));
  Tensor lists = tensor({3, 0, -1, 1, 1, -1, 0, 0, 2, 3, 0, 1}, dtype(kInt64)).view({3, 4});
  Tensor sign = tensor({1.0, -1.0, -1.0, 1.0, 1.0, 1.0, -1.0, -1.0, -1.0, 1.0, 1.0, -1.0}, dtype(kFloat64));
  Tensor labels = wave64({3, 4}, 1.7, 0.5, 0.5);
  check_grad_cases({
      {"multi_margin_p1",
       [&](const tensor_list& in) { return F::multi_margin_loss(in[0], classes); },
       {wave64({3, 4}, 0.0, 2.0)},
       false},
      {"multi_margin_p2_weight",
       [&](const tensor_list& in) {
         return F::multi_margin_loss(
             in[0], classes,
             F::MultiMarginLossFuncOptions().p(2).weight(tensor({1.0, 0.5, 2.0, 1.5}, dtype(kFloat64))));
       },
       {wave64({3, 4}, 0.0, 2.0)},
       false},
      {"soft_margin",
       [&](const tensor_list& in) {
         return F::soft_margin_loss(in[0], sign.view({3, 4}));
       },
       {wave64({3, 4}, 0.0, 2.0)}},
      {"multilabel_margin",
       [&](const tensor_list& in) { return F::multilabel_margin_loss(in[0], lists, kSum); },
       {wave64({3, 4}, 0.0, 2.0)},
       false},
      {"multilabel_soft_margin",
       [&](const tensor_list& in) {
         return F::multilabel_soft_margin_loss(in[0], in[1], F::MultilabelSoftMarginLossFuncOptions().weight(in[2]));
       },
       {wave64({3, 4}, 0.0, 2.0), labels, wave64({4}, 0.3, 0.5, 1.0)}},
      {"triplet_distance_swap",
       [](const tensor_list& in) {
         return F::triplet_margin_with_distance_loss(in[0], in[1], in[2],
                                                     F::TripletMarginWithDistanceLossFuncOptions().swap(true));
       },
       {wave64({3, 4}), wave64({3, 4}, 0.3), wave64({3, 4}, 1.2)}},
  });
}

TEST(MarginLoss, ModulesForwardToTheirFunctions) {
  Tensor x = wave64({3, 4}, 0.0, 2.0);
  Tensor classes = tensor({2, 0, 3}, dtype(kInt64));
  nn::MultiMarginLoss multi(nn::MultiMarginLossOptions().p(2).margin(0.5).reduction(kSum));
  EXPECT_TENSOR_CLOSE(
      multi(x, classes),
      F::multi_margin_loss(x, classes, F::MultiMarginLossFuncOptions().p(2).margin(0.5).reduction(kSum)));
  Tensor sign = x.sign();
  EXPECT_TENSOR_CLOSE(nn::SoftMarginLoss()(x, sign), F::soft_margin_loss(x, sign));
  Tensor lists = tensor({3, -1, 0, 0, 1, 2, -1, 0, 0, 1, 2, 3}, dtype(kInt64)).view({3, 4});
  EXPECT_TENSOR_CLOSE(nn::MultiLabelMarginLoss(kNone)(x, lists), F::multilabel_margin_loss(x, lists, kNone));
  Tensor labels = x.gt(0).to(kFloat64);
  EXPECT_TENSOR_CLOSE(nn::MultiLabelSoftMarginLoss()(x, labels), F::multilabel_soft_margin_loss(x, labels));
  nn::TripletMarginWithDistanceLoss triplet(nn::TripletMarginWithDistanceLossOptions().margin(0.2));
  EXPECT_TENSOR_CLOSE(triplet(x, x.neg(), x * 2),
                      F::triplet_margin_with_distance_loss(x, x.neg(), x * 2,
                                                           F::TripletMarginWithDistanceLossFuncOptions().margin(0.2)));
  // libtorch's defaults
  EXPECT_EQ(nn::MultiMarginLossOptions().p(), 1);
  EXPECT_DOUBLE_EQ(nn::MultiMarginLossOptions().margin(), 1.0);
  EXPECT_FALSE(nn::MultiMarginLossOptions().weight().defined());
  EXPECT_EQ(nn::SoftMarginLossOptions().reduction(), kMean);
  EXPECT_FALSE(nn::TripletMarginWithDistanceLossOptions().distance_function().has_value());
  EXPECT_DOUBLE_EQ(nn::TripletMarginWithDistanceLossOptions().margin(), 1.0);
  EXPECT_FALSE(nn::TripletMarginWithDistanceLossOptions().swap());
}

TEST(MarginLoss, BadInputNamesTheOpAndValues) {
  Tensor x = ones({3, 4});
  Tensor classes = tensor({2, 0, 3}, dtype(kInt64));
  EXPECT_THROWS_WITH(F::multi_margin_loss(x, classes, F::MultiMarginLossFuncOptions().p(3)),
                     "multi_margin_loss: only p == 1 and p == 2 supported, got p = 3");
  EXPECT_THROWS_WITH(F::multi_margin_loss(x, tensor({0, 4, 1}, dtype(kInt64))),
                     "multi_margin_loss: target 4 is out of bounds: classes are in [0, 4) (input has C = 4)");
  EXPECT_THROWS_WITH(F::multi_margin_loss(x, tensor({0, 1}, dtype(kInt64))),
                     "multi_margin_loss: inconsistent target size, expected 3 but got [2] (input [3, 4])");
  EXPECT_THROWS_WITH(F::multi_margin_loss(ones({2, 3, 4}), classes),
                     "multi_margin_loss: expected a non-empty (C) or (N, C) input, got [2, 3, 4]");
  EXPECT_THROWS_WITH(F::multi_margin_loss(x, classes, F::MultiMarginLossFuncOptions().weight(ones({3}))),
                     "multi_margin_loss: weight must be one-dimensional with C = 4 values, got [3]");
  EXPECT_THROWS_WITH(F::multi_margin_loss(x, classes.to(kFloat32)),
                     "multi_margin_loss: target must hold int64 class indices, got float32");
  EXPECT_THROWS_WITH(F::soft_margin_loss(x, ones({4})),
                     "soft_margin_loss: input [3, 4] and target [4] must have the same shape");
  Tensor lists = full({3, 4}, -1, dtype(kInt64));
  EXPECT_THROWS_WITH(F::multilabel_margin_loss(x, lists.view({4, 3})),
                     "multilabel_margin_loss: target [4, 3] must have the input's shape [3, 4]");
  EXPECT_THROWS_WITH(F::multilabel_margin_loss(x, lists.masked_fill(lists.eq(-1), -2)),
                     "multilabel_margin_loss: target -2 is out of bounds: classes are in [-1, 4)");
  EXPECT_THROWS_WITH(F::multilabel_soft_margin_loss(x, ones({3, 5})),
                     "multilabel_soft_margin_loss: input [3, 4] and target [3, 5] must have the same shape");
  EXPECT_THROWS_WITH(F::multilabel_soft_margin_loss(x, x, F::MultilabelSoftMarginLossFuncOptions().weight(ones({3}))),
                     "multilabel_soft_margin_loss: weight of shape [3] must broadcast to the input's shape [3, 4]");
  EXPECT_THROWS_WITH(F::triplet_margin_with_distance_loss(x, x, ones({4})),
                     "triplet_margin_with_distance_loss: the anchor, positive and negative tensors are expected to "
                     "have the same number of dimensions, but got [3, 4], [3, 4] and [4]");
}

TEST(CTCLoss, GradientMatchesFiniteDifferencesThroughLogSoftmax) {
  // Through log_softmax, PyTorch's extra exp(log_probs) term cancels: the true gradient.
  Tensor targets = tensor({1, 2, 2, 3, 1, 0}, dtype(kInt64)).view({2, 3});
  Tensor input_lengths = tensor({5, 4}, dtype(kInt64)), target_lengths = tensor({3, 1}, dtype(kInt64));
  check_grad_cases({{"ctc_loss",
                     [&](const tensor_list& in) {
                       return F::ctc_loss(in[0].log_softmax(2), targets, input_lengths, target_lengths);
                     },
                     {wave64({5, 2, 4}, 0.0, 2.0)},
                     false}});
}

TEST(CTCLoss, ModuleAndBadInput) {
  Tensor lp = wave64({5, 2, 4}, 0.0, 2.0).log_softmax(2);
  Tensor targets = tensor({1, 2, 2, 3, 1, 0}, dtype(kInt64)).view({2, 3});
  Tensor il = tensor({5, 4}, dtype(kInt64)), tl = tensor({3, 1}, dtype(kInt64));
  nn::CTCLoss ctc(nn::CTCLossOptions().reduction(kSum));
  EXPECT_TENSOR_CLOSE(ctc(lp, targets, il, tl),
                      F::ctc_loss(lp, targets, il, tl, F::CTCLossFuncOptions().reduction(kSum)));
  EXPECT_EQ(nn::CTCLossOptions().blank(), 0);
  EXPECT_FALSE(nn::CTCLossOptions().zero_infinity());
  EXPECT_THROWS_WITH(F::ctc_loss(lp[0], targets, il, tl),
                     "ctc_loss: unbatched log_probs [2, 4] take 1-d targets (S), got [2, 3]");
  EXPECT_THROWS_WITH(F::ctc_loss(lp.unsqueeze(0), targets, il, tl),
                     "ctc_loss: log_probs must be a floating (T, N, C) or unbatched (T, C) tensor, got [1, ");
  EXPECT_THROWS_WITH(F::ctc_loss(lp, targets, il, tl, F::CTCLossFuncOptions().blank(4)),
                     "ctc_loss: blank must be in label range [0, 4), got 4");
  EXPECT_THROWS_WITH(F::ctc_loss(lp, targets, tensor({6, 4}, dtype(kInt64)), tl),
                     "ctc_loss: input_lengths must be in [0, T = 5] (log_probs [5, 2, 4]), but got 6 for sample 0");
  EXPECT_THROWS_WITH(F::ctc_loss(lp, targets, il, tensor({3}, dtype(kInt64))),
                     "ctc_loss: target_lengths must hold one int64 length per sample (N = 2), got int64 of shape [1]");
  EXPECT_THROWS_WITH(F::ctc_loss(lp, targets, il, tensor({4, 1}, dtype(kInt64))),
                     "ctc_loss: a target length of 4 exceeds the padded targets' size 3 (targets [2, 3])");
  EXPECT_THROWS_WITH(F::ctc_loss(lp, targets.masked_fill(targets.eq(3), 7), il, tl),
                     "ctc_loss: target 7 of sample 1 is out of range [0, 4)");
  EXPECT_THROWS_WITH(F::ctc_loss(lp, targets.view({6}), il, tensor({3, 4}, dtype(kInt64))),
                     "ctc_loss: the target lengths add up to 7 but targets has 6 values");
}

// One device-generic case on "cuda" (the emulator where there is no GPU): the same values and
// gradients as on the CPU.
TEST(MarginLoss, CudaMatchesCpu) {
  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  Tensor x_cpu = wave64({3, 4}, 0.0, 2.0).to(kFloat32).requires_grad_();
  Tensor x_gpu = x_cpu.detach().to(kCUDA).requires_grad_();
  Tensor classes = tensor({2, 0, 3}, dtype(kInt64));
  Tensor lists = tensor({3, 0, -1, 1, 1, -1, 0, 0, 2, 3, 0, 1}, dtype(kInt64)).view({3, 4});
  auto loss = [](const Tensor& x, const Tensor& c, const Tensor& l) {
    return F::multi_margin_loss(x, c, F::MultiMarginLossFuncOptions().p(2)) + F::multilabel_margin_loss(x, l) +
           F::multilabel_soft_margin_loss(x, x.detach().sigmoid());
  };
  Tensor cpu = loss(x_cpu, classes, lists);
  Tensor gpu = loss(x_gpu, classes.to(kCUDA), lists.to(kCUDA));
  EXPECT_TRUE(gpu.device().is_cuda());
  EXPECT_TENSOR_CLOSE(gpu.to(kCPU), cpu, 1e-5, 1e-6);
  cpu.backward();
  gpu.backward();
  EXPECT_TENSOR_CLOSE(x_gpu.grad().to(kCPU), x_cpu.grad(), 1e-5, 1e-6);
}

// ---- transformer stacks ----

nn::TransformerEncoder make_encoder() {
  auto layer = nn::TransformerEncoderLayerOptions(4, 2).dim_feedforward(6).dropout(0.0);
  return nn::TransformerEncoder(
      nn::TransformerEncoderOptions(layer, 2).norm(nn::AnyModule(nn::LayerNorm(nn::LayerNormOptions({4})))));
}

nn::TransformerDecoder make_decoder() {
  auto layer = nn::TransformerDecoderLayerOptions(4, 2).dim_feedforward(6).dropout(0.0).activation(kGELU);
  return nn::TransformerDecoder(
      nn::TransformerDecoderOptions(layer, 2).norm(nn::AnyModule(nn::LayerNorm(nn::LayerNormOptions({4})))));
}

nn::Transformer make_transformer() {
  return nn::Transformer(nn::TransformerOptions(4, 2, 2, 1).dim_feedforward(6).dropout(0.0).activation(kGELU));
}

const Tensor padding() { return tensor({false, false, false, true, false, false, false, false}).view({2, 4}); }

TEST(TransformerStack, EncoderDrawsAndMatchesPyTorch) {
  const nlohmann::json& c = fixture().at("module_encoder");
  manual_seed(c.at("seed").get<uint64_t>());
  nn::TransformerEncoder encoder = make_encoder();
  expect_parameter_names(*encoder, c);
  expect_parameters_equal(*encoder, c);  // the clones hold the first layer's draws
  Tensor causal = nn::generate_square_subsequent_mask(4);
  check_case(*encoder, c, [&](const tensor_list& in) { return encoder(in[0], causal, padding()); });
}

TEST(TransformerStack, DecoderDrawsAndMatchesPyTorch) {
  const nlohmann::json& c = fixture().at("module_decoder");
  manual_seed(c.at("seed").get<uint64_t>());
  nn::TransformerDecoder decoder = make_decoder();
  expect_parameter_names(*decoder, c);
  expect_parameters_equal(*decoder, c);
  Tensor causal = nn::TransformerImpl::generate_square_subsequent_mask(3);
  check_case(*decoder, c,
             [&](const tensor_list& in) { return decoder->forward(in[0], in[1], causal, {}, {}, padding()); });
}

// PyTorch's Transformer draws differ from libtorch's (libtorch's clone() draws again; the compat
// program losses_transformer holds libtorch's), so the parameters are loaded here.
TEST(TransformerStack, TransformerMatchesPyTorchInBothDtypes) {
  for (const char* name : {"module_transformer", "module_transformer_f64"}) {
    SCOPED_TRACE(name);
    const nlohmann::json& c = fixture().at(name);
    nn::Transformer model = make_transformer();
    if (std::string(name).ends_with("_f64")) model->to(kFloat64);
    expect_parameter_names(*model, c);
    load_case_parameters(*model, c);
    Tensor causal = nn::TransformerImpl::generate_square_subsequent_mask(3).to(tensor_from_json(c["output"]).dtype());
    const double tol = std::string(name).ends_with("_f64") ? 1e-10 : 1e-5;
    check_case(
        *model, c,
        [&](const tensor_list& in) { return model->forward(in[0], in[1], {}, causal, {}, padding(), {}, padding()); },
        tol, tol);
  }
}

TEST(TransformerStack, ResetParametersAndClonesKeepTheStructure) {
  nn::Transformer model = make_transformer();
  EXPECT_EQ(model->encoder.get<nn::TransformerEncoderImpl>().layers->size(), 2u);
  EXPECT_EQ(model->decoder.get<nn::TransformerDecoderImpl>().layers->size(), 1u);
  // Every matrix is redrawn; vectors (biases, LayerNorm) keep their values.
  std::vector<Tensor> before;
  for (const Tensor& p : model->parameters()) before.push_back(p.detach().clone());
  model->reset_parameters();
  const auto after = model->parameters();
  for (size_t i = 0; i < after.size(); ++i) {
    EXPECT_EQ(after[i].equal(before[i]), after[i].dim() <= 1) << i;
  }
  auto copy = std::dynamic_pointer_cast<nn::TransformerImpl>(model->clone());
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->named_parameters().keys(), model->named_parameters().keys());
  EXPECT_TRUE(copy->parameters()[0].equal(model->parameters()[0]));
  // A custom encoder replaces the built one.
  auto options = nn::TransformerOptions(4, 2, 1, 1).dim_feedforward(6).custom_encoder(nn::AnyModule(make_encoder()));
  nn::Transformer custom(options);
  EXPECT_EQ(custom->encoder.get<nn::TransformerEncoderImpl>().layers->size(), 2u);
}

TEST(TransformerStack, BadInputNamesTheModuleAndShapes) {
  nn::Transformer model = make_transformer();
  EXPECT_THROWS_WITH(model(ones({4, 2, 4}), ones({3, 4})),
                     "Transformer: src and tgt should have 3 dimensions (S, N, E), but got [4, 2, 4] and [3, 4]");
  EXPECT_THROWS_WITH(model(ones({4, 2, 4}), ones({3, 3, 4})),
                     "Transformer: src and tgt should have equal batch size (at dim 1), but got 2 and 3");
  EXPECT_THROWS_WITH(model(ones({4, 2, 4}), ones({3, 2, 5})),
                     "Transformer: src and tgt should have the feature size d_model = 4 (at dim 2), but got 4 and 5");
  EXPECT_THROWS_WITH(nn::Transformer(nn::TransformerOptions(6, 4)),
                     "Transformer: d_model must be divisible by nhead (d_model = 6, nhead = 4)");
  EXPECT_THROWS_WITH(nn::TransformerImpl::generate_square_subsequent_mask(0),
                     "generate_square_subsequent_mask: the size must be positive, got 0");
  EXPECT_THROWS_WITH(nn::TransformerEncoder(nn::TransformerEncoderLayer(nullptr), 2),
                     "TransformerEncoder: encoder_layer is null");
  nn::TransformerEncoder encoder = make_encoder();
  EXPECT_THROWS_WITH(encoder(ones({4, 2, 5})), "TransformerEncoderLayer: src has 5 features but d_model is 4");
}

// ---- MultiheadAttention's options: kdim/vdim, bias_k/bias_v and the zero attention, per-head weights ----

TEST(MultiheadAttention, OptionsDrawAndMatchPyTorch) {
  const Tensor padding =
      tensor({false, false, false, false, false, false, false, false, false, false, true, true}).view({2, 6});
  const Tensor bool_mask =
      tensor({false, true, false, false, false, false, false, true, true, false, true, false, false, false, false})
          .view({3, 5});
  struct Case {
    const char* name;
    nn::MultiheadAttentionOptions options;
    std::function<Tensor(nn::MultiheadAttention&, const tensor_list&)> forward;
  };
  const Case cases[] = {
      {"module_mha_kdim_vdim", nn::MultiheadAttentionOptions(8, 2).kdim(5).vdim(3),
       [&](nn::MultiheadAttention& m, const tensor_list& in) { return std::get<0>(m(in[0], in[1], in[2], padding)); }},
      {"module_mha_bias_kv_zero_attn", nn::MultiheadAttentionOptions(8, 4).add_bias_kv(true).add_zero_attn(true),
       [&](nn::MultiheadAttention& m, const tensor_list& in) {
         return std::get<0>(m->forward(in[0], in[1], in[2], {}, true, bool_mask));
       }},
      {"module_mha_weights_per_head", nn::MultiheadAttentionOptions(6, 3).bias(false),
       [](nn::MultiheadAttention& m, const tensor_list& in) {
         return std::get<1>(m->forward(in[0], in[0], in[0], {}, true, {}, /*average_attn_weights=*/false));
       }},
  };
  for (const Case& test : cases) {
    SCOPED_TRACE(test.name);
    const nlohmann::json& c = fixture().at(test.name);
    manual_seed(c.at("seed").get<uint64_t>());
    nn::MultiheadAttention mha(test.options);
    expect_parameter_names(*mha, c);
    expect_parameters_equal(*mha, c);
    check_case(*mha, c, [&](const tensor_list& in) { return test.forward(mha, in); });
  }
}

TEST(MultiheadAttention, FunctionalFormAndBadInput) {
  nn::MultiheadAttention mha(nn::MultiheadAttentionOptions(4, 2).kdim(3).vdim(2));
  EXPECT_FALSE(mha->in_proj_weight.defined());
  EXPECT_EQ(mha->k_proj_weight.sizes(), IntArrayRef({4, 3}));
  Tensor q = randn({2, 1, 4}), k = randn({5, 1, 3}), v = randn({5, 1, 2});
  auto [out, weights] = mha(q, k, v);
  EXPECT_EQ(out.sizes(), IntArrayRef({2, 1, 4}));
  EXPECT_EQ(weights.sizes(), IntArrayRef({1, 2, 5}));
  // The functional form with the module's tensors gives the same, and static_k/static_v replace the
  // projected keys and values.
  namespace F = nn::functional;
  F::MultiheadAttentionForwardFuncOptions o(4, 2, {}, mha->in_proj_bias, {}, {}, false, 0.0, mha->out_proj->weight,
                                            mha->out_proj->bias);
  o.use_separate_proj_weight(true)
      .q_proj_weight(mha->q_proj_weight)
      .k_proj_weight(mha->k_proj_weight)
      .v_proj_weight(mha->v_proj_weight);
  EXPECT_TENSOR_CLOSE(std::get<0>(F::multi_head_attention_forward(q, k, v, o)), out);
  Tensor static_k = randn({2, 7, 2}), static_v = randn({2, 7, 2});
  auto [static_out, static_weights] = F::multi_head_attention_forward(
      q, k, v, F::MultiheadAttentionForwardFuncOptions(o).static_k(static_k).static_v(static_v));
  EXPECT_EQ(static_weights.sizes(), IntArrayRef({1, 2, 7}));
  EXPECT_TRUE(std::get<1>(F::multi_head_attention_forward(
                              q, k, v, F::MultiheadAttentionForwardFuncOptions(o).need_weights(false)))
                  .defined() == false);

  EXPECT_THROWS_WITH(mha(q, randn({5, 1, 4}), v),
                     "a separate projection weight must be (4, 4) for an input of [5, 1, 4]");
  EXPECT_THROWS_WITH(mha(q, k, randn({4, 1, 2})), "batch or length mismatch");
  EXPECT_THROWS_WITH(nn::MultiheadAttention(nn::MultiheadAttentionOptions(6, 4)),
                     "embed_dim must be divisible by num_heads");
  EXPECT_THROWS_WITH(
      F::multi_head_attention_forward(q, k, v, F::MultiheadAttentionForwardFuncOptions(o).static_k(randn({3, 7, 2}))),
      "static_k must be (2, S, 2), got [3, 7, 2]");
  EXPECT_THROWS_WITH(
      F::multi_head_attention_forward(q, k, v, F::MultiheadAttentionForwardFuncOptions(o).embed_dim_to_check(6)),
      "was expecting embedding dimension of 6, but got 4");
}

// ---- AdaptiveLogSoftmaxWithLoss ----

nn::AdaptiveLogSoftmaxWithLoss make_adaptive(bool head_bias = false) {
  return nn::AdaptiveLogSoftmaxWithLoss(
      nn::AdaptiveLogSoftmaxWithLossOptions(8, 10, {3, 6}).div_value(2.0).head_bias(head_bias));
}

TEST(AdaptiveLogSoftmax, DrawsOutputsAndGradientsMatchPyTorch) {
  for (const char* name :
       {"module_adaptive", "module_adaptive_head_bias", "module_adaptive_one_sample", "module_adaptive_log_prob"}) {
    SCOPED_TRACE(name);
    const nlohmann::json& c = fixture().at(name);
    manual_seed(c.at("seed").get<uint64_t>());
    nn::AdaptiveLogSoftmaxWithLoss m = make_adaptive(std::string(name) == "module_adaptive_head_bias");
    expect_parameter_names(*m, c);
    // The head draws first, as in PyTorch; libtorch draws each tail's two Linears in the reverse
    // order of PyTorch's (the compat program losses_transformer holds libtorch's), so those are loaded.
    EXPECT_TENSOR_CLOSE(m->head->weight, tensor_from_json(c.at("params").at("head.weight")), 0.0, 1e-7);
    load_case_parameters(*m, c);
    if (std::string(name) == "module_adaptive_log_prob") {
      check_case(*m, c, [&](const tensor_list& in) { return m->log_prob(in[0]); });
    } else {
      check_case(*m, c, [&](const tensor_list& in) {
        nn::ASMoutput out = m(in[0], in[1]);
        EXPECT_NEAR(out.loss, (-out.output).mean().item<double>(), 1e-6);
        return out.output;
      });
    }
  }
}

TEST(AdaptiveLogSoftmax, PredictAndLossMatchPyTorch) {
  const nlohmann::json& c = fixture().at("adaptive_predict");
  nn::AdaptiveLogSoftmaxWithLoss m = make_adaptive();
  nn::AdaptiveLogSoftmaxWithLoss seeded = make_adaptive();
  load_case_parameters(*seeded, fixture().at("module_adaptive"));  // PyTorch's draws after manual_seed(6)
  {
    NoGradGuard no_grad;
    m->head->weight.copy_(tensor_from_json(c.at("head_weight")));
    seeded->head->weight.copy_(tensor_from_json(c.at("head_weight")));
  }
  Tensor hidden = (arange(40, dtype(kFloat64)) * 0.731 + 0.3 + 0.7).sin().mul(2.0).to(kFloat32).view({5, 8});
  EXPECT_NEAR(seeded(hidden, tensor({0, 4, 9, 2, 7}, dtype(kInt64))).loss, c.at("loss").get<double>(), 1e-5);
  Tensor x = (arange(56, dtype(kFloat64)) * 0.731 + 0.3 + 0.1).sin().mul(3.0).to(kFloat32).view({7, 8});
  EXPECT_TRUE(seeded->predict(x).equal(tensor_from_json(c.at("output"))));
  // predict is the argmax of log_prob
  EXPECT_TRUE(m->predict(x).equal(m->log_prob(x).argmax(1)));
}

TEST(AdaptiveLogSoftmax, StructureAndBadInput) {
  nn::AdaptiveLogSoftmaxWithLoss m(nn::AdaptiveLogSoftmaxWithLossOptions(10, 20, {4, 12}).div_value(2.0));
  EXPECT_EQ(m->shortlist_size, 4);
  EXPECT_EQ(m->n_clusters, 2);
  EXPECT_EQ(m->head_size, 6);
  EXPECT_EQ(m->cutoffs, (std::vector<int64_t>{4, 12, 20}));
  EXPECT_EQ(m->tail->at<nn::SequentialImpl>(0)[0]->as<nn::LinearImpl>()->weight.sizes(), (IntArrayRef{5, 10}));
  EXPECT_EQ(m->tail->at<nn::SequentialImpl>(1)[0]->as<nn::LinearImpl>()->weight.sizes(), (IntArrayRef{2, 10}));
  EXPECT_EQ(m->tail->at<nn::SequentialImpl>(1)[1]->as<nn::LinearImpl>()->weight.sizes(), (IntArrayRef{8, 2}));
  EXPECT_DOUBLE_EQ(nn::AdaptiveLogSoftmaxWithLossOptions(4, 8, {2}).div_value(), 4.0);
  EXPECT_FALSE(nn::AdaptiveLogSoftmaxWithLossOptions(4, 8, {2}).head_bias());
  EXPECT_THROWS_WITH(nn::AdaptiveLogSoftmaxWithLoss(nn::AdaptiveLogSoftmaxWithLossOptions(8, 10, {6, 3})),
                     "AdaptiveLogSoftmaxWithLoss: cutoffs should be a sequence of unique, positive integers sorted in "
                     "an increasing order, where each value is between 1 and n_classes-1 (n_classes = 10, cutoffs = "
                     "[6, 3])");
  EXPECT_THROWS_WITH(nn::AdaptiveLogSoftmaxWithLoss(nn::AdaptiveLogSoftmaxWithLossOptions(8, 10, {3, 10})),
                     "between 1 and n_classes-1");
  nn::AdaptiveLogSoftmaxWithLoss a = make_adaptive();
  EXPECT_THROWS_WITH(a(ones({5, 8}), tensor({0, 1, 10, 2, 3}, dtype(kInt64))),
                     "AdaptiveLogSoftmaxWithLoss: Target values should be in [0, 9], but values in range [0, 10] were "
                     "found.");
  EXPECT_THROWS_WITH(a(ones({5, 8}), zeros({5, 2}, dtype(kInt64))),
                     "AdaptiveLogSoftmaxWithLoss: 0D or 1D target tensor expected, multi-target not supported");
  EXPECT_THROWS_WITH(
      a(ones({8}), zeros({5}, dtype(kInt64))),
      "AdaptiveLogSoftmaxWithLoss: 1D target tensor expects 2D input tensors, but found inputs with size "
      "[8]");
  EXPECT_THROWS_WITH(a(ones({5, 7}), zeros({5}, dtype(kInt64))),
                     "AdaptiveLogSoftmaxWithLoss: input has 7 features but in_features is 8 (input [5, 7])");
  EXPECT_THROWS_WITH(a(ones({4, 8}), zeros({5}, dtype(kInt64))),
                     "AdaptiveLogSoftmaxWithLoss: Input and target should have the same size in the batch dimension");
}

}  // namespace
