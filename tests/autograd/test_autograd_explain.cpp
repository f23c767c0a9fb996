// autograd/explain.h: the graph as a text tree, and backward explained node by node. The local
// derivatives the explainer computes from forward values are checked against central finite
// differences of the op itself (float64), and g x local against what the engine sent.
#include <cmath>
#include <functional>

#include "autograd/explain.h"
#include "test_util.h"

using namespace ember;
using autograd::ChainRuleStep;

namespace {

constexpr double kStep = 1e-6;       // finite-difference step
constexpr double kTolerance = 1e-7;  // central differences in float64 at kStep are good to ~1e-9

Tensor leaf(double v, const std::string& name) {
  Tensor t = tensor(v, dtype(kFloat64).requires_grad(true));
  t.set_name(name);
  return t;
}

using Op = std::function<Tensor(const Tensor&, const Tensor&)>;

// (f(a + h, b) - f(a - h, b)) / 2h, or the same in b.
double finite_difference(const Op& f, double a, double b, size_t wrt) {
  NoGradGuard no_grad;
  auto at = [&](double da, double db) {
    return f(tensor(a + da, dtype(kFloat64)), tensor(b + db, dtype(kFloat64))).item<double>();
  };
  return wrt == 0 ? (at(kStep, 0) - at(-kStep, 0)) / (2 * kStep) : (at(0, kStep) - at(0, -kStep)) / (2 * kStep);
}

}  // namespace

TEST(AutogradExplain, LocalDerivativesMatchFiniteDifferences) {
  struct Case {
    const char* node;
    Op f;
    size_t inputs;  // 1: f uses a only
  };
  const std::vector<Case> cases = {
      {"AddBackward0", [](const Tensor& a, const Tensor& b) { return a + b; }, 2},
      {"SubBackward0", [](const Tensor& a, const Tensor& b) { return a - b; }, 2},
      {"MulBackward0", [](const Tensor& a, const Tensor& b) { return a * b; }, 2},
      {"DivBackward0", [](const Tensor& a, const Tensor& b) { return a / b; }, 2},
      {"NegBackward0", [](const Tensor& a, const Tensor&) { return -a; }, 1},
      {"TanhBackward0", [](const Tensor& a, const Tensor&) { return a.tanh(); }, 1},
      {"SigmoidBackward0", [](const Tensor& a, const Tensor&) { return a.sigmoid(); }, 1},
      {"ExpBackward0", [](const Tensor& a, const Tensor&) { return a.exp(); }, 1},
      {"LogBackward0", [](const Tensor& a, const Tensor&) { return a.log(); }, 1},
      {"SinBackward0", [](const Tensor& a, const Tensor&) { return a.sin(); }, 1},
      {"CosBackward0", [](const Tensor& a, const Tensor&) { return a.cos(); }, 1},
      {"ReluBackward0", [](const Tensor& a, const Tensor&) { return a.relu(); }, 1},
      {"SumBackward0", [](const Tensor& a, const Tensor&) { return a.sum(); }, 1},
  };
  const double a_value = 0.7, b_value = -1.3;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.node);
    Tensor a = leaf(a_value, "a"), b = leaf(b_value, "b");
    // y = f(a, b) * 3: the node under test receives g = 3, not 1, so local and g x local differ.
    Tensor y = c.f(a, c.inputs == 2 ? b : b.detach()).set_name("y");
    Tensor loss = (y * 3.0).set_name("loss");
    const std::vector<ChainRuleStep> steps = autograd::explain_backward(loss, {y});
    // The step of the node that made y (loss = y * 3 is a MulBackward0 too, of a constant).
    auto it = std::find_if(steps.begin(), steps.end(), [&](const ChainRuleStep& s) { return s.output == "y"; });
    ASSERT_NE(it, steps.end()) << autograd::format_steps(steps);
    EXPECT_EQ(it->node, c.node);
    EXPECT_NEAR(it->grad.item<double>(), 3.0, 1e-15);
    ASSERT_EQ(it->inputs.size(), c.inputs) << autograd::format_steps(steps);
    for (size_t i = 0; i < c.inputs; ++i) {
      const ChainRuleStep::Input& in = it->inputs[i];
      EXPECT_EQ(in.name, i == 0 ? "a" : "b");
      ASSERT_TRUE(in.local.defined()) << c.node << " input " << i;
      EXPECT_NEAR(in.local.item<double>(), finite_difference(c.f, a_value, b_value, i), kTolerance)
          << c.node << " input " << i;
      EXPECT_NEAR(in.grad.item<double>(), 3.0 * in.local.item<double>(), 1e-12);
      EXPECT_LT(in.max_difference, 1e-12);
    }
    // The leaves' AccumulateGrad steps close the list, and the gradients reached the leaves.
    EXPECT_NEAR(a.grad().item<double>(), 3.0 * finite_difference(c.f, a_value, b_value, 0), kTolerance);
  }
}

// Broadcasting: d(a * b)/db is a, in the output's shape; summed over the broadcast rows it is what
// the engine sent b. The explainer reports the agreement as max_difference.
TEST(AutogradExplain, BroadcastLocalDerivativeReducesToTheEngineGradient) {
  Tensor a = ((arange(6, dtype(kFloat64)) * 0.3).sin()).view({2, 3}).requires_grad_().set_name("a");
  Tensor b = tensor({0.5, -1.5, 2.0}, dtype(kFloat64).requires_grad(true)).set_name("b");
  Tensor y = (a * b).set_name("y");
  Tensor loss = y.tanh().sum().set_name("loss");
  const auto steps = autograd::explain_backward(loss, {y});
  auto mul = std::find_if(steps.begin(), steps.end(), [](const ChainRuleStep& s) { return s.node == "MulBackward0"; });
  ASSERT_NE(mul, steps.end());
  ASSERT_EQ(mul->inputs.size(), 2u);
  EXPECT_EQ(mul->inputs[1].local.sizes().vec(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(mul->inputs[1].grad.sizes().vec(), (std::vector<int64_t>{3}));
  EXPECT_TRUE(allclose(mul->inputs[1].local, a.detach()));
  EXPECT_LT(mul->inputs[1].max_difference, 1e-12);
  const std::string text = autograd::format_steps(steps);
  EXPECT_NE(text.find("MulBackward0"), std::string::npos);
  EXPECT_NE(text.find("differs from the engine by"), std::string::npos) << text;
}

// Matmul has no elementwise local derivative: the step says so instead of inventing one.
TEST(AutogradExplain, NodesWithoutARuleSaySo) {
  Tensor a = tensor({{1.0, 2.0}}, dtype(kFloat64).requires_grad(true)).set_name("a");
  Tensor b = tensor({{3.0}, {4.0}}, dtype(kFloat64).requires_grad(true)).set_name("b");
  const auto steps = autograd::explain_backward(a.matmul(b).sum(), {});
  const std::string text = autograd::format_steps(steps);
  EXPECT_NE(text.find("no local derivative here"), std::string::npos) << text;
  EXPECT_NEAR(a.grad()[0][1].item<double>(), 4.0, 1e-15);
}

// The neuron of the tour: the tree names each node's tensor and shows leaves by name, in the order
// of the node's inputs; the backward text shows local x g = product per input.
TEST(AutogradExplain, NeuronTreeAndSteps) {
  Tensor x1 = leaf(2.0, "x1"), w1 = leaf(-3.0, "w1"), b = leaf(6.8813735870195432, "b");
  Tensor n = (x1 * w1 + b).set_name("n");
  Tensor o = n.tanh().set_name("o");
  EXPECT_EQ(autograd::graph_tree(o, {n}),
            "  o = TanhBackward0\n"
            "    n = AddBackward0\n"
            "      MulBackward0\n"
            "        AccumulateGrad (leaf x1)\n"
            "        AccumulateGrad (leaf w1)\n"
            "      AccumulateGrad (leaf b)\n");
  const std::string text = autograd::format_steps(autograd::explain_backward(o, {n}));
  EXPECT_NE(text.find("TanhBackward0    g = dL/do = 1.0000"), std::string::npos) << text;
  EXPECT_NE(text.find("dL/dn            =  0.5000 x 1.0000 =  0.5000"), std::string::npos) << text;
  EXPECT_NE(text.find("AccumulateGrad   b.grad += 0.5000"), std::string::npos) << text;
  // The unnamed product x1 * w1: its inputs are leaves, so its local derivatives are still known.
  EXPECT_NE(text.find("dL/dx1           = -3.0000 x 0.5000 = -1.5000"), std::string::npos) << text;
}

TEST(AutogradExplain, BadInputIsAClearError) {
  Tensor x = leaf(1.0, "x");
  EXPECT_THROWS_WITH(autograd::explain_backward(x), "explain_backward: the tensor has no graph");
  Tensor v = tensor({1.0, 2.0}, dtype(kFloat64).requires_grad(true));
  EXPECT_THROWS_WITH(autograd::explain_backward(v * 2), "the root must have one element (a loss), got shape [2]");
  EXPECT_THROWS_WITH(autograd::graph_tree(Tensor()), "graph_tree: the tensor is undefined");
  EXPECT_EQ(autograd::graph_tree(x), "  x (a leaf: requires grad, no graph above it)\n");
  // A backward that throws leaves no hook behind: a later backward runs normally.
  Tensor y = (x * x).set_name("y");
  y.backward();
  EXPECT_THROWS_WITH(autograd::explain_backward(y), "");
  Tensor z = (x * 3.0);
  z.backward();
  EXPECT_NEAR(x.grad().item<double>(), 2.0 + 3.0, 1e-15);
}
