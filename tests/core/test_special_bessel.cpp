// torch.special's Bessel functions, zeta and the incomplete gamma functions (autograd/special_bessel.cpp,
// autograd/special.cpp) against PyTorch 1.13 (scripts/gen_special_bessel_fixtures.py,
// tests/fixtures/special_bessel.json): values in float32 and float64 across each method's switch
// points and at the edges, gammainc/gammaincc's gradient for x and zeta's for q. Then gradcheck,
// continuity where the methods meet, dtype rules, and the errors for what PyTorch refuses.
#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "autograd/special.h"
#include "cuda_test_util.h"
#include "fixture_cases.h"
#include "test_util.h"

using namespace ember;
using namespace ember::test;

namespace {

using Case = std::function<Tensor(const NamedInputs&)>;

Case unary(Tensor (*f)(const Tensor&)) {
  return [f](const NamedInputs& in) { return f(in.at("x")); };
}
Case binary(Tensor (*f)(const Tensor&, const Tensor&), const char* a, const char* b) {
  return [f, a, b](const NamedInputs& in) { return f(in.at(a), in.at(b)); };
}

const std::map<std::string, Case>& cases() {
  static const std::map<std::string, Case> table = [] {
    std::map<std::string, Case> t;
    using Unary = Tensor (*)(const Tensor&);
    const std::map<std::string, Unary> unaries = {
        {"bessel_j0", special::bessel_j0},
        {"bessel_j1", special::bessel_j1},
        {"bessel_y0", special::bessel_y0},
        {"bessel_y1", special::bessel_y1},
        {"modified_bessel_i0", special::modified_bessel_i0},
        {"modified_bessel_i1", special::modified_bessel_i1},
        {"modified_bessel_k0", special::modified_bessel_k0},
        {"modified_bessel_k1", special::modified_bessel_k1},
        {"scaled_modified_bessel_k0", special::scaled_modified_bessel_k0},
        {"scaled_modified_bessel_k1", special::scaled_modified_bessel_k1},
        {"spherical_bessel_j0", special::spherical_bessel_j0},
        {"airy_ai", special::airy_ai},
    };
    // Where PyTorch 1.13's own float64 value is off the true one by more than 1e-13 (its J and Y
    // between 3 and 20 by up to 1e-6, Ai near -3, P and Q near a > 20), the fixture keeps the true
    // value too.
    for (const std::string name : {"bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "airy_ai"})
      t[name + "_rough_f64"] = unary(unaries.at(name));
    Tensor (*zeta)(const Tensor&, const Tensor&) = special::zeta;
    for (const std::string sfx : {"", "_f64"}) {
      for (const auto& [name, f] : unaries) t[name + sfx] = unary(f);
      t["zeta" + sfx] = binary(zeta, "x", "q");
      t["zeta_grad" + sfx] = binary(zeta, "x", "q");
      const std::string grid = sfx == "_f64" ? "_rough" : "";  // float64: PyTorch's and the true values
      t["gammainc" + grid + sfx] = binary(special::gammainc, "a", "x");
      t["gammaincc" + grid + sfx] = binary(special::gammaincc, "a", "x");
      for (const std::string kind : {"_grad", "_edges"}) {
        t["gammainc" + kind + sfx] = binary(special::gammainc, "a", "x");
        t["gammaincc" + kind + sfx] = binary(special::gammaincc, "a", "x");
      }
    }
    return t;
  }();
  return table;
}

const nlohmann::json& fixture() { return cached_fixture("special_bessel.json"); }

class SpecialBesselReference : public ::testing::TestWithParam<std::string> {};

std::vector<std::string> names(bool rough) {
  std::vector<std::string> out;
  for (const std::string& name : case_names(fixture()))
    if ((name.find("_rough") != std::string::npos) == rough) out.push_back(name);
  return out;
}

TEST_P(SpecialBesselReference, MatchesPyTorch) {
  ASSERT_TRUE(cases().count(GetParam())) << "no C++ case for " << GetParam();
  check_fixture_case(fixture().at(GetParam()), RequireGrad::kFloatingWithStoredGrad, cases().at(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(Fixture, SpecialBesselReference, ::testing::ValuesIn(names(false)),
                         [](const auto& info) { return info.param; });

// PyTorch's value within its own error (1e-6), the true value (mpmath) to 1e-12.
class SpecialBesselRough : public ::testing::TestWithParam<std::string> {};

TEST_P(SpecialBesselRough, MatchesPyTorchAndTheTrueValue) {
  const nlohmann::json& c = fixture().at(GetParam());
  const Tensor out = cases().at(GetParam())(fixture_inputs(c, RequireGrad::kFloatingWithStoredGrad));
  EXPECT_TENSOR_CLOSE(out, tensor_from_json(c.at("output")), 1e-6, 1e-6);
  EXPECT_TENSOR_CLOSE(out, from_vector<double>(c.at("exact").get<std::vector<double>>(), out.sizes()), 1e-12, 1e-12);
}

INSTANTIATE_TEST_SUITE_P(Fixture, SpecialBesselRough, ::testing::ValuesIn(names(true)),
                         [](const auto& info) { return info.param; });

TEST(SpecialBessel, EveryTableCaseHasAFixture) {
  for (const auto& [name, fn] : cases()) EXPECT_TRUE(fixture().contains(name)) << name;
  EXPECT_EQ(cases().size(), fixture().size());
}

TEST(SpecialBessel, GradcheckFloat64) {
  const Tensor a = wave64({2, 3}, 0.0, 1.5, 3.0);
  check_grad_cases({
      {"gammainc", [a](const tensor_list& x) { return special::gammainc(a, x[0]); }, {wave64({2, 3}, 0.4, 1.0, 2.5)}},
      {"gammaincc", [a](const tensor_list& x) { return special::gammaincc(a, x[0]); }, {wave64({3}, 0.9, 1.0, 2.0)}},
      {"zeta", [](const tensor_list& q) { return special::zeta(2.5, q[0]); }, {wave64({4}, 0.2, 0.5, 1.5)}},
  });
}

// Where the methods meet (J/Y: the small-x series and Miller's recurrence at 1e-3, Miller and
// Hankel's expansion at 25; K: quadrature and asymptotic series at 30; Ai: asymptotics and Taylor
// steps at -10, Taylor and K_{1/3} at 1) the values one ulp either side join to double precision.
TEST(SpecialBessel, BranchesMeetContinuously) {
  auto joins = [](Tensor (*f)(const Tensor&), double at, double tol) {
    const Tensor x = tensor({std::nextafter(at, -INFINITY), at, std::nextafter(at, INFINITY)}, dtype(kFloat64));
    const std::vector<double> v = f(x).to_vector<double>();
    EXPECT_NEAR(v[0], v[1], tol) << at;
    EXPECT_NEAR(v[1], v[2], tol) << at;
  };
  for (auto f : {special::bessel_j0, special::bessel_j1, special::bessel_y0, special::bessel_y1}) {
    joins(f, 25, 1e-15);
    joins(f, 1e-3, 1e-12);  // Y_1 is -637 there
  }
  joins(special::scaled_modified_bessel_k0, 30, 1e-15);
  joins(special::scaled_modified_bessel_k1, 30, 1e-15);
  joins(special::airy_ai, -10, 5e-15);  // the Taylor steps keep Ai to a few 1e-15 absolute
  joins(special::airy_ai, 1, 1e-15);
}

TEST(SpecialBessel, NoGradientAndPromotion) {
  const Tensor x = tensor({0.5, 2.0}, dtype(kFloat64)).requires_grad_();
  EXPECT_FALSE(special::bessel_j0(x).requires_grad());
  EXPECT_FALSE(special::airy_ai(x).requires_grad());
  // zeta records a node for x too, as PyTorch's, whose backward says "not implemented".
  EXPECT_TRUE(special::zeta(x + 2, 1.0).requires_grad());
  EXPECT_EQ(special::bessel_y1(tensor({1, 2})).dtype(), kFloat32);  // integers: the default dtype
  EXPECT_EQ(special::zeta(tensor({2, 3}), tensor({1, 2})).dtype(), kFloat32);
  EXPECT_DOUBLE_EQ(special::zeta(scalar_tensor(2.0, dtype(kFloat64)), 1.0).item<double>(), M_PI * M_PI / 6);
  EXPECT_EQ(special::gammainc(tensor({1, 2}), tensor({1.0, 2.0})).dtype(), kFloat32);
}

TEST(SpecialBessel, RefusesWhatPyTorchRefuses) {
  // PyTorch has no integer igamma kernel, and no derivative for a (zeta: for x).
  EXPECT_THROWS_WITH(special::gammainc(tensor({1, 2}), tensor({1, 2})),
                     "gammainc: \"igamma_cpu\" not implemented for 'Long'");
  const Tensor a = tensor({2.0, 3.0}, dtype(kFloat64)).requires_grad_();
  const Tensor x = tensor({1.0, 4.0}, dtype(kFloat64)).requires_grad_();
  EXPECT_THROWS_WITH(special::gammainc(a, x).sum().backward(),
                     "the derivative for 'igamma: input' is not implemented.");
  EXPECT_THROWS_WITH(special::gammaincc(a, x).sum().backward(),
                     "the derivative for 'igammac: input' is not implemented.");
  EXPECT_THROWS_WITH(special::zeta(a, x).sum().backward(), "the derivative for 'zeta' is not implemented.");
  EXPECT_THROWS_WITH(special::gammaincc(ones({2}), ones({3})), "gammaincc: ");
  EXPECT_THROWS_WITH(special::zeta(ones({2}), ones({3})), "zeta: ");
}

TEST(SpecialBessel, CudaMatchesCpu) {
  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const Tensor x = wave64({2, 3}, 0.0, 2.0, 3.0);
  const Tensor on_gpu = x.to(cuda_test::kGpu);
  EXPECT_EQ(special::modified_bessel_k1(on_gpu).device(), cuda_test::kGpu);
  EXPECT_TENSOR_CLOSE(special::modified_bessel_k1(on_gpu).cpu(), special::modified_bessel_k1(x), 0, 0);
  EXPECT_TENSOR_CLOSE(special::gammainc(on_gpu, scalar_tensor(2.0, dtype(kFloat64))).cpu(),
                      special::gammainc(x, scalar_tensor(2.0, dtype(kFloat64))), 0, 0);
  EXPECT_THROWS_WITH(special::zeta(on_gpu, x), "zeta: Expected all tensors to be on the same device");
}

}  // namespace
