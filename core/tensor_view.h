// A tensor as plain data: pointer, dtype, device, sizes and strides, and nothing else.
//
// What a backend's kernels need of a Tensor, for code that must not see Tensor: the CUDA
// backend's .cu files (nvcc never parses core/tensor.h). The CUDA glue (cuda/backend.cpp) turns
// every Tensor argument of a kernel into a TensorView, every tensor_list into a TensorList and
// every IntArrayRef into an IntList, and calls the launcher of the same name (cuda/launchers.h).
// A view borrows: its sizes and strides point into the Tensor it was made from, which outlives
// the call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/device.h"
#include "core/dtype.h"

namespace ember {

// A borrowed list of int64 (sizes, dims, strides).
struct IntList {
  const int64_t* data = nullptr;
  size_t size = 0;

  const int64_t* begin() const { return data; }
  const int64_t* end() const { return data + size; }
  int64_t operator[](size_t i) const { return data[i]; }
  std::vector<int64_t> vec() const { return {begin(), end()}; }
};

struct TensorView {
  bool defined = false;  // false for an undefined Tensor (an optional operand left out)
  void* data = nullptr;  // the first element
  ScalarType dtype = ScalarType::Float32;
  Device device;
  IntList sizes, strides;  // in elements
  int64_t numel = 0;
  bool contiguous = false;  // row-major with no gaps

  int64_t dim() const { return static_cast<int64_t>(sizes.size); }
  size_t nbytes() const { return static_cast<size_t>(numel) * element_size(dtype); }
  template <typename T>
  T* ptr() const {
    return static_cast<T*>(data);
  }
  // data, or null for an undefined view: the launchers' "may be null" pointers.
  void* ptr_or_null() const { return defined ? data : nullptr; }
};

// The views of a tensor_list, one per tensor (undefined where the list's tensor is).
using TensorList = std::vector<TensorView>;

}  // namespace ember
