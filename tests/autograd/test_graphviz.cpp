// autograd::to_dot: the DOT text of small graphs, node by node and edge by edge.
#include <fstream>
#include <sstream>

#include "test_util.h"

using namespace ember;

namespace {

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + what.size())) ++n;
  return n;
}

}  // namespace

TEST(Graphviz, MulSumGraph) {
  Tensor x = tensor({1.0, 2.0}, requires_grad());
  Tensor w = tensor({3.0, 4.0}, requires_grad());
  x.set_name("x");
  w.set_name("w");
  Tensor y = (x * w).sum();
  // Breadth-first from SumBackward0; each AccumulateGrad is followed by its leaf's box; the root
  // tensor comes last. Edges run from inputs to the ops that used them.
  const std::string expected =
      "digraph autograd {\n"
      "  node [shape=box, style=filled, fontname=\"monospace\", fontsize=10];\n"
      "  n0 [label=\"SumBackward0\\n[]\", fillcolor=lightgray];\n"
      "  n1 [label=\"MulBackward0\\n[2]\", fillcolor=lightgray];\n"
      "  n2 [label=\"AccumulateGrad\\n[2]\", fillcolor=lightgray];\n"
      "  n3 [label=\"x\\n[2]\", fillcolor=lightblue];\n"
      "  n4 [label=\"AccumulateGrad\\n[2]\", fillcolor=lightgray];\n"
      "  n5 [label=\"w\\n[2]\", fillcolor=lightblue];\n"
      "  n6 [label=\"output\\n[]\", fillcolor=darkolivegreen1];\n"
      "  n1 -> n0;\n"
      "  n3 -> n2;\n"
      "  n2 -> n1;\n"
      "  n5 -> n4;\n"
      "  n4 -> n1;\n"
      "  n0 -> n6;\n"
      "}\n";
  EXPECT_EQ(autograd::to_dot(y), expected);
}

TEST(Graphviz, SharedLeafHasOneNodeAndTwoEdges) {
  Tensor x = tensor({1.0, 2.0}, requires_grad());
  Tensor y = (x * x).tanh();
  const std::string dot = autograd::to_dot(y);
  EXPECT_EQ(count(dot, "AccumulateGrad"), 1);
  EXPECT_EQ(count(dot, "n2 -> n1;"), 2);  // x used twice by MulBackward0
  EXPECT_EQ(count(dot, " -> "), 5);       // leaf->acc, acc->mul (x2), mul->tanh, tanh->root
  EXPECT_NE(dot.find("TanhBackward0\\n[2]"), std::string::npos);
  EXPECT_NE(dot.find("leaf\\n[2]"), std::string::npos);  // an unnamed leaf
}

TEST(Graphviz, ValuesAndGradsMicrogradStyle) {
  Tensor a = tensor(2.0, dtype(kFloat64).requires_grad(true));
  a.set_name("a");
  Tensor y = a * 3;
  y.set_name("y");
  y.backward();
  autograd::DotOptions opt;
  opt.show_values = true;
  const std::string dot = autograd::to_dot(y, opt);
  EXPECT_NE(dot.find("a\\n[]\\ndata [2.0000]\\ngrad [3.0000]"), std::string::npos) << dot;
  EXPECT_NE(dot.find("y\\n[]\\ndata [6.0000]"), std::string::npos) << dot;
}

TEST(Graphviz, LeafAloneAndSaveDot) {
  Tensor t = tensor({1.0, 2.0, 3.0});
  EXPECT_EQ(count(autograd::to_dot(t), "[label="), 1);
  EXPECT_EQ(count(autograd::to_dot(t), "->"), 0);
  const std::string path = ::testing::TempDir() + "ember_graph.dot";
  Tensor x = tensor({1.0}, requires_grad());
  autograd::save_dot(x.exp(), path);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), autograd::to_dot(x.exp()));
  EXPECT_THROWS_WITH(autograd::save_dot(x, "/nonexistent/dir/g.dot"), "save_dot: cannot open '/nonexistent/dir/g.dot'");
}

TEST(Graphviz, IntermediateTensorsLabelTheirNode) {
  // micrograd's draw_dot shows every value: pass the intermediates, retain_grad() them for their grads.
  Tensor a = tensor(2.0, dtype(kFloat64).requires_grad(true));
  Tensor h = a * 3;
  Tensor y = h.tanh();
  h.set_name("h");
  h.retain_grad();
  y.backward();
  autograd::DotOptions opt;
  opt.tensors = {h};
  EXPECT_NE(autograd::to_dot(y, opt).find("MulBackward0\\n[]\\nh\""), std::string::npos) << autograd::to_dot(y, opt);
  opt.show_values = true;
  const std::string dot = autograd::to_dot(y, opt);
  // d tanh(h)/dh at h = 6: 1 - tanh(6)^2 = 0.0000245...
  EXPECT_NE(dot.find("MulBackward0\\n[]\\nh\\ndata [6.0000]\\ngrad [0.0000]"), std::string::npos) << dot;
  EXPECT_EQ(count(dot, "\\nh\\n"), 1);  // only on the node that made h
}
