// The AMX kernel behind core/cpu/gemm_bf16.h's kAmx: bf16 products on tiles (tdpbf16ps), float32
// sums for the whole of K, stored as float32 or rounded into bf16 in the epilogue.
//
//   if (amx_usable()) gemm_amx(a, b, M, N, K, /*C=*/nullptr, Cb, ldc, /*add=*/true);
//
// Internal to the bf16 gemm: callers go through gemm_bf16 / gemm_bf16_rounded, which pick a kernel.
#pragma once

#include <cstdint>

#include "core/cpu/gemm_bf16.h"

namespace ember::cpu {

// Whether cpuid reports AMX-TILE, AMX-BF16 (and AVX512_BF16) and the kernel grants this process the
// tile state (arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA); asked once, on first call).
bool amx_usable();

// C (M, N; ldc) = op(A) op(B), or += with `add`, when C is given; else Cb (M, N; ldc) =
// round(op(A) op(B) [+ Cb]) to bf16 (nearest even), the sum in float32. Needs amx_usable().
void gemm_amx(const Bf16Matrix& a, const Bf16Matrix& b, int64_t M, int64_t N, int64_t K, float* C, BFloat16* Cb,
              int64_t ldc, bool add);

}  // namespace ember::cpu
