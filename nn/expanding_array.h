// ExpandingArray<D>: D integers given as one (used for every dim) or as D, as libtorch's
// torch::ExpandingArray; the type of kernel_size, stride, padding and dilation in the convolution and
// pooling options.
// Also the tags libtorch options use for padding and padding modes (ember::kSame, kValid, kZeros, ...).
//
//   ember::ExpandingArray<2> k(3);         // [3, 3]
//   ember::ExpandingArray<2> s({2, 1});    // [2, 1]
//   std::cout << k;                        // [3, 3] (an ExpandingArray<1> prints as 3)
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <ostream>
#include <vector>

#include "core/array_ref.h"
#include "core/error.h"

namespace ember {

template <size_t D, typename T = int64_t>
class ExpandingArray {
 public:
  ExpandingArray(T single) { values_.fill(single); }  // NOLINT: implicit, as in libtorch
  ExpandingArray(std::initializer_list<T> list) : ExpandingArray(std::vector<T>(list)) {}
  ExpandingArray(const std::vector<T>& list) {  // NOLINT
    EMBER_CHECK(list.size() == D, "Expected {} values, but instead got {}", D, list.size());
    std::copy(list.begin(), list.end(), values_.begin());
  }
  ExpandingArray(ArrayRef<T> list) : ExpandingArray(list.vec()) {}  // NOLINT

  // libtorch reads an ExpandingArray through * and -> as an ArrayRef.
  ArrayRef<T> operator*() const { return ArrayRef<T>(values_); }
  const ArrayRef<T>* operator->() const {
    ref_ = ArrayRef<T>(values_);
    return &ref_;
  }
  operator ArrayRef<T>() const { return ArrayRef<T>(values_); }  // NOLINT
  const T& operator[](size_t i) const { return values_[i]; }
  T& operator[](size_t i) { return values_[i]; }
  const T* data() const { return values_.data(); }
  T* data() { return values_.data(); }
  static constexpr size_t size() { return D; }
  std::vector<T> vec() const { return {values_.begin(), values_.end()}; }
  bool operator==(const ExpandingArray& other) const { return values_ == other.values_; }

 private:
  std::array<T, D> values_;
  mutable ArrayRef<T> ref_;
};

// As libtorch prints it: one value bare ("3"), more as a list ("[3, 3]").
template <size_t D, typename T>
std::ostream& operator<<(std::ostream& os, const ExpandingArray<D, T>& a) {
  if (D == 1) return os << a[0];
  os << '[';
  for (size_t i = 0; i < D; ++i) os << (i ? ", " : "") << a[i];
  return os << ']';
}

// ExpandingArrayWithOptionalElem<D>: D sizes, each a number or std::nullopt ("None": keep the
// input's size there), as libtorch's; the output size of the 2-d and 3-d adaptive poolings.
//
//   ember::nn::AdaptiveAvgPool2dOptions o({std::nullopt, 7});   // (N, C, H, W) -> (N, C, H, 7)
//   std::cout << o.output_size();                              // [None, 7]
template <size_t D, typename T = int64_t>
class ExpandingArrayWithOptionalElem : public ExpandingArray<D, std::optional<T>> {
  using Base = ExpandingArray<D, std::optional<T>>;

 public:
  using Base::Base;  // one optional for every dim, or an initializer list of optionals
  ExpandingArrayWithOptionalElem(T single) : Base(std::optional<T>(single)) {}  // NOLINT: implicit
  ExpandingArrayWithOptionalElem(std::initializer_list<T> list)
      : ExpandingArrayWithOptionalElem(std::vector<T>(list)) {}
  ExpandingArrayWithOptionalElem(const std::vector<T>& list) : Base(std::optional<T>()) {  // NOLINT
    EMBER_CHECK(list.size() == D, "Expected {} values, but instead got {}", D, list.size());
    for (size_t i = 0; i < D; ++i) (*this)[i] = list[i];
  }
  ExpandingArrayWithOptionalElem(ArrayRef<T> list) : ExpandingArrayWithOptionalElem(list.vec()) {}  // NOLINT
  ExpandingArrayWithOptionalElem(const std::array<T, D>& list)                                      // NOLINT
      : ExpandingArrayWithOptionalElem(std::vector<T>(list.begin(), list.end())) {}
  ExpandingArrayWithOptionalElem(const ExpandingArray<D, T>& sizes)  // NOLINT
      : ExpandingArrayWithOptionalElem(sizes.vec()) {}

  // The sizes with each None replaced by the matching one of `defaults` (the input's last D sizes).
  ExpandingArray<D, T> value_or(ArrayRef<T> defaults) const {
    EMBER_CHECK(defaults.size() >= D, "Expected at least {} sizes to fill None from, but got {}", D, defaults.size());
    std::vector<T> sizes(D);
    for (size_t i = 0; i < D; ++i) sizes[i] = (*this)[i].value_or(defaults[defaults.size() - D + i]);
    return ExpandingArray<D, T>(sizes);
  }
};

// As libtorch prints it: "None" for an unset size, one value bare, more as a list ("[None, 7]").
template <size_t D, typename T>
std::ostream& operator<<(std::ostream& os, const ExpandingArrayWithOptionalElem<D, T>& a) {
  auto put = [&os](const std::optional<T>& v) -> std::ostream& { return v ? os << *v : os << "None"; };
  if (D == 1) return put(a[0]);
  os << '[';
  for (size_t i = 0; i < D; ++i) {
    if (i) os << ", ";
    put(a[i]);
  }
  return os << ']';
}

// Option tags, as torch::enumtype's: padding ("same" keeps the size, "valid" is no padding), padding
// modes and interpolation modes. Convolution layers take kZeros, kReflect, kReplicate and kCircular as
// padding_mode (transposed ones only kZeros); F::pad takes kConstant, kReflect, kReplicate and
// kCircular; F::interpolate the modes from kNearest on
// and kLinear (nn/init.h, where it is also a nonlinearity); F::grid_sample kBilinear, kNearest and
// kBicubic, with padding modes kZeros, kBorder and kReflection.
namespace enumtype {
struct kSame {};
struct kValid {};
struct kZeros {};
struct kReflect {};
struct kReplicate {};
struct kCircular {};
struct kConstant {};
struct kNearest {};
struct kNearestExact {};
struct kBilinear {};
struct kBicubic {};
struct kTrilinear {};
struct kArea {};
struct kBorder {};
struct kReflection {};
struct kMax {};  // EmbeddingBag's mode (kSum and kMean are the loss reductions)
}  // namespace enumtype
inline constexpr enumtype::kSame kSame{};
inline constexpr enumtype::kValid kValid{};
inline constexpr enumtype::kZeros kZeros{};
inline constexpr enumtype::kReflect kReflect{};
inline constexpr enumtype::kReplicate kReplicate{};
inline constexpr enumtype::kCircular kCircular{};
inline constexpr enumtype::kConstant kConstant{};
inline constexpr enumtype::kNearest kNearest{};
inline constexpr enumtype::kNearestExact kNearestExact{};
inline constexpr enumtype::kBilinear kBilinear{};
inline constexpr enumtype::kBicubic kBicubic{};
inline constexpr enumtype::kTrilinear kTrilinear{};
inline constexpr enumtype::kArea kArea{};
inline constexpr enumtype::kBorder kBorder{};
inline constexpr enumtype::kReflection kReflection{};
inline constexpr enumtype::kMax kMax{};

}  // namespace ember
