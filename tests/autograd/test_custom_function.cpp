// Custom autograd functions (autograd/function.h), written as a libtorch user would: gradients
// that gradcheck, saved tensors and values, needs_input_grad, non-differentiable outputs,
// materialize_grads, and the errors for a backward that returns the wrong thing.
#include "test_util.h"

using namespace ember;
using autograd::AutogradContext;
using autograd::variable_list;

namespace {

Tensor f64(std::vector<double> v) {
  return from_vector(v, {static_cast<int64_t>(v.size())}, dtype(kFloat64).requires_grad(true));
}

struct MyExp : autograd::Function<MyExp> {
  static Tensor forward(AutogradContext* ctx, Tensor x) {
    Tensor y = x.exp();
    ctx->save_for_backward({y});
    return y;
  }
  // d/dx exp(x) = exp(x)
  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    return {grad_outputs[0] * ctx->get_saved_variables()[0]};
  }
};

// y = scale * (x W^T + b): a non-tensor argument in the middle, saved in saved_data.
struct ScaledLinear : autograd::Function<ScaledLinear> {
  static Tensor forward(AutogradContext* ctx, Tensor x, double scale, Tensor w, Tensor b) {
    ctx->save_for_backward({x, w});
    ctx->saved_data["scale"] = scale;
    return (x.matmul(w.t()) + b) * scale;
  }
  static variable_list backward(AutogradContext* ctx, variable_list g) {
    variable_list saved = ctx->get_saved_variables();
    const double scale = ctx->saved_data["scale"].toDouble();
    Tensor dy = g[0] * scale;  // (N, out)
    Tensor dx = ctx->needs_input_grad(0) ? dy.matmul(saved[1]) : Tensor();
    Tensor dw = ctx->needs_input_grad(1) ? dy.t().matmul(saved[0]) : Tensor();
    Tensor db = ctx->needs_input_grad(2) ? dy.sum(0) : Tensor();
    return {dx, Tensor(), dw, db};
  }
};

// Returns (max value, its index as float); the index is marked non-differentiable.
struct MaxWithIndex : autograd::Function<MaxWithIndex> {
  static variable_list forward(AutogradContext* ctx, Tensor x) {
    auto [v, i] = x.max(0);
    Tensor index = i.to(kFloat64);
    ctx->mark_non_differentiable({index});
    ctx->save_for_backward({i});
    ctx->saved_data["n"] = x.size(0);
    return {v, index};
  }
  static variable_list backward(AutogradContext* ctx, variable_list g) {
    Tensor onehot = one_hot(ctx->get_saved_variables()[0], ctx->saved_data["n"].toInt()).to(kFloat64);
    return {onehot * g[0]};
  }
};

// Two outputs; records what backward received, with materialize_grads off when asked.
struct TwoOutputs : autograd::Function<TwoOutputs> {
  static inline std::vector<bool> seen_defined;
  static variable_list forward(AutogradContext* ctx, Tensor x, bool materialize) {
    ctx->set_materialize_grads(materialize);
    return {x * 2, x * 3};
  }
  static variable_list backward(AutogradContext*, variable_list g) {
    seen_defined = {g[0].defined(), g[1].defined()};
    Tensor dx = g[0].defined() ? g[0] * 2 : Tensor();
    if (g[1].defined()) dx = dx.defined() ? dx + g[1] * 3 : g[1] * 3;
    return {dx, Tensor()};
  }
};

// A tensor_list argument: one input (and one returned gradient) per element.
struct WeightedSum : autograd::Function<WeightedSum> {
  static Tensor forward(AutogradContext* ctx, variable_list xs, double c) {
    ctx->saved_data["c"] = c;
    ctx->saved_data["n"] = xs.size();
    Tensor total = xs[0] * c;
    for (size_t i = 1; i < xs.size(); ++i) total = total + xs[i] * c * static_cast<double>(i + 1);
    return total;
  }
  // d/dx_i sum_j (j + 1) c x_j = (i + 1) c
  static variable_list backward(AutogradContext* ctx, variable_list g) {
    const double c = ctx->saved_data["c"].toDouble();
    variable_list grads;
    for (int64_t i = 0; i < ctx->saved_data["n"].toInt(); ++i) grads.push_back(g[0] * c * static_cast<double>(i + 1));
    grads.push_back(Tensor());  // for c
    return grads;
  }
};

// Backwards that return the wrong thing.
struct TooFewGrads : autograd::Function<TooFewGrads> {
  static Tensor forward(AutogradContext*, Tensor x, Tensor y) { return x * y; }
  static variable_list backward(AutogradContext*, variable_list g) { return {g[0]}; }
};
struct WrongShape : autograd::Function<WrongShape> {
  static Tensor forward(AutogradContext*, Tensor x) { return x * 2; }
  static variable_list backward(AutogradContext*, variable_list g) { return {ones({5}, kFloat64)}; }
};
struct GradForDouble : autograd::Function<GradForDouble> {
  static Tensor forward(AutogradContext*, Tensor x, double c) { return x * c; }
  static variable_list backward(AutogradContext*, variable_list g) { return {g[0], g[0]}; }
};
// Returns a gradient of the broadcast shape (2, 3) for a (3) input: summed back, as PyTorch does.
struct BroadcastGrad : autograd::Function<BroadcastGrad> {
  static Tensor forward(AutogradContext*, Tensor x) { return x.sum(); }
  static variable_list backward(AutogradContext*, variable_list g) { return {ones({2, 3}, kFloat64) * g[0]}; }
};

}  // namespace

TEST(CustomFunction, ExpMatchesBuiltinAndGradchecks) {
  Tensor x = f64({0.5, -1.0, 2.0});
  Tensor y = MyExp::apply(x);
  EXPECT_EQ(y.grad_fn()->name(), "MyExpBackward");
  EXPECT_TENSOR_CLOSE(y, x.detach().exp());
  y.sum().backward();
  EXPECT_TENSOR_CLOSE(x.grad(), x.detach().exp());
  EXPECT_TRUE(autograd::gradcheck([](const tensor_list& in) { return MyExp::apply(in[0]); }, {f64({0.3, -0.7})}));
}

TEST(CustomFunction, NonTensorArgumentsAndSavedData) {
  Tensor x = tensor({{1.0, 2.0}, {3.0, 4.0}, {5.0, 6.0}}, dtype(kFloat64).requires_grad(true));
  Tensor w = tensor({{0.5, -1.0}}, dtype(kFloat64).requires_grad(true));
  Tensor b = tensor({0.25}, dtype(kFloat64).requires_grad(true));
  auto fn = [](const tensor_list& in) { return ScaledLinear::apply(in[0], 2.5, in[1], in[2]); };
  EXPECT_TRUE(autograd::gradcheck(fn, {x, w, b}));
  // Against the same expression in built-in ops.
  ScaledLinear::apply(x, 2.5, w, b).sum().backward();
  Tensor x2 = x.detach().requires_grad_(), w2 = w.detach().requires_grad_(), b2 = b.detach().requires_grad_();
  ((x2.matmul(w2.t()) + b2) * 2.5).sum().backward();
  EXPECT_TENSOR_CLOSE(x.grad(), x2.grad());
  EXPECT_TENSOR_CLOSE(w.grad(), w2.grad());
  EXPECT_TENSOR_CLOSE(b.grad(), b2.grad());
}

TEST(CustomFunction, NeedsInputGradFollowsRequiresGrad) {
  Tensor x = tensor({{1.0, 2.0}}, dtype(kFloat64));  // a constant
  Tensor w = tensor({{0.5, -1.0}}, dtype(kFloat64).requires_grad(true));
  Tensor b = tensor({0.25}, dtype(kFloat64));
  ScaledLinear::apply(x, 1.0, w, b).sum().backward();
  EXPECT_TENSOR_CLOSE(w.grad(), tensor({{1.0, 2.0}}, kFloat64));
  EXPECT_FALSE(x.grad().defined());
  // No input requires grad: forward only, no node.
  EXPECT_FALSE(ScaledLinear::apply(x, 1.0, w.detach(), b).requires_grad());
}

TEST(CustomFunction, NonDifferentiableOutput) {
  Tensor x = f64({1.0, 5.0, 3.0});
  variable_list out = MaxWithIndex::apply(x);
  EXPECT_TRUE(out[0].requires_grad());
  EXPECT_FALSE(out[1].requires_grad());
  EXPECT_DOUBLE_EQ(out[1].item<double>(), 1.0);
  (out[0] * 4).backward();
  EXPECT_TENSOR_CLOSE(x.grad(), tensor({0.0, 4.0, 0.0}, kFloat64));
}

TEST(CustomFunction, MaterializeGrads) {
  Tensor x = f64({1.0, 2.0});
  TwoOutputs::apply(x, true)[0].sum().backward();
  EXPECT_EQ(TwoOutputs::seen_defined, std::vector<bool>({true, true}));  // zeros for the unused output
  EXPECT_TENSOR_CLOSE(x.grad(), tensor({2.0, 2.0}, kFloat64));
  TwoOutputs::apply(x, false)[1].sum().backward();
  EXPECT_EQ(TwoOutputs::seen_defined, std::vector<bool>({false, true}));
  EXPECT_TENSOR_CLOSE(x.grad(), tensor({5.0, 5.0}, kFloat64));
}

TEST(CustomFunction, BroadcastGradientIsSummedBack) {
  Tensor x = f64({1.0, 2.0, 3.0});
  BroadcastGrad::apply(x).backward();
  EXPECT_TENSOR_CLOSE(x.grad(), tensor({2.0, 2.0, 2.0}, kFloat64));
}

TEST(CustomFunction, TensorListArgument) {
  Tensor a = f64({1.0, 2.0}), b = f64({3.0, 4.0});
  WeightedSum::apply(variable_list{a, b}, 0.5).sum().backward();
  EXPECT_TENSOR_CLOSE(a.grad(), tensor({0.5, 0.5}, kFloat64));
  EXPECT_TENSOR_CLOSE(b.grad(), tensor({1.0, 1.0}, kFloat64));
  EXPECT_TRUE(autograd::gradcheck([](const tensor_list& in) { return WeightedSum::apply(in, 1.5); }, {a, b}));
}

TEST(CustomFunction, ErrorsNameTheFunction) {
  Tensor x = f64({1.0, 2.0});
  Tensor y = f64({3.0, 4.0});
  EXPECT_THROWS_WITH(TooFewGrads::apply(x, y).sum().backward(),
                     "function TooFewGradsBackward returned an incorrect number of gradients (expected 2, got 1)");
  EXPECT_THROWS_WITH(WrongShape::apply(x).sum().backward(),
                     "function WrongShapeBackward returned an invalid gradient at index 0 - got [5] but expected shape "
                     "compatible with [2]");
  EXPECT_THROWS_WITH(GradForDouble::apply(x, 2.0).sum().backward(),
                     "function GradForDoubleBackward returned a defined gradient at index 1, but the corresponding "
                     "forward argument is not a tensor");
}

TEST(CustomFunction, SavedTensorChecks) {
  Tensor x = f64({0.5, 1.0});
  Tensor y = MyExp::apply(x * 1);
  y.backward(ones_like(y));
  EXPECT_THROWS_WITH(y.backward(ones_like(y)), "MyExpBackward: trying to backward through the graph a second time");

  Tensor y2 = MyExp::apply(x * 1);
  {
    NoGradGuard no_grad;
    y2.mul_(2);  // overwrites the output MyExp saved
  }
  EXPECT_THROWS_WITH(y2.sum().backward(),
                     "MyExpBackward: one of the variables needed for gradient computation has "
                     "been modified by an inplace operation");
}

TEST(CustomFunction, IValueKinds) {
  IValue i = 3, d = 2.5, s = "name", l = std::vector<int64_t>{1, 2}, flag = true;
  EXPECT_EQ(i.toInt(), 3);
  EXPECT_DOUBLE_EQ(d.toDouble(), 2.5);
  EXPECT_EQ(s.toStringRef(), "name");
  EXPECT_EQ(l.toIntVector(), std::vector<int64_t>({1, 2}));
  EXPECT_TRUE(flag.toBool());
  EXPECT_TRUE(IValue().isNone());
  EXPECT_THROWS_WITH(i.toDouble(), "IValue: expected Double but got Int");
}
