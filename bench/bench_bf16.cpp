// The bf16 matrix kernels on the GPT's product shapes against float32 sgemm:
//   sgemm       OpenBLAS's float32 gemm on the same shapes (what a float32 step runs)
//   amx         Ember's AMX tile kernel (core/cpu/gemm_amx.cpp), packing included
//   avx512bf16  Ember's vdpbf16ps kernel (core/cpu/gemm_bf16.cpp), packing included
//   openblas    OpenBLAS's cblas_sbgemm
//   float32     the fallback: widen to float32, then sgemm
// Shapes are (M, N, K) with the layouts a training step uses: x @ W^T (forward), g @ W (input
// gradient), g^T x (weight gradient), and the attention products; M is a slice of B*T rows, as
// Ember splits a product across threads by rows. With --threads T the rows are split in T blocks, one
// single-threaded gemm each, as core/cpu/matmul.cpp does. Each kernel stores float32 sums (gemm_bf16).
// Prints GFLOP/s per kernel and shape (best of 3 rounds of --reps calls), after the core's own limits:
// 16 independent chains of vfmadd231ps and of vdpbf16ps on zmm registers, and 4 independent tile
// accumulators of tdpbf16ps (enough to hide their latency), which is what a kernel's GFLOP/s should be
// read against.
//
//   build-bench/bench/bench_bf16 [--preset baby|video] [--reps N] [--threads T]
#include <cblas.h>
#include <immintrin.h>
#include <omp.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <ember/ember.h>

#include "core/cpu/gemm_bf16.h"

namespace {

using ember::BFloat16;
using ember::cpu::Bf16GemmKernel;

struct Shape {
  const char* what;
  int64_t M, N, K;
  bool ta, tb;
};

std::vector<Shape> shapes(const std::string& preset) {
  const int64_t C = preset == "video" ? 384 : 128, T = preset == "video" ? 256 : 64,
                HS = 64 / (preset == "video" ? 1 : 2);
  const int64_t rows = preset == "video" ? 2048 : 768;
  return {{"qkv x@W^T", rows, 3 * C, C, false, true},
          {"fc x@W^T", rows, 4 * C, C, false, true},
          {"fc_proj x@W^T", rows, C, 4 * C, false, true},
          {"fc dx=g@W", rows, C, 4 * C, false, false},
          {"fc dW=g^T x", 4 * C, C, rows, true, false},
          {"att q@k^T", T, T, HS, false, true},
          {"att p@v", T, HS, T, false, false}};
}

// Seconds per call, the best of 3 rounds of `reps` calls: the machine may be shared.
template <typename F>
double seconds_per_call(int reps, F&& f) {
  f();  // warm: packing buffers, caches
  double best = 1e30;
  for (int round = 0; round < 3; ++round) {
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < reps; ++i) f();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / reps);
  }
  return best;
}

// f(lo, n) for `threads` blocks of the M rows, in parallel: core/cpu/matmul.cpp's split.
template <typename F>
void split_rows(int threads, int64_t M, F&& f) {
  const int64_t block = ((M + threads - 1) / threads + 31) / 32 * 32;
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int t = 0; t < threads; ++t)
    if (t * block < M) f(t * block, std::min(block, M - t * block));
}

// GFLOP/s of one core issuing only vdpbf16ps or vfmadd231ps (the library's probe, run longer).
template <bool bf16>
double peak_gflops() {
  constexpr int64_t kIters = 20'000'000;
  return ember::cpu::issue_rate_flops(bf16, kIters) / 1e9;
}

// The 64-byte tile configuration of palette 1: 8 tiles of 16 rows x 64 bytes.
struct alignas(64) TileConfig {
  uint8_t palette = 1, start_row = 0, reserved[14] = {};
  uint16_t colsb[16] = {64, 64, 64, 64, 64, 64, 64, 64};
  uint8_t rows[16] = {16, 16, 16, 16, 16, 16, 16, 16};
};
const TileConfig kTileConfig;

// GFLOP/s of one core issuing only tdpbf16ps (16 x 16 x 32 products: 16,384 flops each) into 4
// independent accumulator tiles from 4 tiles of operands, no loads: the AMX limit.
__attribute__((target("amx-tile,amx-bf16"))) double amx_peak_gflops() {
  constexpr int64_t kIters = 1'000'000;
  _tile_loadconfig(&kTileConfig);
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  _tile_zero(3);
  _tile_zero(4);
  _tile_zero(5);
  _tile_zero(6);
  _tile_zero(7);
  const auto start = std::chrono::steady_clock::now();
  for (int64_t it = 0; it < kIters; ++it) {
    _tile_dpbf16ps(0, 4, 6);
    _tile_dpbf16ps(1, 4, 7);
    _tile_dpbf16ps(2, 5, 6);
    _tile_dpbf16ps(3, 5, 7);
  }
  const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  _tile_release();
  return double(kIters) * 4 * 16384 / t / 1e9;
}

void print_peaks() {
  if (!__builtin_cpu_supports("avx512f")) return;
  const double fma = peak_gflops<false>();
  if (!ember::cpu::cpu_has_avx512_bf16()) {
    std::printf("# this core's limit: vfmadd231ps zmm %.1f GFLOP/s (float32)\n", fma);
    return;
  }
  std::printf("# this core's limits: vfmadd231ps zmm %.1f GFLOP/s (float32), vdpbf16ps zmm %.1f GFLOP/s (bf16)", fma,
              peak_gflops<true>());
  if (ember::cpu::cpu_has_amx()) std::printf(", tdpbf16ps %.1f GFLOP/s (bf16)", amx_peak_gflops());
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  std::string preset = "video";
  int reps = 5, threads = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--preset") == 0) preset = argv[i + 1];
    if (std::strcmp(argv[i], "--reps") == 0) reps = std::stoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--threads") == 0) threads = std::stoi(argv[i + 1]);
  }
  ember::set_num_threads(1);
  if (threads == 1) print_peaks();
  std::printf(
      "# %s shapes, %d thread(s); GFLOP/s, best of 3 (avx512_bf16 in cpuid: %s, vdpbf16ps beats FMA: %s, "
      "AMX usable: %s; default kernel %s)\n",
      preset.c_str(), threads, ember::cpu::cpu_has_avx512_bf16() ? "yes" : "no",
      ember::cpu::vdpbf16ps_beats_fma() ? "yes" : "no", ember::cpu::cpu_has_amx() ? "yes" : "no",
      ember::cpu::bf16_gemm_kernel_name(ember::cpu::bf16_gemm_kernel()));
  std::printf("%-15s %5s %5s %5s %9s %9s %11s %9s %9s\n", "product", "M", "N", "K", "sgemm", "amx", "avx512bf16",
              "openblas", "float32");
  for (const Shape& s : shapes(preset)) {
    const int64_t a_rows = s.ta ? s.K : s.M, a_cols = s.ta ? s.M : s.K;
    const int64_t b_rows = s.tb ? s.N : s.K, b_cols = s.tb ? s.K : s.N;
    std::vector<float> af(a_rows * a_cols), bf(b_rows * b_cols), c(s.M * s.N);
    for (size_t i = 0; i < af.size(); ++i) af[i] = float(i % 97) * 0.01f - 0.4f;
    for (size_t i = 0; i < bf.size(); ++i) bf[i] = float(i % 89) * 0.01f - 0.4f;
    std::vector<BFloat16> ah(af.begin(), af.end()), bh(bf.begin(), bf.end());
    const double flops = 2.0 * s.M * s.N * s.K;
    // Rows lo.. of op(A): row lo starts at A + lo * lda, or at A + lo when A is transposed.
    auto a_from = [&](int64_t lo) { return s.ta ? lo : lo * a_cols; };
    const double t_sgemm = seconds_per_call(reps, [&] {
      split_rows(threads, s.M, [&](int64_t lo, int64_t n) {
        cblas_sgemm(CblasRowMajor, s.ta ? CblasTrans : CblasNoTrans, s.tb ? CblasTrans : CblasNoTrans, n, s.N, s.K,
                    1.0f, af.data() + a_from(lo), a_cols, bf.data(), b_cols, 0.0f, c.data() + lo * s.N, s.N);
      });
    });
    std::printf("%-15s %5ld %5ld %5ld %9.1f", s.what, long(s.M), long(s.N), long(s.K), flops / t_sgemm / 1e9);
    for (Bf16GemmKernel k :
         {Bf16GemmKernel::kAmx, Bf16GemmKernel::kAvx512Bf16, Bf16GemmKernel::kOpenBlas, Bf16GemmKernel::kFloat32}) {
      const int width = k == Bf16GemmKernel::kAvx512Bf16 ? 11 : 9;
      if ((k == Bf16GemmKernel::kAmx && !ember::cpu::cpu_has_amx()) ||
          (k == Bf16GemmKernel::kAvx512Bf16 && !ember::cpu::cpu_has_avx512_bf16()) ||
          (k == Bf16GemmKernel::kOpenBlas && !ember::cpu::openblas_has_sbgemm())) {
        std::printf(" %*s", width, "-");
        continue;
      }
      ember::cpu::set_bf16_gemm_kernel(k);
      const double t = seconds_per_call(reps, [&] {
        split_rows(threads, s.M, [&](int64_t lo, int64_t n) {
          ember::cpu::gemm_bf16({ah.data() + a_from(lo), s.ta, a_cols}, {bh.data(), s.tb, b_cols}, n, s.N, s.K,
                                c.data() + lo * s.N, s.N, false);
        });
      });
      std::printf(" %*.1f", width, flops / t / 1e9);
    }
    std::printf("\n");
  }
}
