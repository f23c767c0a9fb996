// The float16 dtype (torch::kHalf, issue 33) against PyTorch (scripts/gen_half_fixtures.py): the
// rounding of float32 into float16 as bits, ops computed in float32 and rounded once, promotion with
// the other dtypes (the walk over every pair is in test_int_dtypes.cpp), printing, names,
// safetensors F16, random fills, gradients, and what is refused.
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <sstream>
#include <vector>

#include <gtest/gtest.h>

#include "nn/serialize.h"
#include "tests/fixture_cases.h"
#include "tests/fixture_json.h"
#include "tests/test_util.h"

namespace ember::test {
namespace {

// float32 values rounded to half, as the generator's torch.tensor(...).to(float16).
Tensor X() { return tensor({{1.5f, 2.25f, -3.0f, 0.1f}, {65504.0f, -0.5f, 7.75f, 1e-3f}}).to(kFloat16); }
Tensor Y() { return tensor({{0.5f, 1.0f, 2.0f, -0.2f}, {2.0f, 3.0f, -1.25f, 1e-3f}}).to(kFloat16); }
Tensor A() { return tensor({{0.5f, -1.25f, 2.0f}, {3.0f, 0.75f, -0.5f}}).to(kFloat16); }
Tensor B() { return tensor({{1.0f, 2.0f}, {-0.5f, 0.25f}, {4.0f, -3.0f}}).to(kFloat16); }

std::vector<uint16_t> bits_of(const Tensor& h) {
  std::vector<uint16_t> bits;
  for (Half v : h.contiguous().to_vector<Half>()) bits.push_back(v.bits);
  return bits;
}

// Mirrors CASES in gen_half_fixtures.py.
const std::map<std::string, std::function<Tensor()>>& cases() {
  static const std::map<std::string, std::function<Tensor()>> table = {
      {"add", [] { return X() + Y(); }},
      {"mul_overflows", [] { return X() * Y(); }},
      {"div", [] { return X() / Y(); }},
      {"sub_scalar", [] { return X() - 1.5; }},
      {"mul_double_scalar", [] { return X() * 2.5; }},
      {"neg", [] { return -X(); }},
      {"exp", [] { return Y().exp(); }},
      {"tanh", [] { return X().tanh(); }},
      {"sigmoid", [] { return X().sigmoid(); }},
      {"sqrt", [] { return X().abs().sqrt(); }},
      {"pow", [] { return Y().pow(2); }},
      {"relu", [] { return X().relu(); }},
      {"clamp", [] { return X().clamp(-1, 2); }},
      {"sum", [] { return X().sum(); }},
      {"sum_dim", [] { return Y().sum({1}); }},
      {"mean", [] { return Y().mean(); }},
      {"max_dim", [] { return std::get<0>(X().max(1)); }},
      {"argmax", [] { return X().argmax(1); }},
      {"softmax", [] { return Y().softmax(1); }},
      {"log_softmax", [] { return Y().log_softmax(1); }},
      {"matmul", [] { return A().matmul(B()); }},
      {"lt", [] { return X() < Y(); }},
      {"eq_scalar", [] { return X() == 1.5; }},
      {"sort", [] { return std::get<0>(Y().sort(1)); }},
      {"cumsum", [] { return Y().cumsum(1); }},
      {"where", [] { return where(X() > 0, X(), Y()); }},
      {"plus_float32", [] { return X() + ones({2, 4}); }},
      {"plus_bfloat16", [] { return X() + ones({2, 4}, dtype(kBFloat16)); }},
      {"plus_int64", [] { return X() + arange(4); }},
      {"int_times_half", [] { return arange(4) * scalar_tensor(0.1, dtype(kFloat16)); }},
      {"to_float32", [] { return X().to(kFloat32); }},
      {"to_uint8", [] { return Y().abs().mul(10).to(kUInt8); }},
      {"from_float64", [] { return tensor({0.1, 1e-8, 70000.0, -3.5}).to(kFloat16); }},
      {"layer_norm", [] { return nn::functional::layer_norm(Y(), {4}); }},
  };
  return table;
}

TEST(Half, FromFloat32RoundsAsPyTorch) {
  const nlohmann::json& fixture = cached_fixture("core/half.json");
  Tensor input = tensor_from_json(fixture.at("convert/input").at("output"));
  Tensor want = tensor_from_json(fixture.at("convert/bits").at("output"));  // int16 views of the halves
  std::vector<uint16_t> got = bits_of(input.to(kFloat16));
  std::vector<int64_t> expected = want.to_vector<int64_t>();
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_EQ(got[i], static_cast<uint16_t>(expected[i])) << "value " << input.to_vector<float>()[i];
}

TEST(Half, EveryHalfWidensExactlyAndRoundsBackToItself) {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const Half h = Half::from_bits(static_cast<uint16_t>(b));
    const float f = h;
    if (std::isnan(f)) {
      EXPECT_EQ((b & 0x7C00u), 0x7C00u) << b;
      EXPECT_EQ(Half(f).bits & 0x7FFFu, 0x7E00u) << b;  // the quiet NaN, sign kept
      continue;
    }
    ASSERT_EQ(Half(f).bits, b) << "bits " << b << " widen to " << f;
  }
  EXPECT_EQ(static_cast<float>(Half::from_bits(0x0001)), std::ldexp(1.0f, -24));
  EXPECT_EQ(static_cast<float>(Half::from_bits(0x7BFF)), 65504.0f);
  EXPECT_EQ(Half(1e-8).bits, 0u);  // from double through float, as c10::Half(double)
}

TEST(Half, OpsMatchPyTorch) {
  const nlohmann::json& fixture = cached_fixture("core/half.json");
  int checked = 0;
  for (const auto& [key, c] : fixture.items()) {
    if (key.rfind("op/", 0) != 0) continue;
    SCOPED_TRACE(key);
    Tensor out = cases().at(key.substr(3))();
    Tensor expected = tensor_from_json(c.at("output"));
    EXPECT_EQ(out.dtype(), expected.dtype());
    // PyTorch computes each op in float32 and rounds once, as Ember: the halves are equal.
    EXPECT_TENSOR_CLOSE(out.to(kFloat64), expected.to(kFloat64), 0, 0);
    ++checked;
  }
  EXPECT_EQ(checked, static_cast<int>(cases().size())) << "regenerate the fixture with PyTorch >= 2.1";
}

TEST(Half, GradientsFlowInHalf) {
  Tensor x = X().requires_grad_();
  Tensor y = Y();
  (x * y).sum().backward();
  ASSERT_TRUE(x.grad().defined());
  EXPECT_EQ(x.grad().dtype(), kFloat16);
  EXPECT_EQ(bits_of(x.grad()), bits_of(y));
  // Through a conversion: the float32 gradient comes back rounded to half.
  Tensor w = X().requires_grad_();
  (w.to(kFloat32) * 3.0f).sum().backward();
  EXPECT_EQ(w.grad().dtype(), kFloat16);
  EXPECT_TENSOR_CLOSE(w.grad().to(kFloat32), full({2, 4}, 3.0f), 0, 0);
}

TEST(Half, NamesPrintingAndStorage) {
  EXPECT_EQ(kHalf, kFloat16);
  EXPECT_EQ(dtype_name(kFloat16), "float16");
  EXPECT_EQ(scalar_type_name(kHalf), "Half");
  EXPECT_EQ(element_size(kHalf), 2u);
  EXPECT_TRUE(is_floating_point(kHalf));
  EXPECT_TRUE(is_reduced_floating_point(kHalf));
  EXPECT_EQ(ones({1}, dtype(kHalf)).toString(), "CPUHalfType");
  std::ostringstream os;
  os << tensor({1.5f, -2.25f, 0.1f}).to(kHalf);
  EXPECT_EQ(os.str(), "tensor([ 1.5000, -2.2500,  0.1000], dtype=torch.float16)");
  Tensor h = full({3}, 0.1, dtype(kHalf));
  EXPECT_EQ(h.data_ptr<Half>()[2].bits, 0x2E66u);  // 0.0999755859375
  EXPECT_DOUBLE_EQ(h.index({1}).item<double>(), 0.0999755859375);
  std::vector<Half> raw = {Half(1.0f), Half(-2.0f)};
  Tensor blob = from_blob(raw.data(), {2}, dtype(kHalf));
  EXPECT_EQ(blob.to(kFloat32).to_vector<float>(), (std::vector<float>{1.0f, -2.0f}));
  EXPECT_THROWS_WITH(h.data_ptr<BFloat16>(), "data_ptr: tensor has dtype float16 but bfloat16 was requested");
}

TEST(Half, SafetensorsSavesAndLoadsF16) {
  Tensor h = X();
  std::stringstream file;
  save_safetensors(file, {{"w", h}});
  const std::string bytes = file.str();
  EXPECT_NE(bytes.find("\"dtype\":\"F16\""), std::string::npos);
  // 1.5 is 0x3E00, stored little-endian first.
  EXPECT_EQ(bytes.substr(bytes.size() - 16, 2), std::string("\x00\x3E", 2));
  SafetensorsFile loaded = load_safetensors(file);
  const Tensor& w = loaded.at("w");
  EXPECT_EQ(w.dtype(), kFloat16);
  EXPECT_EQ(w.sizes(), h.sizes());
  EXPECT_EQ(bits_of(w), bits_of(h));
}

TEST(Half, SeededDrawsAreTorchs) {
  const nlohmann::json& fixture = cached_fixture("core/half.json");
  manual_seed(0);
  EXPECT_TENSOR_CLOSE(empty({6}, dtype(kHalf)).uniform_().to(kFloat64),
                      tensor_from_json(fixture.at("random/uniform").at("output")).to(kFloat64), 0, 0);
  manual_seed(0);
  EXPECT_TENSOR_CLOSE(empty({32}, dtype(kHalf)).normal_().to(kFloat64),
                      tensor_from_json(fixture.at("random/normal").at("output")).to(kFloat64), 0, 0);
}

TEST(Half, RandomFills) {
  manual_seed(3);
  Tensor u = empty({2000}, dtype(kHalf)).uniform_();
  EXPECT_GE(u.min().item<double>(), 0.0);
  EXPECT_LE(u.max().item<double>(), 1.0);
  EXPECT_NEAR(u.to(kFloat32).mean().item<double>(), 0.5, 0.03);
  Tensor r = empty({2000}, dtype(kHalf)).random_();  // integers up to 2^11, all exact in half
  EXPECT_LE(r.max().item<double>(), 2048.0);
  EXPECT_EQ(r.to(kFloat32).floor().equal(r.to(kFloat32)), true);
  Tensor n = randn({4000}, dtype(kHalf));
  EXPECT_NEAR(n.to(kFloat32).std().item<double>(), 1.0, 0.05);
}

TEST(Half, RefusedWhereNotSupported) {
  Tensor h = ones({2, 3}, dtype(kHalf));
  EXPECT_THROWS_WITH(nextafter(h, h), "nextafter: float16 is not supported yet");
  if (cuda::is_available()) {  // float16 CUDA tensors: tests/cuda/test_cuda_dtypes.cpp
    EXPECT_THROWS_WITH(nextafter(h.to(kCUDA), h.to(kCUDA)), "nextafter: float16 is not supported yet");
  }
}

}  // namespace
}  // namespace ember::test
