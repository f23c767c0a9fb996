// The bf16 matrix kernels on the GPT's product shapes, one thread, against float32 sgemm:
//   sgemm       OpenBLAS's float32 gemm on the same shapes (what a float32 step runs)
//   avx512bf16  Ember's vdpbf16ps kernel (core/cpu/gemm_bf16.cpp), packing included
//   openblas    OpenBLAS's cblas_sbgemm
//   float32     the fallback: widen to float32, then sgemm
// Shapes are (M, N, K) with the layouts a training step uses: x @ W^T (forward), g @ W (input
// gradient), g^T x (weight gradient), and the attention products; M is a slice of B*T rows, as
// Ember splits a product across threads by rows. Prints GFLOP/s per kernel and shape, after the
// core's own limits: 16 independent chains of vfmadd231ps and of vdpbf16ps on zmm registers (enough
// to hide their latency), which is what a kernel's GFLOP/s should be read against.
//
//   build-bench/bench/bench_bf16 [--preset baby|video] [--reps N]
#include <cblas.h>
#include <immintrin.h>

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

template <typename F>
double seconds_per_call(int reps, F&& f) {
  f();  // warm: packing buffers, caches
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < reps; ++i) f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / reps;
}

// GFLOP/s of one core issuing only vdpbf16ps (`bf16`: 64 flops each) or vfmadd231ps (32) on 16
// independent zmm accumulators (distinct start values, so the compiler cannot merge the chains).
template <bool bf16>
__attribute__((target("avx512f,avx512bf16"))) double peak_gflops() {
  constexpr int64_t kIters = 20'000'000;
  const __m512 x = _mm512_set1_ps(0.999f), y = _mm512_set1_ps(1e-7f);
  const __m512bh u = (__m512bh)_mm512_set1_epi16(0x3F80), v = (__m512bh)_mm512_set1_epi16(0x3380);
  __m512 acc[16];
  for (int i = 0; i < 16; ++i) acc[i] = _mm512_set1_ps(float(i) * 1e-3f);
  const auto start = std::chrono::steady_clock::now();
  for (int64_t it = 0; it < kIters; ++it) {
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i) acc[i] = bf16 ? _mm512_dpbf16_ps(acc[i], u, v) : _mm512_fmadd_ps(acc[i], x, y);
  }
  const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  float sink = 0;
  for (int i = 0; i < 16; ++i) sink += _mm512_reduce_add_ps(acc[i]);
  if (sink == 1.2345f) std::printf(" ");  // keep the chains alive
  return double(kIters) * 16 * (bf16 ? 64 : 32) / t / 1e9;
}

void print_peaks() {
  if (!__builtin_cpu_supports("avx512f")) return;
  const double fma = peak_gflops<false>();
  if (!ember::cpu::cpu_has_avx512_bf16()) {
    std::printf("# this core's limit: vfmadd231ps zmm %.1f GFLOP/s (float32)\n", fma);
    return;
  }
  std::printf("# this core's limits: vfmadd231ps zmm %.1f GFLOP/s (float32), vdpbf16ps zmm %.1f GFLOP/s (bf16)\n", fma,
              peak_gflops<true>());
}

}  // namespace

int main(int argc, char** argv) {
  std::string preset = "video";
  int reps = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--preset") == 0) preset = argv[i + 1];
    if (std::strcmp(argv[i], "--reps") == 0) reps = std::stoi(argv[i + 1]);
  }
  ember::set_num_threads(1);
  print_peaks();
  std::printf("# %s shapes, one thread; GFLOP/s (avx512_bf16 in cpuid: %s)\n", preset.c_str(),
              ember::cpu::cpu_has_avx512_bf16() ? "yes" : "no");
  std::printf("%-15s %5s %5s %5s %9s %11s %9s %9s\n", "product", "M", "N", "K", "sgemm", "avx512bf16", "openblas",
              "float32");
  for (const Shape& s : shapes(preset)) {
    const int64_t a_rows = s.ta ? s.K : s.M, a_cols = s.ta ? s.M : s.K;
    const int64_t b_rows = s.tb ? s.N : s.K, b_cols = s.tb ? s.K : s.N;
    std::vector<float> af(a_rows * a_cols), bf(b_rows * b_cols), c(s.M * s.N);
    for (size_t i = 0; i < af.size(); ++i) af[i] = float(i % 97) * 0.01f - 0.4f;
    for (size_t i = 0; i < bf.size(); ++i) bf[i] = float(i % 89) * 0.01f - 0.4f;
    std::vector<BFloat16> ah(af.begin(), af.end()), bh(bf.begin(), bf.end());
    const double flops = 2.0 * s.M * s.N * s.K;
    const double t_sgemm = seconds_per_call(reps, [&] {
      cblas_sgemm(CblasRowMajor, s.ta ? CblasTrans : CblasNoTrans, s.tb ? CblasTrans : CblasNoTrans, s.M, s.N, s.K,
                  1.0f, af.data(), a_cols, bf.data(), b_cols, 0.0f, c.data(), s.N);
    });
    std::printf("%-15s %5ld %5ld %5ld %9.1f", s.what, long(s.M), long(s.N), long(s.K), flops / t_sgemm / 1e9);
    for (Bf16GemmKernel k : {Bf16GemmKernel::kAvx512Bf16, Bf16GemmKernel::kOpenBlas, Bf16GemmKernel::kFloat32}) {
      if ((k == Bf16GemmKernel::kAvx512Bf16 && !ember::cpu::cpu_has_avx512_bf16()) ||
          (k == Bf16GemmKernel::kOpenBlas && !ember::cpu::openblas_has_sbgemm())) {
        std::printf(k == Bf16GemmKernel::kAvx512Bf16 ? " %11s" : " %9s", "-");
        continue;
      }
      ember::cpu::set_bf16_gemm_kernel(k);
      const double t = seconds_per_call(reps, [&] {
        ember::cpu::gemm_bf16({ah.data(), s.ta, a_cols}, {bh.data(), s.tb, b_cols}, s.M, s.N, s.K, c.data(), s.N,
                              false);
      });
      std::printf(k == Bf16GemmKernel::kAvx512Bf16 ? " %11.1f" : " %9.1f", flops / t / 1e9);
    }
    std::printf("\n");
  }
}
