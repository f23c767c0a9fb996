// gradcheck and gradgradcheck as users call them: ops that pass (broadcast and non-contiguous
// inputs included), a wrong backward that must fail with a message naming input, output and
// element, and the usage errors (float32 inputs, no input requiring grad).
#include "test_util.h"

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;

namespace {

Tensor f64(std::vector<double> v) {
  return from_vector(v, {static_cast<int64_t>(v.size())}, dtype(kFloat64).requires_grad(true));
}

// Deterministic float64 inputs away from kinks: 0.5 + 0.4 sin(0.9 k + 0.2), shaped.
Tensor wave(IntArrayRef shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  Tensor t = ((arange(n, dtype(kFloat64)) * 0.9 + 0.2).sin() * 0.4 + 0.5).view(shape);
  return t.requires_grad_();
}

// A function whose backward is wrong on purpose: claims d/dx x^2 = 3x.
struct WrongSquare : autograd::Function<WrongSquare> {
  static Tensor forward(autograd::AutogradContext* ctx, Tensor x) {
    ctx->save_for_backward({x});
    return x * x;
  }
  static autograd::variable_list backward(autograd::AutogradContext* ctx, autograd::variable_list g) {
    return {g[0] * ctx->get_saved_variables()[0] * 3};
  }
};

}  // namespace

TEST(Gradcheck, PassesForOps) {
  struct Case {
    const char* name;
    std::function<tensor_list(const tensor_list&)> fn;
    tensor_list inputs;
  };
  const std::vector<Case> cases = {
      {"sin(x*x)", [](const tensor_list& in) { return tensor_list{(in[0] * in[0]).sin()}; }, {wave({3})}},
      {"broadcast mul", [](const tensor_list& in) { return tensor_list{in[0] * in[1]}; }, {wave({2, 3}), wave({3})}},
      {"matmul transposed",
       [](const tensor_list& in) { return tensor_list{in[0].t().matmul(in[1])}; },
       {wave({3, 2}), wave({3, 4})}},
      {"softmax two outputs",
       [](const tensor_list& in) {
         return tensor_list{in[0].softmax(1), in[0].sum(0)};
       },
       {wave({2, 3})}},
      {"div and log", [](const tensor_list& in) { return tensor_list{(in[0] / in[1]).log()}; }, {wave({4}), wave({4})}},
  };
  for (const Case& c : cases) EXPECT_TRUE(gradcheck(c.fn, c.inputs)) << c.name;
}

TEST(Gradcheck, NonContiguousInputAndSingleTensorForm) {
  Tensor base = wave({3, 4});
  Tensor x = base.detach().t().requires_grad_();  // (4, 3) non-contiguous leaf
  ASSERT_FALSE(x.is_contiguous());
  EXPECT_TRUE(gradcheck([](const tensor_list& in) { return (in[0].exp() * in[0]).sum(1); }, {x}));
  // The perturbation restored every element.
  EXPECT_TENSOR_CLOSE(x.detach(), base.detach().t());
}

TEST(Gradcheck, InputsNotRequiringGradAreConstants) {
  Tensor c = tensor({1.0, 2.0, 3.0}, dtype(kFloat64));
  EXPECT_TRUE(gradcheck([c](const tensor_list& in) { return in[0] * c + in[1]; }, {wave({3}), c}));
}

TEST(Gradcheck, WrongBackwardFailsNamingTheElement) {
  Tensor x = f64({0.5, -1.0, 2.0});
  // Worst element: d out[2] / d x[2]: numerical 2*2 = 4, analytical 3*2 = 6.
  EXPECT_THROWS_WITH(gradcheck([](const tensor_list& in) { return WrongSquare::apply(in[0]); }, {x}),
                     "gradcheck: Jacobian mismatch for output 0 (shape [3]) with respect to input 0 (shape [3]). Worst "
                     "element: d output[2] / d input[2]: numerical 4 vs analytical 6");
  EXPECT_FALSE(gradcheck([](const tensor_list& in) { return WrongSquare::apply(in[0]); }, {x}, 1e-6, 1e-5, 1e-3,
                         /*raise_exception=*/false));
}

TEST(Gradcheck, UsageErrors) {
  Tensor x32 = tensor({1.0f, 2.0f}, requires_grad());
  EXPECT_THROWS_WITH(gradcheck([](const tensor_list& in) { return in[0] * 2; }, {x32}),
                     "gradcheck: input 0 requires grad and is float32, not float64");
  Tensor plain = tensor({1.0, 2.0}, dtype(kFloat64));
  EXPECT_THROWS_WITH(gradcheck([](const tensor_list& in) { return in[0] * 2; }, {plain}),
                     "expects at least one input tensor to require gradient");
  EXPECT_THROWS_WITH(gradcheck([](const tensor_list& in) { return in[0].gt(0); }, {f64({1.0})}),
                     "returned no floating-point output");
}

TEST(Gradgradcheck, SecondDerivatives) {
  EXPECT_TRUE(gradgradcheck([](const tensor_list& in) { return in[0].tanh() * in[1]; }, {wave({3}), wave({3})}));
  EXPECT_TRUE(
      gradgradcheck([](const tensor_list& in) { return in[0].matmul(in[1]).sigmoid(); }, {wave({2, 3}), wave({3, 2})}));
  // Linear in x: the first-order gradient does not depend on x, second derivatives are zero.
  EXPECT_TRUE(gradgradcheck([](const tensor_list& in) { return in[0] * 3; }, {wave({2})}));
}
