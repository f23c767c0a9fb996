// Bilinear (nn/linear.h), CosineSimilarity and PairwiseDistance (nn/distance.h) against PyTorch 1.13:
// outputs and every gradient in float32 and float64, Bilinear's first draws after manual_seed;
// gradcheck in float64; printouts; bad input.
//
// Fixtures come from scripts/gen_resample_fixtures.py (tests/fixtures/nn/bilinear_distance.json); each
// table line is the C++ twin of one `case(...)` there.
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

const std::map<std::string, Case>& cases() {
  static const std::map<std::string, Case> table = [] {
    std::map<std::string, Case> t;
    t["bilinear"] = [](const NamedInputs& in) { return F::bilinear(in.at("x1"), in.at("x2"), in.at("w"), in.at("b")); };
    t["bilinear_no_bias_3d_f64"] = [](const NamedInputs& in) {
      return F::bilinear(in.at("x1"), in.at("x2"), in.at("w"));
    };
    t["cosine_similarity"] = [](const NamedInputs& in) { return F::cosine_similarity(in.at("a"), in.at("b")); };
    t["cosine_similarity_broadcast_dim0_f64"] = [](const NamedInputs& in) {
      return F::cosine_similarity(in.at("a"), in.at("b"), F::CosineSimilarityFuncOptions().dim(0));
    };
    t["cosine_similarity_zero_vector"] = [](const NamedInputs& in) {
      return nn::CosineSimilarity(nn::CosineSimilarityOptions().dim(1).eps(1e-6))(in.at("a"), in.at("b"));
    };
    t["pairwise_distance_module"] = [](const NamedInputs& in) {
      return nn::PairwiseDistance(nn::PairwiseDistanceOptions().p(1).keepdim(true))(in.at("a"), in.at("b"));
    };
    return t;
  }();
  return table;
}

const nlohmann::json& fixture() { return cached_fixture("nn/bilinear_distance.json"); }

std::vector<std::string> functional_cases() {
  std::vector<std::string> names = case_names(fixture());
  std::erase(names, "seed");
  return names;
}

class BilinearDistanceReference : public ::testing::TestWithParam<std::string> {};

TEST_P(BilinearDistanceReference, ForwardAndGradientsMatchPyTorch) {
  ASSERT_TRUE(cases().count(GetParam())) << "no C++ case for " << GetParam();
  check_fixture_case(fixture().at(GetParam()), RequireGrad::kFloatingWithStoredGrad,
                     [&](const NamedInputs& in) { return cases().at(GetParam())(in); });
}

INSTANTIATE_TEST_SUITE_P(Fixture, BilinearDistanceReference, ::testing::ValuesIn(functional_cases()),
                         [](const auto& info) { return info.param; });

TEST(BilinearDistance, BilinearFirstDrawsAfterManualSeedMatchPyTorch) {
  manual_seed(0);
  nn::Bilinear bilinear(3, 4, 2);
  const nlohmann::json& seed = fixture().at("seed");
  EXPECT_TENSOR_CLOSE(bilinear->weight, tensor_from_json(seed.at("bilinear_3_4_2_weight")), 1e-7, 1e-7);
  EXPECT_TENSOR_CLOSE(bilinear->bias, tensor_from_json(seed.at("bilinear_3_4_2_bias")), 1e-7, 1e-7);
  EXPECT_EQ(bilinear(ones({5, 3}), ones({5, 4})).sizes(), IntArrayRef({5, 2}));
  EXPECT_FALSE(nn::Bilinear(nn::BilinearOptions(3, 4, 2).bias(false))->bias.defined());
}

TEST(BilinearDistance, GradcheckFloat64) {
  check_grad_cases({
      {"bilinear",
       [](const tensor_list& in) { return F::bilinear(in[0], in[1], in[2], in[3]); },
       {wave64({2, 3, 2}), wave64({2, 3, 4}, 0.3), wave64({3, 2, 4}, 0.7), wave64({3}, 1.1)}},
      {"cosine_similarity",
       [](const tensor_list& in) { return F::cosine_similarity(in[0], in[1]); },
       {wave64({3, 4}), wave64({3, 4}, 0.9)}},
  });
}

TEST(BilinearDistance, PrintsAsLibtorch) {
  auto printed = [](const nn::Module& m) {
    std::ostringstream s;
    m.pretty_print(s);
    return s.str();
  };
  EXPECT_EQ(printed(*nn::Bilinear(3, 4, 2)), "Bilinear(in1_features=3, in2_features=4, out_features=2, bias=true)");
  EXPECT_EQ(printed(*nn::CosineSimilarity()), "CosineSimilarity(dim=1, eps=1e-08)");
  EXPECT_EQ(printed(*nn::PairwiseDistance(nn::PairwiseDistanceOptions().p(1))),
            "PairwiseDistance(p=1, eps=1e-06, keepdim=false)");
}

TEST(BilinearDistance, BadInputNamesTheOpAndValues) {
  Tensor w = ones({2, 3, 4});
  EXPECT_THROWS_WITH(F::bilinear(ones({5, 3}), ones({5, 2, 4}), w),
                     "bilinear: input dimensions do not match: got shapes [5, 3] and [5, 2, 4]");
  EXPECT_THROWS_WITH(F::bilinear(ones({5, 3}), ones({6, 4}), w),
                     "bilinear: input batch dimensions do not match: got shapes [5, 3] and [6, 4]");
  EXPECT_THROWS_WITH(F::bilinear(ones({5, 2}), ones({5, 4}), w),
                     "bilinear: input1 size does not match weight size: got 2 but expected 3");
  EXPECT_THROWS_WITH(F::bilinear(ones({5, 3}), ones({5, 4}), w, ones({3})),
                     "bilinear: bias size does not match weight size: got bias [3] for weight [2, 3, 4]");
  EXPECT_THROWS_WITH(F::cosine_similarity(ones({2, 3}), ones({2, 3}), F::CosineSimilarityFuncOptions().dim(2)),
                     "cosine_similarity: dim 2 is out of range for inputs of shapes [2, 3] and [2, 3]");
  EXPECT_THROWS_WITH(F::cosine_similarity(ones({2, 3}), ones({4, 3})), "cosine_similarity");
}

}  // namespace
