// Math the compiler can vectorise: exp for float without libm calls, for the CPU kernels' hot loops.
//
// exp(x) = 2^n * e^r with n = round(x / ln2) and |r| <= ln2/2, e^r by a degree-7 Taylor polynomial
// (relative error below 2e-7, about 1-2 ulp, the accuracy of PyTorch's vectorised Sleef exp).
// Branch-free, so loops over it become SIMD; inputs below the float range give exactly 0, NaN stays NaN.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

namespace ember::cpu {

inline constexpr float kLog2e = 1.44269504088896341f;
inline constexpr float kLn2Hi = 0.693145751953125f;       // ln 2 split in two for an exact n*ln2
inline constexpr float kLn2Lo = 1.428606765330187045e-6f;
inline constexpr float kRoundMagic = 12582912.0f;          // 1.5 * 2^23: adding it rounds to an integer
inline constexpr float kExpMin = -87.33654f;               // below this exp underflows float
inline constexpr float kExpMax = 88.72283f;

inline float exp_vec(float x) {
  const float xc = std::fmin(std::fmax(x, kExpMin), kExpMax);  // NaN becomes kExpMin here...
  const float n = (xc * kLog2e + kRoundMagic) - kRoundMagic;
  const float r = (xc - n * kLn2Hi) - n * kLn2Lo;
  float p = 1.0f / 5040;
  p = p * r + 1.0f / 720;
  p = p * r + 1.0f / 120;
  p = p * r + 1.0f / 24;
  p = p * r + 1.0f / 6;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const int32_t bits = (static_cast<int32_t>(n) + 127) << 23;
  const float y = p * std::bit_cast<float>(bits);
  return x < kExpMin ? 0.0f : (x != x ? x : y);  // ...and is passed through here
}

}  // namespace ember::cpu
