// CPU indexing kernels: index_select / index_add (embedding forward and backward) and
// gather / scatter_add (cross-entropy's pick of the target logit and its gradient).
//
// The op has already checked every index against its bound, so these loops trust them.
// index_select/index_add see contiguous tensors as (outer, dim, inner) blocks and move whole
// inner rows with one loop; gather/scatter_add walk index positions with an odometer.
#include <cstring>

#include "core/cpu/narrow_int.h"
#include "core/cpu/cpu_backend.h"
#include "core/cpu/loops.h"
#include "core/shape.h"

namespace ember::cpu {

namespace {

struct Blocks {
  int64_t outer = 1, inner = 1;
};
Blocks blocks_around(IntArrayRef sizes, int64_t dim) {
  Blocks b;
  for (int64_t d = 0; d < dim; ++d) b.outer *= sizes[d];
  for (size_t d = dim + 1; d < sizes.size(); ++d) b.inner *= sizes[d];
  return b;
}

// Calls f(index_offset, other_offset) for every position of `index` (contiguous), where
// other_offset addresses the same position in `other` (strides `ostrides`) with `dim` left at 0.
template <typename F>
void for_each_position(IntArrayRef sizes, IntArrayRef ostrides, int64_t dim, F f) {
  const int64_t nd = static_cast<int64_t>(sizes.size());
  const int64_t n = numel_of(sizes);
  std::vector<int64_t> counter(nd, 0);
  int64_t other = 0;
  for (int64_t i = 0; i < n; ++i) {
    f(i, other, counter.empty() ? 0 : counter[dim]);
    for (int64_t d = nd - 1; d >= 0; --d) {
      if (d != dim) other += ostrides[d];
      if (++counter[d] < sizes[d]) break;
      if (d != dim) other -= ostrides[d] * sizes[d];
      counter[d] = 0;
    }
  }
}

}  // namespace

void CpuBackend::index_select(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) {
  dispatch_all(in.dtype(), "index_select", [&]<typename T>() {
    const Blocks b = blocks_around(in.sizes(), dim);
    const int64_t src_len = in.sizes()[dim], n = index.numel();
    const int64_t* idx = index.data_ptr<int64_t>();
    const T* x = in.data_ptr<T>();
    T* y = out.data_ptr<T>();
#pragma omp parallel for collapse(2) if (b.outer * n * b.inner >= kParallelGrain)
    for (int64_t o = 0; o < b.outer; ++o)
      for (int64_t i = 0; i < n; ++i)
        std::memcpy(y + (o * n + i) * b.inner, x + (o * src_len + idx[i]) * b.inner, b.inner * sizeof(T));
  });
}

void CpuBackend::index_add(const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src) {
  if (any_narrow_integer({&out, &src})) {  // accumulated in int64, narrowed once
    Tensor out64 = int64_copy(*this, out);
    index_add(out64, dim, index, int64_copy(*this, src));
    return narrow_back(*this, out, out64);
  }
  dispatch(out.dtype(), "index_add", [&]<typename T>() {
    const Blocks b = blocks_around(out.sizes(), dim);
    const int64_t dst_len = out.sizes()[dim], n = index.numel();
    const int64_t* idx = index.data_ptr<int64_t>();
    const T* x = src.data_ptr<T>();
    T* y = out.data_ptr<T>();
    for (int64_t o = 0; o < b.outer; ++o)  // serial: repeated indices add into the same row
      for (int64_t i = 0; i < n; ++i) {
        T* dst = y + (o * dst_len + idx[i]) * b.inner;
        const T* s = x + (o * n + i) * b.inner;
        for (int64_t j = 0; j < b.inner; ++j) dst[j] += s[j];
      }
  });
}

void CpuBackend::gather(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) {
  dispatch_all(in.dtype(), "gather", [&]<typename T>() {
    const int64_t* idx = index.data_ptr<int64_t>();
    const T* x = static_cast<const T*>(in.raw_data_ptr());
    T* y = out.data_ptr<T>();
    const int64_t dstride = in.strides()[dim];
    for_each_position(index.sizes(), in.strides(), dim,
                      [&](int64_t i, int64_t off, int64_t) { y[i] = x[off + idx[i] * dstride]; });
  });
}

void CpuBackend::scatter_add(const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src) {
  if (any_narrow_integer({&out, &src})) {
    Tensor out64 = int64_copy(*this, out);
    scatter_add(out64, dim, index, int64_copy(*this, src));
    return narrow_back(*this, out, out64);
  }
  dispatch(out.dtype(), "scatter_add", [&]<typename T>() {
    const int64_t* idx = index.data_ptr<int64_t>();
    const T* s = src.data_ptr<T>();
    T* y = static_cast<T*>(out.raw_data_ptr());
    const int64_t dstride = out.strides()[dim];
    for_each_position(index.sizes(), out.strides(), dim,
                      [&](int64_t i, int64_t off, int64_t) { y[off + idx[i] * dstride] += s[i]; });
  });
}

}  // namespace ember::cpu
