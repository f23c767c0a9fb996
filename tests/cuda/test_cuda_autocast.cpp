// CUDA autocast: the output dtypes PyTorch's CUDA lists give (products and attention in bfloat16 or
// float16, LayerNorm, softmax, sums and losses in float32, promote's widest dtype), the banned
// binary_cross_entropy, the weight-cast cache, and a GPT with the `video` preset's widths trained for
// three AdamW steps under CUDA autocast against the same steps under the CPU's autocast. Without a
// usable CUDA device (or the emulator) every test skips.
#include <cmath>
#include <functional>
#include <map>

#include "cuda_test_util.h"
#include "test_util.h"

using namespace ember;
using namespace ember::cuda_test;
namespace F = nn::functional;

namespace {

class CudaAutocast : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  }
};

// torch.autocast("cuda", dtype=torch.bfloat16): fn().dtype, from PyTorch's CUDA lists
// (AT_FORALL_LOWER_PRECISION_FP, AT_FORALL_FP32, AT_FORALL_FP32_SET_OPT_DTYPE, AT_FORALL_PROMOTE).
TEST_F(CudaAutocast, OutputDtypesFollowTheCudaLists) {
  manual_seed(1);
  Tensor x = randn({4, 8}).to(kGpu), w = randn({6, 8}).to(kGpu), bias = randn({6}).to(kGpu);
  Tensor t = tensor({1, 2, 3, 4}).to(kGpu), h = x.to(kBFloat16);
  Tensor q = randn({1, 2, 5, 8}).to(kGpu);
  Tensor image = x.view({1, 1, 4, 8}), volume = x.view({1, 1, 2, 4, 4});
  Tensor image64 = image.to(kFloat64), w64 = w.view({1, 6, 2, 4}).to(kFloat64);
  const std::map<std::string, std::pair<std::function<Tensor()>, ScalarType>> ops = {
      {"linear", {[&] { return F::linear(x, w, bias); }, kBFloat16}},
      {"matmul", {[&] { return x.matmul(w.t()); }, kBFloat16}},
      {"addmm", {[&] { return addmm(bias, x, w.t()); }, kBFloat16}},
      {"mm", {[&] { return mm(x, w.t()); }, kBFloat16}},
      {"bmm", {[&] { return bmm(x.unsqueeze(0), w.t().unsqueeze(0)); }, kBFloat16}},
      {"baddbmm", {[&] { return baddbmm(bias.view({1, 1, 6}), x.unsqueeze(0), w.t().unsqueeze(0)); }, kBFloat16}},
      {"addbmm", {[&] { return addbmm(bias, x.unsqueeze(0), w.t().unsqueeze(0)); }, kBFloat16}},
      {"mv", {[&] { return w.mv(x[0]); }, kBFloat16}},
      {"addmv", {[&] { return addmv(bias, w, x[0]); }, kBFloat16}},
      {"addr", {[&] { return addr(w, bias, x[0]); }, kBFloat16}},
      {"einsum", {[&] { return einsum("ij,kj->ik", {x, w}); }, kBFloat16}},
      {"chain_matmul", {[&] { return chain_matmul({x, w.t(), w}); }, kBFloat16}},
      {"multi_dot", {[&] { return linalg::multi_dot({x, w.t(), w}); }, kBFloat16}},
      {"prelu", {[&] { return x.prelu(full({1}, 0.25).to(kGpu)); }, kBFloat16}},
      {"lstm_cell",
       {[&] {
          nn::LSTMCell cell(8, 6);
          cell->to(kGpu);
          return std::get<1>(cell->forward(x, std::make_tuple(x.narrow(1, 0, 6), x.narrow(1, 2, 6))));
        },
        kBFloat16}},
      {"gru_cell",
       {[&] {
          nn::GRUCell cell(8, 6);
          cell->to(kGpu);
          return cell->forward(x, x.narrow(1, 0, 6));
        },
        kBFloat16}},
      {"linear_of_float64", {[&] { return F::linear(x.to(kFloat64), w.to(kFloat64)); }, kFloat64}},
      {"conv1d", {[&] { return conv1d(x.unsqueeze(0), w.view({6, 4, 2}), bias); }, kBFloat16}},
      {"conv2d", {[&] { return conv2d(image, w.view({6, 1, 2, 4}), bias, 1, 1); }, kBFloat16}},
      {"conv3d", {[&] { return conv3d(volume, w.view({6, 1, 2, 2, 2}), bias); }, kBFloat16}},
      {"conv_transpose1d", {[&] { return conv_transpose1d(x.unsqueeze(0), w.view({4, 6, 2}), bias, 2); }, kBFloat16}},
      {"conv_transpose2d", {[&] { return conv_transpose2d(image, w.view({1, 6, 2, 4})); }, kBFloat16}},
      {"conv_transpose3d", {[&] { return conv_transpose3d(volume, w.view({1, 6, 2, 2, 2})); }, kBFloat16}},
      {"conv_transpose2d_of_float64", {[&] { return conv_transpose2d(image64, w64); }, kFloat64}},
      {"scaled_dot_product_attention",
       {[&] { return F::scaled_dot_product_attention(q, q, q, {}, 0.0, true); }, kBFloat16}},
      {"layer_norm_of_bf16", {[&] { return F::layer_norm(h, {8}, {}, {}, 1e-5); }, kFloat32}},
      {"softmax_of_bf16", {[&] { return h.softmax(-1); }, kFloat32}},
      {"softmax_of_bf16_with_dtype", {[&] { return h.softmax(-1, kBFloat16); }, kBFloat16}},
      {"log_softmax_of_bf16", {[&] { return h.log_softmax(-1); }, kFloat32}},
      {"sum_of_bf16", {[&] { return h.sum(); }, kFloat32}},
      {"cumsum_of_bf16", {[&] { return h.cumsum(1); }, kFloat32}},
      {"exp_of_bf16", {[&] { return h.exp(); }, kFloat32}},
      {"pow_of_bf16", {[&] { return h.pow(2); }, kFloat32}},
      {"cross_entropy_of_bf16", {[&] { return F::cross_entropy(h, t); }, kFloat32}},
      {"mse_loss_of_bf16", {[&] { return F::mse_loss(h, h); }, kFloat32}},
      {"gelu_of_bf16", {[&] { return F::gelu(h); }, kBFloat16}},  // on no list: its input's dtype
      {"add_bf16_float32", {[&] { return h + x; }, kFloat32}},    // type promotion, not autocast
      {"mul_of_bf16", {[&] { return h * h; }, kBFloat16}},
      {"addcmul_promotes", {[&] { return h.addcmul(x, h); }, kFloat32}},
      {"atan2_of_bf16", {[&] { return h.atan2(h); }, kBFloat16}},  // promote: the widest is bf16
  };
  autocast guard(kCUDA, kBFloat16);
  EXPECT_TRUE(autocast::is_enabled());
  EXPECT_FALSE(autocast::is_cpu_enabled());
  for (const auto& [name, op] : ops) {
    const Tensor y = op.first();
    EXPECT_TRUE(y.is_cuda()) << name;
    EXPECT_EQ(dtype_name(y.dtype()), dtype_name(op.second)) << name;
  }
  // CUDA autocast leaves CPU tensors alone, and CPU autocast CUDA ones.
  EXPECT_EQ(x.cpu().matmul(w.t().cpu()).dtype(), kFloat32);
  {
    autocast cpu_only(kCUDA, std::nullopt, false);
    autocast cpu(kCPU);
    EXPECT_EQ(x.matmul(w.t()).dtype(), kFloat32);
    EXPECT_EQ(x.cpu().matmul(w.t().cpu()).dtype(), kBFloat16);
  }
}

TEST_F(CudaAutocast, Float16IsTheDefaultDtype) {
  Tensor x = randn({3, 4}).to(kGpu), w = randn({5, 4}).to(kGpu);
  autocast guard(kCUDA);
  EXPECT_EQ(autocast::get_autocast_gpu_dtype(), kFloat16);
  const Tensor y = F::linear(x, w);
  EXPECT_EQ(y.dtype(), kFloat16);
  EXPECT_TENSOR_CLOSE(y.to(kFloat32).cpu(), x.cpu().matmul(w.cpu().t()), 2e-3, 2e-3);
}

TEST_F(CudaAutocast, BinaryCrossEntropyIsBannedAsInPyTorch) {
  Tensor p = rand({4}).to(kGpu), y = rand({4}).to(kGpu);
  autocast guard(kCUDA, kBFloat16);
  EXPECT_THROWS_WITH(F::binary_cross_entropy(p, y), "binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast");
  EXPECT_EQ(F::binary_cross_entropy_with_logits(p, y).dtype(), kFloat32);
  autocast off(kCUDA, kBFloat16, false);
  EXPECT_EQ(F::binary_cross_entropy(p, y).dtype(), kFloat32);
}

// A weight's bf16 copy is made once per scope, on CUDA as on the CPU.
TEST_F(CudaAutocast, WeightCastsAreCachedPerScope) {
  Tensor w = randn({6, 8}).to(kGpu).requires_grad_(), x = randn({2, 8}).to(kGpu);
  {
    autocast guard(kCUDA, kBFloat16);
    F::linear(x, w);
    F::linear(x, w);
    EXPECT_EQ(autocast::cache_size(), 1u);
  }
  EXPECT_EQ(autocast::cache_size(), 0u);
}

// Dropout of bf16 activations (what autocast's projections give it) draws its mask on the device
// from the Philox stream, as float32 dropout does: for the same seed the same elements are kept, and
// the kept ones are scaled by 1 / (1 - p) rounded to bf16.
TEST_F(CudaAutocast, DropoutOfBf16ActivationsDrawsTheFloat32Mask) {
  Tensor x = (rand({64, 48}) + 0.5).to(kGpu);
  manual_seed(5);
  const Tensor wide = F::dropout(x, F::DropoutFuncOptions().p(0.1).training(true));
  manual_seed(5);
  const Tensor narrow = F::dropout(x.to(kBFloat16), F::DropoutFuncOptions().p(0.1).training(true));
  EXPECT_EQ(narrow.dtype(), kBFloat16);
  EXPECT_TRUE(equal(narrow.eq(0).cpu(), wide.eq(0).cpu()));
  EXPECT_GT(wide.eq(0).sum().item<int64_t>(), 0);
  const Tensor expected = (x.to(kBFloat16) * Tensor(full({}, 1 / 0.9)).to(kBFloat16).to(kGpu)) * wide.ne(0);
  EXPECT_TENSOR_CLOSE(narrow.to(kFloat32).cpu(), expected.to(kFloat32).cpu(), 0.0, 0.0);
}

// Inside scaled_dot_product_attention (bf16 list) autocast is off, so its softmax (float32 list)
// stays in bf16: the result is the one of the same bf16 call without autocast, bit for bit.
TEST_F(CudaAutocast, AttentionsSoftmaxIsNotCastInside) {
  manual_seed(2);
  Tensor q = randn({1, 2, 7, 16}).to(kGpu).to(kBFloat16), k = randn({1, 2, 7, 16}).to(kGpu).to(kBFloat16);
  Tensor v = randn({1, 2, 7, 16}).to(kGpu).to(kBFloat16);
  const Tensor plain = F::scaled_dot_product_attention(q, k, v, {}, 0.0, true);
  autocast guard(kCUDA, kBFloat16);
  const Tensor under = F::scaled_dot_product_attention(q, k, v, {}, 0.0, true);
  EXPECT_EQ(under.dtype(), kBFloat16);
  EXPECT_TENSOR_CLOSE(under.to(kFloat32).cpu(), plain.to(kFloat32).cpu(), 0.0, 0.0);
}

// The `video` preset's widths (384 wide, 6 heads of 64, 65 characters) with 2 layers and 64
// positions: three AdamW steps under CUDA autocast and under the CPU's, from the same weights and
// batches. The two differ where their lists do (CUDA's softmax and LayerNorm in float32, the CPU's
// attention weights in float32) and in bf16 rounding, so the losses agree to bf16's precision and
// the parameters to a few bf16 steps of the update.
TEST_F(CudaAutocast, GptStepsMatchTheCpusAutocast) {
  nn::GPTConfig cfg;
  cfg.vocab_size = 65, cfg.block_size = 64, cfg.n_layer = 2, cfg.n_head = 6, cfg.n_embd = 384;
  manual_seed(7);
  nn::GPT cpu(cfg);
  manual_seed(7);
  nn::GPT gpu(cfg);
  gpu->to(kGpu);
  const double lr = 1e-3;
  optim::AdamW cpu_opt(cpu->parameters(), optim::AdamWOptions(lr).weight_decay(0.1));
  optim::AdamW gpu_opt(gpu->parameters(), optim::AdamWOptions(lr).weight_decay(0.1));
  for (int step = 0; step < 3; ++step) {
    Tensor idx = randint(0, cfg.vocab_size, {2, 64}, dtype(kInt64));
    Tensor targets = randint(0, cfg.vocab_size, {2, 64}, dtype(kInt64));
    Tensor cpu_loss, gpu_loss;
    {
      autocast guard(kCPU, kBFloat16);
      cpu_loss = std::get<1>(cpu->forward(idx, targets));
    }
    {
      autocast guard(kCUDA, kBFloat16);
      auto [logits, loss] = gpu->forward(idx.to(kGpu), targets.to(kGpu));
      EXPECT_EQ(logits.dtype(), kBFloat16);
      EXPECT_EQ(loss.dtype(), kFloat32);
      gpu_loss = loss;
    }
    EXPECT_NEAR(gpu_loss.item<double>(), cpu_loss.item<double>(), 1e-2 * cpu_loss.item<double>())
        << "loss at step " << step;
    cpu_opt.zero_grad();
    gpu_opt.zero_grad();
    cpu_loss.backward();
    gpu_loss.backward();
    cpu_opt.step();
    gpu_opt.step();
  }
  const auto cpu_params = cpu->named_parameters(), gpu_params = gpu->named_parameters();
  ASSERT_EQ(cpu_params.size(), gpu_params.size());
  for (size_t i = 0; i < cpu_params.size(); ++i) {
    Tensor a = gpu_params[i].value().detach().cpu(), b = cpu_params[i].value().detach();
    EXPECT_EQ(a.dtype(), kFloat32) << cpu_params[i].key();
    // The key bias's gradient is 0 up to rounding (softmax ignores what q . b_k adds to every score
    // of a row), so Adam steps each element by +-lr in the direction of its rounding noise: the query
    // and value biases are compared.
    if (cpu_params[i].key().ends_with("attn.c_attn.bias")) {
      const int64_t C = cfg.n_embd;
      a = cat({a.slice(0, 0, C), a.slice(0, 2 * C, 3 * C)});
      b = cat({b.slice(0, 0, C), b.slice(0, 2 * C, 3 * C)});
    }
    const Tensor diff = (a - b).abs();
    // An element whose gradient is near zero may take Adam's step the other way (2 lr a step); on
    // average the parameters move together.
    EXPECT_LE(diff.max().item<double>(), 6 * lr) << cpu_params[i].key();
    EXPECT_LE(diff.mean().item<double>(), lr / 10) << cpu_params[i].key();
  }
}

}  // namespace
