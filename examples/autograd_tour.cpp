// A guided tour of Ember's autograd, for learners who know micrograd or PyTorch.
//
//   ./build/examples/autograd_tour [output_dir]     (writes the graph pictures there, default ".")
//
// 1. micrograd's README expression, with the same numbers (g = 24.7041, a.grad = 138.8338, ...).
// 2. A neuron o = tanh(x1 w1 + x2 w2 + b): its graph as a tree, then backward node by node as the
//    engine runs it: the gradient flowing in, each local derivative and the chain-rule product
//    flowing out. Its picture carries every value and gradient, as micrograd's draw_dot does.
// 3. gradcheck: the analytical gradients against finite differences.
// 4. A custom autograd Function (tanh written by hand) that gradchecks and matches the built-in.
// 5. One causal self-attention head: its output and a gradient (printed exactly as PyTorch prints
//    them), its graph, backward node by node with each node's rule recomputed by hand and compared
//    with what the engine produced, its picture, and a gradcheck of all its weights.
// Every number here can be reproduced with PyTorch (scripts/gen_autograd_fixtures.py does).
#include <spawn.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>

#include <ember/ember.h>
#include <sys/wait.h>

using namespace ember;
using autograd::AutogradContext;
using autograd::Node;
using autograd::variable_list;

namespace {

Tensor scalar(double v, const std::string& name) {
  Tensor t = tensor(v, dtype(kFloat64).requires_grad(true));
  t.set_name(name);
  return t;
}

double value(const Tensor& t) { return t.item<double>(); }

void heading(const std::string& title) { fmt::print("\n== {} ==\n", title); }

// The backward rule of each node kind met in this tour, as a PyTorch user would write it: g is the
// gradient flowing into the node, the right-hand sides are what it sends to its inputs.
const std::string& rule(const std::string& node_name) {
  static const std::map<std::string, std::string> rules = {
      {"TanhBackward0", "o = tanh(a): da = g * (1 - o^2)"},
      {"AddBackward0", "a + b: da = g, db = g"},
      {"MulBackward0", "a * b: da = g * b, db = g * a"},
      {"SumBackward0", "a.sum(): da = g expanded to a's shape"},
      {"MmBackward0", "a @ b: da = g @ b^T, db = a^T @ g"},
      {"TBackward0", "a^T: da = g^T"},
      {"DivBackward0", "a / s: da = g / s"},
      {"MaskedFillBackward0", "a.masked_fill(m, -inf): da = g, 0 where m"},
      {"SoftmaxBackward0", "y = softmax(a): da = y * (g - (g * y).sum(-1))"},
  };
  return rules.at(node_name);
}

// The name of the tensor `node` made, when it is one of `named`; else "".
std::string output_name(const Node& node, const tensor_list& named) {
  for (const Tensor& t : named)
    if (t.grad_fn().get() == &node) return t.name();
  return "";
}

// "[3, 2], -, [4, 2]": the shapes of a list of gradients ("-": none for that input).
std::string shapes(const tensor_list& grads) {
  std::vector<std::string> parts;
  for (const Tensor& g : grads) parts.push_back(g.defined() ? shape_str(g.sizes()) : "-");
  return fmt::format("{}", fmt::join(parts, ", "));
}

// Runs `argv` (argv[0] looked up on PATH) without a shell, so paths reach it as data, never as code;
// true when it started and exited with status 0.
bool run_program(std::vector<std::string> argv) {
  std::vector<char*> args;
  for (std::string& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawnp(&pid, args[0], nullptr, nullptr, args.data(), environ) != 0) return false;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return false;
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// Writes the graph of `root` as DOT and, when Graphviz is installed, as PNG.
void draw(const Tensor& root, const std::string& dir, const std::string& name, const autograd::DotOptions& opt) {
  const std::string dot_path = dir + "/" + name + ".dot";
  autograd::save_dot(root, dot_path, opt);
  const std::string png_path = dir + "/" + name + ".png";
  if (run_program({"dot", "-Tpng", dot_path, "-o", png_path})) {
    fmt::print("graph written to {} and {}\n", dot_path, png_path);
  } else {
    fmt::print("graph written to {} (install Graphviz, `apt-get install graphviz`, then run: dot -Tpng {} -o {})\n",
               dot_path, dot_path, png_path);
  }
}

// 1. The expression from micrograd's README; Python's `c += x` makes a new node, so here c = c + x.
void micrograd_example() {
  heading("1. micrograd's example");
  Tensor a = scalar(-4.0, "a");
  Tensor b = scalar(2.0, "b");
  Tensor c = a + b;
  Tensor d = a * b + b.pow(3);
  c = c + c + 1;
  c = c + 1 + c + (-a);
  d = d + d * 2 + (b + a).relu();
  d = d + 3 * d + (b - a).relu();
  Tensor e = c - d;
  Tensor f = e.pow(2);
  Tensor g = f / 2.0;
  g = g + 10.0 / f;
  g.backward();
  fmt::print("g.data = {:.4f}\n", value(g));         // the forward pass
  fmt::print("a.grad = {:.4f}\n", value(a.grad()));  // dg/da
  fmt::print("b.grad = {:.4f}\n", value(b.grad()));  // dg/db
}

// 2. The neuron, backward watched node by node through the engine's node hook.
void neuron_example(const std::string& dir) {
  heading("2. a neuron: o = tanh(x1*w1 + x2*w2 + b)");
  Tensor x1 = scalar(2.0, "x1"), x2 = scalar(0.0, "x2");
  Tensor w1 = scalar(-3.0, "w1"), w2 = scalar(1.0, "w2");
  Tensor b = scalar(6.8813735870195432, "b");
  Tensor x1w1 = x1 * w1, x2w2 = x2 * w2;
  Tensor x1w1x2w2 = x1w1 + x2w2;
  Tensor n = x1w1x2w2 + b;
  Tensor o = n.tanh();
  const tensor_list named = {x1w1.set_name("x1w1"), x2w2.set_name("x2w2"), x1w1x2w2.set_name("x1w1x2w2"),
                             n.set_name("n"), o.set_name("o")};
  for (const Tensor& t : named) t.retain_grad();  // keep their gradients, for the picture
  fmt::print("n = {:.4f}\no = {:.4f}\n", value(n), value(o));
  fmt::print("\nThe graph, from the output back to the leaves (PyTorch's node names):\n");
  autograd::print_tree(o, named);

  fmt::print(
      "\nBackward, in the order the engine runs the nodes. Each node receives g = dL/d(what it made)\n"
      "and sends each input its local derivative times g (the chain rule):\n");
  // Each local derivative is computed from the forward values (autograd/explain.cpp), not read
  // back from the engine, so "local x g = what the engine sent" is a check that holds.
  autograd::print_backward(o, named);

  fmt::print("\nx1.grad = {:.4f}\nw1.grad = {:.4f}\nx2.grad = {:.4f}\nw2.grad = {:.4f}\nb.grad = {:.4f}\n",
             value(x1.grad()), value(w1.grad()), value(x2.grad()), value(w2.grad()), value(b.grad()));
  autograd::DotOptions opt;
  opt.show_values = true;  // data and grad in every box, as micrograd's draw_dot
  opt.tensors = named;
  draw(o, dir, "autograd_tour_neuron", opt);
}

// 3. The same neuron over vectors, checked against central finite differences.
void gradcheck_example() {
  heading("3. gradcheck");
  Tensor x = tensor({2.0, 0.0}, dtype(kFloat64).requires_grad(true));
  Tensor w = tensor({-3.0, 1.0}, dtype(kFloat64).requires_grad(true));
  Tensor b = tensor(6.8813735870195432, dtype(kFloat64).requires_grad(true));
  auto neuron = [](const tensor_list& in) { return ((in[0] * in[1]).sum() + in[2]).tanh(); };
  const bool ok = autograd::gradcheck(neuron, {x, w, b});
  fmt::print("gradcheck(neuron): {}\n", ok ? "passed" : "FAILED");
}

// 4. tanh as a custom Function: forward saves its output, backward uses 1 - tanh^2.
struct MyTanh : autograd::Function<MyTanh> {
  static Tensor forward(AutogradContext* ctx, Tensor x) {
    Tensor y = x.tanh();
    ctx->save_for_backward({y});
    return y;
  }
  // d/dx tanh(x) = 1 - tanh(x)^2
  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    Tensor y = ctx->get_saved_variables()[0];
    return {grad_outputs[0] * (1 - y * y)};
  }
};

void custom_function_example() {
  heading("4. a custom Function");
  Tensor x = tensor({-1.0, 0.5, 2.0}, dtype(kFloat64).requires_grad(true));
  Tensor y = MyTanh::apply(x);
  std::cout << "MyTanh::apply(x) = " << y << '\n';
  y.sum().backward();
  Tensor builtin = x.detach().requires_grad_();
  builtin.tanh().sum().backward();
  fmt::print("same gradient as Tensor::tanh: {}\n", allclose(x.grad(), builtin.grad()) ? "yes" : "NO");
  const bool ok = autograd::gradcheck([](const tensor_list& in) { return MyTanh::apply(in[0]); }, {x});
  fmt::print("gradcheck(MyTanh): {}\n", ok ? "passed" : "FAILED");
}

// 5. One causal self-attention head over T=3 tokens with C=4 channels and head size HS=2.
struct Head {
  Tensor q, k, v;  // (T, HS) each: x @ W_query, x @ W_key, x @ W_value
  Tensor kt;       // (HS, T): k^T
  Tensor qk;       // (T, T): q @ k^T
  Tensor scores;   // (T, T): qk / sqrt(HS)
  Tensor future;   // (T, T) bool: true above the diagonal, the tokens t may not see
  Tensor masked;   // (T, T): scores, -inf where future
  Tensor att;      // (T, T): softmax over each row
  Tensor out;      // (T, HS): att @ v
};

Head attention_head(const Tensor& x, const Tensor& w_query, const Tensor& w_key, const Tensor& w_value) {
  const int64_t T = x.size(0), HS = w_query.size(1);
  Head h;
  h.q = x.matmul(w_query);
  h.k = x.matmul(w_key);
  h.v = x.matmul(w_value);
  h.kt = h.k.t();
  h.qk = h.q.matmul(h.kt);
  h.scores = h.qk / std::sqrt(static_cast<double>(HS));
  h.future = ones({T, T}, kBool).triu(1);
  h.masked = h.scores.masked_fill(h.future, -INFINITY);
  h.att = h.masked.softmax(-1);
  h.out = h.att.matmul(h.v);
  return h;
}

// Each node's rule of rule() written with the forward's tensors: g -> the gradients it must send.
std::map<const Node*, std::function<tensor_list(const Tensor&)>> rules_by_hand(const Head& h, const Tensor& loss,
                                                                               const Tensor& x, const tensor_list& w) {
  const Tensor q = h.q.detach(), kt = h.kt.detach(), v = h.v.detach(), att = h.att.detach(), xd = x.detach();
  const Tensor future = h.future;
  const double scale = std::sqrt(static_cast<double>(h.q.size(1)));
  const std::vector<int64_t> out_sizes = h.out.sizes().vec();
  std::map<const Node*, std::function<tensor_list(const Tensor&)>> by_hand = {
      {loss.grad_fn().get(), [=](const Tensor& g) { return tensor_list{g.expand(out_sizes)}; }},
      {h.out.grad_fn().get(),
       [=](const Tensor& g) {
         return tensor_list{g.matmul(v.t()), att.t().matmul(g)};
       }},
      {h.att.grad_fn().get(), [=](const Tensor& g) { return tensor_list{att * (g - (g * att).sum({-1}, true))}; }},
      {h.masked.grad_fn().get(), [=](const Tensor& g) { return tensor_list{g.masked_fill(future, 0)}; }},
      {h.scores.grad_fn().get(),
       [=](const Tensor& g) {
         return tensor_list{g / scale, Tensor()};
       }},
      {h.qk.grad_fn().get(),
       [=](const Tensor& g) {
         return tensor_list{g.matmul(kt.t()), q.t().matmul(g)};
       }},
      {h.kt.grad_fn().get(), [=](const Tensor& g) { return tensor_list{g.t()}; }},
  };
  const Tensor* projections[] = {&h.q, &h.k, &h.v};
  for (size_t i = 0; i < 3; ++i)
    by_hand[projections[i]->grad_fn().get()] = [=, wd = w[i].detach()](const Tensor& g) {
      return tensor_list{g.matmul(wd.t()), xd.t().matmul(g)};
    };
  return by_hand;
}

void attention_example(const std::string& dir) {
  heading("5. one self-attention head");
  auto weights = [](int64_t rows, int64_t cols, double phase, const std::string& name) {
    Tensor w = ((arange(rows * cols, kFloat64) * 0.7 + phase).sin() * 0.5).view({rows, cols});
    w.requires_grad_().set_name(name);
    return w;
  };
  Tensor x = weights(3, 4, 0.1, "x");
  Tensor wq = weights(4, 2, 0.2, "W_query"), wk = weights(4, 2, 0.3, "W_key"), wv = weights(4, 2, 0.4, "W_value");
  Head h = attention_head(x, wq, wk, wv);
  Tensor loss = h.out.sum();
  const tensor_list named = {h.q.set_name("q"),           h.k.set_name("k"),      h.v.set_name("v"),
                             h.kt.set_name("k^T"),        h.qk.set_name("q@k^T"), h.scores.set_name("scores"),
                             h.masked.set_name("masked"), h.att.set_name("att"),  h.out.set_name("out"),
                             loss.set_name("loss")};
  std::cout << "head(x) =\n" << h.out << '\n';
  fmt::print("\nThe graph of loss = out.sum():\n");
  autograd::print_tree(loss, named);

  fmt::print(
      "\nBackward, node by node: the shapes of the gradient in and out, the node's rule, and the\n"
      "largest difference between that rule computed by hand and what the engine sent:\n");
  const auto by_hand = rules_by_hand(h, loss, x, {wq, wk, wv});
  autograd::set_node_hook([&](const Node& node, const tensor_list& in, const tensor_list& out) {
    if (node.name() == "AccumulateGrad") {
      fmt::print("  AccumulateGrad       {}.grad += {}\n", node.variable().name(), shapes(in));
      return;
    }
    const tensor_list expected = by_hand.at(&node)(in[0]);
    double worst = 0;
    for (size_t i = 0; i < out.size(); ++i)
      if (out[i].defined()) worst = std::max(worst, (out[i] - expected[i]).abs().max().item<double>());
    const std::string flow = fmt::format("{} -> {}", shapes(in), shapes(out));
    fmt::print("  {:<20} dL/d{:<7} {:<25} {:<46} by hand: {:.0e}\n", node.name(), output_name(node, named), flow,
               rule(node.name()), worst);
  });
  loss.backward();
  autograd::set_node_hook(nullptr);
  std::cout << "W_query.grad =\n" << wq.grad() << '\n';

  autograd::DotOptions opt;
  opt.tensors = named;  // each node box says which tensor it made
  draw(h.out, dir, "autograd_tour_attention", opt);
  const bool ok = autograd::gradcheck(
      [](const tensor_list& in) { return attention_head(in[0], in[1], in[2], in[3]).out; }, {x, wq, wk, wv});
  fmt::print("gradcheck(attention head): {}\n", ok ? "passed" : "FAILED");
}

}  // namespace

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : ".";
  try {
    micrograd_example();
    neuron_example(dir);
    gradcheck_example();
    custom_function_example();
    attention_example(dir);
  } catch (const Error& e) {
    fmt::print(stderr, "autograd_tour: {}\n", e.what());
    return 1;
  }
  return 0;
}
