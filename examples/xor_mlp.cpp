// A first program with Ember: a two-layer MLP learns XOR, the function no single neuron can learn.
//
//   ./build/examples/xor_mlp [output_dir]     (writes the graph as xor_mlp.dot there, default ".")
//
// It shows the pieces a student puts together in PyTorch, in C++: a model of nn::Linear layers, a
// loss written as a custom autograd Function with a backward derived by hand (binary cross-entropy),
// gradcheck proving that backward right, the graph of one training step as text and as DOT, and a
// training loop with an optimizer. Not a benchmark: four examples, a few hundred steps, a second.
#include <cmath>
#include <cstdio>
#include <string>

#include <ember/ember.h>

using namespace ember;
using autograd::AutogradContext;
using autograd::variable_list;

namespace {

constexpr int64_t kHidden = 8;          // hidden units
constexpr int64_t kSteps = 300;         // Adam steps on the four examples
constexpr double kLearningRate = 0.05;  // Adam's lr
constexpr double kEpsilon = 1e-7;       // keeps log() away from 0 when a prediction saturates

// Binary cross-entropy of probabilities p (N, 1) against targets t (N, 1), averaged:
//   L = -mean(t log p + (1 - t) log(1 - p))
// dL/dp = (p - t) / (p (1 - p)) / N, derived by hand; the targets get no gradient.
struct BinaryCrossEntropy : autograd::Function<BinaryCrossEntropy> {
  static Tensor forward(AutogradContext* ctx, Tensor p, Tensor t) {
    Tensor q = p.clamp(kEpsilon, 1 - kEpsilon);
    ctx->save_for_backward({q, t});
    return -(t * q.log() + (1 - t) * (1 - q).log()).mean();
  }
  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    const variable_list saved = ctx->get_saved_variables();
    const Tensor& q = saved[0];
    const Tensor& t = saved[1];
    const double n = static_cast<double>(q.numel());
    return {grad_outputs[0] * (q - t) / (q * (1 - q)) / n, Tensor()};
  }
};

// Two inputs -> kHidden tanh units -> one sigmoid output: the probability that x1 XOR x2 is 1.
struct MlpImpl : nn::Module {
  MlpImpl() {
    hidden = register_module("hidden", nn::Linear(2, kHidden));
    output = register_module("output", nn::Linear(kHidden, 1));
  }
  Tensor forward(const Tensor& x) { return output(hidden(x).tanh()).sigmoid(); }  // (N, 2) -> (N, 1)
  nn::Linear hidden{nullptr}, output{nullptr};
};
EMBER_MODULE(Mlp);

}  // namespace

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : ".";
  try {
    // 1. The hand-written backward agrees with finite differences (float64, away from 0 and 1).
    Tensor p = tensor({{0.2}, {0.7}, {0.4}, {0.9}}, dtype(kFloat64).requires_grad(true));
    Tensor t = tensor({{0.0}, {1.0}, {1.0}, {0.0}}, dtype(kFloat64));
    const bool ok = autograd::gradcheck([&](const tensor_list& in) { return BinaryCrossEntropy::apply(in[0], t); }, {p});
    std::printf("gradcheck(BinaryCrossEntropy): %s\n", ok ? "passed" : "FAILED");

    // 2. The data: all four rows of XOR's truth table.
    Tensor x = tensor({{0.0f, 0.0f}, {0.0f, 1.0f}, {1.0f, 0.0f}, {1.0f, 1.0f}});  // (4, 2)
    Tensor y = tensor({{0.0f}, {1.0f}, {1.0f}, {0.0f}});                        // (4, 1)

    manual_seed(0);
    Mlp model;
    for (auto& item : model->named_parameters()) item.value().set_name(item.key());  // "hidden.weight", ...
    optim::Adam optimizer(model->parameters(), optim::AdamOptions(kLearningRate));

    // 3. The graph of one step, from the loss back to the parameters.
    Tensor loss = BinaryCrossEntropy::apply(model(x), y).set_name("loss");
    std::printf("\nThe graph of the loss (PyTorch's node names):\n");
    autograd::print_tree(loss);
    const std::string dot_path = dir + "/xor_mlp.dot";
    autograd::save_dot(loss, dot_path);
    std::printf("graph written to %s (draw it: dot -Tpng %s -o xor_mlp.png)\n\n", dot_path.c_str(),
                dot_path.c_str());

    // 4. Training.
    for (int64_t step = 0; step <= kSteps; ++step) {
      if (step > 0) loss = BinaryCrossEntropy::apply(model(x), y);
      if (step % 100 == 0) std::printf("step %3ld: loss %.4f\n", static_cast<long>(step), loss.item<double>());
      if (step == kSteps) break;
      optimizer.zero_grad();
      loss.backward();
      optimizer.step();
    }

    // 5. What it learned.
    NoGradGuard no_grad;
    Tensor prob = model(x);
    bool learned = true;
    std::printf("\n x1 x2 | target | p(1)\n");
    for (int64_t i = 0; i < 4; ++i) {
      const double pi = prob[i][0].item<double>(), yi = y[i][0].item<double>();
      std::printf("  %.0f  %.0f |   %.0f    | %.4f\n", x[i][0].item<double>(), x[i][1].item<double>(), yi, pi);
      learned = learned && (pi > 0.5) == (yi > 0.5);
    }
    std::printf("learned XOR: %s\n", learned ? "yes" : "no");
    return learned && ok ? 0 : 1;
  } catch (const Error& e) {
    std::fprintf(stderr, "xor_mlp: %s\n", e.what());
    return 1;
  }
}
