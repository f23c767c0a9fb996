// float16 (IEEE 754 binary16: 1 sign, 5 exponent, 10 mantissa bits), as c10::Half.
//
//   Half h = 65519.0f;   // rounds to 65504, the largest finite half
//   Half g = 65520.0f;   // a tie between 65504 and 65536: to even, which is infinity
//   float f = h;         // exact: every half is a float32
//
// Conversion from float rounds to nearest, ties to even, subnormals included (the smallest is
// 2^-24); a NaN becomes the quiet NaN 0x7E00 with the sign kept, as c10's fp16_ieee_from_fp32_value.
// Arithmetic is not defined on the type itself: kernels convert to float, compute, and round back
// (core/cpu/bfloat16_float.h), as PyTorch's CPU kernels do for reduced floating types.
// From double the value goes through float first, as c10::Half(double) does.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace ember {

struct Half {
  uint16_t bits = 0;

  Half() = default;
  Half(float f) : bits(round_from_float(f)) {}  // NOLINT: implicit, as c10::Half
  template <typename T, std::enable_if_t<std::is_arithmetic_v<T> && !std::is_same_v<T, float>, int> = 0>
  explicit Half(T v) : bits(round_from_float(static_cast<float>(v))) {}
  static constexpr Half from_bits(uint16_t b) {
    Half h;
    h.bits = b;
    return h;
  }
  operator float() const { return to_float(bits); }  // NOLINT: implicit, as c10::Half

  static float to_float(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    const uint32_t exponent = (h >> 10) & 0x1Fu, mantissa = h & 0x3FFu;
    uint32_t u;
    if (exponent == 0x1F) {  // infinity or NaN (payload kept)
      u = sign | 0x7F800000u | (mantissa << 13);
    } else if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24, exact in float
      const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
      std::memcpy(&u, &magnitude, sizeof u);
      u |= sign;
    } else {  // rebias the exponent from 15 to 127
      u = sign | ((exponent + 112) << 23) | (mantissa << 13);
    }
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
  }

  static uint16_t round_from_float(float f) {
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    const auto sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
    const uint32_t magnitude = u & 0x7FFFFFFFu;
    if (magnitude > 0x7F800000u) return sign | 0x7E00u;  // NaN
    // 65520 = 0x477FF000 lies halfway between 65504 (the largest half) and 2^16; the tie goes to
    // the even neighbour, 2^16, which is infinity. So does everything from there up.
    if (magnitude >= 0x477FF000u) return sign | 0x7C00u;
    if (magnitude < 0x38800000u) {                      // below 2^-14: a subnormal half, a multiple of 2^-24
      const float scaled = std::fabs(f) * 16777216.0f;  // exact: a power-of-two scaling
      return sign | static_cast<uint16_t>(std::nearbyint(scaled));  // ties to even (default mode)
    }
    // A normal half: rebias the exponent (127 -> 15), then drop 13 mantissa bits with round to
    // nearest even; a carry out of the mantissa moves to the next exponent, as it should.
    uint32_t r = magnitude - 0x38000000u;
    r += 0x0FFFu + ((r >> 13) & 1u);
    return sign | static_cast<uint16_t>(r >> 13);
  }
};

static_assert(sizeof(Half) == 2, "Half must be 2 bytes");

}  // namespace ember
