// torch.special (autograd/special.h) against PyTorch 1.13 (scripts/gen_special_fixtures.py,
// tests/fixtures/special.json): erfcx, ndtr, ndtri, log_ndtr, entr, xlog1py and the modified Bessel
// functions (values and gradients, float32 and float64, tails and edges), the orthogonal polynomials
// over degrees -1..12 at the edges of their domains, and torch.special's names for Ember's ops.
// Then gradcheck and gradgradcheck in float64. Each table line is the twin of one `case(...)`.
#include <cmath>
#include <functional>
#include <map>
#include <string>

#include "autograd/special.h"
#include "fixture_cases.h"
#include "test_util.h"

using namespace ember;
using namespace ember::test;

namespace {

using Case = std::function<Tensor(const NamedInputs&)>;

Case unary(Tensor (*f)(const Tensor&), const char* input = "x") {
  return [f, input](const NamedInputs& in) { return f(in.at(input)); };
}
Case binary(Tensor (*f)(const Tensor&, const Tensor&), const char* a = "a", const char* b = "b") {
  return [f, a, b](const NamedInputs& in) { return f(in.at(a), in.at(b)); };
}

const std::map<std::string, Case>& cases() {
  static const std::map<std::string, Case> table = [] {
    std::map<std::string, Case> t;
    for (const std::string sfx : {"", "_f64"}) {
      t["erfcx" + sfx] = unary(special::erfcx);
      t["ndtr" + sfx] = unary(special::ndtr);
      t["log_ndtr" + sfx] = unary(special::log_ndtr);
      t["ndtri" + sfx] = unary(special::ndtri, "p");
      t["ndtri_edges" + sfx] = unary(special::ndtri, "p");
      t["entr" + sfx] = unary(special::entr);
      t["entr_edges" + sfx] = unary(special::entr);
      t["xlog1py" + sfx] = binary(special::xlog1py);
      t["xlog1py_edges" + sfx] = binary(special::xlog1py);
      t["i0" + sfx] = unary(special::i0);
      t["i0e" + sfx] = unary(special::i0e);
      t["i1" + sfx] = unary(special::i1);
      t["i1e" + sfx] = unary(special::i1e);
      t["xlogy" + sfx] = binary(special::xlogy);
    }
    using Poly = Tensor (*)(const Tensor&, const Tensor&);
    const std::map<std::string, Poly> polynomials = {
        {"chebyshev_polynomial_t", special::chebyshev_polynomial_t},
        {"chebyshev_polynomial_u", special::chebyshev_polynomial_u},
        {"chebyshev_polynomial_v", special::chebyshev_polynomial_v},
        {"chebyshev_polynomial_w", special::chebyshev_polynomial_w},
        {"shifted_chebyshev_polynomial_t", special::shifted_chebyshev_polynomial_t},
        {"shifted_chebyshev_polynomial_u", special::shifted_chebyshev_polynomial_u},
        {"shifted_chebyshev_polynomial_v", special::shifted_chebyshev_polynomial_v},
        {"shifted_chebyshev_polynomial_w", special::shifted_chebyshev_polynomial_w},
        {"hermite_polynomial_h", special::hermite_polynomial_h},
        {"hermite_polynomial_he", special::hermite_polynomial_he},
        {"laguerre_polynomial_l", special::laguerre_polynomial_l},
        {"legendre_polynomial_p", special::legendre_polynomial_p},
    };
    for (const auto& [name, f] : polynomials) t[name] = binary(f, "x", "n");
    t["chebyshev_polynomial_t_f32"] = binary(special::chebyshev_polynomial_t, "x", "n");
    t["expit"] = unary(special::expit);
    t["gammaln"] = unary(special::gammaln);
    t["psi"] = unary(special::psi);
    t["multigammaln"] = [](const NamedInputs& in) { return special::multigammaln(in.at("x"), 2); };
    t["polygamma"] = [](const NamedInputs& in) { return special::polygamma(2, in.at("x")); };
    t["erfinv"] = unary(special::erfinv);
    t["logit"] = [](const NamedInputs& in) { return special::logit(in.at("x"), 0.1); };
    t["round"] = [](const NamedInputs& in) { return special::round(in.at("x"), 2); };
    t["sinc"] = unary(special::sinc);
    t["log_softmax"] = [](const NamedInputs& in) { return special::log_softmax(in.at("x"), 1); };
    t["softmax"] = [](const NamedInputs& in) { return special::softmax(in.at("x"), 1); };
    t["logsumexp"] = [](const NamedInputs& in) { return special::logsumexp(in.at("x"), {1}); };
    return t;
  }();
  return table;
}

const nlohmann::json& fixture() { return cached_fixture("special.json"); }

class SpecialReference : public ::testing::TestWithParam<std::string> {};

TEST_P(SpecialReference, MatchesPyTorch) {
  ASSERT_TRUE(cases().count(GetParam())) << "no C++ case for " << GetParam();
  check_fixture_case(fixture().at(GetParam()), RequireGrad::kFloatingWithStoredGrad, cases().at(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(Fixture, SpecialReference, ::testing::ValuesIn(case_names(fixture())),
                         [](const auto& info) { return info.param; });

TEST(Special, EveryTableCaseHasAFixture) {
  for (const auto& [name, fn] : cases()) EXPECT_TRUE(fixture().contains(name)) << name;
  EXPECT_EQ(cases().size(), fixture().size());
}

TEST(Special, GradcheckFloat64) {
  check_grad_cases({
      {"erfcx", [](const tensor_list& x) { return special::erfcx(x[0]); }, {wave64({2, 3}, 0.0, 3.0)}},
      {"ndtr", [](const tensor_list& x) { return special::ndtr(x[0]); }, {wave64({2, 3}, 0.0, 3.0)}},
      {"log_ndtr", [](const tensor_list& x) { return special::log_ndtr(x[0]); }, {wave64({6}, 0.0, 5.0)}},
      {"ndtri", [](const tensor_list& x) { return special::ndtri(x[0]); }, {wave64({5}, 0.0, 0.45, 0.5)}},
      {"entr", [](const tensor_list& x) { return special::entr(x[0]); }, {wave64({5}, 0.0, 0.4, 1.0)}},
      {"xlog1py",
       [](const tensor_list& x) { return special::xlog1py(x[0], x[1]); },
       {wave64({2, 3}), wave64({3}, 0.5, 0.5, 1.0)}},
      {"i0", [](const tensor_list& x) { return special::i0(x[0]); }, {wave64({5}, 0.0, 4.0)}},
      {"i0e", [](const tensor_list& x) { return special::i0e(x[0]); }, {wave64({5}, 0.2, 4.0)}},
      {"i1", [](const tensor_list& x) { return special::i1(x[0]); }, {wave64({5}, 0.1, 4.0)}},
      {"i1e", [](const tensor_list& x) { return special::i1e(x[0]); }, {wave64({5}, 0.3, 4.0)}},
  });
}

// The asymptotic branches meet the series (i0e at |x| = 40) and erfc (erfcx at 26) continuously.
TEST(Special, BranchesMeetContinuously) {
  const Tensor at = tensor({40 - 1e-13, 40 + 1e-13, 26 - 1e-13, 26 + 1e-13}, dtype(kFloat64));
  const std::vector<double> i0e = special::i0e(at).to_vector<double>();
  EXPECT_NEAR(i0e[0] / i0e[1], 1.0, 1e-13);
  const std::vector<double> erfcx = special::erfcx(at).to_vector<double>();
  EXPECT_NEAR(erfcx[2] / erfcx[3], 1.0, 1e-13);
  // ndtri inverts ndtr to the last bits far into both tails.
  const Tensor p = tensor({1e-300, 1e-50, 1e-10, 0.25, 0.75, 1 - 1e-12}, dtype(kFloat64));
  EXPECT_TENSOR_CLOSE(special::ndtr(special::ndtri(p)), p, 1e-13, 0);
}

TEST(Special, PolynomialsTakeScalarsAndPromote) {
  EXPECT_DOUBLE_EQ(special::hermite_polynomial_h(scalar_tensor(0.5, dtype(kFloat64)), 3).item<double>(), -5.0);
  EXPECT_EQ(special::legendre_polynomial_p(2.0, tensor({2})).dtype(), kFloat32);  // integer n: default dtype
  EXPECT_TENSOR_CLOSE(special::laguerre_polynomial_l(tensor({1.0, 2.0}), 2), tensor({-0.5f, -1.0f}));
  EXPECT_FALSE(special::chebyshev_polynomial_t(tensor({0.5}).requires_grad_(), 2).requires_grad());
  // A degree PyTorch's loop would take minutes over is refused; NaN and inf degrees give 0 as there.
  EXPECT_THROWS_WITH(special::legendre_polynomial_p(tensor({0.5}, dtype(kFloat64)), 1e12),
                     "legendre_polynomial_p: degree n = 1000000000000 is above 16777216");
  EXPECT_TENSOR_CLOSE(special::hermite_polynomial_he(tensor({0.5, 0.5}), tensor({NAN, INFINITY})), zeros({2}));
}

}  // namespace
