// The autograd graph: nodes (one per recorded op), edges, saved tensors, per-tensor metadata.
//
//   y = x * w      records MulBackward0 with next_edges = {x's edge, w's edge}
//   y.backward()   the engine (autograd/engine.cpp) calls each node's apply() in reverse order
//
// A node's apply() takes the gradients of its forward's outputs and returns the gradients of
// its forward's inputs, one per next edge (undefined where an input needs none). Leaves that
// require grad end in an AccumulateGrad node that adds into tensor.grad().
// Convention: parameter (leaf) gradients accumulate across backward calls; activation
// gradients are written fresh each time.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace ember::autograd {

class Node;

struct Edge {
  std::shared_ptr<Node> fn;  // null: this input needs no gradient
  uint32_t input_nr = 0;     // which of fn's forward outputs this edge feeds
  bool valid() const { return fn != nullptr; }
};

using TensorHook = std::function<Tensor(const Tensor&)>;

class Node : public std::enable_shared_from_this<Node> {
 public:
  explicit Node(std::string name);
  virtual ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  // PyTorch's name for the node: "MulBackward0", "AccumulateGrad".
  const std::string& name() const { return name_; }
  // grads[i]: gradient of forward output i (undefined if none flowed). Returns one per next edge.
  virtual tensor_list apply(tensor_list&& grads) = 0;
  // Frees saved tensors after a backward without retain_graph.
  virtual void release_variables() {}
  // The leaf tensor this node accumulates into (AccumulateGrad only).
  virtual Tensor variable() const { return {}; }

  std::vector<Edge> next_edges;
  // The dtype of each forward input (one per next edge), recorded by record(): the engine converts
  // a gradient of another floating dtype to it, as PyTorch does (mixed precision, issue 21).
  std::vector<ScalarType> input_dtypes;
  uint64_t sequence_nr;  // creation order; the engine runs later nodes first
  // Hooks on the gradient of forward output i before apply() (Tensor::register_hook on non-leaves).
  std::map<uint32_t, std::vector<std::pair<unsigned, TensorHook>>> pre_hooks;
  // Shapes of the forward's outputs, for to_dot and for checking gradients.
  std::vector<std::vector<int64_t>> output_sizes;
  // Custom functions (autograd/function.h) run even when no gradient flowed into them, as libtorch
  // runs every node: their backward then sees zeros (materialize_grads) or undefined tensors.
  // Built-in nodes are skipped then, since their gradients would all be undefined anyway.
  bool runs_without_grads = false;
  // Anomaly mode only: the forward op's inputs ("x [3] float64, [3] float64"), named in its error.
  std::string forward_inputs;

  // Debug statistic: how many nodes exist right now in this process. A training loop whose
  // count grows from step to step keeps graphs alive (a loss stored without .item()).
  static int64_t live_count();

 private:
  std::string name_;
};

// A node whose backward is a closure written next to the op's forward.
class FunctionNode final : public Node {
 public:
  using Backward = std::function<tensor_list(const tensor_list& grads)>;
  FunctionNode(std::string name, Backward backward) : Node(std::move(name)), backward_(std::move(backward)) {}
  tensor_list apply(tensor_list&& grads) override;
  void release_variables() override { backward_ = nullptr; }

 private:
  Backward backward_;
};

// Adds incoming gradients into a leaf's .grad().
class AccumulateGrad final : public Node {
 public:
  explicit AccumulateGrad(Tensor variable);
  tensor_list apply(tensor_list&& grads) override;
  Tensor variable() const override { return variable_; }

 private:
  Tensor variable_;
};

// Autograd state of one tensor (null in TensorImpl until the tensor takes part in autograd).
struct AutogradMeta {
  bool requires_grad = false;
  Tensor grad;
  std::shared_ptr<Node> grad_fn;         // null for leaves
  std::weak_ptr<Node> grad_accumulator;  // leaves: created on first use
  uint32_t output_nr = 0;
  bool retains_grad = false;
  std::string name;
  std::vector<std::pair<unsigned, TensorHook>> leaf_hooks;  // hooks of a leaf, run by AccumulateGrad
  // Called with the leaf after AccumulateGrad has added into its .grad() (DDP's gradient buckets).
  std::vector<std::function<void(const Tensor&)>> post_accumulate_grad_hooks;
  Tensor view_base;  // for a view: the (non-view) tensor whose storage it shows
};

// A tensor kept by a node for its backward. Checks on unpack that nobody wrote into it since
// (the version counter), and for a node's own output keeps only a weak link to the node, so
// output -> node -> saved output is not a reference cycle.
class SavedVariable {
 public:
  SavedVariable() = default;
  SavedVariable(const Tensor& t, bool is_output);
  Tensor unpack(const std::string& node_name = "") const;
  bool defined() const { return data_.defined(); }

 private:
  Tensor data_;
  uint32_t version_ = 0;
  bool is_output_ = false;
  bool requires_grad_ = false;
  uint32_t output_nr_ = 0;
  std::weak_ptr<Node> grad_fn_;
};

// ---- helpers used by every op ----

AutogradMeta* meta(const Tensor& t);  // null if none
AutogradMeta& ensure_meta(const Tensor& t);
// The edge through which gradient reaches `t`: its grad_fn, or its AccumulateGrad if a leaf.
Edge gradient_edge(const Tensor& t);
std::shared_ptr<Node> grad_accumulator(const Tensor& t);
// True when grad mode is on and any of `inputs` requires grad.
bool any_requires_grad(std::initializer_list<const Tensor*> inputs);
bool any_requires_grad(const tensor_list& inputs);

// Makes `outputs` the outputs of a new node named `name` whose inputs are `inputs`.
// Call only when any_requires_grad(inputs). Returns the node.
std::shared_ptr<Node> record(const std::string& name, const tensor_list& outputs, const tensor_list& inputs,
                             FunctionNode::Backward backward);
// Single-output form: backward receives the gradient of `output` (defined).
std::shared_ptr<Node> record(const std::string& name, const Tensor& output, const tensor_list& inputs,
                             std::function<tensor_list(const Tensor& grad)> backward);
// Writes `result` (self's shape and dtype) into self and gives self result's history; when self is
// a view, its base's history becomes CopySlices (autograd/inplace.cpp).
void commit_inplace(const Tensor& self, const Tensor& result);
// Records that `view` shows the storage of `source` (or of source's own base).
void track_view(const Tensor& view, const Tensor& source);
// Throws PyTorch's error when an in-place op would overwrite a leaf that requires grad.
void check_inplace(const Tensor& self, const char* op);

// The global "on node" hook for teaching: called after each node runs in backward with the node,
// the gradients that flowed in, and the gradients it produced. Empty function = none.
using NodeHook = std::function<void(const Node&, const tensor_list& grads_in, const tensor_list& grads_out)>;
void set_node_hook(NodeHook hook);

// PyTorch's Tensor.register_post_accumulate_grad_hook: `hook(leaf)` runs in backward each time
// AccumulateGrad has added a gradient into leaf.grad(). For leaves that require grad only.
void register_post_accumulate_grad_hook(const Tensor& leaf, std::function<void(const Tensor&)> hook);
// PyTorch's Variable._execution_engine.queue_callback: `callback` runs once when the current
// backward pass has finished running every node (before backward() returns). Only valid during
// backward (from a hook); a backward that throws drops its queued callbacks.
void queue_callback(std::function<void()> callback);

// Reduces a gradient of a broadcast result back to `sizes` (sums broadcast dims).
Tensor sum_to(const Tensor& grad, IntArrayRef sizes);

}  // namespace ember::autograd
