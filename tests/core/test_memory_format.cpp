// Memory formats and Tensor::to's flags (autograd/shape.cpp, core/factory.cpp) against PyTorch 1.13:
// contiguous(ChannelsLast), to(..., non_blocking, copy, memory_format), Preserve's strides, the
// creation functions' memory_format option, is_contiguous / suggest_memory_format, layout; values and
// gradients through the copies; the emulated CUDA copies; and bad input.
//
// Fixtures come from scripts/gen_memory_format_fixtures.py (tests/fixtures/core/memory_format.json): for
// each expression, the result's shape, strides, whether it is the input itself, and is_contiguous.
#include <functional>
#include <map>

#include "autograd/gradcheck.h"
#include "tests/fixture_cases.h"
#include "tests/fixture_json.h"
#include "tests/test_util.h"

namespace ember::test {
namespace {

Tensor nchw() { return arange(120, kFloat32).reshape({2, 3, 4, 5}); }
Tensor cl() { return nchw().contiguous(MemoryFormat::ChannelsLast); }

struct Case {
  std::function<Tensor()> make;
  std::function<Tensor(const Tensor&)> apply;
};

// Each line mirrors the case of the same name in gen_memory_format_fixtures.py.
const std::map<std::string, Case>& cases() {
  using MF = MemoryFormat;
  static const std::map<std::string, Case> table = {
      {"contiguous_channels_last", {nchw, [](const Tensor& x) { return x.contiguous(MF::ChannelsLast); }}},
      {"contiguous_already_channels_last", {cl, [](const Tensor& x) { return x.contiguous(MF::ChannelsLast); }}},
      {"contiguous_of_channels_last", {cl, [](const Tensor& x) { return x.contiguous(); }}},
      {"to_channels_last", {nchw, [](const Tensor& x) { return x.to(x.options().memory_format(MF::ChannelsLast)); }}},
      {"to_dtype_preserves_channels_last", {cl, [](const Tensor& x) { return x.to(kFloat64); }}},
      {"to_dtype_contiguous_format", {cl, [](const Tensor& x) { return x.to(kFloat64, false, false, MF::Contiguous); }}},
      {"to_same_format_aliases", {cl, [](const Tensor& x) { return x.to(kFloat32, false, false, MF::ChannelsLast); }}},
      {"to_other_format_copies", {cl, [](const Tensor& x) { return x.to(TensorOptions(), false, false, MF::Contiguous); }}},
      {"to_copy_preserves_strides", {cl, [](const Tensor& x) { return x.to(kFloat32, false, /*copy=*/true); }}},
      {"to_non_blocking_aliases", {nchw, [](const Tensor& x) { return x.to(kFloat32, /*non_blocking=*/true); }}},
      {"to_non_blocking_and_copy", {nchw, [](const Tensor& x) { return x.to(kFloat32, true, true); }}},
      {"to_dense_permuted_keeps_strides",
       {[] { return nchw().permute({0, 2, 3, 1}); }, [](const Tensor& x) { return x.to(kFloat64); }}},
      {"to_sliced_transposed_dense_in_order",
       {[] { return arange(24, kFloat32).reshape({4, 6}).t().slice(0, 0, 6, 2); },
        [](const Tensor& x) { return x.to(kFloat64); }}},
      {"to_other_tensor", {nchw, [](const Tensor& x) { return x.to(zeros({1}, kFloat64)); }}},
      {"channels_last_size_one_dims",
       {[] { return arange(6, kFloat32).reshape({2, 3, 1, 1}); },
        [](const Tensor& x) { return x.contiguous(MF::ChannelsLast); }}},
      {"channels_last_all_ones",
       {[] { return ones({1, 1, 1, 1}); }, [](const Tensor& x) { return x.contiguous(MF::ChannelsLast); }}},
      {"channels_last_3d",
       {[] { return arange(720, kFloat32).reshape({2, 3, 4, 5, 6}); },
        [](const Tensor& x) { return x.contiguous(MF::ChannelsLast3d); }}},
      {"empty_channels_last",
       {[] { return empty({2, 3, 4, 5}, memory_format(MF::ChannelsLast)); }, [](const Tensor& x) { return x; }}},
      {"empty_channels_last_zero_size",
       {[] { return empty({2, 3, 0, 5}, memory_format(MF::ChannelsLast)); }, [](const Tensor& x) { return x; }}},
      {"zeros_channels_last",
       {[] { return zeros({2, 3, 4, 5}, memory_format(MF::ChannelsLast)); }, [](const Tensor& x) { return x; }}},
  };
  return table;
}

const nlohmann::json& fixture() { return cached_fixture("core/memory_format.json"); }

class MemoryFormatReference : public ::testing::TestWithParam<std::string> {};

TEST_P(MemoryFormatReference, StridesAliasingAndValuesMatchPyTorch) {
  const nlohmann::json& expected = fixture().at(GetParam());
  const Case& c = cases().at(GetParam());
  const Tensor x = c.make();
  const Tensor y = c.apply(x);
  EXPECT_EQ(y.sizes().vec(), expected.at("shape").get<std::vector<int64_t>>());
  EXPECT_EQ(y.strides().vec(), expected.at("strides").get<std::vector<int64_t>>());
  EXPECT_EQ(y.is_same(x), expected.at("is_input").get<bool>());
  EXPECT_EQ(y.is_contiguous(), expected.at("is_contiguous").get<bool>());
  EXPECT_EQ(y.is_contiguous(MemoryFormat::ChannelsLast), expected.at("channels_last").get<bool>());
  EXPECT_EQ(std::string(dtype_name(y.dtype())), expected.at("dtype").get<std::string>());
  if (!GetParam().starts_with("empty")) {
    EXPECT_TRUE(y.to(kFloat64).equal(x.to(kFloat64)));  // the input's values, in another layout
  }
}

INSTANTIATE_TEST_SUITE_P(Fixture, MemoryFormatReference, ::testing::ValuesIn(case_names(cases())),
                         [](const auto& info) { return info.param; });

TEST(MemoryFormat, EveryFixtureCaseHasATableLine) {
  for (const auto& [name, value] : fixture().items()) EXPECT_TRUE(cases().count(name)) << name;
}

// c10's rules, by hand: strides growing in channels-last order suggest ChannelsLast; the ambiguous
// cases (N111, a zero channel stride) stay Contiguous.
TEST(MemoryFormat, SuggestedFormatFollowsTheStrides) {
  EXPECT_EQ(nchw().suggest_memory_format(), MemoryFormat::Contiguous);
  EXPECT_EQ(cl().suggest_memory_format(), MemoryFormat::ChannelsLast);
  EXPECT_EQ(nchw().permute({0, 2, 3, 1}).suggest_memory_format(), MemoryFormat::Contiguous);
  // A channels-last tensor sliced along N: still ordered as channels-last, not exactly its strides;
  // sliced along W, its H stride falls below W's extent and the order is lost.
  const Tensor sliced = cl().as_strided({1, 3, 4, 5}, {120, 1, 15, 3});
  EXPECT_EQ(cl().slice(3, 0, 5, 2).suggest_memory_format(), MemoryFormat::Contiguous);
  EXPECT_EQ(sliced.suggest_memory_format(), MemoryFormat::ChannelsLast);
  EXPECT_EQ(sliced.suggest_memory_format(/*channels_last_strides_exact_match=*/true), MemoryFormat::Contiguous);
  EXPECT_EQ(ones({3, 1, 1, 1}).suggest_memory_format(), MemoryFormat::Contiguous);
  EXPECT_EQ(ones({2, 3, 4, 5}).expand({2, 3, 4, 5}).suggest_memory_format(), MemoryFormat::Contiguous);
  EXPECT_EQ(ones({1, 3, 1, 1}).expand({2, 3, 4, 5}).suggest_memory_format(), MemoryFormat::Contiguous);
  EXPECT_EQ(arange(720, kFloat32).reshape({2, 3, 4, 5, 6}).contiguous(MemoryFormat::ChannelsLast3d).suggest_memory_format(),
            MemoryFormat::ChannelsLast3d);
  EXPECT_EQ(ones({4, 5}).suggest_memory_format(), MemoryFormat::Contiguous);
  EXPECT_TRUE(nchw().permute({3, 1, 0, 2}).is_non_overlapping_and_dense());
  EXPECT_FALSE(nchw().slice(3, 0, 5, 2).is_non_overlapping_and_dense());
  EXPECT_FALSE(ones({1, 3}).expand({4, 3}).is_non_overlapping_and_dense());
  EXPECT_TRUE(ones({4, 1}).expand({4, 1}).is_non_overlapping_and_dense());
  EXPECT_EQ(ones({4, 5}).layout(), kStrided);
  EXPECT_FALSE(ones({4, 5}).is_sparse());
}

TEST(MemoryFormat, PrintsAsLibtorch) {
  std::ostringstream out;
  out << MemoryFormat::Contiguous << " " << MemoryFormat::Preserve << " " << MemoryFormat::ChannelsLast << " "
      << MemoryFormat::ChannelsLast3d << " " << kStrided;
  EXPECT_EQ(out.str(), "Contiguous Preserve ChannelsLast ChannelsLast3d Strided");
}

// The copies are differentiable: the gradient comes back in the input's layout and values.
TEST(MemoryFormat, GradientsFlowThroughTheCopies) {
  const Tensor x = wave64({2, 3, 2, 3}).requires_grad_(true);
  EXPECT_TRUE(autograd::gradcheck(
      [](const tensor_list& in) { return in[0].contiguous(MemoryFormat::ChannelsLast) * in[0].sin(); }, {x}));
  EXPECT_TRUE(autograd::gradcheck(
      [](const tensor_list& in) {
        return in[0].to(kFloat64, false, true, MemoryFormat::ChannelsLast).permute({0, 2, 3, 1}).cumsum(3);
      },
      {x}));
  const Tensor y = x.to(kFloat32, false, false, MemoryFormat::ChannelsLast);
  (y * y).sum().backward();
  EXPECT_TENSOR_CLOSE(x.grad(), 2 * x.detach(), 1e-6, 1e-6);
}

// Ops read a channels-last input as its values: a convolution gives the row-major input's result.
TEST(MemoryFormat, OpsReadChannelsLastInputsByValue) {
  manual_seed(0);
  const Tensor x = randn({2, 3, 6, 5});
  const Tensor w = randn({4, 3, 3, 3});
  const Tensor expected = conv2d(x, w, {}, {1, 1}, {1, 1});
  EXPECT_TENSOR_CLOSE(conv2d(x.contiguous(MemoryFormat::ChannelsLast), w, {}, {1, 1}, {1, 1}), expected, 1e-5, 1e-5);
  EXPECT_TENSOR_CLOSE((x.contiguous(MemoryFormat::ChannelsLast) + 1).sum({0, 2}), (x + 1).sum({0, 2}), 1e-5, 1e-5);
}

TEST(MemoryFormat, CudaCopiesInEachFormat) {
  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const Tensor x = nchw();
  const Tensor g = x.to(kCUDA, false, false, MemoryFormat::ChannelsLast);
  EXPECT_EQ(g.strides().vec(), (std::vector<int64_t>{60, 1, 15, 3}));
  EXPECT_TRUE(g.cpu().equal(x));
  const Tensor back = g.to(kCPU);  // Preserve: still channels-last on the host
  EXPECT_EQ(back.strides().vec(), (std::vector<int64_t>{60, 1, 15, 3}));
  EXPECT_TRUE(back.equal(x));
  const Tensor dense = g.contiguous();
  EXPECT_TRUE(dense.is_contiguous());
  EXPECT_TRUE(dense.cpu().equal(x));
  EXPECT_TRUE(g.to(kFloat64).cpu().equal(x.to(kFloat64)));
}

TEST(MemoryFormat, BadFormatsAreClearErrors) {
  EXPECT_THROWS_WITH(ones({3, 4}).contiguous(MemoryFormat::ChannelsLast),
                     "contiguous: required rank 4 tensor to use channels_last format (got shape [3, 4])");
  EXPECT_THROWS_WITH(nchw().contiguous(MemoryFormat::ChannelsLast3d),
                     "contiguous: required rank 5 tensor to use channels_last_3d format (got shape [2, 3, 4, 5])");
  EXPECT_THROWS_WITH(ones({3, 4}).to(kFloat64, false, false, MemoryFormat::ChannelsLast),
                     "to: required rank 4 tensor to use channels_last format");
  EXPECT_THROWS_WITH(cl().contiguous(MemoryFormat::Preserve),
                     "contiguous: preserve memory format is unsupported by the contiguous operator");
  EXPECT_THROWS_WITH(empty({2, 3}, memory_format(MemoryFormat::Preserve)), "unsupported memory format Preserve");
  EXPECT_THROWS_WITH(zeros({2, 3}, memory_format(MemoryFormat::ChannelsLast)),
                     "required rank 4 tensor to use channels_last format");
  float data[4] = {1, 2, 3, 4};
  EXPECT_THROWS_WITH(from_blob(data, {1, 1, 2, 2}, memory_format(MemoryFormat::ChannelsLast)),
                     "from_blob: the data is read as row-major (Contiguous); a memory_format ChannelsLast would copy "
                     "it (shape [1, 1, 2, 2])");
  // A contiguous tensor is already in the Preserve sense: contiguous(Preserve) returns it, as libtorch.
  const Tensor x = nchw();
  EXPECT_TRUE(x.contiguous(MemoryFormat::Preserve).is_same(x));
}

}  // namespace
}  // namespace ember::test
