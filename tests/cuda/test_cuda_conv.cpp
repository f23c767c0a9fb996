// Device parity of convolution (cuda/conv.cu's im2col / col2im and the cuBLAS products around them)
// against the CPU, forward and every gradient, on fresh random inputs in float32 and float64.
//
// Each case is one line: input shapes and a function of the inputs, run on CPU and CUDA tensors
// holding the same values, as tests/cuda/test_cuda.cpp does. Shapes are tiny (the emulator runs every
// thread on the CPU) but reach each kernel's edges: padding on every side, stride and dilation that
// leave input values unread, groups, a transposed convolution whose blocks overlap. Without a usable
// GPU, or the emulator, every test skips with "no CUDA device".
#include "core/backend.h"
#include "cuda_test_util.h"
#include "test_util.h"

using namespace ember;
using namespace ember::cuda_test;
namespace F = ember::nn::functional;

namespace {

using In = const tensor_list&;

struct ConvCase {
  const char* name;
  std::vector<std::vector<int64_t>> shapes;  // random normal inputs, one per shape
  std::function<Tensor(In)> fn;
};

// clang-format off
const std::vector<ConvCase> kCases = {
  {"conv2d_padding_bias", {{2, 3, 5, 4}, {4, 3, 3, 2}, {4}},
   [](In x) { return F::conv2d(x[0], x[1], F::Conv2dFuncOptions().bias(x[2]).padding({1, 2})); }},
  {"conv2d_stride2_dilation2_groups2", {{1, 4, 7, 6}, {4, 2, 2, 3}, {4}},
   [](In x) { return F::conv2d(x[0], x[1], F::Conv2dFuncOptions().bias(x[2]).stride(2).dilation(2).groups(2)); }},
  {"conv2d_same_even_kernel", {{1, 2, 4, 5}, {3, 2, 2, 4}},
   [](In x) { return F::conv2d(x[0], x[1], F::Conv2dFuncOptions().padding(kSame)); }},
  {"conv1d_stride2", {{2, 3, 9}, {2, 3, 3}, {2}},
   [](In x) { return F::conv1d(x[0], x[1], F::Conv1dFuncOptions().bias(x[2]).stride(2).padding(1)); }},
  {"conv_transpose2d_overlapping", {{2, 4, 3, 3}, {4, 3, 3, 3}, {6}},
   [](In x) {
     return F::conv_transpose2d(x[0], x[1],
                                F::ConvTranspose2dFuncOptions().bias(x[2]).stride(2).padding(1).output_padding(1).groups(2));
   }},
  {"unfold_fold", {{1, 2, 5, 5}},
   [](In x) {
     Tensor cols = F::unfold(x[0], F::UnfoldFuncOptions({2, 3}).padding(1).stride(2).dilation({2, 1}));
     return F::fold(cols.sin(), F::FoldFuncOptions({5, 5}, {2, 3}).padding(1).stride(2).dilation({2, 1}));
   }},
};
// clang-format on

class CudaConvParity : public ::testing::TestWithParam<std::tuple<size_t, ScalarType>> {
 protected:
  void SetUp() override {
    if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  }
};

TEST_P(CudaConvParity, ForwardAndBackwardMatchCpu) {
  const auto [index, dt] = GetParam();
  const ConvCase& c = kCases[index];
  const Tolerance tol = tolerance(dt);
  manual_seed(4321 + index);
  tensor_list cpu_in, gpu_in;
  for (const auto& shape : c.shapes) {
    Tensor x = randn(shape, dtype(dt));
    cpu_in.push_back(x.detach().requires_grad_());
    gpu_in.push_back(x.to(kGpu).requires_grad_());
  }
  Tensor cpu_out = c.fn(cpu_in);
  Tensor gpu_out = c.fn(gpu_in);
  ASSERT_TRUE(gpu_out.is_cuda()) << c.name << " left the GPU";
  EXPECT_TENSOR_CLOSE(gpu_out.cpu(), cpu_out, tol.rtol, tol.atol) << c.name << " forward";
  Tensor w = randn(cpu_out.sizes(), dtype(cpu_out.dtype()));
  (cpu_out * w).sum().backward();
  (gpu_out * w.to(kGpu)).sum().backward();
  for (size_t i = 0; i < cpu_in.size(); ++i) {
    ASSERT_TRUE(gpu_in[i].grad().defined()) << c.name << " input " << i;
    EXPECT_TRUE(gpu_in[i].grad().is_cuda());
    EXPECT_TENSOR_CLOSE(gpu_in[i].grad().cpu(), cpu_in[i].grad(), tol.rtol, tol.atol)
        << c.name << " grad of input " << i;
  }
}

std::string case_name(const ::testing::TestParamInfo<CudaConvParity::ParamType>& info) {
  return std::string(kCases[std::get<0>(info.param)].name) + "_" + std::string(dtype_name(std::get<1>(info.param)));
}

INSTANTIATE_TEST_SUITE_P(AllConvOps, CudaConvParity,
                         ::testing::Combine(::testing::Range<size_t>(0, kCases.size()),
                                            ::testing::Values(kFloat32, kFloat64)),
                         case_name);

// The kernels themselves, called on the backend: col2im is im2col's adjoint, <im2col(x), c> = <x, col2im(c)>.
TEST(CudaConv, Col2imIsTheAdjointOfIm2colOnTheDevice) {
  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const Im2colShape g{.C = 2,
                      .H = 5,
                      .W = 4,
                      .kernel_h = 3,
                      .kernel_w = 2,
                      .pad_h = 1,
                      .pad_w = 0,
                      .stride_h = 2,
                      .stride_w = 1,
                      .dilation_h = 1,
                      .dilation_w = 2,
                      .out_h = 3,
                      .out_w = 2};
  manual_seed(7);
  Tensor x = randn({2, 2, 5, 4}, dtype(kFloat64)).to(kGpu), c = randn({2, 12, 6}, dtype(kFloat64)).to(kGpu);
  Tensor cols = empty({2, 12, 6}, dtype(kFloat64).device(kGpu)),
         img = empty({2, 2, 5, 4}, dtype(kFloat64).device(kGpu));
  backend_for(x).im2col(cols, x, g);
  backend_for(x).col2im(img, c, g);
  EXPECT_NEAR((cols * c).sum().item<double>(), (x * img).sum().item<double>(), 1e-10);
  Tensor cpu_cols = empty({2, 12, 6}, dtype(kFloat64));
  backend_for(Device(kCPU)).im2col(cpu_cols, x.cpu(), g);
  EXPECT_TENSOR_CLOSE(cols.cpu(), cpu_cols, 0, 0);
}

}  // namespace
