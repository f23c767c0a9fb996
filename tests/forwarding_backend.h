// A Backend that passes every call to another one (the CPU's): the base of the tests' backends that
// vary a few kernels (a device without some fused kernel, say). A derived class overrides those and
// reaches the real backend through `inner_`. Install it with ScopedBackendOverride; it must outlive
// the tensors made through it, which free themselves through it.
#pragma once

#include "core/backend.h"

namespace ember::test {

class ForwardingBackend : public Backend {
 public:
  explicit ForwardingBackend(Backend& inner) : inner_(inner) {}
  const char* name() const override { return inner_.name(); }
  void* allocate(size_t n, Device d) override { return inner_.allocate(n, d); }
  void deallocate(void* p, Device d) override { inner_.deallocate(p, d); }
  void copy_to_host(void* dst, const void* src, size_t n, Device d) override { inner_.copy_to_host(dst, src, n, d); }
  void copy_from_host(void* dst, const void* src, size_t n, Device d) override {
    inner_.copy_from_host(dst, src, n, d);
  }
#define EMBER_FORWARD_KERNEL(name, params, args, ...) \
  void name params override { inner_.name args; }
#define EMBER_FORWARD_OPTIONAL_KERNEL(name, params, args, ...) \
  bool name params override { return inner_.name args; }
  EMBER_BACKEND_KERNELS(EMBER_FORWARD_KERNEL)
  EMBER_FUSED_KERNELS(EMBER_FORWARD_OPTIONAL_KERNEL)
  EMBER_OPTIMIZER_KERNELS(EMBER_FORWARD_OPTIONAL_KERNEL)
  EMBER_FLASH_KERNELS(EMBER_FORWARD_OPTIONAL_KERNEL)
  EMBER_PHILOX_KERNELS(EMBER_FORWARD_OPTIONAL_KERNEL)
#undef EMBER_FORWARD_OPTIONAL_KERNEL
#undef EMBER_FORWARD_KERNEL

 protected:
  Backend& inner_;
};

}  // namespace ember::test
