// The graded exercises (examples/exercises): each student backward is gradchecked (float64 central
// differences) and compared, forward and backward, with Ember's own op; a failure prints a hint.
// Built against the stubs these fail until each backward is written; against solutions/ (the
// default build, -DEMBER_EXERCISE_SOLUTIONS=ON) they pass, which keeps the track from rotting.
#include <algorithm>
#include <cmath>
#include <functional>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "../../examples/exercises/exercises.h"

using namespace ember;

namespace {

using Op = std::function<Tensor(const tensor_list&)>;

// Deterministic float64 inputs away from kinks: 0.9 sin(0.7 k + phase), shaped, requiring grad.
Tensor input(IntArrayRef shape, double phase) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return ((arange(n, dtype(kFloat64)) * 0.7 + phase).sin() * 0.9).view(shape).requires_grad_();
}

// dL/d(inputs) for L = sum(op(inputs) * weights), weights fixed and uneven so no term cancels.
tensor_list gradients(const Op& op, const tensor_list& inputs) {
  Tensor out = op(inputs);
  Tensor weights = (arange(out.numel(), dtype(kFloat64)) * 1.3 + 0.4).cos().view(out.sizes());
  return autograd::grad({(out * weights).sum()}, inputs, {}, std::nullopt, false, /*allow_unused=*/true);
}

// Forward and gradients of `student` against `reference`, then gradcheck; on a failure, the hint.
void check(const std::string& exercise, const std::string& hint, const Op& student, const Op& reference,
           const tensor_list& inputs) {
  SCOPED_TRACE(exercise);
  const std::string help = "\n  Hint (" + exercise + "): " + hint;
  Tensor mine = student(inputs).detach(), theirs = reference(inputs).detach();
  ASSERT_EQ(mine.sizes().vec(), theirs.sizes().vec()) << "forward's shape differs" << help;
  ASSERT_TRUE(allclose(mine, theirs, 1e-7, 1e-9)) << "forward differs from Ember's (the forward is given: "
                                                    "was it changed?)\n  yours:\n"
                                                 << mine << "\n  Ember's:\n"
                                                 << theirs;
  const tensor_list got = gradients(student, inputs), want = gradients(reference, inputs);
  for (size_t i = 0; i < inputs.size(); ++i) {
    ASSERT_TRUE(got[i].defined()) << "your backward returned no gradient for input " << i << help;
    ASSERT_EQ(got[i].sizes().vec(), inputs[i].sizes().vec())
        << "the gradient of input " << i << " must have that input's shape " << shape_str(inputs[i].sizes())
        << help;
    const double worst = (got[i] - want[i]).abs().max().item<double>();
    EXPECT_LT(worst, 1e-8) << "the gradient of input " << i << " differs from Ember's by up to " << worst
                           << "\n  yours:\n"
                           << got[i] << "\n  Ember's:\n"
                           << want[i] << help;
  }
  EXPECT_TRUE(autograd::gradcheck([&](const tensor_list& in) { return tensor_list{student(in)}; }, inputs, 1e-6,
                                  1e-5, 1e-3, /*raise_exception=*/false))
      << "gradcheck: your backward does not match finite differences of your forward" << help;
}

}  // namespace

TEST(Exercises, Sigmoid) {
  check("1, 01_sigmoid.cpp", "sigmoid'(x) can be written with the output y alone: expand d/dx (1 + e^-x)^-1.",
        [](const tensor_list& in) { return exercises::sigmoid(in[0]); },
        [](const tensor_list& in) { return in[0].sigmoid(); }, {input({3, 4}, 0.1) * 3});
}

TEST(Exercises, BroadcastMul) {
  const std::string hint = "b was used once per row of a: its gradient adds up all those uses (reduce_to).";
  check("2, 02_broadcast_mul.cpp", hint, [](const tensor_list& in) { return exercises::broadcast_mul(in[0], in[1]); },
        [](const tensor_list& in) { return in[0] * in[1]; }, {input({3, 4}, 0.1), input({4}, 0.5)});
  // Both broadcast: (3, 1) * (4) -> (3, 4).
  check("2, 02_broadcast_mul.cpp", hint, [](const tensor_list& in) { return exercises::broadcast_mul(in[0], in[1]); },
        [](const tensor_list& in) { return in[0] * in[1]; }, {input({3, 1}, 0.2), input({4}, 0.9)});
}

TEST(Exercises, Matmul) {
  check("3, 03_matmul.cpp", "write dL/da_nk = sum_m g_nm b_km as a product of two matrices; the shapes decide the order.",
        [](const tensor_list& in) { return exercises::matmul(in[0], in[1]); },
        [](const tensor_list& in) { return in[0].matmul(in[1]); }, {input({3, 4}, 0.1), input({4, 2}, 0.5)});
}

TEST(Exercises, Softmax) {
  check("4, 04_softmax.cpp", "sum_i g_i y_i (delta_ij - y_j): the delta term gives g_j y_j, the rest y_j times one sum per row.",
        [](const tensor_list& in) { return exercises::softmax(in[0]); },
        [](const tensor_list& in) { return in[0].softmax(-1); }, {input({3, 5}, 0.3) * 2});
}

TEST(Exercises, LayerNorm) {
  check("5, 05_layer_norm.cpp",
        "mean and rstd depend on every x_c of the row: differentiate xhat_c through them too (docs/AUTOGRAD.md "
        "derives it).",
        [](const tensor_list& in) { return exercises::layer_norm(in[0], in[1], in[2]); },
        [](const tensor_list& in) { return layer_norm(in[0], {in[0].size(-1)}, in[1], in[2], exercises::kLayerNormEps); },
        {input({3, 5}, 0.3) * 2, input({5}, 1.1) + 1, input({5}, 0.7)});
}

TEST(Exercises, AttentionHead) {
  auto reference = [](const tensor_list& in) {
    const int64_t T = in[0].size(0);
    Tensor q = in[0].matmul(in[1]), k = in[0].matmul(in[2]), v = in[0].matmul(in[3]);
    Tensor s = q.matmul(k.t()) / std::sqrt(static_cast<double>(in[1].size(1)));
    return s.masked_fill(ones({T, T}, kBool).triu(1), -INFINITY).softmax(-1).matmul(v);
  };
  check("6, 06_attention_head.cpp",
        "go backwards one line of the forward at a time: out = a v (exercise 3), a = softmax(s) (exercise 4), "
        "s = q k^T scale, q = x Wq; x gets a term from each of q, k and v.",
        [](const tensor_list& in) { return exercises::attention_head(in[0], in[1], in[2], in[3]); }, reference,
        {input({4, 3}, 0.1), input({3, 2}, 0.4), input({3, 2}, 0.8), input({3, 2}, 1.5)});
}

// e = (a b + a)^2: a is used twice and d = a b + a is used twice, so a sort that visits a value
// more than once (or too early) gives wrong gradients. Compared with Ember on the same expression.
TEST(Exercises, TopologicalSort) {
  const std::string help =
      "\n  Hint (7, 07_topological_sort.cpp): depth-first from the root, add a value after all its parents, and "
      "keep a set of visited values.";
  exercises::Graph graph;
  exercises::Value* a = graph.leaf(2.0);
  exercises::Value* b = graph.leaf(-3.0);
  exercises::Value* d = graph.add(graph.mul(a, b), a);
  exercises::Value* e = graph.mul(d, d);
  const std::vector<exercises::Value*> order = exercises::topological_order(e);
  ASSERT_EQ(order.size(), 5u) << "5 values: a, b, a b, d, e, each once" << help;
  ASSERT_EQ(order.back(), e) << "the root comes last" << help;
  std::set<exercises::Value*> before;
  for (exercises::Value* v : order) {
    for (exercises::Value* p : v->parents) ASSERT_TRUE(before.count(p)) << "a value came before its parent" << help;
    before.insert(v);
  }
  graph.backward(e);
  Tensor ta = tensor(2.0, dtype(kFloat64).requires_grad(true)), tb = tensor(-3.0, dtype(kFloat64).requires_grad(true));
  Tensor td = ta * tb + ta;
  (td * td).backward();
  EXPECT_DOUBLE_EQ(a->grad, ta.grad().item<double>()) << help;  // 2 d (b + 1) = 8
  EXPECT_DOUBLE_EQ(b->grad, tb.grad().item<double>()) << help;  // 2 d a = -16
}
