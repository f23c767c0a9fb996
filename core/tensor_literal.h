// ember::tensor({{1.0, 2.0}, {3.0, 4.0}}): tensors written as nested braces.
//
// A recursive initializer type (like libtorch's TensorDataContainer) records the nesting, checks
// that every row has the same length, and infers the dtype PyTorch would: all bools -> bool,
// all integers -> int64, any floating value -> float32 (unless options give a dtype).
#pragma once

#include <initializer_list>
#include <vector>

#include "core/tensor.h"

namespace ember {

class TensorLiteral {
 public:
  TensorLiteral(double v) : scalar_(v), kind_(kFloat32) {}                         // NOLINT
  TensorLiteral(float v) : scalar_(v), kind_(kFloat32) {}                          // NOLINT
  TensorLiteral(int v) : scalar_(v), kind_(kInt64) {}                              // NOLINT
  TensorLiteral(long v) : scalar_(v), kind_(kInt64) {}                             // NOLINT
  TensorLiteral(long long v) : scalar_(static_cast<int64_t>(v)), kind_(kInt64) {}  // NOLINT
  TensorLiteral(bool v) : scalar_(v), kind_(kBool) {}                              // NOLINT
  TensorLiteral(std::initializer_list<TensorLiteral> rows);                        // NOLINT
  // A std::vector or ArrayRef of numbers: a 1-d literal of their own dtype, as libtorch's
  // (std::vector<double> -> float64, std::vector<int> -> int32, std::vector<int64_t> -> int64).
  template <typename T>
  requires requires { dtype_of<T>::value; }
  TensorLiteral(ArrayRef<T> values)  // NOLINT: implicit, as libtorch's TensorDataContainer
      : kind_(dtype_of<T>::value), is_scalar_(false), sizes_{static_cast<int64_t>(values.size())} {
    rows_.reserve(values.size());
    for (const T& v : values) rows_.emplace_back(static_cast<double>(v));
  }
  template <typename T>
  requires requires { dtype_of<T>::value; }
  TensorLiteral(const std::vector<T>& values) : TensorLiteral(ArrayRef<T>(values)) {}  // NOLINT

  // Flattens into row-major doubles, filling `sizes` with the shape.
  void flatten(std::vector<double>& out) const;
  const std::vector<int64_t>& sizes() const { return sizes_; }
  ScalarType inferred_dtype() const { return kind_; }

 private:
  double scalar_ = 0;
  ScalarType kind_ = kInt64;
  bool is_scalar_ = true;
  std::vector<TensorLiteral> rows_;
  std::vector<int64_t> sizes_;
};

// tensor({{0.43, 0.15}, {0.55, 0.87}}); tensor(3.5) is a 0-dim tensor.
Tensor tensor(const TensorLiteral& data, const TensorOptions& options = {});

}  // namespace ember
