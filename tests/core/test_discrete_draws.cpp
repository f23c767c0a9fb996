// poisson, binomial (core/random_discrete.h) and histogramdd (autograd/histogramdd.h) against
// torch 1.13 (fixtures: scripts/gen_discrete_draw_fixtures.py, which holds the generating calls).
//
// Draws must equal libtorch's exactly, and so must the generator's next words after them (how many
// words a draw consumed). histogramdd's edges and counts must be exact, and
// density values to a few units in the last place (the total is a sum libtorch vectorises).
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "autograd/histogramdd.h"
#include "core/random_discrete.h"
#include "fixture_json.h"
#include "test_util.h"

namespace ember {
namespace {

using nlohmann::json;

// Exact equality of every element (NaN equal to NaN), printing the first difference.
::testing::AssertionResult same_values(const Tensor& actual, const json& expected, const std::string& where) {
  const Tensor want = test::tensor_from_json(expected);
  if (actual.sizes() != want.sizes() || actual.scalar_type() != want.scalar_type())
    return ::testing::AssertionFailure() << where << ": got " << shape_str(actual.sizes()) << " "
                                         << dtype_name(actual.scalar_type()) << ", want " << shape_str(want.sizes())
                                         << " " << dtype_name(want.scalar_type());
  const std::vector<double> a = actual.to(kCPU).to(kFloat64).contiguous().to_vector<double>();
  const std::vector<double> b = want.to(kFloat64).contiguous().to_vector<double>();
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i]))) continue;
    return ::testing::AssertionFailure() << where << ": element " << i << " is " << a[i] << ", torch gives " << b[i];
  }
  return ::testing::AssertionSuccess();
}

// torch.rand(3, generator=g, dtype=float64) after the draw: the stream went on where torch's did.
void expect_stream_continues(Generator& g, const json& after, const std::string& where) {
  const std::vector<double> next = rand({3}, g, TensorOptions().dtype(kFloat64)).to_vector<double>();
  EXPECT_EQ(next, after.get<std::vector<double>>()) << where << ": the generator consumed a different number of words";
}

std::string label(const json& c) {
  return c["name"].get<std::string>() + " seed " + std::to_string(c["seed"].get<uint64_t>()) + " " +
         c["dtype"].get<std::string>();
}

// for case in poisson: g = torch.Generator().manual_seed(seed); torch.poisson(rates, generator=g)
TEST(DiscreteDraws, PoissonMatchesTorch) {
  const json fixture = test::load_fixture("discrete_draws.json");
  for (const json& c : fixture["poisson"]) {
    Tensor rates = test::tensor_from_json(c["inputs"][0]);
    if (c["name"] == "transposed") rates = rates.t().contiguous().t();  // torch's input was a transposed view
    Generator g(c["seed"].get<uint64_t>());
    EXPECT_TRUE(same_values(poisson(rates, g), c["out"], label(c)));
    expect_stream_continues(g, c["after"], label(c));
  }
}

// for case in binomial: torch.binomial(count, prob, generator=g), count and prob broadcast
TEST(DiscreteDraws, BinomialMatchesTorch) {
  const json fixture = test::load_fixture("discrete_draws.json");
  for (const json& c : fixture["binomial"]) {
    const Tensor count = test::tensor_from_json(c["inputs"][0]), prob = test::tensor_from_json(c["inputs"][1]);
    Generator g(c["seed"].get<uint64_t>());
    EXPECT_TRUE(same_values(binomial(count, prob, g), c["out"], label(c)));
    expect_stream_continues(g, c["after"], label(c));
  }
}

TEST(DiscreteDraws, DefaultGeneratorIsTheSeededOne) {
  manual_seed(5);
  const Tensor a = poisson(full({6}, 12.5));
  Generator g(5);
  EXPECT_TRUE(equal(a, poisson(full({6}, 12.5), g)));
}

// torch.binomial(torch.tensor([5.]), torch.tensor([1.5])) == 5, [-0.5] -> 0, [nan] -> nan: no check.
TEST(DiscreteDraws, BinomialEdgeProbabilitiesAsLibtorch) {
  Generator g(1);
  const Tensor drawn = binomial(full({4}, 5.0), tensor({1.5, -0.5, std::nan(""), 0.0}), g);
  EXPECT_EQ(drawn[0].item<float>(), 5.0f);
  EXPECT_EQ(drawn[1].item<float>(), 0.0f);
  EXPECT_TRUE(std::isnan(drawn[2].item<float>()));
  EXPECT_EQ(drawn[3].item<float>(), 0.0f);
  EXPECT_EQ(binomial(full({2}, -3.0), full({2}, 0.5), g).sum().item<float>(), 0.0f);  // count <= 0
}

TEST(DiscreteDraws, DrawsCarryNoHistory) {
  const Tensor rates = full({3}, 2.0).requires_grad_();
  EXPECT_FALSE(poisson(rates).requires_grad());
  EXPECT_FALSE(binomial(full({3}, 4.0), rates.detach()).requires_grad());
}

TEST(DiscreteDraws, BadInputsThrowLibtorchsErrors) {
  EXPECT_THROWS_WITH(poisson(tensor({1.0, -1.0})), "invalid Poisson rate, expected rate to be non-negative");
  EXPECT_THROWS_WITH(poisson(tensor({std::nan("")})), "invalid Poisson rate");
  EXPECT_THROWS_WITH(poisson(ones({2}, TensorOptions().dtype(kFloat16))), "\"poisson_cpu\" not implemented for 'Half'");
  EXPECT_THROWS_WITH(poisson(ones({2}, TensorOptions().dtype(kInt64))), "\"poisson_cpu\" not implemented for 'Long'");
  EXPECT_THROWS_WITH(binomial(ones({2}), full({3}, 0.5)),
                     "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0");
  EXPECT_THROWS_WITH(binomial(ones({2}), full({2}, 0.5, TensorOptions().dtype(kFloat64))),
                     "binomial: Found dtype Double but expected Float");
  EXPECT_THROWS_WITH(
      binomial(ones({2}, TensorOptions().dtype(kBFloat16)), full({2}, 0.5, TensorOptions().dtype(kBFloat16))),
      "\"binomial_cpu\" not implemented for 'BFloat16'");
}

TEST(DiscreteDraws, PoissonDrawsBFloat16AsLibtorch) {
  // torch.poisson(torch.tensor([3., 30.]).bfloat16(), generator=g) draws the float32 numbers, rounded
  Generator a(4), b(4);
  const Tensor wide = poisson(tensor({3.0f, 30.0f}), a);
  const Tensor narrow = poisson(tensor({3.0f, 30.0f}).to(kBFloat16), b);
  EXPECT_EQ(narrow.scalar_type(), kBFloat16);
  EXPECT_TRUE(equal(narrow.to(kFloat32), wide));
}

TEST(DiscreteDraws, CudaTensorsDrawTheHostNumbers) {
  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  Generator a(9), b(9);
  const Tensor rates = tensor({0.5, 4.0, 40.0});
  const Tensor on_device = poisson(rates.to(Device(kCUDA)), a);
  EXPECT_TRUE(on_device.is_cuda());
  EXPECT_TRUE(equal(on_device.to(kCPU), poisson(rates, b)));
  const Tensor k = binomial(full({3}, 30.0).to(Device(kCUDA)), full({3}, 0.4).to(Device(kCUDA)), a);
  EXPECT_TRUE(k.is_cuda());
  EXPECT_TRUE(equal(k.to(kCPU), binomial(full({3}, 30.0), full({3}, 0.4), b)));
}

// ---- histogramdd ----

// torch.histogramdd(input, bins=..., range=..., weight=..., density=...) for each fixture case.
TEST(Histogramdd, MatchesTorch) {
  const json fixture = test::load_fixture("discrete_draws.json");
  for (const json& c : fixture["histogramdd"]) {
    const std::string name = c["name"];
    const Tensor x = test::tensor_from_json(c["input"]);
    std::optional<Tensor> weight;
    if (!c["weight"].is_null()) weight = test::tensor_from_json(c["weight"]);
    std::vector<double> range_values;
    std::optional<ArrayRef<double>> range;
    if (!c["range"].is_null())
      range_values = c["range"].get<std::vector<double>>(), range = ArrayRef<double>(range_values);
    const bool density = c["density"];
    std::tuple<Tensor, std::vector<Tensor>> result;
    const json& bins = c["bins"];
    if (bins.contains("int")) {
      result = histogramdd(x, bins["int"].get<int64_t>(), range, weight, density);
    } else if (bins.contains("ints")) {
      const std::vector<int64_t> counts = bins["ints"];
      result = histogramdd(x, IntArrayRef(counts), range, weight, density);
    } else {
      const tensor_list edges = test::tensors_from_json(bins["tensors"]);
      result = histogramdd(x, ArrayRef<Tensor>(edges), range, weight, density);
    }
    const auto& [hist, edges] = result;
    if (density) {
      // The total is one float sum, and libtorch's vectorised sum may round its last bit differently.
      const double rtol = hist.scalar_type() == kFloat32 ? 1e-6 : 1e-15;
      EXPECT_TENSOR_CLOSE(hist, test::tensor_from_json(c["hist"]), rtol, 0.0) << name;
    } else {
      EXPECT_TRUE(same_values(hist, c["hist"], name + " hist"));
    }
    ASSERT_EQ(edges.size(), c["edges"].size()) << name;
    for (size_t d = 0; d < edges.size(); ++d)
      EXPECT_TRUE(same_values(edges[d], c["edges"][d], name + " edges " + std::to_string(d)));
  }
}

TEST(Histogramdd, ResultsRefuseBackwardAsLibtorch) {
  const Tensor x = rand({10, 2}).requires_grad_();
  const auto [hist_of_counts, edges] = histogramdd(x, 3);
  const Tensor hist = hist_of_counts;  // a variable, not a binding: the check's lambda captures it
  ASSERT_TRUE(hist.requires_grad());
  EXPECT_TRUE(edges[0].requires_grad());
  EXPECT_THROWS_WITH(hist.sum().backward(), "derivative for aten::_histogramdd_from_bin_cts is not implemented");
  const Tensor b = tensor({0.0f, 0.5f, 1.0f}).requires_grad_();
  const auto [hist_of_edges, edges2] = histogramdd(x.detach(), ArrayRef<Tensor>(tensor_list{b, b}));
  const Tensor hist2 = hist_of_edges;
  EXPECT_TRUE(hist2.requires_grad());
  EXPECT_TRUE(edges2[0].is_same(b));
  EXPECT_THROWS_WITH(hist2.sum().backward(), "derivative for aten::_histogramdd_from_bin_tensors is not implemented");
  EXPECT_FALSE(std::get<0>(histogramdd(x.detach(), 3)).requires_grad());
}

TEST(Histogramdd, BadInputsThrowLibtorchsErrors) {
  const Tensor x = rand({4, 2});
  const Tensor edges = tensor({0.0f, 1.0f});
  EXPECT_THROWS_WITH(histogramdd(tensor({1.0f, 2.0f}), 2), "input tensor should have at least 2 dimensions");
  EXPECT_THROWS_WITH(histogramdd(tensor(1.0f), 2), "Dimension specified as -1 but tensor has no dimensions");
  EXPECT_THROWS_WITH(histogramdd(x, std::vector<int64_t>{0, 2}),
                     "torch.histogram(): bins must be > 0, but got 0 for dimension 0");
  EXPECT_THROWS_WITH(histogramdd(x, -1), "bins tensor should have at least 1 element, but got 0 elements");
  EXPECT_THROWS_WITH(histogramdd(x, ArrayRef<Tensor>(tensor_list{edges})),
                     "torch.histogramdd: expected 2 sequences of bin edges for a 2-dimensional histogram but got 1");
  EXPECT_THROWS_WITH(
      histogramdd(x, ArrayRef<Tensor>(tensor_list{edges.to(kFloat64), edges})),
      "should have the same dtype, but got input with dtype float and bins for dimension 0 with dtype double");
  EXPECT_THROWS_WITH(histogramdd(x, ArrayRef<Tensor>(tensor_list{edges.reshape({1, 2}), edges})),
                     "bins tensor should have one dimension, but got 2 dimensions in the bins tensor for dimension 0");
  const std::vector<double> short_range{0, 1};
  EXPECT_THROWS_WITH(histogramdd(x, 2, ArrayRef<double>(short_range)),
                     "for a 2-dimensional histogram range should have 4 elements, but got 2");
  const std::vector<double> inverted{1, 0, 0, 1};
  EXPECT_THROWS_WITH(histogramdd(x, 2, ArrayRef<double>(inverted)),
                     "torch.histogramdd: min should not exceed max, but got min 1 max 0 for dimension 0");
  const std::vector<double> infinite{0, std::numeric_limits<double>::infinity(), 0, 1};
  EXPECT_THROWS_WITH(histogramdd(x, 2, ArrayRef<double>(infinite)), "dimension 0's range [0, inf] is not finite");
  EXPECT_THROWS_WITH(histogramdd(tensor({{std::nanf(""), 1.0f}}), 2), "dimension 0's range [nan, nan] is not finite");
  EXPECT_THROWS_WITH(histogramdd(ones({2, 2}, TensorOptions().dtype(kInt64)), 2),
                     "\"histogramdd\" not implemented for 'Long'");
  EXPECT_THROWS_WITH(
      histogramdd(x, 2, std::nullopt, ones({4}, TensorOptions().dtype(kFloat64))),
      "input tensor and weight tensor should have the same dtype, but got input(float), and weight(double)");
  EXPECT_THROWS_WITH(histogramdd(x, 2, std::nullopt, ones({3})),
                     "but got input with shape [4, 2] and weight with shape [3]");
}

TEST(Histogramdd, CudaInputGivesCudaResults) {
  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const Tensor x = rand({20, 3});
  auto [host_hist, host_edges] = histogramdd(x, 4);
  auto [hist, edges] = histogramdd(x.to(Device(kCUDA)), 4);
  EXPECT_TRUE(hist.is_cuda() && edges[2].is_cuda());
  EXPECT_TRUE(equal(hist.to(kCPU), host_hist));
  EXPECT_TRUE(equal(edges[2].to(kCPU), host_edges[2]));
}

}  // namespace
}  // namespace ember
