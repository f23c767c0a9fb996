// Kernels for the narrow integer dtypes (uint8, int8, int16, int32) by way of int64: widen the narrow
// operands, run the int64 kernel, narrow each narrow output back once.
//
//   if (any_narrow_integer({&out, &in})) {
//     Tensor out64 = int64_buffer(out);
//     unary(op, out64, int64_copy(*this, in));
//     return narrow_back(*this, out, out64);
//   }
//
// Narrowing keeps the low bits (two's complement), which is what PyTorch's arithmetic on these types
// gives (uint8 200 + 100 = 44, -int8(-128) = -128): the sum, difference and product of the low bits
// are the low bits of the int64 result. Comparisons and reductions read the widened values, which
// are exact. The price is a conversion each way; the kernels that only move values (copy, fill,
// where, gathers) take the narrow types as they are (dispatch_all, core/backend.h).
#pragma once

#include <initializer_list>

#include "core/cpu/cpu_backend.h"

namespace ember::cpu {

inline bool any_narrow_integer(std::initializer_list<const Tensor*> ts) {
  for (const Tensor* t : ts)
    if (t->defined() && is_narrow_integer(t->dtype())) return true;
  return false;
}

// An int64 copy of a narrow-integer tensor (contiguous, same shape); any other tensor as it is.
inline Tensor int64_copy(Backend& cpu, const Tensor& t) {
  if (!t.defined() || !is_narrow_integer(t.dtype())) return t;
  Tensor wide = raw_empty(t.sizes(), kInt64, t.device());
  cpu.copy(wide, t);
  return wide;
}

// An int64 buffer for a narrow-integer output that the kernel only writes; any other tensor as it is.
inline Tensor int64_buffer(const Tensor& t) {
  if (!t.defined() || !is_narrow_integer(t.dtype())) return t;
  return raw_empty(t.sizes(), kInt64, t.device());
}

// Writes the int64 result back into the narrow output (keeping its low bits); a no-op when the output
// was not narrow (the kernel wrote it directly).
inline void narrow_back(Backend& cpu, const Tensor& out, const Tensor& out64) {
  if (out.defined() && is_narrow_integer(out.dtype())) cpu.copy(out, out64);
}

}  // namespace ember::cpu
