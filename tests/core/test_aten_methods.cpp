// The method forms of ATen's functions (autograd/aten_methods.cpp): each equals its function, the
// in-place forms write through views and carry autograd as every in-place op does, and the bitwise
// operators are bitwise_and/or/xor/not. Values against PyTorch are the compat program
// tensor_method_forms' (expected output from libtorch 1.13) and the functions' own fixtures.
#include <cmath>

#include "test_util.h"

using namespace ember;

namespace {

// sin-shaped values in [0.5, 2.5]: positive, away from poles.
Tensor wave(IntArrayRef sizes, double offset = 0.0) {
  int64_t n = 1;
  for (int64_t size : sizes) n *= size;
  return (arange(n, dtype(kFloat64)).reshape(sizes) * 0.7 + offset).sin() + 1.5;
}

TEST(AtenMethods, EachMethodIsItsFunction) {
  const Tensor x = wave({3, 4}), y = wave({3, 4}, 0.3);
  EXPECT_TENSOR_CLOSE(x.lgamma(), lgamma(x), 0, 0);
  EXPECT_TENSOR_CLOSE(x.digamma(), digamma(x), 0, 0);
  EXPECT_TENSOR_CLOSE(x.polygamma(2), polygamma(2, x), 0, 0);
  EXPECT_TENSOR_CLOSE(x.mvlgamma(2), mvlgamma(x, 2), 0, 0);
  EXPECT_TENSOR_CLOSE((x / 4).erfinv(), erfinv(x / 4), 0, 0);
  EXPECT_TENSOR_CLOSE(x.logcumsumexp(1), logcumsumexp(x, 1), 0, 0);
  EXPECT_TENSOR_CLOSE(std::get<0>(x.cummax(0)), std::get<0>(cummax(x, 0)), 0, 0);
  EXPECT_TENSOR_CLOSE(x.fmax(y), fmax(x, y), 0, 0);
  EXPECT_TENSOR_CLOSE(x.kron(y), kron(x, y), 0, 0);
  EXPECT_TENSOR_CLOSE(x.rot90(1, {0, 1}), rot90(x, 1, {0, 1}), 0, 0);
  EXPECT_TENSOR_CLOSE(x.cov(), cov(x), 0, 0);
  const Tensor s = wave({4, 4}, 0.1);
  EXPECT_TENSOR_CLOSE(s.addmm(y.t(), y, 0.5, 2), addmm(s, y.t(), y, 0.5, 2), 0, 0);
  EXPECT_EQ(x.hsplit(2).size(), 2u);
  EXPECT_TENSOR_CLOSE(x.hsplit(2)[1], hsplit(x, 2)[1], 0, 0);
}

TEST(AtenMethods, BitwiseOperatorsAreTheBitFunctions) {
  const Tensor a = from_vector<int64_t>({12, 10, -3}, {3}), b = from_vector<int64_t>({10, 6, 5}, {3});
  EXPECT_TENSOR_CLOSE(a & b, from_vector<int64_t>({8, 2, 5}, {3}), 0, 0);
  EXPECT_TENSOR_CLOSE(a | 3, from_vector<int64_t>({15, 11, -1}, {3}), 0, 0);
  EXPECT_TENSOR_CLOSE(5 ^ a, from_vector<int64_t>({9, 15, -8}, {3}), 0, 0);
  EXPECT_TENSOR_CLOSE(~a, from_vector<int64_t>({-13, -11, 2}, {3}), 0, 0);
  const Tensor mask = from_vector<bool>({true, false}, {2});
  EXPECT_TENSOR_CLOSE(~mask, from_vector<bool>({false, true}, {2}), 0, 0);
  Tensor c = a.clone();
  const Tensor alias = c.view({3});
  c &= b;
  c ^= from_vector<int64_t>({1, 1, 1}, {3});
  EXPECT_TENSOR_CLOSE(alias, from_vector<int64_t>({9, 3, 4}, {3}), 0, 0);  // in place: the view sees it
  EXPECT_THROWS_WITH(ones({2}) & ones({2}), "\"bitwise_and_cpu\" not implemented for 'Float'");
}

TEST(AtenMethods, InPlaceFormsCarryAutogradAndRefuseANarrowerDtype) {
  Tensor x = wave({4}).requires_grad_(true);
  Tensor y = x * 1.0;
  y.lgamma_();
  y.sum().backward();
  EXPECT_TENSOR_CLOSE(x.grad(), digamma(x.detach()), 1e-12, 1e-12);
  EXPECT_THROWS_WITH(x.digamma_(), "a leaf Variable that requires grad is being used in an in-place operation");
  EXPECT_THROWS_WITH(arange(3).lgamma_(), "lgamma_: result type Float can't be cast to the desired output type Long");
  Tensor acc = ones({2, 2}, dtype(kFloat64));
  const Tensor m = wave({2, 3});
  acc.addmm_(m, m.t(), 2, 1);
  EXPECT_TENSOR_CLOSE(acc, m.matmul(m.t()) + 2, 1e-12, 1e-12);
}

}  // namespace
