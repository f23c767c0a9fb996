// ATen's free functions of autograd/aten_functions.h against PyTorch 1.13: kron, tensordot, cdist,
// cross, cartesian_prod, repeat_interleave, take_along_dim, rot90, diag_embed, block_diag and cummax /
// cummin (values and gradients, float32 and float64), and the integer results of bucketize,
// searchsorted, histc, bincount, isin, tril/triu_indices and cummax's indices. Then gradcheck in
// float64, the emulated CUDA device against the CPU, and bad input.
//
// Fixtures come from scripts/gen_aten_functions_fixtures.py (tests/fixtures/aten_functions.json); each
// table line (or loop) is the C++ twin of one `case(...)` (or loop) there.
#include <cmath>
#include <functional>
#include <map>
#include <string>

#include "cuda_test_util.h"
#include "fixture_cases.h"
#include "test_util.h"

using namespace ember;
using namespace ember::test;

namespace {

using Case = std::function<Tensor(const NamedInputs&)>;

const std::map<std::string, Case>& cases() {
  static const std::map<std::string, Case> table = [] {
    std::map<std::string, Case> t;
    for (const std::string sfx : {"", "_f64"}) {
      // ---- products ----
      t["kron_2d" + sfx] = [](const NamedInputs& in) { return kron(in.at("a"), in.at("b")); };
      t["kron_broadcast_rank" + sfx] = t["kron_2d" + sfx];
      t["tensordot" + sfx] = [](const NamedInputs& in) { return tensordot(in.at("a"), in.at("b"), {1, 2}, {1, 0}); };
      t["tensordot_none" + sfx] = [](const NamedInputs& in) { return tensordot(in.at("a"), in.at("b"), {}, {}); };
      const std::pair<const char*, double> ps[] = {{"0", 0.0}, {"1", 1.0}, {"1_5", 1.5},
                                                   {"2", 2.0}, {"3", 3.0}, {"inf", INFINITY}};
      for (const auto& [name, p] : ps)
        t[std::string("cdist_p") + name + sfx] = [p = p](const NamedInputs& in) {
          return cdist(in.at("x1"), in.at("x2"), p);
        };
      t["cdist_broadcast" + sfx] = [](const NamedInputs& in) { return cdist(in.at("x1"), in.at("x2")); };
      t["cross_dim" + sfx] = [](const NamedInputs& in) { return cross(in.at("a"), in.at("b"), 1); };
      t["cross_default" + sfx] = [](const NamedInputs& in) { return cross(in.at("a"), in.at("b")); };
      t["linalg_cross_broadcast" + sfx] = [](const NamedInputs& in) { return linalg_cross(in.at("a"), in.at("b")); };
      t["cartesian_prod" + sfx] = [](const NamedInputs& in) {
        return cartesian_prod({in.at("a"), in.at("b"), in.at("c")});
      };
      // ---- arranging ----
      t["repeat_interleave_count" + sfx] = [](const NamedInputs& in) { return repeat_interleave(in.at("x"), 2, 1); };
      t["repeat_interleave_counts" + sfx] = [](const NamedInputs& in) {
        return repeat_interleave(in.at("x"), in.at("repeats"), 0);
      };
      t["repeat_interleave_flat" + sfx] = [](const NamedInputs& in) { return repeat_interleave(in.at("x"), 3); };
      t["take_along_dim" + sfx] = [](const NamedInputs& in) { return take_along_dim(in.at("x"), in.at("i"), 1); };
      t["take_along_dim_broadcast" + sfx] = t["take_along_dim" + sfx];
      t["take_along_dim_flat" + sfx] = [](const NamedInputs& in) { return take_along_dim(in.at("x"), in.at("i")); };
      for (int64_t k : {-1, 0, 1, 2, 3, 4}) {
        const std::string name = k < 0 ? "rot90_km" + std::to_string(-k) : "rot90_k" + std::to_string(k);
        t[name + sfx] = [k](const NamedInputs& in) { return rot90(in.at("x"), k, {2, 1}); };
      }
      const std::tuple<const char*, int64_t, int64_t, int64_t> embeds[] = {{"0_m2_m1", 0, -2, -1},
                                                                           {"1_m2_m1", 1, -2, -1},
                                                                           {"m2_m2_m1", -2, -2, -1},
                                                                           {"1_0_2", 1, 0, 2},
                                                                           {"m1_2_0", -1, 2, 0}};
      for (const auto& [name, offset, d1, d2] : embeds)
        t[std::string("diag_embed_") + name + sfx] = [offset = offset, d1 = d1, d2 = d2](const NamedInputs& in) {
          return diag_embed(in.at("x"), offset, d1, d2);
        };
      t["block_diag" + sfx] = [](const NamedInputs& in) { return block_diag({in.at("a"), in.at("b"), in.at("c")}); };
      // ---- cumulative extremes ----
      t["cummax_values" + sfx] = [](const NamedInputs& in) { return std::get<0>(cummax(in.at("x"), 1)); };
      t["cummin_values" + sfx] = [](const NamedInputs& in) { return std::get<0>(cummin(in.at("x"), 1)); };
      t["cummax_values_dim0" + sfx] = [](const NamedInputs& in) { return std::get<0>(cummax(in.at("x"), 0)); };
    }
    t["cummax_nan"] = [](const NamedInputs& in) { return std::get<0>(cummax(in.at("x"), 0)); };
    t["cummax_nan_indices"] = [](const NamedInputs& in) { return std::get<1>(cummax(in.at("x"), 0)); };
    t["cummin_nan_indices"] = [](const NamedInputs& in) { return std::get<1>(cummin(in.at("x"), 0)); };
    t["cummax_indices"] = [](const NamedInputs& in) { return std::get<1>(cummax(in.at("x"), 1)); };
    t["cummin_indices"] = [](const NamedInputs& in) { return std::get<1>(cummin(in.at("x"), 1)); };
    // ---- searching and counting ----
    for (bool right : {false, true}) {
      const std::string r = right ? "_right" : "";
      t["bucketize" + r] = [right](const NamedInputs& in) {
        return bucketize(in.at("x"), in.at("boundaries"), false, right);
      };
      t["searchsorted" + r] = [right](const NamedInputs& in) {
        return searchsorted(in.at("seq"), in.at("x"), false, right);
      };
      t["searchsorted_rows" + r] = t["searchsorted" + r];
    }
    t["searchsorted_sorter_int32"] = [](const NamedInputs& in) {
      return searchsorted(in.at("seq"), in.at("x"), true, false, "right", in.at("sorter"));
    };
    t["bucketize_int"] = [](const NamedInputs& in) { return bucketize(in.at("x"), in.at("boundaries"), true, true); };
    t["histc"] = [](const NamedInputs& in) { return histc(in.at("x"), 4, 0, 3); };
    t["histc_data_range"] = [](const NamedInputs& in) { return histc(in.at("x"), 7); };
    t["histc_constant"] = [](const NamedInputs& in) { return histc(in.at("x"), 3); };
    t["bincount"] = [](const NamedInputs& in) { return bincount(in.at("x")); };
    t["bincount_minlength"] = [](const NamedInputs& in) { return bincount(in.at("x"), {}, 6); };
    t["bincount_weights"] = [](const NamedInputs& in) { return bincount(in.at("x"), in.at("w")); };
    t["bincount_weights_f64"] = t["bincount_weights"];
    t["isin"] = [](const NamedInputs& in) { return isin(in.at("x"), in.at("t")); };
    t["isin_invert"] = [](const NamedInputs& in) { return isin(in.at("x"), in.at("t"), false, true); };
    t["tril_indices"] = [](const NamedInputs&) { return tril_indices(3, 4, 1); };
    t["triu_indices"] = [](const NamedInputs&) { return triu_indices(3, 3, -1); };
    t["repeat_interleave_indices"] = [](const NamedInputs& in) { return repeat_interleave(in.at("repeats")); };
    return t;
  }();
  return table;
}

const nlohmann::json& fixture() { return cached_fixture("aten_functions.json"); }

class AtenFunctionsReference : public ::testing::TestWithParam<std::string> {};

TEST_P(AtenFunctionsReference, MatchesPyTorch) {
  ASSERT_TRUE(cases().count(GetParam())) << "no C++ case for " << GetParam();
  check_fixture_case(fixture().at(GetParam()), RequireGrad::kFloatingWithStoredGrad,
                     [&](const NamedInputs& in) { return cases().at(GetParam())(in); });
}

INSTANTIATE_TEST_SUITE_P(Fixture, AtenFunctionsReference, ::testing::ValuesIn(case_names(fixture())),
                         [](const auto& info) { return info.param; });

TEST(AtenFunctions, EveryTableCaseHasAFixture) {
  for (const auto& [name, fn] : cases()) EXPECT_TRUE(fixture().contains(name)) << name;
}

TEST(AtenFunctions, GradcheckFloat64) {
  check_grad_cases({
      {"kron", [](const tensor_list& x) { return kron(x[0], x[1]); }, {wave64({2, 3}), wave64({2, 2}, 0.5)}},
      {"tensordot",
       [](const tensor_list& x) { return tensordot(x[0], x[1], {0}, {1}); },
       {wave64({3, 2}), wave64({2, 3}, 0.5)}},
      {"cdist_p1_5",
       [](const tensor_list& x) { return cdist(x[0], x[1], 1.5); },
       {wave64({3, 2}), wave64({2, 2}, 0.5)},
       /*second_order=*/false},
      {"cross", [](const tensor_list& x) { return cross(x[0], x[1], 0); }, {wave64({3, 2}), wave64({3, 2}, 0.5)}},
      {"diag_embed", [](const tensor_list& x) { return diag_embed(x[0], -1, 0, 2); }, {wave64({2, 3})}},
      {"block_diag",
       [](const tensor_list& x) {
         return block_diag({x[0], x[1]});
       },
       {wave64({2}), wave64({2, 3}, 0.3)}},
      {"cummax", [](const tensor_list& x) { return std::get<0>(cummax(x[0], 1)); }, {wave64({2, 4})}},
      {"take_along_dim",
       [](const tensor_list& x) {
         return take_along_dim(x[0], from_vector<int64_t>({2, 0, 0}, {1, 3}), 1);
       },
       {wave64({2, 3})}},
  });
}

// PyTorch: torch.cdist of identical rows gives 0 with a zero gradient, not NaN.
TEST(AtenFunctions, CdistOfIdenticalRowsHasZeroGradient) {
  Tensor x1 = from_vector<float>({1, 2, 3, 4}, {2, 2}).requires_grad_();
  Tensor x2 = from_vector<float>({1, 2}, {1, 2}).requires_grad_();
  Tensor d = cdist(x1, x2);
  EXPECT_FLOAT_EQ(d[0][0].item<float>(), 0.0f);
  EXPECT_NEAR(d[1][0].item<float>(), std::sqrt(8.0f), 1e-6);
  d.sum().backward();
  EXPECT_FLOAT_EQ(x1.grad()[0][0].item<float>(), 0.0f);
  EXPECT_NEAR(x1.grad()[1][0].item<float>(), 2.0 / std::sqrt(8.0), 1e-6);
  EXPECT_FALSE(x2.grad().isnan().any().item<bool>());
}

// int64 values above 2^53, where doubles round neighbours together. PyTorch 1.13 with a = 2^53:
// isin([a + 1, a], [a]) = [False, True], searchsorted([a], [a + 1]) = [1], cummax([a + 1, a]).indices
// = [0, 0], bucketize([a + 1], [a, a + 2]) = [1].
TEST(AtenFunctions, Int64BeyondDoublePrecisionComparesExactly) {
  const int64_t a = int64_t{1} << 53;
  const Tensor pair = from_vector<int64_t>({a + 1, a}, {2}), just_a = from_vector<int64_t>({a}, {1});
  EXPECT_EQ(isin(pair, just_a)[0].item<bool>(), false);
  EXPECT_EQ(isin(pair, just_a)[1].item<bool>(), true);
  EXPECT_EQ(searchsorted(just_a, from_vector<int64_t>({a + 1}, {1}))[0].item<int64_t>(), 1);
  EXPECT_EQ(std::get<1>(cummax(pair, 0)).to_vector<int64_t>(), (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(bucketize(from_vector<int64_t>({a + 1}, {1}), from_vector<int64_t>({a, a + 2}, {2}))[0].item<int64_t>(), 1);
}

TEST(AtenFunctions, CudaMatchesCpu) {
  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  Tensor a = wave64({2, 3}).to(kFloat32), b = wave64({3, 2}, 0.4).to(kFloat32);
  auto on_cuda = [](const Tensor& t) { return t.to(cuda_test::kGpu); };
  EXPECT_TENSOR_CLOSE(kron(on_cuda(a), on_cuda(b)).cpu(), kron(a, b), 1e-6, 1e-6);
  EXPECT_TENSOR_CLOSE(cdist(on_cuda(a), on_cuda(b.t())).cpu(), cdist(a, b.t()), 1e-5, 1e-5);
  EXPECT_TENSOR_CLOSE(std::get<0>(cummax(on_cuda(a), 1)).cpu(), std::get<0>(cummax(a, 1)), 0, 0);
  EXPECT_EQ(bucketize(on_cuda(a), on_cuda(from_vector<float>({-0.5f, 0.5f}, {2}))).device(), cuda_test::kGpu);
  EXPECT_TENSOR_CLOSE(repeat_interleave(on_cuda(a), 2, 0).cpu(), repeat_interleave(a, 2, 0), 0, 0);
}

TEST(AtenFunctions, BadInputNamesTheOpAndShapes) {
  const Tensor m = ones({2, 3});
  EXPECT_THROWS_WITH(tensordot(m, ones({4, 2}), {1}, {0}),
                     "tensordot: contracted dimensions need to match, but first has size 3 in dim 1 and second has "
                     "size 4 in dim 0 (shapes [2, 3] and [4, 2])");
  EXPECT_THROWS_WITH(tensordot(m, m, {0, 1}, {0}), "tensordot: both dimension lists should have same length");
  EXPECT_THROWS_WITH(cdist(m, ones({4, 2})), "cdist: X1 and X2 must have the same number of columns. X1: 3 X2: 2");
  EXPECT_THROWS_WITH(cdist(m, m, -1), "cdist only supports non-negative p values");
  EXPECT_THROWS_WITH(cdist(ones({3}), m), "cdist only supports at least 2D tensors, X1 got: 1D");
  EXPECT_THROWS_WITH(cross(ones({2, 2}), ones({2, 2})), "cross: no dimension of size 3 in input");
  EXPECT_THROWS_WITH(linalg_cross(ones({2, 3}), ones({3})),
                     "linalg_cross: inputs must have the same number of dimensions");
  EXPECT_THROWS_WITH(cross(m, m, 0), "cross: inputs dimension 0 must have length 3");
  EXPECT_THROWS_WITH(cartesian_prod({m}), "cartesian_prod: Expect a 1D vector, but got shape [2, 3]");
  EXPECT_THROWS_WITH(repeat_interleave(ones({2}), from_vector<int64_t>({1, -1}, {2})),
                     "repeat_interleave: repeats can not be negative (got -1)");
  EXPECT_THROWS_WITH(repeat_interleave(ones({2}), from_vector<int64_t>({1, 1, 1}, {3})),
                     "repeats must have the same size as input along dim (got 3 repeats for size 2)");
  EXPECT_THROWS_WITH(repeat_interleave(ones({2}), ones({2})), "repeat_interleave: repeats must be an integer tensor");
  EXPECT_THROWS_WITH(take_along_dim(m, ones({1, 1}), 1), "dtype of indices should be Long but got float32");
  EXPECT_THROWS_WITH(take_along_dim(m, zeros({1}, dtype(kInt64)), 1),
                     "input and indices should have the same number of dimensions");
  EXPECT_THROWS_WITH(rot90(m, 1, {0, 0}), "rot90: expected rotation dims to be different");
  EXPECT_THROWS_WITH(rot90(ones({3}), 1), "rot90: expected total dims >= 2, but got total dims = 1");
  EXPECT_THROWS_WITH(diag_embed(m, 0, 1, 1), "diag_embed: diagonal dimensions cannot be identical 1, 1");
  EXPECT_THROWS_WITH(block_diag({ones({1, 1, 1})}), "Input tensors must have 2 or fewer dimensions. Input 0 has 3");
  EXPECT_THROWS_WITH(bucketize(m, m), "bucketize: boundaries tensor must be 1 dimension, but got dim(2)");
  EXPECT_THROWS_WITH(searchsorted(ones({3, 2}), m),
                     "searchsorted: boundaries tensor should be 1 dimension or the first");
  EXPECT_THROWS_WITH(searchsorted(ones({2}), m, false, true, "left"),
                     "side and right can't be set to opposites, got side of left while right was True");
  EXPECT_THROWS_WITH(searchsorted(ones({2}), m, false, false, "middle"),
                     "searchsorted: side can only be 'left' or 'right' but got middle");
  EXPECT_THROWS_WITH(histc(from_vector<int64_t>({1, 2}, {2})), "histc: \"histogram_cpu\" not implemented for 'int64'");
  EXPECT_THROWS_WITH(histc(m, 0), "bins must be > 0, but got 0");
  EXPECT_THROWS_WITH(histc(m, 4, 3, 1), "torch.histc: max must be larger than min (min 3, max 1)");
  EXPECT_THROWS_WITH(bincount(from_vector<int64_t>({-1, 2}, {2})),
                     "bincount only supports 1-d non-negative integral inputs (got shape [2])");
  EXPECT_THROWS_WITH(bincount(ones({2})), "bincount: \"bincount_cpu\" not implemented for 'float32'");
  EXPECT_THROWS_WITH(bincount(from_vector<int64_t>({1, 2}, {2}), ones({3})),
                     "weights should be 1-d and have the same length as input (shapes [2] and [3])");
  EXPECT_THROWS_WITH(tril_indices(-1, 2), "tril_indices: row must be non-negative, got -1");
}

}  // namespace
