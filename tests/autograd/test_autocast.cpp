// autocast's op table against PyTorch's own registrations (tests/fixtures/autocast/lists.json, from
// scripts/gen_autocast_fixtures.py), and what an op on the lists does on the CPU: it runs with
// autocast off inside it, and the backward pass never casts. The CUDA lists' effects are tested in
// tests/cuda/test_cuda_autocast.cpp; the CPU's output dtypes against PyTorch in test_bfloat16.cpp.
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
