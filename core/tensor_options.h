// TensorOptions: dtype, device and requires_grad for creation functions, as in libtorch.
//
//   ember::zeros({2, 3}, ember::TensorOptions().dtype(ember::kFloat64).requires_grad(true));
//   ember::ones({2, 2}, ember::requires_grad());
//   ember::arange(5, ember::dtype(ember::kInt64));
//
// An unset dtype means "the default": get_default_dtype() (float32 unless changed) for floating
// values, int64 for integer ones.
#pragma once

#include <optional>

#include "core/device.h"
#include "core/dtype.h"

namespace ember {

class TensorOptions {
 public:
  TensorOptions() = default;
  TensorOptions(ScalarType d) : dtype_(d) {}           // NOLINT: implicit, as in libtorch
  TensorOptions(Device d) : device_(d) {}              // NOLINT
  TensorOptions(DeviceType d) : device_(Device(d)) {}  // NOLINT

  TensorOptions dtype(ScalarType d) const {
    auto o = *this;
    o.dtype_ = d;
    return o;
  }
  TensorOptions device(Device d) const {
    auto o = *this;
    o.device_ = d;
    return o;
  }
  TensorOptions requires_grad(bool r) const {
    auto o = *this;
    o.requires_grad_ = r;
    return o;
  }

  ScalarType dtype() const { return dtype_.value_or(get_default_dtype()); }
  std::optional<ScalarType> dtype_opt() const { return dtype_; }
  bool has_dtype() const { return dtype_.has_value(); }
  Device device() const { return device_; }
  bool requires_grad() const { return requires_grad_; }

 private:
  std::optional<ScalarType> dtype_;
  Device device_;
  bool requires_grad_ = false;
};

inline TensorOptions dtype(ScalarType d) { return TensorOptions().dtype(d); }
inline TensorOptions device(Device d) { return TensorOptions().device(d); }
inline TensorOptions requires_grad(bool r = true) { return TensorOptions().requires_grad(r); }

}  // namespace ember
