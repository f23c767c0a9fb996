// Scalar types a tensor can hold, and the promotion rules between them.
//
// Ten dtypes: float32, float64, int64, bool, the reduced floats bfloat16 (issue 21: storage,
// conversion, printing and the ops of mixed-precision training) and float16 (issue 33), whose
// kernels mostly run by converting to float32 while the rest say "not implemented for BFloat16" or
// "... for 'Half'", and the narrow integers uint8, int8, int16 and int32
// (issue 33: images arrive as uint8; the CPU computes them through int64 and wraps the result back,
// as PyTorch's arithmetic does; CUDA does not have them yet). Names mirror libtorch (kFloat32 ==
// kFloat, kInt64 == kLong, kUInt8 == kByte, kInt32 == kInt).
// Promotion follows PyTorch's categories (bool < integer < floating); see result_type() in
// core/kernel.h for the 0-dim rules.
#pragma once

#include <cstdint>
#include <ostream>
#include <string_view>

#include "core/bfloat16.h"
#include "core/half.h"

namespace ember {

enum class ScalarType : int8_t { Float32, Float64, Int64, Bool, BFloat16, UInt8, Int8, Int16, Int32, Float16 };

inline constexpr ScalarType kFloat32 = ScalarType::Float32;
inline constexpr ScalarType kFloat = ScalarType::Float32;
inline constexpr ScalarType kFloat64 = ScalarType::Float64;
inline constexpr ScalarType kDouble = ScalarType::Float64;
inline constexpr ScalarType kInt64 = ScalarType::Int64;
inline constexpr ScalarType kLong = ScalarType::Int64;
inline constexpr ScalarType kBool = ScalarType::Bool;
inline constexpr ScalarType kBFloat16 = ScalarType::BFloat16;
inline constexpr ScalarType kUInt8 = ScalarType::UInt8;
inline constexpr ScalarType kByte = ScalarType::UInt8;
inline constexpr ScalarType kInt8 = ScalarType::Int8;
inline constexpr ScalarType kChar = ScalarType::Int8;
inline constexpr ScalarType kInt16 = ScalarType::Int16;
inline constexpr ScalarType kShort = ScalarType::Int16;
inline constexpr ScalarType kInt32 = ScalarType::Int32;
inline constexpr ScalarType kInt = ScalarType::Int32;
inline constexpr ScalarType kFloat16 = ScalarType::Float16;
inline constexpr ScalarType kHalf = ScalarType::Float16;

// libtorch spells the type of a tensor's dtype `caffe2::TypeMeta`; we keep one enum.
using Dtype = ScalarType;

constexpr size_t element_size(ScalarType t) {
  switch (t) {
    case ScalarType::Float32:
      return 4;
    case ScalarType::Float64:
      return 8;
    case ScalarType::Int64:
      return 8;
    case ScalarType::Bool:
      return 1;
    case ScalarType::BFloat16:
    case ScalarType::Float16:
      return 2;
    case ScalarType::UInt8:
    case ScalarType::Int8:
      return 1;
    case ScalarType::Int16:
      return 2;
    case ScalarType::Int32:
      return 4;
  }
  return 0;
}

constexpr bool is_floating_point(ScalarType t) {
  return t == ScalarType::Float32 || t == ScalarType::Float64 || t == ScalarType::BFloat16 || t == ScalarType::Float16;
}

// bfloat16 and float16: stored in 16 bits, computed in float32 (c10's isReducedFloatingType).
constexpr bool is_reduced_floating_point(ScalarType t) { return t == ScalarType::BFloat16 || t == ScalarType::Float16; }

// uint8, int8, int16, int32: stored as themselves, computed as int64 (see the header comment).
constexpr bool is_narrow_integer(ScalarType t) {
  return t == ScalarType::UInt8 || t == ScalarType::Int8 || t == ScalarType::Int16 || t == ScalarType::Int32;
}

constexpr bool is_integral(ScalarType t, bool include_bool = false) {
  return t == ScalarType::Int64 || is_narrow_integer(t) || (include_bool && t == ScalarType::Bool);
}

// PyTorch's spelling in printouts: "float32" -> dtype=torch.float32.
constexpr std::string_view dtype_name(ScalarType t) {
  switch (t) {
    case ScalarType::Float32:
      return "float32";
    case ScalarType::Float64:
      return "float64";
    case ScalarType::Int64:
      return "int64";
    case ScalarType::Bool:
      return "bool";
    case ScalarType::BFloat16:
      return "bfloat16";
    case ScalarType::UInt8:
      return "uint8";
    case ScalarType::Int8:
      return "int8";
    case ScalarType::Int16:
      return "int16";
    case ScalarType::Int32:
      return "int32";
    case ScalarType::Float16:
      return "float16";
  }
  return "?";
}

// libtorch's name for a dtype in its messages ("Float" for float32): c10::toString(ScalarType).
constexpr std::string_view scalar_type_name(ScalarType t) {
  switch (t) {
    case ScalarType::Float32:
      return "Float";
    case ScalarType::Float64:
      return "Double";
    case ScalarType::Int64:
      return "Long";
    case ScalarType::Bool:
      return "Bool";
    case ScalarType::BFloat16:
      return "BFloat16";
    case ScalarType::UInt8:
      return "Byte";
    case ScalarType::Int8:
      return "Char";
    case ScalarType::Int16:
      return "Short";
    case ScalarType::Int32:
      return "Int";
    case ScalarType::Float16:
      return "Half";
  }
  return "?";
}

// Category used by promotion: bool < integral < floating.
constexpr int dtype_category(ScalarType t) { return t == ScalarType::Bool ? 0 : is_integral(t) ? 1 : 2; }

// The dtype two dtypes promote to, as PyTorch's table has it: bool < integers < floating types;
// among floats bfloat16, float16 < float32 < float64 (bfloat16 and float16 meet at float32: neither
// holds the other's values); among integers the wider, except that uint8 and int8
// meet at int16 (neither holds the other's values).
constexpr ScalarType promote_types(ScalarType a, ScalarType b) {
  if (a == b || b == ScalarType::Bool) return a;
  if (a == ScalarType::Bool) return b;
  const int ca = dtype_category(a), cb = dtype_category(b);
  if (ca != cb) return ca > cb ? a : b;
  if (ca == 2) {
    if (is_reduced_floating_point(a) && is_reduced_floating_point(b)) return ScalarType::Float32;
    auto rank = [](ScalarType t) { return is_reduced_floating_point(t) ? 0 : t == ScalarType::Float32 ? 1 : 2; };
    return rank(a) >= rank(b) ? a : b;
  }
  if (a == ScalarType::UInt8 || b == ScalarType::UInt8) {
    const ScalarType other = a == ScalarType::UInt8 ? b : a;
    return other == ScalarType::Int8 ? ScalarType::Int16 : other;
  }
  return element_size(a) >= element_size(b) ? a : b;
}

// C++ type <-> ScalarType.
template <typename T>
struct dtype_of;
template <>
struct dtype_of<float> {
  static constexpr ScalarType value = kFloat32;
};
template <>
struct dtype_of<double> {
  static constexpr ScalarType value = kFloat64;
};
template <>
struct dtype_of<int64_t> {
  static constexpr ScalarType value = kInt64;
};
template <>
struct dtype_of<bool> {
  static constexpr ScalarType value = kBool;
};
template <>
struct dtype_of<BFloat16> {
  static constexpr ScalarType value = kBFloat16;
};
template <>
struct dtype_of<Half> {
  static constexpr ScalarType value = kFloat16;
};
template <>
struct dtype_of<uint8_t> {
  static constexpr ScalarType value = kUInt8;
};
template <>
struct dtype_of<int8_t> {
  static constexpr ScalarType value = kInt8;
};
template <>
struct dtype_of<int16_t> {
  static constexpr ScalarType value = kInt16;
};
template <>
struct dtype_of<int32_t> {
  static constexpr ScalarType value = kInt32;
};

inline std::ostream& operator<<(std::ostream& os, ScalarType t) { return os << dtype_name(t); }

// The dtype of floating-point values made without one (torch.get_default_dtype()): float32 until
// set_default_dtype(kFloat64). Factories (zeros, ones, rand, tensor({1.5}), arange(0.5, ...)),
// nn modules' parameters and int -> float promotion (int_tensor * 2.5, exp(int_tensor)) follow it.
// Process-wide, as in PyTorch; only float32 and float64 may be set. Defined in core/tensor.cpp.
ScalarType get_default_dtype();
void set_default_dtype(ScalarType dtype);

}  // namespace ember
