// The bfloat16 gemm of core/cpu/gemm_bf16.h: Ember's vdpbf16ps kernel, OpenBLAS's sbgemm, the
// float32 fallback, and the choice between them and the AMX kernel (core/cpu/gemm_amx.cpp).
//
// Ember's kernel packs, then multiplies tile by tile. vdpbf16ps treats a 32-bit lane as a pair of
// bf16 values and adds a0*b0 + a1*b1 into a float lane, so K is walked two at a time:
//   B is packed in panels of kNR = 32 columns: for each pair kk, 32 lanes (B[2kk][j], B[2kk+1][j]);
//   A is packed in tiles of kMR = 8 rows: for each pair kk, 8 lanes (A[i][2kk], A[i][2kk+1]); a
//   row-major A with even K already holds each pair as one 32-bit word, and is read in place.
// A tile's pair is broadcast to all 16 lanes and multiplied with two panel registers, so an 8 x 32
// block of C lives in 16 zmm accumulators for the whole of K. An odd K, and rows or columns past the
// edge, are zeros in the packed copies; the edge tiles store under a mask. Rows of A are packed
// kMC at a time, so a chunk of A and a panel of B stay in L2 while every tile of the chunk reuses
// the panel; K is taken kKC at a time. Not a general BLAS: row-major C, alpha = 1, beta 0 or 1.
#include "core/cpu/gemm_bf16.h"

#include <cblas.h>
#include <cpuid.h>
#include <dlfcn.h>
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/cpu/bfloat16_float.h"
#include "core/cpu/gemm_amx.h"
#include "core/error.h"

namespace ember::cpu {

namespace {

constexpr int kMR = 8;        // rows of a tile of C (8 x 2 accumulators)
constexpr int kNR = 32;       // columns of a panel: two zmm of 16 floats
constexpr int64_t kMC = 128;  // rows of A packed at a time
constexpr int64_t kKC = 512;  // depth of one pass (even, so the pairs of a block never straddle two)
// The deepest K that gemm_bf16_rounded takes in one pass, rounding each tile as it leaves the
// registers: a Linear's forward and input gradient (K = C, 3C, 4C); the weight gradient's K = B*T
// sums into float32 scratch by passes of kKC.
constexpr int64_t kRoundedPassK = 2048;

inline uint32_t bits_at(const Bf16Matrix& m, int64_t r, int64_t c) {
  return m.trans ? m.p[c * m.ld + r].bits : m.p[r * m.ld + c].bits;
}

// The pair (op(M)(r, k), op(M)(r, k + 1)) as one lane, zero past K (`rows_major`: r indexes rows).
inline uint32_t pair_at(const Bf16Matrix& m, int64_t r, int64_t k, int64_t K) {
  const uint32_t lo = bits_at(m, r, k);
  const uint32_t hi = k + 1 < K ? bits_at(m, r, k + 1) : 0u;
  return lo | (hi << 16);
}

// op(B) (K, N) -> panels of kNR columns: Bp[(panel * kpairs + kk) * kNR + j]. The loops follow
// memory: along j for a row-major B, along k for a transposed one (a Linear's W^T).
void pack_b(std::vector<uint32_t>& Bp, const Bf16Matrix& b, int64_t K, int64_t N) {
  const int64_t kpairs = (K + 1) / 2, panels = (N + kNR - 1) / kNR;
  Bp.assign(static_cast<size_t>(panels * kpairs * kNR), 0u);
  // op(B)(k, j): read B's transpose as a matrix whose rows are j, so pair_at walks k.
  const Bf16Matrix bt{b.p, !b.trans, b.ld};
  for (int64_t panel = 0; panel < panels; ++panel) {
    uint32_t* dst = Bp.data() + panel * kpairs * kNR;
    const int64_t j0 = panel * kNR, cols = std::min<int64_t>(kNR, N - j0);
    if (b.trans) {
      for (int64_t j = 0; j < cols; ++j)
        for (int64_t kk = 0; kk < kpairs; ++kk) dst[kk * kNR + j] = pair_at(bt, j0 + j, 2 * kk, K);
    } else {
      for (int64_t kk = 0; kk < kpairs; ++kk)
        for (int64_t j = 0; j < cols; ++j) dst[kk * kNR + j] = pair_at(bt, j0 + j, 2 * kk, K);
    }
  }
}

// Rows [m0, m0 + mc) of op(A) -> tiles of kMR rows: Ap[(tile * kpairs + kk) * kMR + r].
void pack_a(std::vector<uint32_t>& Ap, const Bf16Matrix& a, int64_t m0, int64_t mc, int64_t K) {
  const int64_t kpairs = (K + 1) / 2, tiles = (mc + kMR - 1) / kMR;
  Ap.assign(static_cast<size_t>(tiles * kpairs * kMR), 0u);
  for (int64_t t = 0; t < tiles; ++t) {
    uint32_t* dst = Ap.data() + t * kpairs * kMR;
    const int64_t rows = std::min<int64_t>(kMR, mc - t * kMR);
    if (a.trans) {
      for (int64_t kk = 0; kk < kpairs; ++kk)
        for (int64_t r = 0; r < rows; ++r) dst[kk * kMR + r] = pair_at(a, m0 + t * kMR + r, 2 * kk, K);
    } else {
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t kk = 0; kk < kpairs; ++kk) dst[kk * kMR + r] = pair_at(a, m0 + t * kMR + r, 2 * kk, K);
    }
  }
}

// The first lanes (mask m) of a bf16 row as floats: a bf16 is the high half of a float's bits. The
// maskz forms because GCC 12 warns of the unmasked ones' undefined start value.
__attribute__((target("avx512f,avx512bw,avx512vl"), always_inline)) inline __m512 widen_bf16(__mmask16 m,
                                                                                             const BFloat16* p) {
  const __m512i wide = _mm512_maskz_cvtepu16_epi32(m, _mm256_maskz_loadu_epi16(m, p));
  return _mm512_castsi512_ps(_mm512_maskz_slli_epi32(m, wide, 16));
}

// One kMR x kNR block of C from a tile of A and a panel of B; `rows` and `cols` cut it at the edges.
// The tile's pair (r, kk) is the 32-bit word A[r * a_rs + kk * a_ks]: a packed tile (a_rs = 1,
// a_ks = kMR), or a row-major A read in place (a_rs = ld / 2, a_ks = 1), whose rows past `rows` are
// not read (the last row is read again, and its sums are not stored). The block is stored as float
// (C, added to it when `add`) or, when Cb is given, rounded to bfloat16 (nearest even, as
// BFloat16's constructor), after adding Cb's own values to it in float32 when `add`.
__attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16"))) void tile_avx512bf16(
    const uint32_t* A, int64_t a_rs, int64_t a_ks, const uint32_t* Bp, int64_t kpairs, float* C, BFloat16* Cb,
    int64_t ldc, int64_t rows, int64_t cols, bool add) {
  const uint32_t* arow[kMR];
#pragma GCC unroll 8
  for (int r = 0; r < kMR; ++r) arow[r] = A + std::min<int64_t>(r, rows - 1) * a_rs;
  __m512 acc[kMR][2];
#pragma GCC unroll 8
  for (int r = 0; r < kMR; ++r) acc[r][0] = acc[r][1] = _mm512_setzero_ps();
  for (int64_t kk = 0, ka = 0; kk < kpairs; ++kk, ka += a_ks) {
    const __m512bh b0 = (__m512bh)_mm512_loadu_si512(Bp + kk * kNR);
    const __m512bh b1 = (__m512bh)_mm512_loadu_si512(Bp + kk * kNR + 16);
#pragma GCC unroll 8
    for (int r = 0; r < kMR; ++r) {
      const __m512bh a = (__m512bh)_mm512_set1_epi32(static_cast<int>(arow[r][ka]));
      acc[r][0] = _mm512_dpbf16_ps(acc[r][0], a, b0);
      acc[r][1] = _mm512_dpbf16_ps(acc[r][1], a, b1);
    }
  }
  const __mmask16 m0 = cols >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << cols) - 1);
  const __mmask16 m1 = cols >= 32 ? __mmask16(0xFFFF) : cols > 16 ? __mmask16((1u << (cols - 16)) - 1) : 0;
#pragma GCC unroll 8
  for (int r = 0; r < kMR; ++r) {
    if (r >= rows) break;
    if (Cb) {
      BFloat16* c = Cb + r * ldc;
      __m512 v0 = acc[r][0], v1 = acc[r][1];
      if (add) {  // widen the bf16 addend (its bits in a float's high half), add, round once
        v0 = _mm512_add_ps(v0, widen_bf16(m0, c));
        v1 = _mm512_add_ps(v1, widen_bf16(m1, c + 16));
      }
      _mm256_mask_storeu_epi16(c, m0, (__m256i)_mm512_cvtneps_pbh(v0));
      _mm256_mask_storeu_epi16(c + 16, m1, (__m256i)_mm512_cvtneps_pbh(v1));
      continue;
    }
    float* c = C + r * ldc;
    __m512 v0 = acc[r][0], v1 = acc[r][1];
    if (add) {
      v0 = _mm512_add_ps(v0, _mm512_maskz_loadu_ps(m0, c));
      v1 = _mm512_add_ps(v1, _mm512_maskz_loadu_ps(m1, c + 16));
    }
    _mm512_mask_storeu_ps(c, m0, v0);
    _mm512_mask_storeu_ps(c + 16, m1, v1);
  }
}

// Whether op(A) can be read in place, without packing: row-major, whole pairs (K even) on 4-byte
// boundaries. A Linear's x and the input gradient's g are; a transposed A (the weight gradient's
// g^T) is packed.
bool a_in_place(const Bf16Matrix& a, int64_t K) {
  return !a.trans && K % 2 == 0 && a.ld % 2 == 0 && reinterpret_cast<uintptr_t>(a.p) % 4 == 0;
}

// One pass over K (at most kKC, or all of K when rounding into Cb): C, or Cb, rows x columns.
void gemm_avx512bf16_block(const Bf16Matrix& a, const Bf16Matrix& b, int64_t M, int64_t N, int64_t K, float* C,
                           BFloat16* Cb, int64_t ldc, bool add) {
  thread_local std::vector<uint32_t> Ap, Bp;
  const int64_t kpairs = (K + 1) / 2, panels = (N + kNR - 1) / kNR;
  const bool in_place = a_in_place(a, K);
  const uint32_t* A = reinterpret_cast<const uint32_t*>(a.p);
  const int64_t a_ld = a.ld / 2;  // pairs per row of A, when read in place
  pack_b(Bp, b, K, N);
  for (int64_t m0 = 0; m0 < M; m0 += kMC) {
    const int64_t mc = std::min(kMC, M - m0), tiles = (mc + kMR - 1) / kMR;
    if (!in_place) pack_a(Ap, a, m0, mc, K);
    for (int64_t panel = 0; panel < panels; ++panel) {
      const int64_t j0 = panel * kNR, cols = std::min<int64_t>(kNR, N - j0);
      for (int64_t t = 0; t < tiles; ++t) {
        const int64_t i0 = m0 + t * kMR, rows = std::min<int64_t>(kMR, mc - t * kMR);
        const int64_t offset = i0 * ldc + j0;
        if (in_place)
          tile_avx512bf16(A + i0 * a_ld, a_ld, 1, Bp.data() + panel * kpairs * kNR, kpairs, C ? C + offset : nullptr,
                          Cb ? Cb + offset : nullptr, ldc, rows, cols, add);
        else
          tile_avx512bf16(Ap.data() + t * kpairs * kMR, 1, kMR, Bp.data() + panel * kpairs * kNR, kpairs,
                          C ? C + offset : nullptr, Cb ? Cb + offset : nullptr, ldc, rows, cols, add);
      }
    }
  }
}

// K in blocks of kKC, each added into C: a long K (the weight gradient's B*T) would otherwise make
// the packed panels too long for L2.
void gemm_avx512bf16(const Bf16Matrix& a, const Bf16Matrix& b, int64_t M, int64_t N, int64_t K, float* C, int64_t ldc,
                     bool add) {
  if (K <= kKC) return gemm_avx512bf16_block(a, b, M, N, K, C, nullptr, ldc, add);
  for (int64_t k0 = 0; k0 < K; k0 += kKC) {
    const Bf16Matrix ak{a.p + (a.trans ? k0 * a.ld : k0), a.trans, a.ld};  // op(A)(i, k0 + k)
    const Bf16Matrix bk{b.p + (b.trans ? k0 : k0 * b.ld), b.trans, b.ld};  // op(B)(k0 + k, j)
    gemm_avx512bf16_block(ak, bk, M, N, std::min(kKC, K - k0), C, nullptr, ldc, add || k0 > 0);
  }
}

// The fallback: op(A) and op(B) widened to row-major float32 matrices, then sgemm.
void gemm_float32(const Bf16Matrix& a, const Bf16Matrix& b, int64_t M, int64_t N, int64_t K, float* C, int64_t ldc,
                  bool add) {
  thread_local std::vector<float> Af, Bf;
  Af.resize(static_cast<size_t>(M * K));
  Bf.resize(static_cast<size_t>(K * N));
  for (int64_t i = 0; i < M; ++i)
    for (int64_t k = 0; k < K; ++k) Af[i * K + k] = BFloat16::to_float(static_cast<uint16_t>(bits_at(a, i, k)));
  for (int64_t k = 0; k < K; ++k)
    for (int64_t j = 0; j < N; ++j) Bf[k * N + j] = BFloat16::to_float(static_cast<uint16_t>(bits_at(b, k, j)));
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, Af.data(), std::max<int64_t>(K, 1), Bf.data(),
              std::max<int64_t>(N, 1), add ? 1.0f : 0.0f, C, ldc);
}

// cblas_sbgemm, looked up at run time: OpenBLAS declares it in cblas.h whatever its build, but only
// a build with BUILD_BFLOAT16 defines it (Debian's 0.3.21 does not), so linking to it directly
// would fail there.
using SbgemmFn = void (*)(CBLAS_ORDER, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, blasint, blasint, blasint, float,
                          const bfloat16*, blasint, const bfloat16*, blasint, float, float*, blasint);
SbgemmFn openblas_sbgemm() {
  static const SbgemmFn fn = reinterpret_cast<SbgemmFn>(dlsym(RTLD_DEFAULT, "cblas_sbgemm"));
  return fn;
}

void gemm_openblas(const Bf16Matrix& a, const Bf16Matrix& b, int64_t M, int64_t N, int64_t K, float* C, int64_t ldc,
                   bool add) {
  openblas_sbgemm()(CblasRowMajor, a.trans ? CblasTrans : CblasNoTrans, b.trans ? CblasTrans : CblasNoTrans, M, N, K,
                    1.0f, reinterpret_cast<const bfloat16*>(a.p), a.ld, reinterpret_cast<const bfloat16*>(b.p), b.ld,
                    add ? 1.0f : 0.0f, C, ldc);
}

// Flops per second of one core issuing only vdpbf16ps (`bf16`: 64 flops each) or vfmadd231ps (32)
// on 16 independent zmm chains: enough to hide either's latency, so the issue rate decides.
template <bool bf16>
__attribute__((target("avx512f,avx512bf16"))) double issue_rate(int64_t iterations) {
  const __m512 x = _mm512_set1_ps(0.999f), y = _mm512_set1_ps(1e-7f);
  const __m512bh u = (__m512bh)_mm512_set1_epi16(0x3F80), v = (__m512bh)_mm512_set1_epi16(0x3380);
  __m512 acc[16];
  for (int i = 0; i < 16; ++i) acc[i] = _mm512_set1_ps(float(i) * 1e-3f);
  const auto start = std::chrono::steady_clock::now();
  for (int64_t it = 0; it < iterations; ++it) {
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i) acc[i] = bf16 ? _mm512_dpbf16_ps(acc[i], u, v) : _mm512_fmadd_ps(acc[i], x, y);
  }
  const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  __m512 sum = acc[0];
  for (int i = 1; i < 16; ++i) sum = _mm512_add_ps(sum, acc[i]);
  alignas(64) float lanes[16];  // stored rather than _mm512_reduce_add_ps, which g++ 12 warns about
  _mm512_store_ps(lanes, sum);
  volatile float sink = lanes[0];  // keeps the chains alive
  (void)sink;
  return double(iterations) * 16 * (bf16 ? 64 : 32) / std::max(t, 1e-9);
}

Bf16GemmKernel default_kernel() {
  if (const char* env = std::getenv("EMBER_BF16_GEMM")) {
    const std::string v = env;
    if (v == "float32") return Bf16GemmKernel::kFloat32;
    EMBER_CHECK(v != "openblas" || openblas_has_sbgemm(),
                "EMBER_BF16_GEMM=openblas: this OpenBLAS has no cblas_sbgemm (built without BUILD_BFLOAT16)");
    if (v == "openblas") return Bf16GemmKernel::kOpenBlas;
    EMBER_CHECK(v != "amx" || cpu_has_amx(),
                "EMBER_BF16_GEMM=amx: no AMX-BF16 here (cpuid), or the kernel refused the tile state (arch_prctl); "
                "use avx512bf16, openblas or float32");
    if (v == "amx") return Bf16GemmKernel::kAmx;
    EMBER_CHECK(v == "avx512bf16", "EMBER_BF16_GEMM: expected amx, avx512bf16, openblas or float32, got '{}'", v);
    EMBER_CHECK(cpu_has_avx512_bf16(),
                "EMBER_BF16_GEMM=avx512bf16: this CPU has no AVX512_BF16 (cpuid); use openblas or float32");
    return Bf16GemmKernel::kAvx512Bf16;
  }
  if (cpu_has_amx()) return Bf16GemmKernel::kAmx;
  return cpu_has_avx512_bf16() && vdpbf16ps_beats_fma() ? Bf16GemmKernel::kAvx512Bf16 : Bf16GemmKernel::kFloat32;
}

Bf16GemmKernel& current_kernel() {
  static Bf16GemmKernel kernel = default_kernel();
  return kernel;
}

}  // namespace

bool cpu_has_avx512_bf16() {
  static const bool has = [] {
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512bw")) return false;  // OS support too
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (!__get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx)) return false;
    return ((eax >> 5) & 1u) != 0;  // CPUID.(EAX=7, ECX=1):EAX[bit 5] = AVX512_BF16
  }();
  return has;
}

bool cpu_has_amx() { return amx_usable(); }

double issue_rate_flops(bool bf16, int64_t iterations) {
  return bf16 ? issue_rate<true>(iterations) : issue_rate<false>(iterations);
}

bool vdpbf16ps_beats_fma() {
  // A core that issues one of each per cycle (Zen 4/5) gives vdpbf16ps twice FMA's flops; Intel's
  // cores issue vdpbf16ps at half FMA's rate (equal flops per cycle, or fewer). 1.25x separates them
  // with room for noise; the best of 3 of each drops a run that was preempted.
  static const bool beats = [] {
    if (!cpu_has_avx512_bf16()) return false;
    constexpr int64_t kProbeIterations = 8192;  // about 0.1 ms each
    double bf16 = 0, fma = 0;
    for (int i = 0; i < 3; ++i) {
      bf16 = std::max(bf16, issue_rate_flops(true, kProbeIterations));
      fma = std::max(fma, issue_rate_flops(false, kProbeIterations));
    }
    return bf16 > 1.25 * fma;
  }();
  return beats;
}

bool openblas_has_sbgemm() { return openblas_sbgemm() != nullptr; }

Bf16GemmKernel bf16_gemm_kernel() { return current_kernel(); }

void set_bf16_gemm_kernel(Bf16GemmKernel kernel) {
  EMBER_CHECK(kernel != Bf16GemmKernel::kOpenBlas || openblas_has_sbgemm(),
              "set_bf16_gemm_kernel: this OpenBLAS has no cblas_sbgemm (built without BUILD_BFLOAT16)");
  EMBER_CHECK(kernel != Bf16GemmKernel::kAvx512Bf16 || cpu_has_avx512_bf16(),
              "set_bf16_gemm_kernel: this CPU has no AVX512_BF16 (cpuid), so only openblas or float32 can run");
  EMBER_CHECK(kernel != Bf16GemmKernel::kAmx || cpu_has_amx(),
              "set_bf16_gemm_kernel: no AMX-BF16 here (cpuid), or the kernel refused the tile state (arch_prctl)");
  current_kernel() = kernel;
}

const char* bf16_gemm_kernel_name(Bf16GemmKernel kernel) {
  switch (kernel) {
    case Bf16GemmKernel::kAmx:
      return "amx";
    case Bf16GemmKernel::kAvx512Bf16:
      return "avx512bf16";
    case Bf16GemmKernel::kOpenBlas:
      return "openblas";
    case Bf16GemmKernel::kFloat32:
      return "float32";
  }
  return "?";
}

void gemm_bf16_rounded(Bf16Matrix a, Bf16Matrix b, int64_t M, int64_t N, int64_t K, BFloat16* C, int64_t ldc,
                       bool add) {
  if (M == 0 || N == 0) return;
  if (current_kernel() == Bf16GemmKernel::kAmx) return gemm_amx(a, b, M, N, K, nullptr, C, ldc, add);
  if (current_kernel() == Bf16GemmKernel::kAvx512Bf16 && K > 0 && K <= kRoundedPassK)
    return gemm_avx512bf16_block(a, b, M, N, K, nullptr, C, ldc, add);
  thread_local std::vector<float> sums;
  sums.resize(static_cast<size_t>(M * N));
  for (int64_t i = 0; i < M && add; ++i) bfloat16_to_float(sums.data() + i * N, C + i * ldc, N);
  gemm_bf16(a, b, M, N, K, sums.data(), N, add);
  for (int64_t i = 0; i < M; ++i) float_to_bfloat16(C + i * ldc, sums.data() + i * N, N);
}

void gemm_bf16(Bf16Matrix a, Bf16Matrix b, int64_t M, int64_t N, int64_t K, float* C, int64_t ldc, bool add) {
  if (M == 0 || N == 0) return;
  switch (current_kernel()) {
    case Bf16GemmKernel::kAmx:
      return gemm_amx(a, b, M, N, K, C, nullptr, ldc, add);
    case Bf16GemmKernel::kAvx512Bf16:
      return gemm_avx512bf16(a, b, M, N, K, C, ldc, add);
    case Bf16GemmKernel::kOpenBlas:
      return gemm_openblas(a, b, M, N, K, C, ldc, add);
    case Bf16GemmKernel::kFloat32:
      return gemm_float32(a, b, M, N, K, C, ldc, add);
  }
}

}  // namespace ember::cpu
