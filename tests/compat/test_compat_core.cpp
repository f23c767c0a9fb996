// Native tests of the libtorch API that issue 19 added to Ember: values checked by hand, and the
// error paths (the message names what went wrong). tests/compat/programs compare the same API
// with libtorch's output.
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "autograd/autograd.h"
#include "autograd/function.h"
#include "core/tensor.h"

namespace ember {
namespace {

// Runs f and returns the message of the ember::Error it throws ("" if none).
template <typename F>
std::string error_of(F f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(CompatCore, RemainderAndFmodSigns) {
  // Python: torch.tensor([-7.5, -3., 5.5]) % 2 -> [0.5, 1., 1.5]; torch.fmod -> [-1.5, -1., 1.5]
  Tensor a = tensor({-7.5, -3.0, 5.5});
  EXPECT_EQ((a % 2).to_vector<float>(), (std::vector<float>{0.5f, 1.0f, 1.5f}));
  EXPECT_EQ(a.fmod(2).to_vector<float>(), (std::vector<float>{-1.5f, -1.0f, 1.5f}));
  EXPECT_EQ(a.remainder(-2).to_vector<float>(), (std::vector<float>{-1.5f, -1.0f, -0.5f}));
  Tensor n = tensor({-5, 5});
  EXPECT_EQ((n % 3).to_vector<int64_t>(), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(n.fmod(-3).to_vector<int64_t>(), (std::vector<int64_t>{-2, 2}));
  EXPECT_NE(error_of([&] { (void)(n % 0); }).find("ZeroDivisionError"), std::string::npos);
}

TEST(CompatCore, ItemAsScalar) {
  Scalar s = tensor({2.5f}).item();
  EXPECT_TRUE(s.isFloatingPoint());
  EXPECT_EQ(s.toFloat(), 2.5f);
  EXPECT_EQ(tensor({7}).item().toLong(), 7);
  EXPECT_TRUE(tensor({true}).item().isBool());
  EXPECT_EQ(tensor({7}).item<int>(), 7);
  EXPECT_NE(error_of([] { ones({2}).item(); }).find("2 elements"), std::string::npos);
}

TEST(CompatCore, NormOverDims) {
  Tensor x = tensor({{3.0, -4.0}, {0.0, 0.0}}, requires_grad());
  EXPECT_EQ(x.norm(2, 1).to_vector<float>(), (std::vector<float>{5.0f, 0.0f}));
  EXPECT_EQ(x.norm(1, {1}, true).sizes(), IntArrayRef({2, 1}));
  EXPECT_EQ(x.norm(INFINITY, {0}).to_vector<float>(), (std::vector<float>{3.0f, 4.0f}));
  x.norm(2, 1).sum().backward();
  // d||x||/dx = x / ||x||, and 0 for the zero row (not NaN).
  EXPECT_TRUE(x.grad().allclose(tensor({{0.6, -0.8}, {0.0, 0.0}}))) << x.grad();
  EXPECT_NE(error_of([] { tensor({1, 2}).norm(); }).find("Got Long"), std::string::npos);
}

TEST(CompatCore, IscloseChecks) {
  Tensor a = tensor({1.0, NAN, INFINITY});
  Tensor b = tensor({1.0 + 1e-6, NAN, INFINITY});
  EXPECT_EQ(a.isclose(b).to_vector<bool>(), (std::vector<bool>{true, false, true}));
  EXPECT_TRUE(a.allclose(b, 1e-5, 1e-8, /*equal_nan=*/true));
  EXPECT_NE(error_of([&] { allclose(a, a.to(kFloat64)); }).find("Float did not match Double"), std::string::npos);
  EXPECT_NE(error_of([&] { a.isclose(a, -1); }).find("rtol"), std::string::npos);
}

TEST(CompatCore, DefaultDtype) {
  set_default_dtype(kFloat64);
  EXPECT_EQ(ones({1}).dtype(), kFloat64);
  EXPECT_EQ(tensor({1.5}).dtype(), kFloat64);
  EXPECT_EQ((tensor({1}) * 2.5).dtype(), kFloat64);
  EXPECT_EQ(arange(3).dtype(), kInt64);
  set_default_dtype(kFloat32);
  EXPECT_EQ(ones({1}).dtype(), kFloat32);
  EXPECT_NE(error_of([] { set_default_dtype(kInt64); }).find("only floating-point"), std::string::npos);
}

TEST(CompatCore, ResizeKeepsValuesAndViewsSeeGrowth) {
  Tensor t = arange(4, kFloat32);
  Tensor alias = t.view({2, 2});
  t.resize_({3, 3});
  EXPECT_EQ(t.flatten().slice(0, 0, 4).to_vector<float>(), (std::vector<float>{0, 1, 2, 3}));
  EXPECT_EQ(t.data_ptr<float>(), alias.data_ptr<float>());  // one storage, grown in place
  EXPECT_NE(error_of([] { ones({2}, requires_grad()).resize_({3}); }).find("require grad"), std::string::npos);
  EXPECT_NE(error_of([&] { t.resize_({-1}); }).find("negative dimension"), std::string::npos);
}

TEST(CompatCore, BackwardInputsChecks) {
  Tensor x = tensor({1.0, 2.0}, requires_grad());
  Tensor y = (x * x).sum();
  EXPECT_EQ(error_of([&] { y.backward({}, true, false, tensor_list{}); }),
            "'inputs' argument to backward cannot be empty");
  Tensor h = x * 3;
  (h * h).sum().backward({}, std::nullopt, false, tensor_list{h});
  EXPECT_TRUE(h.retains_grad());
  EXPECT_EQ(h.grad().to_vector<float>(), (std::vector<float>{6.0f, 12.0f}));  // 2h
  EXPECT_FALSE(x.grad().defined());
  Tensor unused = tensor({1.0}, requires_grad());
  EXPECT_EQ(error_of([&] {
              autograd::grad({(x * 2).sum()}, {x, unused});
            }),
            "One of the differentiated Tensors appears to not have been used in the graph. Set allow_unused=True if "
            "this is the desired behavior.");
}

struct Twice : autograd::Function<Twice> {
  static Tensor forward(autograd::AutogradContext* ctx, Tensor x) {
    x.mul_(2);
    ctx->mark_dirty({x});
    return x;
  }
  static autograd::variable_list backward(autograd::AutogradContext*, autograd::variable_list g) { return {g[0] * 2}; }
};
struct DirtyNotReturned : autograd::Function<DirtyNotReturned> {
  static Tensor forward(autograd::AutogradContext* ctx, Tensor x) {
    ctx->mark_dirty({x});
    return x * 1;
  }
  static autograd::variable_list backward(autograd::AutogradContext*, autograd::variable_list g) { return {g[0]}; }
};

TEST(CompatCore, MarkDirty) {
  Tensor a = tensor({1.0, 2.0}, requires_grad());
  Tensor b = a * 3;
  Tensor c = Twice::apply(b);
  EXPECT_TRUE(c.is_same(b));
  EXPECT_EQ(b.grad_fn()->name(), "TwiceBackward");
  c.sum().backward();
  EXPECT_EQ(a.grad().to_vector<float>(), (std::vector<float>{6.0f, 6.0f}));
  EXPECT_NE(error_of([&] { Twice::apply(a); }).find("a leaf Variable that requires grad"), std::string::npos);
  EXPECT_NE(error_of([&] { DirtyNotReturned::apply(a * 1); }).find("were not returned as output"), std::string::npos);
}

struct Capture : WarningHandler {
  std::vector<std::string> messages;
  void process(const Warning& w) override { messages.push_back(w.msg()); }
};

TEST(CompatCore, WarningHandlerCapturesAndRestores) {
  Capture capture;
  WarningHandler* before = get_warning_handler();
  {
    WarningHandlerGuard guard(&capture);
    EMBER_WARN("resize: {} elements", 3);
  }
  EXPECT_EQ(capture.messages, std::vector<std::string>{"resize: 3 elements"});
  EXPECT_EQ(get_warning_handler(), before);
}

TEST(CompatCore, VoidHookAndUndefinedGrad) {
  Tensor x = tensor({1.0, 2.0}, requires_grad());
  double seen = 0;
  x.register_hook([&](const Tensor& g) { seen = g.sum().item<double>(); });
  (x * 3).sum().backward();
  EXPECT_EQ(seen, 6.0);
  Tensor z = tensor({1.0}, requires_grad());
  autograd::UndefinedGrad().apply({z * 2})[0].sum().backward();
  EXPECT_FALSE(z.grad().defined());
}

}  // namespace
}  // namespace ember
