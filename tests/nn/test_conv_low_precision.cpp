// Convolution in bfloat16 and float16 (autograd/conv.cpp over core/cpu/conv.cpp and cuda/conv.cu)
// against the float32 convolution of the same rounded inputs: forward and every gradient, 1-d, 2-d,
// 3-d and transposed, with stride, padding, dilation and groups, on the CPU and on CUDA (the
// emulator where there is no GPU). The reduced-float result is rounded a few times on its way (the
// products, col2im's sums, the bias), so the tolerance is a few units in the last place of the
// largest value. im2col and col2im themselves are exact: a copy, and a float32 sum rounded once.
#include "test_util.h"

using namespace ember;

namespace {

using In = const tensor_list&;

struct ConvCase {
  const char* name;
  std::vector<std::vector<int64_t>> shapes;  // input, weight[, bias]: random normal, rounded to the dtype
  std::function<Tensor(In)> fn;
};

// clang-format off
const std::vector<ConvCase> kCases = {
  {"conv1d_stride2_padding", {{2, 3, 9}, {4, 3, 3}, {4}},
   [](In x) { return conv1d(x[0], x[1], x[2], 2, 1); }},
  {"conv1d_dilation2_groups3", {{1, 6, 10}, {3, 2, 3}, {3}},
   [](In x) { return conv1d(x[0], x[1], x[2], 1, 2, 2, 3); }},
  {"conv2d_padding", {{2, 3, 5, 4}, {4, 3, 3, 2}, {4}},
   [](In x) { return conv2d(x[0], x[1], x[2], 1, {1, 2}); }},
  {"conv2d_stride2_dilation2_groups2", {{1, 4, 7, 6}, {4, 2, 2, 3}, {4}},
   [](In x) { return conv2d(x[0], x[1], x[2], 2, 0, 2, 2); }},
  {"conv2d_same_even_kernel", {{1, 2, 4, 5}, {3, 2, 2, 4}},
   [](In x) { return detail::conv_same("conv2d", 2, x[0], x[1], {}, {1}, 1); }},
  {"conv3d_stride_padding_groups2", {{1, 4, 4, 5, 3}, {2, 2, 2, 3, 2}, {2}},
   [](In x) { return conv3d(x[0], x[1], x[2], {2, 1, 1}, {1, 1, 0}, 1, 2); }},
  {"conv_transpose1d_stride2_output_padding", {{2, 4, 5}, {4, 3, 3}, {3}},
   [](In x) { return conv_transpose1d(x[0], x[1], x[2], 2, 1, 1); }},
  {"conv_transpose2d_overlapping_groups2", {{2, 4, 3, 3}, {4, 3, 3, 3}, {6}},
   [](In x) { return conv_transpose2d(x[0], x[1], x[2], 2, 1, 1, 2); }},
  {"conv_transpose2d_dilation2", {{1, 2, 3, 4}, {2, 2, 2, 3}},
   [](In x) { return conv_transpose2d(x[0], x[1], {}, 1, 0, 0, 1, 2); }},
  {"conv_transpose3d_stride2_padding", {{1, 2, 3, 3, 2}, {2, 3, 3, 2, 2}, {3}},
   [](In x) { return conv_transpose3d(x[0], x[1], x[2], {2, 1, 2}, {1, 0, 1}, {1, 0, 0}); }},
};
// clang-format on

// |actual - expected| <= tol * |expected| + tol * max |expected|, with tol a few units in the last
// place of the dtype (8 bits of bfloat16, 11 of float16).
void expect_close_to_float32(const Tensor& actual, const Tensor& expected, ScalarType dt, const std::string& what) {
  const double tol = dt == kBFloat16 ? 2e-2 : 3e-3;
  const Tensor e = expected.detach();
  const double scale = e.abs().max().item<double>();
  EXPECT_TENSOR_CLOSE(actual.detach().to(kFloat32).cpu(), e, tol, tol * scale) << what;
}

using Param = std::tuple<size_t, ScalarType, DeviceType>;

class ConvLowPrecision : public ::testing::TestWithParam<Param> {
 protected:
  void SetUp() override {
    if (std::get<2>(GetParam()) == kCUDA && !cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  }
};

TEST_P(ConvLowPrecision, MatchesFloat32OfTheRoundedInputs) {
  const size_t index = std::get<0>(GetParam());
  const ScalarType dt = std::get<1>(GetParam());
  const Device device(std::get<2>(GetParam()));
  const ConvCase& c = kCases[index];
  manual_seed(2024 + index);
  tensor_list ref_in, in;  // float32 on the CPU; dt on the device
  for (const auto& shape : c.shapes) {
    const Tensor rounded = randn(shape).to(dt);
    ref_in.push_back(rounded.to(kFloat32).requires_grad_());
    in.push_back(rounded.to(device).detach().requires_grad_());
  }
  const Tensor ref = c.fn(ref_in);
  const Tensor out = c.fn(in);
  ASSERT_EQ(out.dtype(), dt) << c.name;
  ASSERT_EQ(out.device().type, device.type) << c.name;
  expect_close_to_float32(out, ref, dt, std::string(c.name) + " forward");
  const Tensor g = randn(ref.sizes()).to(dt);
  (ref * g.to(kFloat32)).sum().backward();
  (out * g.to(device)).sum().backward();
  for (size_t i = 0; i < in.size(); ++i) {
    ASSERT_TRUE(in[i].grad().defined()) << c.name << " input " << i;
    EXPECT_EQ(in[i].grad().dtype(), dt) << c.name << " input " << i;
    expect_close_to_float32(in[i].grad(), ref_in[i].grad(), dt,
                            std::string(c.name) + " grad of input " + std::to_string(i));
  }
}

// "_Cuda": the CUDA cases match '*Cuda*', the filter of the emulator's thread orders and the GPU bundle.
std::string case_name(const ::testing::TestParamInfo<Param>& info) {
  return std::string(kCases[std::get<0>(info.param)].name) + "_" + std::string(dtype_name(std::get<1>(info.param))) +
         (std::get<2>(info.param) == kCUDA ? "_Cuda" : "_Cpu");
}

INSTANTIATE_TEST_SUITE_P(AllConvOps, ConvLowPrecision,
                         ::testing::Combine(::testing::Range<size_t>(0, kCases.size()),
                                            ::testing::Values(kBFloat16, kFloat16), ::testing::Values(kCPU, kCUDA)),
                         case_name);

using KernelParam = std::tuple<ScalarType, DeviceType>;

class Im2colLowPrecision : public ::testing::TestWithParam<KernelParam> {
 protected:
  void SetUp() override {
    if (std::get<1>(GetParam()) == kCUDA && !cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  }
};

// im2col copies; col2im sums in float32 and rounds once, so it equals the float32 col2im of the same
// values rounded, bit for bit (a sum rounded after each add would not: 9 taps overlap here).
TEST_P(Im2colLowPrecision, Im2colCopiesAndCol2imRoundsOnce) {
  const ScalarType dt = std::get<0>(GetParam());
  const Device device(std::get<1>(GetParam()));
  manual_seed(11);
  const Tensor x = randn({2, 3, 6, 5}).to(dt).to(device);
  const Tensor cols = im2col(x, {3, 3}, {1, 1}, {1, 1}, {1, 1});
  ASSERT_EQ(cols.dtype(), dt);
  EXPECT_TENSOR_CLOSE(cols.to(kFloat32).cpu(), im2col(x.to(kFloat32), {3, 3}, {1, 1}, {1, 1}, {1, 1}).cpu(), 0, 0);
  const Tensor c = (randn(cols.sizes()) * 100).to(dt).to(device);
  const Tensor img = col2im(c, {6, 5}, {3, 3}, {1, 1}, {1, 1}, {1, 1});
  ASSERT_EQ(img.dtype(), dt);
  const Tensor once = col2im(c.to(kFloat32), {6, 5}, {3, 3}, {1, 1}, {1, 1}, {1, 1}).to(dt);
  EXPECT_TENSOR_CLOSE(img.to(kFloat32).cpu(), once.to(kFloat32).cpu(), 0, 0);
}

INSTANTIATE_TEST_SUITE_P(Dtypes, Im2colLowPrecision,
                         ::testing::Combine(::testing::Values(kBFloat16, kFloat16), ::testing::Values(kCPU, kCUDA)),
                         [](const ::testing::TestParamInfo<KernelParam>& info) {
                           return std::string(dtype_name(std::get<0>(info.param))) +
                                  (std::get<1>(info.param) == kCUDA ? "_Cuda" : "_Cpu");
                         });

}  // namespace
