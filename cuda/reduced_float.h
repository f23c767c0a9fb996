// float16 and bfloat16 as CUDA kernels hold them: cuda::DeviceHalf and cuda::DeviceBFloat16, the
// layout (16 bits) and the conversions of ember::Half (core/half.h) and ember::BFloat16
// (core/bfloat16.h), usable in device code (EMBER_HD).
//
//   DeviceHalf h = 65519.0f;  // 65504, as Half(65519.0f)
//   float f = h;              // exact
//
// The conversions are the core types' formulas, bit for bit: round to nearest even (subnormal halves
// included, 65520 and up to infinity), NaN to the quiet NaN with the sign kept (half) or 0x7FC0
// (bfloat16). CudaDtypeHost.DeviceTypesConvertAsCoreTypes checks every 16-bit pattern and a sweep of
// floats against the core types. Arithmetic is not defined: kernels compute in float (opmath_t,
// cuda/kernels.h) and round once.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/dtype.h"
#include "core/functors.h"  // EMBER_HD

namespace ember::cuda {

namespace detail {
// The bits of a float32 and back, on the host and on a device.
EMBER_HD inline uint32_t float_bits(float f) {
#ifdef __CUDA_ARCH__
  return __float_as_uint(f);
#else
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
#endif
}
EMBER_HD inline float bits_float(uint32_t u) {
#ifdef __CUDA_ARCH__
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
#endif
}
}  // namespace detail

struct DeviceHalf {
  uint16_t bits;

  DeviceHalf() = default;
  EMBER_HD DeviceHalf(float f) : bits(round_from_float(f)) {}  // NOLINT: implicit, as ember::Half
  template <typename T, std::enable_if_t<std::is_arithmetic_v<T> && !std::is_same_v<T, float>, int> = 0>
  EMBER_HD explicit DeviceHalf(T v) : bits(round_from_float(static_cast<float>(v))) {}
  EMBER_HD operator float() const { return to_float(bits); }  // NOLINT: implicit, as ember::Half

  EMBER_HD static float to_float(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    const uint32_t exponent = (h >> 10) & 0x1Fu, mantissa = h & 0x3FFu;
    if (exponent == 0x1F) return detail::bits_float(sign | 0x7F800000u | (mantissa << 13));  // inf, NaN
    if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24, exact in float
      constexpr float kSubnormalUnit = 5.9604644775390625e-8f;  // 2^-24
      return detail::bits_float(sign | detail::float_bits(static_cast<float>(mantissa) * kSubnormalUnit));
    }
    return detail::bits_float(sign | ((exponent + 112) << 23) | (mantissa << 13));  // rebias 15 -> 127
  }

  EMBER_HD static uint16_t round_from_float(float f) {
    const uint32_t u = detail::float_bits(f);
    const auto sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
    const uint32_t magnitude = u & 0x7FFFFFFFu;
    if (magnitude > 0x7F800000u) return sign | 0x7E00u;  // NaN
    if (magnitude >= 0x477FF000u) return sign | 0x7C00u;  // from 65520 (the tie to 2^16): infinity
    if (magnitude < 0x38800000u) {                        // below 2^-14: a multiple of 2^-24
      const float scaled = detail::bits_float(magnitude) * 16777216.0f;  // |f| 2^24, exact
#ifdef __CUDA_ARCH__
      return sign | static_cast<uint16_t>(rintf(scaled));  // ties to even
#else
      return sign | static_cast<uint16_t>(std::nearbyint(scaled));  // ties to even (default mode)
#endif
    }
    // A normal half: rebias (127 -> 15), drop 13 mantissa bits rounding to nearest even.
    uint32_t r = magnitude - 0x38000000u;
    r += 0x0FFFu + ((r >> 13) & 1u);
    return sign | static_cast<uint16_t>(r >> 13);
  }
};

struct DeviceBFloat16 {
  uint16_t bits;

  DeviceBFloat16() = default;
  EMBER_HD DeviceBFloat16(float f) : bits(round_from_float(f)) {}  // NOLINT: implicit, as ember::BFloat16
  template <typename T, std::enable_if_t<std::is_arithmetic_v<T> && !std::is_same_v<T, float>, int> = 0>
  EMBER_HD explicit DeviceBFloat16(T v) : bits(round_from_float(static_cast<float>(v))) {}
  EMBER_HD operator float() const { return to_float(bits); }  // NOLINT: implicit, as ember::BFloat16

  EMBER_HD static float to_float(uint16_t b) { return detail::bits_float(static_cast<uint32_t>(b) << 16); }
  // Round to nearest even: add 0x7FFF plus the lowest kept bit, then drop the low 16 bits.
  EMBER_HD static uint16_t round_from_float(float f) {
    uint32_t u = detail::float_bits(f);
    if ((u & 0x7FFFFFFFu) > 0x7F800000u) return 0x7FC0;  // NaN
    u += 0x7FFFu + ((u >> 16) & 1u);
    return static_cast<uint16_t>(u >> 16);
  }
};

static_assert(sizeof(DeviceHalf) == sizeof(Half) && sizeof(DeviceBFloat16) == sizeof(BFloat16));

}  // namespace ember::cuda

namespace ember {
// The dtype switch (core/dispatch.h) maps kFloat16 and kBFloat16 to these types in cuda/kernels.h.
template <>
struct dtype_of<cuda::DeviceHalf> {
  static constexpr ScalarType value = kFloat16;
};
template <>
struct dtype_of<cuda::DeviceBFloat16> {
  static constexpr ScalarType value = kBFloat16;
};
}  // namespace ember
