// Float32 <-> bfloat16 over contiguous runs, compiled for AVX-512, AVX2 and the baseline (the
// library targets baseline x86-64) and picked at run time, as the float loops of elementwise.cpp.
//
// The rounding is BFloat16's (core/bfloat16.h) written without branches, so the loop vectorises:
// add 0x7FFF plus the lowest kept bit, keep the top half, and write 0x7FC0 for a NaN. The AVX-512
// instruction vcvtneps2bf16 is not used: it flushes subnormals to zero, which PyTorch does not.
#include <cstring>

#include "core/cpu/bfloat16_float.h"

namespace ember::cpu {

namespace {

inline uint16_t round_bits(uint32_t u) {
  const uint32_t rounded = (u + 0x7FFFu + ((u >> 16) & 1u)) >> 16;
  return (u & 0x7FFFFFFFu) > 0x7F800000u ? uint16_t{0x7FC0} : static_cast<uint16_t>(rounded);
}

__attribute__((target_clones("avx512f", "avx2", "default"))) void round_run(uint16_t* out, const uint32_t* in,
                                                                            int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) out[i] = round_bits(in[i]);
}

__attribute__((target_clones("avx512f", "avx2", "default"))) void widen_run(uint32_t* out, const uint16_t* in,
                                                                            int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<uint32_t>(in[i]) << 16;
}

}  // namespace

// BFloat16 and float are plain bits (static_asserted sizes), so the runs are read as integers.
void float_to_bfloat16(BFloat16* out, const float* in, int64_t n) {
  round_run(reinterpret_cast<uint16_t*>(out), reinterpret_cast<const uint32_t*>(in), n);
}

void bfloat16_to_float(float* out, const BFloat16* in, int64_t n) {
  widen_run(reinterpret_cast<uint32_t*>(out), reinterpret_cast<const uint16_t*>(in), n);
}

}  // namespace ember::cpu
