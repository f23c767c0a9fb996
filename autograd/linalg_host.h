// Host copies for the LAPACK-backed linalg files (autograd/linalg.cpp, autograd/linalg_lapack.cpp):
// LAPACK works on column-major matrices in host memory, so each op copies every matrix of the batch
// out in that order and builds its results back on the input's device. Internal to those files.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "autograd/grad_mode.h"
#include "core/tensor.h"

namespace ember::linalg::host {

inline std::vector<int64_t> batch_shape(const Tensor& A) { return {A.sizes().begin(), A.sizes().end() - 2}; }
inline int64_t batch_count(const Tensor& A) {
  int64_t count = 1;
  for (int64_t i = 0; i + 2 < A.dim(); ++i) count *= A.size(i);
  return count;
}
inline std::vector<int64_t> with_last(std::vector<int64_t> batch, std::initializer_list<int64_t> last) {
  batch.insert(batch.end(), last.begin(), last.end());
  return batch;
}
inline std::vector<int64_t> with_matrix(std::vector<int64_t> batch, int64_t rows, int64_t cols) {
  return with_last(std::move(batch), {rows, cols});
}

// Every matrix of A (*, r, c), column-major one after another: the row-major data of A^T.
template <typename T>
std::vector<T> column_major(const Tensor& A) {
  NoGradGuard no_grad;
  return A.detach().to(kCPU).mT().contiguous().template to_vector<T>();
}
// The inverse: (batch..., rows, cols) from column-major matrices, on `device`.
template <typename T>
Tensor from_column_major(const std::vector<T>& data, const std::vector<int64_t>& batch, int64_t rows, int64_t cols,
                         Device device) {
  NoGradGuard no_grad;
  return from_vector<T>(data, with_matrix(batch, cols, rows)).mT().contiguous().to(device);
}
template <typename T>
Tensor from_values(const std::vector<T>& data, const std::vector<int64_t>& shape, Device device) {
  NoGradGuard no_grad;
  return from_vector<T>(data, shape).to(device);
}

// f(T{}) with T the C++ type of the floating dtype.
template <typename F>
auto by_dtype(ScalarType dtype, F f) {
  if (dtype == kFloat64) return f(double{});
  return f(float{});
}

inline int as_int(int64_t n) { return static_cast<int>(n); }

// "(Batch element 3): " where A has batch dims, as PyTorch prefixes its LAPACK errors.
inline std::string batch_prefix(const Tensor& A, int64_t b) {
  return A.dim() > 2 ? "(Batch element " + std::to_string(b) + "): " : "";
}

}  // namespace ember::linalg::host
