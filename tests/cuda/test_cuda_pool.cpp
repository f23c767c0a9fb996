// Device parity of the CUDA pooling kernels (cuda/pool.cu) and of the composed norms on CUDA,
// against the CPU, on fresh random inputs in float32 and float64: forward, max pooling's indices
// and every gradient, through the public functions (so 1-d, adaptive and padded windows all run
// the kernels). Shapes are tiny (the emulator runs them in CI) but cover padding, dilation,
// ceil_mode, non-square kernels and more planes than one block has threads. Without a usable GPU,
// or the emulator, the tests skip with "no CUDA device".
#include <functional>

#include "test_util.h"

using namespace ember;
namespace F = ember::nn::functional;

namespace {

const Device kGpu(kCUDA);

class CudaPoolNorm : public ::testing::TestWithParam<ScalarType> {
 protected:
  void SetUp() override {
    if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  }
};

struct ParityCase {
  const char* name;
  std::vector<int64_t> shape;
  std::function<Tensor(const Tensor&)> f;  // the indices of max pooling checked separately
};

TEST_P(CudaPoolNorm, KernelsAndGradientsMatchTheCpu) {
  const ScalarType dt = GetParam();
  const double rtol = dt == kFloat64 ? 1e-10 : 1e-4, atol = dt == kFloat64 ? 1e-12 : 1e-5;
  const Tensor w4 = randn({4}, dtype(dt)), b4 = randn({4}, dtype(dt));
  const std::vector<ParityCase> table = {
      {"max_pool2d",
       {2, 3, 7, 6},
       [](const Tensor& x) {
         return F::max_pool2d(x, F::MaxPool2dFuncOptions({3, 2}).stride({2, 1}).padding(1));
       }},
      {"max_pool2d_dilation_ceil",
       {1, 2, 9, 8},
       [](const Tensor& x) {
         return F::max_pool2d(x, F::MaxPool2dFuncOptions(3).stride(2).dilation(2).ceil_mode(true));
       }},
      {"max_pool1d_many_planes",
       {5, 60, 7},
       [](const Tensor& x) { return F::max_pool1d(x, F::MaxPool1dFuncOptions(2).stride(1).padding(1)); }},
      {"avg_pool2d_exclude_ceil",
       {2, 2, 7, 5},
       [](const Tensor& x) {
         return F::avg_pool2d(x,
                              F::AvgPool2dFuncOptions(3).stride(2).padding(1).ceil_mode(true).count_include_pad(false));
       }},
      {"avg_pool2d_divisor",
       {1, 3, 6, 6},
       [](const Tensor& x) {
         return F::avg_pool2d(x, F::AvgPool2dFuncOptions({2, 3}).stride(1).divisor_override(5));
       }},
      {"avg_pool1d",
       {3, 2, 11},
       [](const Tensor& x) { return F::avg_pool1d(x, F::AvgPool1dFuncOptions(4).stride(3).padding(2)); }},
      {"adaptive_avg_pool2d",
       {2, 2, 7, 5},
       [](const Tensor& x) {
         return F::adaptive_avg_pool2d(x, F::AdaptiveAvgPool2dFuncOptions({3, 4}));
       }},
      {"adaptive_max_pool2d",
       {2, 2, 5, 9},
       [](const Tensor& x) {
         return F::adaptive_max_pool2d(x, F::AdaptiveMaxPool2dFuncOptions({4, 2}));
       }},
      {"batch_norm",
       {3, 4, 5},
       [&](const Tensor& x) {
         return F::batch_norm(
             x, {}, {}, F::BatchNormFuncOptions().weight(w4.to(x.device())).bias(b4.to(x.device())).training(true));
       }},
      {"group_norm",
       {2, 4, 3, 2},
       [&](const Tensor& x) { return F::group_norm(x, F::GroupNormFuncOptions(2).weight(w4.to(x.device()))); }},
      {"instance_norm",
       {2, 4, 3, 3},
       [&](const Tensor& x) { return F::instance_norm(x, F::InstanceNormFuncOptions().bias(b4.to(x.device()))); }},
      {"rms_norm",
       {3, 4},
       [&](const Tensor& x) { return F::rms_norm(x, F::RMSNormFuncOptions({4}).weight(w4.to(x.device()))); }},
  };
  manual_seed(11);
  for (const ParityCase& c : table) {
    SCOPED_TRACE(fmt::format("{} {}", c.name, dtype_name(dt)));
    Tensor x = randn(c.shape, dtype(dt)).requires_grad_();
    Tensor xg = x.detach().to(kGpu).requires_grad_();
    Tensor y = c.f(x), yg = c.f(xg);
    ASSERT_EQ(yg.device(), kGpu);
    EXPECT_TENSOR_CLOSE(yg.to(kCPU), y, rtol, atol);
    Tensor g = randn(y.sizes().vec(), dtype(dt));
    (y * g).sum().backward();
    (yg * g.to(kGpu)).sum().backward();
    EXPECT_TENSOR_CLOSE(xg.grad().to(kCPU), x.grad(), rtol, atol);
  }
}

TEST_P(CudaPoolNorm, MaxPoolIndicesMatchTheCpu) {
  const ScalarType dt = GetParam();
  manual_seed(12);
  Tensor x = randn({2, 3, 8, 7}, dtype(dt));
  auto opts = F::MaxPool2dFuncOptions({3, 2}).stride(2).padding(1).ceil_mode(true);
  auto [v, i] = F::max_pool2d_with_indices(x, opts);
  auto [vg, ig] = F::max_pool2d_with_indices(x.to(kGpu), opts);
  EXPECT_TRUE(ig.to(kCPU).equal(i));
  EXPECT_TENSOR_CLOSE(vg.to(kCPU), v, 0, 0);
  auto [av, ai] = F::adaptive_max_pool2d_with_indices(x, F::AdaptiveMaxPool2dFuncOptions({3, 5}));
  auto [avg, aig] = F::adaptive_max_pool2d_with_indices(x.to(kGpu), F::AdaptiveMaxPool2dFuncOptions({3, 5}));
  EXPECT_TRUE(aig.to(kCPU).equal(ai));
}

TEST_P(CudaPoolNorm, BatchNormRunningStatisticsOnTheDevice) {
  const ScalarType dt = GetParam();
  manual_seed(13);
  nn::BatchNorm2d cpu_bn(3), gpu_bn(3);
  cpu_bn->to(dt);
  gpu_bn->to(kGpu, dt);
  for (int step = 0; step < 2; ++step) {
    Tensor x = randn({2, 3, 2, 3}, dtype(dt));
    cpu_bn(x);
    gpu_bn(x.to(kGpu));
  }
  EXPECT_EQ(gpu_bn->running_mean.device(), kGpu);
  EXPECT_TENSOR_CLOSE(gpu_bn->running_mean.to(kCPU), cpu_bn->running_mean, 1e-5, 1e-6);
  EXPECT_TENSOR_CLOSE(gpu_bn->running_var.to(kCPU), cpu_bn->running_var, 1e-5, 1e-6);
  EXPECT_EQ(gpu_bn->num_batches_tracked.to(kCPU).item<int64_t>(), 2);
  cpu_bn->eval();
  gpu_bn->eval();
  Tensor x = randn({2, 3, 2, 3}, dtype(dt));
  EXPECT_TENSOR_CLOSE(gpu_bn(x.to(kGpu)).to(kCPU), cpu_bn(x), 1e-5, 1e-6);
}

INSTANTIATE_TEST_SUITE_P(Dtypes, CudaPoolNorm, ::testing::Values(kFloat32, kFloat64),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

}  // namespace
