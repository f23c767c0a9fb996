// bfloat16 and float16 kernels by way of float32: convert the reduced-float operands to float32,
// run the float32 kernel, round each reduced-float output back once.
//
//   if (any_reduced_float({&out, &in})) {
//     Tensor out_f = float32_buffer(out);
//     unary(op, out_f, float32_copy(*this, in));
//     return round_back(*this, out, out_f);
//   }
//
// PyTorch's CPU kernels for bfloat16 and half compute in float (at::opmath_type) and round the result, which
// this matches for one op at a time; the price is a conversion each way. The matrix products have
// their own bf16 kernel (core/cpu/gemm_bf16.h); this header is for everything else a GPT step under
// autocast touches (elementwise ops, reductions, softmax, LayerNorm), and float16 takes the same
// road. Not a general mechanism for dtypes: float32 <-> the reduced floats only.
#pragma once

#include <initializer_list>
#include <vector>

#include "core/cpu/cpu_backend.h"

namespace ember::cpu {

inline bool any_reduced_float(std::initializer_list<const Tensor*> ts) {
  for (const Tensor* t : ts)
    if (t->defined() && is_reduced_floating_point(t->dtype())) return true;
  return false;
}

// A float32 copy of a bf16 or f16 tensor (contiguous, same shape); any other tensor as it is.
inline Tensor float32_copy(Backend& cpu, const Tensor& t) {
  if (!t.defined() || !is_reduced_floating_point(t.dtype())) return t;
  Tensor f = raw_empty(t.sizes(), kFloat32, t.device());
  cpu.copy(f, t);
  return f;
}

// A float32 buffer for a reduced-float output that the kernel only writes; any other tensor as it is.
inline Tensor float32_buffer(const Tensor& t) {
  if (!t.defined() || !is_reduced_floating_point(t.dtype())) return t;
  return raw_empty(t.sizes(), kFloat32, t.device());
}

// Writes the float32 result back into the reduced-float output (rounding to nearest even); a no-op
// when the output was not one (the kernel wrote it directly).
inline void round_back(Backend& cpu, const Tensor& out, const Tensor& out_f) {
  if (out.defined() && is_reduced_floating_point(out.dtype())) cpu.copy(out, out_f);
}

// Float32 <-> bfloat16 over contiguous runs (core/cpu/bfloat16.cpp); vectorised, with the same
// rounding as BFloat16's constructor.
void float_to_bfloat16(BFloat16* out, const float* in, int64_t n);
void bfloat16_to_float(float* out, const BFloat16* in, int64_t n);

}  // namespace ember::cpu
