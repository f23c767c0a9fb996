// The cubic convolution kernel of bicubic interpolation (Keys 1981, with A = -0.75 as PyTorch and
// OpenCV), shared by F::interpolate (on numbers, nn/upsampling.cpp) and F::grid_sample (on tensors
// with history, nn/grid_sample.cpp): PyTorch's get_cubic_upsample_coefficients.
#pragma once

#include <array>

namespace ember::nn::detail {

inline constexpr double kCubicA = -0.75;

// The weights of the 4 taps at floor(x) - 1 .. floor(x) + 2, for t = x - floor(x) in [0, 1). V is a
// number or a Tensor, S the type of A in the arithmetic (the number's own type, or double for a Tensor).
template <typename V, typename S>
std::array<V, 4> cubic_weights(const V& t, S A) {
  auto near = [A](const V& x) -> V { return ((A + 2) * x - (A + 3)) * x * x + 1; };       // |x| <= 1
  auto far = [A](const V& x) -> V { return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A; };  // 1 < |x| < 2
  return {far(t + 1), near(t), near(1 - t), far(2 - t)};
}

}  // namespace ember::nn::detail
