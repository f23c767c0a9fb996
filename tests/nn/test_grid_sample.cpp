// Sampling grids (nn/grid_sample.h) and pdist (nn/distance.h) against PyTorch 1.13: forward values and
// the gradients of the input, the grid and theta for F::grid_sample in every mode x padding mode x
// align_corners on 4-d inputs (float32 and float64), bilinear and nearest on 5-d inputs, grids far
// outside [-1, 1]; F::affine_grid in 2-d and 3-d and chained into grid_sample; F::pdist for p = 0,
// 0.5, 1, 1.5, 2, 3 and inf. Then gradcheck in float64, the align_corners warning, one case on the
// emulated CUDA device, and bad input.
//
// Fixtures come from scripts/gen_grid_sample_fixtures.py (tests/fixtures/nn/grid_sample.json); each
// table line (or loop) is the C++ twin of one `case(...)` (or loop) there.
#include <cmath>
#include <functional>
#include <limits>
#include <map>

#include "cuda_test_util.h"
#include "fixture_cases.h"
#include "test_util.h"

using namespace ember;
namespace F = ember::nn::functional;
using namespace ember::test;

namespace {

using Case = std::function<Tensor(const NamedInputs&)>;

Case sample(F::GridSampleFuncOptions::mode_t mode, F::GridSampleFuncOptions::padding_mode_t padding, bool align) {
  return [=](const NamedInputs& in) {
    return F::grid_sample(in.at("x"), in.at("grid"),
                          F::GridSampleFuncOptions().mode(mode).padding_mode(padding).align_corners(align));
  };
}

Case affine(std::vector<int64_t> size, bool align) {
  return [=](const NamedInputs& in) { return F::affine_grid(in.at("theta"), size, align); };
}

Case pdist(double p) {
  return [=](const NamedInputs& in) { return F::pdist(in.at("x"), p); };
}

// Each line or loop mirrors the cases of the same names in gen_grid_sample_fixtures.py.
const std::map<std::string, Case>& cases() {
  static const std::map<std::string, Case> table = [] {
    std::map<std::string, Case> t;
    const std::pair<const char*, F::GridSampleFuncOptions::mode_t> modes[] = {
        {"bilinear", kBilinear}, {"nearest", kNearest}, {"bicubic", kBicubic}};
    const std::pair<const char*, F::GridSampleFuncOptions::padding_mode_t> paddings[] = {
        {"zeros", kZeros}, {"border", kBorder}, {"reflection", kReflection}};
    // ---- F::grid_sample, 4-d ----
    for (const char* suffix : {"", "_f64"}) {
      for (const auto& [mode_name, mode] : modes) {
        for (const auto& [padding_name, padding] : paddings) {
          for (bool align : {false, true}) {
            const std::string name = std::string(mode_name) + "_" + padding_name + (align ? "_align" : "_noalign");
            t[name + suffix] = sample(mode, padding, align);
          }
        }
      }
    }
    for (const auto& [mode_name, mode] : modes)
      for (const auto& [padding_name, padding] : paddings)
        t[std::string(mode_name) + "_" + padding_name + "_far"] = sample(mode, padding, false);
    t["bilinear_reflection_far_align_f64"] = sample(kBilinear, kReflection, true);
    t["bilinear_reflection_single_pixel_align"] = sample(kBilinear, kReflection, true);
    t["bicubic_border_single_row"] = sample(kBicubic, kBorder, false);
    // ---- F::grid_sample, 5-d ----
    for (int m = 0; m < 2; ++m) {
      for (const auto& [padding_name, padding] : paddings) {
        for (bool align : {false, true}) {
          const std::string name =
              std::string(modes[m].first) + "_" + padding_name + (align ? "_align" : "_noalign") + "_3d";
          t[name] = sample(modes[m].second, padding, align);
        }
      }
    }
    t["bilinear_zeros_noalign_3d_f64"] = sample(kBilinear, kZeros, false);
    t["bilinear_reflection_align_3d_f64"] = sample(kBilinear, kReflection, true);
    t["nearest_border_noalign_3d_f64"] = sample(kNearest, kBorder, false);
    t["bilinear_border_align_3d_f64"] = sample(kBilinear, kBorder, true);
    // ---- F::affine_grid, and a spatial transformer ----
    for (bool align : {false, true}) {
      const std::string tag = align ? "align" : "noalign";
      t["affine_grid_2d_" + tag] = affine({2, 3, 4, 5}, align);
      t["affine_grid_3d_" + tag] = affine({1, 2, 2, 3, 4}, align);
      t["affine_grid_2d_" + tag + "_f64"] = affine({2, 1, 3, 1}, align);
    }
    t["affine_grid_3d_align_f64"] = affine({1, 1, 1, 2, 3}, true);
    t["spatial_transformer"] = [](const NamedInputs& in) {
      return F::grid_sample(in.at("x"), F::affine_grid(in.at("theta"), {2, 3, 3, 6}, false),
                            F::GridSampleFuncOptions().mode(kBilinear).padding_mode(kBorder).align_corners(false));
    };
    // ---- F::pdist ----
    const double inf = std::numeric_limits<double>::infinity();
    const std::pair<const char*, double> ps[] = {{"0", 0.0}, {"0_5", 0.5}, {"1", 1.0},  {"1_5", 1.5},
                                                 {"2", 2.0}, {"3", 3.0},   {"inf", inf}};
    for (const auto& [tag, p] : ps) {
      t[std::string("pdist_p") + tag] = pdist(p);
      t[std::string("pdist_p") + tag + "_f64"] = pdist(p);
      if (p != 0 && p != 1) t[std::string("pdist_p") + tag + "_repeated_rows"] = pdist(p);
    }
    t["pdist_one_row"] = pdist(2);
    return t;
  }();
  return table;
}

const nlohmann::json& fixture() { return cached_fixture("nn/grid_sample.json"); }

class GridSampleReference : public ::testing::TestWithParam<std::string> {};

TEST_P(GridSampleReference, ForwardAndGradientsMatchPyTorch) {
  ASSERT_TRUE(cases().count(GetParam())) << "no C++ case for " << GetParam();
  check_fixture_case(fixture().at(GetParam()), RequireGrad::kFloatingWithStoredGrad,
                     [&](const NamedInputs& in) { return cases().at(GetParam())(in); });
}

INSTANTIATE_TEST_SUITE_P(Fixture, GridSampleReference, ::testing::ValuesIn(case_names(fixture())),
                         [](const auto& info) { return info.param; });

TEST(GridSample, EveryTableCaseHasAFixture) {
  for (const auto& [name, fn] : cases()) EXPECT_TRUE(fixture().contains(name)) << name;
}

TEST(GridSample, GradcheckFloat64) {
  auto sampled = [](F::GridSampleFuncOptions::mode_t mode, F::GridSampleFuncOptions::padding_mode_t padding,
                    bool align) {
    return [=](const tensor_list& in) {
      return F::grid_sample(in[0], in[1],
                            F::GridSampleFuncOptions().mode(mode).padding_mode(padding).align_corners(align));
    };
  };
  auto distances = [](double p) { return [=](const tensor_list& in) { return F::pdist(in[0], p); }; };
  // A non-contiguous input (the transpose of a (1, 2, 4, 3)) and grid (the transpose of a (1, 2, 3, 2)).
  const Tensor strided = wave64({1, 2, 4, 3}).transpose(2, 3);
  const Tensor strided_grid = wave64({1, 2, 3, 2}, 0.2, 1.3).transpose(1, 2);
  const Tensor grid = wave64({1, 2, 3, 2}, 0.2, 1.3);
  const Tensor far = wave64({1, 3, 2, 2}, 1.1, 3.7);
  check_grad_cases({
      {"bilinear zeros", sampled(kBilinear, kZeros, false), {strided, strided_grid}},
      {"bilinear border align", sampled(kBilinear, kBorder, true), {wave64({2, 1, 3, 4}), wave64({2, 2, 2, 2}, 0.2)}},
      {"bilinear reflection far", sampled(kBilinear, kReflection, false), {wave64({1, 2, 3, 4}), far}},
      {"bicubic zeros", sampled(kBicubic, kZeros, false), {wave64({1, 2, 3, 4}), grid}},
      {"bicubic reflection align far", sampled(kBicubic, kReflection, true), {wave64({1, 2, 3, 4}), far}},
      {"nearest border", sampled(kNearest, kBorder, false), {wave64({1, 2, 3, 4}), grid}},
      {"trilinear reflection",
       sampled(kBilinear, kReflection, false),
       {wave64({1, 2, 2, 3, 2}), wave64({1, 2, 1, 2, 3}, 0.7, 1.4)}},
      {"affine_grid 2d",
       [](const tensor_list& in) {
         return F::affine_grid(in[0], {2, 1, 3, 4}, false);
       },
       {wave64({2, 2, 3})}},
      {"affine_grid 3d align",
       [](const tensor_list& in) {
         return F::affine_grid(in[0], {1, 1, 2, 3, 2}, true);
       },
       {wave64({1, 3, 4})}},
      {"pdist p=2", distances(2), {wave64({4, 3})}, false},
      {"pdist p=1", distances(1), {wave64({4, 3})}, false},
      {"pdist p=0.5", distances(0.5), {wave64({4, 3})}, false},
      {"pdist p=1.5", distances(1.5), {wave64({4, 3})}, false},
      {"pdist p=3", distances(3), {wave64({4, 3})}, false},
      {"pdist p=inf", distances(std::numeric_limits<double>::infinity()), {wave64({4, 3})}, false},
  });
}

// grid sample's padding keeps gradients of the grid where PyTorch keeps them: 0 where a border holds
// the position (also exactly at the border), the sign flipped by a reflection.
TEST(GridSample, GridGradientAtBordersAndReflections) {
  Tensor x = arange(4, dtype(kFloat64)).reshape({1, 1, 1, 4});  // value = x position
  // y fixed at 0; x at the left border exactly (-1 with align_corners), inside, and reflected once.
  Tensor grid = tensor({-1.0, 0.0, 0.2, 0.0, 1.5, 0.0}, dtype(kFloat64)).reshape({1, 1, 3, 2}).requires_grad_();
  auto run = [&](F::GridSampleFuncOptions::padding_mode_t padding) {
    grid.mutable_grad() = Tensor();
    Tensor y = F::grid_sample(x, grid, F::GridSampleFuncOptions().padding_mode(padding).align_corners(true));
    y.sum().backward();
    return std::pair{y.reshape({3}), grid.grad().select(-1, 0).reshape({3})};
  };
  auto [border, dborder] = run(kBorder);
  EXPECT_TENSOR_CLOSE(border, tensor({0.0, 1.8, 3.0}, dtype(kFloat64)));
  EXPECT_TENSOR_CLOSE(dborder, tensor({0.0, 1.5, 0.0}, dtype(kFloat64)));
  auto [reflected, dreflected] = run(kReflection);
  EXPECT_TENSOR_CLOSE(reflected, tensor({0.0, 1.8, 2.25}, dtype(kFloat64)));
  EXPECT_TENSOR_CLOSE(dreflected, tensor({0.0, 1.5, -1.5}, dtype(kFloat64)));
}

TEST(GridSample, WarnsWhenAlignCornersIsUnset) {
  struct Capture : WarningHandler {
    std::vector<std::string> messages;
    void process(const Warning& w) override { messages.push_back(w.msg()); }
  } capture;
  {
    WarningHandlerGuard guard(&capture);
    F::grid_sample(ones({1, 1, 2, 2}), zeros({1, 1, 1, 2}));
    F::grid_sample(ones({1, 1, 2, 2}), zeros({1, 1, 1, 2}), F::GridSampleFuncOptions().align_corners(false));
  }
  ASSERT_EQ(capture.messages.size(), 1u);
  EXPECT_NE(capture.messages[0].find("Default grid_sample and affine_grid behavior has changed"), std::string::npos);
}

// A NaN position samples NaN (as PyTorch 1.13's bilinear mode); an infinite one too, unless a border
// clips it; a finite one far outside samples 0.
TEST(GridSample, NonFiniteGridPointsSampleNaNUnlessClipped) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  Tensor x = arange(4, dtype(kFloat64)).reshape({1, 1, 2, 2});
  Tensor grid = tensor({nan, 0.0, inf, 0.0, -inf, 0.5, 1e12, 0.0, 0.0, 0.0}, dtype(kFloat64)).reshape({1, 1, 5, 2});
  auto sampled = [&](F::GridSampleFuncOptions::padding_mode_t padding) {
    return F::grid_sample(x, grid, F::GridSampleFuncOptions().padding_mode(padding).align_corners(false)).reshape({5});
  };
  const Tensor zeros_mode = sampled(kZeros), border = sampled(kBorder);
  EXPECT_EQ(zeros_mode.isnan().to_vector<bool>(), (std::vector<bool>{true, true, true, false, false}));
  EXPECT_TENSOR_CLOSE(zeros_mode.slice(0, 3), tensor({0.0, 1.5}, dtype(kFloat64)));
  EXPECT_TRUE(std::isnan(border[0].item<double>()));
  EXPECT_TENSOR_CLOSE(border.slice(0, 1), tensor({2.0, 2.0, 2.0, 1.5}, dtype(kFloat64)));
}

TEST(GridSample, CudaMatchesCpu) {
  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  Tensor x = wave64({2, 2, 3, 4}).to(kFloat32);
  Tensor theta = tensor({0.9, -0.3, 0.1, 0.25, 1.1, -0.2, 1.2, 0.4, 0.3, -0.5, 0.8, 0.05}).reshape({2, 2, 3});
  Tensor rows = wave64({4, 3}).to(kFloat32);
  auto run = [&](const Device& device) {
    Tensor input = x.to(device).detach().requires_grad_();
    Tensor t = theta.to(device).detach().requires_grad_();
    Tensor r = rows.to(device).detach().requires_grad_();
    Tensor grid = F::affine_grid(t, {2, 2, 5, 3}, false) * 1.4;
    Tensor y = F::grid_sample(input, grid,
                              F::GridSampleFuncOptions().mode(kBicubic).padding_mode(kReflection).align_corners(false));
    Tensor d = F::pdist(r, 3);
    ((y * y).sum() + d.sum()).backward();
    return std::vector<Tensor>{y.cpu(), d.cpu(), input.grad().cpu(), t.grad().cpu(), r.grad().cpu()};
  };
  std::vector<Tensor> cpu = run(Device(kCPU));
  std::vector<Tensor> gpu = run(cuda_test::kGpu);
  for (size_t i = 0; i < cpu.size(); ++i) EXPECT_TENSOR_CLOSE(gpu[i], cpu[i], 1e-4, 1e-5) << "result " << i;
}

TEST(GridSample, BadInputNamesTheOpAndShapes) {
  auto options = F::GridSampleFuncOptions().align_corners(false);
  EXPECT_THROWS_WITH(F::grid_sample(ones({1, 2, 3, 4}), zeros({1, 2, 2, 3}), options),
                     "grid_sampler(): expected grid to have size 2 in last dimension, but got grid with sizes "
                     "[1, 2, 2, 3]");
  EXPECT_THROWS_WITH(F::grid_sample(ones({2, 2, 3, 4}), zeros({3, 2, 2, 2}), options),
                     "grid_sampler(): expected grid and input to have same batch size, but got input with sizes "
                     "[2, 2, 3, 4] and grid with sizes [3, 2, 2, 2]");
  EXPECT_THROWS_WITH(F::grid_sample(ones({1, 2, 3, 4}), zeros({1, 2, 2, 2, 2}), options),
                     "grid_sampler(): expected 4D input and grid with same number of dimensions, but got input with "
                     "sizes [1, 2, 3, 4] and grid with sizes [1, 2, 2, 2, 2]");
  EXPECT_THROWS_WITH(F::grid_sample(ones({2, 3}), zeros({2, 3}), options),
                     "grid_sampler(): expected 4D or 5D input, but got input with sizes [2, 3]");
  EXPECT_THROWS_WITH(F::grid_sample(ones({1, 1, 2, 2, 2}), zeros({1, 1, 1, 1, 3}), options.mode(kBicubic)),
                     "grid_sampler(): bicubic interpolation only supports 4D input (got input with sizes "
                     "[1, 1, 2, 2, 2])");
  EXPECT_THROWS_WITH(F::grid_sample(ones({1, 1, 0, 2}), zeros({1, 1, 1, 2}), options),
                     "grid_sampler(): expected input to have non-empty spatial dimensions, but input has sizes "
                     "[1, 1, 0, 2] with dimension 2 being empty");
  EXPECT_THROWS_WITH(F::grid_sample(ones({1, 1, 2, 2}), zeros({1, 1, 1, 2}, dtype(kFloat64)), options),
                     "grid_sampler(): expected input and grid of the same floating-point dtype, but got input "
                     "float32 and grid float64");

  EXPECT_THROWS_WITH(F::affine_grid(zeros({2, 3, 3}), {2, 1, 4, 4}),
                     "affine_grid: Expected a batch of 2D affine matrices of shape Nx2x3 for size [2, 1, 4, 4]. Got "
                     "[2, 3, 3].");
  EXPECT_THROWS_WITH(F::affine_grid(zeros({1, 2, 3}), {1, 1, 2, 4, 4}),
                     "affine_grid: Expected a batch of 3D affine matrices of shape Nx3x4 for size [1, 1, 2, 4, 4]. "
                     "Got [1, 2, 3].");
  EXPECT_THROWS_WITH(F::affine_grid(zeros({1, 2, 3}), {1, 4, 4}),
                     "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, respectively. Got "
                     "size [1, 4, 4]");
  EXPECT_THROWS_WITH(F::affine_grid(zeros({1, 2, 3}), {1, 1, 0, 4}),
                     "affine_grid: Expected non-zero, positive output size. Got [1, 1, 0, 4]");
  EXPECT_THROWS_WITH(F::affine_grid(zeros({1, 2, 3}, dtype(kInt64)), {1, 1, 2, 2}),
                     "affine_grid: Expected theta to have floating point type, but got int64");
  EXPECT_THROWS_WITH(F::affine_grid(zeros({2, 2, 3}), {3, 1, 2, 2}),
                     "affine_grid: theta's batch of 2 does not match size [3, 1, 2, 2]");

  EXPECT_THROWS_WITH(F::pdist(ones({2, 3, 4})), "pdist only supports 2D tensors, got: 3D (input of shape [2, 3, 4])");
  EXPECT_THROWS_WITH(F::pdist(ones({3, 4}), -1), "pdist only supports non-negative p values, got p = -1");
  EXPECT_THROWS_WITH(F::pdist(ones({3, 4}, dtype(kInt64))), "pdist only supports floating-point dtypes, got int64");
}

}  // namespace
