// The backend registry: which kernel table serves which device type.
#include "core/backend.h"

#include "core/cpu/cpu_backend.h"
#include "core/trace.h"

namespace ember {

Backend& backend_for(Device device) {
  static Backend& cpu = trace::level() > 0 ? trace::wrap(cpu::backend()) : cpu::backend();
  if (device.is_cpu()) return cpu;
  static Backend& cuda = trace::level() > 0 ? trace::wrap(cuda_backend()) : cuda_backend();
  return cuda;
}

#define EMBER_NAME_CASE(Name, name, ...) \
  case Op::Name: return #name;
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
  case BinaryOp::Name: return std::is_same_v<R, bool>;
#define T float
    EMBER_BINARY_OPS(EMBER_RETURNS_BOOL)
#undef T
#undef EMBER_RETURNS_BOOL
  }
  return false;
}

}  // namespace ember
