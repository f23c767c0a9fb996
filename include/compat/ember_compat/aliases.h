// <torch/torch.h>, part 1 (include/compat/torch/torch.h includes the parts): libtorch's namespaces
// and spellings of what Ember has. torch:: and at:: are ember:: (one using-directive each); c10::,
// caffe2:: and a few sub-namespaces get the names libtorch keeps there.
#pragma once

#include <cstddef>
#include <iterator>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <ember/ember.h>

#include "ember_compat/aten_functions.h"

namespace torch {
using namespace ember;
using namespace ember::compat_aten;  // torch::transpose(x, 0, 1), torch::add_out(out, a, b)
}  // namespace torch

// libtorch code also says at::Tensor, at::kFloat.
namespace at {
using namespace ember;
using namespace ember::compat_aten;
}  // namespace at

// ---- names libtorch has in sub-namespaces that Ember keeps one level up ----
// torch::nn and friends *are* Ember's namespaces (a torch::nn of our own would make `nn::` ambiguous
// after `using namespace torch;`), so these aliases are declared there.
namespace ember::autograd {
using ember::tensor_list;
using Variable = ember::Tensor;
}  // namespace ember::autograd
namespace ember::nn::functional {
using ember::one_hot;
}  // namespace ember::nn::functional

// ---- macros ----
#define TORCH_MODULE(Name) EMBER_MODULE(Name)
#define TORCH_MODULE_IMPL(Name, ImplType) EMBER_MODULE_IMPL(Name, ImplType)
#define FORWARD_HAS_DEFAULT_ARGS(...) EMBER_FORWARD_HAS_DEFAULT_ARGS(__VA_ARGS__)
#define TORCH_ARG(T, name) EMBER_ARG(T, name)

// ---- c10 ----
// libtorch's error type is c10::Error; Ember throws ember::Error (a std::runtime_error), so Ember's
// own exceptions are caught as c10::Error and torch::Error; what() is the message (libtorch appends
// a backtrace, Ember has none).
namespace c10 {
using Error = ember::Error;
using BFloat16 = ember::BFloat16;  // libtorch's bfloat16 element type (at::BFloat16 is ember's, through at)
using Half = ember::Half;          // libtorch's float16 element type, likewise
using ember::ArrayRef;
using ember::IntArrayRef;
using ember::kStrided;
using ember::Layout;
using ember::MemoryFormat;
using ember::Scalar;
using ember::ScalarType;
inline MemoryFormat get_contiguous_memory_format() { return MemoryFormat::Contiguous; }
using std::nullopt;
using std::optional;

// c10::str(parts...): the parts streamed into one string (modules print in libtorch's format).
template <typename... Parts>
std::string str(const Parts&... parts) {
  std::ostringstream stream;
  (stream << ... << parts);
  return stream.str();
}

// c10::irange(end) and c10::irange(begin, end): the integers [begin, end) for a range-for, empty
// when end <= begin, of end's type (libtorch's c10/util/irange.h).
template <typename Integer>
class integer_range {
 public:
  class iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = Integer;
    using difference_type = std::ptrdiff_t;
    using pointer = const Integer*;
    using reference = const Integer&;
    explicit iterator(Integer value) : value_(value) {}
    const Integer& operator*() const { return value_; }
    iterator& operator++() {
      ++value_;
      return *this;
    }
    iterator operator++(int) {
      iterator before = *this;
      ++value_;
      return before;
    }
    bool operator==(const iterator& other) const { return value_ == other.value_; }
    bool operator!=(const iterator& other) const { return value_ != other.value_; }

   private:
    Integer value_;
  };
  integer_range(Integer begin, Integer end) : begin_(begin), end_(end < begin ? begin : end) {}
  iterator begin() const { return iterator(begin_); }
  iterator end() const { return iterator(end_); }

 private:
  Integer begin_;
  Integer end_;
};
template <typename Integer1, typename Integer2,
          typename = std::enable_if_t<std::is_integral_v<Integer1> && std::is_integral_v<Integer2>>>
integer_range<Integer2> irange(Integer1 begin, Integer2 end) {
  return {static_cast<Integer2>(begin), end};
}
template <typename Integer, typename = std::enable_if_t<std::is_integral_v<Integer>>>
integer_range<Integer> irange(Integer end) {
  return {Integer(), end};
}

// c10::List<c10::optional<Tensor>>, ATen's index list, is a std::vector here; torch::indexing and
// at::indexing are ember::indexing (core/indexing.h) through the using-directives above.
template <typename T>
using List = std::vector<T>;

// torch::InferenceMode: a scope without autograd recording (Ember has no separate inference
// tensors: inside it, results need no grad, as NoGradGuard's do). InferenceMode(false) is a no-op.
class InferenceMode {
 public:
  explicit InferenceMode(bool enabled = true)
      : previous_(ember::GradMode::is_enabled()), previous_inference_(active()) {
    if (enabled) {
      ember::GradMode::set_enabled(false);
      active() = true;
    }
  }
  ~InferenceMode() {
    ember::GradMode::set_enabled(previous_);
    active() = previous_inference_;
  }
  InferenceMode(const InferenceMode&) = delete;
  InferenceMode& operator=(const InferenceMode&) = delete;
  static bool is_enabled() { return active(); }

 private:
  static bool& active() {
    thread_local bool value = false;
    return value;
  }
  bool previous_;
  bool previous_inference_;
};
}  // namespace c10

namespace torch {
using c10::InferenceMode;
using c10::str;
// libtorch's datasets return torch::optional<size_t> from size() (c10::optional); Ember's, std::optional.
using std::nullopt;
using std::optional;

namespace compat_detail {

template <typename...>
inline constexpr bool always_false = false;

// Module holders (nn::Linear) and shared pointers to modules.
template <typename V>
concept ModuleHolderType = requires {
  typename V::ContainedType;
}
&&std::is_base_of_v<ember::nn::Module, typename V::ContainedType>;

// libtorch prints tensors in its C++ format, not PyTorch's Python one: select it before main, in
// every program that includes this header (Ember's own printing stays Python's elsewhere).
inline const bool libtorch_print_style = (ember::set_print_style(ember::PrintStyle::LibTorch), true);

}  // namespace compat_detail
}  // namespace torch

// The default dtype: libtorch passes a caffe2::TypeMeta; Ember's TypeMeta converts to and from its
// ScalarType, so torch::set_default_dtype(caffe2::TypeMeta::Make<double>()) lands in
// ember::set_default_dtype. torch::get_default_dtype() returns Ember's ScalarType (prints float64).
namespace caffe2 {
class TypeMeta {
 public:
  TypeMeta() = default;
  TypeMeta(ember::ScalarType type) : type_(type) {}     // NOLINT: implicit
  operator ember::ScalarType() const { return type_; }  // NOLINT
  template <typename T>
  static TypeMeta Make() {
    return TypeMeta(ember::dtype_of<T>::value);
  }
  ember::ScalarType toScalarType() const { return type_; }
  size_t itemsize() const { return ember::element_size(type_); }
  // libtorch's names (typeid's, demangled): "float", "double", "long int", "bool", "c10::BFloat16", ...
  std::string_view name() const {
    switch (type_) {
      case ember::kFloat32:
        return "float";
      case ember::kFloat64:
        return "double";
      case ember::kInt64:
        return "long int";
      case ember::kBool:
        return "bool";
      case ember::kBFloat16:
        return "c10::BFloat16";
      case ember::kFloat16:
        return "c10::Half";
      case ember::kUInt8:
        return "unsigned char";
      case ember::kInt8:
        return "signed char";
      case ember::kInt16:
        return "short int";
      case ember::kInt32:
        return "int";
    }
    return "?";
  }

 private:
  ember::ScalarType type_ = ember::kFloat32;
};
inline std::ostream& operator<<(std::ostream& os, const TypeMeta& t) { return os << t.name(); }
}  // namespace caffe2

namespace ember {
inline caffe2::TypeMeta scalarTypeToTypeMeta(ScalarType type) { return type; }
inline ScalarType typeMetaToScalarType(caffe2::TypeMeta meta) { return meta.toScalarType(); }
inline ScalarType get_default_dtype_as_scalartype() { return get_default_dtype(); }
// libtorch's at::TensorList: torch::cat(list) takes it through the conversion to tensor_list.
using TensorList = ArrayRef<Tensor>;
}  // namespace ember
