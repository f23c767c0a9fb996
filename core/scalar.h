// Scalar: a number passed to an op (a * 2, x.fill_(0.5), x.masked_fill(m, -INFINITY)), and
// what Tensor::item() returns without a type (t.item().toFloat(), std::cout << t.item()).
//
// Like c10::Scalar it remembers whether it was written as an integer, a floating-point
// number or a bool, because that decides the result dtype: int_tensor * 2 stays int64,
// int_tensor * 2.5 becomes float32.
#pragma once

#include <cstdint>
#include <limits>
#include <ostream>
#include <type_traits>

#include "core/dtype.h"

namespace ember {

class Scalar {
 public:
  Scalar() : Scalar(int64_t{0}) {}
  template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  Scalar(T v) {  // NOLINT: implicit, as in libtorch
    if constexpr (std::is_same_v<T, bool>) {
      type_ = kBool;
      i_ = v;
      d_ = v;
    } else if constexpr (std::is_integral_v<T>) {
      type_ = kInt64;
      i_ = static_cast<int64_t>(v);
      d_ = static_cast<double>(v);
    } else {
      type_ = kFloat64;
      d_ = static_cast<double>(v);  // i_ stays 0: only integer and bool scalars read it
    }
  }

  // The category the scalar was written in: kBool, kInt64 or kFloat64.
  ScalarType type() const { return type_; }
  bool is_floating_point() const { return type_ == kFloat64; }
  // libtorch's spellings.
  bool isFloatingPoint() const { return type_ == kFloat64; }
  bool isIntegral(bool include_bool) const { return type_ == kInt64 || (include_bool && type_ == kBool); }
  bool isBool() const { return type_ == kBool; }

  template <typename T>
  T to() const {
    if constexpr (std::is_floating_point_v<T>) {
      return static_cast<T>(d_);
    } else if constexpr (std::is_same_v<T, bool>) {
      return type_ == kFloat64 ? d_ != 0.0 : i_ != 0;
    } else if constexpr (!std::is_integral_v<T>) {  // bfloat16: from the double, as its constructor rounds
      return type_ == kFloat64 ? static_cast<T>(d_) : static_cast<T>(i_);
    } else {
      if (type_ != kFloat64) return static_cast<T>(i_);
      // Saturated where T cannot hold the value, 0 for NaN: C++ leaves those conversions undefined.
      if (d_ != d_) return T(0);
      if (d_ <= static_cast<double>(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
      if (d_ >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
      return static_cast<T>(d_);
    }
  }
  double toDouble() const { return d_; }
  float toFloat() const { return to<float>(); }
  int64_t toLong() const { return to<int64_t>(); }
  int toInt() const { return to<int>(); }
  bool toBool() const { return to<bool>(); }
  Scalar operator-() const { return type_ == kFloat64 ? Scalar(-d_) : Scalar(-i_); }

 private:
  ScalarType type_;
  double d_ = 0;
  int64_t i_ = 0;
};

// As libtorch prints a Scalar: a double as std::ostream does (2.5), an integer, or true/false.
inline std::ostream& operator<<(std::ostream& os, const Scalar& s) {
  if (s.isFloatingPoint()) return os << s.toDouble();
  if (s.isBool()) return os << (s.toBool() ? "true" : "false");
  return os << s.toLong();
}

}  // namespace ember
