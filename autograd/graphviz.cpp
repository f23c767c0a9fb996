// to_dot (autograd/graphviz.h): a breadth-first walk over the backward graph from the root's
// grad_fn, one DOT node per autograd node, leaf tensors drawn beside their AccumulateGrad, and
// the intermediate tensors of DotOptions::tensors written into the node that made them.
// Node ids (n0, n1, ...) follow the walk's order, so the text is the same on every run.
#include "autograd/graphviz.h"

#include <fstream>
#include <queue>
#include <sstream>
#include <unordered_map>

#include "autograd/autograd.h"

namespace ember::autograd {

namespace {

constexpr const char* kRootColor = "darkolivegreen1";
constexpr const char* kLeafColor = "lightblue";
constexpr const char* kNodeColor = "lightgray";

// A DOT string literal's body: quotes and backslashes escaped, newlines as DOT's "\n".
std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

// "[1.0000, 2.0000]" for small tensors, "" when there are more than `max` elements.
std::string values_str(const Tensor& t, int64_t max) {
  if (!t.defined() || t.numel() > max) return "";
  NoGradGuard no_grad;
  std::vector<std::string> parts;
  for (double v : t.detach().to(kFloat64).to_vector<double>()) parts.push_back(fmt::format("{:.4f}", v));
  return fmt::format("[{}]", fmt::join(parts, ", "));
}

// "\ndata [..]\ngrad [..]" for a small tensor when show_values is on; "" otherwise.
std::string values_lines(const Tensor& t, const DotOptions& opt) {
  if (!opt.show_values) return "";
  std::string lines;
  const std::string data = values_str(t, opt.max_values_shown);
  if (!data.empty()) lines += fmt::format("\ndata {}", data);
  const std::string grad = values_str(t.grad(), opt.max_values_shown);
  if (!grad.empty()) lines += fmt::format("\ngrad {}", grad);
  return lines;
}

// Label of a tensor box: its name (or `fallback`), shape, and optionally data and grad.
std::string tensor_label(const Tensor& t, const std::string& fallback, const DotOptions& opt) {
  const std::string name = t.name().empty() ? fallback : t.name();
  return fmt::format("{}\n{}{}", name, shape_str(t.sizes()), values_lines(t, opt));
}

// Label of a node box: its name and output shapes, then the name (and values) of any tensor of
// DotOptions::tensors that it made.
std::string node_label(const Node& n, const DotOptions& opt) {
  std::vector<std::string> shapes;
  for (const auto& s : n.output_sizes) shapes.push_back(shape_str(s));
  std::string label = fmt::format("{}\n{}", n.name(), fmt::join(shapes, ", "));
  for (const Tensor& t : opt.tensors) {
    if (!t.defined() || t.grad_fn().get() != &n) continue;
    if (!t.name().empty()) label += fmt::format("\n{}", t.name());
    label += values_lines(t, opt);
  }
  return label;
}

class DotWriter {
 public:
  explicit DotWriter(const DotOptions& opt) : opt_(opt) {}

  std::string box(const std::string& label, const char* color) {
    const std::string id = fmt::format("n{}", count_++);
    nodes_ << "  " << id << " [label=\"" << escape(label) << "\", fillcolor=" << color << "];\n";
    return id;
  }
  void edge(const std::string& from, const std::string& to) { edges_ << "  " << from << " -> " << to << ";\n"; }

  // Walks the graph below `root_fn`; returns the DOT id of root_fn.
  std::string walk(const std::shared_ptr<Node>& root_fn) {
    std::unordered_map<const Node*, std::string> ids;
    std::queue<Node*> todo;
    auto id_of = [&](Node* n) {
      auto it = ids.find(n);
      if (it != ids.end()) return it->second;
      const std::string id = box(node_label(*n, opt_), kNodeColor);
      ids.emplace(n, id);
      todo.push(n);
      if (Tensor leaf = n->variable(); leaf.defined()) edge(box(tensor_label(leaf, "leaf", opt_), kLeafColor), id);
      return id;
    };
    const std::string root_id = id_of(root_fn.get());
    while (!todo.empty()) {
      Node* n = todo.front();
      todo.pop();
      const std::string to = ids.at(n);
      for (const Edge& e : n->next_edges)
        if (e.valid()) edge(id_of(e.fn.get()), to);
    }
    return root_id;
  }

  std::string str() const {
    return "digraph autograd {\n  node [shape=box, style=filled, fontname=\"monospace\", fontsize=10];\n" +
           nodes_.str() + edges_.str() + "}\n";
  }

 private:
  const DotOptions& opt_;
  std::ostringstream nodes_, edges_;
  int count_ = 0;
};

}  // namespace

std::string to_dot(const Tensor& root, const DotOptions& options) {
  EMBER_CHECK(root.defined(), "to_dot: expected a defined tensor, got an undefined one");
  DotWriter w(options);
  if (std::shared_ptr<Node> fn = root.grad_fn()) {
    const std::string fn_id = w.walk(fn);
    w.edge(fn_id, w.box(tensor_label(root, "output", options), kRootColor));
  } else {
    w.box(tensor_label(root, root.requires_grad() ? "leaf" : "tensor", options),
          root.requires_grad() ? kLeafColor : kRootColor);
  }
  return w.str();
}

void save_dot(const Tensor& root, const std::string& path, const DotOptions& options) {
  std::ofstream out(path);
  EMBER_CHECK(out.good(), "save_dot: cannot open '{}' for writing", path);
  out << to_dot(root, options);
  EMBER_CHECK(out.good(), "save_dot: writing '{}' failed", path);
}

}  // namespace ember::autograd
