// 3-d and transposed convolution (Conv3d, ConvTranspose1d/3d), 3-d, adaptive 1-d, LP and fractional
// max pooling, max_unpool, BatchNorm3d, InstanceNorm1d/3d and LocalResponseNorm against PyTorch 1.13:
// forward values, the gradients of every input (input, weight, bias) and max pooling's indices (ties
// too) in float32 and float64; the layers' draws after manual_seed(0) with one forward and its
// gradients; the norm modules over three training steps and eval; gradcheck in float64; one case on
// the emulated CUDA device; printouts; and bad input.
//
// Fixtures come from scripts/gen_convpool3d_fixtures.py (tests/fixtures/nn/convpool3d.json); each
// table line is the C++ twin of one `case(...)` there, named "functional/<case>".
#include <functional>
#include <map>
#include <sstream>

#include "cuda_test_util.h"
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

Tensor bias_of(const Inputs& in) { return in.count("b") ? in.at("b") : Tensor(); }

// Each line mirrors the case of the same name in gen_convpool3d_fixtures.py.
const std::map<std::string, Case>& cases() {
  static const std::map<std::string, Case> table = [] {
    std::map<std::string, Case> t = {
        // ---- convolution ----
        {"conv3d_basic", plain([](const Inputs& in) {
           return F::conv3d(in.at("x"), in.at("w"), F::Conv3dFuncOptions().bias(bias_of(in)));
         })},
        {"conv3d_stride_pad_dilation", plain([](const Inputs& in) {
           return F::conv3d(
               in.at("x"), in.at("w"),
               F::Conv3dFuncOptions().bias(bias_of(in)).stride({2, 1, 2}).padding({1, 2, 0}).dilation({2, 1, 2}));
         })},
        {"conv3d_groups_f64", plain([](const Inputs& in) {
           return F::conv3d(in.at("x"), in.at("w"),
                            F::Conv3dFuncOptions().bias(bias_of(in)).stride(2).padding(1).groups(2));
         })},
        {"conv3d_same_even_kernel", plain([](const Inputs& in) {
           return F::conv3d(in.at("x"), in.at("w"),
                            F::Conv3dFuncOptions().bias(bias_of(in)).padding(kSame).dilation({1, 2, 1}));
         })},
        {"conv3d_unbatched_groups_no_bias", plain([](const Inputs& in) {
           return F::conv3d(in.at("x"), in.at("w"), F::Conv3dFuncOptions().stride({1, 2, 1}).groups(2));
         })},
        {"conv_transpose1d_basic", plain([](const Inputs& in) {
           return F::conv_transpose1d(
               in.at("x"), in.at("w"),
               F::ConvTranspose1dFuncOptions().bias(bias_of(in)).stride(2).padding(1).output_padding(1));
         })},
        {"conv_transpose1d_groups_dilation_f64", plain([](const Inputs& in) {
           return F::conv_transpose1d(in.at("x"), in.at("w"),
                                      F::ConvTranspose1dFuncOptions().bias(bias_of(in)).groups(2).dilation(2));
         })},
        {"conv_transpose1d_unbatched", plain([](const Inputs& in) {
           return F::conv_transpose1d(in.at("x"), in.at("w"),
                                      F::ConvTranspose1dFuncOptions().bias(bias_of(in)).stride(3));
         })},
        {"conv_transpose3d_basic", plain([](const Inputs& in) {
           return F::conv_transpose3d(in.at("x"), in.at("w"),
                                      F::ConvTranspose3dFuncOptions()
                                          .bias(bias_of(in))
                                          .stride({2, 1, 2})
                                          .padding({1, 0, 1})
                                          .output_padding({1, 0, 1}));
         })},
        {"conv_transpose3d_groups_dilation_f64", plain([](const Inputs& in) {
           return F::conv_transpose3d(
               in.at("x"), in.at("w"),
               F::ConvTranspose3dFuncOptions().bias(bias_of(in)).stride(2).padding(1).groups(2).dilation({2, 1, 2}));
         })},
        {"conv_transpose3d_unbatched_no_bias", plain([](const Inputs& in) {
           return F::conv_transpose3d(in.at("x"), in.at("w"), F::ConvTranspose3dFuncOptions().padding({1, 0, 0}));
         })},
        // ---- normalisation ----
        {"local_response_norm_3d", plain([](const Inputs& in) {
           return F::local_response_norm(in.at("x"), F::LocalResponseNormFuncOptions(3));
         })},
        {"local_response_norm_4d_even", plain([](const Inputs& in) {
           return F::local_response_norm(in.at("x"), F::LocalResponseNormFuncOptions(4).alpha(0.1).beta(0.6).k(2.0));
         })},
        {"local_response_norm_5d_f64", plain([](const Inputs& in) {
           return F::local_response_norm(in.at("x"), F::LocalResponseNormFuncOptions(2).alpha(0.5));
         })},
        {"batch_norm_5d_train", plain([](const Inputs& in) {
           return F::batch_norm(in.at("x"), {}, {},
                                F::BatchNormFuncOptions().weight(in.at("w")).bias(in.at("b")).training(true));
         })},
        {"instance_norm_3d_input", plain([](const Inputs& in) { return F::instance_norm(in.at("x")); })},
        {"instance_norm_5d_input_f64", plain([](const Inputs& in) {
           return F::instance_norm(in.at("x"),
                                   F::InstanceNormFuncOptions().weight(in.at("w")).bias(in.at("b")).eps(1e-3));
         })},
    };
    // ---- pooling ----
    t["max_pool3d"] = [](const Inputs& in) {
      return F::max_pool3d_with_indices(in.at("x"), F::MaxPool3dFuncOptions(2));
    };
    t["max_pool3d_ties"] = [](const Inputs& in) {
      return F::max_pool3d_with_indices(in.at("x"), F::MaxPool3dFuncOptions({2, 3, 2}).stride(1).padding(1));
    };
    t["max_pool3d_pad_stride_dilation_ceil"] = [](const Inputs& in) {
      return F::max_pool3d_with_indices(
          in.at("x"),
          F::MaxPool3dFuncOptions({3, 2, 2}).stride({2, 1, 2}).padding({1, 1, 0}).dilation({2, 1, 1}).ceil_mode(true));
    };
    t["max_pool3d_unbatched_f64"] = [](const Inputs& in) {
      return F::max_pool3d_with_indices(in.at("x"), F::MaxPool3dFuncOptions({2, 3, 2}).stride(1));
    };
    t["avg_pool3d"] = plain([](const Inputs& in) { return F::avg_pool3d(in.at("x"), F::AvgPool3dFuncOptions(2)); });
    t["avg_pool3d_pad_ceil_exclude"] = plain([](const Inputs& in) {
      return F::avg_pool3d(in.at("x"),
                           F::AvgPool3dFuncOptions(3).stride(2).padding(1).ceil_mode(true).count_include_pad(false));
    });
    t["avg_pool3d_pad_include_f64"] = plain([](const Inputs& in) {
      return F::avg_pool3d(in.at("x"),
                           F::AvgPool3dFuncOptions({2, 3, 3}).stride({1, 2, 2}).padding({1, 1, 0}).ceil_mode(true));
    });
    t["avg_pool3d_divisor_override_unbatched"] = plain([](const Inputs& in) {
      return F::avg_pool3d(in.at("x"), F::AvgPool3dFuncOptions(2).stride(2).padding(1).divisor_override(3));
    });
    t["adaptive_avg_pool3d"] = plain([](const Inputs& in) {
      return F::adaptive_avg_pool3d(in.at("x"), F::AdaptiveAvgPool3dFuncOptions({2, 3, 3}));
    });
    t["adaptive_avg_pool3d_upsample_f64"] = plain([](const Inputs& in) {
      return F::adaptive_avg_pool3d(in.at("x"), F::AdaptiveAvgPool3dFuncOptions({3, 4, 3}));
    });
    t["adaptive_max_pool3d"] = [](const Inputs& in) {
      return F::adaptive_max_pool3d_with_indices(in.at("x"), F::AdaptiveMaxPool3dFuncOptions({2, 3, 2}));
    };
    t["adaptive_max_pool3d_ties"] = [](const Inputs& in) {
      return F::adaptive_max_pool3d_with_indices(in.at("x"), F::AdaptiveMaxPool3dFuncOptions({3, 2, 2}));
    };
    t["adaptive_avg_pool1d"] =
        plain([](const Inputs& in) { return F::adaptive_avg_pool1d(in.at("x"), F::AdaptiveAvgPool1dFuncOptions(3)); });
    t["adaptive_avg_pool1d_unbatched_upsample"] =
        plain([](const Inputs& in) { return F::adaptive_avg_pool1d(in.at("x"), F::AdaptiveAvgPool1dFuncOptions(7)); });
    t["adaptive_max_pool1d"] = [](const Inputs& in) {
      return F::adaptive_max_pool1d_with_indices(in.at("x"), F::AdaptiveMaxPool1dFuncOptions(4));
    };
    t["adaptive_max_pool1d_ties_f64"] = [](const Inputs& in) {
      return F::adaptive_max_pool1d_with_indices(in.at("x"), F::AdaptiveMaxPool1dFuncOptions(3));
    };
    t["lp_pool1d"] =
        plain([](const Inputs& in) { return F::lp_pool1d(in.at("x"), F::LPPool1dFuncOptions(2, 3).stride(2)); });
    t["lp_pool2d_ceil"] = plain([](const Inputs& in) {
      return F::lp_pool2d(in.at("x"), F::LPPool2dFuncOptions(3, {2, 3}).stride({1, 2}).ceil_mode(true));
    });
    t["lp_pool2d_f64"] =
        plain([](const Inputs& in) { return F::lp_pool2d(in.at("x"), F::LPPool2dFuncOptions(1.5, 2)); });
    t["fractional_max_pool2d"] = [](const Inputs& in) {
      return F::fractional_max_pool2d_with_indices(
          in.at("x"),
          F::FractionalMaxPool2dFuncOptions(2).output_size(ExpandingArray<2>({4, 5}))._random_samples(in.at("u")));
    };
    t["fractional_max_pool2d_ratio_unbatched_f64"] = [](const Inputs& in) {
      return F::fractional_max_pool2d_with_indices(in.at("x"), F::FractionalMaxPool2dFuncOptions({2, 3})
                                                                   .output_ratio(ExpandingArray<2, double>({0.5, 0.6}))
                                                                   ._random_samples(in.at("u")));
    };
    t["fractional_max_pool2d_ties"] = [](const Inputs& in) {
      return F::fractional_max_pool2d_with_indices(
          in.at("x"),
          F::FractionalMaxPool2dFuncOptions(3).output_size(ExpandingArray<2>(3))._random_samples(in.at("u")));
    };
    t["fractional_max_pool3d"] = [](const Inputs& in) {
      return F::fractional_max_pool3d_with_indices(
          in.at("x"),
          F::FractionalMaxPool3dFuncOptions(2).output_size(ExpandingArray<3>({3, 3, 2}))._random_samples(in.at("u")));
    };
    t["max_unpool1d_output_size"] = plain([](const Inputs& in) {
      return F::max_unpool1d(in.at("v"), in.at("i"),
                             F::MaxUnpool1dFuncOptions(3).stride(2).padding(1).output_size(std::vector<int64_t>{8}));
    });
    t["max_unpool2d"] =
        plain([](const Inputs& in) { return F::max_unpool2d(in.at("v"), in.at("i"), F::MaxUnpool2dFuncOptions(2)); });
    t["max_unpool2d_unbatched_f64"] = plain([](const Inputs& in) {
      return F::max_unpool2d(in.at("v"), in.at("i"),
                             F::MaxUnpool2dFuncOptions(2).output_size(std::vector<int64_t>{5, 5}));
    });
    t["max_unpool3d"] = plain([](const Inputs& in) {
      return F::max_unpool3d(in.at("v"), in.at("i"),
                             F::MaxUnpool3dFuncOptions({2, 2, 3}).stride(2).output_size(std::vector<int64_t>{4, 4, 5}));
    });
    return t;
  }();
  return table;
}

const nlohmann::json& fixture() { return cached_fixture("nn/convpool3d.json"); }

class ConvPool3dReference : public ::testing::TestWithParam<std::string> {};

TEST_P(ConvPool3dReference, ForwardIndicesAndEveryGradientMatchPyTorch) {
  const nlohmann::json& c = fixture().at("functional/" + GetParam());
  // The output and gradients as every fixture case; max pooling's indices checked on the way.
  check_fixture_case(c, RequireGrad::kFloatingWithStoredGrad, [&](const Inputs& in) {
    auto [out, indices] = cases().at(GetParam())(in);
    EXPECT_EQ(c.contains("indices"), indices.defined());
    if (c.contains("indices") && indices.defined())
      EXPECT_TRUE(indices.equal(tensor_from_json(c.at("indices")))) << indices;
    return out;
  });
}

INSTANTIATE_TEST_SUITE_P(Fixture, ConvPool3dReference, ::testing::ValuesIn(case_names(cases())),
                         [](const auto& info) { return info.param; });

TEST(ConvPool3d, EveryFixtureCaseHasATableLine) {
  for (const auto& [name, value] : fixture().items())
    if (name.starts_with("functional/")) EXPECT_TRUE(cases().count(name.substr(11))) << name;
}

// ---- layers: the draws after manual_seed(0), then one forward and its gradients ----

// The layer's parameters equal the fixture's draws; then the output and the gradients of x, weight and
// bias of (out * w).sum().
void check_layer(nn::Module& m, const std::function<Tensor(const Tensor&)>& forward, const nlohmann::json& c) {
  std::vector<std::string> names;
  for (const auto& [name, p] : m.named_parameters()) {
    names.push_back(name);
    EXPECT_TENSOR_CLOSE(p, tensor_from_json(c.at("params").at(name)), 1e-6, 1e-7) << "drawn " << name;
  }
  EXPECT_EQ(names.size(), c.at("params").size());
  Tensor x = tensor_from_json(c.at("x")).requires_grad_();
  Tensor out = forward(x);
  const double tol = out.dtype() == kFloat64 ? 1e-12 : 1e-5;
  EXPECT_TENSOR_CLOSE(out, tensor_from_json(c.at("output")), tol, tol);
  (out * tensor_from_json(c.at("weight"))).sum().backward();
  EXPECT_TENSOR_CLOSE(x.grad(), tensor_from_json(c.at("grads").at("x")), tol, tol);
  for (const auto& [name, p] : m.named_parameters())
    EXPECT_TENSOR_CLOSE(p.grad(), tensor_from_json(c.at("grads").at(name)), tol, tol) << "gradient of " << name;
}

TEST(ConvPool3dModules, ConvLayersDrawAndComputeAsPyTorch) {
  {
    SCOPED_TRACE("conv3d");
    manual_seed(0);
    nn::Conv3d conv(nn::Conv3dOptions(2, 4, {2, 3, 2}).stride({1, 2, 1}).padding(1));
    check_layer(
        *conv, [&](const Tensor& x) { return conv(x); }, fixture().at("layers/conv3d"));
  }
  {
    SCOPED_TRACE("conv3d_groups_no_bias_f64");
    manual_seed(0);
    nn::Conv3d conv(nn::Conv3dOptions(4, 2, 2).groups(2).bias(false).dilation({1, 1, 2}));
    conv->to(kFloat64);
    check_layer(
        *conv, [&](const Tensor& x) { return conv(x); }, fixture().at("layers/conv3d_groups_no_bias_f64"));
  }
  {
    SCOPED_TRACE("conv_transpose1d");
    manual_seed(0);
    nn::ConvTranspose1d deconv(nn::ConvTranspose1dOptions(4, 6, 3).groups(2).stride(2).output_padding(1));
    check_layer(
        *deconv, [&](const Tensor& x) { return deconv(x); }, fixture().at("layers/conv_transpose1d"));
  }
  {
    SCOPED_TRACE("conv_transpose3d");
    manual_seed(0);
    nn::ConvTranspose3d deconv(nn::ConvTranspose3dOptions(3, 2, {2, 2, 3}).stride(2).padding({0, 1, 1}));
    check_layer(
        *deconv, [&](const Tensor& x) { return deconv(x); }, fixture().at("layers/conv_transpose3d"));
  }
}

// ---- norm modules over three training steps, then eval ----

TEST(ConvPool3dModules, NormModulesTrainingStepsThenEvalMatchPyTorch) {
  {
    nn::BatchNorm3d bn(2);
    check_module_run(
        *bn, [&](const Tensor& x) { return bn(x); }, fixture().at("modules/batchnorm3d"));
    EXPECT_EQ(bn->num_batches_tracked.item<int64_t>(), 3);
  }
  {
    nn::BatchNorm3d bn(nn::BatchNorm3dOptions(2).momentum(std::nullopt));
    bn->to(kFloat64);
    check_module_run(
        *bn, [&](const Tensor& x) { return bn(x); }, fixture().at("modules/batchnorm3d_momentum_none_f64"));
  }
  {
    nn::InstanceNorm1d in(3);
    EXPECT_TRUE(in->parameters().empty());
    check_module_run(
        *in, [&](const Tensor& x) { return in(x); }, fixture().at("modules/instancenorm1d"));
  }
  {
    nn::InstanceNorm1d in(nn::InstanceNorm1dOptions(3).affine(true).track_running_stats(true));
    check_module_run(
        *in, [&](const Tensor& x) { return in(x); }, fixture().at("modules/instancenorm1d_unbatched_affine_tracked"));
  }
  {
    nn::InstanceNorm3d in(nn::InstanceNorm3dOptions(2).affine(true).track_running_stats(true).momentum(0.3));
    check_module_run(
        *in, [&](const Tensor& x) { return in(x); }, fixture().at("modules/instancenorm3d_affine_tracked"));
  }
}

// ---- gradient check: central differences in float64 ----

TEST(ConvPool3d, GradientsMatchFiniteDifferences) {
  const std::vector<GradCase> table = {
      {"conv3d_stride_pad_groups_transposed_input",
       [](const tensor_list& x) {
         return F::conv3d(x[0].transpose(2, 4), x[1],
                          F::Conv3dFuncOptions().bias(x[2]).stride({2, 1, 1}).padding({1, 0, 1}).groups(2));
       },
       {wave64({1, 4, 2, 3, 3}), wave64({2, 2, 2, 2, 1}, 1.0), wave64({2}, 2.0)},
       false},
      {"conv_transpose3d_stride_output_padding",
       [](const tensor_list& x) {
         return F::conv_transpose3d(
             x[0], x[1],
             F::ConvTranspose3dFuncOptions().bias(x[2]).stride({2, 1, 1}).padding(1).output_padding({1, 0, 0}));
       },
       {wave64({1, 2, 2, 2, 2}), wave64({2, 1, 2, 2, 3}, 1.0), wave64({1}, 2.0)},
       false},
      {"conv_transpose1d_groups",
       [](const tensor_list& x) {
         return F::conv_transpose1d(x[0], x[1], F::ConvTranspose1dFuncOptions().stride(2).groups(2));
       },
       {wave64({2, 2, 3}), wave64({2, 2, 2}, 1.0)}},
      {"max_pool3d_ceil_dilation",
       [](const tensor_list& x) {
         return F::max_pool3d(
             x[0], F::MaxPool3dFuncOptions({2, 2, 3}).stride({1, 2, 1}).padding(1).dilation({2, 1, 1}).ceil_mode(true));
       },
       {wave64({1, 2, 4, 3, 4}, 0, 2)}},
      {"avg_pool3d_exclude_pad",
       [](const tensor_list& x) {
         return F::avg_pool3d(x[0], F::AvgPool3dFuncOptions(2).stride({1, 2, 2}).padding(1).count_include_pad(false));
       },
       {wave64({2, 3, 3, 4})}},
      {"adaptive_max_pool3d",
       [](const tensor_list& x) {
         return F::adaptive_max_pool3d(x[0], F::AdaptiveMaxPool3dFuncOptions({2, 2, 3}));
       },
       {wave64({1, 3, 4, 5}, 0, 2)}},
      {"lp_pool2d",
       [](const tensor_list& x) {
         return F::lp_pool2d(x[0], F::LPPool2dFuncOptions(2.5, {2, 2}).stride(1));
       },
       {wave64({1, 1, 3, 4}, 0, 1, 2)}},
      {"local_response_norm",
       [](const tensor_list& x) {
         return F::local_response_norm(x[0], F::LocalResponseNormFuncOptions(3).alpha(0.3).k(1.5));
       },
       {wave64({2, 4, 3}, 0, 2)}},
  };
  check_grad_cases(table);
}

// ---- the emulated CUDA device ----

TEST(ConvPool3d, Conv3dAndTransposeOnCudaMatchTheCpu) {
  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const Device gpu = cuda_test::kGpu;
  Tensor x = wave64({1, 2, 3, 3, 3}).to(kFloat32), w = wave64({2, 2, 2, 2, 2}, 1.0).to(kFloat32);
  Tensor b = wave64({2}, 2.0).to(kFloat32);
  auto run = [&](const Device& device) {
    Tensor xd = x.to(device).detach().requires_grad_(), wd = w.to(device).detach().requires_grad_();
    Tensor bd = b.to(device).detach().requires_grad_();
    Tensor y = F::conv3d(xd, wd, F::Conv3dFuncOptions().bias(bd).padding(1).stride({2, 1, 1}));
    Tensor z = F::conv_transpose3d(y, wd, F::ConvTranspose3dFuncOptions().stride(2).output_padding(1));
    Tensor n = F::local_response_norm(z, F::LocalResponseNormFuncOptions(2));
    (n * n).sum().backward();
    return tensor_list{n.to(kCPU), xd.grad().to(kCPU), wd.grad().to(kCPU), bd.grad().to(kCPU)};
  };
  const tensor_list cpu = run(Device(kCPU)), cuda = run(gpu);
  const auto tol = cuda_test::tolerance(kFloat32);
  for (size_t i = 0; i < cpu.size(); ++i) EXPECT_TENSOR_CLOSE(cuda[i], cpu[i], tol.rtol, tol.atol) << "result " << i;
}

// The 3-d max pooling modules give PyTorch's first-maximum indices.
TEST(ConvPool3dModules, MaxPoolModulesGiveIndices) {
  Tensor x = tensor({1.0f, 3.0f, 3.0f, 0.0f, 3.0f, 2.0f, 1.0f, 3.0f}).reshape({1, 1, 2, 2, 2});
  nn::MaxPool3d pool(nn::MaxPool3dOptions(2));
  auto [values, indices] = pool->forward_with_indices(x);
  EXPECT_TENSOR_CLOSE(values, full({1, 1, 1, 1, 1}, 3.0f), 0, 0);
  EXPECT_EQ(indices.flatten().item<int64_t>(), 1);
  nn::AdaptiveMaxPool3d adaptive(nn::AdaptiveMaxPool3dOptions({2, 1, 1}));
  auto [avalues, aindices] = adaptive->forward_with_indices(x.squeeze(0));  // unbatched (C, D, H, W)
  EXPECT_EQ(aindices.sizes(), IntArrayRef({1, 2, 1, 1}));
  EXPECT_TRUE(aindices.flatten().equal(tensor({int64_t{1}, int64_t{4}})));
  nn::AdaptiveMaxPool1d adaptive1(2);
  auto [v1, i1] = adaptive1->forward_with_indices(x.reshape({1, 8}));
  EXPECT_TRUE(i1.flatten().equal(tensor({int64_t{1}, int64_t{4}})));
  // and MaxUnpool3d puts the maxima back
  nn::MaxUnpool3d unpool(nn::MaxUnpool3dOptions(2));
  Tensor back = unpool(values, indices);
  EXPECT_TENSOR_CLOSE(back.flatten(), tensor({0.0f, 3.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f}), 0, 0);
  nn::LPPool1d lp(nn::LPPool1dOptions(1, 4));
  EXPECT_TENSOR_CLOSE(lp(x.reshape({1, 1, 8})), tensor({7.0f, 9.0f}).reshape({1, 1, 2}), 1e-6, 1e-6);
}

// ---- printouts and shapes ----

TEST(ConvPool3dModules, PrintoutsAreLibtorchs) {
  auto printed = [](const auto& module) {
    std::ostringstream s;
    s << module;
    return s.str();
  };
  EXPECT_EQ(printed(nn::Conv3d(nn::Conv3dOptions(2, 4, {2, 3, 2}).stride(2).padding(1).groups(2).bias(false))),
            "Conv3d(2, 4, kernel_size=[2, 3, 2], stride=[2, 2, 2], padding=[1, 1, 1], groups=2, bias=false)");
  EXPECT_EQ(printed(nn::ConvTranspose1d(nn::ConvTranspose1dOptions(4, 6, 3).stride(2).output_padding(1))),
            "ConvTranspose1d(4, 6, kernel_size=3, stride=2, output_padding=1)");
  EXPECT_EQ(printed(nn::ConvTranspose3d(nn::ConvTranspose3dOptions(3, 2, 2).dilation({1, 2, 1}))),
            "ConvTranspose3d(3, 2, kernel_size=[2, 2, 2], stride=[1, 1, 1], dilation=[1, 2, 1])");
  EXPECT_EQ(printed(nn::BatchNorm3d(4)),
            "BatchNorm3d(4, eps=1e-05, momentum=0.1, affine=true, track_running_stats=true)");
  EXPECT_EQ(printed(nn::InstanceNorm1d(3)),
            "InstanceNorm1d(3, eps=1e-05, momentum=0.1, affine=false, track_running_stats=false)");
  EXPECT_EQ(printed(nn::InstanceNorm3d(nn::InstanceNorm3dOptions(2).affine(true))),
            "InstanceNorm3d(2, eps=1e-05, momentum=0.1, affine=true, track_running_stats=false)");
  EXPECT_EQ(printed(nn::MaxPool3d(nn::MaxPool3dOptions({2, 3, 2}).stride(1).ceil_mode(true))),
            "MaxPool3d(kernel_size=[2, 3, 2], stride=[1, 1, 1], padding=[0, 0, 0], dilation=[1, 1, 1], "
            "ceil_mode=true)");
  EXPECT_EQ(printed(nn::AvgPool3d(nn::AvgPool3dOptions(2).padding(1))),
            "AvgPool3d(kernel_size=[2, 2, 2], stride=[2, 2, 2], padding=[1, 1, 1])");
  EXPECT_EQ(printed(nn::AdaptiveAvgPool1d(3)), "AdaptiveAvgPool1d(output_size=3)");
  EXPECT_EQ(printed(nn::AdaptiveMaxPool3d(nn::AdaptiveMaxPool3dOptions({1, 2, 3}))),
            "AdaptiveMaxPool3d(output_size=[1, 2, 3])");
  EXPECT_EQ(printed(nn::LPPool2d(nn::LPPool2dOptions(2, {2, 3}))),
            "LPPool2d(norm_type=2, kernel_size=[2, 3], stride=[2, 3], ceil_mode=false)");
  EXPECT_EQ(printed(nn::MaxUnpool2d(nn::MaxUnpool2dOptions(2).stride({1, 2}))),
            "MaxUnpool2d(kernel_size=[2, 2], stride=[1, 2], padding=[0, 0])");
  EXPECT_EQ(printed(nn::LocalResponseNorm(nn::LocalResponseNormOptions(2).k(2))),
            "LocalResponseNorm(2, alpha=0.0001, beta=0.75, k=2)");
  // Shapes through the layers, and clone keeps the options.
  nn::ConvTranspose3d up(nn::ConvTranspose3dOptions(4, 2, 4).stride(2).padding(1));
  EXPECT_EQ(up(randn({1, 4, 3, 2, 5})).sizes(), IntArrayRef({1, 2, 6, 4, 10}));
  auto copy = std::dynamic_pointer_cast<nn::ConvTranspose3dImpl>(up->clone());
  ASSERT_TRUE(copy);
  EXPECT_TENSOR_CLOSE(copy->weight, up->weight, 0, 0);
  nn::Conv3d same(nn::Conv3dOptions(2, 3, {3, 2, 1}).padding(kSame));
  EXPECT_EQ(same(randn({2, 4, 5, 3})).sizes(), IntArrayRef({3, 4, 5, 3}));
}

// ---- bad input: a clear error naming the op and the shapes ----

TEST(ConvPool3d, BadInputIsAClearError) {
  Tensor x = randn({1, 2, 3, 4, 4}), w = randn({3, 2, 2, 2, 2});
  EXPECT_THROWS_WITH(
      F::conv3d(randn({2, 3, 4}), w),
      "conv3d: Expected 4D (unbatched) or 5D (batched) input to conv3d, but got input of size: [2, 3, 4]");
  EXPECT_THROWS_WITH(F::conv3d(x, randn({3, 2, 2, 2})), "conv3d: expected a 5-D weight");
  EXPECT_THROWS_WITH(F::conv3d(x, randn({3, 1, 2, 2, 2})),
                     "conv3d: Given groups=1, weight of size [3, 1, 2, 2, 2], expected input[1, 2, 3, 4, 4] to have 1 "
                     "channels, but got 2 channels instead");
  EXPECT_THROWS_WITH(F::conv3d(x, randn({3, 2, 4, 2, 2})),
                     "conv3d: Calculated padded input size per channel: (3 x 4 x 4). Kernel size: (4 x 2 x 2). Kernel "
                     "size can't be greater than actual input size");
  EXPECT_THROWS_WITH(F::conv3d(x, w, F::Conv3dFuncOptions().stride({1, 0, 1})), "conv3d: non-positive stride");
  EXPECT_THROWS_WITH(F::conv3d(x, w, F::Conv3dFuncOptions().stride(2).padding(kSame)),
                     "conv3d: padding='same' is not supported for strided convolutions");
  EXPECT_THROWS_WITH(F::conv_transpose3d(x, randn({3, 2, 2, 2, 2})),
                     "conv_transpose3d: Given transposed=1, weight of size [3, 2, 2, 2, 2], expected input[1, 2, 3, 4, "
                     "4] to have 3 channels, but got 2 channels instead");
  EXPECT_THROWS_WITH(F::conv_transpose3d(x, randn({2, 2, 2, 2, 2}), F::ConvTranspose3dFuncOptions().output_padding(1)),
                     "conv_transpose3d: output padding must be smaller than either stride or dilation");
  EXPECT_THROWS_WITH(F::conv_transpose3d(randn({1, 2, 1, 1, 1}), randn({2, 1, 1, 1, 1}),
                                         F::ConvTranspose3dFuncOptions().padding({1, 0, 0})),
                     "conv_transpose3d: the output");
  EXPECT_THROWS_WITH(F::conv_transpose1d(randn({1, 2, 3, 3}), randn({2, 1, 2})),
                     "conv_transpose1d: Expected 2D (unbatched) or 3D (batched) input to conv_transpose1d");
  EXPECT_THROWS_WITH(
      F::conv_transpose1d(randn({1, 2, 3}), randn({2, 1, 2}), F::ConvTranspose1dFuncOptions().padding(2)),
      "conv_transpose1d: the output size");
  EXPECT_THROWS_WITH(nn::Conv3d(nn::Conv3dOptions(3, 4, 2).groups(2)),
                     "Conv3d: in_channels must be divisible by groups");
  EXPECT_THROWS_WITH(nn::ConvTranspose3d(nn::ConvTranspose3dOptions(4, 4, {2, 0, 2})),
                     "ConvTranspose3d: kernel_size must be positive");
  EXPECT_THROWS_WITH(nn::ConvTranspose1d(nn::ConvTranspose1dOptions(4, 4, 2).padding_mode(kCircular)),
                     "ConvTranspose1d: Only `zeros` padding mode is supported for ConvTranspose1d");
  EXPECT_THROWS_WITH(nn::BatchNorm3d(2)(randn({2, 2, 3, 3})), "BatchNorm3d: expected 5D input (got 4D input");
  EXPECT_THROWS_WITH(nn::InstanceNorm1d(2)(randn({2, 2, 3, 3})),
                     "InstanceNorm1d: expected 2D or 3D input (got 4D input of shape [2, 2, 3, 3])");
  EXPECT_THROWS_WITH(nn::InstanceNorm3d(2)(randn({2, 3, 3})), "InstanceNorm3d: expected 4D or 5D input (got 3D input");
  EXPECT_THROWS_WITH(F::max_pool3d(randn({2, 3, 4}), F::MaxPool3dFuncOptions(2)),
                     "max_pool3d: expected a 4-d (C, D, H, W) or 5-d (N, C, D, H, W) input, but got shape [2, 3, 4]");
  EXPECT_THROWS_WITH(F::max_pool3d(randn({1, 2, 1, 4, 4}), F::MaxPool3dFuncOptions(2)),
                     "max_pool3d: input of shape [1, 2, 1, 4, 4] is too small: the output would have [0, 2, 2]");
  EXPECT_THROWS_WITH(
      F::max_pool3d(randn({1, 2, 4, 4, 4}), F::MaxPool3dFuncOptions(2).padding({0, 2, 0})),
      "max_pool3d: pad should be non-negative and at most half of kernel size, but got padding=[0, 2, 0]");
  EXPECT_THROWS_WITH(F::avg_pool3d(randn({1, 2, 4, 4, 4}), F::AvgPool3dFuncOptions({2, 0, 2})),
                     "avg_pool3d: kernel size should be greater than zero, but got kernel_size=[2, 0, 2]");
  EXPECT_THROWS_WITH(F::avg_pool3d(randn({1, 2, 4, 4, 4}), F::AvgPool3dFuncOptions(2).divisor_override(0)),
                     "avg_pool3d: divisor must be not zero");
  EXPECT_THROWS_WITH(F::adaptive_avg_pool3d(randn({2, 4, 4}), F::AdaptiveAvgPool3dFuncOptions(2)),
                     "adaptive_avg_pool3d: expected a 4-d (C, D, H, W) or 5-d (N, C, D, H, W) input");
  EXPECT_THROWS_WITH(F::adaptive_max_pool1d(randn({2, 3, 4, 4}), F::AdaptiveMaxPool1dFuncOptions(2)),
                     "adaptive_max_pool1d: expected a 2-d (C, L) or 3-d (N, C, L) input, but got shape [2, 3, 4, 4]");
  EXPECT_THROWS_WITH(F::lp_pool2d(randn({1, 2, 1, 4}), F::LPPool2dFuncOptions(2, 2)), "lp_pool2d: input of shape");
  Tensor v = randn({1, 2, 2, 2});
  Tensor i = zeros({1, 2, 2, 2}, dtype(kInt64));
  EXPECT_THROWS_WITH(F::max_unpool2d(v, i, F::MaxUnpool2dFuncOptions(2).output_size(std::vector<int64_t>{7, 4})),
                     "max_unpool2d: invalid output_size [7, 4] (dim 0 must be between 2 and 6)");
  EXPECT_THROWS_WITH(F::max_unpool2d(v, i, F::MaxUnpool2dFuncOptions(2).output_size(std::vector<int64_t>{4})),
                     "max_unpool2d: output_size should be a sequence containing 2 or 4 elements");
  EXPECT_THROWS_WITH(F::max_unpool2d(v, i.fill_(16), F::MaxUnpool2dFuncOptions(2)),
                     "max_unpool2d: Found an invalid max index: 16 (output volumes are of size 4x4)");
  EXPECT_THROWS_WITH(F::max_unpool3d(randn({2, 2, 2}), zeros({2, 2, 2}, dtype(kInt64)), F::MaxUnpool3dFuncOptions(2)),
                     "max_unpool3d: expected a 4-d (C, *spatial) or 5-d (N, C, *spatial) input, but got shape");
  EXPECT_THROWS_WITH(F::max_unpool1d(randn({2, 3}), zeros({2, 2}, dtype(kInt64)), F::MaxUnpool1dFuncOptions(2)),
                     "max_unpool1d: expected int64 indices of the input's shape [2, 3]");
  EXPECT_THROWS_WITH(F::fractional_max_pool2d(randn({1, 2, 4, 4}), F::FractionalMaxPool2dFuncOptions(2)),
                     "fractional_max_pool2d requires specifying either an output_size or an output_ratio");
  EXPECT_THROWS_WITH(F::fractional_max_pool2d(randn({1, 2, 4, 4}),
                                              F::FractionalMaxPool2dFuncOptions(3).output_size(ExpandingArray<2>(3))),
                     "fractional_max_pool2d: pool size [3, 3] too large relative to input size [4, 4] for output size "
                     "[3, 3]");
  EXPECT_THROWS_WITH(
      F::fractional_max_pool3d(
          randn({1, 2, 4, 4, 4}),
          F::FractionalMaxPool3dFuncOptions(2).output_size(ExpandingArray<3>(2))._random_samples(rand({1, 2, 2}))),
      "fractional_max_pool3d: expect _random_samples to be of shape [1, 2, 3], but got [1, 2, 2]");
  EXPECT_THROWS_WITH(
      nn::FractionalMaxPool2d(nn::FractionalMaxPool2dOptions(2).output_ratio(ExpandingArray<2, double>(1.5))),
      "FractionalMaxPool2d: output_ratio must be between 0 and 1 (got 1.5, 1.5)");
  EXPECT_THROWS_WITH(nn::FractionalMaxPool3d(nn::FractionalMaxPool3dOptions(2)),
                     "FractionalMaxPool3d requires specifying either an output size, or a pooling ratio");
  EXPECT_THROWS_WITH(F::local_response_norm(randn({2, 3}), F::LocalResponseNormFuncOptions(2)),
                     "local_response_norm: Expected 3D or higher dimensionality input (got 2 dimensions");
  EXPECT_THROWS_WITH(F::local_response_norm(randn({2, 3, 2}), F::LocalResponseNormFuncOptions(0)),
                     "local_response_norm: size must be positive");
}

}  // namespace
