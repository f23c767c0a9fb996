// Order statistics and view scatters against PyTorch 1.13: quantile and nanquantile
// (autograd/quantile.cpp), nanmedian and mode (autograd/sort.cpp), select_scatter and
// diagonal_scatter (autograd/view_scatter.cpp): values, indices and gradients; then gradcheck in
// float64 and bad input.
//
// Fixtures come from scripts/gen_order_stats_fixtures.py (tests/fixtures/order_stats.json); each table
// line is the C++ twin of one `case(...)` there.
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <string>

#include "fixture_cases.h"
#include "test_util.h"

using namespace ember;
using namespace ember::test;

namespace {

using Case = std::function<Tensor(const NamedInputs&)>;

const std::map<std::string, Case>& cases() {
  static const std::map<std::string, Case> table = [] {
    std::map<std::string, Case> t;
    auto x = [](const NamedInputs& in) { return in.at("x"); };
    // ---- quantile ----
    t["quantile_dim1"] = [=](const NamedInputs& in) { return x(in).quantile(0.3, 1); };
    t["quantile_dim0_tensor_q_keepdim"] = [=](const NamedInputs& in) {
      return x(in).quantile(in.at("q"), 0, /*keepdim=*/true);
    };
    t["quantile_all"] = [=](const NamedInputs& in) { return x(in).quantile(0.75); };
    t["quantile_all_tensor_q_keepdim"] = [=](const NamedInputs& in) {
      return x(in).quantile(in.at("q"), std::nullopt, /*keepdim=*/true);
    };
    t["quantile_float64_negative_dim"] = [=](const NamedInputs& in) { return x(in).quantile(0.61, -2); };
    for (const char* mode : {"lower", "higher", "midpoint", "nearest"}) {
      t[std::string("quantile_") + mode] = [=](const NamedInputs& in) {
        return x(in).quantile(in.at("q"), 1, false, mode);
      };
    }
    t["quantile_nan_rows"] = [=](const NamedInputs& in) { return x(in).quantile(0.5, 1); };
    t["quantile_ties"] = [=](const NamedInputs& in) { return x(in).quantile(0.4, 1); };
    t["quantile_zero_dim"] = [=](const NamedInputs& in) { return x(in).quantile(0.3); };
    // ---- nanquantile ----
    t["nanquantile_dim1"] = [=](const NamedInputs& in) { return x(in).nanquantile(0.3, 1); };
    t["nanquantile_tensor_q"] = [=](const NamedInputs& in) { return x(in).nanquantile(in.at("q"), 1, true); };
    t["nanquantile_all"] = [=](const NamedInputs& in) { return x(in).nanquantile(0.9); };
    t["nanquantile_nearest"] = [=](const NamedInputs& in) { return x(in).nanquantile(0.5, 1, false, "nearest"); };
    // ---- nanmedian ----
    t["nanmedian_dim1_values"] = [=](const NamedInputs& in) { return std::get<0>(x(in).nanmedian(1)); };
    t["nanmedian_dim1_indices"] = [=](const NamedInputs& in) { return std::get<1>(x(in).nanmedian(1)); };
    t["nanmedian_dim0_keepdim"] = [=](const NamedInputs& in) { return std::get<0>(x(in).nanmedian(0, true)); };
    t["nanmedian_all"] = [=](const NamedInputs& in) { return x(in).nanmedian(); };
    t["nanmedian_all_ties"] = t["nanmedian_all"];
    t["nanmedian_ties_indices"] = t["nanmedian_dim1_indices"];
    // ---- mode ----
    t["mode_values"] = [=](const NamedInputs& in) { return std::get<0>(x(in).mode(1)); };
    t["mode_indices"] = [=](const NamedInputs& in) { return std::get<1>(x(in).mode(1)); };
    t["mode_dim0_keepdim"] = [=](const NamedInputs& in) { return std::get<0>(x(in).mode(0, true)); };
    t["mode_dim0_indices"] = [=](const NamedInputs& in) { return std::get<1>(x(in).mode(0)); };
    t["mode_int"] = [=](const NamedInputs& in) { return std::get<0>(x(in).mode()); };
    t["mode_int_indices"] = [=](const NamedInputs& in) { return std::get<1>(x(in).mode()); };
    // ---- view scatters ----
    t["select_scatter"] = [=](const NamedInputs& in) { return x(in).select_scatter(in.at("src"), 0, 1); };
    t["select_scatter_dim1"] = [=](const NamedInputs& in) { return x(in).select_scatter(in.at("src"), 1, -1); };
    t["diagonal_scatter"] = [=](const NamedInputs& in) { return x(in).diagonal_scatter(in.at("src")); };
    t["diagonal_scatter_offset_3d"] = [=](const NamedInputs& in) {
      return x(in).diagonal_scatter(in.at("src"), -1, 1, 2);
    };
    return t;
  }();
  return table;
}

const nlohmann::json& fixture() { return cached_fixture("order_stats.json"); }

class OrderStatsReference : public ::testing::TestWithParam<std::string> {};

TEST_P(OrderStatsReference, MatchesPyTorch) {
  ASSERT_TRUE(cases().count(GetParam())) << "no C++ case for " << GetParam();
  check_fixture_case(fixture().at(GetParam()), RequireGrad::kFloatingWithStoredGrad, cases().at(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(Fixture, OrderStatsReference, ::testing::ValuesIn(case_names(fixture())),
                         [](const auto& info) { return info.param; });

TEST(OrderStats, EveryTableCaseHasAFixture) {
  for (const auto& [name, fn] : cases()) EXPECT_TRUE(fixture().contains(name)) << name;
  EXPECT_EQ(cases().size(), fixture().size());
}

// Values without ties, q away from the points where the interpolation switches rows.
TEST(OrderStats, GradcheckFloat64) {
  check_grad_cases({
      {"quantile_linear", [](const tensor_list& x) { return x[0].quantile(0.37, 1); }, {wave64({3, 5})}},
      {"quantile_tensor_q",
       [](const tensor_list& x) {
         return x[0].quantile(tensor({0.2, 0.9}, kDouble), 0);
       },
       {wave64({4, 3}, 0.4)}},
      {"quantile_midpoint",
       [](const tensor_list& x) { return x[0].quantile(0.3, std::nullopt, false, "midpoint"); },
       {wave64({2, 3}, 0.1)}},
      {"nanquantile", [](const tensor_list& x) { return x[0].nanquantile(0.6, 1, true); }, {wave64({2, 5}, 0.9)}},
      {"nanmedian_dim", [](const tensor_list& x) { return std::get<0>(x[0].nanmedian(0)); }, {wave64({3, 4}, 0.2)}},
      {"mode", [](const tensor_list& x) { return std::get<0>(x[0].mode(1)); }, {wave64({2, 4}, 0.5)}},
      {"select_scatter",
       [](const tensor_list& x) { return x[0].select_scatter(x[1], 1, 0); },
       {wave64({3, 4}), wave64({3}, 0.3)}},
      {"diagonal_scatter",
       [](const tensor_list& x) { return x[0].diagonal_scatter(x[1], 1); },
       {wave64({3, 4}), wave64({3}, 0.3)}},
  });
}

TEST(OrderStats, BadInputNamesTheOpAndTheValue) {
  const Tensor x = wave64({2, 3});
  EXPECT_THROWS_WITH(x.quantile(1.5), "quantile() q must be in the range [0, 1] but got 1.5");
  EXPECT_THROWS_WITH(x.quantile(tensor({0.5, -0.1}, kDouble)), "quantile() q values must be in the range [0, 1]");
  EXPECT_THROWS_WITH(x.quantile(tensor({0.5f})), "quantile() q tensor must be same dtype as the input tensor");
  EXPECT_THROWS_WITH(x.quantile(0.5, 1, false, "cubic"),
                     "quantile() interpolation must be one of linear, lower, higher, midpoint or nearest. Got cubic");
  EXPECT_THROWS_WITH(x.quantile(zeros({2, 2}, kDouble)), "quantile() q must be a scalar or 1D tensor, got 2 dims");
  EXPECT_THROWS_WITH(x.to(kLong).quantile(0.5),
                     "quantile() input tensor must be either float or double dtype, got int64");
  EXPECT_THROWS_WITH(zeros({0}).nanquantile(0.5), "nanquantile() input tensor must be non-empty");
  EXPECT_THROWS_WITH(x.quantile(0.5, 2), "quantile: dimension out of range");
  EXPECT_THROWS_WITH(zeros({2, 0}).mode(1), "mode(): Expected reduction dim 1 to have non-zero size");
  EXPECT_THROWS_WITH(zeros({0}).nanmedian(), "nanmedian() input tensor cannot be empty");
  EXPECT_THROWS_WITH(x.select_scatter(zeros({3}, kDouble), 1, 0),
                     "select_scatter: expected src to have a size equal to the select of self ([2]), got [3]");
  EXPECT_THROWS_WITH(x.select_scatter(zeros({3}, kDouble), 0, 5), "select");
  EXPECT_THROWS_WITH(x.diagonal_scatter(zeros({3}, kDouble)),
                     "diagonal_scatter: expected src to have a size equal to the diagonal of self ([2]), got [3]");
}

// An all-NaN row: NaN (PyTorch's index there is an artifact of std::nth_element; Ember's is 0).
TEST(OrderStats, AllNanRows) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Tensor x = tensor({{nan, nan, nan}, {1.0, nan, 0.0}}, kDouble);
  auto [values, indices] = x.nanmedian(1);
  EXPECT_TRUE(std::isnan(values[0].item<double>()));
  EXPECT_EQ(indices[0].item<int64_t>(), 0);
  EXPECT_EQ(values[1].item<double>(), 0.0);
  EXPECT_EQ(indices[1].item<int64_t>(), 2);
  EXPECT_TRUE(std::isnan(x.nanquantile(0.5, 1)[0].item<double>()));
  EXPECT_TRUE(std::isnan(x.quantile(0.5, 1)[1].item<double>()));  // quantile: any NaN makes NaN
}

}  // namespace
