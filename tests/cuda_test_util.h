// What the CUDA parity tests share: the device, the tolerances of a CUDA result against the CPU's, a
// dtype-parameterised fixture that skips without a device, and the dtype as the case's name.
#pragma once

#include <string>

#include <ember/ember.h>
#include <gtest/gtest.h>

namespace ember::cuda_test {

inline const Device kGpu(kCUDA);

// Float32 differs from the CPU in summation order (block trees against the CPU's loops); float64 by
// rounding only.
struct Tolerance {
  double rtol, atol;
};
inline Tolerance tolerance(ScalarType dt) {
  return dt == kFloat64 ? Tolerance{1e-10, 1e-12} : Tolerance{1e-4, 1e-5};
}

class CudaDtypeTest : public ::testing::TestWithParam<ScalarType> {
 protected:
  void SetUp() override {
    if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  }
};

inline std::string dtype_case_name(const ::testing::TestParamInfo<ScalarType>& info) {
  return std::string(dtype_name(info.param));
}

}  // namespace ember::cuda_test
