// TensorOptions: dtype, device, requires_grad, layout and memory format for creation functions, as in
// libtorch; and MemoryFormat and Layout themselves.
//
//   ember::zeros({2, 3}, ember::TensorOptions().dtype(ember::kFloat64).requires_grad(true));
//   ember::ones({2, 2}, ember::requires_grad());
//   ember::arange(5, ember::dtype(ember::kInt64));
//
// An unset dtype means "the default": get_default_dtype() (float32 unless changed) for floating
// values, int64 for integer ones.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>

#include "core/device.h"
#include "core/dtype.h"

namespace ember {

// c10::MemoryFormat: the order of a tensor's elements in memory. Contiguous: row-major. ChannelsLast
// (4-d, N C H W) and ChannelsLast3d (5-d, N C D H W): the channel varies fastest, so a (N, C, H, W)
// tensor has strides (H*W*C, 1, W*C, C). Preserve (for copies): the input's strides when it is dense,
// else the format its strides suggest (Tensor::suggest_memory_format).
enum class MemoryFormat : int8_t { Contiguous, Preserve, ChannelsLast, ChannelsLast3d };
inline const char* memory_format_name(MemoryFormat format) {  // as libtorch prints them
  constexpr const char* kNames[] = {"Contiguous", "Preserve", "ChannelsLast", "ChannelsLast3d"};
  return kNames[static_cast<int>(format)];
}
inline std::ostream& operator<<(std::ostream& os, MemoryFormat format) { return os << memory_format_name(format); }

// c10::Layout: Ember's tensors are all strided (dense); it has no sparse layouts.
enum class Layout : int8_t { Strided };
inline constexpr Layout kStrided = Layout::Strided;
inline std::ostream& operator<<(std::ostream& os, Layout) { return os << "Strided"; }

class TensorOptions {
 public:
  TensorOptions() = default;
  TensorOptions(ScalarType d) : dtype_(d) {}           // NOLINT: implicit, as in libtorch
  TensorOptions(Device d) : device_(d) {}              // NOLINT
  TensorOptions(DeviceType d) : device_(Device(d)) {}  // NOLINT

  // Each setter returns a copy with one field changed, as libtorch's.
  TensorOptions dtype(ScalarType d) const { return with(&TensorOptions::dtype_, d); }
  TensorOptions device(Device d) const { return with(&TensorOptions::device_, d); }
  TensorOptions requires_grad(bool r) const { return with(&TensorOptions::requires_grad_, r); }
  TensorOptions layout(Layout l) const { return with(&TensorOptions::layout_, l); }  // kStrided, the only one
  TensorOptions memory_format(MemoryFormat f) const { return with(&TensorOptions::memory_format_, f); }

  ScalarType dtype() const { return dtype_.value_or(get_default_dtype()); }
  std::optional<ScalarType> dtype_opt() const { return dtype_; }
  bool has_dtype() const { return dtype_.has_value(); }
  Device device() const { return device_; }
  bool requires_grad() const { return requires_grad_; }
  Layout layout() const { return layout_; }
  std::optional<MemoryFormat> memory_format_opt() const { return memory_format_; }

 private:
  template <typename Field, typename Value>
  TensorOptions with(Field TensorOptions::*field, Value value) const {
    TensorOptions o = *this;
    o.*field = value;
    return o;
  }

  std::optional<ScalarType> dtype_;
  Device device_;
  bool requires_grad_ = false;
  Layout layout_ = kStrided;
  std::optional<MemoryFormat> memory_format_;
};

inline TensorOptions dtype(ScalarType d) { return TensorOptions().dtype(d); }
inline TensorOptions device(Device d) { return TensorOptions().device(d); }
inline TensorOptions requires_grad(bool r = true) { return TensorOptions().requires_grad(r); }
inline TensorOptions layout(Layout l) { return TensorOptions().layout(l); }
inline TensorOptions memory_format(MemoryFormat f) { return TensorOptions().memory_format(f); }

}  // namespace ember
