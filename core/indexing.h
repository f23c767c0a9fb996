// Tensor indexing with libtorch's C++ spelling of Python's x[...] (at::indexing).
//
//   using namespace ember::indexing;
//   ember::Tensor x = ember::randn({3, 4, 5});
//   ember::Tensor v = x.index({0, Slice(1, None, 2)});       // x[0, 1::2], a view of x
//   ember::Tensor c = x.index({"...", ember::tensor({2, 0})}); // x[..., [2, 0]], a copy
//   x.index_put_({x > 0}, 0);                                 // x[x > 0] = 0
//   x.index({Slice(), 1}) = 7;                                // x[:, 1] = 7 (writes through the view)
//
// Ints, slices, None, Ellipsis ("...") and bools make views (select / slice / unsqueeze), so
// writes through them reach the base and autograd follows the view ops. Integer and bool-mask
// tensors ("advanced" indices) make copies: autograd/indexing.cpp gathers them with
// index_select and scatters the gradient back with index_add. This header holds only the index
// types; the methods are Tensor's (core/tensor.h). Included by core/tensor.h.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <ostream>

#include "core/error.h"

namespace ember::indexing {

inline constexpr int64_t INDEX_MAX = std::numeric_limits<int64_t>::max();
inline constexpr int64_t INDEX_MIN = std::numeric_limits<int64_t>::min();

// Python's None: a new dim of size 1 (x[None]), or an open end of a Slice.
inline constexpr std::nullopt_t None = std::nullopt;

// Python's ... : as many full slices as the other indices leave dims.
struct EllipsisIndexType final {};
inline constexpr EllipsisIndexType Ellipsis{};

// Python's start:stop:step; open ends are None (std::nullopt), negative ends count from the end.
class Slice final {
 public:
  Slice(std::optional<int64_t> start = std::nullopt, std::optional<int64_t> stop = std::nullopt,
        std::optional<int64_t> step = std::nullopt) {
    step_ = step.value_or(1);
    EMBER_CHECK(step_ != 0, "Slice: slice step cannot be zero");
    if (step_ < -INDEX_MAX) step_ = -INDEX_MAX;  // so that -step never overflows
    start_ = start.value_or(step_ < 0 ? INDEX_MAX : 0);
    stop_ = stop.value_or(step_ < 0 ? INDEX_MIN : INDEX_MAX);
  }
  int64_t start() const { return start_; }
  int64_t stop() const { return stop_; }
  int64_t step() const { return step_; }

 private:
  int64_t start_, stop_, step_;
};

enum class TensorIndexType { None, Ellipsis, Integer, Boolean, Slice, Tensor };

// One entry of x.index({...}): None, Ellipsis or "...", an integer, a bool, a Slice or a Tensor.
class TensorIndex final {
 public:
  TensorIndex(std::nullopt_t) : type_(TensorIndexType::None) {}         // NOLINT: implicit, as in libtorch
  TensorIndex(EllipsisIndexType) : type_(TensorIndexType::Ellipsis) {}  // NOLINT
  TensorIndex(const char* str) : type_(TensorIndexType::Ellipsis) {     // NOLINT
    EMBER_CHECK(std::strcmp(str, "...") == 0,
                "TensorIndex: expected \"...\" to represent an ellipsis index, got \"{}\"", str);
  }
  TensorIndex(int64_t integer) : integer_(integer), type_(TensorIndexType::Integer) {}  // NOLINT
  TensorIndex(int integer) : TensorIndex(static_cast<int64_t>(integer)) {}              // NOLINT
  // A template, so that only a real bool (not a pointer or an int) becomes a Boolean index.
  template <class T, class = std::enable_if_t<std::is_same_v<T, bool>>>
  TensorIndex(T boolean) : boolean_(boolean), type_(TensorIndexType::Boolean) {}              // NOLINT
  TensorIndex(Slice slice) : slice_(slice), type_(TensorIndexType::Slice) {}                  // NOLINT
  TensorIndex(Tensor tensor) : tensor_(std::move(tensor)), type_(TensorIndexType::Tensor) {}  // NOLINT

  TensorIndexType type() const { return type_; }
  bool is_none() const { return type_ == TensorIndexType::None; }
  bool is_ellipsis() const { return type_ == TensorIndexType::Ellipsis; }
  bool is_integer() const { return type_ == TensorIndexType::Integer; }
  bool is_boolean() const { return type_ == TensorIndexType::Boolean; }
  bool is_slice() const { return type_ == TensorIndexType::Slice; }
  bool is_tensor() const { return type_ == TensorIndexType::Tensor; }
  int64_t integer() const { return integer_; }
  bool boolean() const { return boolean_; }
  const Slice& slice() const { return slice_; }
  const Tensor& tensor() const { return tensor_; }

 private:
  int64_t integer_ = 0;
  bool boolean_ = false;
  Slice slice_;
  Tensor tensor_;
  TensorIndexType type_;
};

// As libtorch prints them: a Slice as start:stop:step ("1:9223372036854775807:2"), "...", "None",
// a tensor index as its sizes ("Tensor([2])").
std::ostream& operator<<(std::ostream& os, const Slice& slice);
std::ostream& operator<<(std::ostream& os, const TensorIndex& index);

}  // namespace ember::indexing
