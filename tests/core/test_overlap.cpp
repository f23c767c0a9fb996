// Writes into a tensor whose elements share memory are refused, as PyTorch refuses them
// (core/kernel.h, check_no_overlap): an expanded tensor written in place, and copy_ or an in-place op
// whose input covers part of the written memory. On a GPU such a write is a race between threads; on
// the CPU it gave an order-dependent answer (3 for zeros(1, 4).expand(3, 4).add_(1)). The same memory
// in the same layout (x.add_(x)), disjoint halves of one tensor and fill_ (idempotent) are allowed.
// Each case runs on the CPU and, where there is a device (the emulator in CI), on CUDA.
#include <ember/ember.h>
#include <gtest/gtest.h>

#include "test_util.h"

namespace {

using ember::Device;
using ember::Tensor;

constexpr const char* kInternal =
    "unsupported operation: more than one element of the written-to tensor refers to a single memory location. "
    "Please clone() the tensor before performing the operation.";
constexpr const char* kPartial =
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory "
    "location. Please clone() the tensor before performing the operation.";

void expect_refused_writes(Device device) {
  const auto opts = ember::TensorOptions().device(device);
  const Tensor base = ember::zeros({1, 4}, opts);
  const Tensor rows = base.expand({3, 4});  // three rows, one row of memory
  EXPECT_THROWS_WITH(Tensor(rows).add_(1), std::string("add_: ") + kInternal);
  EXPECT_THROWS_WITH(Tensor(rows).mul_(ember::ones({3, 4}, opts)), std::string("mul_: ") + kInternal);
  EXPECT_THROWS_WITH(Tensor(rows).copy_(ember::ones({3, 4}, opts)), std::string("copy_: ") + kInternal);
  EXPECT_THROWS_WITH(Tensor(rows).relu_(), std::string("relu_: ") + kInternal);
  EXPECT_THROWS_WITH(Tensor(rows).add_(1), "(written-to tensor: shape [3, 4], strides [0, 1])");
  EXPECT_TRUE(base.equal(ember::zeros({1, 4}, opts))) << "a refused write must not have written";

  // Shifted views of one buffer: x[1:] = x[:-1] would smear x[0] on the CPU and race on a GPU.
  const Tensor x = ember::arange(5, ember::TensorOptions().dtype(ember::kFloat32).device(device));
  EXPECT_THROWS_WITH(x.slice(0, 1).copy_(x.slice(0, 0, 4)), std::string("copy_: ") + kPartial);
  EXPECT_THROWS_WITH(x.slice(0, 1).add_(x.slice(0, 0, 4)), std::string("add_: ") + kPartial);
  EXPECT_THROWS_WITH(x.slice(0, 1).add_(x.slice(0, 0, 4)), "storage offset 1; input: shape [4], strides [1], storage offset 0");
  // Same memory, another layout: x.t() covers all of x in another order.
  const Tensor sq = ember::tensor({{1.0f, 2.0f}, {3.0f, 4.0f}}).to(device);
  EXPECT_THROWS_WITH(Tensor(sq).add_(sq.t()), std::string("add_: ") + kPartial);
  EXPECT_TRUE(x.equal(ember::arange(5, ember::TensorOptions().dtype(ember::kFloat32).device(device))));

  // Under autograd the check comes before the out-of-place value is committed.
  const Tensor w = ember::ones({1, 4}, opts).requires_grad_();
  const Tensor y = w * 1;
  EXPECT_THROWS_WITH(y.expand({2, 4}).mul_(2), std::string("mul_: ") + kInternal);
}

void expect_allowed_writes(Device device) {
  const auto opts = ember::TensorOptions().dtype(ember::kFloat32).device(device);
  Tensor x = ember::tensor({1.0f, 2.0f, 3.0f, 4.0f}).to(device);
  x.add_(x);  // the same memory in the same layout
  EXPECT_TRUE(x.cpu().equal(ember::tensor({2.0f, 4.0f, 6.0f, 8.0f})));
  x.copy_(x);
  EXPECT_TRUE(x.cpu().equal(ember::tensor({2.0f, 4.0f, 6.0f, 8.0f})));
  x.slice(0, 2).add_(x.slice(0, 0, 2));  // disjoint halves of one buffer
  EXPECT_TRUE(x.cpu().equal(ember::tensor({2.0f, 4.0f, 8.0f, 12.0f})));
  const Tensor base = ember::zeros({1, 4}, opts);
  Tensor(base.expand({3, 4})).fill_(2);  // PyTorch allows it: every writer writes the same value
  EXPECT_TRUE(base.cpu().equal(ember::full({1, 4}, 2.0f)));
  Tensor one = ember::zeros({1}, opts).expand({1});  // a size-1 dim of stride 0 is one element
  one.add_(1);
  EXPECT_EQ(one.cpu().item<float>(), 1.0f);
  Tensor rows = ember::zeros({3, 4}, opts);
  rows.add_(ember::ones({1, 4}, opts).expand({3, 4}));  // reading a broadcast input is fine
  EXPECT_TRUE(rows.cpu().equal(ember::ones({3, 4})));
}

TEST(Overlap, WritesToSharedMemoryAreRefusedOnTheCpu) { expect_refused_writes(Device(ember::kCPU)); }
TEST(Overlap, NonOverlappingWritesStillWorkOnTheCpu) { expect_allowed_writes(Device(ember::kCPU)); }

TEST(OverlapCuda, WritesToSharedMemoryAreRefused) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  expect_refused_writes(Device(ember::kCUDA));
}
TEST(OverlapCuda, NonOverlappingWritesStillWork) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  expect_allowed_writes(Device(ember::kCUDA));
}

}  // namespace
