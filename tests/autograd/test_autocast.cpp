// autocast's op table against PyTorch's own registrations (tests/fixtures/autocast/lists.json, from
// scripts/gen_autocast_fixtures.py), and what an op on the lists does on the CPU: it runs with
// autocast off inside it, and the backward pass never casts. The CUDA lists' effects are tested in
// tests/cuda/test_cuda_autocast.cpp; the CPU's output dtypes against PyTorch in test_bfloat16.cpp.
#include <functional>
#include <set>
#include <string>

#include "autograd/autocast.h"
#include "fixture_json.h"
#include "test_util.h"

using namespace ember;
using autograd::AutocastOp;
using autograd::CastPolicy;

namespace {

std::vector<AutocastOp> all_ops() {
  return {
#define EMBER_AUTOCAST_LIST(op, cpu, cuda) AutocastOp::op,
      EMBER_AUTOCAST_OPS(EMBER_AUTOCAST_LIST)
#undef EMBER_AUTOCAST_LIST
  };
}

// Every op of the table is on a device's list exactly where torch 1.13 registers an autocast kernel
// for it, but for the two rows autocast.h explains.
TEST(Autocast, TableMatchesPyTorchsRegistrations) {
  const nlohmann::json j = test::load_fixture("autocast/lists.json");
  const auto& lists = j.at("lists");
  const std::set<std::pair<std::string, std::string>> beyond_torch_1_13 = {{"scaled_dot_product_attention", "cuda"},
                                                                           {"cross_entropy", "cuda"}};
  ASSERT_EQ(lists.size(), all_ops().size()) << "regenerate the fixture after changing EMBER_AUTOCAST_OPS";
  for (AutocastOp op : all_ops()) {
    const std::string name = autograd::autocast_op_name(op);
    ASSERT_TRUE(lists.contains(name)) << name << " is missing from the fixture";
    for (auto [device, key] : {std::pair{kCPU, "cpu"}, std::pair{kCUDA, "cuda"}}) {
      const bool on_list = autograd::autocast_policy(op, device) != CastPolicy::none;
      const bool expected = lists.at(name).at(key).get<bool>() || beyond_torch_1_13.count({name, key}) > 0;
      EXPECT_EQ(on_list, expected) << name << " on " << key;
    }
  }
}

// The products and cells as torch 1.13 gives them under torch.autocast("cpu", dtype=torch.bfloat16):
// those on the CPU's list in bfloat16, einsum / chain_matmul / multi_dot through the mm and bmm they
// are made of, mv / addmv / addr / prelu and the cells' results in float32 (printed by torch 1.13).
// The convolutions in bfloat16, the transposed ones in float32 (torch 1.13's fp32 policy), of a
// bfloat16 input too (tests/fixtures/bf16/bf16.json's "autocast" has these from torch 1.13).
TEST(Autocast, ProductsOnTheCpuAsTorch) {
  manual_seed(0);
  Tensor x = randn({4, 8}), w = randn({6, 8}), v = randn({8}), b = randn({3, 4, 8}), c = randn({3, 8, 5});
  Tensor h = randn({4, 6}), cx = randn({4, 6});
  Tensor image = randn({1, 2, 4, 4}), volume = randn({1, 2, 3, 3, 3}), k2 = randn({2, 2, 2, 2});
  Tensor k3 = randn({2, 2, 2, 2, 2});
  nn::LSTMCell cell(8, 6);
  const std::vector<std::pair<std::string, std::pair<std::function<Tensor()>, ScalarType>>> ops = {
      {"conv1d", {[&] { return conv1d(b, randn({2, 4, 3}), randn({2})); }, kBFloat16}},
      {"conv2d", {[&] { return conv2d(image, k2, {}, 1, 1); }, kBFloat16}},
      {"conv3d", {[&] { return conv3d(volume, k3); }, kBFloat16}},
      {"conv_transpose1d", {[&] { return conv_transpose1d(b, randn({4, 2, 3}), {}, 2); }, kFloat32}},
      {"conv_transpose2d", {[&] { return conv_transpose2d(image, k2); }, kFloat32}},
      {"conv_transpose2d_of_bf16", {[&] { return conv_transpose2d(image.to(kBFloat16), k2.to(kBFloat16)); }, kFloat32}},
      {"conv_transpose3d", {[&] { return conv_transpose3d(volume, k3); }, kFloat32}},
      {"mv", {[&] { return x.mv(v); }, kFloat32}},
      {"einsum", {[&] { return einsum("ij,kj->ik", {x, w}); }, kBFloat16}},
      {"chain_matmul", {[&] { return chain_matmul({x, w.t(), w}); }, kBFloat16}},
      {"multi_dot", {[&] { return linalg::multi_dot({x, w.t(), w}); }, kBFloat16}},
      {"prelu", {[&] { return x.prelu(full({1}, 0.25)); }, kFloat32}},
      {"lstm_cell", {[&] { return std::get<0>(cell->forward(x, std::make_tuple(h, cx))); }, kFloat32}},
      {"addmv", {[&] { return addmv(randn({4}), x, v); }, kFloat32}},
      {"addr", {[&] { return addr(randn({4, 8}), randn({4}), v); }, kFloat32}},
      {"baddbmm", {[&] { return baddbmm(randn({3, 4, 5}), b, c); }, kBFloat16}},
      {"addbmm", {[&] { return addbmm(randn({4, 5}), b, c); }, kBFloat16}},
      {"mm", {[&] { return mm(x, w.t()); }, kBFloat16}},
      {"bmm", {[&] { return bmm(b, c); }, kBFloat16}},
  };
  autocast guard;
  for (const auto& [name, op] : ops) EXPECT_EQ(op.first().dtype(), op.second) << name;
}

// A convolution's float32 weight and bias (leaves that require grad) are cast once per scope, as
// linear's, and their gradients come back in float32.
TEST(Autocast, ConvolutionWeightsGoThroughTheCache) {
  manual_seed(5);
  nn::Conv2d conv(nn::Conv2dOptions(2, 3, 3).padding(1));
  Tensor x = randn({2, 2, 5, 5});
  Tensor loss;
  {
    autocast guard;
    Tensor y = conv->forward(x);
    EXPECT_EQ(y.dtype(), kBFloat16);
    EXPECT_EQ(autocast::cache_size(), 2u);  // weight and bias
    Tensor again = conv->forward(x);        // the same casts again
    EXPECT_EQ(autocast::cache_size(), 2u);
    loss = (y + again).to(kFloat32).sum();
  }
  EXPECT_EQ(autocast::cache_size(), 0u);
  loss.backward();
  EXPECT_EQ(conv->weight.grad().dtype(), kFloat32);
  EXPECT_EQ(conv->bias.grad().dtype(), kFloat32);
}

// While an op on the lists runs (between its casts and its return), autocast is off: the ops it is
// composed of keep the dtypes it chose. tests/cuda/test_cuda_autocast.cpp shows it through
// scaled_dot_product_attention, whose softmax would otherwise be cast to float32.
TEST(Autocast, OpsOnTheListsRunWithAutocastOffInside) {
  manual_seed(3);
  Tensor a = randn({5, 4}), b = randn({4, 6}), x = randn({3, 3}).to(kBFloat16);
  autocast guard;
  {
    autograd::AutocastCall call{AutocastOp::prod, {x}};
    ASSERT_TRUE(call);
    EXPECT_EQ(call[0].dtype(), kFloat32);
    EXPECT_EQ(a.matmul(b).dtype(), kFloat32);  // inside prod: no cast
  }
  EXPECT_EQ(a.matmul(b).dtype(), kBFloat16);
  autograd::AutocastCall off_list{AutocastOp::softmax, {x}};  // not on the CPU's list
  EXPECT_FALSE(off_list);
  EXPECT_EQ(a.matmul(b).dtype(), kBFloat16);
}

// A backward pass inside the scope runs in the dtypes the forward chose: the gradients are those of
// a backward outside it, bit for bit.
TEST(Autocast, BackwardInsideTheScopeDoesNotCast) {
  manual_seed(4);
  Tensor w = randn({8, 8}, requires_grad()), x = randn({3, 8});
  auto run = [&](bool backward_inside) {
    w.mutable_grad() = Tensor();
    Tensor loss;
    {
      autocast guard;
      loss = x.matmul(w).to(kFloat32).exp().sum();
      if (backward_inside) loss.backward();
    }
    if (!backward_inside) loss.backward();
    return w.grad().clone();
  };
  const Tensor outside = run(false), inside = run(true);
  EXPECT_EQ(inside.dtype(), kFloat32);
  EXPECT_TENSOR_CLOSE(inside, outside, 0.0, 0.0);
}

// An fp32_set_opt_dtype op given a dtype is left alone, as PyTorch's wrapper does.
TEST(Autocast, AnExplicitDtypeWins) {
  Tensor x = randn({4, 4}).to(kBFloat16);
  autocast guard;
  EXPECT_EQ(x.prod().dtype(), kFloat32);            // prod is on the CPU's float32 list
  EXPECT_EQ(x.prod(kBFloat16).dtype(), kBFloat16);  // with a dtype it keeps it
  EXPECT_EQ(x.prod(0, false, kFloat64).dtype(), kFloat64);
}

}  // namespace
