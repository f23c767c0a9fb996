// Pooling (nn/pooling.h) and normalisation (nn/batchnorm.h, GroupNorm and RMSNorm in
// nn/normalization.h) against PyTorch 1.13: forward values, max pooling's indices and every
// gradient; BatchNorm / InstanceNorm modules over three training steps and then eval (outputs,
// gradients, running statistics); gradcheck in float64; printouts; save/load of the buffers; bad input.
//
// Fixtures come from scripts/gen_pooling_norm_fixtures.py (tests/fixtures/nn/pooling_norm_*.json); each table
// line is the C++ twin of one `case(...)` there.
#include <functional>
#include <map>
#include <sstream>

#include "fixture_cases.h"
#include "test_util.h"

using namespace ember;
namespace F = ember::nn::functional;
using namespace ember::test;  // fixture_cases.h: the fixture readers and runners

namespace {

using Inputs = NamedInputs;
using Result = std::tuple<Tensor, Tensor>;  // output, and max pooling's indices (else undefined)
using Case = std::function<Result(const Inputs&)>;

template <typename Fn>
Case plain(Fn fn) {
  return [fn](const Inputs& in) { return Result{fn(in), Tensor()}; };
}

// Each line mirrors the case of the same name in gen_pooling_norm_fixtures.py.
const std::map<std::string, Case>& cases() {
  static const std::map<std::string, Case> table = [] {
    std::map<std::string, Case> t;
    // ---- pooling ----
    t["max_pool2d"] = plain([](const Inputs& in) { return F::max_pool2d(in.at("x"), F::MaxPool2dFuncOptions(2)); });
    t["max_pool2d_pad_stride_dilation"] = [](const Inputs& in) {
      return F::max_pool2d_with_indices(in.at("x"), F::MaxPool2dFuncOptions(3).stride(2).padding(1).dilation(2));
    };
    t["max_pool2d_ceil_nonsquare"] = [](const Inputs& in) {
      return F::max_pool2d_with_indices(in.at("x"),
                                        F::MaxPool2dFuncOptions({2, 3}).stride({2, 2}).padding({1, 1}).ceil_mode(true));
    };
    t["max_pool2d_unbatched"] = [](const Inputs& in) {
      return F::max_pool2d_with_indices(in.at("x"), F::MaxPool2dFuncOptions({3, 2}).stride({1, 2}));
    };
    t["max_pool2d_overlap_f64"] = [](const Inputs& in) {
      return F::max_pool2d_with_indices(in.at("x"), F::MaxPool2dFuncOptions(3).stride(1).padding(1));
    };
    t["max_pool1d"] = [](const Inputs& in) {
      return F::max_pool1d_with_indices(in.at("x"), F::MaxPool1dFuncOptions(3).stride(2).padding(1).ceil_mode(true));
    };
    t["max_pool1d_unbatched_dilation"] = [](const Inputs& in) {
      return F::max_pool1d_with_indices(in.at("x"), F::MaxPool1dFuncOptions(2).dilation(3));
    };
    t["avg_pool2d"] = plain([](const Inputs& in) { return F::avg_pool2d(in.at("x"), F::AvgPool2dFuncOptions(2)); });
    t["avg_pool2d_pad_include"] = plain(
        [](const Inputs& in) { return F::avg_pool2d(in.at("x"), F::AvgPool2dFuncOptions(3).stride(2).padding(1)); });
    t["avg_pool2d_pad_exclude"] = plain([](const Inputs& in) {
      return F::avg_pool2d(in.at("x"), F::AvgPool2dFuncOptions(3).stride(2).padding(1).count_include_pad(false));
    });
    t["avg_pool2d_ceil_pad"] = plain([](const Inputs& in) {
      return F::avg_pool2d(in.at("x"), F::AvgPool2dFuncOptions({2, 3}).stride(2).padding(1).ceil_mode(true));
    });
    t["avg_pool2d_ceil_exclude"] = plain([](const Inputs& in) {
      return F::avg_pool2d(
          in.at("x"),
          F::AvgPool2dFuncOptions({2, 3}).stride(2).padding({1, 0}).ceil_mode(true).count_include_pad(false));
    });
    t["avg_pool2d_divisor_override"] = plain([](const Inputs& in) {
      return F::avg_pool2d(in.at("x"), F::AvgPool2dFuncOptions(3).stride(2).padding(1).divisor_override(4));
    });
    t["avg_pool2d_f64"] = plain([](const Inputs& in) {
      return F::avg_pool2d(in.at("x"), F::AvgPool2dFuncOptions({2, 3}).stride({1, 2}));
    });
    t["avg_pool1d"] = plain([](const Inputs& in) {
      return F::avg_pool1d(in.at("x"), F::AvgPool1dFuncOptions(4).stride(3).padding(2).ceil_mode(true));
    });
    t["avg_pool1d_exclude"] = plain([](const Inputs& in) {
      return F::avg_pool1d(in.at("x"), F::AvgPool1dFuncOptions(3).stride(2).padding(1).count_include_pad(false));
    });
    t["adaptive_avg_pool2d"] = plain([](const Inputs& in) {
      return F::adaptive_avg_pool2d(in.at("x"), F::AdaptiveAvgPool2dFuncOptions({3, 2}));
    });
    t["adaptive_avg_pool2d_global"] =
        plain([](const Inputs& in) { return F::adaptive_avg_pool2d(in.at("x"), F::AdaptiveAvgPool2dFuncOptions(1)); });
    t["adaptive_avg_pool2d_upsample"] = plain([](const Inputs& in) {
      return F::adaptive_avg_pool2d(in.at("x"), F::AdaptiveAvgPool2dFuncOptions({4, 7}));
    });
    t["adaptive_max_pool2d"] = [](const Inputs& in) {
      return F::adaptive_max_pool2d_with_indices(in.at("x"), F::AdaptiveMaxPool2dFuncOptions({3, 4}));
    };
    t["adaptive_max_pool2d_unbatched"] =
        plain([](const Inputs& in) { return F::adaptive_max_pool2d(in.at("x"), F::AdaptiveMaxPool2dFuncOptions(4)); });
    // ---- normalisation ----
    t["batch_norm_train"] = plain([](const Inputs& in) {
      return F::batch_norm(in.at("x"), {}, {},
                           F::BatchNormFuncOptions().weight(in.at("w")).bias(in.at("b")).training(true).eps(1e-3));
    });
    t["batch_norm_train_4d_f64"] = plain(
        [](const Inputs& in) { return F::batch_norm(in.at("x"), {}, {}, F::BatchNormFuncOptions().training(true)); });
    t["batch_norm_eval"] = plain([](const Inputs& in) {
      return F::batch_norm(in.at("x"), in.at("rm"), in.at("rv"),
                           F::BatchNormFuncOptions().weight(in.at("w")).bias(in.at("b")));
    });
    t["instance_norm"] = plain([](const Inputs& in) {
      return F::instance_norm(in.at("x"), F::InstanceNormFuncOptions().weight(in.at("w")).bias(in.at("b")));
    });
    t["instance_norm_plain_f64"] = plain([](const Inputs& in) { return F::instance_norm(in.at("x")); });
    t["group_norm"] = plain([](const Inputs& in) {
      return F::group_norm(in.at("x"), F::GroupNormFuncOptions(3).weight(in.at("w")).bias(in.at("b")));
    });
    t["group_norm_3d_plain"] =
        plain([](const Inputs& in) { return F::group_norm(in.at("x"), F::GroupNormFuncOptions(2).eps(1e-2)); });
    t["group_norm_one_group_f64"] =
        plain([](const Inputs& in) { return F::group_norm(in.at("x"), F::GroupNormFuncOptions(1)); });
    t["rms_norm"] =
        plain([](const Inputs& in) { return F::rms_norm(in.at("x"), F::RMSNormFuncOptions({4}).weight(in.at("w"))); });
    t["rms_norm_two_dims_eps"] = plain([](const Inputs& in) {
      return F::rms_norm(in.at("x"), F::RMSNormFuncOptions({3, 4}).weight(in.at("w")).eps(1e-3));
    });
    t["rms_norm_tiny_default_eps_f64"] =
        plain([](const Inputs& in) { return F::rms_norm(in.at("x"), F::RMSNormFuncOptions({5})); });
    return t;
  }();
  return table;
}

const nlohmann::json& functional_fixture() { return ember::test::cached_fixture("nn/pooling_norm_functional.json"); }
const nlohmann::json& module_fixture() { return ember::test::cached_fixture("nn/pooling_norm_modules.json"); }

class PoolNormReference : public ::testing::TestWithParam<std::string> {};

TEST_P(PoolNormReference, ForwardIndicesAndGradientsMatchPyTorch) {
  const nlohmann::json& c = functional_fixture().at(GetParam());
  ASSERT_TRUE(cases().count(GetParam())) << "no C++ case for " << GetParam();
  // The output and gradients as every fixture case; max pooling's indices checked on the way.
  check_fixture_case(c, RequireGrad::kFloatingWithStoredGrad, [&](const Inputs& in) {
    auto [out, indices] = cases().at(GetParam())(in);
    if (c.contains("indices")) {
      EXPECT_TRUE(indices.defined()) << "the fixture has indices; the C++ case returns none";
      if (indices.defined()) EXPECT_TRUE(indices.equal(tensor_from_json(c.at("indices")))) << indices;
    }
    return out;
  });
}

INSTANTIATE_TEST_SUITE_P(Fixture, PoolNormReference, ::testing::ValuesIn(case_names(functional_fixture())),
                         [](const auto& info) { return info.param; });

TEST(PoolNorm, EveryTableCaseHasAFixture) {
  for (const auto& [name, fn] : cases()) EXPECT_TRUE(functional_fixture().contains(name)) << name;
}

// ---- modules over three training steps, then eval ----

TEST(PoolNormModules, BatchNormTrainingStepsThenEvalMatchPyTorch) {
  const nlohmann::json& f = module_fixture();
  {
    nn::BatchNorm1d bn(4);
    check_module_run(
        *bn, [&](const Tensor& x) { return bn(x); }, f.at("batchnorm1d_3d"));
  }
  {
    nn::BatchNorm1d bn(nn::BatchNormOptions(3).momentum(std::nullopt));
    bn->to(kFloat64);
    check_module_run(
        *bn, [&](const Tensor& x) { return bn(x); }, f.at("batchnorm1d_2d_momentum_none_f64"));
  }
  {
    nn::BatchNorm1d bn(nn::BatchNormOptions(3).affine(false).momentum(0.3).eps(1e-3));
    EXPECT_TRUE(bn->parameters().empty());
    check_module_run(
        *bn, [&](const Tensor& x) { return bn(x); }, f.at("batchnorm1d_no_affine"));
  }
  {
    nn::BatchNorm1d bn(nn::BatchNormOptions(3).track_running_stats(false));
    EXPECT_TRUE(bn->buffers().empty());
    check_module_run(
        *bn, [&](const Tensor& x) { return bn(x); }, f.at("batchnorm1d_no_running_stats"));
  }
  {
    nn::BatchNorm2d bn(3);
    check_module_run(
        *bn, [&](const Tensor& x) { return bn(x); }, f.at("batchnorm2d"));
    EXPECT_EQ(bn->num_batches_tracked.item<int64_t>(), 3);
  }
}

TEST(PoolNormModules, InstanceNormTrainingStepsThenEvalMatchPyTorch) {
  const nlohmann::json& f = module_fixture();
  {
    nn::InstanceNorm2d in(3);
    EXPECT_TRUE(in->parameters().empty());
    EXPECT_TRUE(in->buffers().empty());
    check_module_run(
        *in, [&](const Tensor& x) { return in(x); }, f.at("instancenorm2d"));
  }
  {
    nn::InstanceNorm2d in(nn::InstanceNormOptions(3).affine(true).track_running_stats(true));
    check_module_run(
        *in, [&](const Tensor& x) { return in(x); }, f.at("instancenorm2d_affine_tracked"));
  }
}

// The running statistics are buffers: saved and loaded with the module, moved by to(), and kept by clone().
TEST(PoolNormModules, BatchNormBuffersAreSavedLoadedAndCloned) {
  nn::BatchNorm2d bn(2);
  bn(tensor({1.0f, 2.0f, 3.0f, 5.0f, -1.0f, 0.5f, 4.0f, 2.0f}).reshape({2, 2, 1, 2}));
  std::vector<std::string> names;
  for (const auto& [name, b] : bn->named_buffers()) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"running_mean", "running_var", "num_batches_tracked"}));
  // channel 0 holds 1, 2, -1, 0.5: mean 0.625, unbiased var 1.5625
  EXPECT_TENSOR_CLOSE(bn->running_mean, tensor({0.0625f, 0.35f}), 1e-6, 1e-7);
  EXPECT_TENSOR_CLOSE(bn->running_var.select(0, 0), scalar_tensor(0.9 + 0.1 * 1.5625, dtype(kFloat32)), 1e-6, 1e-7);

  std::stringstream stream;
  nn::save(*bn, stream);
  nn::BatchNorm2d fresh(2);
  nn::load(*fresh, stream);
  EXPECT_TENSOR_CLOSE(fresh->running_mean, bn->running_mean, 0, 0);
  EXPECT_TENSOR_CLOSE(fresh->running_var, bn->running_var, 0, 0);
  EXPECT_EQ(fresh->num_batches_tracked.item<int64_t>(), 1);
  // The loaded statistics are the module's own (in place): eval uses them.
  fresh->eval();
  bn->eval();
  Tensor x = tensor({1.0f, -2.0f}).reshape({1, 2, 1, 1});
  EXPECT_TENSOR_CLOSE(fresh(x), bn(x), 0, 0);
  // (1 - 0.0625) / sqrt(0.9 + 0.15625 + 1e-5)
  EXPECT_NEAR(fresh(x).flatten().select(0, 0).item<float>(), 0.9375 / std::sqrt(1.05625 + 1e-5), 1e-6);
  auto copy = std::dynamic_pointer_cast<nn::BatchNorm2dImpl>(bn->clone());
  ASSERT_TRUE(copy);
  EXPECT_TENSOR_CLOSE(copy->running_var, bn->running_var, 0, 0);
  EXPECT_FALSE(copy->is_training());
}

// ---- gradient check: central differences in float64 ----

TEST(PoolNorm, GradientsMatchFiniteDifferences) {
  const std::vector<GradCase> table = {
      {"max_pool2d_dilation_ceil",
       [](const tensor_list& x) {
         return F::max_pool2d(
             x[0], F::MaxPool2dFuncOptions({2, 3}).stride({2, 1}).padding(1).dilation({2, 1}).ceil_mode(true));
       },
       {wave64({1, 2, 5, 6}, 0, 2)}},
      {"max_pool1d_transposed_input",
       [](const tensor_list& x) { return F::max_pool1d(x[0].transpose(1, 2), F::MaxPool1dFuncOptions(3).stride(2)); },
       {wave64({2, 7, 3}, 0, 2)}},
      {"avg_pool2d_ceil_exclude",
       [](const tensor_list& x) {
         return F::avg_pool2d(x[0],
                              F::AvgPool2dFuncOptions(3).stride(2).padding(1).ceil_mode(true).count_include_pad(false));
       },
       {wave64({2, 1, 6, 5})}},
      {"avg_pool1d_divisor",
       [](const tensor_list& x) { return F::avg_pool1d(x[0], F::AvgPool1dFuncOptions(2).divisor_override(3)); },
       {wave64({2, 5})}},
      {"adaptive_avg_pool2d",
       [](const tensor_list& x) {
         return F::adaptive_avg_pool2d(x[0], F::AdaptiveAvgPool2dFuncOptions({3, 4}));
       },
       {wave64({1, 2, 5, 7})}},
      {"adaptive_max_pool2d",
       [](const tensor_list& x) {
         return F::adaptive_max_pool2d(x[0], F::AdaptiveMaxPool2dFuncOptions({2, 3}));
       },
       {wave64({2, 5, 7}, 0, 2)}},
      {"batch_norm_train",
       [](const tensor_list& x) {
         return F::batch_norm(x[0], {}, {}, F::BatchNormFuncOptions().weight(x[1]).bias(x[2]).training(true));
       },
       {wave64({3, 2, 2}, 0, 2), wave64({2}, 1, 0.5, 1), wave64({2}, 2)}},
      {"instance_norm",
       [](const tensor_list& x) { return F::instance_norm(x[0], F::InstanceNormFuncOptions().weight(x[1])); },
       {wave64({2, 2, 2, 3}, 0, 2), wave64({2}, 1, 0.5, 1)}},
      {"group_norm",
       [](const tensor_list& x) { return F::group_norm(x[0], F::GroupNormFuncOptions(2).weight(x[1]).bias(x[2])); },
       {wave64({2, 4, 3}, 0, 2), wave64({4}, 1, 0.5, 1), wave64({4}, 2)}},
      {"rms_norm",
       [](const tensor_list& x) { return F::rms_norm(x[0], F::RMSNormFuncOptions({3}).weight(x[1])); },
       {wave64({2, 3}, 0, 2), wave64({3}, 1, 0.5, 1)}},
  };
  check_grad_cases(table);
}

// ---- modules: options, indices, printouts ----

TEST(PoolNormModules, MaxPoolModulesGiveIndices) {
  Tensor x = tensor({1.0f, 5.0f, 2.0f, 4.0f, 3.0f, 0.0f}).reshape({1, 1, 6});
  nn::MaxPool1d pool(nn::MaxPool1dOptions(2));
  auto [values, indices] = pool->forward_with_indices(x);
  EXPECT_TENSOR_CLOSE(values, tensor({5.0f, 4.0f, 3.0f}).reshape({1, 1, 3}), 0, 0);
  EXPECT_TRUE(indices.equal(tensor({1, 3, 4}, dtype(kInt64)).reshape({1, 1, 3}))) << indices;
  EXPECT_TENSOR_CLOSE(pool(x), values, 0, 0);
  // stride defaults to kernel_size
  EXPECT_EQ(nn::MaxPool2dOptions({2, 3}).stride(), (ExpandingArray<2>({2, 3})));
  EXPECT_EQ(nn::AvgPool2dOptions(4).stride(), ExpandingArray<2>(4));
}

TEST(PoolNormModules, PrintoutsNameTheOptions) {
  std::ostringstream s;
  s << nn::Sequential(nn::MaxPool1d(nn::MaxPool1dOptions(3).stride(2)),
                      nn::MaxPool2d(nn::MaxPool2dOptions({2, 3}).padding(1).dilation(2).ceil_mode(true)),
                      nn::AvgPool1d(2), nn::AvgPool2d(nn::AvgPool2dOptions(3).stride(1)),
                      nn::AdaptiveAvgPool2d(nn::AdaptiveAvgPool2dOptions({1, 1})), nn::AdaptiveMaxPool2d(2),
                      nn::BatchNorm1d(4), nn::BatchNorm2d(nn::BatchNormOptions(3).momentum(std::nullopt).affine(false)),
                      nn::InstanceNorm2d(3), nn::GroupNorm(2, 6), nn::RMSNorm(nn::RMSNormOptions({8})),
                      nn::RMSNorm(nn::RMSNormOptions({2, 3}).eps(1e-6).elementwise_affine(false)));
  EXPECT_EQ(s.str(),
            "Sequential(\n"
            "  (0): MaxPool1d(kernel_size=3, stride=2, padding=0, dilation=1, ceil_mode=false)\n"
            "  (1): MaxPool2d(kernel_size=[2, 3], stride=[2, 3], padding=[1, 1], dilation=[2, 2], ceil_mode=true)\n"
            "  (2): AvgPool1d(kernel_size=2, stride=2, padding=0)\n"
            "  (3): AvgPool2d(kernel_size=[3, 3], stride=[1, 1], padding=[0, 0])\n"
            "  (4): AdaptiveAvgPool2d(output_size=[1, 1])\n"
            "  (5): AdaptiveMaxPool2d(output_size=[2, 2])\n"
            "  (6): BatchNorm1d(4, eps=1e-05, momentum=0.1, affine=true, track_running_stats=true)\n"
            "  (7): BatchNorm2d(3, eps=1e-05, momentum=None, affine=false, track_running_stats=true)\n"
            "  (8): InstanceNorm2d(3, eps=1e-05, momentum=0.1, affine=false, track_running_stats=false)\n"
            "  (9): GroupNorm(2, 6, eps=1e-05, affine=true)\n"
            "  (10): RMSNorm([8], eps=None, elementwise_affine=true)\n"
            "  (11): RMSNorm([2, 3], eps=1e-06, elementwise_affine=false)\n"
            ")");
}

TEST(PoolNormModules, ParametersAndInit) {
  nn::GroupNorm gn(2, 4);
  EXPECT_TENSOR_CLOSE(gn->weight, ones({4}), 0, 0);
  EXPECT_TENSOR_CLOSE(gn->bias, zeros({4}), 0, 0);
  nn::RMSNorm rms(nn::RMSNormOptions({3}));
  EXPECT_EQ(rms->parameters().size(), 1u);
  nn::BatchNorm1d bn(3);
  EXPECT_EQ(bn->parameters().size(), 2u);
  EXPECT_EQ(bn->buffers().size(), 3u);
  EXPECT_EQ(bn->num_batches_tracked.dtype(), kInt64);
  // RMSNorm's default eps is the dtype's: float32's 1.19e-7 keeps a tiny input's scale, as PyTorch.
  Tensor tiny = full({1, 3}, 1e-4);
  EXPECT_NEAR(rms(tiny).flatten().select(0, 0).item<float>(), 1e-4 / std::sqrt(1e-8 + 1.1920929e-7), 1e-4);
}

// ---- bad input: an ember::Error naming the op and the values ----

TEST(PoolNorm, BadInputIsAClearError) {
  Tensor x4 = ones({1, 2, 4, 4});
  EXPECT_THROWS_WITH(F::max_pool2d(ones({4, 4}), F::MaxPool2dFuncOptions(2)),
                     "max_pool2d: expected a 3-d (C, H, W) or 4-d (N, C, H, W) input, but got shape [4, 4]");
  EXPECT_THROWS_WITH(F::max_pool1d(ones({1, 2, 3, 4}), F::MaxPool1dFuncOptions(2)),
                     "max_pool1d: expected a 2-d (C, L) or 3-d (N, C, L) input, but got shape [1, 2, 3, 4]");
  EXPECT_THROWS_WITH(
      F::max_pool2d(x4, F::MaxPool2dFuncOptions(2).padding(2)),
      "max_pool2d: pad should be at most half of kernel size, but got padH = 2, padW = 2, kH = 2, kW = 2");
  EXPECT_THROWS_WITH(F::avg_pool1d(ones({2, 5}), F::AvgPool1dFuncOptions(3).padding(2)),
                     "avg_pool1d: pad should be at most half of kernel size, but got pad = 2 and kernel_size = 3");
  EXPECT_THROWS_WITH(F::max_pool2d(x4, F::MaxPool2dFuncOptions(5)),
                     "max_pool2d: input of shape [1, 2, 4, 4] is too small: the output would have [0, 0]");
  EXPECT_THROWS_WITH(F::max_pool2d(x4, F::MaxPool2dFuncOptions(2).dilation(4)),
                     "max_pool2d: input of shape [1, 2, 4, 4] is too small");
  EXPECT_THROWS_WITH(F::max_pool2d(x4, F::MaxPool2dFuncOptions(2).stride(0)),
                     "max_pool2d: stride should be greater than zero, but got dH: 0 dW: 0");
  EXPECT_THROWS_WITH(F::avg_pool2d(x4, F::AvgPool2dFuncOptions(0)),
                     "avg_pool2d: kernel size should be greater than zero, but got kH: 0 kW: 0");
  EXPECT_THROWS_WITH(F::avg_pool2d(x4, F::AvgPool2dFuncOptions(2).divisor_override(0)),
                     "avg_pool2d: divisor must be not zero");
  EXPECT_THROWS_WITH(
      F::max_pool2d(ones({1, 0, 4, 4}), F::MaxPool2dFuncOptions(2)),
      "max_pool2d: expected an input with non-zero sizes except the batch dim, but got shape [1, 0, 4, 4]");
  EXPECT_THROWS_WITH(F::max_pool2d(ones({1, 1, 4, 4}, dtype(kInt64)), F::MaxPool2dFuncOptions(2)),
                     "max_pool2d: expected a floating-point input");
  EXPECT_THROWS_WITH(F::adaptive_avg_pool2d(ones({3, 4}), F::AdaptiveAvgPool2dFuncOptions(2)),
                     "adaptive_avg_pool2d: expected a 3-d (C, H, W) or 4-d (N, C, H, W) input, but got shape [3, 4]");
  EXPECT_THROWS_WITH(F::adaptive_max_pool2d(x4, F::AdaptiveMaxPool2dFuncOptions({-1, 2})),
                     "adaptive_max_pool2d: output_size must be non-negative, but got [-1, 2]");
  EXPECT_THROWS_WITH(nn::MaxPool2dOptions({1, 2, 3}), "Expected 2 values, but instead got 3");

  nn::BatchNorm1d bn(3);
  EXPECT_THROWS_WITH(bn(ones({1, 3})),
                     "batch_norm: expected more than 1 value per channel when training, got input size [1, 3]");
  EXPECT_THROWS_WITH(bn(ones({2, 3, 4, 5})),
                     "BatchNorm1d: expected 2D or 3D input (got 4D input of shape [2, 3, 4, 5])");
  EXPECT_THROWS_WITH(bn(ones({2, 4})),
                     "batch_norm: running_mean should have shape [4] (one value per channel), but got [3]");
  EXPECT_THROWS_WITH(nn::BatchNorm2d(3)(ones({2, 3, 4})),
                     "BatchNorm2d: expected 4D input (got 3D input of shape [2, 3, 4])");
  EXPECT_THROWS_WITH(F::batch_norm(ones({2, 3}), {}, {}), "batch_norm: running_mean and running_var must be defined");
  EXPECT_THROWS_WITH(nn::InstanceNorm2d(3)(ones({2, 3, 1, 1})),
                     "instance_norm: expected more than 1 spatial element when training, got input size [2, 3, 1, 1]");
  EXPECT_THROWS_WITH(nn::InstanceNorm2d(3)(ones({2, 3})), "InstanceNorm2d: expected 3D or 4D input (got 2D input");
  EXPECT_THROWS_WITH(nn::GroupNorm(4, 6), "GroupNorm: num_channels (6) must be divisible by num_groups (4)");
  EXPECT_THROWS_WITH(F::group_norm(ones({2, 6, 3}), F::GroupNormFuncOptions(4)),
                     "group_norm: expected the number of channels of input of shape [2, 6, 3] (6) to be divisible by "
                     "num_groups (4)");
  EXPECT_THROWS_WITH(nn::RMSNorm(nn::RMSNormOptions({4}))(ones({2, 3})),
                     "rms_norm: input of shape [2, 3] does not end with normalized_shape [4]");
}

}  // namespace
