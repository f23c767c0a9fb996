// Math the compiler can vectorise: exp and erf for float without libm calls, for the CPU kernels'
// hot loops (softmax, GELU and its backward).
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
inline constexpr float kLn2Hi = 0.693145751953125f;  // ln 2 split in two for an exact n*ln2
inline constexpr float kLn2Lo = 1.428606765330187045e-6f;
inline constexpr float kRoundMagic = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
inline constexpr float kExpMin = -87.33654f;       // below this exp underflows float
inline constexpr float kExpMax = 88.72283f;

inline __attribute__((always_inline)) float exp_vec(float x) {
  // Plain compares, not std::fmin/fmax (library calls with NaN rules the vectoriser won't take).
  float xc = x < kExpMin ? kExpMin : x;  // NaN passes through both clamps untouched...
  xc = xc > kExpMax ? kExpMax : xc;
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
  // NaN takes exponent 0 here (converting NaN to an integer is undefined behaviour); its result is
  // replaced below.
  const float n_finite = n == n ? n : 0.0f;
  const int32_t bits = (static_cast<int32_t>(n_finite) + 127) << 23;
  const float y = p * std::bit_cast<float>(bits);
  return x < kExpMin ? 0.0f : (x != x ? x : y);  // ...and is returned as is here
}

// erf by Abramowitz & Stegun 7.1.26: 1 - t (a1 + t (a2 + ... + t a5)) e^(-x^2), t = 1 / (1 + p |x|),
// with x's sign. Absolute error below 1.5e-7, the formula PyTorch's vectorised CPU erf uses, so the
// exact GELU here agrees with PyTorch's float kernel. Branch-free: loops over it vectorise.
// erf_with_exp takes e^(-x^2) from the caller, who may need it too (GELU's backward does).
inline __attribute__((always_inline)) float erf_with_exp(float x, float exp_minus_x2) {
  constexpr float p = 0.3275911f, a1 = 0.254829592f, a2 = -0.284496736f, a3 = 1.421413741f, a4 = -1.453152027f,
                  a5 = 1.061405429f;
  // |x| and x's sign as bit operations (fabs, copysign): with selects instead, the compiler
  // computes both arms, and the division twice.
  const float ax = std::fabs(x);
  const float t = 1.0f / (1.0f + p * ax);
  const float poly = ((((a5 * t + a4) * t + a3) * t + a2) * t + a1) * t;
  const float r = 1.0f - poly * exp_minus_x2;
  return std::copysign(r, x);
}
inline __attribute__((always_inline)) float erf_vec(float x) { return erf_with_exp(x, exp_vec(-x * x)); }

// sum of term(i) for i < n in 64 bytes of lanes folded by a tree: for short rows inside a function
// compiled per instruction set. A loop-carried `omp simd reduction` instead ends each row in a
// chain of dependent scalar adds, one per lane, which costs more than a short row's arithmetic.
template <typename T, typename Term>
inline __attribute__((always_inline)) T lane_sum(int64_t n, Term term) {
  constexpr int kLanes = 64 / sizeof(T);
  T acc[kLanes] = {};
  const int64_t whole = n / kLanes * kLanes;
  for (int64_t c = 0; c < whole; c += kLanes)
    for (int k = 0; k < kLanes; ++k) acc[k] += term(c + k);
  for (int w = kLanes / 2; w > 0; w /= 2)
    for (int k = 0; k < w; ++k) acc[k] += acc[k + w];
  T sum = acc[0];
  for (int64_t c = whole; c < n; ++c) sum += term(c);
  return sum;
}

}  // namespace ember::cpu
