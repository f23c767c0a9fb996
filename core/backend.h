// The backend interface: the one table of kernels each device implements.
//
// autograd/, nn/ and optim/ never ask which device a tensor is on; they call ops, ops call
// backend_for(device).kernel(...). The CPU backend is core/cpu/, the CUDA backend cuda/; a build
// without CUDA registers a stub whose every call throws "built without CUDA support".
//
// Conventions for every kernel: outputs first, then inputs, then sizes. Outputs are allocated by
// the caller with the right shape and dtype; inputs are on the output's device. Inputs may be any
// strided view (stride 0 for broadcast dims) unless a kernel says "contiguous". Kernels check
// nothing a caller already checked: argument validation with user-facing messages happens in
// the op (autograd/), once, for every device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/backend_kernels.h"
#include "core/conv_shape.h"
#include "core/dispatch.h"
#include "core/functors.h"
#include "core/optim_rules.h"
#include "core/philox.h"
#include "core/tensor.h"

namespace ember {

class Generator;
struct PoolGeometry;  // core/pool.h: the windows of the pooling kernels

// Expansions for the classes that implement the lists: a backend's class body holds
//   EMBER_BACKEND_KERNELS(EMBER_DECLARE_KERNEL)            every kernel, as overrides
//   EMBER_FUSED_KERNELS(EMBER_DECLARE_FUSED_KERNEL)         the fused kernels, where it has all of them
//   EMBER_OPTIMIZER_KERNELS(EMBER_DECLARE_FUSED_KERNEL)     likewise the optimizer kernels
#define EMBER_DECLARE_KERNEL(name, params, ...) void name params override;
#define EMBER_DECLARE_FUSED_KERNEL(name, params, ...) bool name params override;

class Backend {
 public:
  virtual ~Backend() = default;
  virtual const char* name() const = 0;

  // ---- memory ----
  virtual void* allocate(size_t nbytes, Device device) = 0;
  virtual void deallocate(void* ptr, Device device) = 0;
  // Copies between this device and host memory; `dst`/`src` are contiguous byte ranges.
  virtual void copy_to_host(void* dst, const void* src, size_t nbytes, Device device) = 0;
  virtual void copy_from_host(void* dst, const void* src, size_t nbytes, Device device) = 0;

  // ---- kernels (contracts in the lists above) ----
#define EMBER_PURE_KERNEL(name, params, ...) virtual void name params = 0;
  EMBER_BACKEND_KERNELS(EMBER_PURE_KERNEL)
#undef EMBER_PURE_KERNEL
#define EMBER_OPTIONAL_KERNEL(name, params, ...) \
  virtual bool name params { return false; }
  EMBER_FUSED_KERNELS(EMBER_OPTIONAL_KERNEL)
  EMBER_OPTIMIZER_KERNELS(EMBER_OPTIONAL_KERNEL)
  EMBER_FLASH_KERNELS(EMBER_OPTIONAL_KERNEL)
  EMBER_PHILOX_KERNELS(EMBER_OPTIONAL_KERNEL)
#undef EMBER_OPTIONAL_KERNEL
};

// The backend that runs kernels for `device`: the one place device choice happens.
Backend& backend_for(Device device);
inline Backend& backend_for(const Tensor& t) { return backend_for(t.device()); }

// For tests: while alive, kernels for `type`'s tensors run on `backend` instead (a device that
// lacks a fused kernel, say). Not for use while other threads run ops; `backend` must outlive the
// tensors allocated through it (their storage frees itself through it).
class ScopedBackendOverride {
 public:
  ScopedBackendOverride(DeviceType type, Backend& backend);
  ~ScopedBackendOverride();
  ScopedBackendOverride(const ScopedBackendOverride&) = delete;
  ScopedBackendOverride& operator=(const ScopedBackendOverride&) = delete;

 private:
  DeviceType type_;
  Backend* previous_;
};

// Runs `f.template operator()<T>()` with T the C++ type of `dtype` (the switch is core/dispatch.h's):
//   dispatch(t.dtype(), "sum", [&]<typename T>() { ... });
// dispatch takes float32, float64, int64 and bool. The reduced floats (BFloat16, Half) only where
// a kernel says so (dispatch_with_bfloat16, or its own float32 path); the narrow integers only in
// dispatch_all, or computed as int64 (core/cpu/narrow_int.h).
template <typename F>
decltype(auto) dispatch(ScalarType dtype, const char* op, F&& f) {
  return dispatch_among<float, double, int64_t, bool>(
      dtype, f, [&] { EMBER_FAIL("{}: not implemented for '{}'", op, scalar_type_name(dtype)); });
}

// dispatch plus the reduced floats (ember::BFloat16 and ember::Half, which convert to and from
// float), for kernels that handle them as they are: those that only move or compare values.
template <typename F>
decltype(auto) dispatch_with_bfloat16(ScalarType dtype, const char* op, F&& f) {
  return dispatch_among<float, double, int64_t, bool, BFloat16, Half>(
      dtype, f, [&] { EMBER_FAIL("{}: not implemented for '{}'", op, scalar_type_name(dtype)); });
}

// Every dtype, for kernels that only move values (copy, fill, where, triangle, gathers), which need
// no arithmetic beyond what each C++ type has.
template <typename F>
decltype(auto) dispatch_all(ScalarType dtype, const char* op, F&& f) {
  return dispatch_among<float, double, int64_t, bool, BFloat16, uint8_t, int8_t, int16_t, int32_t, Half>(
      dtype, f, [&] { EMBER_FAIL("{}: not implemented for '{}'", op, scalar_type_name(dtype)); });
}

// Like dispatch, for kernels that exist only for float32 and float64.
template <typename F>
decltype(auto) dispatch_floating(ScalarType dtype, const char* op, F&& f) {
  return dispatch_among<float, double>(dtype, f, [&] {
    if (is_reduced_floating_point(dtype)) EMBER_FAIL("{}: not implemented for '{}'", op, scalar_type_name(dtype));
    EMBER_FAIL("{}: expected a floating-point tensor (float32 or float64), got {}", op, dtype_name(dtype));
  });
}

}  // namespace ember

namespace ember {
// The CUDA backend: defined in cuda/runtime.cpp when it is linked in, else by cuda/loader.cpp (the
// plugin's, or one whose every kernel throws "built without CUDA support"). The build links one.
Backend& cuda_backend();
}  // namespace ember
