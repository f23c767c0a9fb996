// Core tensor behaviour: creation, views, broadcasting, reductions, matmul, hand-computed values.
#include "core/sanitizers.h"
#include "test_util.h"

using namespace ember;

TEST(Core, LiteralShapeAndDtype) {
  Tensor a = tensor({{0.43, 0.15}, {0.55, 0.87}});
  EXPECT_EQ(a.sizes(), IntArrayRef({2, 2}));
  EXPECT_EQ(a.dtype(), kFloat32);
  EXPECT_EQ(tensor({1, 2, 3}).dtype(), kInt64);
  EXPECT_EQ(tensor({true, false}).dtype(), kBool);
  EXPECT_FLOAT_EQ(a[1][0].item<float>(), 0.55f);
  EXPECT_THROWS_WITH(tensor({{1.0, 2.0}, {3.0}}), "tensor: expected a sequence of length 2");
}

TEST(Core, BroadcastAddAndScalars) {
  Tensor a = tensor({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}});
  Tensor b = tensor({10.0, 20.0, 30.0});
  EXPECT_TENSOR_CLOSE(a + b, tensor({{11.0, 22.0, 33.0}, {14.0, 25.0, 36.0}}));
  EXPECT_TENSOR_CLOSE(a * 2, tensor({{2.0, 4.0, 6.0}, {8.0, 10.0, 12.0}}));
  EXPECT_TENSOR_CLOSE(1 - a, tensor({{0.0, -1.0, -2.0}, {-3.0, -4.0, -5.0}}));
  EXPECT_EQ((tensor({1, 2}) * 2).dtype(), kInt64);
  EXPECT_EQ((tensor({1, 2}) * 2.5).dtype(), kFloat32);
  EXPECT_THROWS_WITH(a + tensor({1.0, 2.0}), "add: shapes [2, 3] and [2] cannot be broadcast");
}

TEST(Core, ViewsShareStorage) {
  Tensor a = arange(6, kFloat32).view({2, 3});
  Tensor t = a.t();
  EXPECT_FALSE(t.is_contiguous());
  EXPECT_EQ(t.sizes(), IntArrayRef({3, 2}));
  EXPECT_FLOAT_EQ(t[2][1].item<float>(), 5.0f);
  t[0][1].fill_(100);
  EXPECT_FLOAT_EQ(a[1][0].item<float>(), 100.0f);
  EXPECT_TENSOR_CLOSE(a.t().contiguous().view({-1}), tensor({0.0, 100.0, 1.0, 4.0, 2.0, 5.0}));
  EXPECT_THROWS_WITH(a.t().view({6}), "view: size [6] is not compatible");
}

TEST(Core, ReductionsAndMatmul) {
  Tensor a = tensor({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}});
  EXPECT_TENSOR_CLOSE(a.sum(1), tensor({6.0, 15.0}));
  EXPECT_TENSOR_CLOSE(a.sum(0, true), tensor({{5.0, 7.0, 9.0}}));
  EXPECT_TENSOR_CLOSE(a.mean(), tensor(3.5));
  EXPECT_TENSOR_CLOSE(a.matmul(a.t()), tensor({{14.0, 32.0}, {32.0, 77.0}}));
  EXPECT_THROWS_WITH(ones({6, 3}).matmul(ones({2, 3})),
                     "matmul: shapes [6, 3] and [2, 3] cannot be multiplied (3 != 2)");
}

TEST(Autograd, MulSumBackward) {
  Tensor x = tensor({1.0, 2.0, 3.0}, requires_grad());
  Tensor w = tensor({4.0, 5.0, 6.0}, requires_grad());
  Tensor y = (x * w).sum();
  y.backward();
  EXPECT_TENSOR_CLOSE(x.grad(), tensor({4.0, 5.0, 6.0}));
  EXPECT_TENSOR_CLOSE(w.grad(), tensor({1.0, 2.0, 3.0}));
}

TEST(Reduce, FullReductionOfLargeTensorsUsesEveryThreadsPartialSum) {
  // Large enough to be split across threads: each thread's partial must reach the result.
  EXPECT_EQ(ember::ones({200'000}).sum().item<double>(), 200'000.0);
  EXPECT_EQ(ember::ones({200'000}, ember::kFloat64).mean().item<double>(), 1.0);
  ember::Tensor r = ember::arange(300'000, ember::kFloat64);
  EXPECT_EQ(r.max().item<double>(), 299'999.0);
  EXPECT_EQ(r.min().item<double>(), 0.0);
  EXPECT_EQ(r.sum().item<double>(), 299'999.0 * 300'000.0 / 2);
}

TEST(Reduce, SumsOverLeadingDimsSplitRowsAcrossThreads) {
  // A bias gradient's shape: each thread sums a block of rows, then the partial rows are added.
  ember::manual_seed(3);
  ember::Tensor x = ember::randn({768, 512});
  ember::Tensor ref = x.to(ember::kFloat64).sum(0);
  EXPECT_TENSOR_CLOSE(x.sum(0).to(ember::kFloat64), ref, 1e-5, 1e-4);
  EXPECT_TENSOR_CLOSE(x.view({24, 32, 512}).sum({0, 1}, /*keepdim=*/true).view({512}).to(ember::kFloat64), ref, 1e-5,
                      1e-4);
  // short columns, odd row counts, and fewer than four rows take the same loop's tails
  ember::Tensor y = ember::arange(7 * 3, ember::kFloat32).view({7, 3});
  EXPECT_TRUE(y.sum(0).equal(ember::tensor({63.0f, 70.0f, 77.0f})));
  EXPECT_TRUE(y.narrow(0, 0, 2).sum(0).equal(ember::tensor({3.0f, 5.0f, 7.0f})));
  EXPECT_TRUE(ember::ones({100'000, 3}, ember::kFloat64).sum(0).equal(ember::full({3}, 100'000.0, ember::kFloat64)));
}

namespace ember {
namespace {

// x.std(1) names dim 1, as in libtorch; it must not convert 1 to the bool `unbiased` and reduce
// over everything (found by the libtorch differential tests).
TEST(Reductions, IntegerArgumentOfStdAndVarIsADim) {
  Tensor x = tensor({{1.0, 2.0, 3.0}, {4.0, 6.0, 8.0}}, dtype(kFloat64));
  EXPECT_TENSOR_CLOSE(x.var(1), tensor({1.0, 4.0}, dtype(kFloat64)), 0, 1e-15);
  EXPECT_TENSOR_CLOSE(x.std(1), tensor({1.0, 2.0}, dtype(kFloat64)), 0, 1e-15);
  EXPECT_TENSOR_CLOSE(x.var(0, /*unbiased=*/false), tensor({2.25, 4.0, 6.25}, dtype(kFloat64)), 0, 1e-15);
  EXPECT_EQ(x.std(true).dim(), 0);  // a bool is still `unbiased`, over all elements
}

}  // namespace
}  // namespace ember

namespace ember {
namespace {

// A plain triple loop in double: the reference for the threaded matmul.
Tensor naive_matmul(const Tensor& a, const Tensor& b) {
  const int64_t M = a.size(0), K = a.size(1), N = b.size(1);
  std::vector<double> A = a.to(kFloat64).contiguous().to_vector<double>();
  std::vector<double> B = b.to(kFloat64).contiguous().to_vector<double>();
  std::vector<double> C(M * N, 0.0);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t k = 0; k < K; ++k)
      for (int64_t j = 0; j < N; ++j) C[i * N + j] += A[i * K + k] * B[k * N + j];
  return from_vector(C, {M, N});
}

// Products large enough to be split across threads (core/cpu/matmul.cpp): by rows when taller than
// wide, by columns otherwise, with plain and transposed operands, and batches fewer than threads.
TEST(ThreadedMatmul, SplitProductsMatchATripleLoop) {
  set_num_threads(2);
  manual_seed(11);
  for (auto [M, N, K] : {std::tuple{131, 90, 70}, std::tuple{45, 203, 77}}) {
    Tensor a = randn({M, K}), b = randn({K, N});
    EXPECT_TENSOR_CLOSE(a.matmul(b).to(kFloat64), naive_matmul(a, b), 1e-5, 1e-4);
    Tensor at = randn({K, M}).t(), bt = randn({N, K}).t();  // column-major operands: BLAS transposes
    EXPECT_TENSOR_CLOSE(at.matmul(bt).to(kFloat64), naive_matmul(at, bt), 1e-5, 1e-4);
    Tensor a64 = a.to(kFloat64), b64 = b.to(kFloat64);
    EXPECT_TENSOR_CLOSE(a64.matmul(b64), naive_matmul(a64, b64), 1e-12, 1e-12);
  }
  Tensor batch = randn({1, 150, 64}), w = randn({64, 100});  // one batch, two threads: split rows
  EXPECT_TENSOR_CLOSE(batch.matmul(w)[0].to(kFloat64), naive_matmul(batch[0], w), 1e-5, 1e-4);
  Tensor many = randn({5, 70, 64});  // five batches over two threads: whole products per thread
  Tensor out = many.matmul(w);
  for (int64_t i = 0; i < 5; ++i) EXPECT_TENSOR_CLOSE(out[i].to(kFloat64), naive_matmul(many[i], w), 1e-5, 1e-4);
}

}  // namespace
}  // namespace ember

#include "core/cpu/allocator.h"

namespace ember {
namespace {

TEST(CpuAllocator, ReusesLargeBlocksAndAlignsEveryBlock) {
  const void* first = nullptr;
  {
    Tensor a = full({1 << 20}, 1.5f);  // 4 MiB: cached when freed
    first = a.data_ptr<float>();
  }
  Tensor b = zeros({1 << 20});
  EXPECT_EQ(b.sum().item<float>(), 0.0f);  // a reused block holds the new values, not the old
#ifndef EMBER_ASAN
  EXPECT_EQ(static_cast<const void*>(b.data_ptr<float>()), first);  // no fresh pages to fault in
#endif
  for (int64_t n : {1, 3, 1000, 1 << 18})
    EXPECT_EQ(reinterpret_cast<uintptr_t>(empty({n}).data_ptr<float>()) % cpu::kAlignment, 0u) << n;
  b = Tensor();
#ifndef EMBER_ASAN
  EXPECT_GE(cpu::cpu_empty_cache(), size_t(4) << 20);
#endif
  EXPECT_EQ(cpu::cpu_empty_cache(), 0u);
}

TEST(CoreBasics, IntegerTensorPlusIntegerScalarStaysInt64) {
  // PyTorch: torch.tensor([1, 2]) - 1 -> tensor([0, 1]) (int64); + 1.5 -> float32; add(2, alpha=3) -> +6.
  Tensor t = tensor({1, 2});
  EXPECT_EQ((t - 1).dtype(), kInt64);
  EXPECT_EQ((t - 1).to_vector<int64_t>(), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(t.add(2, 3).to_vector<int64_t>(), (std::vector<int64_t>{7, 8}));
  EXPECT_EQ((t + 1.5).dtype(), kFloat32);
}

}  // namespace
}  // namespace ember
