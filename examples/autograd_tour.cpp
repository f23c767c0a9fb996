// A guided tour of Ember's autograd, for learners who know micrograd or PyTorch.
//
//   ./build/examples/autograd_tour [output_dir]     (writes the graph pictures there, default ".")
//
// 1. micrograd's README expression, with the same numbers (g = 24.7041, a.grad = 138.8338, ...).
// 2. A neuron o = tanh(x1 w1 + x2 w2 + b): its graph, then backward node by node, showing the
//    gradient flowing in, each local derivative, and the chain-rule product flowing out.
// 3. gradcheck: the analytical gradients against finite differences.
// 4. A custom autograd Function (tanh written by hand) that gradchecks and matches the built-in.
// 5. One causal self-attention head: its output and a gradient (printed exactly as PyTorch
//    prints them), its graph, and a gradcheck of all its weights.
// Every number here can be reproduced with PyTorch (scripts/gen_autograd_fixtures.py does).
#include <cmath>
#include <cstdlib>
#include <string>

#include <ember/ember.h>

using namespace ember;
using autograd::AutogradContext;
using autograd::variable_list;

namespace {

Tensor scalar(double v, const std::string& name) {
  Tensor t = tensor(v, dtype(kFloat64).requires_grad(true));
  t.set_name(name);
  return t;
}

double value(const Tensor& t) { return t.item<double>(); }

void heading(const std::string& title) { fmt::print("\n== {} ==\n", title); }

// Writes the graph of `root` as DOT and, when Graphviz is installed, as PNG.
void draw(const Tensor& root, const std::string& dir, const std::string& name, bool show_values) {
  autograd::DotOptions opt;
  opt.show_values = show_values;
  const std::string dot_path = dir + "/" + name + ".dot";
  autograd::save_dot(root, dot_path, opt);
  const std::string png_path = dir + "/" + name + ".png";
  if (std::system("command -v dot > /dev/null 2>&1") == 0 &&
      std::system(("dot -Tpng '" + dot_path + "' -o '" + png_path + "'").c_str()) == 0) {
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
  fmt::print("g.data = {:.4f}\n", value(g));  // the forward pass
  fmt::print("a.grad = {:.4f}\n", value(a.grad()));  // dg/da
  fmt::print("b.grad = {:.4f}\n", value(b.grad()));  // dg/db
}

// 2. The neuron, backward watched node by node through the engine's node hook.
void neuron_example(const std::string& dir) {
  heading("2. a neuron: o = tanh(x1*w1 + x2*w2 + b)");
  Tensor x1 = scalar(2.0, "x1"), x2 = scalar(0.0, "x2");
  Tensor w1 = scalar(-3.0, "w1"), w2 = scalar(1.0, "w2");
  Tensor b = scalar(6.8813735870195432, "b");
  Tensor n = x1 * w1 + x2 * w2 + b;
  Tensor o = n.tanh();
  o.set_name("o");
  fmt::print("n = {:.4f}\no = {:.4f}\n", value(n), value(o));
  fmt::print("\nThe graph, with PyTorch's node names (edges run from inputs to the ops that use them):\n");
  fmt::print("{}", autograd::to_dot(o));

  fmt::print("\nBackward, in the order the engine runs the nodes:\n");
  autograd::set_node_hook([](const autograd::Node& node, const tensor_list& in, const tensor_list& out) {
    if (node.name() == "AccumulateGrad") {
      fmt::print("  AccumulateGrad   adds {:+.4f} into {}.grad\n", value(in[0]), node.variable().name());
      return;
    }
    const double dout = value(in[0]);
    fmt::print("  {:<16} dL/dout = {:+.4f}\n", node.name(), dout);
    for (size_t i = 0; i < out.size(); ++i) {
      if (!out[i].defined()) continue;
      const double dinput = value(out[i]);
      // chain rule: dL/dinput = dL/dout * (local derivative d out / d input)
      if (dout != 0)
        fmt::print("      input {}: local derivative {:+.4f}  x  {:+.4f}  =  {:+.4f}\n", i, dinput / dout, dout, dinput);
      else
        fmt::print("      input {}: {:+.4f}\n", i, dinput);
    }
  });
  o.backward();
  autograd::set_node_hook(nullptr);

  fmt::print("\nx1.grad = {:.4f}\nw1.grad = {:.4f}\nx2.grad = {:.4f}\nw2.grad = {:.4f}\nb.grad = {:.4f}\n",
             value(x1.grad()), value(w1.grad()), value(x2.grad()), value(w2.grad()), value(b.grad()));
  draw(o, dir, "autograd_tour_neuron", /*show_values=*/true);
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
Tensor attention_head(const Tensor& x, const Tensor& w_query, const Tensor& w_key, const Tensor& w_value) {
  const int64_t T = x.size(0), HS = w_query.size(1);
  Tensor q = x.matmul(w_query);  // (T, HS)
  Tensor k = x.matmul(w_key);    // (T, HS)
  Tensor v = x.matmul(w_value);  // (T, HS)
  Tensor scores = q.matmul(k.t()) / std::sqrt(static_cast<double>(HS));  // (T, T)
  Tensor future = ones({T, T}, kBool).triu(1);                            // token t sees tokens <= t
  Tensor att = scores.masked_fill(future, -INFINITY).softmax(-1);         // (T, T)
  return att.matmul(v);                                                   // (T, HS)
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
  Tensor out = attention_head(x, wq, wk, wv);
  std::cout << "head(x) =\n" << out << '\n';
  out.sum().backward();
  std::cout << "W_query.grad =\n" << wq.grad() << '\n';
  draw(out, dir, "autograd_tour_attention", /*show_values=*/false);
  const bool ok = autograd::gradcheck(
      [](const tensor_list& in) { return attention_head(in[0], in[1], in[2], in[3]); }, {x, wq, wk, wv});
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
