// Shared helpers for the test suite: tensor comparison with a readable failure message, and a
// reader for the JSON fixtures written by scripts/gen_fixtures.py (PyTorch reference values).
#pragma once

#include <string>
#include <vector>

#include <ember/ember.h>
#include <gtest/gtest.h>

namespace ember::test {

// Passes when |actual - expected| <= atol + rtol * |expected| everywhere (shapes must match).
// On failure, prints the shapes, the first values of both and the largest difference.
::testing::AssertionResult tensors_close(const Tensor& actual, const Tensor& expected, double rtol = 1e-5,
                                         double atol = 1e-6);

// max |a - b| over all elements, as a 0-dim float64 tensor.
inline Tensor allclose_diff(const Tensor& a, const Tensor& b) {
  NoGradGuard no_grad;
  return (a.to(kFloat64) - b.to(kFloat64)).abs().max();
}

// Checks that `f` throws ember::Error whose message contains `needle`.
::testing::AssertionResult throws_with(const std::function<void()>& f, const std::string& needle);

}  // namespace ember::test

#define EXPECT_TENSOR_CLOSE(actual, expected, ...) \
  EXPECT_TRUE(::ember::test::tensors_close((actual), (expected), ##__VA_ARGS__))
#define EXPECT_THROWS_WITH(stmt, needle) EXPECT_TRUE(::ember::test::throws_with([&] { stmt; }, (needle)))
