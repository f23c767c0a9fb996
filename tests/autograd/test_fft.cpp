// torch.fft's real-valued functions (autograd/fft.h). Expected values are PyTorch 1.13's
// (torch.fft.fftfreq(7, 0.3) and so on, printed as float64), compared exactly: both compute
// float(i) * float(1 / (d n)).
#include <vector>

#include <ember/ember.h>
#include <gtest/gtest.h>

#include "test_util.h"

namespace ember {
namespace {

std::vector<double> values(const Tensor& t) { return t.to(kDouble).to_vector<double>(); }

TEST(Fft, FrequenciesAreBitEqualToPyTorch) {
  EXPECT_EQ(values(fft::fftfreq(7, 0.3)),
            (std::vector<double>{0.0, 0.4761904776096344, 0.9523809552192688, 1.4285714626312256, -1.4285714626312256,
                                 -0.9523809552192688, -0.4761904776096344}));
  EXPECT_EQ(values(fft::rfftfreq(7, 0.3)),
            (std::vector<double>{0.0, 0.4761904776096344, 0.9523809552192688, 1.4285714626312256}));
  EXPECT_EQ(
      values(fft::fftfreq(10, 1.0 / 3)),
      (std::vector<double>{0.0, 0.30000001192092896, 0.6000000238418579, 0.9000000357627869, 1.2000000476837158, -1.5,
                           -1.2000000476837158, -0.9000000357627869, -0.6000000238418579, -0.30000001192092896}));
  EXPECT_EQ(values(fft::rfftfreq(10, 1.0 / 3)), (std::vector<double>{0.0, 0.30000001192092896, 0.6000000238418579,
                                                                     0.9000000357627869, 1.2000000476837158, 1.5}));
  Tensor f = fft::fftfreq(4);
  EXPECT_EQ(f.dtype(), kFloat);  // the default dtype, not arange's int64
  EXPECT_FALSE(f.requires_grad());
  EXPECT_EQ(values(f), (std::vector<double>{0.0, 0.25, -0.5, -0.25}));
  Tensor g = fft::fftfreq(5, 0.5, kDouble);
  EXPECT_EQ(g.dtype(), kDouble);
  EXPECT_EQ(values(g), (std::vector<double>{0.0, 0.4, 0.8, -0.8, -0.4}));
  EXPECT_EQ(fft::fftfreq(0).numel(), 0);
  EXPECT_EQ(values(fft::rfftfreq(1)), (std::vector<double>{0.0}));
}

TEST(Fft, ShiftsRollByHalfTheSize) {
  Tensor x = arange(10).reshape({2, 5});
  EXPECT_EQ(fft::fftshift(x).to_vector<int64_t>(), (std::vector<int64_t>{8, 9, 5, 6, 7, 3, 4, 0, 1, 2}));
  EXPECT_EQ(fft::ifftshift(x, {1}).to_vector<int64_t>(), (std::vector<int64_t>{2, 3, 4, 0, 1, 7, 8, 9, 5, 6}));
  EXPECT_EQ(fft::fftshift(x, {-1}).to_vector<int64_t>(), (std::vector<int64_t>{3, 4, 0, 1, 2, 8, 9, 5, 6, 7}));
  // ifftshift undoes fftshift for odd and even sizes.
  Tensor y = randn({3, 4, 5});
  EXPECT_TRUE(fft::ifftshift(fft::fftshift(y)).equal(y));
  EXPECT_TRUE(fft::fftshift(fft::ifftshift(y, {0, 2}), {0, 2}).equal(y));
  EXPECT_TRUE(fft::fftshift(fft::fftfreq(6)).allclose(tensor({-0.5f, -1.f / 3, -1.f / 6, 0.f, 1.f / 6, 1.f / 3})));
}

TEST(Fft, ShiftGradientsRollBack) {
  Tensor x = randn({4, 3}, kDouble).requires_grad_();
  Tensor w = randn({4, 3}, kDouble);
  (fft::fftshift(x) * w).sum().backward();
  EXPECT_TRUE(x.grad().equal(fft::ifftshift(w)));
}

TEST(Fft, BadArgumentsAreRefused) {
  EXPECT_THROWS_WITH(fft::fftfreq(-1), "fftfreq: n must be non-negative, got -1");
  EXPECT_THROWS_WITH(fft::rfftfreq(4, 0.0), "rfftfreq: the sample spacing d must not be 0");
  EXPECT_THROWS_WITH(fft::fftfreq(4, kLong), "fftfreq: the dtype must be floating point, got int64");
  EXPECT_THROWS_WITH(fft::fftshift(zeros({2, 2}), {2}), "fftshift");
}

}  // namespace
}  // namespace ember
