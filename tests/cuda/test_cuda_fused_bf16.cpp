// The fused CUDA cross-entropy and LayerNorm reading bfloat16 and float16 inputs as float32 (what
// CUDA autocast's float32 policy asks of them, cuda/loss.cu and cuda/norm.cu) against the path they
// replace: the input cast to float32, then the float32 kernels. The results must be the same bits:
// losses, outputs and statistics in float32, the input's gradient rounded once to its dtype.
//
// Checked through the public ops under autocast (F::cross_entropy, nn::LayerNorm), on the backend
// directly, and in the op trace: under CUDA autocast no float32 copy of the input is made. Without a
// usable GPU, or the emulator, the tests skip with "no CUDA device".
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "core/backend.h"
#include "core/trace.h"
#include "cuda_test_util.h"
#include "test_util.h"

using namespace ember;
using namespace ember::cuda_test;

namespace {

namespace F = nn::functional;

class CudaFusedBf16 : public CudaDtypeTest {};

// The raw bits of t's values as float32 (bfloat16 and float16 widen exactly), so NaN and -0 compare too.
std::vector<uint32_t> bits(const Tensor& t) {
  Tensor c = t.detach().to(kCPU).to(kFloat32).contiguous();
  std::vector<uint32_t> out(static_cast<size_t>(c.numel()));
  if (!out.empty()) std::memcpy(out.data(), c.data_ptr<float>(), out.size() * sizeof(float));
  return out;
}

// (N, V) logits of `dtype` on the GPU, rounded from randn * 4; row 1 is -inf but for column 2.
Tensor reduced_logits(int64_t N, int64_t V, ScalarType dtype) {
  Tensor x = (randn({N, V}) * 4).contiguous();
  if (N > 1) {
    float* row = x.data_ptr<float>() + V;
    for (int64_t c = 0; c < V; ++c) row[c] = c == 2 ? 1.5f : -std::numeric_limits<float>::infinity();
  }
  return x.to(dtype).to(kGpu);
}

// Targets in [0, V): row 1 on its one finite logit, every third row from row 3 ignore_index (-100).
Tensor targets_for(int64_t N, int64_t V) {
  Tensor t = randint(0, V, {N}).contiguous();
  if (N > 1) t.data_ptr<int64_t>()[1] = 2;
  for (int64_t i = 3; i < N; i += 3) t.data_ptr<int64_t>()[i] = -100;
  return t.to(kGpu);
}

struct LossCase {
  int64_t N, V;
};
// V = 65, rows of less than one block and of more than one (1024), with and without a partial block.
const LossCase kLossCases[] = {{7, 65}, {5, 300}, {4, 1030}, {2, 3000}};

// Loss and logits' gradient of F::cross_entropy under CUDA autocast, from a leaf of x's values.
std::pair<Tensor, Tensor> autocast_loss(const Tensor& x, const Tensor& t, const F::CrossEntropyFuncOptions& opts) {
  Tensor leaf = x.detach().requires_grad_(true);
  Tensor loss;
  {
    autocast guard(kCUDA, x.dtype());
    loss = F::cross_entropy(leaf, t, opts);
  }
  loss.sum().backward();
  return {loss, leaf.grad()};
}

// The same from the path it replaces: x cast to float32 first, autocast off.
std::pair<Tensor, Tensor> cast_loss(const Tensor& x, const Tensor& t, const F::CrossEntropyFuncOptions& opts) {
  Tensor leaf = x.detach().requires_grad_(true);
  Tensor loss = F::cross_entropy(leaf.to(kFloat32), t, opts);
  loss.sum().backward();
  return {loss, leaf.grad()};
}

TEST_P(CudaFusedBf16, CrossEntropyUnderAutocastIsTheCastPathBitForBit) {
  const ScalarType dtype = GetParam();
  manual_seed(3);
  for (const LossCase& c : kLossCases) {
    const Tensor x = reduced_logits(c.N, c.V, dtype), t = targets_for(c.N, c.V);
    for (double s : {0.0, 0.1}) {
      for (Reduction r : {Reduction::None, Reduction::Mean, Reduction::Sum}) {
        SCOPED_TRACE("N " + std::to_string(c.N) + ", V " + std::to_string(c.V) + ", smoothing " + std::to_string(s) +
                     ", reduction " + std::to_string(static_cast<int>(r)));
        const auto opts = F::CrossEntropyFuncOptions().label_smoothing(s).reduction(r);
        const auto fused = autocast_loss(x, t, opts);
        const auto cast = cast_loss(x, t, opts);
        EXPECT_EQ(fused.first.dtype(), kFloat32);
        EXPECT_EQ(fused.second.dtype(), dtype);
        EXPECT_EQ(bits(fused.first), bits(cast.first));
        EXPECT_EQ(bits(fused.second), bits(cast.second));
      }
    }
  }
}

// The kernels on the backend: reduced logits with float32 losses and lse are taken, and give the
// float32 kernels' bits on the widened logits; dlogits is their float32 gradient rounded once.
TEST_P(CudaFusedBf16, CrossEntropyKernelsReadTheLogitsAsFloat32) {
  const ScalarType dtype = GetParam();
  manual_seed(4);
  Backend& gpu = backend_for(kGpu);
  const auto f32 = TensorOptions().dtype(kFloat32).device(kGpu);
  for (const LossCase& c : kLossCases) {
    for (double s : {0.0, 0.1}) {
      SCOPED_TRACE("N " + std::to_string(c.N) + ", V " + std::to_string(c.V) + ", smoothing " + std::to_string(s));
      const Tensor x = reduced_logits(c.N, c.V, dtype), t = targets_for(c.N, c.V), wide = x.to(kFloat32);
      Tensor loss = empty({c.N}, f32), lse = empty({c.N}, f32), loss_w = empty({c.N}, f32), lse_w = empty({c.N}, f32);
      Tensor status = tensor({-100, 0}, kInt64).to(kGpu), status_w = tensor({-100, 0}, kInt64).to(kGpu);
      ASSERT_TRUE(gpu.cross_entropy(loss, lse, status, x, t, -100, s));
      ASSERT_TRUE(gpu.cross_entropy(loss_w, lse_w, status_w, wide, t, -100, s));
      EXPECT_EQ(bits(loss), bits(loss_w));
      EXPECT_EQ(bits(lse), bits(lse_w));
      EXPECT_EQ(bits(status), bits(status_w));
      const Tensor g = (rand({c.N}) + 0.5).to(kGpu);
      Tensor dx = empty({c.N, c.V}, TensorOptions().dtype(dtype).device(kGpu)), dx_w = empty({c.N, c.V}, f32);
      ASSERT_TRUE(gpu.cross_entropy_backward(dx, g, x, lse, t, -100, s));
      ASSERT_TRUE(gpu.cross_entropy_backward(dx_w, g, wide, lse_w, t, -100, s));
      EXPECT_EQ(bits(dx), bits(dx_w.to(dtype)));
    }
  }
  // Reduced losses (a plain bfloat16 cross_entropy, autocast off) still compose.
  const Tensor x = reduced_logits(3, 65, dtype), t = targets_for(3, 65);
  const auto same = TensorOptions().dtype(dtype).device(kGpu);
  Tensor loss = empty({3}, same), lse = empty({3}, same), status = tensor({-100, 0}, kInt64).to(kGpu);
  EXPECT_FALSE(gpu.cross_entropy(loss, lse, status, x, t, -100, 0.0));
}

// nn::LayerNorm under autocast against the same module on the input cast to float32: output, the
// input's gradient and the parameters' gradients. 300 rows: more than one band of the dweight pass.
TEST_P(CudaFusedBf16, LayerNormUnderAutocastIsTheCastPathBitForBit) {
  const ScalarType dtype = GetParam();
  manual_seed(5);
  for (int64_t D : {65, 300, 1030}) {
    for (int64_t N : {3, 300}) {
      if (N * D > 100000) continue;  // the emulator's time
      SCOPED_TRACE("N " + std::to_string(N) + ", D " + std::to_string(D));
      nn::LayerNorm ln(nn::LayerNormOptions({D}));
      ln->to(kGpu);
      {
        NoGradGuard no_grad;  // parameters away from 1 and 0, so the affine part is exercised
        ln->weight.copy_((randn({D}) * 0.5 + 1).to(kGpu));
        ln->bias.copy_((randn({D}) * 0.5).to(kGpu));
      }
      const Tensor x = (randn({N, D}) * 3 + 1).to(dtype).to(kGpu);
      const Tensor gy = randn({N, D}).to(kGpu);
      const auto run = [&](bool fused) {
        Tensor leaf = x.detach().requires_grad_(true);
        ln->zero_grad();
        Tensor y;
        if (fused) {
          autocast guard(kCUDA, dtype);
          y = ln->forward(leaf);
        } else {
          y = ln->forward(leaf.to(kFloat32));
        }
        y.backward(gy);
        return std::vector<Tensor>{y, leaf.grad(), ln->weight.grad().clone(), ln->bias.grad().clone()};
      };
      const std::vector<Tensor> fused = run(true), cast = run(false);
      EXPECT_EQ(fused[0].dtype(), kFloat32);
      EXPECT_EQ(fused[1].dtype(), dtype);
      for (size_t i = 0; i < fused.size(); ++i) EXPECT_EQ(bits(fused[i]), bits(cast[i])) << "result " << i;
    }
  }
}

// The LayerNorm kernels on the backend: a reduced input with float32 weight, bias and statistics.
TEST_P(CudaFusedBf16, LayerNormKernelsReadTheInputAsFloat32) {
  const ScalarType dtype = GetParam();
  manual_seed(6);
  Backend& gpu = backend_for(kGpu);
  const auto f32 = TensorOptions().dtype(kFloat32).device(kGpu);
  const int64_t N = 300, D = 65;
  const Tensor x = (randn({N, D}) * 2).to(dtype).to(kGpu), wide = x.to(kFloat32);
  const Tensor w = randn({D}).to(kGpu), b = randn({D}).to(kGpu), g = randn({N, D}).to(kGpu);
  Tensor y = empty({N, D}, f32), mean = empty({N}, f32), rstd = empty({N}, f32);
  Tensor y_w = empty({N, D}, f32), mean_w = empty({N}, f32), rstd_w = empty({N}, f32);
  ASSERT_TRUE(gpu.layer_norm(y, mean, rstd, x, w, b, 1e-5));
  ASSERT_TRUE(gpu.layer_norm(y_w, mean_w, rstd_w, wide, w, b, 1e-5));
  EXPECT_EQ(bits(y), bits(y_w));
  EXPECT_EQ(bits(mean), bits(mean_w));
  EXPECT_EQ(bits(rstd), bits(rstd_w));
  Tensor dx = empty({N, D}, TensorOptions().dtype(dtype).device(kGpu)), dw = empty({D}, f32), db = empty({D}, f32);
  Tensor dx_w = empty({N, D}, f32), dw_w = empty({D}, f32), db_w = empty({D}, f32);
  ASSERT_TRUE(gpu.layer_norm_backward(dx, dw, db, g, x, mean, rstd, w));
  ASSERT_TRUE(gpu.layer_norm_backward(dx_w, dw_w, db_w, g, wide, mean_w, rstd_w, w));
  EXPECT_EQ(bits(dx), bits(dx_w.to(dtype)));
  EXPECT_EQ(bits(dw), bits(dw_w));
  EXPECT_EQ(bits(db), bits(db_w));
  // A reduced input with reduced parameters (autocast off) still composes.
  const auto same = TensorOptions().dtype(dtype).device(kGpu);
  Tensor yr = empty({N, D}, same), meanr = empty({N}, same), rstdr = empty({N}, same);
  EXPECT_FALSE(gpu.layer_norm(yr, meanr, rstdr, x, w.to(dtype), b.to(dtype), 1e-5));
}

// The kernels the op trace shows for fn, one line each (trace::Scope prints them to stderr).
std::string traced(const std::function<void()>& fn) {
  ::testing::internal::CaptureStderr();
  {
    trace::Scope scope("fused");
    fn();
  }
  return ::testing::internal::GetCapturedStderr();
}

// Under CUDA autocast the trace has no copy writing a float32 (N, V) or (B, T, D) table; the float32
// policy's cast, which the weighted cross_entropy still takes, is such a line.
TEST_P(CudaFusedBf16, AutocastMakesNoFloat32CopyOfTheInput) {
  if (trace::level() != 0) GTEST_SKIP() << "EMBER_DEBUG is set";
  const ScalarType dtype = GetParam();
  manual_seed(7);
  const Tensor x = reduced_logits(12, 65, dtype), t = targets_for(12, 65);
  const std::string copy_of_logits = "out [12, 65] float32";
  const auto copies = [&](const std::string& out) {
    std::string found;
    size_t from = 0;
    for (size_t at = out.find('\n'); at != std::string::npos; from = at + 1, at = out.find('\n', from)) {
      const std::string line = out.substr(from, at - from);
      if (line.find("copy") != std::string::npos && line.find(copy_of_logits) != std::string::npos)
        found += line + "\n";
    }
    return found;
  };
  autocast guard(kCUDA, dtype);
  const std::string fused = traced([&] { F::cross_entropy(x, t); });
  EXPECT_EQ(copies(fused), "") << fused;
  const Tensor weight = ones({65}).to(kGpu);
  const std::string cast = traced([&] { F::cross_entropy(x, t, F::CrossEntropyFuncOptions().weight(weight)); });
  EXPECT_NE(copies(cast), "") << "the check would not see a cast:\n" << cast;

  const Tensor h = (randn({2, 6, 65})).to(dtype).to(kGpu);
  nn::LayerNorm ln(nn::LayerNormOptions({65}));
  ln->to(kGpu);
  const std::string norm = traced([&] { ln->forward(h); });
  EXPECT_EQ(norm.find("copy out [2, 6, 65] float32"), std::string::npos) << norm;
  EXPECT_NE(norm.find("layer_norm"), std::string::npos) << norm;
}

// Float32 inputs under autocast take the float32 kernels as before: the same bits as autocast off.
TEST_P(CudaFusedBf16, Float32InputsAreUnchangedUnderAutocast) {
  manual_seed(8);
  const Tensor x = reduced_logits(7, 65, kFloat32), t = targets_for(7, 65);
  const auto opts = F::CrossEntropyFuncOptions().label_smoothing(0.1);
  Tensor plain = F::cross_entropy(x, t, opts), under;
  {
    autocast guard(kCUDA, GetParam());
    under = F::cross_entropy(x, t, opts);
  }
  EXPECT_EQ(under.dtype(), kFloat32);
  EXPECT_EQ(bits(under), bits(plain));
  const Tensor h = randn({4, 65}).to(kGpu);
  Tensor y = layer_norm(h, {65}, Tensor(), Tensor(), 1e-5), yu;
  {
    autocast guard(kCUDA, GetParam());
    yu = layer_norm(h, {65}, Tensor(), Tensor(), 1e-5);
  }
  EXPECT_EQ(bits(yu), bits(y));
}

INSTANTIATE_TEST_SUITE_P(ReducedFloats, CudaFusedBf16, ::testing::Values(kBFloat16, kFloat16), dtype_case_name);

}  // namespace
