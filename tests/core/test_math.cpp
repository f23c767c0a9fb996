// The elementwise math of autograd/math.cpp against PyTorch 1.13 (scripts/gen_math_fixtures.py):
// trigonometric and hyperbolic functions, other exponential and log bases, rounding, division with a
// rounding mode, atan2, hypot, logaddexp, xlogy, float_power, lerp, addcmul and addcdiv, values and
// gradients; float64 gradcheck; the in-place forms and their dtype rule; the emulated CUDA device
// against the CPU; libtorch's spellings; and bad input.
#include <cmath>
#include <functional>
#include <map>

#include <gtest/gtest.h>

#include "autograd/gradcheck.h"
#include "tests/fixture_cases.h"
#include "tests/fixture_json.h"
#include "tests/test_util.h"

namespace ember::test {
namespace {

using Case = std::function<Tensor(const NamedInputs&)>;

// Mirrors the generator's GRAD_CASES, value_cases and INT_CASES, by name.
const std::map<std::string, Case>& cases() {
  static const std::map<std::string, Case> table = {
      {"tan", [](const NamedInputs& i) { return i.at("x").tan(); }},
      {"asin", [](const NamedInputs& i) { return i.at("x").asin(); }},
      {"acos", [](const NamedInputs& i) { return i.at("x").acos(); }},
      {"atan", [](const NamedInputs& i) { return i.at("big").atan(); }},
      {"sinh", [](const NamedInputs& i) { return i.at("a").sinh(); }},
      {"cosh", [](const NamedInputs& i) { return i.at("a").cosh(); }},
      {"asinh", [](const NamedInputs& i) { return i.at("big").asinh(); }},
      {"acosh", [](const NamedInputs& i) { return i.at("pos").acosh(); }},
      {"atanh", [](const NamedInputs& i) { return i.at("x").atanh(); }},
      {"expm1", [](const NamedInputs& i) { return i.at("x").expm1(); }},
      {"exp2", [](const NamedInputs& i) { return i.at("a").exp2(); }},
      {"log2", [](const NamedInputs& i) { return i.at("pos").log2(); }},
      {"log10", [](const NamedInputs& i) { return i.at("pos").log10(); }},
      {"sinc", [](const NamedInputs& i) { return i.at("big").sinc(); }},
      {"deg2rad", [](const NamedInputs& i) { return i.at("big").deg2rad(); }},
      {"rad2deg", [](const NamedInputs& i) { return i.at("x").rad2deg(); }},
      {"logit", [](const NamedInputs& i) { return i.at("prob").logit(); }},
      {"logit_eps", [](const NamedInputs& i) { return i.at("wide").logit(0.2); }},
      {"floor", [](const NamedInputs& i) { return i.at("big").floor(); }},
      {"ceil", [](const NamedInputs& i) { return i.at("big").ceil(); }},
      {"trunc", [](const NamedInputs& i) { return i.at("big").trunc(); }},
      {"round", [](const NamedInputs& i) { return i.at("big").round(); }},
      {"round_decimals", [](const NamedInputs& i) { return i.at("big").round(2); }},
      {"round_negative_decimals", [](const NamedInputs& i) { return (i.at("big") * 37).round(-1); }},
      {"frac", [](const NamedInputs& i) { return i.at("big").frac(); }},
      {"div_floor", [](const NamedInputs& i) { return i.at("big").div(i.at("b"), "floor"); }},
      {"div_trunc", [](const NamedInputs& i) { return i.at("big").div(i.at("b"), "trunc"); }},
      {"atan2", [](const NamedInputs& i) { return i.at("a").atan2(i.at("b")); }},
      {"atan2_broadcast", [](const NamedInputs& i) { return i.at("a").atan2(i.at("row")); }},
      {"hypot", [](const NamedInputs& i) { return i.at("a").hypot(i.at("row")); }},
      {"logaddexp", [](const NamedInputs& i) { return i.at("a").logaddexp(i.at("b")); }},
      {"logaddexp2", [](const NamedInputs& i) { return i.at("a").logaddexp2(i.at("row")); }},
      {"xlogy", [](const NamedInputs& i) { return i.at("a").xlogy(i.at("away")); }},
      {"float_power", [](const NamedInputs& i) { return i.at("away").float_power(i.at("b")); }},
      {"float_power_scalar", [](const NamedInputs& i) { return i.at("away").float_power(2.5); }},
      {"lerp_small_weight", [](const NamedInputs& i) { return i.at("a").lerp(i.at("b"), 0.3); }},
      {"lerp_large_weight", [](const NamedInputs& i) { return i.at("a").lerp(i.at("b"), 0.8); }},
      {"lerp_tensor_weight", [](const NamedInputs& i) { return i.at("a").lerp(i.at("b"), i.at("w")); }},
      {"addcmul", [](const NamedInputs& i) { return i.at("a").addcmul(i.at("b"), i.at("row"), 0.5); }},
      {"addcdiv", [](const NamedInputs& i) { return i.at("a").addcdiv(i.at("b"), i.at("away"), -2); }},
      // special values
      {"round_halves", [](const NamedInputs& i) { return i.at("x").round(); }},
      {"floor_halves", [](const NamedInputs& i) { return i.at("x").floor(); }},
      {"ceil_halves", [](const NamedInputs& i) { return i.at("x").ceil(); }},
      {"div_floor_special", [](const NamedInputs& i) { return i.at("a").div(i.at("b"), "floor"); }},
      {"div_trunc_special", [](const NamedInputs& i) { return i.at("a").div(i.at("b"), "trunc"); }},
      {"logaddexp_special", [](const NamedInputs& i) { return i.at("a").logaddexp(i.at("b")); }},
      {"logaddexp2_special", [](const NamedInputs& i) { return i.at("a").logaddexp2(i.at("b")); }},
      {"xlogy_special", [](const NamedInputs& i) { return i.at("a").xlogy(i.at("b")); }},
      {"nan_to_num_default", [](const NamedInputs& i) { return i.at("x").nan_to_num(); }},
      {"nan_to_num_given", [](const NamedInputs& i) { return i.at("x").nan_to_num(2.0, 100.0, -100.0); }},
      {"sinc_special", [](const NamedInputs& i) { return i.at("x").sinc(); }},
      {"floor_divide_scalar", [](const NamedInputs& i) { return i.at("a").floor_divide(0.7); }},
      {"floor_special", [](const NamedInputs& i) { return i.at("x").floor(); }},
      {"exp2_special", [](const NamedInputs& i) { return i.at("x").exp2(); }},
      // integer and bool inputs
      {"int_floor", [](const NamedInputs& i) { return i.at("x").floor(); }},
      {"int_ceil", [](const NamedInputs& i) { return i.at("x").ceil(); }},
      {"int_round", [](const NamedInputs& i) { return i.at("x").round(); }},
      {"int_trunc", [](const NamedInputs& i) { return i.at("x").trunc(); }},
      {"int_div_floor", [](const NamedInputs& i) { return i.at("a").div(i.at("b"), "floor"); }},
      {"int_div_trunc", [](const NamedInputs& i) { return i.at("a").div(i.at("b"), "trunc"); }},
      {"int_floor_divide_scalar", [](const NamedInputs& i) { return i.at("a").floor_divide(-3); }},
      {"int_div_floor_by_float", [](const NamedInputs& i) { return i.at("a").div(2.5, "floor"); }},
      {"uint8_floor_divide", [](const NamedInputs& i) { return i.at("a").floor_divide(3); }},
      {"int_tan", [](const NamedInputs& i) { return i.at("x").tan(); }},
      {"int_atan2", [](const NamedInputs& i) { return i.at("a").atan2(i.at("b")); }},
      {"int_deg2rad", [](const NamedInputs& i) { return i.at("x").deg2rad(); }},
      {"int_exp2", [](const NamedInputs& i) { return i.at("x").exp2(); }},
      {"int_xlogy", [](const NamedInputs& i) { return i.at("a").xlogy(i.at("b")); }},
      {"int_nan_to_num", [](const NamedInputs& i) { return i.at("x").nan_to_num(); }},
      {"int_addcmul", [](const NamedInputs& i) { return i.at("a").addcmul(i.at("a"), i.at("b"), 2); }},
      {"bool_log2", [](const NamedInputs& i) { return i.at("x").log2(); }},
      {"bool_sinc", [](const NamedInputs& i) { return i.at("x").sinc(); }},
  };
  return table;
}

TEST(Math, MatchesPyTorch) {
  const nlohmann::json& fixture = cached_fixture("core/math.json");
  for (const auto& [key, c] : fixture.items()) {
    SCOPED_TRACE(key);
    const std::string name = key.substr(0, key.find('/'));
    ASSERT_TRUE(cases().count(name)) << "no C++ twin for " << name;
    check_fixture_case(c, RequireGrad::kFloatingWithStoredGrad, cases().at(name));
  }
  EXPECT_EQ(fixture.size(), 2u * (39 + 15) + 18);  // every case of the generator, in both float dtypes
}

TEST(Math, Gradcheck) {
  Tensor x = wave64({2, 3}) * 0.9, a = wave64({2, 3}, 0.4) * 2, b = wave64({2, 3}, 1.1) * 1.5;
  Tensor pos = wave64({2, 3}) + 2.5, prob = wave64({2, 3}) * 0.45 + 0.5, row = wave64({1, 3}, 2.3);
  Tensor w = wave64({2, 3}, 2.9) * 0.9 + 0.3;
  using In = const tensor_list&;
  check_grad_cases({
      {"tan", [](In t) { return t[0].tan(); }, {x}},
      {"asin", [](In t) { return t[0].asin(); }, {x}},
      {"acos", [](In t) { return t[0].acos(); }, {x}},
      {"atan", [](In t) { return t[0].atan(); }, {a}},
      {"sinh", [](In t) { return t[0].sinh(); }, {a}},
      {"cosh", [](In t) { return t[0].cosh(); }, {a}},
      {"asinh", [](In t) { return t[0].asinh(); }, {a}},
      {"acosh", [](In t) { return t[0].acosh(); }, {pos}},
      {"atanh", [](In t) { return t[0].atanh(); }, {x}},
      {"expm1", [](In t) { return t[0].expm1(); }, {a}},
      {"exp2", [](In t) { return t[0].exp2(); }, {a}},
      {"log2", [](In t) { return t[0].log2(); }, {pos}},
      {"log10", [](In t) { return t[0].log10(); }, {pos}},
      {"sinc", [](In t) { return t[0].sinc(); }, {a}, false},
      {"logit", [](In t) { return t[0].logit(); }, {prob}},
      {"nan_to_num", [](In t) { return t[0].nan_to_num(); }, {a}},
      {"frac", [](In t) { return (t[0] * 3.7).frac(); }, {a}},
      {"atan2", [](In t) { return t[0].atan2(t[1]); }, {a, row}},
      {"hypot", [](In t) { return t[0].hypot(t[1]); }, {a, b}},
      {"logaddexp", [](In t) { return t[0].logaddexp(t[1]); }, {a, row}},
      {"logaddexp2", [](In t) { return t[0].logaddexp2(t[1]); }, {a, b}},
      {"xlogy", [](In t) { return t[0].xlogy(t[1]); }, {a, pos}},
      {"float_power", [](In t) { return t[0].float_power(t[1]); }, {pos, b}},
      {"lerp", [](In t) { return t[0].lerp(t[1], t[2]); }, {a, b, w}},
      {"addcmul", [](In t) { return t[0].addcmul(t[1], t[2], 0.5); }, {a, b, row}},
      {"addcdiv", [](In t) { return t[0].addcdiv(t[1], t[2], -2); }, {a, b, pos}},
  });
}

TEST(Math, SincGradientIsZeroAtZero) {
  Tensor x = tensor({0.0, 1.0}).requires_grad_();
  x.sinc().sum().backward();
  EXPECT_EQ(x.grad().to_vector<double>()[0], 0.0);
  EXPECT_NEAR(x.grad().to_vector<double>()[1], -1.0, 1e-12);  // (pi cos pi - sin pi) / pi
}

TEST(Math, RoundingHasNoGradient) {
  Tensor x = tensor({1.25f, -2.5f, 3.75f}).requires_grad_();
  (x.floor() + x.ceil() + x.round() + x.trunc() + x.div(x + 2, "floor") + x.round(1)).sum().backward();
  EXPECT_EQ(x.grad().to_vector<float>(), (std::vector<float>{0, 0, 0}));
}

TEST(Math, InPlaceFormsMatchAndKeepHistory) {
  Tensor x = wave64({2, 3}) * 0.9;
  for (const auto& [name, op, inplace] :
       std::vector<std::tuple<std::string, std::function<Tensor(const Tensor&)>, std::function<void(Tensor&)>>>{
           {"tan_", [](const Tensor& t) { return t.tan(); }, [](Tensor& t) { t.tan_(); }},
           {"asin_", [](const Tensor& t) { return t.asin(); }, [](Tensor& t) { t.asin_(); }},
           {"floor_", [](const Tensor& t) { return (t * 5).floor(); }, [](Tensor& t) { t.mul_(5).floor_(); }},
           {"round_(2)", [](const Tensor& t) { return t.round(2); }, [](Tensor& t) { t.round_(2); }},
           {"div_ floor", [](const Tensor& t) { return t.div(0.3, "floor"); }, [](Tensor& t) { t.div_(0.3, "floor"); }},
           {"lerp_", [](const Tensor& t) { return t.lerp(t * 3, 0.7); }, [](Tensor& t) { t.lerp_(t * 3, 0.7); }},
           {"addcdiv_", [](const Tensor& t) { return t.addcdiv(t, t + 2); }, [](Tensor& t) { t.addcdiv_(t, t + 2); }},
           {"log10_", [](const Tensor& t) { return t.abs().log10(); }, [](Tensor& t) { t.abs_().log10_(); }},
           {"nan_to_num_", [](const Tensor& t) { return t.log().nan_to_num(); },
            [](Tensor& t) { t.log_().nan_to_num_(); }},
       }) {
    SCOPED_TRACE(name);
    Tensor y = x.clone();
    inplace(y);
    EXPECT_TENSOR_CLOSE(y, op(x), 1e-15, 1e-15);
  }
  // Through autograd: the in-place op on a non-leaf records its backward.
  Tensor leaf = (wave64({4}) * 0.9).requires_grad_();
  Tensor h = leaf * 1;
  h.atan_();
  h.sum().backward();
  EXPECT_TENSOR_CLOSE(leaf.grad(), (leaf.detach() * leaf.detach() + 1).reciprocal(), 1e-15, 1e-15);
  EXPECT_THROWS_WITH(leaf.tan_(), "a leaf Variable that requires grad is being used in an in-place operation");
}

TEST(Math, InPlaceResultMustFitTheDtype) {
  Tensor i = tensor({1, 2, 3});
  EXPECT_THROWS_WITH(i.tan_(), "tan_: result type Float can't be cast to the desired output type Long");
  EXPECT_THROWS_WITH(i.exp2_(), "exp2_: result type Float can't be cast to the desired output type Long");
  EXPECT_EQ(i.to_vector<int64_t>(), (std::vector<int64_t>{1, 2, 3}));  // untouched
  i.floor_();                                                          // integers stay integers
  i.floor_divide_(2);
  EXPECT_EQ(i.to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 1}));
  Tensor f = tensor({2.0f});
  EXPECT_THROWS_WITH(f.float_power_(2),
                     "float_power_: the base given to float_power_ has dtype Float but the operation's result "
                     "requires dtype Double");
  Tensor d = tensor({2.0}).to(kFloat64);
  d.float_power_(3);
  EXPECT_EQ(d.item<double>(), 8.0);
}

TEST(Math, LibtorchSpellings) {
  Tensor x = wave64({2, 3}) * 0.9, y = wave64({2, 3}, 1.1) + 2;
  EXPECT_TRUE(x.arcsin().equal(x.asin()));
  EXPECT_TRUE(x.arccos().equal(x.acos()));
  EXPECT_TRUE(x.arctan().equal(x.atan()));
  EXPECT_TRUE(x.arcsinh().equal(x.asinh()));
  EXPECT_TRUE(y.arccosh().equal(y.acosh()));
  EXPECT_TRUE(x.arctanh().equal(x.atanh()));
  EXPECT_TRUE(x.arctan2(y).equal(x.atan2(y)));
  EXPECT_TRUE((x * 4).fix().equal((x * 4).trunc()));
  EXPECT_TRUE(x.absolute().equal(x.abs()));
  EXPECT_TRUE(x.negative().equal(x.neg()));
  EXPECT_TRUE(x.clip(-0.5, 0.5).equal(x.clamp(-0.5, 0.5)));
  EXPECT_TRUE(x.multiply(y).equal(x.mul(y)));
  EXPECT_TRUE(x.divide(y).equal(x.div(y)));
  EXPECT_TRUE(x.divide(y, "trunc").equal(x.div(y, "trunc")));
  EXPECT_TRUE(x.true_divide(2).equal(x.div(2)));
  EXPECT_TRUE(x.subtract(y, 2).equal(x.sub(y, 2)));
  EXPECT_TRUE(x.greater(0).equal(x.gt(0)));
  EXPECT_TRUE(x.greater_equal(y).equal(x.ge(y)));
  EXPECT_TRUE(x.less(0).equal(x.lt(0)));
  EXPECT_TRUE(x.less_equal(y).equal(x.le(y)));
  EXPECT_TRUE(x.not_equal(x).equal(x.ne(x)));
  EXPECT_TRUE(x.div(y, std::nullopt).equal(x.div(y)));  // no rounding mode: true division
}

TEST(Math, EmulatedCudaMatchesCpu) {
  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  for (ScalarType dt : {kFloat32, kFloat64}) {
    SCOPED_TRACE(dtype_name(dt));
    const double tol = dt == kFloat64 ? 1e-12 : 1e-6;
    Tensor x = (wave64({3, 5}) * 0.9).to(dt), a = (wave64({3, 5}, 0.4) * 4.7).to(dt),
           b = (wave64({3, 5}, 1.1) * 1.5).to(dt);
    Tensor gx = x.to(kCUDA), ga = a.to(kCUDA), gb = b.to(kCUDA);
    for (const auto& f : std::vector<std::function<Tensor(const Tensor&)>>{
             [](const Tensor& t) { return t.tan(); }, [](const Tensor& t) { return t.asin(); },
             [](const Tensor& t) { return t.acos(); }, [](const Tensor& t) { return t.atan(); },
             [](const Tensor& t) { return t.sinh(); }, [](const Tensor& t) { return t.cosh(); },
             [](const Tensor& t) { return t.asinh(); }, [](const Tensor& t) { return (t + 2).acosh(); },
             [](const Tensor& t) { return t.atanh(); }, [](const Tensor& t) { return t.expm1(); },
             [](const Tensor& t) { return t.exp2(); }, [](const Tensor& t) { return (t + 2).log2(); },
             [](const Tensor& t) { return (t + 2).log10(); }, [](const Tensor& t) { return (t * 5).floor(); },
             [](const Tensor& t) { return (t * 5).ceil(); }, [](const Tensor& t) { return (t * 5).round(); },
             [](const Tensor& t) { return (t * 5).trunc(); }, [](const Tensor& t) { return t.sinc(); }}) {
      EXPECT_TENSOR_CLOSE(f(gx).cpu(), f(x), tol, tol);
    }
    for (const auto& f : std::vector<std::function<Tensor(const Tensor&, const Tensor&)>>{
             [](const Tensor&p, const Tensor&q) { return p.div(q, "floor"); },
             [](const Tensor&p, const Tensor&q) { return p.div(q, "trunc"); },
             [](const Tensor&p, const Tensor&q) { return p.atan2(q); },
             [](const Tensor&p, const Tensor&q) { return p.hypot(q); },
             [](const Tensor&p, const Tensor&q) { return p.logaddexp(q); },
             [](const Tensor&p, const Tensor&q) { return p.logaddexp2(q); },
             [](const Tensor&p, const Tensor&q) { return p.xlogy(q.abs()); },
             [](const Tensor&p, const Tensor&q) { return p.lerp(q, 0.7); }}) {
      EXPECT_TENSOR_CLOSE(f(ga, gb).cpu(), f(a, b), tol, tol);
    }
  }
  Tensor l = tensor({7, -7, 7, -7}), d = tensor({2, 2, -2, -2});
  EXPECT_EQ(l.to(kCUDA).div(d.to(kCUDA), "floor").cpu().to_vector<int64_t>(), (std::vector<int64_t>{3, -4, -4, 3}));
  EXPECT_EQ(l.to(kCUDA).div(d.to(kCUDA), "trunc").cpu().to_vector<int64_t>(), (std::vector<int64_t>{3, -3, -3, 3}));
  Tensor v = (wave64({4}) * 3).to(kCUDA).requires_grad_();
  v.atan2(v.detach() + 4).sum().backward();
  Tensor vc = v.detach().cpu().requires_grad_();
  vc.atan2(vc.detach() + 4).sum().backward();
  EXPECT_TENSOR_CLOSE(v.grad().cpu(), vc.grad(), 1e-12, 1e-12);
}

TEST(Math, BadInput) {
  Tensor f = tensor({1.0f, 2.0f}), i = tensor({4, 5}), z = tensor({1, 0}), b = tensor({true, false});
  EXPECT_THROWS_WITH(f.div(f, "round"),
                     "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found 'round'");
  EXPECT_THROWS_WITH(i.div(z, "floor"), "ZeroDivisionError: div: integer division by zero (divisor shape [2])");
  EXPECT_THROWS_WITH(i.floor_divide(0), "ZeroDivisionError");
  EXPECT_THROWS_WITH(b.div(b, "trunc"), "div: rounding_mode='trunc' is not implemented for 'Bool'");
  EXPECT_THROWS_WITH(b.floor(), "floor: not implemented for 'Bool' (input of shape [2])");
  EXPECT_THROWS_WITH(b.round(), "round: not implemented for 'Bool'");
  EXPECT_THROWS_WITH(i.frac(), "frac: not implemented for 'Long' (input of shape [2])");
  EXPECT_THROWS_WITH(i.round(2), "round: decimals=2 is not implemented for 'Long'");
  EXPECT_THROWS_WITH(i.hypot(i), "hypot: not implemented for 'Long' (shapes [2] and [2])");
  EXPECT_THROWS_WITH(i.logaddexp(i), "logaddexp: not implemented for 'Long'");
  EXPECT_THROWS_WITH(i.lerp(i, 0.5), "lerp: not implemented for 'Long'");
  EXPECT_THROWS_WITH(f.lerp(f.to(kFloat64), 0.5), "lerp: expected dtype float32 for `end` but got dtype float64");
  EXPECT_THROWS_WITH(f.lerp(f, f.to(kFloat64)), "lerp: expected dtype float32 for `weight` but got dtype float64");
  EXPECT_THROWS_WITH(i.addcdiv(i, i), "addcdiv: Integer division with addcdiv is no longer supported");
  EXPECT_THROWS_WITH(f.atan2(zeros({3})), "atan2");  // shapes that do not broadcast
}

}  // namespace
}  // namespace ember::test
