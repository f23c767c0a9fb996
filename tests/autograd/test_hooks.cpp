// Gradient hooks as a PyTorch user knows them, against PyTorch 1.13 (tests/fixtures/hooks/*.json,
// written by scripts/gen_hook_fixtures.py): Tensor::register_hook on leaves and non-leaves,
// remove_hook, retain_grad, and the engine's node hook (autograd::set_node_hook), whose visiting
// order and gradients in and out must be those of PyTorch's Node post-hooks. Each case repeats the
// PyTorch snippet in its comment; the fixture holds what PyTorch's hooks saw.
#include "fixture_json.h"
#include "test_util.h"

using namespace ember;
using autograd::Node;
using test::tensor_from_json;

namespace {

Tensor leaf(std::vector<double> v) {
  return from_vector(v, {static_cast<int64_t>(v.size())}, dtype(kFloat64).requires_grad(true));
}

// The constant weights c = [1, 2, 3] of the script (made on use: no tensors built before main).
Tensor c() { return tensor({1.0, 2.0, 3.0}, kFloat64); }

// ((arange(rows * cols) * 0.7 + phase).sin() * scale).view(rows, cols), float64: the script's ramp().
Tensor ramp(int64_t rows, int64_t cols, double phase, double scale = 0.5) {
  return ((arange(rows * cols, kFloat64) * 0.7 + phase).sin() * scale).view({rows, cols});
}

// Hooks that log (name, gradient seen) in call order, then return what `fn` makes of the gradient.
struct Recorder {
  std::vector<std::pair<std::string, Tensor>> calls;

  std::function<Tensor(const Tensor&)> hook(
      const std::string& name, std::function<Tensor(const Tensor&)> fn = [](const Tensor&) { return Tensor(); }) {
    return [this, name, fn](const Tensor& g) {
      calls.emplace_back(name, g.clone());
      return fn(g);
    };
  }

  // The calls must be those of the fixture: same names, same order, same gradients.
  void expect_calls(const nlohmann::json& expected) const {
    ASSERT_EQ(calls.size(), expected.size()) << "number of hook calls";
    for (size_t i = 0; i < calls.size(); ++i) {
      EXPECT_EQ(calls[i].first, expected[i]["name"].get<std::string>()) << "call " << i;
      EXPECT_TENSOR_CLOSE(calls[i].second, tensor_from_json(expected[i]["grad"]))
          << "call " << i << " (" << calls[i].first << ")";
    }
  }
};

Tensor values(const nlohmann::json& v) {
  return from_vector(v.get<std::vector<double>>(), {static_cast<int64_t>(v.size())}, dtype(kFloat64));
}

const nlohmann::json& tensor_hooks() {
  static const nlohmann::json fx = test::load_fixture("hooks/tensor_hooks.json");
  return fx;
}

}  // namespace

TEST(TensorHooks, LeafInspect) {
  const auto& fx = tensor_hooks()["leaf_inspect"];
  // x = [1, 2, 3] (leaf); x.register_hook(inspect); ((x * x) * c).sum().backward()
  Recorder rec;
  Tensor x = leaf({1.0, 2.0, 3.0});
  x.register_hook(rec.hook("x"));
  ((x * x) * c()).sum().backward();
  rec.expect_calls(fx["calls"]);
  EXPECT_TENSOR_CLOSE(x.grad(), tensor_from_json(fx["x_grad"]));
}

TEST(TensorHooks, LeafModifyByReturning) {
  const auto& fx = tensor_hooks()["leaf_modify"];
  // the same with x.register_hook(lambda g: g * 2): the leaf's .grad is the hook's result
  Recorder rec;
  Tensor x = leaf({1.0, 2.0, 3.0});
  x.register_hook(rec.hook("x", [](const Tensor& g) { return g * 2; }));
  ((x * x) * c()).sum().backward();
  rec.expect_calls(fx["calls"]);
  EXPECT_TENSOR_CLOSE(x.grad(), tensor_from_json(fx["x_grad"]));
}

TEST(TensorHooks, NonLeafModifyByReturning) {
  const auto& fx = tensor_hooks()["nonleaf_modify"];
  // y = x.exp() (non-leaf); y.register_hook(lambda g: g + 1); (y * c).sum().backward()
  Recorder rec;
  Tensor x = leaf({0.5, -1.0, 2.0});
  Tensor y = x.exp();
  y.register_hook(rec.hook("y", [](const Tensor& g) { return g + 1; }));
  (y * c()).sum().backward();
  rec.expect_calls(fx["calls"]);
  EXPECT_TENSOR_CLOSE(x.grad(), tensor_from_json(fx["x_grad"]));  // (c + 1) * exp(x)
}

TEST(TensorHooks, LeafKeepsAPrivateGradientWhenAHookReturnsAViewOfATensorItHolds) {
  // AccumulateGrad keeps the incoming buffer only when nothing else can reach it. A view whose base
  // the test still holds must be copied, or writing to `held` would change x.grad().
  Tensor held = zeros({2, 3}, dtype(kFloat64));
  Tensor x = leaf({1.0, 2.0, 3.0});
  x.register_hook([&held](const Tensor&) { return held.view({6}).narrow(0, 0, 3); });  // a view of a view
  Tensor y = leaf({1.0, 2.0, 3.0});
  y.register_hook([&held](const Tensor&) { return held.select(0, 1); });
  (x + y).sum().backward();
  held.fill_(7.0);
  EXPECT_TRUE(x.grad().equal(zeros({3})));
  EXPECT_TRUE(y.grad().equal(zeros({3})));
  // a view of a temporary nobody holds is kept as it is: the Linear weight's transposed gradient
  Tensor w = leaf({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}).view({2, 3}).detach().requires_grad_(true);
  Tensor in = ones({4, 3}, dtype(w.dtype()));
  in.mm(w.t()).sum().backward();
  EXPECT_TRUE(w.grad().is_contiguous());
  EXPECT_TRUE(w.grad().equal(full({2, 3}, 4.0, dtype(w.dtype()))));
}

TEST(TensorHooks, HookOnANonLeafUnderGradWithCreateGraph) {
  // x = [1, 2, 3], y = x * x with y's hook g -> 3 g, z = sum(y * c), c = [1, 2, 3]. By hand:
  // dz/dx = 3 c * 2 x = [6, 24, 54], and its graph runs through the hook's result: d sum(dz/dx)/dx = 6 c.
  Tensor x = leaf({1.0, 2.0, 3.0});
  Tensor y = x * x;
  int calls = 0;
  y.register_hook([&calls](const Tensor& g) {
    ++calls;
    return g * 3;
  });
  Tensor dx = autograd::grad({(y * c()).sum()}, {x}, {}, std::nullopt, /*create_graph=*/true)[0];
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(dx.requires_grad());
  EXPECT_TENSOR_CLOSE(dx, tensor({6.0, 24.0, 54.0}, kFloat64), 0, 0);
  Tensor ddx = autograd::grad({dx.sum()}, {x})[0];
  EXPECT_EQ(calls, 1);  // the second pass does not go back through y
  EXPECT_TENSOR_CLOSE(ddx, tensor({6.0, 12.0, 18.0}, kFloat64), 0, 0);
}

TEST(TensorHooks, SeveralHooksRunInRegistrationOrder) {
  const auto& fx = tensor_hooks()["several_hooks_in_order"];
  // y = x.sin(); y hooks: g * 2, inspect, g - 1; x hooks: inspect, g * 10; (y * c).sum().backward()
  Recorder rec;
  Tensor x = leaf({0.3, 1.1, -0.7});
  Tensor y = x.sin();
  y.register_hook(rec.hook("y1", [](const Tensor& g) { return g * 2; }));
  y.register_hook(rec.hook("y2"));
  y.register_hook(rec.hook("y3", [](const Tensor& g) { return g - 1; }));
  x.register_hook(rec.hook("x1"));
  x.register_hook(rec.hook("x2", [](const Tensor& g) { return g * 10; }));
  (y * c()).sum().backward();
  rec.expect_calls(fx["calls"]);  // y2 sees y1's result, y3 too; x1 sees (2c - 1) cos(x)
  EXPECT_TENSOR_CLOSE(x.grad(), tensor_from_json(fx["x_grad"]));
}

TEST(TensorHooks, RemovedHooksDoNotRun) {
  const auto& fx = tensor_hooks()["removed_hooks"];
  // y = x * 3; h1 = y.register_hook(g * 100); y.register_hook(g * 2); h2 = x.register_hook(g * 100);
  // h1.remove(); h2.remove(); (y * c).sum().backward()
  Recorder rec;
  Tensor x = leaf({1.0, 2.0, 3.0});
  Tensor y = x * 3;
  const unsigned h1 = y.register_hook(rec.hook("y_removed", [](const Tensor& g) { return g * 100; }));
  y.register_hook(rec.hook("y_kept", [](const Tensor& g) { return g * 2; }));
  const unsigned h2 = x.register_hook(rec.hook("x_removed", [](const Tensor& g) { return g * 100; }));
  y.remove_hook(h1);
  x.remove_hook(h2);
  (y * c()).sum().backward();
  rec.expect_calls(fx["calls"]);
  EXPECT_TENSOR_CLOSE(x.grad(), tensor_from_json(fx["x_grad"]));
}

TEST(TensorHooks, TensorUsedTwiceRunsItsHookOnceOnTheSum) {
  const auto& fx = tensor_hooks()["used_twice"];
  // x.register_hook(inspect); y = x * 2; y.register_hook(inspect); ((y * y) + y.sin() + x * x).sum().backward()
  Recorder rec;
  Tensor x = leaf({0.5, 1.5, -1.0});
  x.register_hook(rec.hook("x"));
  Tensor y = x * 2;
  y.register_hook(rec.hook("y"));
  ((y * y) + y.sin() + x * x).sum().backward();
  rec.expect_calls(fx["calls"]);  // y: 2y + cos(y); x: 2 (2y + cos(y)) + 2x
  EXPECT_TENSOR_CLOSE(x.grad(), tensor_from_json(fx["x_grad"]));
}

TEST(TensorHooks, RetainGradOnNonLeaf) {
  const auto& fx = tensor_hooks()["retain_grad_nonleaf"];
  // y = x * x; y.retain_grad(); (y * c).sum().backward()
  Tensor x = leaf({1.0, 2.0, 3.0});
  Tensor y = x * x;
  EXPECT_FALSE(y.retains_grad());
  y.retain_grad();
  EXPECT_EQ(y.retains_grad(), fx["retains_grad"].get<bool>());
  (y * c()).sum().backward();
  EXPECT_TENSOR_CLOSE(y.grad(), tensor_from_json(fx["y_grad"]));
  EXPECT_TENSOR_CLOSE(x.grad(), tensor_from_json(fx["x_grad"]));
}

TEST(TensorHooks, RetainGradAccumulatesOverTwoBackwards) {
  const auto& fx = tensor_hooks()["retain_grad_two_backwards"];
  // y = x.tanh(); y.retain_grad(); y.register_hook(inspect); loss = (y * c).sum()
  // loss.backward(retain_graph=True); loss.backward()
  Recorder rec;
  Tensor x = leaf({1.0, 2.0, 3.0});
  Tensor y = x.tanh();
  y.retain_grad();
  y.register_hook(rec.hook("y"));
  Tensor loss = (y * c()).sum();
  loss.backward(Tensor(), /*retain_graph=*/true);
  EXPECT_TENSOR_CLOSE(y.grad(), tensor_from_json(fx["first_y_grad"]));
  EXPECT_TENSOR_CLOSE(x.grad(), tensor_from_json(fx["first_x_grad"]));
  loss.backward();
  rec.expect_calls(fx["calls"]);  // the hook runs once per backward
  EXPECT_TENSOR_CLOSE(y.grad(), tensor_from_json(fx["y_grad"]));
  EXPECT_TENSOR_CLOSE(x.grad(), tensor_from_json(fx["x_grad"]));
}

TEST(TensorHooks, RetainGradOnLeafIsANoOp) {
  const auto& fx = tensor_hooks()["retain_grad_leaf"];
  // x.retain_grad(); (x * c).sum().backward()
  Tensor x = leaf({1.0, 2.0, 3.0});
  x.retain_grad();
  EXPECT_EQ(x.retains_grad(), fx["retains_grad"].get<bool>());  // false: leaves keep .grad anyway
  (x * c()).sum().backward();
  EXPECT_TENSOR_CLOSE(x.grad(), tensor_from_json(fx["x_grad"]));
}

TEST(TensorHooks, RetainGradIsAHookInRegistrationOrder) {
  const auto fx = test::load_fixture("autograd/behaviour.json")["hooks"];  // scripts/gen_autograd_fixtures.py
  // As in PyTorch 1.13, retain_grad is one more hook on y: it keeps the gradient as it is at its place.
  // torch: x = [1, 2, 3]; x.register_hook(g -> g * 10); y = x * x; y.retain_grad() before or after
  // y.register_hook(g -> g * 2); (y * [1, 2, 3]).sum().backward()
  for (const std::string order : {"retain_first", "hook_first"}) {
    const auto& c = fx[order];
    std::vector<std::string> calls;
    tensor_list seen;
    Tensor x = leaf({1.0, 2.0, 3.0});
    x.register_hook([&](const Tensor& g) {
      calls.push_back("x");
      seen.push_back(g.clone());
      return g * 10;
    });
    Tensor y = x * x;
    if (order == "retain_first") y.retain_grad();
    y.register_hook([&](const Tensor& g) {
      calls.push_back("y");
      seen.push_back(g.clone());
      return g * 2;
    });
    if (order == "hook_first") y.retain_grad();
    (y * tensor({1.0, 2.0, 3.0}, kFloat64)).sum().backward();
    const std::vector<std::string> expected_calls = c["calls"];
    EXPECT_EQ(calls, expected_calls) << order;
    ASSERT_EQ(seen.size(), 2u);
    EXPECT_TENSOR_CLOSE(seen[0], values(c["call_grads"][0])) << order;
    EXPECT_TENSOR_CLOSE(seen[1], values(c["call_grads"][1])) << order;
    EXPECT_TENSOR_CLOSE(y.grad(), values(c["y_grad"])) << order;
    EXPECT_TENSOR_CLOSE(x.grad(), values(c["x_grad"])) << order;
  }
}

TEST(TensorHooks, BadInputIsAClearError) {
  Tensor constant = tensor({1.0, 2.0}, kFloat64);
  EXPECT_THROWS_WITH(constant.register_hook([](const Tensor& g) { return g; }),
                     "register_hook: cannot register a hook on a tensor that doesn't require gradient");
  EXPECT_THROWS_WITH(constant.retain_grad(), "can't retain_grad on Tensor that has requires_grad=False");

  // A hook must give back a gradient of the tensor's shape; one that does not stops backward.
  Tensor x = leaf({1.0, 2.0, 3.0});
  Tensor y = x * 2;
  y.register_hook([](const Tensor& g) { return g.sum(); });
  EXPECT_THROWS_WITH(y.sum().backward(),
                     "register_hook: a hook on the tensor made by MulBackward0 (output 0) returned a "
                     "gradient of shape [] float64, but the gradient must have the tensor's shape "
                     "[3] and dtype float64");
  Tensor w = leaf({1.0, 2.0});
  w.set_name("w");
  w.register_hook([](const Tensor& g) { return cat({g, g}); });
  EXPECT_THROWS_WITH((w * 3).sum().backward(),
                     "a hook on the leaf tensor 'w' returned a gradient of shape [4] float64, "
                     "but the gradient must have the tensor's shape [2]");
  EXPECT_FALSE(w.grad().defined());  // nothing was accumulated
  Tensor v = leaf({1.0, 2.0});
  v.register_hook([](const Tensor& g) { return g.to(kFloat32); });
  EXPECT_THROWS_WITH(v.sum().backward(),
                     "returned a gradient of shape [2] float32, but the gradient must have the "
                     "tensor's shape [2] and dtype float64");
}

// ---- the engine's node hook: which node runs when, with which gradients ----

namespace {

struct Visit {
  std::string name;
  tensor_list grads_in, grads_out;
};

// Runs loss.backward() with a node hook that records every node; PyTorch's order and gradients
// come from Node post-hooks (grad_outputs = what flowed in, grad_inputs = what the node produced).
std::vector<Visit> record_visits(const Tensor& loss) {
  std::vector<Visit> visits;
  autograd::set_node_hook([&](const Node& n, const tensor_list& in, const tensor_list& out) {
    visits.push_back({n.name(), in, out});
  });
  try {
    loss.backward();
  } catch (...) {
    autograd::set_node_hook(nullptr);
    throw;
  }
  autograd::set_node_hook(nullptr);
  return visits;
}

void expect_grads(const tensor_list& got, const nlohmann::json& expected, const std::string& what) {
  ASSERT_EQ(got.size(), expected.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    if (expected[i].is_null()) {
      EXPECT_FALSE(got[i].defined()) << what << " [" << i << "]: PyTorch has no gradient here";
      continue;
    }
    ASSERT_TRUE(got[i].defined()) << what << " [" << i << "]";
    EXPECT_TENSOR_CLOSE(got[i], tensor_from_json(expected[i])) << what << " [" << i << "]";
  }
}

void expect_visits(const std::vector<Visit>& visits, const nlohmann::json& expected) {
  std::vector<std::string> names, expected_names;
  for (const Visit& v : visits) names.push_back(v.name);
  for (const auto& v : expected) expected_names.push_back(v["name"]);
  ASSERT_EQ(names, expected_names) << "the order in which the engine ran the nodes";
  for (size_t i = 0; i < visits.size(); ++i) {
    const std::string what = fmt::format("node {} ({})", i, names[i]);
    expect_grads(visits[i].grads_in, expected[i]["grads_in"], what + " gradients in");
    expect_grads(visits[i].grads_out, expected[i]["grads_out"], what + " gradients out");
  }
}

}  // namespace

TEST(NodeHook, SmallMlpOrderAndGradients) {
  const auto fx = test::load_fixture("hooks/node_order.json")["mlp"];
  // x (4, 3) -> Linear(3, 5) -> tanh -> Linear(5, 2) -> cross_entropy(targets [0, 1, 1, 0])
  namespace F = nn::functional;
  Tensor x = ramp(4, 3, 0.1, 1.0);
  Tensor w1 = ramp(5, 3, 0.2).requires_grad_(), b1 = ramp(1, 5, 0.3).view({5}).requires_grad_();
  Tensor w2 = ramp(2, 5, 0.4).requires_grad_(), b2 = ramp(1, 2, 0.5).view({2}).requires_grad_();
  Tensor target = tensor({0, 1, 1, 0}, kInt64);
  Tensor h = F::linear(x, w1, b1).tanh();
  // PyTorch's cross_entropy is this composition, the graph the fixture records; Ember's
  // F::cross_entropy is one fused node (NllLossBackward0 of the logits), tested in test_fused_loss.cpp.
  Tensor loss = nll_loss(F::linear(h, w2, b2).log_softmax(1), target);
  EXPECT_NEAR(loss.item<double>(), fx["loss"].get<double>(), 1e-12);
  // NllLossBackward0, LogSoftmaxBackward0, AddmmBackward0, AccumulateGrad (b2), TBackward0, ...
  expect_visits(record_visits(loss), fx["visits"]);
}

TEST(NodeHook, AttentionHeadOrderAndGradients) {
  const auto fx = test::load_fixture("hooks/node_order.json")["attention_head"];
  // x (3, 4) -> q, k, v = x @ Wq, x @ Wk, x @ Wv -> causal softmax(q k^T / sqrt(2)) @ v -> sum
  Tensor x = ramp(3, 4, 0.1).requires_grad_();
  Tensor wq = ramp(4, 2, 0.2).requires_grad_(), wk = ramp(4, 2, 0.3).requires_grad_();
  Tensor wv = ramp(4, 2, 0.4).requires_grad_();
  Tensor q = x.matmul(wq), k = x.matmul(wk), v = x.matmul(wv);
  Tensor scores = q.matmul(k.t()) / std::sqrt(2.0);
  Tensor future = ones({3, 3}, kBool).triu(1);
  Tensor out = scores.masked_fill(future, -INFINITY).softmax(-1).matmul(v);
  // SumBackward0, MmBackward0, SoftmaxBackward0, MaskedFillBackward0, DivBackward0, MmBackward0, TBackward0, ...
  expect_visits(record_visits(out.sum()), fx["visits"]);
}

TEST(NodeHook, OffAgainAfterReset) {
  int calls = 0;
  autograd::set_node_hook([&](const Node&, const tensor_list&, const tensor_list&) { ++calls; });
  Tensor x = leaf({1.0, 2.0});
  (x * x).sum().backward();
  EXPECT_EQ(calls, 3);  // SumBackward0, MulBackward0, AccumulateGrad
  autograd::set_node_hook(nullptr);
  (x * x).sum().backward();
  EXPECT_EQ(calls, 3);
}
