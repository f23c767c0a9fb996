// Padding (nn/padding.h), interpolation (nn/upsampling.h), pixel shuffling (nn/pixelshuffle.h) and the
// Fold / Unfold modules (nn/fold.h) against PyTorch 1.13: forward values and input gradients of F::pad
// in every mode, of the padding modules, of F::interpolate in every mode with and without
// align_corners, of Upsample, PixelShuffle / PixelUnshuffle and Fold / Unfold, in float32 and float64;
// gradcheck in float64; printouts; one case on the emulated CUDA device; bad input.
//
// Fixtures come from scripts/gen_resample_fixtures.py (tests/fixtures/nn/resample.json); each table
// line is the C++ twin of one `case(...)` there.
#include <functional>
#include <map>
#include <sstream>

#include "cuda_test_util.h"
#include "fixture_cases.h"
#include "test_util.h"

using namespace ember;
namespace F = ember::nn::functional;
using namespace ember::test;

namespace {

using Case = std::function<Tensor(const Tensor&)>;

F::InterpolateFuncOptions by_size(std::vector<int64_t> size, F::InterpolateFuncOptions::mode_t mode) {
  return F::InterpolateFuncOptions().size(size).mode(mode);
}
// recompute_scale_factor(false) is the default behaviour, stated so that fractional scales do not warn.
F::InterpolateFuncOptions by_scale(std::vector<double> scale, F::InterpolateFuncOptions::mode_t mode) {
  return F::InterpolateFuncOptions().scale_factor(scale).mode(mode).recompute_scale_factor(false);
}

// Each line mirrors the case of the same name in gen_resample_fixtures.py.
const std::map<std::string, Case>& cases() {
  static const std::map<std::string, Case> table = [] {
    std::map<std::string, Case> t;
    auto pad = [](std::vector<int64_t> amounts, F::PadFuncOptions::mode_t mode = kConstant, double value = 0) {
      return [=](const Tensor& x) { return F::pad(x, F::PadFuncOptions(amounts).mode(mode).value(value)); };
    };
    // ---- F::pad ----
    t["pad_constant_1d"] = pad({1, 2}, kConstant, 0.5);
    t["pad_constant_negative"] = pad({-1, 2, 1, -1});
    t["pad_constant_every_dim"] = pad({1, 1, 2, 0}, kConstant, -2.0);
    t["pad_constant_3d_f64"] = pad({1, 0, 0, 2, 1, 1});
    t["pad_reflect_1d"] = pad({2, 3}, kReflect);
    t["pad_reflect_1d_unbatched_negative"] = pad({-1, 3}, kReflect);
    t["pad_reflect_2d"] = pad({1, 2, 3, 0}, kReflect);
    t["pad_reflect_3d_f64"] = pad({1, 2, 2, 1, 1, 1}, kReflect);
    t["pad_replicate_1d"] = pad({3, 1}, kReplicate);
    t["pad_replicate_2d_negative"] = pad({-1, 2, 2, -2}, kReplicate);
    t["pad_replicate_3d"] = pad({1, 1, 1, 0, 0, 2}, kReplicate);
    t["pad_replicate_2d_f64"] = pad({2, 2, 1, 3}, kReplicate);
    t["pad_circular_1d"] = pad({2, 3}, kCircular);
    t["pad_circular_2d_negative"] = pad({-1, 2, 2, -1}, kCircular);
    t["pad_circular_3d_f64"] = pad({1, 1, 2, 2, 0, 2}, kCircular);
    // ---- padding modules ----
    t["module_reflection_pad1d"] = [](const Tensor& x) {
      return nn::ReflectionPad1d(nn::ReflectionPad1dOptions({3, 1}))(x);
    };
    t["module_reflection_pad2d"] = [](const Tensor& x) { return nn::ReflectionPad2d(2)(x); };
    t["module_reflection_pad3d"] = [](const Tensor& x) {
      return nn::ReflectionPad3d(nn::ReflectionPad3dOptions({1, 0, 2, 1, 0, 2}))(x);
    };
    t["module_replication_pad1d"] = [](const Tensor& x) { return nn::ReplicationPad1d(2)(x); };
    t["module_replication_pad2d"] = [](const Tensor& x) {
      return nn::ReplicationPad2d(nn::ReplicationPad2dOptions({1, 2, 0, 3}))(x);
    };
    t["module_replication_pad3d"] = [](const Tensor& x) { return nn::ReplicationPad3d(1)(x); };
    t["module_zero_pad2d"] = [](const Tensor& x) { return nn::ZeroPad2d(nn::ZeroPad2dOptions({1, -1, 2, 0}))(x); };
    t["module_constant_pad1d"] = [](const Tensor& x) {
      return nn::ConstantPad1d(nn::ConstantPad1dOptions({2, 1}, 3.5))(x);
    };
    t["module_constant_pad2d"] = [](const Tensor& x) { return nn::ConstantPad2d(1, -1.0)(x); };
    t["module_constant_pad3d"] = [](const Tensor& x) {
      return nn::ConstantPad3d(nn::ConstantPad3dOptions({0, 1, 1, 0, 2, 1}, 0.25))(x);
    };
    // ---- F::interpolate ----
    auto interp = [](F::InterpolateFuncOptions o) { return [=](const Tensor& x) { return F::interpolate(x, o); }; };
    t["nearest_1d_scale"] = interp(by_scale({1.7}, kNearest));
    t["nearest_2d_size"] = interp(by_size({5, 7}, kNearest));
    t["nearest_2d_double"] = interp(by_scale({2, 2}, kNearest));
    t["nearest_3d_down_f64"] = interp(by_size({3, 5, 2}, kNearest));
    t["nearest_exact_2d"] = interp(by_size({3, 7}, kNearestExact));
    t["nearest_exact_1d_scale_f64"] = interp(by_scale({0.6}, kNearestExact));
    t["linear"] = interp(by_size({8}, kLinear).align_corners(false));
    t["linear_align"] = interp(by_scale({1.5}, kLinear).align_corners(true));
    t["linear_down"] = interp(by_size({4}, kLinear).align_corners(false));
    t["linear_scale_f64"] = interp(by_scale({2.3}, kLinear).align_corners(false));
    t["bilinear"] = interp(by_scale({1.5, 2.0}, kBilinear).align_corners(false));
    t["bilinear_align"] = interp(by_size({7, 3}, kBilinear).align_corners(true));
    t["bilinear_recompute"] = interp(by_scale({1.3, 1.3}, kBilinear).align_corners(false).recompute_scale_factor(true));
    t["bilinear_f64"] = interp(by_size({5, 2}, kBilinear).align_corners(false));
    t["bilinear_align_f64"] = interp(by_scale({2.5, 1.5}, kBilinear).align_corners(true));
    t["bicubic"] = interp(by_size({6, 9}, kBicubic).align_corners(false));
    t["bicubic_align"] = interp(by_size({7, 4}, kBicubic).align_corners(true));
    t["bicubic_down_scale"] = interp(by_scale({0.5, 0.5}, kBicubic).align_corners(false));
    t["bicubic_f64"] = interp(by_scale({2.0, 1.5}, kBicubic).align_corners(false));
    t["bicubic_align_f64"] = interp(by_size({5, 6}, kBicubic).align_corners(true));
    t["bilinear_aa_down"] = interp(by_size({4, 3}, kBilinear).align_corners(false).antialias(true));
    t["bilinear_aa_align_up"] = interp(by_size({6, 3}, kBilinear).align_corners(true).antialias(true));
    t["bicubic_aa_scale"] = interp(by_scale({0.4, 1.6}, kBicubic).align_corners(false).antialias(true));
    t["bicubic_aa_align_f64"] = interp(by_size({3, 1}, kBicubic).align_corners(true).antialias(true));
    t["trilinear"] = interp(by_scale({2, 2, 2}, kTrilinear).align_corners(false));
    t["trilinear_align"] = interp(by_size({4, 5, 3}, kTrilinear).align_corners(true));
    t["trilinear_f64"] = interp(by_size({3, 2, 6}, kTrilinear).align_corners(false));
    t["trilinear_align_f64"] = interp(by_scale({1.5, 2.0, 2.5}, kTrilinear).align_corners(true));
    t["area_1d"] = interp(by_size({3}, kArea));
    t["area_2d"] = interp(by_size({2, 4}, kArea));
    t["area_2d_up_f64"] = interp(by_size({5, 3}, kArea));
    t["area_3d"] = interp(by_scale({0.5, 0.5, 0.5}, kArea));
    // ---- nn::Upsample ----
    t["upsample_nearest"] = [](const Tensor& x) {
      return nn::Upsample(nn::UpsampleOptions().scale_factor(std::vector<double>{3, 3}))(x);
    };
    t["upsample_bilinear_align"] = [](const Tensor& x) {
      return nn::Upsample(nn::UpsampleOptions().size(std::vector<int64_t>{5, 4}).mode(kBilinear).align_corners(true))(
          x);
    };
    t["upsample_linear_f64"] = [](const Tensor& x) {
      return nn::Upsample(
          nn::UpsampleOptions().scale_factor(std::vector<double>{2.5}).mode(kLinear).align_corners(false))(x);
    };
    // ---- pixel shuffle ----
    t["pixel_shuffle"] = [](const Tensor& x) { return F::pixel_shuffle(x, F::PixelShuffleFuncOptions(2)); };
    t["pixel_shuffle_module_unbatched"] = [](const Tensor& x) { return nn::PixelShuffle(3)(x); };
    t["pixel_unshuffle"] = [](const Tensor& x) { return F::pixel_unshuffle(x, F::PixelUnshuffleFuncOptions(2)); };
    t["pixel_unshuffle_module_extra_dims_f64"] = [](const Tensor& x) { return nn::PixelUnshuffle(2)(x); };
    // ---- fold / unfold modules ----
    t["module_unfold"] = [](const Tensor& x) {
      return nn::Unfold(nn::UnfoldOptions({2, 3}).dilation({1, 1}).padding(1).stride({2, 1}))(x);
    };
    t["module_fold"] = [](const Tensor& x) {
      return nn::Fold(nn::FoldOptions({3, 4}, 2).stride(1).padding({0, 1}).dilation({1, 2}))(x);
    };
    return t;
  }();
  return table;
}

const nlohmann::json& fixture() { return cached_fixture("nn/resample.json"); }

class ResampleReference : public ::testing::TestWithParam<std::string> {};

TEST_P(ResampleReference, ForwardAndGradientsMatchPyTorch) {
  ASSERT_TRUE(cases().count(GetParam())) << "no C++ case for " << GetParam();
  check_fixture_case(fixture().at(GetParam()), RequireGrad::kFloatingWithStoredGrad,
                     [&](const NamedInputs& in) { return cases().at(GetParam())(in.at("x")); });
}

INSTANTIATE_TEST_SUITE_P(Fixture, ResampleReference, ::testing::ValuesIn(case_names(fixture())),
                         [](const auto& info) { return info.param; });

TEST(Resample, EveryTableCaseHasAFixture) {
  for (const auto& [name, fn] : cases()) EXPECT_TRUE(fixture().contains(name)) << name;
}

TEST(Resample, GradcheckFloat64) {
  auto pad = [](std::vector<int64_t> amounts, F::PadFuncOptions::mode_t mode) {
    return [=](const tensor_list& in) { return F::pad(in[0], F::PadFuncOptions(amounts).mode(mode)); };
  };
  auto interp = [](F::InterpolateFuncOptions o) {
    return [=](const tensor_list& in) { return F::interpolate(in[0], o); };
  };
  // A non-contiguous input: the transpose of a (1, 2, 4, 3).
  Tensor strided = wave64({1, 2, 4, 3}).transpose(2, 3);
  check_grad_cases({
      {"pad constant negative", pad({2, -1, -1, 1}, kConstant), {wave64({2, 3, 4})}},
      {"pad reflect 2d", pad({1, 2, 2, 1}, kReflect), {strided}},
      {"pad replicate 1d", pad({2, -1}, kReplicate), {wave64({2, 4})}},
      {"pad circular 2d", pad({1, 2, -1, 2}, kCircular), {wave64({1, 1, 3, 4})}},
      {"bilinear", interp(by_scale({1.5, 0.7}, kBilinear).align_corners(false)), {strided}},
      {"bicubic align", interp(by_size({5, 2}, kBicubic).align_corners(true)), {wave64({1, 1, 3, 4})}},
      {"bilinear antialias", interp(by_size({2, 3}, kBilinear).align_corners(false).antialias(true)), {strided}},
      {"trilinear", interp(by_size({3, 2, 3}, kTrilinear).align_corners(false)), {wave64({1, 1, 2, 3, 2})}},
      {"area", interp(by_size({2, 3}, kArea)), {wave64({1, 1, 5, 4})}},
      {"nearest", interp(by_scale({1.7}, kNearest)), {wave64({1, 2, 3})}},
  });
}

TEST(Resample, PrintsAsLibtorch) {
  auto printed = [](const nn::Module& m) {
    std::ostringstream s;
    m.pretty_print(s);
    return s.str();
  };
  EXPECT_EQ(printed(*nn::ReflectionPad2d(nn::ReflectionPad2dOptions({1, 1, 2, 0}))),
            "ReflectionPad2d(padding=[1, 1, 2, 0])");
  EXPECT_EQ(printed(*nn::ReplicationPad1d(2)), "ReplicationPad1d(padding=[2, 2])");
  EXPECT_EQ(printed(*nn::ZeroPad2d(1)), "ZeroPad2d(padding=[1, 1, 1, 1])");
  EXPECT_EQ(printed(*nn::ConstantPad3d(1, 0.5)), "ConstantPad3d(padding=[1, 1, 1, 1, 1, 1], value=0.5)");
  EXPECT_EQ(printed(*nn::Upsample(nn::UpsampleOptions().scale_factor(std::vector<double>{2, 1.5}).mode(kBilinear))),
            "Upsample(scale_factor=[2, 1.5], mode=kBilinear)");
  EXPECT_EQ(printed(*nn::Upsample(nn::UpsampleOptions().size(std::vector<int64_t>{8}))),
            "Upsample(size=[8], mode=kNearest)");
  EXPECT_EQ(printed(*nn::PixelShuffle(3)), "PixelShuffle(upscale_factor=3)");
  EXPECT_EQ(printed(*nn::PixelUnshuffle(2)), "PixelUnshuffle(downscale_factor=2)");
  EXPECT_EQ(printed(*nn::Fold(nn::FoldOptions({3, 4}, 2).padding({0, 1}))),
            "Fold(output_size=[3, 4], kernel_size=[2, 2], dilation=[1, 1], padding=[0, 1], stride=[1, 1])");
  EXPECT_EQ(printed(*nn::Unfold(nn::UnfoldOptions({2, 3}).stride(2))),
            "Unfold(kernel_size=[2, 3], dilation=[1, 1], padding=[0, 0], stride=[2, 2])");
}

TEST(Resample, IntegerInputsPadAndPickNearest) {
  Tensor x = from_vector(std::vector<int64_t>{1, 2, 3}, {1, 1, 3}, dtype(kInt64));
  EXPECT_EQ(F::pad(x, F::PadFuncOptions({1, 1}).value(7)).to_vector<int64_t>(), (std::vector<int64_t>{7, 1, 2, 3, 7}));
  EXPECT_EQ(F::interpolate(x, by_size({6}, kNearest)).to_vector<int64_t>(), (std::vector<int64_t>{1, 1, 2, 2, 3, 3}));
}

TEST(Resample, CudaMatchesCpu) {
  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  Tensor x = wave64({1, 2, 3, 4}).to(kFloat32);
  auto run = [&](const Device& device) {
    Tensor input = x.to(device).detach().requires_grad_();
    Tensor y = F::interpolate(F::pad(input, F::PadFuncOptions({1, 2, 1, 0}).mode(kReflect)),
                              by_size({5, 9}, kBicubic).align_corners(false));
    (y * y).sum().backward();
    return std::pair{y.cpu(), input.grad().cpu()};
  };
  auto [y_cpu, g_cpu] = run(Device(kCPU));
  auto [y_gpu, g_gpu] = run(cuda_test::kGpu);
  EXPECT_TENSOR_CLOSE(y_gpu, y_cpu, 1e-5, 1e-5);
  EXPECT_TENSOR_CLOSE(g_gpu, g_cpu, 1e-5, 1e-5);
}

TEST(Resample, BadInputNamesTheOpAndValues) {
  Tensor x3 = ones({1, 2, 4});
  EXPECT_THROWS_WITH(F::pad(x3, F::PadFuncOptions({1})), "pad: the padding length must be divisible by 2, but got 1");
  EXPECT_THROWS_WITH(F::pad(ones({2, 3}), F::PadFuncOptions({1, 1, 1, 1, 1, 1})),
                     "pad: padding [1, 1, 1, 1, 1, 1] pads 3 dims, but the input has shape [2, 3]");
  EXPECT_THROWS_WITH(F::pad(x3, F::PadFuncOptions({4, 4}).mode(kReflect)),
                     "pad: reflect padding (4, 4) of dim 2 must be less than its size 4 (input shape [1, 2, 4])");
  EXPECT_THROWS_WITH(F::pad(x3, F::PadFuncOptions({5, 0}).mode(kCircular)),
                     "pad: circular padding (5, 0) of dim 2 wraps around more than once");
  EXPECT_THROWS_WITH(F::pad(ones({2, 4}), F::PadFuncOptions({1, 1}).mode(kCircular)),
                     "pad: circular padding pads the last 1, 2 or 3 dims of a (N, C, ...) input, but got padding "
                     "[1, 1] (1 dims) and input shape [2, 4]");
  EXPECT_THROWS_WITH(F::pad(ones({4}), F::PadFuncOptions({1, 1}).mode(kReplicate)),
                     "pad: replicate padding pads the last 1, 2 or 3 dims of a (C, ...) or (N, C, ...) input");
  EXPECT_THROWS_WITH(F::pad(x3, F::PadFuncOptions({-2, -2}).mode(kReplicate)),
                     "pad: replicate padding (-2, -2) of dim 2 leaves 0 elements of its 4");
  EXPECT_THROWS_WITH(F::pad(x3, F::PadFuncOptions({1, 1}).mode(kReflect).value(1)),
                     "pad: padding mode \"reflect\" doesn't take a value argument");
  EXPECT_THROWS_WITH(F::pad(x3, F::PadFuncOptions({-5, 1})),
                     "pad: padding (-5, 1) of dim 2 crops more than its 4 elements (input shape [1, 2, 4])");
  EXPECT_THROWS_WITH(nn::ZeroPad2dOptions({1, 2}), "Expected 4 values, but instead got 2");

  EXPECT_THROWS_WITH(F::pixel_shuffle(ones({5, 2, 2}), F::PixelShuffleFuncOptions(2)),
                     "pixel_shuffle: expects its input's 'channel' dimension to be divisible by the square of "
                     "upscale_factor, but input.size(-3)=5 is not divisible by 4 (input shape [5, 2, 2])");
  EXPECT_THROWS_WITH(F::pixel_shuffle(ones({4, 2}), F::PixelShuffleFuncOptions(2)),
                     "pixel_shuffle: expects input to have at least 3 dimensions, but got input with shape [4, 2]");
  EXPECT_THROWS_WITH(F::pixel_shuffle(ones({4, 2, 2}), F::PixelShuffleFuncOptions(0)),
                     "pixel_shuffle: expects a positive upscale_factor, but got 0");
  EXPECT_THROWS_WITH(F::pixel_unshuffle(ones({1, 3, 4}), F::PixelUnshuffleFuncOptions(2)),
                     "pixel_unshuffle: expects height and width to be divisible by downscale_factor 2, but got input "
                     "shape [1, 3, 4]");

  Tensor x4 = ones({1, 1, 2, 2});
  EXPECT_THROWS_WITH(F::interpolate(x4, F::InterpolateFuncOptions()),
                     "interpolate: either size or scale_factor should be defined");
  EXPECT_THROWS_WITH(F::interpolate(x4, by_size({3, 3}, kNearest).scale_factor(std::vector<double>{2, 2})),
                     "interpolate: only one of size or scale_factor should be defined");
  EXPECT_THROWS_WITH(F::interpolate(x4, by_scale({2}, kNearest)),
                     "interpolate: scale_factor shape must match input shape. Input is 2D, scale_factor size is [2]");
  EXPECT_THROWS_WITH(F::interpolate(x4, by_size({3}, kNearest)),
                     "interpolate: size [3] must have one value per spatial dim of the input shape [1, 1, 2, 2]");
  EXPECT_THROWS_WITH(F::interpolate(x4, by_size({3, 3}, kNearest).align_corners(true)),
                     "interpolate: align_corners option can only be set with the interpolating modes");
  EXPECT_THROWS_WITH(F::interpolate(x4, by_size({3}, kLinear).align_corners(false)),
                     "interpolate: got 4D input (shape [1, 1, 2, 2]), but mode kLinear needs 3D input");
  EXPECT_THROWS_WITH(F::interpolate(x3, by_size({3, 3}, kBicubic).align_corners(false)),
                     "interpolate: got 3D input (shape [1, 2, 4]), but mode kBicubic needs 4D input");
  EXPECT_THROWS_WITH(F::interpolate(ones({2, 2}), by_size({3}, kNearest)),
                     "interpolate: only 3D, 4D and 5D (N, C, ...) inputs are supported (got 2D input of shape [2, 2]");
  EXPECT_THROWS_WITH(F::interpolate(x4, by_size({0, 3}, kArea)),
                     "interpolate: input and output sizes should be greater than 0, but got input shape [1, 1, 2, 2] "
                     "and output size [0, 3]");
  EXPECT_THROWS_WITH(
      F::interpolate(x4, by_size({3, 3}, kNearest).antialias(true)),
      "interpolate: anti-alias option is only supported for bilinear and bicubic modes (got mode kNearest)");
  EXPECT_THROWS_WITH(F::interpolate(ones({1, 1, 2}, dtype(kInt64)), by_size({3}, kLinear).align_corners(false)),
                     "interpolate: mode kLinear needs a floating-point input, but got int64");
}

}  // namespace
