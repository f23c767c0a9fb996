// Autograd behaviour a PyTorch user relies on: retain_graph, accumulation, no_grad, requires_grad
// propagation, detach (PyTorch 1.13 fixtures from scripts/gen_autograd_fixtures.py), the errors
// PyTorch raises, anomaly mode, the engine's visiting order, and that training steps do not grow
// memory. Hooks and retain_grad are in test_hooks.cpp, the EMBER_DEBUG trace in test_trace.cpp.
#include "fixture_json.h"
#include "test_util.h"

using namespace ember;
using autograd::Node;

namespace {

Tensor f64(std::vector<double> v, bool grad = true) {
  return from_vector(v, {static_cast<int64_t>(v.size())}, dtype(kFloat64).requires_grad(grad));
}

Tensor from_values(const nlohmann::json& v) {
  return from_vector(v.get<std::vector<double>>(), {static_cast<int64_t>(v.size())}, dtype(kFloat64));
}

}  // namespace

TEST(AutogradBehaviour, SecondBackwardNeedsRetainGraph) {
  Tensor x = f64({1.0, 2.0});
  Tensor loss = (x * x).exp().sum();
  loss.backward(Tensor(), /*retain_graph=*/true);
  loss.backward();  // allowed: the first call kept the graph
  // d/dx sum exp(x^2) = 2x exp(x^2), twice
  EXPECT_TENSOR_CLOSE(x.grad(), tensor({4 * std::exp(1.0), 8 * std::exp(4.0)}, kFloat64));
  EXPECT_THROWS_WITH(loss.backward(), "trying to backward through the graph a second time");
  EXPECT_THROWS_WITH(loss.backward(), "Specify retain_graph=true");
}

TEST(AutogradBehaviour, GradientsAccumulateAcrossBackwardCalls) {
  const auto fx = test::load_fixture("autograd/behaviour.json")["accumulation"];
  // torch: x = [1, -2]; (x*x).sum().backward(); (x*3).sum().backward(); x.grad = None; x.exp().backward([1, .5])
  Tensor x = f64({1.0, -2.0});
  (x * x).sum().backward();
  EXPECT_TENSOR_CLOSE(x.grad(), from_values(fx["first"]));
  (x * 3).sum().backward();
  EXPECT_TENSOR_CLOSE(x.grad(), from_values(fx["second"]));
  x.set_grad(Tensor());
  x.exp().backward(tensor({1.0, 0.5}, kFloat64));
  EXPECT_TENSOR_CLOSE(x.grad(), from_values(fx["explicit"]));
}

TEST(AutogradBehaviour, NoGradAndGradModeGuards) {
  Tensor x = f64({1.0, 2.0});
  EXPECT_TRUE(GradMode::is_enabled());
  {
    NoGradGuard no_grad;
    EXPECT_FALSE(GradMode::is_enabled());
    Tensor y = x * 2;
    EXPECT_FALSE(y.requires_grad());
    EXPECT_EQ(y.grad_fn(), nullptr);
    {
      EnableGradGuard enable;
      EXPECT_TRUE((x * 2).requires_grad());
    }
    EXPECT_FALSE(GradMode::is_enabled());
  }
  EXPECT_TRUE(GradMode::is_enabled());
  EXPECT_TRUE((x * 2).requires_grad());
}

TEST(AutogradBehaviour, RequiresGradPropagation) {
  Tensor a = f64({1.0, 2.0});
  Tensor c = f64({3.0, 4.0}, false);
  Tensor y = a * c;
  EXPECT_TRUE(y.requires_grad());
  EXPECT_FALSE(y.is_leaf());
  EXPECT_EQ(y.grad_fn()->name(), "MulBackward0");
  EXPECT_FALSE((c * c).requires_grad());
  EXPECT_TRUE(a.is_leaf());
  EXPECT_THROWS_WITH(y.requires_grad_(false), "you can only change requires_grad flags of leaf variables");
  EXPECT_THROWS_WITH(tensor({1, 2}).requires_grad_(), "only Tensors of floating point dtype can require gradients");
  // A non-leaf's .grad() is not kept unless retain_grad() was called.
  y.sum().backward();
  EXPECT_FALSE(y.grad().defined());
  EXPECT_TENSOR_CLOSE(a.grad(), tensor({3.0, 4.0}, kFloat64));
}

TEST(AutogradBehaviour, DetachSharesDataButNotHistory) {
  Tensor x = f64({1.0, 2.0});
  Tensor y = x * 2;
  Tensor d = y.detach();
  EXPECT_FALSE(d.requires_grad());
  EXPECT_TRUE(d.is_alias_of(y));
  (y * d).sum().backward();  // d is a constant: d/dx (2x * d) = 2d
  EXPECT_TENSOR_CLOSE(x.grad(), tensor({4.0, 8.0}, kFloat64));

  // Writing through the detached alias is seen by the saved tensor's version counter.
  Tensor z = x.exp();
  Tensor alias = z.detach();
  alias.add_(1);
  EXPECT_THROWS_WITH(z.sum().backward(),
                     "ExpBackward0: one of the variables needed for gradient computation has been "
                     "modified by an inplace operation");
}

TEST(AutogradBehaviour, EngineVisitsNodesInPyTorchOrder) {
  // The global node hook sees each node once, consumers before producers.
  Tensor x = f64({1.0, 2.0});
  Tensor w = f64({3.0, 4.0});
  Tensor loss = (x * w).tanh().sum();
  std::vector<std::string> visited;
  autograd::set_node_hook(
      [&](const Node& n, const tensor_list& in, const tensor_list& out) { visited.push_back(n.name()); });
  loss.backward();
  autograd::set_node_hook(nullptr);
  EXPECT_EQ(visited, std::vector<std::string>(
                         {"SumBackward0", "TanhBackward0", "MulBackward0", "AccumulateGrad", "AccumulateGrad"}));
}

TEST(AutogradBehaviour, ErrorsPyTorchRaises) {
  Tensor x = f64({1.0, 2.0});
  EXPECT_THROWS_WITH((x * 2).backward(), "grad can be implicitly created only for scalar outputs (got shape [2])");
  EXPECT_THROWS_WITH((x * 2).backward(ones({3}, kFloat64)), "mismatch in shape");
  EXPECT_THROWS_WITH(x.mul_(2), "a leaf Variable that requires grad is being used in an in-place operation");
  EXPECT_THROWS_WITH(f64({1.0}, false).sum().backward(), "does not require grad and does not have a grad_fn");
  // A saved input written in place after the op that needs it: MulBackward0 saved h.
  Tensor h = x * 1;
  Tensor y = h * h;
  h.add_(1);
  EXPECT_THROWS_WITH(y.sum().backward(), "is at version 1; expected version 0 instead");
}

TEST(AutogradBehaviour, AnomalyModeNamesTheForwardOp) {
  // d/dx sqrt(x) at 0 is inf; times a zero gradient it is nan (as in PyTorch).
  Tensor x = f64({0.0, 1.0});
  x.set_name("x");
  {
    Tensor loss = (x.sqrt() * 0).sum();
    loss.backward();  // anomaly mode off: the nan just lands in x.grad
    EXPECT_TRUE(std::isnan(x.grad()[0].item<double>()));
  }
  autograd::DetectAnomalyGuard anomaly;
  Tensor loss = (x.sqrt() * 0).sum();
  EXPECT_THROWS_WITH(loss.backward(),
                     "Function 'SqrtBackward0' returned nan values in its 0th output (the gradient "
                     "for input 0 of the forward op, shape [2]). Forward op inputs: x [2] float64. "
                     "The gradient flowing into this node was finite");
}

TEST(AutogradBehaviour, TrainingStepsDoNotGrowMemory) {
  // A 4-8-1 MLP on fixed data, 200 SGD steps. After each step the graph must be gone.
  Tensor x = (arange(64, kFloat64) * 0.37).sin().view({16, 4});
  Tensor target = (arange(16, kFloat64) * 0.5).cos().view({16, 1});
  Tensor w1 = ((arange(32, kFloat64) * 0.91).sin() * 0.5).view({4, 8}).requires_grad_();
  Tensor b1 = zeros({8}, kFloat64).requires_grad_();
  Tensor w2 = ((arange(8, kFloat64) * 1.3).cos() * 0.5).view({8, 1}).requires_grad_();
  Tensor b2 = zeros({1}, kFloat64).requires_grad_();
  const tensor_list params = {w1, b1, w2, b2};

  int64_t nodes_during_step = 0;
  auto step = [&] {
    Tensor loss = ((x.matmul(w1) + b1).relu().matmul(w2) + b2 - target).pow(2).mean();
    nodes_during_step = Node::live_count();
    loss.backward();
    NoGradGuard no_grad;
    for (const Tensor& p : params) {
      Tensor(p).sub_(p.grad() * 0.1);
      p.mutable_grad().zero_();
    }
    return loss.item<double>();
  };
  const double first_loss = step();
  const int64_t nodes = Node::live_count();
  const int64_t bytes = storage_bytes_in_use();
  double last_loss = first_loss;
  for (int i = 0; i < 200; ++i) last_loss = step();
  EXPECT_GT(nodes_during_step, nodes + 8);  // the counter does see the graph while it exists
  EXPECT_EQ(Node::live_count(), nodes);
  EXPECT_EQ(storage_bytes_in_use(), bytes);
  EXPECT_LT(last_loss, first_loss);  // and the steps did train
}
