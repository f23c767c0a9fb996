// Core kernel benchmarks against their peers measured in the same run (issue 2's targets):
//   matmul (plain and transposed operands) vs OpenBLAS sgemm called directly, at 256..2048;
//   softmax, broadcast add and last-dim sum of a (64, 256, 384) float32 tensor vs a memcpy of
//   the same bytes. Ratios matter, not absolute times: the machine is shared and noisy.
//
//   cmake -B build-bench -DEMBER_BUILD_BENCH=ON && cmake --build build-bench -j2 --target bench_core
//   build-bench/bench/bench_core --benchmark_min_time=0.2
#include <benchmark/benchmark.h>
#include <cblas.h>

#include <cstring>
#include <vector>

#include <ember/ember.h>

#include "core/shape.h"

using namespace ember;

namespace {

// Deterministic, non-trivial values without depending on the RNG.
Tensor filled(IntArrayRef sizes) { return (arange(numel_of(sizes), kFloat32) * 0.001).sin().view(sizes); }

void set_flops(benchmark::State& state, double flops) {
  state.counters["GFLOP/s"] = benchmark::Counter(flops * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}

void BM_sgemm_direct(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const bool trans = state.range(1);
  std::vector<float> a(n * n, 0.5f), b(n * n, 0.25f), c(n * n);
  for (auto _ : state) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, trans ? CblasTrans : CblasNoTrans, n, n, n, 1.0f, a.data(), n, b.data(),
                n, 0.0f, c.data(), n);
    benchmark::DoNotOptimize(c.data());
  }
  set_flops(state, 2.0 * n * n * n);
}

void BM_ember_matmul(benchmark::State& state) {
  const int64_t n = state.range(0);
  const bool trans = state.range(1);
  NoGradGuard no_grad;
  Tensor a = filled({n, n}), b = filled({n, n});
  Tensor bt = trans ? b.t() : b;  // a transposed view: BLAS reads it with a flag, no copy
  for (auto _ : state) benchmark::DoNotOptimize(a.matmul(bt).raw_data_ptr());
  set_flops(state, 2.0 * n * n * n);
}

constexpr int64_t B = 64, T = 256, C = 384;

void BM_memcpy(benchmark::State& state) {
  std::vector<float> src(B * T * C, 1.0f), dst(B * T * C);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), src.size() * sizeof(float));
    benchmark::DoNotOptimize(dst.data());
  }
  state.SetBytesProcessed(state.iterations() * src.size() * sizeof(float));
}

void BM_softmax(benchmark::State& state) {
  NoGradGuard no_grad;
  Tensor x = filled({B, T, C});
  for (auto _ : state) benchmark::DoNotOptimize(x.softmax(-1).raw_data_ptr());
  state.SetBytesProcessed(state.iterations() * x.nbytes());
}

void BM_add_broadcast(benchmark::State& state) {
  NoGradGuard no_grad;
  Tensor x = filled({B, T, C}), bias = filled({C});
  for (auto _ : state) benchmark::DoNotOptimize((x + bias).raw_data_ptr());
  state.SetBytesProcessed(state.iterations() * x.nbytes());
}

void BM_sum_lastdim(benchmark::State& state) {
  NoGradGuard no_grad;
  Tensor x = filled({B, T, C});
  for (auto _ : state) benchmark::DoNotOptimize(x.sum(-1).raw_data_ptr());
  state.SetBytesProcessed(state.iterations() * x.nbytes());
}

}  // namespace

BENCHMARK(BM_sgemm_direct)->ArgsProduct({{256, 512, 1024, 2048}, {0, 1}})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ember_matmul)->ArgsProduct({{256, 512, 1024, 2048}, {0, 1}})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_memcpy)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_softmax)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_add_broadcast)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_sum_lastdim)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
