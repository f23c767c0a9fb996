// EmbeddingBag, F::embedding_bag, Embedding's max_norm and the from_pretrained constructors
// (nn/embedding.h) against PyTorch 1.13: outputs and the gradients of the weight and of
// per_sample_weights in every mode, the renormed weight, the first draws after manual_seed; printouts;
// gradcheck in float64; bad input.
//
// Fixtures come from scripts/gen_resample_fixtures.py (tests/fixtures/nn/embedding_bag.json); each
// table line is the C++ twin of one `bag(...)` or `case(...)` there.
#include <functional>
#include <map>
#include <sstream>

#include "fixture_cases.h"
#include "test_util.h"

using namespace ember;
namespace F = ember::nn::functional;
using namespace ember::test;

namespace {

using Case = std::function<Tensor(const NamedInputs&)>;

// F::embedding_bag on the fixture's inputs (offsets and per-sample weights where the case has them).
Case bag(F::EmbeddingBagFuncOptions options) {
  return [options](const NamedInputs& in) {
    F::EmbeddingBagFuncOptions o = options;
    if (in.count("offsets")) o.offsets(in.at("offsets"));
    if (in.count("psw")) o.per_sample_weights(in.at("psw"));
    return F::embedding_bag(in.at("input"), in.at("w"), o);
  };
}

const std::map<std::string, Case>& cases() {
  static const std::map<std::string, Case> table = [] {
    std::map<std::string, Case> t;
    t["sum_offsets_empty_bag"] = bag(F::EmbeddingBagFuncOptions().mode(kSum));
    t["mean_offsets_empty_bag"] = bag(F::EmbeddingBagFuncOptions().mode(kMean));
    t["max_offsets_empty_bag"] = bag(F::EmbeddingBagFuncOptions().mode(kMax));
    t["mean_2d"] = bag(F::EmbeddingBagFuncOptions());
    t["max_2d_f64"] = bag(F::EmbeddingBagFuncOptions().mode(kMax));
    t["sum_per_sample_weights"] = bag(F::EmbeddingBagFuncOptions().mode(kSum));
    t["sum_per_sample_weights_2d_f64"] = bag(F::EmbeddingBagFuncOptions().mode(kSum));
    t["mean_padding_idx_last_offset"] =
        bag(F::EmbeddingBagFuncOptions().mode(kMean).padding_idx(2).include_last_offset(true));
    t["max_padding_idx"] = bag(F::EmbeddingBagFuncOptions().mode(kMax).padding_idx(1));
    t["sum_max_norm"] = bag(F::EmbeddingBagFuncOptions().mode(kSum).max_norm(1.5));
    t["embedding_max_norm"] = [](const NamedInputs& in) {
      return F::embedding(in.at("input"), in.at("w"), F::EmbeddingFuncOptions().max_norm(1.0).norm_type(1.0));
    };
    return t;
  }();
  return table;
}

const nlohmann::json& fixture() { return cached_fixture("nn/embedding_bag.json"); }

std::vector<std::string> functional_cases() {
  std::vector<std::string> names = case_names(fixture());
  std::erase(names, "seed");
  return names;
}

class EmbeddingBagReference : public ::testing::TestWithParam<std::string> {};

TEST_P(EmbeddingBagReference, ForwardAndGradientsMatchPyTorch) {
  ASSERT_TRUE(cases().count(GetParam())) << "no C++ case for " << GetParam();
  const nlohmann::json& c = fixture().at(GetParam());
  Tensor weight;
  check_fixture_case(c, RequireGrad::kFloatingWithStoredGrad, [&](const NamedInputs& in) {
    weight = in.at("w");
    return cases().at(GetParam())(in);
  });
  // max_norm rescales the looked-up rows of the weight in place, as PyTorch.
  if (c.contains("renormed")) EXPECT_TENSOR_CLOSE(weight, tensor_from_json(c.at("renormed")), 1e-6, 1e-6);
}

INSTANTIATE_TEST_SUITE_P(Fixture, EmbeddingBagReference, ::testing::ValuesIn(functional_cases()),
                         [](const auto& info) { return info.param; });

TEST(EmbeddingBag, FirstDrawsAfterManualSeedMatchPyTorch) {
  manual_seed(0);
  nn::EmbeddingBag bag(5, 3);
  EXPECT_TENSOR_CLOSE(bag->weight, tensor_from_json(fixture().at("seed").at("embedding_bag_5_3")), 1e-6, 1e-6);
}

TEST(EmbeddingBag, ModuleForwardsOffsetsAndPerSampleWeights) {
  Tensor table = arange(12, dtype(kFloat32)).reshape({4, 3});
  auto bag = nn::EmbeddingBag::from_pretrained(table, nn::EmbeddingBagFromPretrainedOptions().mode(kSum));
  EXPECT_FALSE(bag->weight.requires_grad());
  Tensor input = from_vector(std::vector<int64_t>{0, 1, 3}, {3}, dtype(kInt64));
  Tensor offsets = from_vector(std::vector<int64_t>{0, 2}, {2}, dtype(kInt64));
  Tensor psw = from_vector(std::vector<float>{1, 2, 0.5}, {3});
  EXPECT_TENSOR_CLOSE(bag(input, offsets, psw), from_vector(std::vector<float>{6, 9, 12, 4.5, 5, 5.5}, {2, 3}), 0, 0);

  auto trainable =
      nn::Embedding::from_pretrained(table, nn::EmbeddingFromPretrainedOptions().freeze(false).padding_idx(1));
  EXPECT_TRUE(trainable->weight.requires_grad());
  EXPECT_TRUE(trainable->weight.is_same(table));
  trainable(from_vector(std::vector<int64_t>{1, 2}, {2}, dtype(kInt64))).sum().backward();
  EXPECT_EQ(trainable->weight.grad().sum(1).to_vector<float>(), (std::vector<float>{0, 0, 3, 0}));
}

TEST(EmbeddingBag, GradcheckFloat64) {
  Tensor input = from_vector(std::vector<int64_t>{1, 2, 4, 0, 4, 3}, {6}, dtype(kInt64));
  Tensor offsets = from_vector(std::vector<int64_t>{0, 2, 2}, {3}, dtype(kInt64));
  auto run = [&](F::EmbeddingBagFuncOptions o) {
    return [=](const tensor_list& in) {
      F::EmbeddingBagFuncOptions with = o;
      with.offsets(offsets);
      if (in.size() > 1) with.per_sample_weights(in[1]);
      return F::embedding_bag(input, in[0], with);
    };
  };
  check_grad_cases({
      {"sum with per-sample weights", run(F::EmbeddingBagFuncOptions().mode(kSum)), {wave64({5, 3}), wave64({6}, 0.5)}},
      {"mean with padding_idx", run(F::EmbeddingBagFuncOptions().padding_idx(4)), {wave64({5, 3})}},
      {"max", run(F::EmbeddingBagFuncOptions().mode(kMax)), {wave64({5, 3})}, /*second_order=*/false},
  });
}

TEST(EmbeddingBag, PrintsAsLibtorch) {
  auto printed = [](const nn::Module& m) {
    std::ostringstream s;
    m.pretty_print(s);
    return s.str();
  };
  EXPECT_EQ(printed(*nn::EmbeddingBag(5, 3)), "EmbeddingBag(num_embeddings=5, embedding_dim=3)");
  EXPECT_EQ(printed(*nn::EmbeddingBag(
                nn::EmbeddingBagOptions(5, 3).mode(kMax).max_norm(2).include_last_offset(true).padding_idx(-1))),
            "EmbeddingBag(num_embeddings=5, embedding_dim=3, max_norm=2, mode=kMax, include_last_offset=true, "
            "padding_idx=4)");
  EXPECT_EQ(printed(*nn::Embedding(nn::EmbeddingOptions(4, 2).max_norm(1.5).norm_type(1))),
            "Embedding(num_embeddings=4, embedding_dim=2, max_norm=1.5, norm_type=1)");
}

TEST(EmbeddingBag, BadInputNamesTheOpAndValues) {
  Tensor w = ones({5, 3});
  Tensor flat = from_vector(std::vector<int64_t>{1, 2, 3}, {3}, dtype(kInt64));
  Tensor offsets = from_vector(std::vector<int64_t>{0, 2}, {2}, dtype(kInt64));
  EXPECT_THROWS_WITH(F::embedding_bag(flat, w),
                     "embedding_bag: offsets has to be a 1-D int64 tensor for a 1-D input [3]");
  EXPECT_THROWS_WITH(F::embedding_bag(flat.reshape({1, 3}), w, F::EmbeddingBagFuncOptions().offsets(offsets)),
                     "embedding_bag: if input is 2-D [1, 3], then offsets has to be undefined");
  EXPECT_THROWS_WITH(
      F::embedding_bag(flat, w, F::EmbeddingBagFuncOptions().offsets(offsets).per_sample_weights(ones({3}))),
      "embedding_bag: per_sample_weights is only supported for mode kSum (got mode kMean)");
  EXPECT_THROWS_WITH(
      F::embedding_bag(flat, w, F::EmbeddingBagFuncOptions().offsets(offsets).mode(kSum).per_sample_weights(ones({2}))),
      "embedding_bag: If per_sample_weights ([2]) is not null, then it must have the same shape as the input ([3])");
  EXPECT_THROWS_WITH(
      F::embedding_bag(
          flat, w, F::EmbeddingBagFuncOptions().offsets(from_vector(std::vector<int64_t>{1, 2}, {2}, dtype(kInt64)))),
      "embedding_bag: offsets[0] has to be 0, but got 1");
  EXPECT_THROWS_WITH(F::embedding_bag(flat * 2, w, F::EmbeddingBagFuncOptions().offsets(offsets)),
                     "embedding_bag: index 6 is out of range for num_embeddings 5");
  EXPECT_THROWS_WITH(F::embedding_bag(flat, w, F::EmbeddingBagFuncOptions().offsets(offsets).sparse(true)),
                     "embedding_bag: sparse gradients are not supported by Ember");
  EXPECT_THROWS_WITH(nn::EmbeddingBag(nn::EmbeddingBagOptions(5, 3).padding_idx(5)),
                     "EmbeddingBag: padding_idx 5 must be within num_embeddings (5)");
  EXPECT_THROWS_WITH(nn::EmbeddingBag::from_pretrained(ones({5})),
                     "from_pretrained: embeddings are expected to be 2-D (V, C), but got shape [5]");
  EXPECT_THROWS_WITH(F::embedding(flat, w, F::EmbeddingFuncOptions().scale_grad_by_freq(true)),
                     "embedding: scale_grad_by_freq is not supported by Ember");
}

}  // namespace
