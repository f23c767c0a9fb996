// Device parity of the CUDA causal attention (cuda/attention.cu, FlashAttention-2 style) against
// the CPU's fused attention (core/cpu/attention.cpp), in float32 and float64.
//
// The CPU keeps the (L, S) weights for its backward; the GPU keeps one logsumexp per query row and
// recomputes the weights tile by tile. Checked twice: the kernels called on the backend directly
// (out, the logsumexp against the composed scores', dq, dk, dv against the CPU backward given the
// CPU's weights), and the public op with autograd, forward and every gradient. Sizes are the
// tiles' edges: one query, one head, L and S not multiples of the tile (16 floats, 8 doubles),
// L != S both ways, E != Ev, the largest head dim (128) and one past it (the op then composes).
// Without a usable GPU, or the emulator, the tests skip with "no CUDA device".
#include <cmath>
#include <limits>

#include "core/backend.h"
#include "test_util.h"

using namespace ember;

namespace {

const Device kGpu(kCUDA);
namespace F = nn::functional;

struct Tolerance {
  double rtol, atol;
};
Tolerance tolerance(ScalarType dt) { return dt == kFloat64 ? Tolerance{1e-10, 1e-12} : Tolerance{1e-4, 1e-5}; }

class CudaAttention : public ::testing::TestWithParam<ScalarType> {
 protected:
  void SetUp() override {
    if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  }
};

std::string dtype_case_name(const ::testing::TestParamInfo<ScalarType>& info) {
  return std::string(dtype_name(info.param));
}

struct AttentionShape {
  int64_t B, H, L, S, E, Ev;
};
const std::vector<AttentionShape> kShapes = {
    {1, 1, 1, 1, 3, 3},      // T = 1
    {2, 3, 17, 17, 8, 8},    // T past one tile (and two double tiles)
    {1, 1, 5, 19, 4, 6},     // more keys than queries, E != Ev
    {1, 2, 20, 7, 5, 5},     // more queries than keys
    {1, 1, 9, 9, 128, 128},  // the largest head dim: rows as long as the block
    {1, 1, 40, 40, 4, 4},    // three float tiles: the running max moves, the sum is rescaled
};

// (B, H, R, C) stored as (B, R, H, C), as a projection's heads lie: strided, unit-stride rows.
Tensor heads(int64_t B, int64_t H, int64_t R, int64_t C, ScalarType dt) {
  return randn({B, R, H, C}, dtype(dt)).transpose(1, 2);
}

// The logsumexp of each query's scores over the keys it sees, composed on the CPU.
Tensor reference_lse(const Tensor& q, const Tensor& k, double scale) {
  Tensor future = ones({q.size(2), k.size(2)}, dtype(kBool)).triu(1);
  return (q.matmul(k.mT()) * scale).masked_fill(future, -std::numeric_limits<double>::infinity()).logsumexp({-1});
}

TEST_P(CudaAttention, KernelsMatchTheCpu) {
  const ScalarType dt = GetParam();
  const Tolerance tol = tolerance(dt);
  Backend& gpu = backend_for(kGpu);
  Backend& cpu = backend_for(Device(kCPU));
  manual_seed(11);
  for (const auto [B, H, L, S, E, Ev] : kShapes) {
    const std::string where = fmt::format("B={} H={} L={} S={} E={} Ev={} {}", B, H, L, S, E, Ev, dtype_name(dt));
    const double scale = 1.0 / std::sqrt(static_cast<double>(E));
    Tensor q = heads(B, H, L, E, dt), k = heads(B, H, S, E, dt), v = heads(B, H, S, Ev, dt);
    Tensor g = heads(B, H, L, Ev, dt);
    Tensor out = empty({B, H, L, Ev}, dtype(dt)), probs = empty({B, H, L, S}, dtype(dt));
    ASSERT_TRUE(cpu.causal_attention(out, probs, q, k, v, Tensor(), scale));
    Tensor qg = q.to(kGpu), kg = k.to(kGpu), vg = v.to(kGpu);
    Tensor outg = heads(B, H, L, Ev, dt).to(kGpu), lseg = empty({B, H, L}, dtype(dt).device(kGpu));
    ASSERT_TRUE(gpu.flash_attention(outg, lseg, qg, kg, vg, scale)) << where;
    EXPECT_TENSOR_CLOSE(outg.cpu(), out, tol.rtol, tol.atol) << where << " out";
    EXPECT_TENSOR_CLOSE(lseg.cpu(), reference_lse(q, k, scale), tol.rtol, tol.atol) << where << " lse";

    Tensor dq = empty(q.sizes(), dtype(dt)), dk = empty(k.sizes(), dtype(dt)), dv = empty(v.sizes(), dtype(dt));
    ASSERT_TRUE(cpu.causal_attention_backward(dq, dk, dv, g, q, k, v, probs, Tensor(), scale));
    Tensor dqg = heads(B, H, L, E, dt).to(kGpu), dkg = heads(B, H, S, E, dt).to(kGpu);
    Tensor dvg = heads(B, H, S, Ev, dt).to(kGpu);
    ASSERT_TRUE(gpu.flash_attention_backward(dqg, dkg, dvg, g.to(kGpu), qg, kg, vg, lseg, scale)) << where;
    EXPECT_TENSOR_CLOSE(dqg.cpu(), dq, tol.rtol, 10 * tol.atol) << where << " dq";
    EXPECT_TENSOR_CLOSE(dkg.cpu(), dk, tol.rtol, 10 * tol.atol) << where << " dk";
    EXPECT_TENSOR_CLOSE(dvg.cpu(), dv, tol.rtol, 10 * tol.atol) << where << " dv";
  }
}

// A head dim past kMaxHeadDim: the kernel declines, and the op composes the same result.
TEST_P(CudaAttention, KernelDeclinesHeadDimsPastTheLargest) {
  const ScalarType dt = GetParam();
  Tensor q = randn({1, 1, 2, 129}, dtype(dt).device(kGpu));
  Tensor out = empty({1, 1, 2, 129}, dtype(dt).device(kGpu)), lse = empty({1, 1, 2}, dtype(dt).device(kGpu));
  EXPECT_FALSE(backend_for(kGpu).flash_attention(out, lse, q, q, q, 0.1));
}

// Through scaled_dot_product_attention and autograd: the heads of one (B, T, 3, H, E) projection,
// as the GPT makes them; forward and the gradient of every input.
TEST_P(CudaAttention, OpForwardAndGradientsMatchTheCpu) {
  const ScalarType dt = GetParam();
  const Tolerance tol = tolerance(dt);
  manual_seed(12);
  for (const auto [B, H, L, S, E, Ev] : kShapes) {
    if (L != S || E != Ev) continue;  // self-attention from one projection
    const std::string where = fmt::format("B={} H={} T={} E={} {}", B, H, L, E, dtype_name(dt));
    Tensor qkv = randn({B, L, 3, H, E}, dtype(dt));
    Tensor weighting = randn({B, H, L, E}, dtype(dt));
    Tensor xc = qkv.clone().requires_grad_(), xg = qkv.to(kGpu).requires_grad_();
    auto attend = [&](const Tensor& x) {
      Tensor q = x.select(2, 0).transpose(1, 2), k = x.select(2, 1).transpose(1, 2), v = x.select(2, 2).transpose(1, 2);
      return F::scaled_dot_product_attention(q, k, v, {}, 0.0, /*is_causal=*/true);
    };
    Tensor yc = attend(xc), yg = attend(xg);
    EXPECT_TENSOR_CLOSE(yg.cpu(), yc, tol.rtol, tol.atol) << where << " out";
    (yc * weighting).sum().backward();
    (yg * weighting.to(kGpu)).sum().backward();
    EXPECT_TENSOR_CLOSE(xg.grad().cpu(), xc.grad(), tol.rtol, 10 * tol.atol) << where << " grad of q, k, v";
  }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, CudaAttention, ::testing::Values(kFloat32, kFloat64), dtype_case_name);

}  // namespace
