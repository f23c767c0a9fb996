// ATen's free functions of autograd/aten_functions.h against PyTorch 1.13: kron, tensordot, cdist,
// cross, cartesian_prod, repeat_interleave, take_along_dim, rot90, diag_embed, block_diag and cummax /
// cummin (values and gradients, float32 and float64), and the integer results of bucketize,
// searchsorted, histc, bincount, isin, tril/triu_indices and cummax's indices; einsum, the products
// with an added term, the splits and flips, NaN-aware extremes, integration, cov/corrcoef, vander,
// sequences and windows. Then gradcheck in float64, the emulated CUDA device against the CPU, and bad
// input with PyTorch's messages.
//
// Fixtures come from scripts/gen_aten_functions_fixtures.py (tests/fixtures/aten_functions.json); each
// table line (or loop) is the C++ twin of one `case(...)` (or loop) there.
#include <cmath>
#include <functional>
#include <map>
#include <regex>
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
      // ---- einsum and the products with an added term ----
      const std::pair<const char*, const char*> einsums[] = {
          {"matmul", "ij,jk->ik"},
          {"implicit", "jk,ij"},
          {"upper_first", "ba,Ab"},
          {"trace", "ii"},
          {"diagonal", "ii->i"},
          {"repeated_sum", "iij->j"},
          {"batch", "bij,bjk->bik"},
          {"ellipsis_broadcast", "...ij,...jk->...ik"},
          {"ellipsis_implicit", "...ij->...ji"},
          {"outer", "i,j->ij"},
          {"sum_all", "ij->"},
          {"three", "ij,jk,kl->il"},
          {"size1_broadcast", "ij,j->i"},
          {"spaces", " i j , j k -> k i "},
          {"kept_twice", "ij,ij->ij"},
      };
      for (const auto& [name, equation] : einsums)
        t[std::string("einsum_") + name + sfx] = [equation = std::string(equation)](const NamedInputs& in) {
          tensor_list operands;
          for (size_t i = 0; in.count("x" + std::to_string(i)); ++i) operands.push_back(in.at("x" + std::to_string(i)));
          return einsum(equation, operands);
        };
      t["addmv" + sfx] = [](const NamedInputs& in) { return addmv(in.at("s"), in.at("m"), in.at("v"), 0.5, 2); };
      t["addmv_beta0_nan" + sfx] = [](const NamedInputs& in) { return addmv(in.at("s"), in.at("m"), in.at("v"), 0); };
      t["addr" + sfx] = [](const NamedInputs& in) { return addr(in.at("s"), in.at("a"), in.at("b"), 2, -1); };
      t["baddbmm" + sfx] = [](const NamedInputs& in) { return baddbmm(in.at("s"), in.at("a"), in.at("b"), 0.5, -1); };
      t["addbmm" + sfx] = [](const NamedInputs& in) { return addbmm(in.at("s"), in.at("a"), in.at("b")); };
      t["inner" + sfx] = [](const NamedInputs& in) { return inner(in.at("a"), in.at("b")); };
      t["inner_scalar" + sfx] = t["inner" + sfx];
      t["vdot" + sfx] = [](const NamedInputs& in) { return vdot(in.at("a"), in.at("b")); };
      t["chain_matmul" + sfx] = [](const NamedInputs& in) {
        return chain_matmul({in.at("a"), in.at("b"), in.at("c")});
      };
      // ---- arranging: split pieces flattened, each scaled by its position ----
      auto joined = [](const tensor_list& pieces, bool scaled) {
        tensor_list flat;
        for (size_t i = 0; i < pieces.size(); ++i)
          flat.push_back(scaled ? pieces[i].flatten() * static_cast<double>(i + 1) : pieces[i].flatten());
        return cat(flat);
      };
      t["fliplr" + sfx] = [](const NamedInputs& in) { return fliplr(in.at("x")); };
      t["flipud" + sfx] = [](const NamedInputs& in) { return flipud(in.at("x")); };
      t["hsplit" + sfx] = [joined](const NamedInputs& in) { return joined(hsplit(in.at("x"), 2), false); };
      t["hsplit_indices_1d" + sfx] = [joined](const NamedInputs& in) {
        return joined(hsplit(in.at("x"), IntArrayRef{1, 3}), true);
      };
      t["vsplit" + sfx] = [joined](const NamedInputs& in) { return joined(vsplit(in.at("x"), IntArrayRef{3}), true); };
      t["dsplit" + sfx] = [joined](const NamedInputs& in) { return joined(dsplit(in.at("x"), 2), true); };
      t["broadcast_tensors" + sfx] = [](const NamedInputs& in) {
        return stack(broadcast_tensors({in.at("a"), in.at("b")}));
      };
      t["diagflat" + sfx] = [](const NamedInputs& in) { return diagflat(in.at("x"), 1); };
      t["msort" + sfx] = [](const NamedInputs& in) { return msort(in.at("x")); };
      t["take" + sfx] = [](const NamedInputs& in) { return take(in.at("x"), in.at("i")); };
      // ---- elementwise ----
      t["fmax" + sfx] = [](const NamedInputs& in) { return fmax(in.at("a"), in.at("b")); };
      t["fmin" + sfx] = [](const NamedInputs& in) { return fmin(in.at("a"), in.at("b")); };
      t["rsub" + sfx] = [](const NamedInputs& in) { return rsub(in.at("a"), in.at("b"), 2); };
      t["rsub_scalar" + sfx] = [](const NamedInputs& in) { return rsub(in.at("a"), 1.5, 3); };
      const std::pair<const char*, double> dist_ps[] = {{"2", 2.0}, {"1", 1.0}, {"inf", INFINITY}, {"3", 3.0}};
      for (const auto& [name, p] : dist_ps)
        t[std::string("dist_p") + name + sfx] = [p = p](const NamedInputs& in) {
          return dist(in.at("a"), in.at("b"), p);
        };
      t["logcumsumexp" + sfx] = [](const NamedInputs& in) { return logcumsumexp(in.at("x"), 1); };
      t["logcumsumexp_wide_range" + sfx] = [](const NamedInputs& in) { return logcumsumexp(in.at("x"), 0); };
      // ---- numerical integration and statistics ----
      t["trapezoid_x" + sfx] = [](const NamedInputs& in) { return trapezoid(in.at("y"), in.at("x")); };
      t["trapezoid_x_2d" + sfx] = [](const NamedInputs& in) { return trapezoid(in.at("y"), in.at("x"), 0); };
      t["trapezoid_dx" + sfx] = [](const NamedInputs& in) { return trapezoid(in.at("y"), 0.5, 1); };
      t["trapz_dx" + sfx] = [](const NamedInputs& in) { return trapz(in.at("y"), 2.0, 0); };
      t["cumulative_trapezoid_x" + sfx] = [](const NamedInputs& in) {
        return cumulative_trapezoid(in.at("y"), in.at("x"));
      };
      t["cumulative_trapezoid_dx" + sfx] = [](const NamedInputs& in) { return cumulative_trapezoid(in.at("y"), 0.5); };
      t["cov" + sfx] = [](const NamedInputs& in) { return cov(in.at("x")); };
      t["cov_1d_correction0" + sfx] = [](const NamedInputs& in) { return cov(in.at("x"), 0); };
      t["cov_weights" + sfx] = [](const NamedInputs& in) {
        return cov(in.at("x"), 1, from_vector<int64_t>({1, 2, 0, 3}, {4}), in.at("aw"));
      };
      t["corrcoef" + sfx] = [](const NamedInputs& in) { return corrcoef(in.at("x")); };
      t["vander" + sfx] = [](const NamedInputs& in) { return vander(in.at("x"), 4); };
      t["vander_increasing" + sfx] = [](const NamedInputs& in) { return vander(in.at("x"), std::nullopt, true); };
      // ---- sequences and windows ----
      const ScalarType type = sfx.empty() ? kFloat32 : kFloat64;
      t["logspace" + sfx] = [type](const NamedInputs&) { return logspace(-1.0, 2.0, 5, 2.0, dtype(type)); };
      t["range" + sfx] = [type](const NamedInputs&) { return range(0.5, 2.0, 0.3, dtype(type)); };
      for (int64_t n : {0, 1, 5, 6}) {
        for (bool periodic : {true, false}) {
          const std::string tag = std::to_string(n) + (periodic ? "_periodic" : "_symmetric") + sfx;
          t["hann_window_" + tag] = [=](const NamedInputs&) { return hann_window(n, periodic, dtype(type)); };
          t["hamming_window_" + tag] = [=](const NamedInputs&) {
            return hamming_window(n, periodic, 0.6, 0.3, dtype(type));
          };
          t["blackman_window_" + tag] = [=](const NamedInputs&) { return blackman_window(n, periodic, dtype(type)); };
          t["bartlett_window_" + tag] = [=](const NamedInputs&) { return bartlett_window(n, periodic, dtype(type)); };
        }
      }
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
    t["heaviside"] = [](const NamedInputs& in) { return heaviside(in.at("x"), in.at("v")); };
    t["isposinf"] = [](const NamedInputs& in) { return isposinf(in.at("x")); };
    t["isneginf"] = [](const NamedInputs& in) { return isneginf(in.at("x")); };
    t["signbit"] = [](const NamedInputs& in) { return signbit(in.at("x")); };
    t["signbit_int"] = t["signbit"];
    t["vander_int"] = [](const NamedInputs& in) { return vander(in.at("x")); };
    t["range_int_default_dtype"] = [](const NamedInputs&) { return range(1, 4); };
    t["logspace_int"] = [](const NamedInputs&) { return logspace(0, 3, 4, 10.0, dtype(kInt64)); };
    t["cov_int"] = [](const NamedInputs& in) { return cov(in.at("x")); };
    t["corrcoef_one_variable"] = [](const NamedInputs& in) { return corrcoef(in.at("x")); };
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
      {"einsum_diagonal_ellipsis_batch",
       [](const tensor_list& x) {
         return einsum("b...ii,bij->bj...", {x[0], x[1]});
       },
       {wave64({2, 3, 2, 2}), wave64({2, 2, 4}, 0.5)}},
      {"einsum_three",
       [](const tensor_list& x) {
         return einsum("ij,jk,k", {x[0], x[1], x[2]});
       },
       {wave64({2, 3}), wave64({3, 2}, 0.3), wave64({2}, 0.6)}},
      {"baddbmm",
       [](const tensor_list& x) { return baddbmm(x[0], x[1], x[2], 0.5, 2); },
       {wave64({1, 2}), wave64({2, 2, 3}, 0.3), wave64({2, 3, 2}, 0.6)}},
      // PyTorch 1.13's own vander backward fails; the gradient is checked here only.
      {"vander", [](const tensor_list& x) { return vander(x[0], 4, true); }, {wave64({3})}},
      {"logcumsumexp", [](const tensor_list& x) { return logcumsumexp(x[0], 0); }, {wave64({4, 2})}},
      {"cov_weights",
       [](const tensor_list& x) {
         return cov(x[0], 1, from_vector<int64_t>({1, 2, 3}, {3}), x[1]);
       },
       {wave64({2, 3}), wave64({3}, 0.2, 1.0, 2.0)}},
      {"corrcoef", [](const tensor_list& x) { return corrcoef(x[0]); }, {wave64({2, 4})}},
      {"trapezoid", [](const tensor_list& x) { return trapezoid(x[0], x[1], 0); }, {wave64({3, 2}), wave64({3}, 0.4)}},
      {"fmax", [](const tensor_list& x) { return fmax(x[0], x[1]); }, {wave64({2, 3}), wave64({3}, 0.5)}},
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
  EXPECT_TENSOR_CLOSE(einsum("ij,jk->ki", {on_cuda(a), on_cuda(b)}).cpu(), einsum("ij,jk->ki", {a, b}), 1e-6, 1e-6);
  EXPECT_TENSOR_CLOSE(cov(on_cuda(a)).cpu(), cov(a), 1e-6, 1e-6);
  EXPECT_TENSOR_CLOSE(logcumsumexp(on_cuda(a), 1).cpu(), logcumsumexp(a, 1), 1e-6, 1e-6);
  EXPECT_TENSOR_CLOSE(signbit(on_cuda(a)).cpu(), signbit(a), 0, 0);
  EXPECT_EQ(signbit(on_cuda(a)).device(), cuda_test::kGpu);
}

// torch 1.13's values: a NaN poisons the rest of its row, two equal infinities stay infinite (the
// running logaddexp's special case), and a row of 20000 elements is one kernel, exact far from 0.
TEST(AtenFunctions, LogcumsumexpKeepsPyTorchsNanAndInfinityRules) {
  const float inf = INFINITY, nan = NAN;
  const Tensor with_nan = logcumsumexp(from_vector<float>({1, nan, 2}, {3}), 0);
  EXPECT_FLOAT_EQ(with_nan[0].item<float>(), 1.0f);
  EXPECT_TRUE(std::isnan(with_nan[1].item<float>()));
  EXPECT_TRUE(std::isnan(with_nan[2].item<float>()));
  EXPECT_TENSOR_CLOSE(logcumsumexp(from_vector<float>({-inf, -inf, inf, inf, 1}, {5}), 0),
                      from_vector<float>({-inf, -inf, inf, inf, inf}, {5}), 0, 0);
  // 20000 equal elements of -1000: log(k * e^-1000) = -1000 + log(k)
  const Tensor flat = logcumsumexp(full({2, 20000}, -1000.0, dtype(kFloat64)), 1);
  EXPECT_NEAR(flat[1][19999].item<double>(), -1000.0 + std::log(20000.0), 1e-9);
  EXPECT_NEAR(flat[0][9].item<double>(), -1000.0 + std::log(10.0), 1e-12);
  // The gradient of the last element of a row of n equal values is 1/n for each.
  Tensor x = full({4}, 3.0, dtype(kFloat64).requires_grad(true));
  logcumsumexp(x, 0)[3].backward();
  EXPECT_TENSOR_CLOSE(x.grad(), full({4}, 0.25, dtype(kFloat64)), 1e-12, 1e-12);
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

// Each einsum error as PyTorch 1.13 words it.
TEST(AtenFunctions, EinsumBadInputSaysWhatIsWrong) {
  const Tensor a = ones({2, 3}), b = ones({3, 4});
  EXPECT_THROWS_WITH(einsum("ij,jk", {a}), "einsum(): fewer operands were provided than specified in the equation");
  EXPECT_THROWS_WITH(einsum("ij", {a, b}), "einsum(): more operands were provided than specified in the equation");
  EXPECT_THROWS_WITH(einsum("ijk", {a}),
                     "einsum(): the number of subscripts in the equation (3) does not match the number of dimensions "
                     "(2) for operand 0 and no ellipsis was given");
  EXPECT_THROWS_WITH(einsum("ijk...", {a}),
                     "einsum(): the number of subscripts in the equation (3) is more than the number of dimensions (2) "
                     "for operand 0");
  EXPECT_THROWS_WITH(einsum("ij->ii", {a}), "einsum(): output subscript i appears more than once in the output");
  EXPECT_THROWS_WITH(einsum("ij->k", {a}),
                     "einsum(): output subscript k does not appear in the equation for any input operand");
  EXPECT_THROWS_WITH(einsum("ii", {a}),
                     "einsum(): subscript i is repeated for operand 0 but the sizes don't match, 3 != 2");
  EXPECT_THROWS_WITH(einsum("ij,jk", {a, ones({2, 4})}),
                     "einsum(): subscript j has size 2 for operand 1 which does not broadcast with previously seen "
                     "size 3");
  EXPECT_THROWS_WITH(einsum("i$", {a}),
                     "einsum(): invalid subscript given at index 1 in the equation string, subscripts must be in "
                     "[a-zA-Z]");
  EXPECT_THROWS_WITH(einsum("i.j", {a}), "einsum(): found '.' for operand 0 that is not part of any ellipsis");
  EXPECT_THROWS_WITH(einsum("......", {a}), "einsum(): found '.' for operand 0 that is not part of any ellipsis");
  EXPECT_THROWS_WITH(einsum("...ij,...jk", {ones({2, 2, 3}), ones({3, 3, 4})}),
                     "einsum(): dimension 0 covered by ellipsis in operand 1 has size 3 which does not broadcast "
                     "with previously seen ellipsis with size 2 for the respective dimension");
  EXPECT_THROWS_WITH(einsum("ij", {}), "einsum(): must specify the equation string and at least one operand");
  EXPECT_THROWS_WITH(einsum("ij-k", {a}), "einsum(): found '-' at index 2 of the equation that is not part of '->'");
}

// Random equations (scripts/gen_einsum_fixtures.py) against PyTorch 1.13: each one it accepts gives
// torch.einsum's result, each one it rejects is rejected with its text (but for PyTorch's missing
// space in "operand 1has size").
TEST(AtenFunctions, EinsumRandomEquationsMatchPyTorch) {
  const nlohmann::json& fixture = cached_fixture("einsum_random.json");
  auto tensor_of = [](const nlohmann::json& t) {
    return from_vector<double>(t.at("values").get<std::vector<double>>(), t.at("shape").get<std::vector<int64_t>>());
  };
  for (const auto& c : fixture.at("valid")) {
    const std::string equation = c.at("equation");
    tensor_list inputs;
    for (const auto& t : c.at("inputs")) inputs.push_back(tensor_of(t));
    Tensor out;
    ASSERT_NO_THROW(out = einsum(equation, inputs)) << equation;
    EXPECT_TENSOR_CLOSE(out, tensor_of(c.at("output")), 1e-9, 1e-9) << equation;
  }
  const std::regex missing_space("operand (\\d+)has");
  for (const auto& c : fixture.at("invalid")) {
    tensor_list inputs;
    for (const auto& shape : c.at("shapes")) inputs.push_back(ones(shape.get<std::vector<int64_t>>(), dtype(kFloat64)));
    const std::string error = std::regex_replace(c.at("error").get<std::string>(), missing_space, "operand $1 has");
    EXPECT_THROWS_WITH(einsum(c.at("equation").get<std::string>(), inputs), error) << c.at("equation");
  }
  EXPECT_EQ(fixture.at("valid").size(), 150u);
  EXPECT_EQ(fixture.at("invalid").size(), 60u);
}

TEST(AtenFunctions, MoreBadInputNamesTheOpAndShapes) {
  const Tensor m = ones({2, 3});
  EXPECT_THROWS_WITH(hsplit(m, 2),
                     "torch.hsplit attempted to split along dimension 1, but the size of the dimension 3 is not "
                     "divisible by the split_size 2!");
  EXPECT_THROWS_WITH(hsplit(scalar_tensor(1.0), 2),
                     "torch.hsplit requires a tensor with at least 1 dimension, but got a tensor with 0 dimensions!");
  EXPECT_THROWS_WITH(vsplit(ones({3}), 2),
                     "torch.vsplit requires a tensor with at least 2 dimension, but got a tensor with 1 dimensions!");
  EXPECT_THROWS_WITH(dsplit(m, 2),
                     "torch.dsplit requires a tensor with at least 3 dimension, but got a tensor with 2 dimensions!");
  EXPECT_THROWS_WITH(vsplit(m, 0), "torch.vsplit attempted to split along dimension 0");
  EXPECT_THROWS_WITH(fliplr(ones({3})), "Input must be >= 2-d.");
  EXPECT_THROWS_WITH(flipud(scalar_tensor(1.0)), "Input must be >= 1-d.");
  EXPECT_THROWS_WITH(vdot(m, ones({3})), "1D tensors expected, but got 2D and 1D tensors");
  EXPECT_THROWS_WITH(vdot(ones({2}), ones({3})),
                     "inconsistent tensor size, expected tensor [2] and src [3] to have the same number of elements, "
                     "but got 2 and 3 elements respectively");
  EXPECT_THROWS_WITH(chain_matmul({}), "chain_matmul(): Expected one or more matrices");
  EXPECT_THROWS_WITH(chain_matmul({ones({3})}), "Tensor dimension is 1, expected 2 instead.");
  EXPECT_THROWS_WITH(inner(m, ones({2})),
                     "inner() the last dimension must match on both input tensors but got shapes [2, 3] and [2]");
  EXPECT_THROWS_WITH(addmv(ones({2}), m, ones({2})), "size mismatch, got 2, 2x3,2");
  EXPECT_THROWS_WITH(baddbmm(ones({2, 2, 2}), ones({2, 2, 3}), ones({3, 3, 2})),
                     "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [3, 3].");
  EXPECT_THROWS_WITH(heaviside(ones({2}), ones({2}, dtype(kFloat64))),
                     "heaviside is not yet implemented for tensors with different dtypes.");
  EXPECT_THROWS_WITH(positive(ones({2}, dtype(kBool))), "The `+` operator, on a bool tensor is not supported.");
  EXPECT_THROWS_WITH(rsub(ones({2}, dtype(kInt64)), 1, 0.5),
                     "For integral input tensors, argument alpha must not be a floating point number.");
  EXPECT_THROWS_WITH(take(m, from_vector<int64_t>({6}, {1})),
                     "out of range: tried to access index 6 on a tensor of 6 elements.");
  EXPECT_THROWS_WITH(take(m, from_vector<int64_t>({-7}, {1})),
                     "out of range: tried to access index -7 on a tensor of 6 elements.");
  EXPECT_THROWS_WITH(trapezoid(m, ones({5})), "trapezoid: There must be one `x` value for each sample point");
  EXPECT_THROWS_WITH(trapezoid(ones({2}, dtype(kBool))),
                     "trapezoid: received a bool input for `y`, but bool is not supported");
  EXPECT_THROWS_WITH(logcumsumexp(m, 2),
                     "logcumsumexp: dimension out of range (expected to be in range of [-2, 1], "
                     "but got 2)");
  EXPECT_THROWS_WITH(logcumsumexp(from_vector<int64_t>({1, 2}, {2}), 0),
                     "logcumsumexp: \"logcumsumexp_out_cpu\" not implemented for 'Long'");
  EXPECT_THROWS_WITH(cov(ones({2, 2, 2})),
                     "cov(): expected input to have two or fewer dimensions but got an input with 3 dimensions");
  EXPECT_THROWS_WITH(cov(m, 1, from_vector<int64_t>({1, -1, 1}, {3})), "cov(): fweights cannot be negative");
  EXPECT_THROWS_WITH(cov(m, 1, ones({3})),
                     "cov(): expected fweights to have integral dtype but got fweights with float32 dtype");
  EXPECT_THROWS_WITH(cov(m, 1, {}, ones({2})),
                     "cov(): expected aweights to have the same numel as there are observations in the input but got "
                     "2 != 3");
  EXPECT_THROWS_WITH(cov(m, 1, from_vector<int64_t>({0, 0, 0}, {3})),
                     "cov(): weights sum to zero, can't be normalized");
  EXPECT_THROWS_WITH(vander(m), "x must be a one-dimensional tensor.");
  EXPECT_THROWS_WITH(vander(ones({3}), -1), "N must be non-negative.");
  EXPECT_THROWS_WITH(hann_window(-1), "hann_window requires non-negative window_length, got window_length=-1");
  EXPECT_THROWS_WITH(blackman_window(3, dtype(kInt64)), "blackman_window expects floating point dtypes, got: int64");
  EXPECT_THROWS_WITH(logspace(0, 1, -1), "number of steps must be non-negative");
  EXPECT_THROWS_WITH(range(0, 1, 0), "step must be nonzero");
  EXPECT_THROWS_WITH(range(0, 1, -1), "upper bound and lower bound inconsistent with step sign");
  EXPECT_THROWS_WITH(range(0, 1e30, 1e-30), "range: ");
}

// PyTorch 1.13: signbit(tensor([nan, -nan, -0.0])) = [False, True, True] (a NaN's sign cannot
// travel through the JSON fixtures).
TEST(AtenFunctions, SignbitSeesTheSignOfNaNAndZero) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor x = from_vector<float>({nan, -nan, -0.0f, 0.0f}, {4});
  EXPECT_EQ(signbit(x).to(kInt64).to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 1, 0}));
  EXPECT_EQ(signbit(x.to(kFloat64)).to(kInt64).to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 1, 0}));
  // (Not bfloat16: which NaN a conversion to it gives differs between PyTorch's scalar and vector paths.)
}

// cov's degrees of freedom at or below 0: PyTorch warns and divides by 0.
TEST(AtenFunctions, CovWithoutDegreesOfFreedomWarnsAndGivesInfinity) {
  struct Capture : WarningHandler {
    std::string text;
    void process(const Warning& w) override { text += w.msg(); }
  } capture;
  Tensor c;
  {
    WarningHandlerGuard guard(&capture);
    c = cov(from_vector<float>({1, 2, 4}, {3}), 3);
  }
  EXPECT_TRUE(std::isinf(c.item<float>()));
  EXPECT_NE(capture.text.find("cov(): degrees of freedom is <= 0"), std::string::npos) << capture.text;
}

}  // namespace
