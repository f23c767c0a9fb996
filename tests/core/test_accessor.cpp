// Tensor::accessor and the packed accessors (core/tensor_accessor.h): element access through a[i][j]
// on contiguous and strided tensors, writes, and the checks made when an accessor is made.
#include <cstdint>
#include <limits>

#include <ember/ember.h>
#include <gtest/gtest.h>

#include "test_util.h"

namespace ember {
namespace {

TEST(TensorAccessor, ReadsAndWritesThroughStrides) {
  Tensor t = arange(12, kFloat).reshape({3, 4});
  auto a = t.accessor<float, 2>();
  EXPECT_EQ(a.size(0), 3);
  EXPECT_EQ(a.size(1), 4);
  EXPECT_EQ(a.stride(0), 4);
  EXPECT_EQ(a[2][1], 9.0f);
  a[1][3] = -5.0f;
  EXPECT_EQ(t[1][3].item<float>(), -5.0f);

  // A transposed view: a[i][j] follows the view's strides, not the storage's order.
  Tensor v = t.t();
  auto b = v.accessor<float, 2>();
  EXPECT_EQ(b.size(0), 4);
  EXPECT_EQ(b.stride(0), 1);
  EXPECT_EQ(b[3][1], -5.0f);
  EXPECT_EQ(b[0][2], 8.0f);
  EXPECT_EQ(b.sizes(), (std::vector<int64_t>{4, 3}));

  // A sliced view starts at its storage offset.
  Tensor s = t.slice(1, 1, 4, 2);  // columns 1 and 3
  auto c = s.accessor<float, 2>();
  EXPECT_EQ(c[2][0], 9.0f);
  EXPECT_EQ(c[2][1], 11.0f);
}

TEST(TensorAccessor, SumsLikeAUserLoop) {
  Tensor t = arange(24, kDouble).reshape({2, 3, 4});
  auto a = t.accessor<double, 3>();
  double total = 0;
  for (int64_t i = 0; i < a.size(0); ++i)
    for (int64_t j = 0; j < a.size(1); ++j)
      for (int64_t k = 0; k < a.size(2); ++k) total += a[i][j][k];
  EXPECT_EQ(total, 276.0);  // 0 + 1 + ... + 23
  const Tensor& ct = t;
  auto r = ct.accessor<const double, 3>();
  EXPECT_EQ(r[1][2][3], 23.0);
}

TEST(TensorAccessor, IntegerAndByteTensors) {
  Tensor t = tensor({{1, 2}, {3, 4}}).to(kByte);
  auto a = t.accessor<uint8_t, 2>();
  a[0][1] = 255;
  EXPECT_EQ(t[0][1].item<int64_t>(), 255);
  Tensor i = zeros({5}, kInt);
  auto b = i.accessor<int32_t, 1>();
  for (int32_t k = 0; k < 5; ++k) b[k] = k * k;
  EXPECT_EQ(i.sum().item<int64_t>(), 30);
}

TEST(TensorAccessor, PackedAccessorsCopyTheShape) {
  Tensor t = arange(6, kFloat).reshape({2, 3});
  PackedTensorAccessor32<float, 2> p = t.packed_accessor32<float, 2>();
  PackedTensorAccessor64<float, 2> q = t.packed_accessor64<float, 2>();
  EXPECT_EQ(p.size(1), 3);
  EXPECT_EQ(p[1][2], 5.0f);
  q[0][0] = 7.0f;
  EXPECT_EQ(t[0][0].item<float>(), 7.0f);
  // The copy stays valid after the tensor's shape object goes away.
  auto r = [] {
    Tensor u = full({4}, 2.5, kFloat);
    return u.packed_accessor64<float, 1>().size(0);
  }();
  EXPECT_EQ(r, 4);
}

TEST(TensorAccessor, BadRequestsAreRefusedWithTheReason) {
  Tensor t = zeros({2, 3});
  EXPECT_THROWS_WITH((void)(t.accessor<float, 3>()), "accessor: TensorAccessor expected 3 dims but tensor has 2");
  EXPECT_THROWS_WITH((void)(t.accessor<double, 2>()), "data_ptr: tensor has dtype float32 but float64");
  // 2^31 elements need 64-bit indexing; expand gives the sizes without the memory.
  Tensor wide = zeros({1}).expand({int64_t{1} << 31});
  EXPECT_THROWS_WITH((void)(wide.packed_accessor32<float, 1>()),
                     "generic_packed_accessor: a tensor of shape [2147483648] needs 64-bit indexing");
  EXPECT_EQ((wide.packed_accessor64<float, 1>().size(0)), int64_t{1} << 31);
  Tensor widest32 = zeros({1}).expand({std::numeric_limits<int32_t>::max()});
  EXPECT_EQ((widest32.packed_accessor32<float, 1>().size(0)), std::numeric_limits<int32_t>::max());
}

}  // namespace
}  // namespace ember
