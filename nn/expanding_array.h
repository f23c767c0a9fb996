// ExpandingArray<D>: D integers given as one value (repeated) or a list of D, as torch::ExpandingArray;
// the kernel_size, stride and padding of the pooling options.
//
//   ember::ExpandingArray<2> k = 3;          // [3, 3]
//   ember::ExpandingArray<2> s({2, 1});      // [2, 1]
//   std::cout << k;                          // [3, 3]; an ExpandingArray<1> prints as 3
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <vector>

#include "core/array_ref.h"
#include "core/error.h"

namespace ember {

template <size_t D, typename T = int64_t>
class ExpandingArray {
 public:
  ExpandingArray(T single) { values_.fill(single); }
  ExpandingArray(std::initializer_list<T> list) : ExpandingArray(std::vector<T>(list)) {}
  ExpandingArray(const std::vector<T>& list) {
    EMBER_CHECK(list.size() == D, "Expected {} values, but instead got {}", D, list.size());
    for (size_t i = 0; i < D; ++i) values_[i] = list[i];
  }

  T& operator[](size_t i) { return values_[i]; }
  const T& operator[](size_t i) const { return values_[i]; }
  T* data() { return values_.data(); }
  const T* data() const { return values_.data(); }
  static constexpr size_t size() { return D; }
  operator ArrayRef<T>() const { return ArrayRef<T>(values_.data(), D); }
  std::vector<T> vec() const { return {values_.begin(), values_.end()}; }
  bool operator==(const ExpandingArray& other) const { return values_ == other.values_; }

 private:
  std::array<T, D> values_{};
};

// As libtorch: one value alone ("3"), several as a list ("[3, 3]").
template <size_t D, typename T>
std::ostream& operator<<(std::ostream& stream, const ExpandingArray<D, T>& array) {
  if (D == 1) return stream << array[0];
  return stream << IntArrayRef(array.data(), D);
}

}  // namespace ember
