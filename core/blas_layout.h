// How a BLAS reads a strided matrix, written once for OpenBLAS (core/cpu/matmul.cpp) and cuBLAS
// (cuda/matmul.cpp). A row-major (rows, cols) matrix is readable as is when its columns are
// adjacent (col_stride 1: rows `ld` elements apart), or as the transpose of a row-major
// (cols, rows) matrix when its rows are (row_stride 1: columns ld apart); a dim of size 1 has any
// stride. Anything else (a strided slice) must be made contiguous first.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>

namespace ember {

struct BlasLayout {
  bool transposed;  // read as the transpose of a row-major matrix
  int64_t ld;       // the leading dimension: elements between rows (columns when transposed)
};

inline std::optional<BlasLayout> blas_layout(int64_t rows, int64_t cols, int64_t row_stride, int64_t col_stride) {
  if (col_stride == 1 || cols == 1) {
    const int64_t ld = rows == 1 ? std::max<int64_t>(cols, 1) : row_stride;
    if (ld >= std::max<int64_t>(cols, 1)) return BlasLayout{false, ld};
  }
  if (row_stride == 1 || rows == 1) {
    const int64_t ld = cols == 1 ? std::max<int64_t>(rows, 1) : col_stride;
    if (ld >= std::max<int64_t>(rows, 1)) return BlasLayout{true, ld};
  }
  return std::nullopt;
}

}  // namespace ember
