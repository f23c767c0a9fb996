// The backward engine: walks the graph from the roots and runs each node once all of its
// consumers have contributed their gradients.
//
// Order: a node becomes ready when its dependency count (edges into it from reachable nodes)
// drops to zero; among ready nodes the most recently created runs first (PyTorch's order, so
// hooks fire in the order a PyTorch user expects). Gradients arriving at the same node input
// are summed in its input buffer. Without retain_graph each node frees its saved tensors after
// it runs, so the graph's memory is returned as soon as backward is done with it.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "autograd/autocast.h"
#include "autograd/autograd.h"
#include "core/kernel.h"
#include "core/trace.h"

namespace ember::autograd {

namespace {
thread_local bool grad_mode_enabled = true;
std::atomic<bool> anomaly_enabled{false};
std::atomic<uint64_t> next_sequence_nr{0};
std::atomic<int64_t> live_nodes{0};
NodeHook node_hook;
}  // namespace

void set_detect_anomaly(bool enabled) { anomaly_enabled = enabled; }
bool is_anomaly_enabled() { return anomaly_enabled; }
void set_node_hook(NodeHook hook) { node_hook = std::move(hook); }

Node::Node(std::string name) : sequence_nr(next_sequence_nr++), name_(std::move(name)) { live_nodes++; }
Node::~Node() { live_nodes--; }
int64_t Node::live_count() { return live_nodes; }

namespace {
// Runs Tensor::register_hook hooks in registration order, each on what the one before returned.
// `sizes` and `whose` describe the tensor the gradient belongs to, for the error message.
Tensor run_tensor_hooks(const std::vector<std::pair<unsigned, TensorHook>>& hooks, Tensor grad, IntArrayRef sizes,
                        const std::string& whose) {
  for (const auto& [id, hook] : hooks) {
    Tensor r = hook(grad);
    if (!r.defined()) continue;  // an inspecting hook: keep the gradient
    EMBER_CHECK(r.sizes() == sizes && r.dtype() == grad.dtype(),
                "register_hook: a hook on {} returned a gradient of shape {} {}, but the gradient must have the "
                "tensor's shape {} and dtype {}. Return a tensor of that shape, or an undefined Tensor to leave the "
                "gradient unchanged.",
                whose, r.sizes(), dtype_name(r.dtype()), sizes, dtype_name(grad.dtype()));
    grad = std::move(r);
  }
  return grad;
}
}  // namespace

tensor_list FunctionNode::apply(tensor_list&& grads) {
  EMBER_CHECK(backward_ != nullptr,
              "{}: trying to backward through the graph a second time (or directly access saved tensors after they "
              "have already been freed). Saved intermediate values of the graph are freed when you call backward() "
              "or autograd::grad(). Specify retain_graph=true if you need to backward through the graph a second "
              "time or if you need to access saved tensors after calling backward.",
              name());
  return backward_(grads);
}

namespace {

// True when `t` is the only way to reach its storage: no other handle holds the storage, except
// the base `t` is a view of when that base is itself held by `t` alone (a gradient made as a view
// of a temporary, e.g. a sum reshaped or a product transposed, which nothing else can see).
bool sole_holder_of_storage(const Tensor& t) {
  const long holders = t.storage().use_count();
  if (holders == 1) return true;
  const AutogradMeta* m = meta(t);
  return holders == 2 && m && m->view_base.defined() && m->view_base.use_count() == 1 &&
         m->view_base.storage() == t.storage();
}

}  // namespace

AccumulateGrad::AccumulateGrad(Tensor variable) : Node("AccumulateGrad"), variable_(std::move(variable)) {
  sequence_nr = UINT64_MAX;  // run as soon as ready, as PyTorch does
  output_sizes.push_back(variable_.sizes().vec());
}

tensor_list AccumulateGrad::apply(tensor_list&& grads) {
  Tensor g = std::move(grads[0]);
  if (!g.defined()) return {};
  EMBER_CHECK(g.sizes() == variable_.sizes(),
              "AccumulateGrad: gradient of shape {} does not match the shape {} of the leaf tensor it belongs to "
              "(a custom Function's backward returned a gradient of the wrong shape?)",
              g.sizes(), variable_.sizes());
  AutogradMeta& m = ensure_meta(variable_);
  if (!m.leaf_hooks.empty())
    g = run_tensor_hooks(m.leaf_hooks, g, variable_.sizes(),
                         m.name.empty() ? std::string("a leaf tensor") : "the leaf tensor '" + m.name + "'");
  if (!m.grad.defined()) {
    // Steal the incoming buffer when nobody else can see it; otherwise keep a private copy.
    const bool stealable = g.use_count() == 1 && sole_holder_of_storage(g) && g.is_contiguous();
    if (GradMode::is_enabled()) {
      m.grad = g;  // create_graph: keep the graph of the gradient
    } else {
      m.grad = stealable ? g.detach() : kernel::clone(g);
    }
  } else if (GradMode::is_enabled()) {
    m.grad = m.grad + g;
  } else {
    m.grad.add_(g);
  }
  for (const auto& hook : m.post_accumulate_grad_hooks) hook(variable_);
  return {};
}

// ---- SavedVariable ----

SavedVariable::SavedVariable(const Tensor& t, bool is_output) : is_output_(is_output) {
  if (!t.defined()) return;
  version_ = t._version();
  requires_grad_ = t.requires_grad();
  if (is_output) {
    // Keep the data and a weak link to the node, never the node itself.
    data_ = t.detach();
    if (AutogradMeta* m = meta(t)) {
      grad_fn_ = m->grad_fn;
      output_nr_ = m->output_nr;
    }
  } else {
    data_ = t;
  }
}

Tensor SavedVariable::unpack(const std::string& node_name) const {
  if (!data_.defined()) return {};
  EMBER_CHECK(data_._version() == version_,
              "{}: one of the variables needed for gradient computation has been modified by an inplace operation: "
              "[{} {}] is at version {}; expected version {} instead. Hint: the tensor was written in place after the "
              "op that needs it; use an out-of-place op (x = x.add(y) instead of x.add_(y)) or clone() it first.",
              node_name, data_.toString(), shape_str(data_.sizes()), data_._version(), version_);
  if (!is_output_) return data_;
  auto fn = grad_fn_.lock();
  if (!fn && !requires_grad_) return data_;
  // Rebuild a tensor that shares the data and points at the node that produced it.
  Tensor t(std::make_shared<TensorImpl>(*data_.unsafeGetTensorImpl()));
  auto m = std::make_shared<AutogradMeta>();
  m->requires_grad = fn == nullptr && requires_grad_;
  m->grad_fn = fn;
  m->output_nr = output_nr_;
  t.unsafeGetTensorImpl()->autograd = std::move(m);
  return t;
}

// ---- helpers for ops ----

AutogradMeta* meta(const Tensor& t) { return t.defined() ? t.unsafeGetTensorImpl()->autograd.get() : nullptr; }

AutogradMeta& ensure_meta(const Tensor& t) {
  auto& slot = t.unsafeGetTensorImpl()->autograd;
  if (!slot) slot = std::make_shared<AutogradMeta>();
  return *slot;
}

std::shared_ptr<Node> grad_accumulator(const Tensor& t) {
  AutogradMeta& m = ensure_meta(t);
  if (auto acc = m.grad_accumulator.lock()) return acc;
  auto acc = std::make_shared<AccumulateGrad>(t);
  m.grad_accumulator = acc;
  return acc;
}

Edge gradient_edge(const Tensor& t) {
  AutogradMeta* m = meta(t);
  if (!m) return {};
  if (m->grad_fn) return {m->grad_fn, m->output_nr};
  if (m->requires_grad) return {grad_accumulator(t), 0};
  return {};
}

bool any_requires_grad(std::initializer_list<const Tensor*> inputs) {
  if (!GradMode::is_enabled()) return false;
  for (const Tensor* t : inputs)
    if (t->defined() && t->requires_grad()) return true;
  return false;
}

bool any_requires_grad(const tensor_list& inputs) {
  if (!GradMode::is_enabled()) return false;
  for (const Tensor& t : inputs)
    if (t.defined() && t.requires_grad()) return true;
  return false;
}

namespace {
// "x [3] float64, [3] float64": the inputs of a forward op, for anomaly mode's error message.
std::string describe_inputs(const tensor_list& inputs) {
  std::string out;
  for (const Tensor& t : inputs) {
    if (!out.empty()) out += ", ";
    if (!t.defined()) {
      out += "(none)";
      continue;
    }
    if (!t.name().empty()) out += t.name() + " ";
    out += fmt::format("{} {}", shape_str(t.sizes()), dtype_name(t.dtype()));
  }
  return out;
}
}  // namespace

std::shared_ptr<Node> record(const std::string& name, const tensor_list& outputs, const tensor_list& inputs,
                             FunctionNode::Backward backward) {
  auto node = std::make_shared<FunctionNode>(name, std::move(backward));
  if (is_anomaly_enabled()) node->forward_inputs = describe_inputs(inputs);
  node->next_edges.reserve(inputs.size());
  for (const Tensor& in : inputs) node->next_edges.push_back(in.defined() ? gradient_edge(in) : Edge{});
  node->input_dtypes.reserve(inputs.size());
  for (const Tensor& in : inputs) node->input_dtypes.push_back(in.defined() ? in.dtype() : kFloat32);
  for (uint32_t i = 0; i < outputs.size(); ++i) {
    const Tensor& out = outputs[i];
    node->output_sizes.push_back(out.defined() ? out.sizes().vec() : std::vector<int64_t>{});
    if (!out.defined() || !out.is_floating_point()) continue;  // integer outputs never carry gradient
    AutogradMeta& m = ensure_meta(out);
    m.grad_fn = node;
    m.output_nr = i;
    m.requires_grad = false;  // non-leaf: requires_grad() is answered by grad_fn
  }
  return node;
}

std::shared_ptr<Node> record(const std::string& name, const Tensor& output, const tensor_list& inputs,
                             std::function<tensor_list(const Tensor& grad)> backward) {
  return record(name, tensor_list{output}, inputs,
                [bw = std::move(backward)](const tensor_list& grads) -> tensor_list { return bw(grads[0]); });
}

void check_inplace(const Tensor& self, const char* op) {
  if (!GradMode::is_enabled()) return;
  AutogradMeta* m = meta(self);
  EMBER_CHECK(!(m && m->requires_grad && !m->grad_fn),
              "{}: a leaf Variable that requires grad is being used in an in-place operation. Wrap the update in "
              "NoGradGuard if it is not meant to be differentiated (an optimizer step, an initialisation).",
              op);
}

Tensor sum_to(const Tensor& grad, IntArrayRef sizes) {
  if (!grad.defined() || grad.sizes() == sizes) return grad;
  const int64_t lead = grad.dim() - static_cast<int64_t>(sizes.size());
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < grad.dim(); ++d)
    if (d < lead || (sizes[d - lead] == 1 && grad.sizes()[d] != 1)) dims.push_back(d);
  Tensor r = dims.empty() ? grad : grad.sum(dims, /*keepdim=*/true);
  return r.view(sizes);
}

// ---- the engine ----

namespace {

struct GraphTask {
  bool keep_graph = false;
  bool create_graph = false;
  // autograd::grad: gradients are captured at these edges instead of accumulated.
  std::vector<Edge> capture_edges;
  tensor_list captured;
  std::unordered_map<Node*, int> dependencies;
  std::unordered_map<Node*, tensor_list> buffers;
  std::unordered_set<Node*> needed;  // empty: run every node
};

void add_to_buffer(tensor_list& buf, size_t pos, const Tensor& g) {
  if (buf.size() <= pos) buf.resize(pos + 1);
  if (!g.defined()) return;
  buf[pos] = buf[pos].defined() ? buf[pos] + g : g;
}

// Anomaly mode: the first non-finite gradient names the node, and the forward op it stands for.
void check_anomaly(const Node& node, const tensor_list& grads_in, const tensor_list& outs) {
  NoGradGuard no_grad;
  // |x| < inf is false for inf, -inf and NaN alike. (Comparing with DBL_MAX instead would miss inf
  // in float32: DBL_MAX rounds to inf in the tensor's dtype.)
  auto finite = [](const Tensor& t) {
    return !t.defined() || !t.is_floating_point() ||
           t.abs().lt(std::numeric_limits<double>::infinity()).all().item<bool>();
  };
  for (size_t i = 0; i < outs.size(); ++i) {
    if (finite(outs[i])) continue;
    const bool came_in = !std::all_of(grads_in.begin(), grads_in.end(), finite);
    const bool has_nan = outs[i].ne(outs[i]).any().item<bool>();
    EMBER_FAIL(
        "Function '{}' returned {} values in its {}th output (the gradient for input {} of the forward op, "
        "shape {}). Forward op inputs: {}. {}",
        node.name(), has_nan ? "nan" : "inf", i, i, outs[i].sizes(),
        node.forward_inputs.empty() ? "unknown (the op was recorded before detect_anomaly was on)"
                                    : node.forward_inputs,
        came_in ? "The gradient flowing into this node was already non-finite; look at the op after it."
                : "The gradient flowing into this node was finite, so this op's backward produced it (for "
                  "example log or sqrt of 0, or a division by 0 in the forward).");
  }
}

void execute_nodes(GraphTask& task, const std::vector<std::pair<Edge, Tensor>>& roots);

// One list of queue_callback()s per backward pass running on this thread (a hook may start a nested one).
thread_local std::vector<std::vector<std::function<void()>>> final_callbacks;

// Runs the graph, then the callbacks queued while it ran, in the order they were queued.
void execute(GraphTask& task, const std::vector<std::pair<Edge, Tensor>>& roots) {
  final_callbacks.emplace_back();
  try {
    execute_nodes(task, roots);
    for (size_t i = 0; i < final_callbacks.back().size(); ++i) {
      auto callback = std::move(final_callbacks.back()[i]);  // may queue more
      callback();
    }
  } catch (...) {
    final_callbacks.pop_back();
    throw;
  }
  final_callbacks.pop_back();
}

void execute_nodes(GraphTask& task, const std::vector<std::pair<Edge, Tensor>>& roots) {
  // Count, for every reachable node, the edges that lead into it.
  std::vector<Node*> stack;
  std::unordered_set<Node*> seen;
  std::vector<Node*> post_order;  // children before parents, for the `needed` pass
  for (auto& [edge, g] : roots)
    if (seen.insert(edge.fn.get()).second) stack.push_back(edge.fn.get());
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    post_order.push_back(n);
    for (const Edge& e : n->next_edges) {
      if (!e.valid()) continue;
      task.dependencies[e.fn.get()]++;
      if (seen.insert(e.fn.get()).second) stack.push_back(e.fn.get());
    }
  }
  if (!task.capture_edges.empty()) {
    // Only nodes from which a capture target is reachable need to run.
    std::unordered_set<Node*> targets;
    for (const Edge& e : task.capture_edges)
      if (e.valid()) targets.insert(e.fn.get());
    bool changed = true;
    while (changed) {  // fixed point over the reachable set (graphs are small per step)
      changed = false;
      for (Node* n : post_order) {
        if (task.needed.count(n)) continue;
        for (const Edge& e : n->next_edges)
          if (e.valid() && (targets.count(e.fn.get()) || task.needed.count(e.fn.get()))) {
            task.needed.insert(n);
            changed = true;
            break;
          }
      }
    }
  }

  auto cmp = [](const std::shared_ptr<Node>& a, const std::shared_ptr<Node>& b) {
    return a->sequence_nr < b->sequence_nr;
  };
  std::priority_queue<std::shared_ptr<Node>, std::vector<std::shared_ptr<Node>>, decltype(cmp)> ready(cmp);
  for (auto& [edge, g] : roots) {
    add_to_buffer(task.buffers[edge.fn.get()], edge.input_nr, g);
  }
  for (auto& [edge, g] : roots)
    if (task.dependencies[edge.fn.get()] == 0) {
      task.dependencies[edge.fn.get()] = -1;  // queued
      ready.push(edge.fn);
    }

  AutoGradMode mode(task.create_graph);
  AutocastExcluded no_autocast;  // backward ops run in the dtypes autocast chose for their forwards
  while (!ready.empty()) {
    std::shared_ptr<Node> node = ready.top();
    ready.pop();
    tensor_list grads = std::move(task.buffers[node.get()]);
    task.buffers.erase(node.get());
    grads.resize(std::max(grads.size(), node->output_sizes.size()));
    for (auto& [nr, hooks] : node->pre_hooks) {
      if (nr >= grads.size() || !grads[nr].defined() || hooks.empty()) continue;
      const std::vector<int64_t> sizes =
          nr < node->output_sizes.size() ? node->output_sizes[nr] : grads[nr].sizes().vec();
      grads[nr] =
          run_tensor_hooks(hooks, grads[nr], sizes, fmt::format("the tensor made by {} (output {})", node->name(), nr));
    }
    for (size_t i = 0; i < task.capture_edges.size(); ++i) {
      const Edge& e = task.capture_edges[i];
      if (e.fn.get() == node.get() && e.input_nr < grads.size() && grads[e.input_nr].defined())
        task.captured[i] = grads[e.input_nr];
    }
    const bool run = task.capture_edges.empty() || task.needed.count(node.get());
    const bool any_grad = std::any_of(grads.begin(), grads.end(), [](const Tensor& g) { return g.defined(); });
    tensor_list outs;
    if (run && (any_grad || node->runs_without_grads)) {
      tensor_list grads_in = node_hook || is_anomaly_enabled() ? grads : tensor_list{};
      trace::BackwardScope scope(node->name());
      outs = node->apply(std::move(grads));
      if (is_anomaly_enabled()) check_anomaly(*node, grads_in, outs);
      if (node_hook) node_hook(*node, grads_in, outs);
    }
    if (!task.keep_graph) node->release_variables();
    for (size_t i = 0; i < node->next_edges.size(); ++i) {
      const Edge& e = node->next_edges[i];
      if (!e.valid()) continue;
      // A gradient takes its input's dtype, as PyTorch's engine makes it (validate_outputs): the
      // bfloat16 product added to a float32 residual gets a bfloat16 gradient back.
      if (i < outs.size() && outs[i].defined() && i < node->input_dtypes.size() &&
          outs[i].dtype() != node->input_dtypes[i] && outs[i].is_floating_point() &&
          is_floating_point(node->input_dtypes[i]))
        outs[i] = outs[i].to(node->input_dtypes[i]);
      if (i < outs.size() && outs[i].defined()) add_to_buffer(task.buffers[e.fn.get()], e.input_nr, outs[i]);
      int& dep = task.dependencies[e.fn.get()];
      if (--dep == 0) {
        dep = -1;
        ready.push(e.fn);
      }
    }
  }
}

std::vector<std::pair<Edge, Tensor>> make_roots(const tensor_list& tensors, const tensor_list& grad_tensors,
                                                const char* op) {
  EMBER_CHECK(grad_tensors.empty() || grad_tensors.size() == tensors.size(),
              "{}: got {} tensors and {} gradients; pass one gradient per tensor", op, tensors.size(),
              grad_tensors.size());
  std::vector<std::pair<Edge, Tensor>> roots;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    Edge e = gradient_edge(t);
    EMBER_CHECK(e.valid(), "element {} of tensors does not require grad and does not have a grad_fn", i);
    Tensor g = grad_tensors.empty() ? Tensor() : grad_tensors[i];
    if (!g.defined()) {
      EMBER_CHECK(t.numel() == 1,
                  "{}: grad can be implicitly created only for scalar outputs (got shape {}); pass a "
                  "gradient of the output's shape",
                  op, t.sizes());
      g = ones_like(t);
    } else {
      EMBER_CHECK(g.sizes() == t.sizes(),
                  "{}: mismatch in shape: grad_output[{}] has a shape of {} and output[{}] has "
                  "a shape of {}",
                  op, i, g.sizes(), i, t.sizes());
    }
    roots.emplace_back(e, g);
  }
  return roots;
}

}  // namespace

void queue_callback(std::function<void()> callback) {
  EMBER_CHECK(!final_callbacks.empty(), "queue_callback: can only be called while a backward pass is running");
  final_callbacks.back().push_back(std::move(callback));
}

void register_post_accumulate_grad_hook(const Tensor& leaf, std::function<void(const Tensor&)> hook) {
  EMBER_CHECK(leaf.defined() && leaf.requires_grad() && leaf.is_leaf(),
              "register_post_accumulate_grad_hook: only a leaf tensor that requires grad has an accumulated "
              "gradient (got {})",
              !leaf.defined()        ? "an undefined tensor"
              : leaf.requires_grad() ? "a non-leaf tensor"
                                     : "a tensor that does not require grad");
  ensure_meta(leaf).post_accumulate_grad_hooks.push_back(std::move(hook));
}

void backward(const tensor_list& tensors, const tensor_list& grad_tensors, std::optional<bool> retain_graph,
              bool create_graph, const tensor_list& inputs) {
  GraphTask task;
  task.keep_graph = retain_graph.value_or(create_graph);
  task.create_graph = create_graph;
  auto roots = make_roots(tensors, grad_tensors, "backward");
  if (!inputs.empty()) {
    // Accumulate only into `inputs`: capture at their edges, then accumulate by hand.
    // As libtorch: a non-leaf input retains its grad (and so gets .grad() now and in later
    // backward calls); an input that does not require grad is an error.
    for (const Tensor& in : inputs) {
      EMBER_CHECK(in.defined(), "backward: one of the inputs is an undefined tensor");
      in.retain_grad();
      Edge e = gradient_edge(in);
      EMBER_CHECK(e.valid(), "One of the differentiated Tensors does not require grad");
      task.capture_edges.push_back(e);
    }
    task.captured.resize(inputs.size());
    execute(task, roots);
    for (size_t i = 0; i < inputs.size(); ++i) {
      // A non-leaf's retain_grad hook has already accumulated into its .grad().
      if (!task.captured[i].defined() || !inputs[i].is_leaf()) continue;
      Tensor leaf = inputs[i];
      AutogradMeta& m = ensure_meta(leaf);
      AutoGradMode mode(create_graph);
      m.grad = m.grad.defined() ? m.grad + task.captured[i]
                                : (create_graph ? task.captured[i] : kernel::clone(task.captured[i]));
    }
    return;
  }
  execute(task, roots);
}

tensor_list grad(const tensor_list& outputs, const tensor_list& inputs, const tensor_list& grad_outputs,
                 std::optional<bool> retain_graph, bool create_graph, bool allow_unused) {
  GraphTask task;
  task.keep_graph = retain_graph.value_or(create_graph);
  task.create_graph = create_graph;
  auto roots = make_roots(outputs, grad_outputs, "grad");
  for (size_t i = 0; i < inputs.size(); ++i) {
    EMBER_CHECK(inputs[i].defined(), "grad: input {} is an undefined tensor", i);
    Edge e = gradient_edge(inputs[i]);
    EMBER_CHECK(e.valid(), "One of the differentiated Tensors does not require grad");
    task.capture_edges.push_back(e);
  }
  task.captured.resize(inputs.size());
  execute(task, roots);
  // libtorch's message, word for word (programs match on it).
  for (size_t i = 0; i < inputs.size(); ++i)
    EMBER_CHECK(allow_unused || task.captured[i].defined(),
                "One of the differentiated Tensors appears to not have been used in the graph. Set allow_unused=True "
                "if this is the desired behavior.");
  return task.captured;
}

}  // namespace ember::autograd

namespace ember {
bool GradMode::is_enabled() { return autograd::grad_mode_enabled; }
void GradMode::set_enabled(bool enabled) { autograd::grad_mode_enabled = enabled; }
}  // namespace ember
