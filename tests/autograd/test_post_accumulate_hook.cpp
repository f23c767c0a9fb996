// The two engine hooks DistributedDataParallel is built on: register_post_accumulate_grad_hook
// (PyTorch 2.1's Tensor.register_post_accumulate_grad_hook: runs after AccumulateGrad has written
// .grad) and queue_callback (PyTorch's Variable._execution_engine.queue_callback: runs once when the
// backward pass has run every node). Values by hand: d/dw sum(w * x) = x.
#include <gtest/gtest.h>

#include "autograd/autograd.h"
#include "core/tensor.h"

using namespace ember;

TEST(PostAccumulateGradHook, SeesTheAccumulatedGradientEachBackward) {
  Tensor w = tensor({1.0, 2.0}, TensorOptions().dtype(kFloat64)).requires_grad_();
  std::vector<std::vector<double>> seen;
  autograd::register_post_accumulate_grad_hook(w, [&](const Tensor& leaf) {
    seen.push_back({leaf.grad()[0].item<double>(), leaf.grad()[1].item<double>()});
  });
  Tensor x = tensor({3.0, 5.0}, TensorOptions().dtype(kFloat64));
  (w * x).sum().backward();
  (w * x).sum().backward();  // accumulates: 2x
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0], (std::vector<double>{3.0, 5.0}));
  EXPECT_EQ(seen[1], (std::vector<double>{6.0, 10.0}));
}

TEST(PostAccumulateGradHook, OnlyOnLeavesThatRequireGrad) {
  Tensor w = tensor({1.0}).requires_grad_();
  EXPECT_THROW(autograd::register_post_accumulate_grad_hook(w * 2, [](const Tensor&) {}), Error);
  EXPECT_THROW(autograd::register_post_accumulate_grad_hook(tensor({1.0}), [](const Tensor&) {}), Error);
}

TEST(QueueCallback, RunsOnceAfterEveryNodeAndOnlyDuringBackward) {
  Tensor a = tensor({2.0}).requires_grad_(), b = tensor({3.0}).requires_grad_();
  int callbacks = 0, hooks_at_callback = -1, hooks = 0;
  auto hook = [&](const Tensor&) {
    if (++hooks == 1)
      autograd::queue_callback([&] {
        ++callbacks;
        hooks_at_callback = hooks;
      });
  };
  autograd::register_post_accumulate_grad_hook(a, hook);
  autograd::register_post_accumulate_grad_hook(b, hook);
  (a * b).sum().backward();
  EXPECT_EQ(callbacks, 1);
  EXPECT_EQ(hooks_at_callback, 2);  // both leaves were done before it ran
  EXPECT_THROW(autograd::queue_callback([] {}), Error);
}
