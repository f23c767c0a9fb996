// The bfloat16 matrix product: C (M, N) float32 = op(A) op(B), or C += op(A) op(B), with A and B
// bfloat16 and every product summed in float32, as PyTorch's CPU bf16 gemm (mkldnn) does.
//
//   gemm_bf16({A, /*trans=*/false, K}, {B, /*trans=*/true, K}, M, N, K, C, /*ldc=*/N, /*add=*/false);
//
// Four kernels, chosen at run time:
//   kAmx         Ember's own on AMX tiles (tdpbf16ps, core/cpu/gemm_amx.cpp), for CPUs with AMX-BF16
//                (Sapphire Rapids and later Xeons) whose kernel grants the tile state;
//   kAvx512Bf16  Ember's own, on vdpbf16ps (two bf16 products summed into a float lane), for CPUs
//                whose cpuid reports AVX512_BF16 (Zen 4/5, Cooper Lake, Sapphire Rapids);
//   kOpenBlas    OpenBLAS's cblas_sbgemm, where the OpenBLAS loaded has it (found at run time);
//   kFloat32     both operands widened to float32, then cblas_sgemm: the fallback for every CPU.
// The default is kAmx where usable; else kAvx512Bf16 where the CPU has it and vdpbf16ps does more
// flops than float32 FMA (measured once, in a millisecond: true on Zen 4/5, false on Intel's cores,
// where it runs at half the float32 rate); else kFloat32. EMBER_BF16_GEMM=amx|avx512bf16|openblas|
// float32 or set_bf16_gemm_kernel() choose another (tests and benchmarks run each one).
// Choosing a kernel this machine lacks throws. Single-threaded: core/cpu/matmul.cpp splits the work across threads, as
// for sgemm.
#pragma once

#include <cstdint>

#include "core/bfloat16.h"

namespace ember::cpu {

// A bf16 matrix as BLAS reads it: op(M)(r, c) = trans ? p[c * ld + r] : p[r * ld + c].
struct Bf16Matrix {
  const BFloat16* p;
  bool trans;
  int64_t ld;
};

enum class Bf16GemmKernel { kAmx, kAvx512Bf16, kOpenBlas, kFloat32 };

void gemm_bf16(Bf16Matrix a, Bf16Matrix b, int64_t M, int64_t N, int64_t K, float* C, int64_t ldc, bool add);
// The same product rounded into bfloat16 C (M, N; ldc): what a bf16 matmul stores. With `add`, C's
// own values are the addend (addmm's bias, copied there first): C = round(C + op(A) op(B)), the sum
// in float32 and rounded once. Ember's kernels add and round each tile as it leaves the registers
// (no float32 copy of C): the AMX one for any K, the vdpbf16ps one where K fits one pass; otherwise,
// and with the other kernels, the float32 sums are made in scratch first.
void gemm_bf16_rounded(Bf16Matrix a, Bf16Matrix b, int64_t M, int64_t N, int64_t K, BFloat16* C, int64_t ldc,
                       bool add = false);

// Whether cpuid (leaf 7, sub-leaf 1, EAX bit 5) reports AVX512_BF16, with AVX-512 usable by the OS.
bool cpu_has_avx512_bf16();
// Whether AMX-BF16 tiles can run here: cpuid, and the kernel's permission (arch_prctl), asked once.
bool cpu_has_amx();
// Whether one vdpbf16ps does more flops than one float32 FMA on this core at full issue rate
// (measured on first call: 16 independent chains of each, best of 3).
bool vdpbf16ps_beats_fma();
// Flops per second of this core issuing only vdpbf16ps (bf16: 64 flops each) or vfmadd231ps (32) on
// 16 independent zmm chains for `iterations` rounds: the core's limit for either. Needs AVX512_BF16.
double issue_rate_flops(bool bf16, int64_t iterations);
// Whether the OpenBLAS loaded defines cblas_sbgemm (only builds with BUILD_BFLOAT16 do).
bool openblas_has_sbgemm();
// The kernel gemm_bf16 runs; setting kAmx or kAvx512Bf16 on a CPU without it throws.
Bf16GemmKernel bf16_gemm_kernel();
void set_bf16_gemm_kernel(Bf16GemmKernel kernel);
const char* bf16_gemm_kernel_name(Bf16GemmKernel kernel);

}  // namespace ember::cpu
