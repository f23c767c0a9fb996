// The bfloat16 gemm on AMX tiles (tdpbf16ps): the kAmx kernel of core/cpu/gemm_bf16.h.
//
// An AMX core has 8 tile registers of up to 16 rows x 64 bytes. tdpbf16ps multiplies a tile of A
// (16 rows x 32 bf16, K along the row) by a tile of B holding 16 rows of K-pairs (row kk: for each of
// 16 columns j the pair B[2kk][j], B[2kk+1][j]) and adds the result into a 16 x 16 float32 tile. A
// 32 x 32 block of C lives in 4 tiles (2 of A x 2 of B) for a pass over K of up to kKC; a deeper K
// (the weight gradient's B*T) keeps its partial sums in float32 scratch between passes. B is packed in
// panels of 32 columns, K padded with zeros to a multiple of 32; a row-major A is read in place
// (tileloadd takes any row stride), except its last K % 32 columns and its last partial block of 32
// rows, copied zero-padded; a transposed A is packed 32 rows at a time. The epilogue stores the tiles
// to a float32 block on the stack, then adds the addend and rounds with AVX-512, as the vdpbf16ps tile
// does. AMX code only inside functions that ask for it (target attributes): callers first check
// amx_usable().
#include "core/cpu/gemm_amx.h"

#include <cpuid.h>
#include <immintrin.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include <sys/syscall.h>

namespace ember::cpu {

namespace {

constexpr int kTileRows = 16;            // rows of a tile (A's rows, C's rows, B's K-pairs)
constexpr int kTileK = 32;               // bf16 values of K in one tile of A: 64 bytes
constexpr int kBlock = 32;               // rows and columns of C's 2 x 2 tiles
constexpr int kPanelBytes = kBlock * 4;  // one K-pair row of a packed B panel: 32 columns x 2 bf16
// The deepest pass over K: a block of A (32 rows, 64 KiB) and the panels of B (N = 384: 768 KiB) stay
// in L2 (2 MiB on Sapphire Rapids); deeper passes measured slower on the weight gradient (K = B*T).
constexpr int64_t kKC = 1024;
// arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA): Linux 5.16+ hands out the tile data state
// (8 KiB per thread to save on a switch) only to a process that asks.
constexpr int kArchReqXcompPerm = 0x1023;
constexpr int kXfeatureXtiledata = 18;

// The 64-byte tile configuration of palette 1 (Intel SDM, LDTILECFG).
struct alignas(64) TileConfig {
  uint8_t palette = 0;
  uint8_t start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t colsb[16] = {};
  uint8_t rows[16] = {};
};

inline uint32_t bits_at(const Bf16Matrix& m, int64_t r, int64_t c) {
  return m.trans ? m.p[c * m.ld + r].bits : m.p[r * m.ld + c].bits;
}

// r[i] lane j = X[i][j] -> r[j] lane i = X[i][j], for a 16 x 16 matrix of 32-bit words: pairs of
// rows interleaved (words, then word pairs) within 128-bit lanes, then the lanes exchanged. The
// maskz forms (all lanes) because GCC 12 warns of the unmasked ones' undefined start value.
constexpr __mmask16 kAll16 = 0xFFFF;
constexpr __mmask8 kAll8 = 0xFF;
__attribute__((target("avx512f"), always_inline)) inline void transpose_16x16(__m512i r[16]) {
  __m512i t[16];
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_maskz_unpacklo_epi32(kAll16, r[i], r[i + 1]);
    t[i + 1] = _mm512_maskz_unpackhi_epi32(kAll16, r[i], r[i + 1]);
  }
  // u[4p + c], 128-bit lane q: column 4q + c of rows 4p..4p+3
  __m512i u[16];
  for (int p = 0; p < 16; p += 4) {
    u[p] = _mm512_maskz_unpacklo_epi64(kAll8, t[p], t[p + 2]);
    u[p + 1] = _mm512_maskz_unpackhi_epi64(kAll8, t[p], t[p + 2]);
    u[p + 2] = _mm512_maskz_unpacklo_epi64(kAll8, t[p + 1], t[p + 3]);
    u[p + 3] = _mm512_maskz_unpackhi_epi64(kAll8, t[p + 1], t[p + 3]);
  }
  for (int c = 0; c < 4; ++c) {  // row 4q + c = lane q of u[c], u[4 + c], u[8 + c], u[12 + c]
    const __m512i lo01 = _mm512_maskz_shuffle_i32x4(kAll16, u[c], u[4 + c], 0x44),
                  hi01 = _mm512_maskz_shuffle_i32x4(kAll16, u[c], u[4 + c], 0xEE);
    const __m512i lo23 = _mm512_maskz_shuffle_i32x4(kAll16, u[8 + c], u[12 + c], 0x44);
    const __m512i hi23 = _mm512_maskz_shuffle_i32x4(kAll16, u[8 + c], u[12 + c], 0xEE);
    r[c] = _mm512_maskz_shuffle_i32x4(kAll16, lo01, lo23, 0x88);
    r[4 + c] = _mm512_maskz_shuffle_i32x4(kAll16, lo01, lo23, 0xDD);
    r[8 + c] = _mm512_maskz_shuffle_i32x4(kAll16, hi01, hi23, 0x88);
    r[12 + c] = _mm512_maskz_shuffle_i32x4(kAll16, hi01, hi23, 0xDD);
  }
}

// vpermt2w indices that interleave two rows of 32 bf16 into pairs: lanes 0..15, or 16..31 (`hi`).
__attribute__((target("avx512f,avx512bw"), always_inline)) inline __m512i pair_index(bool hi) {
  const __m512i lo = _mm512_set_epi16(47, 15, 46, 14, 45, 13, 44, 12, 43, 11, 42, 10, 41, 9, 40, 8, 39, 7, 38, 6, 37, 5,
                                      36, 4, 35, 3, 34, 2, 33, 1, 32, 0);
  return hi ? _mm512_add_epi16(lo, _mm512_set1_epi16(16)) : lo;
}

// op(B) (K, N) -> panels of 32 columns, each kpairs rows of 32 pairs (kpairs = Kpad / 2):
// Bp[(panel * kpairs + kk) * 32 + j] = op(B)(2kk, j) | op(B)(2kk + 1, j) << 16, zero past K and N.
// A row-major B interleaves two rows 32 columns at a time (vpermt2w); a transposed B (a Linear's
// W^T, stored (N, K)) has each pair as one 32-bit word of its rows when K and ld are even.
__attribute__((target("avx512f,avx512bw"))) void pack_b(std::vector<uint32_t>& Bp, const Bf16Matrix& b, int64_t K,
                                                        int64_t N, int64_t kpairs) {
  const int64_t panels = (N + kBlock - 1) / kBlock;
  Bp.assign(static_cast<size_t>(panels * kpairs * kBlock), 0u);
  const bool words = b.trans && K % 2 == 0 && b.ld % 2 == 0 && reinterpret_cast<uintptr_t>(b.p) % 4 == 0;
  const __m512i lo_idx = pair_index(false), hi_idx = pair_index(true);
  for (int64_t panel = 0; panel < panels; ++panel) {
    uint32_t* dst = Bp.data() + panel * kpairs * kBlock;
    const int64_t j0 = panel * kBlock, cols = std::min<int64_t>(kBlock, N - j0);
    if (words) {  // 16 x 16 blocks of words (column j, pair kk) transposed to (kk, j)
      const uint32_t* src = reinterpret_cast<const uint32_t*>(b.p + j0 * b.ld);
      const int64_t ld = b.ld / 2;
      for (int64_t kk0 = 0; kk0 < K / 2; kk0 += 16) {
        const __mmask16 mk = K / 2 - kk0 >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << (K / 2 - kk0)) - 1);
        const int64_t nk = std::min<int64_t>(16, K / 2 - kk0);
        for (int64_t jh = 0; jh < cols; jh += 16) {
          __m512i r[16];
          for (int64_t j = 0; j < 16; ++j)
            r[j] = jh + j < cols ? _mm512_maskz_loadu_epi32(mk, src + (jh + j) * ld + kk0) : _mm512_setzero_si512();
          transpose_16x16(r);
          for (int64_t kk = 0; kk < nk; ++kk) _mm512_storeu_si512(dst + (kk0 + kk) * kBlock + jh, r[kk]);
        }
      }
    } else if (!b.trans) {
      const __mmask32 m = cols >= 32 ? ~__mmask32(0) : __mmask32((1u << cols) - 1);
      for (int64_t kk = 0; kk < (K + 1) / 2; ++kk) {
        const __m512i r0 = _mm512_maskz_loadu_epi16(m, b.p + 2 * kk * b.ld + j0);
        const __m512i r1 =
            2 * kk + 1 < K ? _mm512_maskz_loadu_epi16(m, b.p + (2 * kk + 1) * b.ld + j0) : _mm512_setzero_si512();
        _mm512_storeu_si512(dst + kk * kBlock, _mm512_permutex2var_epi16(r0, lo_idx, r1));
        _mm512_storeu_si512(dst + kk * kBlock + 16, _mm512_permutex2var_epi16(r0, hi_idx, r1));
      }
    } else {
      for (int64_t j = 0; j < cols; ++j)
        for (int64_t k = 0; k < K; ++k) dst[(k / 2) * kBlock + j] |= bits_at(b, k, j0 + j) << (16 * (k % 2));
    }
  }
}

// Rows [i0, i0 + rows) and columns [k0, k0 + cols) of a row-major A -> a zero-padded row-major
// buffer of `ld` columns (ld >= cols), `pad_rows` rows.
void copy_a(uint16_t* dst, int64_t ld, int64_t pad_rows, const Bf16Matrix& a, int64_t i0, int64_t rows, int64_t k0,
            int64_t cols) {
  std::memset(dst, 0, static_cast<size_t>(pad_rows * ld) * sizeof(uint16_t));
  if (cols == 0) return;  // K = 0: A may be empty (a null pointer memcpy must not see)
  for (int64_t r = 0; r < rows; ++r) std::memcpy(dst + r * ld, a.p + (i0 + r) * a.ld + k0, cols * sizeof(uint16_t));
}

// Rows [i0, i0 + rows) of a transposed A (stored (K, M)) -> a zero-padded row-major block of 32 rows
// x kpad: two stored rows k, k + 1 interleaved into pairs (16 pairs of 32 columns), then 16 x 16
// transposes of those words, so each tile row is 16 pairs of one row of op(A).
__attribute__((target("avx512f,avx512bw"))) void pack_a_transposed(uint16_t* dst, int64_t kpad, const Bf16Matrix& a,
                                                                   int64_t i0, int64_t rows, int64_t K) {
  const __mmask32 m = rows >= 32 ? ~__mmask32(0) : __mmask32((1u << rows) - 1);
  const __m512i lo_idx = pair_index(false), hi_idx = pair_index(true);
  for (int64_t k0 = 0; k0 < kpad; k0 += kTileK) {
    __m512i lo[16], hi[16];  // lo[kk] lane r: the pair (k0 + 2kk, k0 + 2kk + 1) of row r (hi: row 16 + r)
    for (int kk = 0; kk < 16; ++kk) {
      const int64_t k = k0 + 2 * kk;
      const __m512i r0 = k < K ? _mm512_maskz_loadu_epi16(m, a.p + k * a.ld + i0) : _mm512_setzero_si512();
      const __m512i r1 = k + 1 < K ? _mm512_maskz_loadu_epi16(m, a.p + (k + 1) * a.ld + i0) : _mm512_setzero_si512();
      lo[kk] = _mm512_permutex2var_epi16(r0, lo_idx, r1);
      hi[kk] = _mm512_permutex2var_epi16(r0, hi_idx, r1);
    }
    transpose_16x16(lo);
    transpose_16x16(hi);
    for (int r = 0; r < 16; ++r) {
      _mm512_storeu_si512(dst + r * kpad + k0, lo[r]);
      _mm512_storeu_si512(dst + (16 + r) * kpad + k0, hi[r]);
    }
  }
}

// The first lanes (mask m) of a bf16 row as floats: a bf16 is the high half of a float's bits.
__attribute__((target("avx512f,avx512bw,avx512vl"), always_inline)) inline __m512 widen(__mmask16 m,
                                                                                        const BFloat16* p) {
  const __m512i wide = _mm512_maskz_cvtepu16_epi32(m, _mm256_maskz_loadu_epi16(m, p));
  return _mm512_castsi512_ps(_mm512_maskz_slli_epi32(m, wide, 16));
}

// A 32 x 32 block of float sums (row stride 32) into C or, when Cb is given, rounded into Cb (nearest
// even); with `add`, C's or Cb's own values are added in float32 first. Only rows x cols are written.
__attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16"))) void store_block(const float* sums, float* C,
                                                                                 BFloat16* Cb, int64_t ldc,
                                                                                 int64_t rows, int64_t cols, bool add) {
  const __mmask16 m0 = cols >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << cols) - 1);
  const __mmask16 m1 = cols >= 32 ? __mmask16(0xFFFF) : cols > 16 ? __mmask16((1u << (cols - 16)) - 1) : 0;
  for (int64_t r = 0; r < rows; ++r) {
    __m512 v0 = _mm512_loadu_ps(sums + r * kBlock), v1 = _mm512_loadu_ps(sums + r * kBlock + 16);
    if (Cb) {
      BFloat16* c = Cb + r * ldc;
      if (add) {
        v0 = _mm512_add_ps(v0, widen(m0, c));
        v1 = _mm512_add_ps(v1, widen(m1, c + 16));
      }
      _mm256_mask_storeu_epi16(c, m0, (__m256i)_mm512_cvtneps_pbh(v0));
      _mm256_mask_storeu_epi16(c + 16, m1, (__m256i)_mm512_cvtneps_pbh(v1));
    } else {
      float* c = C + r * ldc;
      if (add) {
        v0 = _mm512_add_ps(v0, _mm512_maskz_loadu_ps(m0, c));
        v1 = _mm512_add_ps(v1, _mm512_maskz_loadu_ps(m1, c + 16));
      }
      _mm512_mask_storeu_ps(c, m0, v0);
      _mm512_mask_storeu_ps(c + 16, m1, v1);
    }
  }
}

// Where one block of 32 rows of A is read: `kmain` tiles of K from `main` (row stride `main_ld`
// values), then, when `tail` is set, one more zero-padded tile from it (row stride kTileK).
struct ARows {
  const uint16_t* main;
  int64_t main_ld;
  int64_t kmain;
  const uint16_t* tail;
};

// The 32 x 32 block of sums of A's rows times one B panel (kpairs = 16 * tiles of K), added to the
// block of `acc_in` (row stride acc_ld floats) when given, stored into `out` (row stride out_ld).
__attribute__((target("amx-tile,amx-bf16"))) void block_amx(const ARows& a, const uint32_t* panel, const float* acc_in,
                                                            float* out, int64_t acc_ld, int64_t out_ld) {
  if (acc_in) {
    _tile_loadd(0, acc_in, acc_ld * 4);
    _tile_loadd(1, acc_in + 16, acc_ld * 4);
    _tile_loadd(2, acc_in + kTileRows * acc_ld, acc_ld * 4);
    _tile_loadd(3, acc_in + kTileRows * acc_ld + 16, acc_ld * 4);
  } else {
    _tile_zero(0);
    _tile_zero(1);
    _tile_zero(2);
    _tile_zero(3);
  }
  const int64_t a_stride = a.main_ld * 2;
  for (int64_t kb = 0; kb < a.kmain; ++kb) {
    const uint16_t* ak = a.main + kb * kTileK;
    const uint32_t* bk = panel + kb * kTileRows * kBlock;
    _tile_loadd(4, ak, a_stride);
    _tile_loadd(5, ak + kTileRows * a.main_ld, a_stride);
    _tile_loadd(6, bk, kPanelBytes);
    _tile_loadd(7, bk + 16, kPanelBytes);
    _tile_dpbf16ps(0, 4, 6);
    _tile_dpbf16ps(1, 4, 7);
    _tile_dpbf16ps(2, 5, 6);
    _tile_dpbf16ps(3, 5, 7);
  }
  if (a.tail) {
    const uint32_t* bk = panel + a.kmain * kTileRows * kBlock;
    _tile_loadd(4, a.tail, kTileK * 2);
    _tile_loadd(5, a.tail + kTileRows * kTileK, kTileK * 2);
    _tile_loadd(6, bk, kPanelBytes);
    _tile_loadd(7, bk + 16, kPanelBytes);
    _tile_dpbf16ps(0, 4, 6);
    _tile_dpbf16ps(1, 4, 7);
    _tile_dpbf16ps(2, 5, 6);
    _tile_dpbf16ps(3, 5, 7);
  }
  _tile_stored(0, out, out_ld * 4);
  _tile_stored(1, out + 16, out_ld * 4);
  _tile_stored(2, out + kTileRows * out_ld, out_ld * 4);
  _tile_stored(3, out + kTileRows * out_ld + 16, out_ld * 4);
}

// Every tile 16 rows x 64 bytes. A constant in read-only data, every byte written by the compiler:
// ldtilecfg faults on a non-zero reserved byte or unused tile, and GCC 12 drops most stores that
// fill a config on the stack before it (it does not see ldtilecfg read all 64 bytes).
constexpr TileConfig tile_config() {
  TileConfig cfg{};
  cfg.palette = 1;
  for (int t = 0; t < 8; ++t) {
    cfg.rows[t] = kTileRows;
    cfg.colsb[t] = 64;
  }
  return cfg;
}
constexpr TileConfig kTileConfig = tile_config();

__attribute__((target("amx-tile"))) void load_config() { _tile_loadconfig(&kTileConfig); }

__attribute__((target("amx-tile"))) void release_tiles() { _tile_release(); }

// One pass over K (all of it, or kKC of it): the sums of every 32 x 32 block of C start from zero
// (`acc` null) or from acc's (Mpad, acc_ld) float32 partial sums, and end in acc, or (`last`) in C
// or Cb through the epilogue.
void gemm_amx_pass(const Bf16Matrix& a, const Bf16Matrix& b, int64_t M, int64_t N, int64_t K, float* C, BFloat16* Cb,
                   int64_t ldc, bool add, float* acc, int64_t acc_ld, bool first, bool last) {
  thread_local std::vector<uint32_t> Bp;
  thread_local std::vector<uint16_t> tails, block_copy;
  const int64_t ktiles = (K + kTileK - 1) / kTileK, kpad = ktiles * kTileK, kpairs = kpad / 2;
  const int64_t panels = (N + kBlock - 1) / kBlock, blocks = (M + kBlock - 1) / kBlock;
  pack_b(Bp, b, K, N, kpairs);
  // A's source: read in place when row-major (but for the K tail and the last rows), else each block
  // of 32 rows packed row-major when its turn comes, so the copy is still in L2 for every panel.
  const int64_t full_blocks = a.trans ? 0 : M / kBlock, kmain = K / kTileK;
  const uint16_t* A = reinterpret_cast<const uint16_t*>(a.p);
  if (!a.trans && K % kTileK) {  // the last K % 32 columns of every row, zero-padded to one tile
    tails.resize(static_cast<size_t>(blocks * kBlock * kTileK));
    copy_a(tails.data(), kTileK, blocks * kBlock, a, 0, M, kmain * kTileK, K % kTileK);
  }
  if (full_blocks < blocks) block_copy.resize(static_cast<size_t>(kBlock * kpad));
  alignas(64) float sums[kBlock * kBlock];
  load_config();
  for (int64_t ib = 0; ib < blocks; ++ib) {
    const int64_t i0 = ib * kBlock, rows = std::min<int64_t>(kBlock, M - i0);
    if (a.trans)
      pack_a_transposed(block_copy.data(), kpad, a, i0, rows, K);
    else if (ib >= full_blocks)
      copy_a(block_copy.data(), kpad, kBlock, a, i0, rows, 0, K);  // zero-padded rows and K
    const ARows rows_of_a = ib < full_blocks
                                ? ARows{A + i0 * a.ld, a.ld, kmain, K % kTileK ? tails.data() + i0 * kTileK : nullptr}
                                : ARows{block_copy.data(), kpad, ktiles, nullptr};
    for (int64_t p = 0; p < panels; ++p) {
      const int64_t j0 = p * kBlock, cols = std::min<int64_t>(kBlock, N - j0);
      float* acc_block = acc ? acc + i0 * acc_ld + j0 : nullptr;
      const float* acc_in = first ? nullptr : acc_block;
      if (!last) {
        block_amx(rows_of_a, Bp.data() + p * kpairs * kBlock, acc_in, acc_block, acc_ld, acc_ld);
        continue;
      }
      block_amx(rows_of_a, Bp.data() + p * kpairs * kBlock, acc_in, sums, acc_ld, kBlock);
      store_block(sums, C ? C + i0 * ldc + j0 : nullptr, Cb ? Cb + i0 * ldc + j0 : nullptr, ldc, rows, cols, add);
    }
  }
  release_tiles();
}

}  // namespace

bool amx_usable() {
  static const bool usable = [] {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return false;
    const bool amx_bf16 = (edx >> 22) & 1u, amx_tile = (edx >> 24) & 1u;
    if (!amx_bf16 || !amx_tile || !cpu_has_avx512_bf16()) return false;  // the epilogue uses AVX-512 BF16
    // The kernel may still refuse (older than 5.16, or a hypervisor that hides the state): then no AMX.
    return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
  }();
  return usable;
}

// K in passes of kKC when longer (the weight gradient's K = B*T): a pass's A block and B panels stay
// in L2, and the partial sums wait in float32 scratch between passes.
void gemm_amx(const Bf16Matrix& a, const Bf16Matrix& b, int64_t M, int64_t N, int64_t K, float* C, BFloat16* Cb,
              int64_t ldc, bool add) {
  if (K <= kKC) return gemm_amx_pass(a, b, M, N, K, C, Cb, ldc, add, nullptr, 0, true, true);
  thread_local std::vector<float> acc;
  const int64_t acc_ld = (N + kBlock - 1) / kBlock * kBlock;
  acc.resize(static_cast<size_t>((M + kBlock - 1) / kBlock * kBlock * acc_ld));
  for (int64_t k0 = 0; k0 < K; k0 += kKC) {
    const Bf16Matrix ak{a.p + (a.trans ? k0 * a.ld : k0), a.trans, a.ld};  // op(A)(i, k0 + k)
    const Bf16Matrix bk{b.p + (b.trans ? k0 : k0 * b.ld), b.trans, b.ld};  // op(B)(k0 + k, j)
    gemm_amx_pass(ak, bk, M, N, std::min(kKC, K - k0), C, Cb, ldc, add, acc.data(), acc_ld, k0 == 0, k0 + kKC >= K);
  }
}

}  // namespace ember::cpu
