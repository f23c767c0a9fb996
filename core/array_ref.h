// ArrayRef<T>: a non-owning view of a list of T, like at::ArrayRef; IntArrayRef is ArrayRef<int64_t>
// (sizes, strides, dims).
//
//   x.sum({0, 1});  x.view(shape_vector);  x.sum(1);      // a braced list, a vector, one value
//   ember::ArrayRef<ember::Tensor> list(tensors);         // libtorch's at::TensorList
//
// It never owns memory: don't store it. A braced list lives until the end of the full
// expression, which is as long as an argument needs.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <vector>

#include <fmt/format.h>

namespace ember {

template <typename T>
class ArrayRef {
 public:
  using value_type = T;
  using iterator = const T*;
  using const_iterator = const T*;

  ArrayRef() = default;
  ArrayRef(const T& one) : data_(&one), size_(1) {}  // NOLINT: implicit, as in libtorch
#if !defined(__clang__)  // GCC's warning; Clang has none by this name and would warn about the pragma
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
#endif
  ArrayRef(std::initializer_list<T> l) : data_(l.begin()), size_(l.size()) {}  // NOLINT
#if !defined(__clang__)
#pragma GCC diagnostic pop
#endif
  ArrayRef(const std::vector<T>& v) : data_(v.data()), size_(v.size()) {}  // NOLINT
  template <size_t N>
  ArrayRef(const std::array<T, N>& a) : data_(a.data()), size_(N) {}  // NOLINT
  template <size_t N>
  ArrayRef(const T (&a)[N]) : data_(a), size_(N) {}  // NOLINT
  ArrayRef(const T* data, size_t n) : data_(data), size_(n) {}
  ArrayRef(const T* begin, const T* end) : data_(begin), size_(static_cast<size_t>(end - begin)) {}

  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  const T* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const T& operator[](size_t i) const { return data_[i]; }
  const T& front() const { return data_[0]; }
  const T& back() const { return data_[size_ - 1]; }
  // Elements [n, n + m) and [n, end).
  ArrayRef slice(size_t n, size_t m) const { return {data_ + n, m}; }
  ArrayRef slice(size_t n) const { return {data_ + n, size_ - n}; }
  std::vector<T> vec() const { return {begin(), end()}; }
  operator std::vector<T>() const { return vec(); }  // NOLINT: libtorch's TensorList -> tensor_list
  bool equals(ArrayRef o) const {
    if (size_ != o.size_) return false;
    for (size_t i = 0; i < size_; ++i)
      if (!(data_[i] == o.data_[i])) return false;
    return true;
  }
  bool operator==(ArrayRef o) const { return equals(o); }

 private:
  const T* data_ = nullptr;
  size_t size_ = 0;
};

using IntArrayRef = ArrayRef<int64_t>;

// "[2, 3]", the way shapes appear in every error message.
inline std::string shape_str(IntArrayRef s) { return fmt::format("[{}]", fmt::join(s, ", ")); }
inline std::ostream& operator<<(std::ostream& os, IntArrayRef s) { return os << shape_str(s); }

}  // namespace ember

template <>
struct fmt::formatter<ember::IntArrayRef> : fmt::formatter<std::string> {
  auto format(ember::IntArrayRef s, format_context& ctx) const {
    return fmt::formatter<std::string>::format(ember::shape_str(s), ctx);
  }
};
