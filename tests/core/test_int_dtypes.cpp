// The narrow integer dtypes uint8, int8, int16 and int32 (issue 33) against PyTorch 1.13
// (scripts/gen_int_dtype_fixtures.py): the promotion table over every pair of dtypes, wrap-around
// arithmetic, conversions from float, comparisons, reductions, sort and scans, indexing, the uint8
// image pipeline; data_ptr, from_blob, printing, safetensors, and what is refused (CUDA, gradients).
#include <cstdint>
#include <functional>
#include <map>
#include <sstream>
#include <vector>

#include <gtest/gtest.h>

#include "tests/fixture_cases.h"
#include "tests/fixture_json.h"
#include "tests/test_util.h"

namespace ember::test {
namespace {

Tensor u8() { return tensor({{0, 7, 200, 255}, {13, 128, 99, 1}}).to(kUInt8); }
Tensor i8() { return tensor({{-128, -3, 0, 127}, {5, -77, 64, 1}}).to(kInt8); }
Tensor i32() {
  return tensor({{int64_t{2147483647}, int64_t{-5}, int64_t{12}, int64_t{0}},
                 {int64_t{-2147483648}, int64_t{40000}, int64_t{-7}, int64_t{3}}})
      .to(kInt32);
}
Tensor floats() { return tensor({{300.7f, -1.5f, 255.0f, 0.2f}, {-129.9f, 1e3f, 7.9f, -0.0f}}); }

// Mirrors CASES in gen_int_dtype_fixtures.py.
const std::map<std::string, std::function<Tensor()>>& cases() {
  static const std::map<std::string, std::function<Tensor()>> table = {
      {"u8_add_wraps", [] { return u8() + u8(); }},
      {"u8_sub_wraps", [] { return u8() - scalar_tensor(100, dtype(kUInt8)); }},
      {"u8_mul_scalar", [] { return u8() * 3; }},
      {"u8_neg", [] { return -u8(); }},
      {"u8_plus_i8", [] { return u8() + i8(); }},
      {"u8_times_float", [] { return u8() * 0.5; }},
      {"u8_div_255", [] { return u8().to(kFloat32).div(255); }},
      {"u8_true_div", [] { return u8() / 4; }},
      {"u8_lt", [] { return u8() < 100; }},
      {"u8_eq_i8", [] { return u8() == i8().to(kUInt8); }},
      {"u8_sum", [] { return u8().sum(); }},
      {"u8_sum_dim", [] { return u8().sum({1}); }},
      {"u8_max", [] { return u8().max(); }},
      {"u8_argmax", [] { return u8().argmax(1); }},
      {"u8_amin", [] { return u8().amin({0}); }},
      {"u8_sort", [] { return std::get<0>(u8().sort(1)); }},
      {"u8_cumsum", [] { return u8().cumsum(1); }},
      {"u8_flip", [] { return u8().flip({1}); }},
      {"u8_index_select", [] { return u8().index_select(1, tensor({3, 0})); }},
      {"u8_masked", [] { return u8().index({u8() > 50}); }},
      {"u8_where", [] { return where(u8() > 50, u8(), zeros_like(u8())); }},
      {"u8_clamp", [] { return u8().clamp(10, 150); }},
      {"i8_abs", [] { return i8().abs(); }},
      {"i8_mul_wraps", [] { return i8() * 2; }},
      {"i8_minimum", [] { return i8().minimum(scalar_tensor(2, dtype(kInt8))); }},
      {"i8_remainder", [] { return i8() % 5; }},
      {"i8_max_dim", [] { return std::get<0>(i8().max(0)); }},
      {"i8_to_float", [] { return i8().to(kFloat32); }},
      {"i32_add_wraps", [] { return i32() + i32(); }},
      {"i32_sum", [] { return i32().sum({1}); }},
      {"i32_to_int64", [] { return i32().to(kInt64); }},
      {"i32_topk", [] { return std::get<0>(i32().topk(2, 1)); }},
      {"float_to_u8", [] { return floats().to(kUInt8); }},
      {"float_to_i8", [] { return floats().to(kInt8); }},
      {"float_to_i16", [] { return floats().to(kInt16); }},
      {"float_to_i32", [] { return floats().to(kInt32); }},
      {"int64_to_u8", [] { return tensor({-1, 256, 511, 1000}).to(kUInt8); }},
      {"int64_to_i8", [] { return tensor({-129, 128, 255, 1000}).to(kInt8); }},
      {"bool_to_u8", [] { return tensor({true, false}).to(kUInt8); }},
      {"u8_to_bool", [] { return u8().to(kBool); }},
  };
  return table;
}

TEST(IntDtypes, PromotionTableIsPyTorchs) {
  const nlohmann::json& fixture = cached_fixture("core/int_dtypes.json");
  int checked = 0;
  for (const auto& [key, c] : fixture.items()) {
    if (key.rfind("promote/", 0) != 0) continue;
    const size_t slash = key.find('/', 8);
    const ScalarType a = dtype_from_name(key.substr(8, slash - 8)), b = dtype_from_name(key.substr(slash + 1));
    const ScalarType want = dtype_from_name(c.at("dtype").get<std::string>());
    EXPECT_EQ(promote_types(a, b), want) << key;
    // The same through an op on two 1-D tensors (bool + bool is an error in PyTorch: take maximum).
    EXPECT_EQ(maximum(ones({2}, dtype(a)), ones({2}, dtype(b))).dtype(), want) << key;
    ++checked;
  }
  EXPECT_EQ(checked, 100);  // every pair of the ten dtypes
}

TEST(IntDtypes, OpsMatchPyTorch) {
  const nlohmann::json& fixture = cached_fixture("core/int_dtypes.json");
  int checked = 0;
  for (const auto& [key, c] : fixture.items()) {
    if (key.rfind("op/", 0) != 0) continue;
    SCOPED_TRACE(key);
    Tensor out = cases().at(key.substr(3))();
    Tensor expected = tensor_from_json(c.at("output"));
    EXPECT_EQ(out.dtype(), expected.dtype());
    EXPECT_TENSOR_CLOSE(out.to(kFloat64), expected.to(kFloat64), 1e-6, 1e-6);
    ++checked;
  }
  EXPECT_EQ(checked, static_cast<int>(cases().size()));
}

TEST(IntDtypes, ImagesArriveAsUint8) {
  // A libtorch image pipeline: bytes from a decoder wrapped with from_blob, then scaled to float.
  std::vector<uint8_t> pixels = {0, 51, 102, 255, 17, 34};
  Tensor image = from_blob(pixels.data(), {1, 2, 3}, dtype(kUInt8));
  EXPECT_EQ(image.dtype(), kUInt8);
  EXPECT_EQ(image.element_size(), 1u);
  EXPECT_EQ(image.data_ptr<uint8_t>()[3], 255);
  EXPECT_EQ(image.data_ptr(), static_cast<void*>(pixels.data()));  // libtorch's untyped data_ptr()
  Tensor x = image.to(kFloat32).div(255);
  EXPECT_TENSOR_CLOSE(x.flatten(), tensor({0.0f, 0.2f, 0.4f, 1.0f, 17.0f / 255, 34.0f / 255}));
  // And back: a float image to bytes, as programs save them.
  Tensor back = x.mul(255).add(0.5).to(kUInt8);  // rounded: the conversion truncates
  EXPECT_EQ(back.to_vector<uint8_t>(), pixels);
  EXPECT_EQ(image.index({0, 1, 2}).item<int64_t>(), 34);
  EXPECT_EQ(image.sum().item<int64_t>(), 459);
  EXPECT_THROWS_WITH(image.data_ptr<float>(), "data_ptr: tensor has dtype uint8 but float32 was requested");
}

TEST(IntDtypes, FromVectorKeepsTheType) {
  Tensor t = from_vector(std::vector<int32_t>{7, -2, 100000}, {3});
  EXPECT_EQ(t.dtype(), kInt32);
  EXPECT_EQ(t.to_vector<int32_t>(), (std::vector<int32_t>{7, -2, 100000}));
  EXPECT_EQ(from_vector(std::vector<uint8_t>{1, 250}, {2}).max().item<int64_t>(), 250);
  EXPECT_EQ(from_vector(std::vector<int16_t>{-300}, {1}, dtype(kInt8)).item<int64_t>(), -44);  // wrapped
}

TEST(IntDtypes, PrintingAndNames) {
  std::ostringstream os;
  os << tensor({1, 2}).to(kUInt8);
  EXPECT_EQ(os.str(), "tensor([1, 2], dtype=torch.uint8)");
  EXPECT_EQ(scalar_type_name(kInt32), "Int");
  EXPECT_EQ(scalar_type_name(kByte), "Byte");
  EXPECT_EQ(scalar_type_name(kChar), "Char");
  EXPECT_EQ(scalar_type_name(kShort), "Short");
  EXPECT_EQ(tensor({1}).to(kInt16).toString(), "CPUShortType");
  EXPECT_EQ(element_size(kInt16), 2u);
  EXPECT_TRUE(is_integral(kInt8));
  EXPECT_FALSE(is_floating_point(kUInt8));
}

TEST(IntDtypes, RandomFillsStayInRange) {
  manual_seed(1);
  Tensor r = empty({1000}, dtype(kUInt8));
  r.random_();
  EXPECT_LE(r.max().item<int64_t>(), 255);
  EXPECT_GT(r.max().item<int64_t>(), 200);
  Tensor s = randint(-5, 5, {100}, dtype(kInt8));
  EXPECT_GE(s.min().item<int64_t>(), -5);
  EXPECT_LT(s.max().item<int64_t>(), 5);
}

TEST(IntDtypes, RefusedWhereNotSupported) {
  Tensor x = ones({2}, dtype(kUInt8));
  EXPECT_THROWS_WITH(x.requires_grad_(), "only Tensors of floating point");
  EXPECT_THROWS_WITH(x.mean(), "mean: could not infer output dtype");
  EXPECT_THROWS_WITH(x.matmul(x), "not implemented for 'Byte'");
  if (cuda::is_available()) {  // on CUDA as on the CPU (tests/cuda/test_cuda_dtypes.cpp)
    EXPECT_THROWS_WITH(x.to(kCUDA).matmul(x.to(kCUDA)), "matmul");
  }
}

}  // namespace
}  // namespace ember::test
