// The graph as a text tree and backward explained node by node (autograd/explain.h).
//
// The local derivatives here are written again, from the forward values, on purpose: they are a
// second statement of each rule that the engine's backward (elementwise.cpp, reduce.cpp) is
// compared against, as a student checks a derivation done by hand.
#include "autograd/explain.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <set>

#include "autograd/node.h"
#include "core/error.h"

namespace ember::autograd {
namespace {

// Forward values of a node: its inputs (undefined where unknown) and its output y.
using LocalRule = std::function<tensor_list(const tensor_list& in, const Tensor& y)>;

struct Rule {
  std::string text;
  LocalRule local;  // d(y)/d(in[i]) elementwise, one per input (undefined where it cannot be known)
};

// Which inputs a rule needs: all of `in` defined, or y defined.
bool known(const tensor_list& in) {
  return std::all_of(in.begin(), in.end(), [](const Tensor& t) { return t.defined(); });
}

const std::map<std::string, Rule>& rules() {
  static const std::map<std::string, Rule> table = {
      {"AddBackward0", {"a + b: da = g, db = g", [](const tensor_list& in, const Tensor& y) -> tensor_list {
                          // d(a + b)/da = 1, d(a + b)/db = 1
                          Tensor one = y.defined() ? ones_like(y) : Tensor();
                          return {one, in.size() > 1 ? one : Tensor()};
                        }}},
      {"SubBackward0", {"a - b: da = g, db = -g", [](const tensor_list& in, const Tensor& y) -> tensor_list {
                          // d(a - b)/da = 1, d(a - b)/db = -1
                          if (!y.defined()) return {Tensor(), Tensor()};
                          return {ones_like(y), in.size() > 1 ? -ones_like(y) : Tensor()};
                        }}},
      {"MulBackward0", {"a * b: da = g * b, db = g * a", [](const tensor_list& in, const Tensor&) -> tensor_list {
                          // d(a b)/da = b, d(a b)/db = a
                          if (in.size() < 2 || !known(in)) return {Tensor(), Tensor()};
                          return {in[1] * ones_like(in[0]), in[0] * ones_like(in[1])};
                        }}},
      {"DivBackward0", {"a / b: da = g / b, db = -g * a / b^2", [](const tensor_list& in, const Tensor&) -> tensor_list {
                          // d(a / b)/da = 1 / b, d(a / b)/db = -a / b^2
                          if (in.size() < 2 || !known(in)) return {Tensor(), Tensor()};
                          return {in[1].reciprocal() * ones_like(in[0]), -in[0] / (in[1] * in[1])};
                        }}},
      {"NegBackward0", {"-a: da = -g", [](const tensor_list&, const Tensor& y) -> tensor_list {
                          return {y.defined() ? -ones_like(y) : Tensor()};  // d(-a)/da = -1
                        }}},
      {"TanhBackward0", {"y = tanh(a): da = g * (1 - y^2)", [](const tensor_list&, const Tensor& y) -> tensor_list {
                           return {y.defined() ? 1 - y * y : Tensor()};  // d tanh(a)/da = 1 - tanh(a)^2
                         }}},
      {"SigmoidBackward0",
       {"y = sigmoid(a): da = g * y * (1 - y)", [](const tensor_list&, const Tensor& y) -> tensor_list {
          return {y.defined() ? y * (1 - y) : Tensor()};  // d sigmoid(a)/da = sigmoid(a) (1 - sigmoid(a))
        }}},
      {"ExpBackward0", {"y = exp(a): da = g * y", [](const tensor_list&, const Tensor& y) -> tensor_list {
                          return {y.defined() ? y.clone() : Tensor()};  // d exp(a)/da = exp(a)
                        }}},
      {"LogBackward0", {"log(a): da = g / a", [](const tensor_list& in, const Tensor&) -> tensor_list {
                          return {known(in) ? in[0].reciprocal() : Tensor()};  // d log(a)/da = 1 / a
                        }}},
      {"SinBackward0", {"sin(a): da = g * cos(a)", [](const tensor_list& in, const Tensor&) -> tensor_list {
                          return {known(in) ? in[0].cos() : Tensor()};  // d sin(a)/da = cos(a)
                        }}},
      {"CosBackward0", {"cos(a): da = -g * sin(a)", [](const tensor_list& in, const Tensor&) -> tensor_list {
                          return {known(in) ? -in[0].sin() : Tensor()};  // d cos(a)/da = -sin(a)
                        }}},
      {"ReluBackward0", {"relu(a): da = g where a > 0, else 0", [](const tensor_list& in, const Tensor& y) -> tensor_list {
                           // d relu(a)/da = 1 for a > 0, else 0 (the output tells as well as the input)
                           const Tensor& x = known(in) ? in[0] : y;
                           return {x.defined() ? (x > 0).to(x.scalar_type()) : Tensor()};
                         }}},
      {"SumBackward0", {"a.sum(): da = g expanded to a's shape", [](const tensor_list& in, const Tensor&) -> tensor_list {
                          return {known(in) ? ones_like(in[0]) : Tensor()};  // d(sum a)/da_i = 1
                        }}},
  };
  return table;
}

std::string rule_text(const std::string& node) {
  const auto& table = rules();
  auto it = table.find(node);
  return it == table.end() ? "(no rule in autograd/explain.cpp)" : it->second.text;
}

// The tensors a graph's nodes made, for names and forward values: `named` and the root.
std::map<const Node*, Tensor> made_by(const Tensor& root, const tensor_list& named) {
  std::map<const Node*, Tensor> made;
  for (const Tensor& t : named)
    if (t.defined() && t.grad_fn()) made[t.grad_fn().get()] = t;
  if (root.grad_fn()) made[root.grad_fn().get()] = root;
  return made;
}

// The value and name of the tensor travelling along edge `e`: a leaf, or a tensor of `made`.
const Tensor* along(const Edge& e, const std::map<const Node*, Tensor>& made, Tensor& leaf) {
  if (!e.valid()) return nullptr;
  leaf = e.fn->variable();
  if (leaf.defined()) return &leaf;
  auto it = made.find(e.fn.get());
  return it == made.end() ? nullptr : &it->second;
}

void tree_lines(const Node& node, int depth, const std::map<const Node*, Tensor>& made, std::set<const Node*>& seen,
                std::string& out) {
  const std::string indent(2 * depth + 2, ' ');
  if (Tensor leaf = node.variable(); leaf.defined()) {
    const std::string what = leaf.name().empty() ? "of shape " + shape_str(leaf.sizes()) : leaf.name();
    out += fmt::format("{}{} (leaf {})\n", indent, node.name(), what);
    return;
  }
  auto it = made.find(&node);
  const std::string name = it == made.end() ? "" : it->second.name();
  const bool again = !seen.insert(&node).second;
  out += fmt::format("{}{}{}{}\n", indent, name.empty() ? "" : name + " = ", node.name(), again ? "  (see above)" : "");
  if (again) return;
  for (const Edge& e : node.next_edges)
    if (e.valid()) tree_lines(*e.fn, depth + 1, made, seen, out);
}

// Clears the engine's node hook when it leaves scope, also when backward throws.
struct NodeHookGuard {
  explicit NodeHookGuard(NodeHook hook) { set_node_hook(std::move(hook)); }
  ~NodeHookGuard() { set_node_hook(nullptr); }
  NodeHookGuard(const NodeHookGuard&) = delete;
  NodeHookGuard& operator=(const NodeHookGuard&) = delete;
};

bool one_element(const Tensor& t) { return t.defined() && t.numel() == 1; }

}  // namespace

std::string graph_tree(const Tensor& root, const tensor_list& named) {
  EMBER_CHECK(root.defined(), "graph_tree: the tensor is undefined");
  if (!root.grad_fn()) {
    return fmt::format("  {} (a leaf: {})\n", root.name().empty() ? "tensor" : root.name(),
                       root.requires_grad() ? "requires grad, no graph above it" : "no graph, requires_grad is false");
  }
  std::string out;
  std::set<const Node*> seen;
  tree_lines(*root.grad_fn(), 0, made_by(root, named), seen, out);
  return out;
}

void print_tree(const Tensor& root, const tensor_list& named) { std::fputs(graph_tree(root, named).c_str(), stdout); }

std::vector<ChainRuleStep> explain_backward(const Tensor& root, const tensor_list& named) {
  EMBER_CHECK(root.defined() && root.grad_fn(), "explain_backward: the tensor has no graph (is it a leaf, or computed "
                                                "without requires_grad?)");
  EMBER_CHECK(root.numel() == 1, "explain_backward: the root must have one element (a loss), got shape {}",
              shape_str(root.sizes()));
  const std::map<const Node*, Tensor> made = made_by(root, named);
  std::vector<ChainRuleStep> steps;
  NodeHookGuard guard([&](const Node& node, const tensor_list& grads_in, const tensor_list& grads_out) {
    ChainRuleStep step;
    step.node = node.name();
    // A custom Function can run with no gradient flowing in (function.h): then g stays undefined.
    step.grad = grads_in.empty() || !grads_in[0].defined() ? Tensor() : grads_in[0].detach();
    if (Tensor leaf = node.variable(); leaf.defined()) {
      step.output = leaf.name();
      step.rule = "x.grad += g";
      steps.push_back(std::move(step));
      return;
    }
    step.rule = rule_text(node.name());
    auto me = made.find(&node);
    if (me != made.end()) step.output = me->second.name();
    const Tensor y = me == made.end() ? Tensor() : me->second.detach();
    tensor_list in;
    std::vector<std::string> names;
    for (const Edge& e : node.next_edges) {
      Tensor leaf;
      const Tensor* t = along(e, made, leaf);
      in.push_back(t ? t->detach() : Tensor());
      names.push_back(t ? t->name() : "");
    }
    const auto rule = rules().find(node.name());
    const tensor_list local = rule == rules().end() ? tensor_list{} : rule->second.local(in, y);
    for (size_t i = 0; i < node.next_edges.size() && i < grads_out.size(); ++i) {
      if (!node.next_edges[i].valid() || !grads_out[i].defined()) continue;
      ChainRuleStep::Input input;
      input.name = names[i];
      input.grad = grads_out[i].detach();
      if (i < local.size() && local[i].defined() && step.grad.defined()) {
        input.local = local[i];
        const Tensor chained = sum_to(step.grad * local[i], input.grad.sizes());
        input.max_difference = (chained - input.grad).abs().max().item<double>();
      }
      step.inputs.push_back(std::move(input));
    }
    steps.push_back(std::move(step));
  });
  root.backward();
  return steps;
}

std::string format_steps(const std::vector<ChainRuleStep>& steps) {
  std::string out;
  for (const ChainRuleStep& s : steps) {
    const bool scalar = one_element(s.grad);
    if (s.node == "AccumulateGrad") {
      const std::string added = scalar ? fmt::format("{:.4f}", s.grad.item<double>())
                                       : (s.grad.defined() ? shape_str(s.grad.sizes()) : "nothing");
      out += fmt::format("  AccumulateGrad   {}.grad += {}\n", s.output, added);
      continue;
    }
    const std::string g = scalar ? fmt::format("{:.4f}", s.grad.item<double>())
                                 : (s.grad.defined() ? shape_str(s.grad.sizes()) : "-");
    out += fmt::format("  {:<16} g = dL/d{} = {}      {}\n", s.node, s.output.empty() ? "?" : s.output, g, s.rule);
    for (const ChainRuleStep::Input& in : s.inputs) {
      const std::string name = in.name.empty() ? "?" : in.name;
      if (scalar && one_element(in.grad) && one_element(in.local)) {
        out += fmt::format("      dL/d{:<12} = {:7.4f} x {} = {:7.4f}\n", name, in.local.item<double>(), g,
                           in.grad.item<double>());
      } else if (in.local.defined()) {
        out += fmt::format("      dL/d{:<12} {}: sum_to(g * local) differs from the engine by {:.1e}\n", name,
                           shape_str(in.grad.sizes()), in.max_difference);
      } else {
        out += fmt::format("      dL/d{:<12} {}: no local derivative here (no elementwise rule, or an input "
                           "that is not a leaf nor named)\n",
                           name, shape_str(in.grad.sizes()));
      }
    }
  }
  return out;
}

void print_backward(const Tensor& root, const tensor_list& named) {
  std::fputs(format_steps(explain_backward(root, named)).c_str(), stdout);
}

}  // namespace ember::autograd
