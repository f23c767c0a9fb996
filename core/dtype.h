// Scalar types a tensor can hold, and the promotion rules between them.
//
// Five dtypes: float32, float64, int64, bool and bfloat16 (issue 21: storage, conversion, printing
// and the ops of mixed-precision training; most kernels run it by converting to float32, and the
// rest say "not implemented for BFloat16"). Names mirror libtorch (kFloat32 == kFloat, kInt64 == kLong).
// Promotion follows PyTorch's categories (bool < integer < floating); see result_type() in
// core/kernel.h for the 0-dim rules.
#pragma once

#include <cstdint>
#include <ostream>
#include <string_view>

#include "core/bfloat16.h"

namespace ember {

enum class ScalarType : int8_t { Float32, Float64, Int64, Bool, BFloat16 };

inline constexpr ScalarType kFloat32 = ScalarType::Float32;
inline constexpr ScalarType kFloat = ScalarType::Float32;
inline constexpr ScalarType kFloat64 = ScalarType::Float64;
inline constexpr ScalarType kDouble = ScalarType::Float64;
inline constexpr ScalarType kInt64 = ScalarType::Int64;
inline constexpr ScalarType kLong = ScalarType::Int64;
inline constexpr ScalarType kBool = ScalarType::Bool;
inline constexpr ScalarType kBFloat16 = ScalarType::BFloat16;

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
      return 2;
  }
  return 0;
}

constexpr bool is_floating_point(ScalarType t) {
  return t == ScalarType::Float32 || t == ScalarType::Float64 || t == ScalarType::BFloat16;
}

constexpr bool is_integral(ScalarType t, bool include_bool = false) {
  return t == ScalarType::Int64 || (include_bool && t == ScalarType::Bool);
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
  }
  return "?";
}

// Category used by promotion: bool < integral < floating.
constexpr int dtype_category(ScalarType t) { return t == ScalarType::Bool ? 0 : t == ScalarType::Int64 ? 1 : 2; }

// The larger of two dtypes in PyTorch's lattice (bool < int64 < bfloat16 < float32 < float64).
constexpr ScalarType promote_types(ScalarType a, ScalarType b) {
  auto rank = [](ScalarType t) {
    switch (t) {
      case ScalarType::Bool:
        return 0;
      case ScalarType::Int64:
        return 1;
      case ScalarType::BFloat16:
        return 2;
      case ScalarType::Float32:
        return 3;
      case ScalarType::Float64:
        return 4;
    }
    return 0;
  };
  return rank(a) >= rank(b) ? a : b;
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

inline std::ostream& operator<<(std::ostream& os, ScalarType t) { return os << dtype_name(t); }

// The dtype of floating-point values made without one (torch.get_default_dtype()): float32 until
// set_default_dtype(kFloat64). Factories (zeros, ones, rand, tensor({1.5}), arange(0.5, ...)),
// nn modules' parameters and int -> float promotion (int_tensor * 2.5, exp(int_tensor)) follow it.
// Process-wide, as in PyTorch; only float32 and float64 may be set. Defined in core/tensor.cpp.
ScalarType get_default_dtype();
void set_default_dtype(ScalarType dtype);

}  // namespace ember
