// The graded autograd exercises: write the backward of seven ops, each a custom autograd Function,
// and a tiny engine's topological sort. Each exercise's file in this folder has the forward written
// and the backward stubbed (`// your backward here`); tests/exercises/test_exercises.cpp gradchecks
// your version and compares it with Ember's own op (`ctest -L exercises`, see README.md here).
// Reference solutions are in solutions/, used instead when EMBER_EXERCISE_SOLUTIONS is ON (CI).
#pragma once

#include <deque>
#include <functional>
#include <vector>

#include <ember/ember.h>

namespace ember::exercises {

constexpr double kLayerNormEps = 1e-5;  // LayerNorm's epsilon, as nn::LayerNorm's default

Tensor sigmoid(const Tensor& x);                            // 1 / (1 + exp(-x)), any shape
Tensor broadcast_mul(const Tensor& a, const Tensor& b);     // a * b, shapes broadcast (a (N, C), b (C))
Tensor matmul(const Tensor& a, const Tensor& b);            // (N, K) @ (K, M) -> (N, M)
Tensor softmax(const Tensor& x);                            // over the last dim, (N, C)
Tensor layer_norm(const Tensor& x, const Tensor& weight,    // x (N, C) normalised over C,
                  const Tensor& bias);                      // then * weight (C) + bias (C)
Tensor attention_head(const Tensor& x, const Tensor& w_query,  // x (T, C), w_* (C, HS) -> (T, HS):
                      const Tensor& w_key, const Tensor& w_value);  // causal softmax(q k^T / sqrt(HS)) v

// ---- a tiny scalar engine, as micrograd's: you write its topological sort ----

struct Value {
  double data = 0;
  double grad = 0;
  std::vector<Value*> parents;   // the values this one was computed from
  std::function<void()> local;   // adds grad * d(this)/d(parent) into each parent's grad
};

// The order in which backward must visit the graph below `root`: every value after all values it
// was computed from (parents first, root last), each value exactly once.
std::vector<Value*> topological_order(Value* root);

// Values live here; the ops record their parents and local derivatives.
class Graph {
 public:
  Value* leaf(double data) { return &values_.emplace_back(Value{data, 0, {}, nullptr}); }
  Value* add(Value* a, Value* b) {
    Value* out = leaf(a->data + b->data);
    out->parents = {a, b};
    out->local = [a, b, out] { a->grad += out->grad, b->grad += out->grad; };  // d(a + b)/da = 1
    return out;
  }
  Value* mul(Value* a, Value* b) {
    Value* out = leaf(a->data * b->data);
    out->parents = {a, b};
    out->local = [a, b, out] { a->grad += b->data * out->grad, b->grad += a->data * out->grad; };  // d(ab)/da = b
    return out;
  }
  // Runs backward from `root` in reverse topological order.
  void backward(Value* root) {
    std::vector<Value*> order = topological_order(root);
    root->grad = 1;
    for (auto it = order.rbegin(); it != order.rend(); ++it)
      if ((*it)->local) (*it)->local();
  }

 private:
  std::deque<Value> values_;  // a deque keeps addresses stable as values are added
};

}  // namespace ember::exercises
