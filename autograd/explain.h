// Text views of the autograd graph for learning: the tree of nodes below a tensor, and backward
// explained node by node with the chain rule (what examples/autograd_tour prints).
//
//   auto x = ember::tensor(0.5, ember::dtype(ember::kFloat64).requires_grad(true)).set_name("x");
//   auto h = (x * x).set_name("h");
//   auto y = h.tanh().set_name("y");
//   ember::autograd::print_tree(y, {h});      // y = TanhBackward0 / h = MulBackward0 / AccumulateGrad (leaf x)
//   ember::autograd::print_backward(y, {h});  // runs y.backward(): g, local derivative, g x local per input
//
// Each local derivative d(output)/d(input) is computed from the forward values by the node kind's
// rule (elementwise ops and sum; see explain.cpp), independently of the engine's backward, and the
// step records how far g x local lies from what the engine sent. It is a teaching aid for small
// graphs, not a Jacobian tool: matmul, softmax and views have no elementwise local derivative here.
#pragma once

#include <string>
#include <vector>

#include "core/tensor.h"

namespace ember::autograd {

// The graph below `root` as an indented tree, one node per line, children indented under the node
// that used them: "name = NodeName" for the root and the tensors in `named` (which tensor a node made
// is known only for those), "AccumulateGrad (leaf x)" for leaves ("(leaf of shape [2, 3])" when
// unnamed). A node met again (a tensor used twice) is not expanded a second time.
std::string graph_tree(const Tensor& root, const tensor_list& named = {});
void print_tree(const Tensor& root, const tensor_list& named = {});

// One node's part of backward, in the order the engine ran it.
struct ChainRuleStep {
  struct Input {
    std::string name;  // the leaf's or named tensor's name, "" when unknown
    Tensor local;      // d(output)/d(input) elementwise, in the output's shape; undefined when no rule
    Tensor grad;       // what the engine sent this input (dL/d(input))
    double max_difference = 0;  // max |sum_to(g * local) - grad|, when local is defined
  };
  std::string node;    // PyTorch's name: "MulBackward0", "AccumulateGrad"
  std::string output;  // the name of the tensor the node made, or the leaf's name for AccumulateGrad
  std::string rule;    // the backward rule in words: "a * b: da = g * b, db = g * a"
  Tensor grad;         // g = dL/d(output): the gradient that flowed into the node
  std::vector<Input> inputs;  // one per input that needs a gradient (none for AccumulateGrad)
};

// Runs root.backward() (root: one element), recording each node's step. Uses the engine's node hook
// (set_node_hook), which is cleared afterwards. `named`: intermediate tensors whose values and names
// the steps use; an input that is neither a leaf nor named has no local derivative.
std::vector<ChainRuleStep> explain_backward(const Tensor& root, const tensor_list& named = {});

// The steps as text: for one-element tensors "dL/dx = local x g = product" per input, otherwise
// the shapes and the largest difference from the engine.
std::string format_steps(const std::vector<ChainRuleStep>& steps);
void print_backward(const Tensor& root, const tensor_list& named = {});

}  // namespace ember::autograd
