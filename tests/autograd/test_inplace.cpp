// In-place ops under autograd: on plain tensors, on views of tensors in the graph, and the
// errors PyTorch raises. Expected values hand-computed and checked with torch 1.13.
#include "test_util.h"

using namespace ember;

TEST(Inplace, MulOnNonLeafKeepsOldValueForBackward) {
  // torch: w = tensor([1.,2.,3.], requires_grad=True); x = w * 1; x.mul_(w); x.sum().backward() -> w.grad = 2w
  Tensor w = tensor({1.0, 2.0, 3.0}, requires_grad());
  Tensor x = w * 1;
  x.mul_(w);
  x.sum().backward();
  EXPECT_TENSOR_CLOSE(w.grad(), tensor({2.0, 4.0, 6.0}));
  EXPECT_EQ(x.grad_fn()->name(), "MulBackward0");
}

TEST(Inplace, WriteThroughViewReachesBase) {
  // torch: w = tensor([1.,2.,3.], requires_grad=True); x = w * 1; x[1:].mul_(10); (x *
  // tensor([1.,2.,3.])).sum().backward()
  // -> w.grad = [1, 20, 30]
  Tensor w = tensor({1.0, 2.0, 3.0}, requires_grad());
  Tensor x = w * 1;
  x.slice(0, 1).mul_(10);
  EXPECT_TENSOR_CLOSE(x, tensor({1.0, 20.0, 30.0}));
  (x * tensor({1.0, 2.0, 3.0})).sum().backward();
  EXPECT_TENSOR_CLOSE(w.grad(), tensor({1.0, 20.0, 30.0}));
  EXPECT_EQ(x.grad_fn()->name(), "CopySlices");
}

TEST(Inplace, CopyIntoViewOfPlainTensorMakesItRequireGrad) {
  // torch: a = torch.zeros(2, 3); w = tensor([1.,2.,3.], requires_grad=True); a[0].copy_(w * 2); (a *
  // a).sum().backward()
  // -> w.grad = 8w
  Tensor a = zeros({2, 3});
  Tensor w = tensor({1.0, 2.0, 3.0}, requires_grad());
  a.select(0, 0).copy_(w * 2);
  EXPECT_TRUE(a.requires_grad());
  (a * a).sum().backward();
  EXPECT_TENSOR_CLOSE(w.grad(), tensor({8.0, 16.0, 24.0}));
}

TEST(Inplace, FillOfViewCutsGradient) {
  Tensor w = tensor({1.0, 2.0, 3.0}, requires_grad());
  Tensor x = w * 3;
  x.narrow(0, 0, 2).fill_(0);
  x.sum().backward();
  EXPECT_TENSOR_CLOSE(w.grad(), tensor({0.0, 0.0, 3.0}));
}

TEST(Inplace, Errors) {
  Tensor w = tensor({1.0, 2.0}, requires_grad());
  EXPECT_THROWS_WITH(w.add_(1), "a leaf Variable that requires grad is being used in an in-place operation");
  Tensor y = (w * 1).exp();
  y.add_(1);  // exp saved its output, which is now overwritten
  EXPECT_THROWS_WITH(y.sum().backward(), "modified by an inplace operation");
  {
    NoGradGuard no_grad;
    w.mul_(2);  // allowed: an update autograd must not see
  }
  EXPECT_TENSOR_CLOSE(w.detach(), tensor({2.0, 4.0}));
}
