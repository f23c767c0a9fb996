// RReLU, CrossMapLRN2d, gumbel_softmax and the init functions dirac_, eye_ and orthogonal_ against
// PyTorch 1.13: forward values and gradients (seeded draws included: RReLU's slopes bit for bit), the
// init results, gradcheck in float64, module printing and bad input.
//
// Fixtures come from scripts/gen_nn_extra_fixtures.py (tests/fixtures/nn/nn_extra.json); each table
// line is the C++ twin of one `case(...)` there, each "init.<name>" entry of one `init_case(...)`.
#include <cmath>
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

F::RReLUFuncOptions train(double lower, double upper) {
  return F::RReLUFuncOptions().lower(lower).upper(upper).training(true);
}

// The slopes and the output of rrelu_with_noise, stacked as the generator stacks them.
Tensor rrelu_with_noise(const Tensor& x, double lower, double upper, bool training) {
  Tensor noise = full(x.sizes(), -7.0, TensorOptions(x.dtype()));
  Tensor out = F::rrelu_with_noise(x, noise, lower, upper, training);
  return stack({out, noise});
}

Tensor lrn(const Tensor& x, const nn::CrossMapLRN2dOptions& options) { return nn::CrossMapLRN2d(options)(x); }

// Each line mirrors the case of the same name in gen_nn_extra_fixtures.py.
const std::map<std::string, Case>& cases() {
  static const std::map<std::string, Case> table = [] {
    std::map<std::string, Case> t;
    t["rrelu_eval"] = [](const NamedInputs& in) { return F::rrelu(in.at("x")); };
    t["rrelu_eval_kinks"] = [](const NamedInputs& in) {
      return F::rrelu(in.at("x"), F::RReLUFuncOptions().lower(0.1).upper(0.6));
    };
    t["rrelu_train"] = [](const NamedInputs& in) { return F::rrelu(in.at("x"), F::RReLUFuncOptions().training(true)); };
    t["rrelu_train_kinks"] = [](const NamedInputs& in) { return F::rrelu(in.at("x"), train(0.2, 0.9)); };
    t["rrelu_train_f64"] = [](const NamedInputs& in) { return F::rrelu(in.at("x"), train(0.05, 0.9)); };
    t["rrelu_train_many"] = [](const NamedInputs& in) {
      return F::rrelu(in.at("x"), F::RReLUFuncOptions().training(true));
    };
    t["rrelu_train_transposed"] = [](const NamedInputs& in) {
      return F::rrelu(in.at("x").t(), F::RReLUFuncOptions().training(true));
    };
    t["rrelu_train_inplace"] = [](const NamedInputs& in) {
      return F::rrelu(in.at("x") * 1, train(0.3, 0.4).inplace(true));
    };
    t["rrelu_train_equal_bounds"] = [](const NamedInputs& in) { return F::rrelu(in.at("x"), train(0.25, 0.25)); };
    t["rrelu_module_train"] = [](const NamedInputs& in) {
      return nn::RReLU(nn::RReLUOptions().lower(0.2).upper(0.5))(in.at("x"));
    };
    t["rrelu_module_eval"] = [](const NamedInputs& in) {
      nn::RReLU m(nn::RReLUOptions().lower(0.2).upper(0.5));
      m->eval();
      return m(in.at("x"));
    };
    t["rrelu_with_noise_train"] = [](const NamedInputs& in) { return rrelu_with_noise(in.at("x"), 0.1, 0.3, true); };
    t["rrelu_with_noise_eval"] = [](const NamedInputs& in) { return rrelu_with_noise(in.at("x"), 0.1, 0.3, false); };

    t["cross_map_lrn_size3"] = [](const NamedInputs& in) {
      return lrn(in.at("x"), nn::CrossMapLRN2dOptions(3).alpha(0.5));
    };
    t["cross_map_lrn_size4"] = [](const NamedInputs& in) {
      return lrn(in.at("x"), nn::CrossMapLRN2dOptions(4).alpha(0.3).beta(0.6).k(2));
    };
    t["cross_map_lrn_size5"] = [](const NamedInputs& in) {
      return lrn(in.at("x"), nn::CrossMapLRN2dOptions(5).alpha(1.0).beta(1.2));
    };
    t["cross_map_lrn_default"] = [](const NamedInputs& in) { return lrn(in.at("x"), nn::CrossMapLRN2dOptions(3)); };
    t["cross_map_lrn_wide_window"] = [](const NamedInputs& in) {
      return lrn(in.at("x"), nn::CrossMapLRN2dOptions(7).alpha(0.8));
    };
    t["cross_map_lrn_f64"] = [](const NamedInputs& in) {
      return lrn(in.at("x"), nn::CrossMapLRN2dOptions(3).alpha(0.7).beta(0.9).k(1));
    };

    t["gumbel_softmax"] = [](const NamedInputs& in) { return F::gumbel_softmax(in.at("x")); };
    t["gumbel_softmax_tau"] = [](const NamedInputs& in) {
      return F::gumbel_softmax(in.at("x"), F::GumbelSoftmaxFuncOptions().tau(0.5));
    };
    t["gumbel_softmax_hard"] = [](const NamedInputs& in) {
      return F::gumbel_softmax(in.at("x"), F::GumbelSoftmaxFuncOptions().hard(true));
    };
    t["gumbel_softmax_hard_dim0"] = [](const NamedInputs& in) {
      return F::gumbel_softmax(in.at("x"), F::GumbelSoftmaxFuncOptions().tau(2.0).hard(true).dim(0));
    };
    t["gumbel_softmax_f64"] = [](const NamedInputs& in) {
      return F::gumbel_softmax(in.at("x"), F::GumbelSoftmaxFuncOptions().tau(0.7));
    };
    return t;
  }();
  return table;
}

// Each "init.<name>" entry mirrors the init_case of that name.
const std::map<std::string, std::function<void(Tensor&)>>& init_cases() {
  static const std::map<std::string, std::function<void(Tensor&)>> table = {
      {"dirac_3d", [](Tensor& t) { nn::init::dirac_(t); }},
      {"dirac_4d", [](Tensor& t) { nn::init::dirac_(t); }},
      {"dirac_5d", [](Tensor& t) { nn::init::dirac_(t); }},
      {"dirac_groups", [](Tensor& t) { nn::init::dirac_(t, 3); }},
      {"dirac_groups_narrow", [](Tensor& t) { nn::init::dirac_(t, 2); }},
      {"eye_wide", [](Tensor& t) { nn::init::eye_(t); }},
      {"eye_tall", [](Tensor& t) { nn::init::eye_(t); }},
      {"eye_f64", [](Tensor& t) { nn::init::eye_(t); }},
      {"orthogonal_square", [](Tensor& t) { nn::init::orthogonal_(t); }},
      {"orthogonal_tall", [](Tensor& t) { nn::init::orthogonal_(t); }},
      {"orthogonal_wide", [](Tensor& t) { nn::init::orthogonal_(t); }},
      {"orthogonal_small", [](Tensor& t) { nn::init::orthogonal_(t); }},
      {"orthogonal_conv_gain", [](Tensor& t) { nn::init::orthogonal_(t, 2.0); }},
      {"orthogonal_large", [](Tensor& t) { nn::init::orthogonal_(t); }},
  };
  return table;
}

const nlohmann::json& fixture() { return cached_fixture("nn/nn_extra.json"); }

std::vector<std::string> names_with_prefix(bool init) {
  std::vector<std::string> names;
  for (const std::string& name : case_names(fixture()))
    if (name.starts_with("init.") == init) names.push_back(init ? name.substr(5) : name);
  return names;
}

}  // namespace

class NnExtraReference : public ::testing::TestWithParam<std::string> {};

TEST_P(NnExtraReference, ForwardAndBackwardMatchPyTorch) {
  ASSERT_TRUE(cases().count(GetParam())) << "no C++ case for " << GetParam();
  check_fixture_case(fixture().at(GetParam()), RequireGrad::kFloatingWithStoredGrad, cases().at(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(Fixture, NnExtraReference, ::testing::ValuesIn(names_with_prefix(false)),
                         [](const auto& info) { return info.param; });

class NnExtraInit : public ::testing::TestWithParam<std::string> {};

// orthogonal_'s QR runs in double here and in float32 LAPACK in PyTorch: equal to ~1e-6.
TEST_P(NnExtraInit, MatchesPyTorch) {
  ASSERT_TRUE(init_cases().count(GetParam())) << "no C++ case for " << GetParam();
  const nlohmann::json& c = fixture().at("init." + GetParam());
  Tensor t = empty(c.at("shape").get<std::vector<int64_t>>(),
                   TensorOptions(dtype_from_name(c.at("dtype").get<std::string>())));
  if (c.contains("seed")) manual_seed(c.at("seed").get<uint64_t>());
  init_cases().at(GetParam())(t);
  EXPECT_TENSOR_CLOSE(t, tensor_from_json(c.at("output")), 1e-5, 1e-5);
}

INSTANTIATE_TEST_SUITE_P(Fixture, NnExtraInit, ::testing::ValuesIn(names_with_prefix(true)),
                         [](const auto& info) { return info.param; });

TEST(NnExtra, EveryTableCaseHasAFixture) {
  for (const auto& [name, fn] : cases()) EXPECT_TRUE(fixture().contains(name)) << name;
  for (const auto& [name, fn] : init_cases()) EXPECT_TRUE(fixture().contains("init." + name)) << name;
}

// The slopes are PyTorch's numbers exactly, not just to 1e-5: same draws, same roundings.
TEST(NnExtra, RReLUSlopesEqualPyTorchBitForBit) {
  for (const char* name : {"rrelu_train_many", "rrelu_train_f64", "rrelu_with_noise_train"}) {
    SCOPED_TRACE(name);
    const nlohmann::json& c = fixture().at(name);
    manual_seed(c.at("seed").get<uint64_t>());
    Tensor out = cases().at(name)({{"x", tensor_from_json(c.at("inputs").at("x"))}});
    EXPECT_TENSOR_CLOSE(out, tensor_from_json(c.at("output")), 0, 0);
  }
}

TEST(NnExtra, RReLUDrawsFromAGivenGenerator) {
  Tensor x = wave64({3, 5}, 0, 2).to(kFloat32);
  Generator g(99);
  Tensor mine = empty({3, 5}), reference = empty({3, 5});
  F::rrelu_with_noise(x, mine, 0.1, 0.4, true, g);
  manual_seed(99);
  F::rrelu_with_noise(x, reference, 0.1, 0.4, true);
  EXPECT_TRUE(mine.equal(reference));
  EXPECT_TRUE((mine.ge(0.1).logical_and(mine.lt(0.4)).logical_or(mine.eq(1))).all().item<bool>());
}

TEST(NnExtra, RReLUModuleInplaceWritesItsInput) {
  nn::RReLU m(nn::RReLUOptions().inplace(true));
  m->eval();
  Tensor x = tensor({-2.0f, 3.0f});
  Tensor y = m(x);
  EXPECT_TENSOR_CLOSE(x, tensor({-2.0f * (1.0f / 8 + 1.0f / 3) / 2, 3.0f}));
  EXPECT_TRUE(y.is_same(x));
}

// gumbel_softmax's draws are the generator's exponential_ numbers; what holds whatever they are:
// rows sum to 1, a hard sample is one-hot at the soft sample's argmax, and its gradient is the soft one's.
TEST(NnExtra, GumbelSoftmaxHardIsOneHotWithTheSoftGradient) {
  Tensor logits = wave64({4, 6}, 0, 2);
  Tensor a = logits.clone().requires_grad_(), b = logits.clone().requires_grad_();
  manual_seed(5);
  Tensor soft = F::gumbel_softmax(a, F::GumbelSoftmaxFuncOptions().tau(0.8));
  manual_seed(5);
  Tensor hard = F::gumbel_softmax(b, F::GumbelSoftmaxFuncOptions().tau(0.8).hard(true));
  EXPECT_TENSOR_CLOSE(soft.sum(-1), ones({4}, dtype(kFloat64)), 1e-12, 1e-12);
  EXPECT_TENSOR_CLOSE(hard, one_hot(soft.argmax(-1), 6).to(kFloat64), 0, 1e-15);
  Tensor w = wave64({4, 6}, 0.3);
  (soft * w).sum().backward();
  (hard * w).sum().backward();
  EXPECT_TENSOR_CLOSE(b.grad(), a.grad(), 1e-12, 1e-12);
}

// ---- gradient check: central differences in float64, inputs away from 0 ----

// CrossMapLRN2d's backward is libtorch's formula, which is the derivative of its forward only where
// every channel's window spans all channels (C <= (size - 1) / 2); the fixtures hold it to libtorch's
// values elsewhere. RReLU and gumbel_softmax reseed inside the function, so every evaluation draws the
// same noise (a sign pattern that small steps do not change).
TEST(NnExtra, GradientsMatchFiniteDifferences) {
  const std::vector<GradCase> table = {
      {"rrelu_eval",
       [](const tensor_list& x) { return F::rrelu(x[0], F::RReLUFuncOptions().lower(0.1).upper(0.5)); },
       {wave64({3, 4}, 0, 3)}},
      {"rrelu_train",
       [](const tensor_list& x) {
         manual_seed(3);
         return F::rrelu(x[0], train(0.1, 0.5));
       },
       {wave64({3, 4}, 0, 3)}},
      {"gumbel_softmax",
       [](const tensor_list& x) {
         manual_seed(4);
         return F::gumbel_softmax(x[0], F::GumbelSoftmaxFuncOptions().tau(0.6).dim(0));
       },
       {wave64({3, 4}, 0, 2)}},
      {"cross_map_lrn_size5_c2",
       [](const tensor_list& x) { return lrn(x[0], nn::CrossMapLRN2dOptions(5).alpha(0.9)); },
       {wave64({2, 2, 2, 3}, 0, 2)},
       false},
      {"cross_map_lrn_size7_c3",
       [](const tensor_list& x) { return lrn(x[0], nn::CrossMapLRN2dOptions(7).alpha(0.6).beta(1.1).k(2)); },
       {wave64({1, 3, 2, 2}, 0.5, 2)},
       false},
  };
  check_grad_cases(table);
}

// Beyond those shapes libtorch's backward is not the derivative of its forward; Ember keeps libtorch's.
TEST(NnExtra, CrossMapLRN2dGradientIsLibtorchsNotTheDerivative) {
  Tensor x = wave64({1, 6, 2, 2}, 0, 2).requires_grad_();
  auto f = [](const tensor_list& in) { return lrn(in[0], nn::CrossMapLRN2dOptions(3).alpha(0.9)); };
  EXPECT_FALSE(autograd::gradcheck(f, {x}, 1e-6, 1e-5, 1e-3, /*raise_exception=*/false));
}

TEST(NnExtra, OrthogonalIsOrthogonal) {
  for (std::vector<int64_t> shape : {std::vector<int64_t>{5, 3}, {3, 5}, {4, 2, 3}, {6, 6}}) {
    Tensor w = nn::init::orthogonal_(ember::empty(shape), 1.5).reshape({shape[0], -1}).to(kFloat64);
    const bool wide = w.size(0) < w.size(1);
    Tensor gram = wide ? w.matmul(w.t()) : w.t().matmul(w);
    EXPECT_TENSOR_CLOSE(gram, eye(gram.size(0), dtype(kFloat64)) * 2.25, 1e-5, 1e-5);
  }
}

TEST(NnExtra, ModulesPrintAsLibtorch) {
  std::ostringstream text;
  text << nn::RReLU() << ' ' << nn::RReLU(nn::RReLUOptions().lower(0.1).upper(0.3).inplace(true)) << ' '
       << nn::CrossMapLRN2d(3) << ' ' << nn::CrossMapLRN2d(nn::CrossMapLRN2dOptions(5).alpha(1e-3).beta(0.5).k(2));
  EXPECT_EQ(text.str(),
            "RReLU(lower=0.125, upper=0.333333) RReLU(lower=0.1, upper=0.3, inplace=true) "
            "CrossMapLRN2d(3, alpha=0.0001, beta=0.75, k=1) CrossMapLRN2d(5, alpha=0.001, beta=0.5, k=2)");
}

TEST(NnExtra, BadInputIsRefusedByName) {
  EXPECT_THROWS_WITH(nn::RReLU(nn::RReLUOptions().lower(0.5).upper(0.2)),
                     "RReLU: lower bound (0.5) must be less than or equal to upper bound (0.2)");
  EXPECT_THROWS_WITH(F::rrelu(zeros({2}), F::RReLUFuncOptions().lower(0.4).upper(0.1)),
                     "rrelu: lower bound (0.4) must be less than or equal to upper bound (0.1)");
  EXPECT_THROWS_WITH(F::rrelu(zeros({2}, dtype(kInt64)), F::RReLUFuncOptions().training(true)),
                     "rrelu: training mode expects a float32 or float64 input, got int64");
  EXPECT_THROWS_WITH(F::rrelu_with_noise(zeros({2, 3}), empty({3}), 0.1, 0.3, true),
                     "rrelu_with_noise: noise must have the input's shape [2, 3], got [3]");
  EXPECT_THROWS_WITH(nn::CrossMapLRN2d(3)(zeros({2, 3, 4})),
                     "CrossMapLRN2d: expected a 4-D input (N, C, H, W), got shape [2, 3, 4]");
  EXPECT_THROWS_WITH(nn::CrossMapLRN2d(0), "CrossMapLRN2d: size must be positive, but got size=0");
  Tensor x = ones({1, 3, 2, 2}).requires_grad_();
  EXPECT_THROWS_WITH(nn::CrossMapLRN2d(2)(x).sum().backward(), "CrossMapLRN2d: backward needs size >= 3, got size=2");
  EXPECT_THROWS_WITH(F::gumbel_softmax(zeros({2, 3}), F::GumbelSoftmaxFuncOptions().tau(0)),
                     "gumbel_softmax: tau must be positive, got 0");
  EXPECT_THROWS_WITH(F::gumbel_softmax(zeros({2}, dtype(kInt64))),
                     "gumbel_softmax: expected floating point logits, got int64");
  EXPECT_THROWS_WITH(nn::init::dirac_(empty({3, 3})),
                     "dirac_: Only tensors with 3, 4, or 5 dimensions are supported (got shape [3, 3])");
  EXPECT_THROWS_WITH(nn::init::dirac_(empty({5, 2, 3}), 2),
                     "dirac_: dim 0 must be divisible by groups (dim 0 is 5, groups is 2)");
  EXPECT_THROWS_WITH(nn::init::eye_(empty({2, 2, 2})),
                     "eye_: Only tensors with 2 dimensions are supported (got shape [2, 2, 2])");
  EXPECT_THROWS_WITH(nn::init::orthogonal_(ember::empty({4})),
                     "orthogonal_: Only tensors with 2 or more dimensions are supported (got shape [4])");
}
