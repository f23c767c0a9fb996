// bfloat16: the top 16 bits of a float32 (1 sign, 8 exponent, 7 mantissa bits), as c10::BFloat16.
//
//   BFloat16 h = 1.00390625f;  // a tie: rounds to even, 1.0
//   float f = h;               // exact: every bfloat16 is a float32
//
// Conversion from float rounds to nearest, ties to even, as PyTorch's round_to_nearest_even; a NaN
// stays a NaN (0x7FC0, the quiet NaN PyTorch writes), so rounding never turns it into an infinity.
// Arithmetic is not defined on the type itself: kernels convert to float, compute, and round back.
// From double the value goes through float first, as c10::BFloat16(double) does.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace ember {

struct BFloat16 {
  uint16_t bits = 0;

  BFloat16() = default;
  BFloat16(float f) : bits(round_from_float(f)) {}  // NOLINT: implicit, as c10::BFloat16
  template <typename T, std::enable_if_t<std::is_arithmetic_v<T> && !std::is_same_v<T, float>, int> = 0>
  explicit BFloat16(T v) : bits(round_from_float(static_cast<float>(v))) {}
  static constexpr BFloat16 from_bits(uint16_t b) {
    BFloat16 h;
    h.bits = b;
    return h;
  }
  operator float() const { return to_float(bits); }  // NOLINT: implicit, as c10::BFloat16

  static float to_float(uint16_t b) {
    uint32_t u = static_cast<uint32_t>(b) << 16;
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
  }
  // Round to nearest even: add 0x7FFF plus the lowest kept bit, then drop the low 16 bits.
  static uint16_t round_from_float(float f) {
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    if ((u & 0x7FFFFFFFu) > 0x7F800000u) return 0x7FC0;  // NaN
    u += 0x7FFFu + ((u >> 16) & 1u);
    return static_cast<uint16_t>(u >> 16);
  }
};

static_assert(sizeof(BFloat16) == 2, "BFloat16 must be 2 bytes");

}  // namespace ember
