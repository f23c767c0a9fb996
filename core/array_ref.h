// IntArrayRef: a non-owning view of a list of int64 (sizes, strides, dims), like at::IntArrayRef.
//
// Accepts {2, 3}, a std::vector<int64_t>, or a single integer, so sum(1), sum({0, 1}) and
// view(shape_vector) all read as they do in libtorch. It never owns memory: don't store it.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <vector>

#include <fmt/format.h>

namespace ember {

class IntArrayRef {
 public:
  IntArrayRef() = default;
  IntArrayRef(const int64_t& one) : data_(&one), size_(1) {}  // NOLINT
  // The list lives until the end of the full expression, which is as long as an argument needs.
#if !defined(__clang__)  // GCC's warning; Clang has none by this name and would warn about the pragma
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
#endif
  IntArrayRef(std::initializer_list<int64_t> l) : data_(l.begin()), size_(l.size()) {}  // NOLINT
#if !defined(__clang__)
#pragma GCC diagnostic pop
#endif
  IntArrayRef(const std::vector<int64_t>& v) : data_(v.data()), size_(v.size()) {}  // NOLINT
  IntArrayRef(const int64_t* data, size_t n) : data_(data), size_(n) {}

  const int64_t* begin() const { return data_; }
  const int64_t* end() const { return data_ + size_; }
  const int64_t* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  int64_t operator[](size_t i) const { return data_[i]; }
  int64_t front() const { return data_[0]; }
  int64_t back() const { return data_[size_ - 1]; }
  std::vector<int64_t> vec() const { return {begin(), end()}; }
  bool equals(IntArrayRef o) const {
    if (size_ != o.size_) return false;
    for (size_t i = 0; i < size_; ++i)
      if (data_[i] != o.data_[i]) return false;
    return true;
  }
  bool operator==(IntArrayRef o) const { return equals(o); }

 private:
  const int64_t* data_ = nullptr;
  size_t size_ = 0;
};

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
