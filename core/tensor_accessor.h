// Accessors: a tensor's elements indexed as a[i][j] without bounds or dtype checks per element, as
// libtorch's TensorAccessor gives them (`auto a = t.accessor<float, 2>(); a[i][j] += 1;`).
//
// A TensorAccessor points into the tensor's own sizes and strides, so it is valid while the tensor
// lives and keeps its shape (as in libtorch, `accessor()` of a temporary does not compile). A packed
// accessor copies sizes and strides, so it can be passed by value (libtorch passes them to CUDA
// kernels); its index type is int32_t (packed_accessor32, refused past 2^31 - 1 elements) or int64_t.
// The dtype and the number of dims are checked once, when the accessor is made (Tensor::accessor).
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/array_ref.h"

namespace ember {

// libtorch's pointer traits: a kernel may ask for __restrict__ pointers (RestrictPtrTraits).
template <typename T>
struct DefaultPtrTraits {
  using PtrType = T*;
};
template <typename T>
struct RestrictPtrTraits {
  using PtrType = T* __restrict__;
};

template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits, typename index_t = int64_t>
class TensorAccessorBase {
 public:
  using PtrType = typename PtrTraits<T>::PtrType;

  TensorAccessorBase(PtrType data, const index_t* sizes, const index_t* strides)
      : data_(data), sizes_(sizes), strides_(strides) {}
  IntArrayRef sizes() const { return IntArrayRef(sizes_, N); }
  IntArrayRef strides() const { return IntArrayRef(strides_, N); }
  index_t size(index_t i) const { return sizes_[i]; }
  index_t stride(index_t i) const { return strides_[i]; }
  PtrType data() { return data_; }
  const PtrType data() const { return data_; }

 protected:
  PtrType data_;
  const index_t* sizes_;
  const index_t* strides_;
};

template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits, typename index_t = int64_t>
class TensorAccessor : public TensorAccessorBase<T, N, PtrTraits, index_t> {
  using Base = TensorAccessorBase<T, N, PtrTraits, index_t>;

 public:
  using Base::Base;
  TensorAccessor<T, N - 1, PtrTraits, index_t> operator[](index_t i) {
    return {this->data_ + this->strides_[0] * i, this->sizes_ + 1, this->strides_ + 1};
  }
  const TensorAccessor<T, N - 1, PtrTraits, index_t> operator[](index_t i) const {
    return {this->data_ + this->strides_[0] * i, this->sizes_ + 1, this->strides_ + 1};
  }
};

template <typename T, template <typename U> class PtrTraits, typename index_t>
class TensorAccessor<T, 1, PtrTraits, index_t> : public TensorAccessorBase<T, 1, PtrTraits, index_t> {
  using Base = TensorAccessorBase<T, 1, PtrTraits, index_t>;

 public:
  using Base::Base;
  T& operator[](index_t i) { return this->data_[this->strides_[0] * i]; }
  const T& operator[](index_t i) const { return this->data_[this->strides_[0] * i]; }
};

// The packed form owns copies of the sizes and strides, converted to index_t.
template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits, typename index_t = int64_t>
class GenericPackedTensorAccessor {
 public:
  using PtrType = typename PtrTraits<T>::PtrType;

  GenericPackedTensorAccessor(PtrType data, const int64_t* sizes, const int64_t* strides) : data_(data) {
    for (size_t i = 0; i < N; ++i) {
      sizes_[i] = static_cast<index_t>(sizes[i]);
      strides_[i] = static_cast<index_t>(strides[i]);
    }
  }
  index_t size(index_t i) const { return sizes_[i]; }
  index_t stride(index_t i) const { return strides_[i]; }
  PtrType data() { return data_; }
  const PtrType data() const { return data_; }

  TensorAccessor<T, N - 1, PtrTraits, index_t> operator[](index_t i) requires(N > 1) {
    return {data_ + strides_[0] * i, sizes_ + 1, strides_ + 1};
  }
  const TensorAccessor<T, N - 1, PtrTraits, index_t> operator[](index_t i) const requires(N > 1) {
    return {data_ + strides_[0] * i, sizes_ + 1, strides_ + 1};
  }
  T& operator[](index_t i) requires(N == 1) { return data_[strides_[0] * i]; }
  const T& operator[](index_t i) const requires(N == 1) { return data_[strides_[0] * i]; }

 private:
  PtrType data_;
  index_t sizes_[N];
  index_t strides_[N];
};

template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits>
using PackedTensorAccessor32 = GenericPackedTensorAccessor<T, N, PtrTraits, int32_t>;
template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits>
using PackedTensorAccessor64 = GenericPackedTensorAccessor<T, N, PtrTraits, int64_t>;

}  // namespace ember
