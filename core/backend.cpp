// The backend registry: which kernel table serves which device type.
#include "core/backend.h"

#include <atomic>

#include "core/cpu/cpu_backend.h"
#include "core/trace.h"

namespace ember {

namespace {
// ScopedBackendOverride's backends, by DeviceType; null when none.
std::atomic<Backend*> overrides[2] = {nullptr, nullptr};
}  // namespace

Backend& backend_for(Device device) {
  if (Backend* o = overrides[static_cast<int>(device.type)].load(std::memory_order_relaxed)) [[unlikely]]
    return *o;
  static Backend& cpu = trace::level() > 0 ? trace::wrap(cpu::backend()) : cpu::backend();
  if (trace::scope_open()) [[unlikely]]  // a trace::Scope is open: the wrapper (it decides per thread)
    return trace::wrap(device.is_cpu() ? cpu::backend() : cuda_backend());
  if (device.is_cpu()) return cpu;
  static Backend& cuda = trace::level() > 0 ? trace::wrap(cuda_backend()) : cuda_backend();
  return cuda;
}

ScopedBackendOverride::ScopedBackendOverride(DeviceType type, Backend& backend)
    : type_(type), previous_(overrides[static_cast<int>(type)].exchange(&backend)) {}
ScopedBackendOverride::~ScopedBackendOverride() { overrides[static_cast<int>(type_)].store(previous_); }

#define EMBER_NAME_CASE(Name, name, ...) \
  case Op::Name:                         \
    return #name;
const char* op_name(UnaryOp op) {
  using Op = UnaryOp;
  switch (op) { EMBER_UNARY_OPS(EMBER_NAME_CASE) }
  return "?";
}
const char* op_name(BinaryOp op) {
  using Op = BinaryOp;
  switch (op) { EMBER_BINARY_OPS(EMBER_NAME_CASE) }
  return "?";
}
const char* op_name(ReduceOp op) {
  using Op = ReduceOp;
  switch (op) { EMBER_REDUCE_OPS(EMBER_NAME_CASE) }
  return "?";
}
#undef EMBER_NAME_CASE

bool returns_bool(BinaryOp op) {
  switch (op) {
#define EMBER_RETURNS_BOOL(Name, name, expr, R) \
  case BinaryOp::Name:                          \
    return std::is_same_v<R, bool>;
#define T float
    EMBER_BINARY_OPS(EMBER_RETURNS_BOOL)
#undef T
#undef EMBER_RETURNS_BOOL
  }
  return false;
}

}  // namespace ember
