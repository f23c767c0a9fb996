// Convolution (nn/conv.h, autograd/conv.h) against PyTorch 1.13: forward values and the gradients of
// input, weight and bias for conv1d / conv2d / conv_transpose2d / unfold / fold (stride 2, dilation 2,
// groups 2, "same" with an even kernel, "valid", unbatched, batch 1, float64), for layers with
// padding_mode reflect / replicate / circular and ConvTranspose's output_size; gradcheck and
// gradgradcheck in float64; the layers' initial draws, options and printouts; and bad input.
//
// Fixtures come from scripts/gen_conv_fixtures.py (tests/fixtures/nn/conv.json); each table line is
// the C++ twin of one `case(...)` there. The harness makes every input require grad, compares the
// output, then backpropagates (out * w).sum() and compares each gradient.
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
using Case = std::function<Tensor(const Inputs&)>;

Tensor bias_of(const Inputs& in) { return in.count("b") ? in.at("b") : Tensor(); }

// The layer with the case's w and b in place of its drawn weight and bias (functional_call in the
// generator), so that their gradients are the case's.
template <typename Layer>
Layer with_params(Layer layer, const Inputs& in) {
  layer->weight = in.at("w");
  layer->bias = bias_of(in);
  return layer;
}

// Each line mirrors the case of the same name in gen_conv_fixtures.py.
const std::map<std::string, Case>& cases() {
  static const std::map<std::string, Case> table = {
      {"conv2d_basic",
       [](const Inputs& in) { return F::conv2d(in.at("x"), in.at("w"), F::Conv2dFuncOptions().bias(bias_of(in))); }},
      {"conv2d_stride2_pad1",
       [](const Inputs& in) {
         return F::conv2d(in.at("x"), in.at("w"), F::Conv2dFuncOptions().bias(bias_of(in)).stride(2).padding(1));
       }},
      {"conv2d_dilation2",
       [](const Inputs& in) {
         return F::conv2d(in.at("x"), in.at("w"), F::Conv2dFuncOptions().bias(bias_of(in)).padding({2, 1}).dilation(2));
       }},
      {"conv2d_groups2",
       [](const Inputs& in) {
         return F::conv2d(in.at("x"), in.at("w"), F::Conv2dFuncOptions().bias(bias_of(in)).groups(2));
       }},
      {"conv2d_same_even_kernel",
       [](const Inputs& in) {
         return F::conv2d(in.at("x"), in.at("w"),
                          F::Conv2dFuncOptions().bias(bias_of(in)).padding(kSame).dilation({1, 2}));
       }},
      {"conv2d_valid_no_bias",
       [](const Inputs& in) { return F::conv2d(in.at("x"), in.at("w"), F::Conv2dFuncOptions().padding("valid")); }},
      {"conv2d_unbatched",
       [](const Inputs& in) {
         return F::conv2d(in.at("x"), in.at("w"), F::Conv2dFuncOptions().bias(bias_of(in)).stride({2, 1}));
       }},
      {"conv2d_f64_everything",
       [](const Inputs& in) {
         return conv2d(in.at("x"), in.at("w"), in.at("b"), {2, 1}, {1, 2}, {2, 1}, 2);  // ember::conv2d, as at::
       }},
      {"conv1d_basic",
       [](const Inputs& in) {
         return F::conv1d(in.at("x"), in.at("w"), F::Conv1dFuncOptions().bias(bias_of(in)).stride(2).padding(1));
       }},
      {"conv1d_same_dilation_groups",
       [](const Inputs& in) {
         return F::conv1d(in.at("x"), in.at("w"),
                          F::Conv1dFuncOptions().bias(bias_of(in)).padding(kSame).dilation(2).groups(2));
       }},
      {"conv_transpose2d_basic",
       [](const Inputs& in) {
         return F::conv_transpose2d(
             in.at("x"), in.at("w"),
             F::ConvTranspose2dFuncOptions().bias(bias_of(in)).stride(2).padding(1).output_padding(1));
       }},
      {"conv_transpose2d_groups_dilation",
       [](const Inputs& in) {
         return F::conv_transpose2d(
             in.at("x"), in.at("w"),
             F::ConvTranspose2dFuncOptions().bias(bias_of(in)).stride({1, 2}).groups(2).dilation(2));
       }},
      {"conv_transpose2d_f64_no_bias",
       [](const Inputs& in) {
         return F::conv_transpose2d(in.at("x"), in.at("w"), F::ConvTranspose2dFuncOptions().stride(2).padding({0, 1}));
       }},
      {"conv2d_reflect",
       [](const Inputs& in) {
         return with_params(nn::Conv2d(nn::Conv2dOptions(3, 4, 3).padding({1, 2}).padding_mode(kReflect)), in)(
             in.at("x"));
       }},
      {"conv2d_replicate_same_even_kernel",
       [](const Inputs& in) {
         return with_params(nn::Conv2d(nn::Conv2dOptions(2, 3, {4, 3}).padding(kSame).dilation({1, 2}).padding_mode(
                                kReplicate)),
                            in)(in.at("x"));
       }},
      {"conv2d_circular_stride2",
       [](const Inputs& in) {
         return with_params(
             nn::Conv2d(nn::Conv2dOptions(2, 3, 3).stride(2).padding({2, 1}).padding_mode(kCircular)), in)(in.at("x"));
       }},
      {"conv1d_reflect_unbatched",
       [](const Inputs& in) {
         return with_params(nn::Conv1d(nn::Conv1dOptions(3, 4, 3).padding(2).padding_mode(kReflect)), in)(in.at("x"));
       }},
      {"conv1d_circular_f64_dilation",
       [](const Inputs& in) {
         return with_params(nn::Conv1d(nn::Conv1dOptions(2, 3, 3).padding(1).dilation(2).padding_mode(kCircular)),
                            in)(in.at("x"));
       }},
      {"conv3d_replicate_no_bias",
       [](const Inputs& in) {
         return with_params(nn::Conv3d(nn::Conv3dOptions(2, 2, 3).padding(1).bias(false).padding_mode(kReplicate)),
                            in)(in.at("x"));
       }},
      {"conv_transpose2d_output_size",
       [](const Inputs& in) {
         auto layer = with_params(nn::ConvTranspose2d(nn::ConvTranspose2dOptions(3, 2, 3).stride(2).padding(1)), in);
         return layer->forward(in.at("x"), std::vector<int64_t>{8, 8});
       }},
      {"conv_transpose1d_output_size_with_batch_and_channels",
       [](const Inputs& in) {
         auto layer = with_params(nn::ConvTranspose1d(nn::ConvTranspose1dOptions(2, 3, 4).stride(3).dilation(2)), in);
         return layer->forward(in.at("x"), std::vector<int64_t>{1, 3, 20});
       }},
      {"conv_transpose3d_output_size_unbatched",
       [](const Inputs& in) {
         auto layer = with_params(nn::ConvTranspose3d(nn::ConvTranspose3dOptions(2, 1, 2).stride(2)), in);
         return layer->forward(in.at("x"), std::vector<int64_t>{7, 6, 5});
       }},
      {"unfold",
       [](const Inputs& in) {
         return F::unfold(in.at("x"), F::UnfoldFuncOptions({2, 3}).dilation({1, 2}).padding(1).stride({2, 1}));
       }},
      {"fold",
       [](const Inputs& in) {
         return F::fold(in.at("c"), F::FoldFuncOptions({5, 6}, {2, 3}).dilation({1, 2}).padding(1).stride({2, 1}));
       }},
  };
  return table;
}

const nlohmann::json& fixture() { return ember::test::cached_fixture("nn/conv.json"); }

class ConvReference : public ::testing::TestWithParam<std::string> {};

TEST_P(ConvReference, ForwardAndEveryGradientMatchPyTorch) {
  // Every input of a conv case has a stored gradient, so every input requires grad.
  check_fixture_case(fixture().at(GetParam()), RequireGrad::kFloatingWithStoredGrad, cases().at(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(Fixture, ConvReference, ::testing::ValuesIn(case_names(cases())),
                         [](const auto& info) { return info.param; });

TEST(Conv, EveryFixtureCaseHasATableLine) {
  for (const auto& [name, value] : fixture().items())
    if (!name.starts_with("init_")) EXPECT_TRUE(cases().count(name)) << name;
}

// ---- gradient check: central differences in float64 ----

TEST(Conv, GradientsMatchFiniteDifferences) {
  const std::vector<GradCase> table = {
      {"conv2d_stride2_dilation2_groups2",
       [](const tensor_list& x) {
         return F::conv2d(x[0], x[1], F::Conv2dFuncOptions().bias(x[2]).stride(2).padding(1).dilation(2).groups(2));
       },
       {wave64({1, 4, 6, 5}), wave64({2, 2, 2, 3}, 1.0), wave64({2}, 2.0)}},
      {"conv2d_same_transposed_input",
       [](const tensor_list& x) {
         return F::conv2d(x[0].transpose(2, 3), x[1], F::Conv2dFuncOptions().padding(kSame));
       },
       {wave64({2, 2, 4, 3}), wave64({3, 2, 2, 3}, 1.0)}},
      {"conv1d_stride2",
       [](const tensor_list& x) { return F::conv1d(x[0], x[1], F::Conv1dFuncOptions().bias(x[2]).stride(2)); },
       {wave64({2, 3, 7}), wave64({2, 3, 3}, 1.0), wave64({2}, 2.0)}},
      {"conv_transpose2d_groups_output_padding",
       [](const tensor_list& x) {
         return F::conv_transpose2d(x[0], x[1],
                                    F::ConvTranspose2dFuncOptions().bias(x[2]).stride(2).output_padding(1).groups(2));
       },
       {wave64({1, 4, 3, 2}), wave64({4, 1, 3, 2}, 1.0), wave64({2}, 2.0)}},
      {"unfold_fold",
       [](const tensor_list& x) {
         Tensor cols = F::unfold(x[0], F::UnfoldFuncOptions(2).padding(1).stride({1, 2}));
         return F::fold(cols * cols, F::FoldFuncOptions({3, 4}, 2).padding(1).stride({1, 2}));
       },
       {wave64({1, 2, 3, 4})}},
      {"conv2d_layer_circular_padding",
       [](const tensor_list& x) {
         nn::Conv2d conv(nn::Conv2dOptions(2, 2, {2, 3}).padding({1, 2}).padding_mode(kCircular));
         conv->weight = x[1];
         conv->bias = x[2];
         return conv(x[0]);
       },
       {wave64({1, 2, 3, 4}), wave64({2, 2, 2, 3}, 1.0), wave64({2}, 2.0)}},
  };
  check_grad_cases(table);
}

// ---- layers ----

TEST(ConvModules, InitialParametersMatchPyTorchDraws) {
  auto expect_init = [](const char* name, const Tensor& weight, const Tensor& bias) {
    SCOPED_TRACE(name);
    const nlohmann::json& c = fixture().at(name);
    EXPECT_TENSOR_CLOSE(weight, tensor_from_json(c.at("weight")), 1e-6, 1e-7);
    EXPECT_TENSOR_CLOSE(bias, tensor_from_json(c.at("bias")), 1e-6, 1e-7);
  };
  manual_seed(0);
  nn::Conv2d conv2(3, 4, 3);
  expect_init("init_conv2d", conv2->weight, conv2->bias);
  manual_seed(0);
  nn::Conv1d conv1(2, 3, 5);
  expect_init("init_conv1d", conv1->weight, conv1->bias);
  manual_seed(0);
  nn::ConvTranspose2d deconv(nn::ConvTranspose2dOptions(4, 6, {2, 3}).groups(2));
  expect_init("init_conv_transpose2d", deconv->weight, deconv->bias);
}

TEST(ConvModules, ForwardShapesAndParameters) {
  nn::Conv2d conv(nn::Conv2dOptions(1, 32, 3).bias(false));
  EXPECT_EQ(conv(randn({2, 1, 28, 28})).sizes(), IntArrayRef({2, 32, 26, 26}));
  EXPECT_FALSE(conv->bias.defined());
  EXPECT_EQ(conv->parameters().size(), 1u);
  nn::Conv2d same(nn::Conv2dOptions(4, 6, {4, 3}).padding(kSame).groups(2));
  EXPECT_EQ(same(randn({1, 4, 7, 5})).sizes(), IntArrayRef({1, 6, 7, 5}));
  EXPECT_EQ(same->weight.sizes(), IntArrayRef({6, 2, 4, 3}));
  nn::Conv1d conv1(nn::Conv1dOptions(3, 5, 3).stride(2).padding(1));
  EXPECT_EQ(conv1(randn({3, 10})).sizes(), IntArrayRef({5, 5}));  // unbatched
  nn::ConvTranspose2d up(nn::ConvTranspose2dOptions(8, 4, 4).stride(2).padding(1));
  EXPECT_EQ(up(randn({2, 8, 7, 7})).sizes(), IntArrayRef({2, 4, 14, 14}));
  EXPECT_EQ(up->weight.sizes(), IntArrayRef({8, 4, 4, 4}));
  // clone keeps the type, the options and the values
  auto copy = std::dynamic_pointer_cast<nn::Conv2dImpl>(same->clone());
  ASSERT_TRUE(copy);
  EXPECT_TENSOR_CLOSE(copy->weight, same->weight, 0, 0);
  EXPECT_EQ(copy->options.groups(), 2);
}

TEST(ConvModules, PrintoutsAreLibtorchs) {
  auto printed = [](const auto& module) {
    std::ostringstream s;
    s << module;
    return s.str();
  };
  EXPECT_EQ(printed(nn::Conv2d(1, 32, 3)), "Conv2d(1, 32, kernel_size=[3, 3], stride=[1, 1])");
  EXPECT_EQ(printed(nn::Conv2d(nn::Conv2dOptions(4, 8, {3, 5}).stride(2).padding(1).dilation(2).groups(4).bias(false))),
            "Conv2d(4, 8, kernel_size=[3, 5], stride=[2, 2], padding=[1, 1], dilation=[2, 2], groups=4, bias=false)");
  EXPECT_EQ(printed(nn::Conv2d(nn::Conv2dOptions(2, 2, 3).padding(kSame))),
            "Conv2d(2, 2, kernel_size=[3, 3], stride=[1, 1], padding='same')");
  EXPECT_EQ(printed(nn::Conv1d(nn::Conv1dOptions(2, 3, 5).padding(kValid))),
            "Conv1d(2, 3, kernel_size=5, stride=1, padding='valid')");
  EXPECT_EQ(printed(nn::ConvTranspose2d(nn::ConvTranspose2dOptions(4, 6, 2).stride(2).output_padding(1).groups(2))),
            "ConvTranspose2d(4, 6, kernel_size=[2, 2], stride=[2, 2], output_padding=[1, 1], groups=2)");
  EXPECT_EQ(printed(nn::Conv2d(nn::Conv2dOptions(2, 3, 3).padding(1).padding_mode(kReflect))),
            "Conv2d(2, 3, kernel_size=[3, 3], stride=[1, 1], padding=[1, 1], padding_mode=kReflect)");
  EXPECT_EQ(printed(nn::Conv1d(nn::Conv1dOptions(2, 3, 3).padding_mode(kCircular).bias(false))),
            "Conv1d(2, 3, kernel_size=3, stride=1, bias=false, padding_mode=kCircular)");
}

// ConvTranspose's output_size is a declared default argument: Sequential and AnyModule call forward(x).
TEST(ConvModules, ConvTransposeOutputSizeDefaultsThroughSequential) {
  manual_seed(0);
  nn::ConvTranspose2d up(nn::ConvTranspose2dOptions(3, 2, 3).stride(2).padding(1));
  nn::Sequential seq(up);
  const Tensor x = randn({1, 3, 4, 4});
  EXPECT_EQ(seq->forward(x).sizes(), IntArrayRef({1, 2, 7, 7}));
  nn::AnyModule any(up);
  EXPECT_EQ(any.forward(x, std::optional<IntArrayRef>(std::vector<int64_t>{8, 8})).sizes(), IntArrayRef({1, 2, 8, 8}));
  // The larger size is the smaller one's output with one more row and column: output_padding 1.
  EXPECT_TENSOR_CLOSE(up->forward(x, std::vector<int64_t>{8, 8}).narrow(2, 0, 7).narrow(3, 0, 7), up(x), 1e-6, 1e-6);
}

// ---- bad input: a clear error naming the op and the shapes ----

TEST(Conv, BadInputIsAClearError) {
  Tensor x = randn({2, 3, 5, 5}), w = randn({4, 3, 3, 3});
  EXPECT_THROWS_WITH(F::conv2d(randn({3, 5}), w),
                     "conv2d: Expected 3D (unbatched) or 4D (batched) input to conv2d, "
                     "but got input of size: [3, 5]");
  EXPECT_THROWS_WITH(F::conv2d(x, randn({4, 3, 3})), "conv2d: expected a 4-D weight");
  EXPECT_THROWS_WITH(F::conv2d(x, randn({4, 2, 3, 3})),
                     "conv2d: Given groups=1, weight of size [4, 2, 3, 3], expected input[2, 3, 5, 5] to have 2 "
                     "channels, but got 3 channels instead");
  EXPECT_THROWS_WITH(F::conv2d(randn({2, 4, 5, 5}), randn({3, 2, 3, 3}), F::Conv2dFuncOptions().groups(2)),
                     "conv2d: Given groups=2, expected weight to be divisible by 2 at dimension 0");
  EXPECT_THROWS_WITH(F::conv2d(x, w, F::Conv2dFuncOptions().groups(0)), "conv2d: non-positive groups");
  EXPECT_THROWS_WITH(F::conv2d(x, w, F::Conv2dFuncOptions().stride(0)), "conv2d: non-positive stride");
  EXPECT_THROWS_WITH(F::conv2d(x, w, F::Conv2dFuncOptions().dilation({1, 0})), "conv2d: dilation should be greater");
  EXPECT_THROWS_WITH(F::conv2d(randn({1, 3, 2, 6}), w),
                     "conv2d: Calculated padded input size per channel: (2 x 6). Kernel size: (3 x 3). Kernel size "
                     "can't be greater than actual input size");
  EXPECT_THROWS_WITH(F::conv2d(x, w, F::Conv2dFuncOptions().bias(randn({3}))),
                     "conv2d: Given weight of size [4, 3, 3, 3], expected bias to be 1-dimensional with 4 elements");
  EXPECT_THROWS_WITH(F::conv2d(x.to(kFloat64), w), "conv2d: expected input, weight and bias of one dtype");
  EXPECT_THROWS_WITH(F::conv2d(x.to(kInt64), w.to(kInt64)), "conv2d: expected a floating-point input");
  EXPECT_THROWS_WITH(F::conv2d(x, w, F::Conv2dFuncOptions().stride(2).padding(kSame)),
                     "conv2d: padding='same' is not supported for strided convolutions");
  EXPECT_THROWS_WITH(F::conv2d(x, w, F::Conv2dFuncOptions().padding("full")), "Invalid padding string 'full'");
  EXPECT_THROWS_WITH(conv2d(x, w, {}, {1, 1, 1}),
                     "conv2d: expected stride to be a single integer value or a list of 2");
  EXPECT_THROWS_WITH(F::conv1d(randn({2, 3, 4, 4}), randn({4, 3, 3})),
                     "conv1d: Expected 2D (unbatched) or 3D (batched) input to conv1d");
  EXPECT_THROWS_WITH(F::conv_transpose2d(x, randn({4, 2, 3, 3})),
                     "conv_transpose2d: Given transposed=1, weight of size [4, 2, 3, 3], expected input[2, 3, 5, 5] "
                     "to have 4 channels, but got 3 channels instead");
  EXPECT_THROWS_WITH(F::conv_transpose2d(x, randn({3, 2, 3, 3}), F::ConvTranspose2dFuncOptions().output_padding(1)),
                     "conv_transpose2d: output padding must be smaller than either stride or dilation");
  EXPECT_THROWS_WITH(F::unfold(randn({3, 5, 5}), F::UnfoldFuncOptions(2)),
                     "unfold: Input Error: Only 4D input Tensors are supported (got 3D");
  EXPECT_THROWS_WITH(F::unfold(randn({1, 1, 2, 2}), F::UnfoldFuncOptions(3)),
                     "calculated shape of the array of sliding blocks as (0, 0)");
  EXPECT_THROWS_WITH(F::fold(randn({1, 8, 5}), F::FoldFuncOptions({3, 3}, 2)),
                     "fold: Given output_size=(3, 3), kernel_size=(2, 2), dilation=(1, 1), padding=(0, 0), "
                     "stride=(1, 1), expected size of input's dimension 2 to match the calculated number of sliding "
                     "blocks 2 * 2 = 4, but got input.size(2)=5");
  EXPECT_THROWS_WITH(F::fold(randn({1, 7, 4}), F::FoldFuncOptions({3, 3}, 2)),
                     "fold: Expected size of input's dimension 1 to be divisible by the product of kernel_size");
  EXPECT_THROWS_WITH(nn::Conv2d(nn::Conv2dOptions(3, 4, 3).groups(2)),
                     "Conv2d: in_channels must be divisible by groups");
  EXPECT_THROWS_WITH(nn::Conv2d(nn::Conv2dOptions(4, 3, 3).groups(2)),
                     "Conv2d: out_channels must be divisible by groups");
  // padding_mode: F::pad's own limits, named by pad; ConvTranspose takes only zeros.
  EXPECT_THROWS_WITH(nn::Conv2d(nn::Conv2dOptions(1, 1, 3).padding(3).padding_mode(kReflect))(randn({1, 1, 3, 3})),
                     "reflect");
  EXPECT_THROWS_WITH(nn::ConvTranspose2d(nn::ConvTranspose2dOptions(4, 4, 3).padding_mode(kReflect)),
                     "ConvTranspose2d: Only `zeros` padding mode is supported for ConvTranspose2d (got "
                     "padding_mode=kReflect)");
  // output_size: PyTorch's range and count checks.
  nn::ConvTranspose2d up(nn::ConvTranspose2dOptions(3, 2, 3).stride(2).padding(1));
  EXPECT_THROWS_WITH(up->forward(randn({2, 3, 4, 4}), std::vector<int64_t>{9, 8}),
                     "ConvTranspose2d: requested an output size of [9, 8], but valid sizes range from [7, 7] to "
                     "[8, 8] (for an input of [4, 4])");
  EXPECT_THROWS_WITH(up->forward(randn({2, 3, 4, 4}), std::vector<int64_t>{6, 7}), "valid sizes range from [7, 7]");
  EXPECT_THROWS_WITH(up->forward(randn({2, 3, 4, 4}), std::vector<int64_t>{2, 8, 8}),
                     "ConvTranspose2d: for 4-d input, output_size must have 2 or 4 elements (got 3)");
  EXPECT_THROWS_WITH(up->forward(randn({3, 4, 4}), std::vector<int64_t>{2, 2, 8, 8}),
                     "ConvTranspose2d: for 3-d input, output_size must have 2 or 3 elements (got 4)");
  EXPECT_THROWS_WITH(up->forward(randn({4, 4}), std::vector<int64_t>{8, 8}),
                     "ConvTranspose2d: expected a 3-d (unbatched) or 4-d (batched) input, got input of shape [4, 4]");
  EXPECT_THROWS_WITH(nn::Conv2d(nn::Conv2dOptions(4, 4, 3).stride(2).padding(kSame)),
                     "Conv2d: padding='same' is not supported for strided convolutions");
  EXPECT_THROWS_WITH(nn::Conv2d(nn::Conv2dOptions(4, 4, 0)), "Conv2d: kernel_size must be positive");
}

}  // namespace
