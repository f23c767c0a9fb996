// One element converted from S to D as PyTorch's c10::convert does, written once for the CPU's copy
// (core/cpu/elementwise.cpp) and the CUDA one (cuda/elementwise.cu), so `to(dtype)` gives the same
// bits on both devices.
//
//   int8_t c = convert<int8_t>(300.0f);   // 44: a float reaches an integer type through int64
//   Half h = convert<Half>(int64_t{7});    // 7: rounded to nearest even, as Half's constructor
//
// A floating value (bfloat16 and float16 included: ember's types on the CPU, cuda/reduced_float.h's
// on a device) becomes an integer through int64, keeping the
// low bits for the narrow types (300.0 -> uint8 is 44); NaN and values outside int64's range give
// int64's minimum, which is what x86's conversion instruction gives, instead of undefined behaviour
// (and instead of a GPU's saturation). Every other pair is static_cast: integers keep their low
// bits, anything to bool is "not zero", the reduced floats round from float32.
#pragma once

#include <cstdint>
#include <type_traits>

#include "core/functors.h"  // EMBER_HD

namespace ember {

template <typename D, typename S>
EMBER_HD D convert(S x) {
  if constexpr (std::is_integral_v<D> && !std::is_same_v<D, bool> && !std::is_integral_v<S>) {
    constexpr double kTwoTo63 = 9223372036854775808.0;
    const double v = static_cast<double>(x);
    return static_cast<D>(v >= -kTwoTo63 && v < kTwoTo63 ? static_cast<int64_t>(v) : INT64_MIN);
  } else {
    return static_cast<D>(x);
  }
}

}  // namespace ember
