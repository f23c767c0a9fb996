// Pictures of the autograd graph in Graphviz DOT, in the style of torchviz's make_dot.
//
//   auto x = ember::tensor({1.0, 2.0}, ember::requires_grad()).set_name("x");
//   auto y = (x * x).sum();
//   ember::autograd::save_dot(y, "graph.dot");   // then: dot -Tpng graph.dot -o graph.png
//
// One box per backward node with PyTorch's name and the shape of the forward output it stands
// for (MulBackward0, SumBackward0, AccumulateGrad, ...); leaf tensors are light-blue boxes with
// their name and shape; the root tensor is a green box. Edges point the way the forward ran:
// from inputs to the ops that used them. The graph keeps no forward values of its own: the
// data shown (DotOptions::show_values) is that of the leaves, the root, and the intermediate
// tensors passed in DotOptions::tensors, drawn on the node that made them.
#pragma once

#include <string>

#include "core/tensor.h"

namespace ember::autograd {

struct DotOptions {
  // micrograd style: print the data (and grad, once computed) of the root and leaf tensors
  // that have at most max_values_shown elements.
  bool show_values = false;
  int64_t max_values_shown = 8;
  // Intermediate tensors to label their node with: name, and with show_values their data and
  // grad (call retain_grad() on them before backward to have one).
  tensor_list tensors;
};

// The graph that produced `root`, as a DOT digraph.
std::string to_dot(const Tensor& root, const DotOptions& options = {});

// Writes to_dot(root) to `path`; throws ember::Error naming the path if it cannot be written.
void save_dot(const Tensor& root, const std::string& path, const DotOptions& options = {});

}  // namespace ember::autograd
