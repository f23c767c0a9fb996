// Device parity of three CUDA kernels against the CPU's, on fresh random inputs, float32 and
// float64: the fused cross-entropy (cuda/loss.cu), index_add without atomics (embedding's
// backward, cuda/index.cu) and matmul_add (cuBLAS with beta = 1, cuda/matmul.cpp).
//
// Each is checked on the backend directly (a kernel that declined would fail) and through the
// public op, forward and gradient. Sizes hit the kernels' edges: one row, one class, rows longer
// than a block (1024), more rows than the forward's grid (2048), indices repeated more often than
// one chunk holds (32). Without a usable GPU, or the emulator, the tests skip with "no CUDA device".
#include "core/backend.h"
#include "cuda_test_util.h"
#include "test_util.h"

using namespace ember;
using namespace ember::cuda_test;

namespace {

namespace F = nn::functional;

class CudaLoss : public CudaDtypeTest {};

// Targets in [0, C), every fifth row ignore_index (-100).
Tensor random_targets(int64_t N, int64_t C) {
  Tensor t = randint(0, C, {N}).contiguous();
  for (int64_t i = 1; i < N; i += 5) t.data_ptr<int64_t>()[i] = -100;
  return t;
}

// ---- cross-entropy ----

struct Rows {
  int64_t N, C;
};
// One row of one class; fewer classes than a warp; the `video` vocabulary; rows longer than a
// block; more rows than the forward's grid, so blocks loop.
const std::vector<Rows> kRows = {{1, 1}, {1, 5}, {7, 33}, {300, 65}, {3, 1500}, {2500, 3}};

TEST_P(CudaLoss, CrossEntropyKernelsMatchTheCpu) {
  const ScalarType dt = GetParam();
  const Tolerance tol = tolerance(dt);
  Backend& gpu = backend_for(kGpu);
  Backend& cpu = backend_for(Device(kCPU));
  manual_seed(21);
  for (const auto [N, C] : kRows) {
    for (const double s : {0.0, 0.1}) {
      const std::string where = fmt::format("N={} C={} smoothing={} {}", N, C, s, dtype_name(dt));
      Tensor x = randn({N, C}, dtype(dt)) * 4, t = random_targets(N, C);
      Tensor losses = empty({N}, dtype(dt)), lse = empty({N}, dtype(dt));
      Tensor status = tensor({-100, 0}, kInt64);
      ASSERT_TRUE(cpu.cross_entropy(losses, lse, status, x, t, -100, s));
      Tensor losses_g = empty({N}, dtype(dt).device(kGpu)), lse_g = empty({N}, dtype(dt).device(kGpu));
      Tensor status_g = tensor({-100, 0}, kInt64).to(kGpu);
      ASSERT_TRUE(gpu.cross_entropy(losses_g, lse_g, status_g, x.to(kGpu), t.to(kGpu), -100, s));
      EXPECT_TENSOR_CLOSE(losses_g.cpu(), losses, tol.rtol, tol.atol) << where << " losses";
      EXPECT_TENSOR_CLOSE(lse_g.cpu(), lse, tol.rtol, tol.atol) << where << " lse";
      EXPECT_TENSOR_CLOSE(status_g.cpu(), status, 0, 0) << where << " status";
      // One gradient for every row (stride 0, the mean and sum), then one per row (none).
      for (const bool per_row : {false, true}) {
        Tensor g = per_row ? randn({N}, dtype(dt)) : randn({}, dtype(dt)).expand({N});
        Tensor dx = empty({N, C}, dtype(dt)), dx_g = empty({N, C}, dtype(dt).device(kGpu));
        ASSERT_TRUE(cpu.cross_entropy_backward(dx, g, x, lse, t, -100, s));
        Tensor g_g = per_row ? g.to(kGpu) : g.select(0, 0).to(kGpu).expand({N});
        ASSERT_TRUE(gpu.cross_entropy_backward(dx_g, g_g, x.to(kGpu), lse_g, t.to(kGpu), -100, s));
        EXPECT_TENSOR_CLOSE(dx_g.cpu(), dx, tol.rtol, tol.atol) << where << " dlogits, per_row " << per_row;
      }
    }
  }
}

TEST_P(CudaLoss, CrossEntropyOpForwardAndGradientMatchTheCpu) {
  const ScalarType dt = GetParam();
  const Tolerance tol = tolerance(dt);
  manual_seed(22);
  for (const auto [N, C] : kRows) {
    for (const Reduction r : {kMean, kSum, kNone}) {
      const auto opts = F::CrossEntropyFuncOptions().reduction(r).label_smoothing(N % 2 ? 0.0 : 0.2);
      const std::string where = fmt::format("N={} C={} reduction {}", N, C, static_cast<int>(r));
      Tensor x = randn({N, C}, dtype(dt)) * 2, t = random_targets(N, C);
      Tensor xc = x.clone().requires_grad_(), xg = x.to(kGpu).requires_grad_();
      Tensor yc = F::cross_entropy(xc, t, opts), yg = F::cross_entropy(xg, t.to(kGpu), opts);
      EXPECT_TENSOR_CLOSE(yg.cpu(), yc, tol.rtol, tol.atol) << where;
      Tensor w = randn(yc.sizes(), dtype(dt));
      (yc * w).sum().backward();
      (yg * w.to(kGpu)).sum().backward();
      EXPECT_TENSOR_CLOSE(xg.grad().cpu(), xc.grad(), tol.rtol, tol.atol) << where << " grad";
    }
  }
  // A (C) input: one sample.
  Tensor v = randn({6}, dtype(dt)).requires_grad_(), vg = v.detach().to(kGpu).requires_grad_();
  Tensor yc = F::cross_entropy(v, tensor(int64_t{4})), yg = F::cross_entropy(vg, tensor(int64_t{4}).to(kGpu));
  EXPECT_TENSOR_CLOSE(yg.cpu(), yc, tol.rtol, tol.atol);
  yc.backward();
  yg.backward();
  EXPECT_TENSOR_CLOSE(vg.grad().cpu(), v.grad(), tol.rtol, tol.atol);
}

TEST_P(CudaLoss, CrossEntropyBadTargetIsReportedByTheKernel) {
  const ScalarType dt = GetParam();
  Tensor x = randn({4, 3}, dtype(dt).device(kGpu));
  EXPECT_THROWS_WITH(F::cross_entropy(x, tensor({0, 2, 3, -100}, kInt64).to(kGpu)),
                     "cross_entropy: target 3 is out of bounds for 3 classes (input [4, 3], target [4])");
  EXPECT_THROWS_WITH(F::cross_entropy(x, tensor({-2, 0, 1, 1}, kInt64).to(kGpu)),
                     "cross_entropy: target -2 is out of bounds");
}

// ---- embedding backward: index_add without atomics ----

TEST_P(CudaLoss, IndexAddMatchesTheCpuAndRepeatsItsBits) {
  const ScalarType dt = GetParam();
  const Tolerance tol = tolerance(dt);
  Backend& gpu = backend_for(kGpu);
  Backend& cpu = backend_for(Device(kCPU));
  manual_seed(23);
  struct Shape {
    int64_t rows, n, dim;  // out (rows, dim) += src (n, dim) at index (n) in [0, rows)
  };
  // One index; repeated indices; one row hit 5,000 times (157 chunks of 32); a long row.
  for (const auto [rows, n, dim] : std::vector<Shape>{{5, 1, 3}, {7, 40, 9}, {3, 5000, 17}, {65, 700, 1100}}) {
    const std::string where = fmt::format("rows={} n={} dim={} {}", rows, n, dim, dtype_name(dt));
    Tensor base = randn({rows, dim}, dtype(dt)), src = randn({n, dim}, dtype(dt));
    Tensor index = randint(0, rows == 3 ? 1 : rows, {n});
    Tensor out = base.clone();
    cpu.index_add(out, 0, index, src);
    Tensor first = base.to(kGpu), second = base.to(kGpu);
    gpu.index_add(first, 0, index.to(kGpu), src.to(kGpu));
    gpu.index_add(second, 0, index.to(kGpu), src.to(kGpu));
    EXPECT_TENSOR_CLOSE(first.cpu(), out, tol.rtol, n > 1000 ? 100 * tol.atol : tol.atol) << where;
    EXPECT_TENSOR_CLOSE(second.cpu(), first.cpu(), 0, 0) << where << ": two runs differ";
  }
  // A middle dim: (outer, len, inner) blocks with outer > 1.
  Tensor out = randn({2, 4, 3}, dtype(dt)), src = randn({2, 6, 3}, dtype(dt));
  Tensor index = tensor({3, 0, 3, 3, 1, 0}, kInt64);
  Tensor want = out.clone(), got = out.to(kGpu);
  cpu.index_add(want, 1, index, src);
  gpu.index_add(got, 1, index.to(kGpu), src.to(kGpu));
  EXPECT_TENSOR_CLOSE(got.cpu(), want, tol.rtol, tol.atol);
}

TEST_P(CudaLoss, EmbeddingGradientMatchesTheCpu) {
  const ScalarType dt = GetParam();
  const Tolerance tol = tolerance(dt);
  manual_seed(24);
  for (const std::optional<int64_t> padding : {std::optional<int64_t>(), std::optional<int64_t>(2)}) {
    Tensor w = randn({11, 6}, dtype(dt));
    Tensor idx = randint(0, 11, {4, 37}).contiguous();  // (B, T): repeated indices, the padding row among them
    idx.data_ptr<int64_t>()[0] = 2;
    Tensor wc = w.clone().requires_grad_(), wg = w.to(kGpu).requires_grad_();
    const auto opts = F::EmbeddingFuncOptions().padding_idx(padding);
    Tensor yc = F::embedding(idx, wc, opts), yg = F::embedding(idx.to(kGpu), wg, opts);
    EXPECT_TENSOR_CLOSE(yg.cpu(), yc, 0, 0);
    Tensor g = randn(yc.sizes(), dtype(dt));
    (yc * g).sum().backward();
    (yg * g.to(kGpu)).sum().backward();
    EXPECT_TENSOR_CLOSE(wg.grad().cpu(), wc.grad(), tol.rtol, tol.atol) << "padding " << padding.has_value();
    if (padding) EXPECT_TENSOR_CLOSE(wg.grad().cpu()[2], zeros({6}, dtype(dt)), 0, 0);
  }
}

// ---- matmul_add: Linear's bias in cuBLAS's beta = 1 ----

TEST_P(CudaLoss, MatmulAddMatchesTheCpu) {
  const ScalarType dt = GetParam();
  const Tolerance tol = tolerance(dt);
  Backend& gpu = backend_for(kGpu);
  Backend& cpu = backend_for(Device(kCPU));
  manual_seed(25);
  struct Mnk {
    int64_t B, M, N, K;
  };
  for (const auto [B, M, N, K] : std::vector<Mnk>{{1, 1, 1, 1}, {1, 37, 5, 19}, {3, 4, 130, 7}, {2, 9, 6, 0}}) {
    const std::string where = fmt::format("B={} M={} N={} K={}", B, M, N, K);
    Tensor a = randn({B, M, K}, dtype(dt)), b = randn({B, K, N}, dtype(dt));
    Tensor bias_row = randn({1, 1, N}, dtype(dt)), bias = bias_row.expand({B, M, N});  // broadcast: stride 0
    Tensor want = empty({B, M, N}, dtype(dt)), got = empty({B, M, N}, dtype(dt).device(kGpu));
    ASSERT_TRUE(cpu.matmul_add(want, bias, a, b));
    Tensor b_t = b.to(kGpu).transpose(1, 2).contiguous().transpose(1, 2);  // b read transposed (CUBLAS_OP_T)
    ASSERT_TRUE(gpu.matmul_add(got, bias_row.to(kGpu).expand({B, M, N}), a.to(kGpu), b_t));
    EXPECT_TENSOR_CLOSE(got.cpu(), want, tol.rtol, tol.atol) << where;
  }
  // Through F::linear (addmm), forward and every gradient.
  Tensor x = randn({5, 7}, dtype(dt)), w = randn({3, 7}, dtype(dt)), bias = randn({3}, dtype(dt));
  tensor_list cpu_in = {x.requires_grad_(), w.requires_grad_(), bias.requires_grad_()}, gpu_in;
  for (const Tensor& t : cpu_in) gpu_in.push_back(t.detach().to(kGpu).requires_grad_());
  Tensor yc = F::linear(cpu_in[0], cpu_in[1], cpu_in[2]), yg = F::linear(gpu_in[0], gpu_in[1], gpu_in[2]);
  EXPECT_EQ(yg.grad_fn()->name(), "AddmmBackward0");
  EXPECT_TENSOR_CLOSE(yg.cpu(), yc, tol.rtol, tol.atol);
  Tensor g = randn(yc.sizes(), dtype(dt));
  (yc * g).sum().backward();
  (yg * g.to(kGpu)).sum().backward();
  for (size_t i = 0; i < cpu_in.size(); ++i)
    EXPECT_TENSOR_CLOSE(gpu_in[i].grad().cpu(), cpu_in[i].grad(), tol.rtol, tol.atol) << "grad of input " << i;
}

INSTANTIATE_TEST_SUITE_P(Dtypes, CudaLoss, ::testing::Values(kFloat32, kFloat64), dtype_case_name);

}  // namespace
