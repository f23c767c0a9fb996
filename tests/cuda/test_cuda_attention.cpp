// Device parity of the CUDA causal attention (cuda/attention.cu, FlashAttention-2 style) against
// the CPU's fused attention (core/cpu/attention.cpp), in float32 and float64.
//
// The CPU keeps the (L, S) weights for its backward; the GPU keeps one logsumexp per query row and
// recomputes the weights tile by tile. Checked twice: the kernels called on the backend directly
// (out, the logsumexp against the composed scores', dq, dk, dv against the CPU backward given the
// CPU's weights), and the public op with autograd, forward and every gradient. Sizes are the
// tiles' edges: one query, one head, L and S not multiples of the tile (16 floats, 8 doubles),
// L != S both ways, E != Ev, the largest head dim (128) and one past it (the op then composes).
// With dropout: the kernels' Philox mask against the CPU's fused attention given the same mask as a
// noise tensor, built on the host from core/philox.h with the kernels' indexing, and the op in
// training (flash_attention taken, no noise tensor) against the CPU composition given that mask.
// Without a usable GPU, or the emulator, the tests skip with "no CUDA device".
#include <cmath>
#include <limits>

#include "autograd/attention.h"
#include "core/backend.h"
#include "cuda_test_util.h"
#include "forwarding_backend.h"
#include "test_util.h"

using namespace ember;
using namespace ember::cuda_test;

namespace {

namespace F = nn::functional;

class CudaAttention : public CudaDtypeTest {};

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
    ASSERT_TRUE(gpu.flash_attention(outg, lseg, qg, kg, vg, scale, PhiloxDropout{})) << where;
    EXPECT_TENSOR_CLOSE(outg.cpu(), out, tol.rtol, tol.atol) << where << " out";
    EXPECT_TENSOR_CLOSE(lseg.cpu(), reference_lse(q, k, scale), tol.rtol, tol.atol) << where << " lse";

    Tensor dq = empty(q.sizes(), dtype(dt)), dk = empty(k.sizes(), dtype(dt)), dv = empty(v.sizes(), dtype(dt));
    ASSERT_TRUE(cpu.causal_attention_backward(dq, dk, dv, g, q, k, v, probs, Tensor(), scale));
    Tensor dqg = heads(B, H, L, E, dt).to(kGpu), dkg = heads(B, H, S, E, dt).to(kGpu);
    Tensor dvg = heads(B, H, S, Ev, dt).to(kGpu);
    ASSERT_TRUE(gpu.flash_attention_backward(dqg, dkg, dvg, g.to(kGpu), qg, kg, vg, lseg, scale, PhiloxDropout{}))
        << where;
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
  EXPECT_FALSE(backend_for(kGpu).flash_attention(out, lse, q, q, q, 0.1, PhiloxDropout{}));
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

// Dropout's scaled keep mask (B, H, L, S) that flash_attention draws: weight (b, h, i, j) takes word
// offset + ((b H + h) L + i) S + j; built on the host.
Tensor host_attention_noise(int64_t B, int64_t H, int64_t L, int64_t S, ScalarType dt, const PhiloxDropout& d) {
  Tensor noise = empty({B, H, L, S}, dtype(kFloat64));
  double* n = noise.data_ptr<double>();
  for (int64_t e = 0; e < noise.numel(); ++e) n[e] = d.keeps(static_cast<uint64_t>(e)) ? d.scale() : 0.0;
  return noise.to(dt);
}

TEST_P(CudaAttention, KernelsWithDropoutMatchTheCpuGivenTheMask) {
  const ScalarType dt = GetParam();
  const Tolerance tol = tolerance(dt);
  Backend& gpu = backend_for(kGpu);
  Backend& cpu = backend_for(Device(kCPU));
  manual_seed(13);
  const PhiloxDropout drop{.seed = 1234, .offset = 40, .p = 0.3};
  for (const auto [B, H, L, S, E, Ev] : kShapes) {
    const std::string where = fmt::format("B={} H={} L={} S={} E={} Ev={} {}", B, H, L, S, E, Ev, dtype_name(dt));
    const double scale = 1.0 / std::sqrt(static_cast<double>(E));
    Tensor q = heads(B, H, L, E, dt), k = heads(B, H, S, E, dt), v = heads(B, H, S, Ev, dt);
    Tensor g = heads(B, H, L, Ev, dt);
    Tensor noise = host_attention_noise(B, H, L, S, dt, drop);
    Tensor out = empty({B, H, L, Ev}, dtype(dt)), probs = empty({B, H, L, S}, dtype(dt));
    ASSERT_TRUE(cpu.causal_attention(out, probs, q, k, v, noise, scale));
    Tensor qg = q.to(kGpu), kg = k.to(kGpu), vg = v.to(kGpu);
    Tensor outg = heads(B, H, L, Ev, dt).to(kGpu), lseg = empty({B, H, L}, dtype(dt).device(kGpu));
    ASSERT_TRUE(gpu.flash_attention(outg, lseg, qg, kg, vg, scale, drop)) << where;
    EXPECT_TENSOR_CLOSE(outg.cpu(), out, tol.rtol, tol.atol) << where << " out";
    EXPECT_TENSOR_CLOSE(lseg.cpu(), reference_lse(q, k, scale), tol.rtol, tol.atol) << where << " lse";

    Tensor dq = empty(q.sizes(), dtype(dt)), dk = empty(k.sizes(), dtype(dt)), dv = empty(v.sizes(), dtype(dt));
    ASSERT_TRUE(cpu.causal_attention_backward(dq, dk, dv, g, q, k, v, probs, noise, scale));
    Tensor dqg = heads(B, H, L, E, dt).to(kGpu), dkg = heads(B, H, S, E, dt).to(kGpu);
    Tensor dvg = heads(B, H, S, Ev, dt).to(kGpu);
    ASSERT_TRUE(gpu.flash_attention_backward(dqg, dkg, dvg, g.to(kGpu), qg, kg, vg, lseg, scale, drop)) << where;
    EXPECT_TENSOR_CLOSE(dqg.cpu(), dq, tol.rtol, 10 * tol.atol) << where << " dq";
    EXPECT_TENSOR_CLOSE(dkg.cpu(), dk, tol.rtol, 10 * tol.atol) << where << " dk";
    EXPECT_TENSOR_CLOSE(dvg.cpu(), dv, tol.rtol, 10 * tol.atol) << where << " dv";
  }
}

// The CUDA backend, counting the flash_attention calls that drew dropout and every dropout_noise call.
class CountingCudaBackend final : public test::ForwardingBackend {
 public:
  explicit CountingCudaBackend(Backend& in) : ForwardingBackend(in) {}
  bool flash_attention(const Tensor& out, const Tensor& lse, const Tensor& q, const Tensor& k, const Tensor& v,
                       double scale, const PhiloxDropout& dropout) override {
    const bool done = inner_.flash_attention(out, lse, q, k, v, scale, dropout);
    flash_with_dropout += done && dropout.active();
    return done;
  }
  bool flash_attention_backward(const Tensor& dq, const Tensor& dk, const Tensor& dv, const Tensor& dout,
                                const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& lse, double scale,
                                const PhiloxDropout& dropout) override {
    const bool done = inner_.flash_attention_backward(dq, dk, dv, dout, q, k, v, lse, scale, dropout);
    flash_backward_with_dropout += done && dropout.active();
    return done;
  }
  bool dropout_noise(const Tensor& noise, const PhiloxDropout& dropout) override {
    ++noise_calls;
    return inner_.dropout_noise(noise, dropout);
  }
  int flash_with_dropout = 0, flash_backward_with_dropout = 0, noise_calls = 0;
};

// scaled_dot_product_attention in training with dropout, as the GPT calls it: on CUDA one
// flash_attention with the mask drawn inside (no (B, H, L, S) noise tensor), forward and every
// gradient equal to the CPU composition given the host's mask for the words the call reserved; under
// create_graph the composed backward redraws that mask (one dropout_noise call).
TEST_P(CudaAttention, OpWithDropoutTakesTheFlashKernelAndMatchesTheCpu) {
  const ScalarType dt = GetParam();
  const Tolerance tol = tolerance(dt);
  const double p = 0.2;
  for (const int64_t T : {1, 17, 40}) {
    const int64_t B = 2, H = 3, E = 8;
    const std::string where = fmt::format("B={} H={} T={} E={} {}", B, H, T, E, dtype_name(dt));
    manual_seed(14);
    Tensor qkv = randn({B, T, 3, H, E}, dtype(dt)), weighting = randn({B, H, T, E}, dtype(dt));
    const double scale = 1.0 / std::sqrt(static_cast<double>(E));
    auto split = [](const Tensor& x) {
      return tensor_list{x.select(2, 0).transpose(1, 2), x.select(2, 1).transpose(1, 2),
                         x.select(2, 2).transpose(1, 2)};
    };
    // The CPU: causal softmax * the host's mask @ v, composed.
    Tensor noise = host_attention_noise(B, H, T, T, dt, {.seed = 99, .offset = 8, .p = p});
    Tensor xc = qkv.clone().requires_grad_();
    tensor_list c = split(xc);
    Tensor yc = (autograd::causal_softmax(c[0], c[1], scale) * noise).matmul(c[2]);
    (yc * weighting).sum().backward();

    CountingCudaBackend counting(backend_for(kGpu));
    ScopedBackendOverride use(kCUDA, counting);
    Tensor xg = qkv.to(kGpu).requires_grad_();
    manual_seed(99);
    philox_reserve(5);  // the call's words start at offset 8
    tensor_list gsplit = split(xg);
    Tensor yg = F::scaled_dot_product_attention(gsplit[0], gsplit[1], gsplit[2], {}, p, /*is_causal=*/true);
    EXPECT_EQ(counting.flash_with_dropout, 1) << where;
    EXPECT_EQ(counting.noise_calls, 0) << where;
    EXPECT_TENSOR_CLOSE(yg.cpu(), yc, tol.rtol, tol.atol) << where << " out";
    Tensor wg = weighting.to(kGpu);
    (yg * wg).sum().backward();
    EXPECT_EQ(counting.flash_backward_with_dropout, 1) << where;
    EXPECT_TENSOR_CLOSE(xg.grad().cpu(), xc.grad(), tol.rtol, 10 * tol.atol) << where << " grad of q, k, v";

    // create_graph: the composed backward, from differentiable ops and the redrawn mask.
    manual_seed(99);
    philox_reserve(5);
    Tensor x2 = qkv.to(kGpu).requires_grad_();
    tensor_list s2 = split(x2);
    Tensor y2 = F::scaled_dot_product_attention(s2[0], s2[1], s2[2], {}, p, true);
    tensor_list grads = autograd::grad({(y2 * wg).sum()}, {x2}, {}, /*retain_graph=*/true, /*create_graph=*/true);
    EXPECT_EQ(counting.noise_calls, 1) << where;
    EXPECT_TENSOR_CLOSE(grads[0].detach().cpu(), xc.grad(), tol.rtol, 10 * tol.atol) << where << " create_graph";
  }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, CudaAttention, ::testing::Values(kFloat32, kFloat64), dtype_case_name);

// ---- bfloat16 and float16 heads on tensor cores (cuda/attention_mma.cu) ----

class CudaAttentionTensorCores : public CudaDtypeTest {};

// The float64 attention of the heads as they are (rounded to bf16 or f16 already), with dropout's
// noise when given: what the kernel approximates, rounding only its weights and its output.
Tensor reference_attention(const Tensor& q, const Tensor& k, const Tensor& v, double scale, const Tensor& noise = {}) {
  Tensor w = autograd::causal_softmax(q.cpu().to(kFloat64), k.cpu().to(kFloat64), scale);
  if (noise.defined()) w = w * noise;
  return w.matmul(v.cpu().to(kFloat64));
}

// The kernel on the backend: out against float64 within the input type's rounding (the weights and
// the output are rounded once each; sums are float32), the float32 logsumexp to float32's rounding.
// Head dims 32, 64, 128; T of one query, of a block and a bit (64 queries, 32 keys a tile) and of
// three blocks; 24 is not a head dim it takes (the op composes then).
TEST_P(CudaAttentionTensorCores, ForwardMatchesFloat64) {
  const ScalarType dt = GetParam();
  const double tol = dt == kBFloat16 ? 1.6e-2 : 2.5e-3;  // about 2 units of the last place at |out| ~ 1
  Backend& gpu = backend_for(kGpu);
  manual_seed(21);
  for (const int64_t D : {32, 64, 128})
    for (const int64_t T : {1, 37, 70, 150}) {
      const int64_t B = 1, H = 2;
      const std::string where = fmt::format("T={} D={} {}", T, D, dtype_name(dt));
      const double scale = 1.0 / std::sqrt(static_cast<double>(D));
      Tensor q = heads(B, H, T, D, dt).to(kGpu), k = heads(B, H, T, D, dt).to(kGpu), v = heads(B, H, T, D, dt).to(kGpu);
      Tensor out = heads(B, H, T, D, dt).to(kGpu), lse = empty({B, H, T}, dtype(kFloat32).device(kGpu));
      ASSERT_TRUE(gpu.flash_attention(out, lse, q, k, v, scale, PhiloxDropout{})) << where;
      EXPECT_TENSOR_CLOSE(out.cpu().to(kFloat64), reference_attention(q, k, v, scale), tol, tol) << where << " out";
      EXPECT_TENSOR_CLOSE(lse.cpu().to(kFloat64), reference_lse(q.cpu().to(kFloat64), k.cpu().to(kFloat64), scale),
                          1e-5, 1e-5)
          << where << " lse";
    }
  Tensor q = heads(1, 1, 8, 24, dt).to(kGpu), out = heads(1, 1, 8, 24, dt).to(kGpu);
  Tensor lse = empty({1, 1, 8}, dtype(kFloat32).device(kGpu));
  EXPECT_FALSE(gpu.flash_attention(out, lse, q, q, q, 0.2, PhiloxDropout{}));  // head dim 24: composed
  Tensor lse_narrow = empty({1, 1, 8}, dtype(dt).device(kGpu));
  Tensor q32 = heads(1, 1, 8, 32, dt).to(kGpu), out32 = heads(1, 1, 8, 32, dt).to(kGpu);
  EXPECT_FALSE(gpu.flash_attention(out32, lse_narrow, q32, q32, q32, 0.2, PhiloxDropout{}));  // a bf16 logsumexp
}

// The backward kernels on the backend: dq, dk, dv against float64's gradients of the same heads,
// within a few units of the input type's last place of the largest gradient (dS is rounded to the
// input type before its products, as FlashAttention does). Head dims 32 and 64; 128 declines.
TEST_P(CudaAttentionTensorCores, BackwardMatchesFloat64) {
  const ScalarType dt = GetParam();
  const double tol = dt == kBFloat16 ? 3e-2 : 5e-3;
  Backend& gpu = backend_for(kGpu);
  manual_seed(23);
  for (const int64_t D : {32, 64})
    for (const int64_t T : {1, 37, 70, 150}) {
      const int64_t B = 1, H = 2;
      const std::string where = fmt::format("T={} D={} {}", T, D, dtype_name(dt));
      const double scale = 1.0 / std::sqrt(static_cast<double>(D));
      Tensor q = heads(B, H, T, D, dt).to(kGpu), k = heads(B, H, T, D, dt).to(kGpu), v = heads(B, H, T, D, dt).to(kGpu);
      Tensor g = heads(B, H, T, D, dt).to(kGpu);
      Tensor out = heads(B, H, T, D, dt).to(kGpu), lse = empty({B, H, T}, dtype(kFloat32).device(kGpu));
      ASSERT_TRUE(gpu.flash_attention(out, lse, q, k, v, scale, PhiloxDropout{})) << where;
      Tensor dq = heads(B, H, T, D, dt).to(kGpu), dk = heads(B, H, T, D, dt).to(kGpu),
             dv = heads(B, H, T, D, dt).to(kGpu);
      ASSERT_TRUE(gpu.flash_attention_backward(dq, dk, dv, g, q, k, v, lse, scale, PhiloxDropout{})) << where;
      tensor_list ref = {q.cpu().to(kFloat64).requires_grad_(), k.cpu().to(kFloat64).requires_grad_(),
                         v.cpu().to(kFloat64).requires_grad_()};
      (reference_attention(ref[0], ref[1], ref[2], scale) * g.cpu().to(kFloat64)).sum().backward();
      const char* names[] = {"dq", "dk", "dv"};
      const Tensor got[] = {dq, dk, dv};
      for (int i = 0; i < 3; ++i) {
        const Tensor want = ref[i].grad();
        const double atol = tol * std::max(1.0, want.abs().max().item<double>());
        EXPECT_TENSOR_CLOSE(got[i].cpu().to(kFloat64), want, tol, atol) << where << " " << names[i];
      }
    }
  Tensor q = heads(1, 1, 8, 128, dt).to(kGpu), lse = empty({1, 1, 8}, dtype(kFloat32).device(kGpu));
  Tensor out = heads(1, 1, 8, 128, dt).to(kGpu);
  ASSERT_TRUE(gpu.flash_attention(out, lse, q, q, q, 0.1, PhiloxDropout{}));
  Tensor dq = heads(1, 1, 8, 128, dt).to(kGpu), dk = heads(1, 1, 8, 128, dt).to(kGpu);
  Tensor dv = heads(1, 1, 8, 128, dt).to(kGpu);
  EXPECT_FALSE(gpu.flash_attention_backward(dq, dk, dv, out, q, q, q, lse, 0.1, PhiloxDropout{}));  // composed
}

// The op in training, as a bf16 GPT calls it under autocast: one flash_attention with dropout drawn
// inside, the output against float64 given the host's mask, and the gradients (one
// flash_attention_backward, redrawing the mask inside) against float64's.
TEST_P(CudaAttentionTensorCores, OpWithDropoutMatchesFloat64) {
  const ScalarType dt = GetParam();
  const double tol = dt == kBFloat16 ? 3e-2 : 5e-3;
  const double p = 0.2;
  const int64_t B = 2, H = 3, T = 45, D = 64;
  manual_seed(14);
  Tensor qkv = randn({B, T, 3, H, D}).to(dt), weighting = randn({B, H, T, D}).to(dt);
  const double scale = 1.0 / std::sqrt(static_cast<double>(D));
  auto split = [](const Tensor& x) {
    return tensor_list{x.select(2, 0).transpose(1, 2), x.select(2, 1).transpose(1, 2), x.select(2, 2).transpose(1, 2)};
  };
  Tensor noise = host_attention_noise(B, H, T, T, kFloat64, {.seed = 99, .offset = 8, .p = p});
  Tensor x64 = qkv.to(kFloat64).requires_grad_();
  tensor_list c = split(x64);
  Tensor y64 = (autograd::causal_softmax(c[0], c[1], scale) * noise).matmul(c[2]);
  (y64 * weighting.to(kFloat64)).sum().backward();

  CountingCudaBackend counting(backend_for(kGpu));
  ScopedBackendOverride use(kCUDA, counting);
  Tensor xg = qkv.to(kGpu).requires_grad_();
  manual_seed(99);
  philox_reserve(5);  // the call's words start at offset 8
  tensor_list g = split(xg);
  Tensor yg = F::scaled_dot_product_attention(g[0], g[1], g[2], {}, p, /*is_causal=*/true);
  EXPECT_EQ(counting.flash_with_dropout, 1);
  EXPECT_EQ(yg.dtype(), dt);
  EXPECT_TENSOR_CLOSE(yg.cpu().to(kFloat64), y64.detach(), tol, tol) << "out";
  (yg * weighting.to(kGpu)).sum().backward();
  EXPECT_EQ(counting.flash_backward_with_dropout, 1);  // the tensor-core backward redrew the mask inside
  EXPECT_EQ(counting.noise_calls, 0);
  const Tensor grad = xg.grad().cpu().to(kFloat64);
  EXPECT_TENSOR_CLOSE(grad, x64.grad(), tol, tol * x64.grad().abs().max().item<double>()) << "grad of q, k, v";
}

INSTANTIATE_TEST_SUITE_P(Dtypes, CudaAttentionTensorCores, ::testing::Values(kBFloat16, kFloat16), dtype_case_name);

}  // namespace
