// Device parity: every CUDA kernel against the CPU one, forward and backward, on fresh random inputs.
//
// Each case is one line: input shapes and a function of the inputs. The runner evaluates it on
// CPU and on CUDA tensors holding the same values, compares the outputs, then back-propagates the
// same random weighting of the output on both devices and compares every input gradient.
// Tolerance is atol + rtol * |cpu| per dtype. Without a usable GPU every test here skips with
// "no CUDA device"; the file uses only the public API, so it builds in builds without CUDA too.
#include <limits>

#include "cuda_test_util.h"
#include "test_util.h"

using namespace ember;
using namespace ember::cuda_test;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

using In = const tensor_list&;

// An int64 index tensor with `values` in `shape`, on `dev`.
Tensor idx(Device dev, std::vector<int64_t> values, std::vector<int64_t> shape) {
  return from_vector<int64_t>(values, shape).to(dev);
}

struct ParityCase {
  const char* name;
  std::vector<std::vector<int64_t>> shapes;  // random normal inputs, one per shape
  std::function<Tensor(In, Device)> fn;      // the inputs and the device they are on
  bool differentiable = true;
};

// clang-format off
const std::vector<ParityCase> kCases = {
  // ---- elementwise, with broadcasting and strided inputs ----
  {"add_broadcast", {{3, 4}, {4}}, [](In x, Device) { return x[0] + x[1]; }},
  {"sub_broadcast_3d", {{2, 3, 4}, {3, 1}}, [](In x, Device) { return x[0] - x[1]; }},
  {"mul_transposed", {{4, 3}, {3, 4}}, [](In x, Device) { return x[0].t() * x[1]; }},
  {"div", {{3, 4}, {3, 4}}, [](In x, Device) { return x[0] / (x[1].abs() + 0.5); }},
  {"pow_scalar", {{5, 3}}, [](In x, Device) { return (x[0].abs() + 0.1).pow(2.5); }},
  {"pow_tensor", {{4}, {4}}, [](In x, Device) { return (x[0].abs() + 0.5).pow(x[1]); }},
  {"maximum", {{3, 4}, {4}}, [](In x, Device) { return maximum(x[0], x[1]); }},
  {"minimum", {{3, 4}, {3, 1}}, [](In x, Device) { return minimum(x[0], x[1]); }},
  {"scalar_ops", {{6}}, [](In x, Device) { return 2.0 - x[0] * 3.0 / 4.0 + 1.0; }},
  {"neg", {{7, 5}}, [](In x, Device) { return -x[0].t(); }},
  {"exp", {{7, 5}}, [](In x, Device) { return x[0].exp(); }},
  {"log", {{7, 5}}, [](In x, Device) { return (x[0].abs() + 0.1).log(); }},
  {"log1p", {{7, 5}}, [](In x, Device) { return x[0].abs().log1p(); }},
  {"sqrt", {{7, 5}}, [](In x, Device) { return (x[0].abs() + 0.1).sqrt(); }},
  {"rsqrt", {{7, 5}}, [](In x, Device) { return (x[0].abs() + 0.1).rsqrt(); }},
  {"abs", {{7, 5}}, [](In x, Device) { return x[0].abs(); }},
  {"sign", {{7, 5}}, [](In x, Device) { return x[0].sign() * x[0]; }},
  {"square", {{7, 5}}, [](In x, Device) { return x[0].square(); }},
  {"reciprocal", {{7, 5}}, [](In x, Device) { return (x[0].abs() + 0.5).reciprocal(); }},
  {"erf", {{7, 5}}, [](In x, Device) { return x[0].erf(); }},
  {"sin", {{7, 5}}, [](In x, Device) { return x[0].sin(); }},
  {"cos", {{7, 5}}, [](In x, Device) { return x[0].cos(); }},
  {"tanh", {{7, 5}}, [](In x, Device) { return x[0].tanh(); }},
  {"sigmoid", {{7, 5}}, [](In x, Device) { return x[0].sigmoid(); }},
  {"relu", {{7, 5}}, [](In x, Device) { return x[0].t().relu(); }},
  {"gelu", {{7, 5}}, [](In x, Device) { return x[0].gelu(); }},
  {"gelu_tanh", {{7, 5}}, [](In x, Device) { return x[0].gelu("tanh"); }},
  {"clamp", {{6, 4}}, [](In x, Device) { return x[0].clamp(-0.5, 0.5); }},
  {"compare", {{3, 4}, {3, 4}}, [](In x, Device) { return (x[0] > x[1]).logical_or(x[0] == x[0].abs()); }, false},
  {"where", {{3, 4}, {4}}, [](In x, Device) { return where(x[0] > 0, x[0], x[1] * 2); }},
  {"masked_fill_softmax", {{2, 4, 4}},
   [](In x, Device d) { return x[0].masked_fill(ones({4, 4}, TensorOptions(kBool).device(d)).triu(1), -kInf).softmax(-1); }},
  // ---- reductions ----
  {"sum_all", {{3, 5}}, [](In x, Device) { return x[0].sum(); }},
  {"sum_dims", {{2, 3, 4}}, [](In x, Device) { return x[0].sum({0, 2}); }},
  {"sum_keepdim_of_transpose", {{4, 6}}, [](In x, Device) { return x[0].t().sum({1}, true); }},
  {"sum_over_long_row", {{3, 5000}}, [](In x, Device) { return x[0].sum({1}); }},
  {"mean_dim", {{4, 6}}, [](In x, Device) { return x[0].mean({0}); }},
  {"var", {{5, 7}}, [](In x, Device) { return x[0].var({1}, true, true); }},
  {"std", {{5, 7}}, [](In x, Device) { return x[0].std(); }},
  {"max_all", {{5, 7}}, [](In x, Device) { return x[0].max(); }},
  {"max_dim", {{5, 7}}, [](In x, Device) { return std::get<0>(x[0].max(1)); }},
  {"min_dim_strided", {{5, 7}}, [](In x, Device) { return std::get<0>(x[0].t().min(1, true)); }},
  {"argmax", {{5, 7}}, [](In x, Device) { return x[0].argmax(1); }, false},
  {"argmin_all", {{5, 7}}, [](In x, Device) { return x[0].argmin(); }, false},
  {"amax", {{3, 4, 5}}, [](In x, Device) { return x[0].amax({0, 2}); }},
  {"logsumexp", {{3, 9}}, [](In x, Device) { return x[0].logsumexp({1}); }},
  {"norm", {{3, 9}}, [](In x, Device) { return x[0].norm(); }},
  {"all_any", {{4, 6}}, [](In x, Device) { return (x[0] > -1).all(1).logical_xor((x[0] > 1).any(1)); }, false},
  // ---- softmax ----
  {"softmax_last", {{4, 10}}, [](In x, Device) { return x[0].softmax(-1); }},
  {"softmax_dim0", {{4, 10}}, [](In x, Device) { return x[0].softmax(0); }},
  {"softmax_wide_row", {{3, 3000}}, [](In x, Device) { return (x[0] * 10).softmax(-1); }},
  {"log_softmax", {{4, 10}}, [](In x, Device) { return x[0].log_softmax(-1); }},
  // ---- matmul (cuBLAS) ----
  {"mm", {{5, 7}, {7, 3}}, [](In x, Device) { return x[0].mm(x[1]); }},
  {"mm_transposed_operands", {{7, 5}, {3, 7}}, [](In x, Device) { return x[0].t().mm(x[1].t()); }},
  {"mm_sliced_operand", {{5, 14}, {7, 3}}, [](In x, Device) { return x[0].slice(1, 0, 14, 2).mm(x[1]); }},
  {"bmm", {{2, 5, 7}, {2, 7, 3}}, [](In x, Device) { return bmm(x[0], x[1]); }},
  {"matmul_broadcast_batch", {{2, 5, 7}, {7, 3}}, [](In x, Device) { return x[0].matmul(x[1]); }},
  {"matmul_4d", {{2, 3, 5, 7}, {3, 7, 2}}, [](In x, Device) { return x[0].matmul(x[1]); }},
  {"matmul_vector", {{7}, {7, 3}}, [](In x, Device) { return x[0].matmul(x[1]); }},
  {"matmul_large_k", {{8, 512}, {512, 8}}, [](In x, Device) { return x[0].matmul(x[1]); }},
  // ---- tril / triu ----
  {"tril", {{2, 5, 6}}, [](In x, Device) { return x[0].tril(-1); }},
  {"triu", {{5, 6}}, [](In x, Device) { return x[0].triu(2); }},
  // ---- indexing ----
  {"embedding_repeated_rows", {{10, 4}},
   [](In x, Device d) { return embedding(x[0], idx(d, {1, 3, 3, 0, 9, 1}, {2, 3})); }},
  {"index_select", {{4, 6}}, [](In x, Device d) { return x[0].index_select(1, idx(d, {5, 0, 5}, {3})); }},
  {"gather", {{3, 5}}, [](In x, Device d) { return x[0].gather(1, idx(d, {0, 4, 2, 2, 1, 0}, {3, 2})); }},
  {"gather_transposed", {{5, 3}}, [](In x, Device d) { return x[0].t().gather(0, idx(d, {0, 2, 1, 2, 0, 0}, {2, 3})); }},
  {"scatter_add", {{3, 5}, {3, 2}},
   [](In x, Device d) { return x[0].scatter_add(1, idx(d, {0, 0, 4, 1, 2, 2}, {3, 2}), x[1]); }},
  {"index_add", {{5, 3}, {3, 3}}, [](In x, Device d) { return x[0].index_add(0, idx(d, {0, 2, 0}, {3}), x[1]); }},
  {"cross_entropy", {{6, 11}},
   [](In x, Device d) { return -x[0].log_softmax(1).gather(1, idx(d, {0, 10, 3, 3, 7, 1}, {6, 1})).mean(); }},
  // ---- layout: cat, stack and contiguous copies of views ----
  {"cat_dim0", {{2, 3}, {4, 3}}, [](In x, Device) { return cat({x[0], x[1]}, 0); }},
  {"cat_dim1_strided", {{3, 2}, {4, 3}}, [](In x, Device) { return cat({x[0], x[1].t()}, 1); }},
  {"stack", {{2, 3}, {2, 3}}, [](In x, Device) { return stack({x[0], x[1]}, 1); }},
  {"permute_contiguous", {{2, 3, 4}}, [](In x, Device) { return x[0].permute({2, 0, 1}).contiguous(); }},
  {"slice_step_contiguous", {{6, 5}}, [](In x, Device) { return x[0].slice(0, 1, 6, 2).contiguous(); }},
  {"expand_contiguous", {{3, 1}}, [](In x, Device) { return x[0].expand({3, 4}).contiguous(); }},
  {"split_recombine", {{6, 4}}, [](In x, Device) { auto p = x[0].split(2, 0); return p[2] * p[0] - p[1]; }},
  {"to_float64_and_back", {{3, 4}}, [](In x, Device) { return x[0].to(kFloat64).exp().to(x[0].dtype()); }},
  // ---- compositions the GPT uses ----
  {"layer_norm", {{4, 8}},
   [](In x, Device) { Tensor c = x[0] - x[0].mean({-1}, true); return c / (c.square().mean({-1}, true) + 1e-5).sqrt(); }},
  {"causal_attention", {{2, 4, 8}, {2, 4, 8}, {2, 4, 8}},
   [](In x, Device d) {
     Tensor att = x[0].matmul(x[1].transpose(-2, -1)) / std::sqrt(8.0);
     att = att.masked_fill(ones({4, 4}, TensorOptions(kBool).device(d)).triu(1), -kInf).softmax(-1);
     return att.matmul(x[2]);
   }},
};
// clang-format on

class CudaParity : public ::testing::TestWithParam<std::tuple<size_t, ScalarType>> {
 protected:
  void SetUp() override {
    if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  }
};

TEST_P(CudaParity, ForwardAndBackwardMatchCpu) {
  const auto [index, dt] = GetParam();
  const ParityCase& c = kCases[index];
  const Tolerance tol = tolerance(dt);
  manual_seed(1234 + index);
  tensor_list cpu_in, gpu_in;
  for (const auto& shape : c.shapes) {
    Tensor x = randn(shape, dtype(dt));
    cpu_in.push_back(x.detach().requires_grad_(c.differentiable));
    gpu_in.push_back(x.to(kGpu).requires_grad_(c.differentiable));
  }
  Tensor cpu_out = c.fn(cpu_in, Device(kCPU));
  Tensor gpu_out = c.fn(gpu_in, kGpu);
  ASSERT_TRUE(gpu_out.is_cuda()) << c.name << " left the GPU";
  ASSERT_EQ(gpu_out.dtype(), cpu_out.dtype());
  EXPECT_TENSOR_CLOSE(gpu_out.cpu(), cpu_out, tol.rtol, tol.atol) << c.name << " forward";
  if (!c.differentiable) return;
  Tensor w = randn(cpu_out.sizes(), dtype(cpu_out.dtype()));
  (cpu_out * w).sum().backward();
  (gpu_out * w.to(kGpu)).sum().backward();
  for (size_t i = 0; i < cpu_in.size(); ++i) {
    ASSERT_EQ(gpu_in[i].grad().defined(), cpu_in[i].grad().defined()) << c.name << " input " << i;
    if (!cpu_in[i].grad().defined()) continue;
    EXPECT_TRUE(gpu_in[i].grad().is_cuda());
    EXPECT_TENSOR_CLOSE(gpu_in[i].grad().cpu(), cpu_in[i].grad(), tol.rtol, tol.atol)
        << c.name << " grad of input " << i;
  }
}

std::string case_name(const ::testing::TestParamInfo<CudaParity::ParamType>& info) {
  return std::string(kCases[std::get<0>(info.param)].name) + "_" + std::string(dtype_name(std::get<1>(info.param)));
}

INSTANTIATE_TEST_SUITE_P(AllOps, CudaParity,
                         ::testing::Combine(::testing::Range<size_t>(0, kCases.size()),
                                            ::testing::Values(kFloat32, kFloat64)),
                         case_name);

// ---- beyond the table: dtypes, sizes, memory, errors ----

class CudaDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  }
};

TEST_F(CudaDevice, IntegerAndBoolKernelsAreExact) {
  Tensor a = arange(-6, 6, dtype(kInt64)).reshape({3, 4});
  Tensor g = a.to(kGpu);
  EXPECT_TRUE(equal((g * 3 + 1).cpu(), a * 3 + 1));
  EXPECT_TRUE(equal(g.sum({1}).cpu(), a.sum({1})));
  EXPECT_TRUE(equal(g.abs().neg().cpu(), a.abs().neg()));
  EXPECT_TRUE(equal(std::get<1>(g.max(0)).cpu(), std::get<1>(a.max(0))));
  EXPECT_TRUE(equal((g > 0).logical_and(g < 4).cpu(), (a > 0).logical_and(a < 4)));
  EXPECT_TRUE(equal(g.to(kFloat32).cpu(), a.to(kFloat32)));
}

TEST_F(CudaDevice, ScalarsAndEmptyTensors) {
  Tensor s = scalar_tensor(2.5).to(kGpu);
  EXPECT_DOUBLE_EQ((s * s).item<double>(), 6.25);
  Tensor e = zeros({0, 3}).to(kGpu);
  EXPECT_TENSOR_CLOSE(e.sum({0}).cpu(), zeros({3}));
  EXPECT_EQ((e + 1).numel(), 0);
}

TEST_F(CudaDevice, GridStrideLoopsCoverMoreElementsThanOneGrid) {
  const int64_t n = 20'000'000;  // more than 65535 blocks * 256 threads
  Tensor x = ones({n}, device(kGpu));
  EXPECT_DOUBLE_EQ(x.sum(kFloat64).item<double>(), double(n));
  EXPECT_EQ((x * 2).slice(0, n - 1).item<float>(), 2.0f);
}

TEST_F(CudaDevice, RandomTensorsOnCudaUseTheCpuGenerator) {
  manual_seed(7);
  Tensor a = randn({5}, device(kGpu));
  manual_seed(7);
  Tensor b = randn({5});
  EXPECT_TRUE(a.is_cuda());
  EXPECT_TRUE(equal(a.cpu(), b));
}

TEST_F(CudaDevice, MemoryStatisticsFollowTensors) {
  cuda::synchronize();
  const size_t before = cuda::memory_allocated();
  {
    Tensor t = empty({1 << 20}, device(kGpu));  // 4 MiB
    EXPECT_GE(cuda::memory_allocated(), before + 4 * (size_t(1) << 20));
    EXPECT_GE(cuda::max_memory_allocated(), cuda::memory_allocated());
  }
  EXPECT_EQ(cuda::memory_allocated(), before);
  EXPECT_GE(cuda::memory_reserved(), cuda::memory_allocated());
  cuda::empty_cache();
  EXPECT_EQ(cuda::memory_reserved(), cuda::memory_allocated());
  cuda::reset_peak_memory_stats();
  EXPECT_EQ(cuda::max_memory_allocated(), cuda::memory_allocated());
}

TEST_F(CudaDevice, OutOfMemoryIsAnErrorNotAnAbort) {
  EXPECT_THROWS_WITH(empty({int64_t(1) << 42}, device(kGpu)), "CUDA out of memory: tried to allocate 16.00 TiB");
  Tensor still_works = ones({3}, device(kGpu)) * 2;  // the failure leaves the device usable
  EXPECT_TENSOR_CLOSE(still_works.cpu(), full({3}, 2.0));
}

TEST_F(CudaDevice, BadDevicesAndMixedDevicesAreClearErrors) {
  EXPECT_THROWS_WITH(zeros({2}, device(Device(kCUDA, 99))), "CUDA: device cuda:99 requested but only");
  EXPECT_THROWS_WITH(ones({2}).to(kGpu) + ones({2}), "expected all tensors to be on the same device");
  // Every op taking several tensors checks them before any kernel sees a pointer from the wrong side.
  Tensor g = ones({3, 2}).to(kGpu), c = ones({3, 2}), i = zeros({2}, dtype(kInt64));
  EXPECT_THROWS_WITH(g.index_select(0, i),
                     "index_select: expected all tensors to be on the same device, but found "
                     "at least two devices, cuda:0 and cpu");
  EXPECT_THROWS_WITH(embedding(g, i), "embedding: expected all tensors to be on the same device");
  EXPECT_THROWS_WITH(g.matmul(c.t()), "matmul: expected all tensors to be on the same device");
  EXPECT_THROWS_WITH(cat({g, c}, 0), "cat: expected all tensors to be on the same device");
  EXPECT_THROWS_WITH(g.gather(1, zeros({3, 1}, dtype(kInt64))),
                     "gather: expected all tensors to be on the same device");
  EXPECT_THROWS_WITH(nn::functional::cross_entropy(g, i.narrow(0, 0, 1).expand({3})),
                     "cross_entropy: expected all tensors to be on the same device");
  EXPECT_THROWS_WITH(layer_norm(g, {2}, ones({2})), "layer_norm: expected all tensors to be on the same device");
}

TEST_F(CudaDevice, Tf32IsOffUnlessAskedFor) {
  EXPECT_FALSE(cuda::allow_tf32());
  manual_seed(3);
  Tensor a = randn({64, 256}), b = randn({256, 64});
  Tensor ref = a.to(kFloat64).matmul(b.to(kFloat64));
  EXPECT_TENSOR_CLOSE(a.to(kGpu).matmul(b.to(kGpu)).cpu().to(kFloat64), ref, 1e-4, 1e-4);
  cuda::set_allow_tf32(true);
  EXPECT_TENSOR_CLOSE(a.to(kGpu).matmul(b.to(kGpu)).cpu().to(kFloat64), ref, 1e-2, 1e-1);
  cuda::set_allow_tf32(false);
}

// The whole GPT on CUDA against the CPU: logits, loss and every parameter gradient (a tiny config,
// so the emulator runs it in CI). Position ids, embeddings, attention and the loss all take part.
TEST_F(CudaDevice, TinyGptMatchesTheCpu) {
  for (ScalarType dt : {kFloat32, kFloat64}) {
    nn::GPTConfig cfg;
    cfg.vocab_size = 11, cfg.block_size = 8, cfg.n_layer = 2, cfg.n_head = 2, cfg.n_embd = 8;
    manual_seed(21);
    nn::GPT cpu(cfg);
    manual_seed(21);
    nn::GPT gpu(cfg);
    cpu->to(dt);
    gpu->to(dt);
    gpu->to(kGpu);
    Tensor idx = randint(0, cfg.vocab_size, {2, 6}, dtype(kInt64));
    Tensor targets = randint(0, cfg.vocab_size, {2, 6}, dtype(kInt64));
    auto [cpu_logits, cpu_loss] = cpu->forward(idx, targets);
    auto [gpu_logits, gpu_loss] = gpu->forward(idx.to(kGpu), targets.to(kGpu));
    const Tolerance tol = tolerance(dt);
    ASSERT_TRUE(gpu_logits.is_cuda());
    EXPECT_TENSOR_CLOSE(gpu_logits.cpu(), cpu_logits, tol.rtol, tol.atol) << dtype_name(dt) << " logits";
    EXPECT_TENSOR_CLOSE(gpu_loss.cpu(), cpu_loss, tol.rtol, tol.atol) << dtype_name(dt) << " loss";
    cpu_loss.backward();
    gpu_loss.backward();
    const auto cpu_params = cpu->named_parameters(), gpu_params = gpu->named_parameters();
    ASSERT_EQ(cpu_params.size(), gpu_params.size());
    for (size_t i = 0; i < cpu_params.size(); ++i) {
      const auto& [name, p] = cpu_params[i];
      const Tensor& q = gpu_params[i].value();
      ASSERT_TRUE(q.grad().defined()) << name;
      EXPECT_TRUE(q.grad().is_cuda()) << name;
      EXPECT_TENSOR_CLOSE(q.grad().cpu(), p.grad(), tol.rtol, tol.atol) << dtype_name(dt) << " grad of " << name;
    }
  }
}

}  // namespace
