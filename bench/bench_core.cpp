// Core kernel benchmarks against their peers measured in the same run (issue 2's targets):
//   matmul (plain and transposed operands) vs OpenBLAS sgemm called directly, at 256..2048;
//   softmax, broadcast add and last-dim sum of a (64, 256, 384) float32 tensor vs a memcpy of
//   the same bytes. Ratios matter, not absolute times: the machine is shared and noisy.
//
//   cmake -B build-bench -DEMBER_BUILD_BENCH=ON && cmake --build build-bench -j2 --target bench_core
//   build-bench/bench/bench_core --benchmark_min_time=0.2
#include <cblas.h>

#include <cstring>
#include <vector>

#include <benchmark/benchmark.h>
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
    cblas_sgemm(CblasRowMajor, CblasNoTrans, trans ? CblasTrans : CblasNoTrans, n, n, n, 1.0f, a.data(), n, b.data(), n,
                0.0f, c.data(), n);
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

// The GPT's own products (baby preset: 768 rows of 128 features, MLP 512 wide), each in the three
// forms a Linear layer runs: forward X W^T, input grad dY W, weight grad dY^T X. Range: shape index,
// form (0 fwd, 1 dX, 2 dW). Small products are where splitting over threads costs the most.
constexpr int64_t kGptShapes[][2] = {{128, 384}, {128, 128}, {128, 512}, {512, 128}, {128, 65}};  // (in, out)

void BM_gpt_linear_gemm(benchmark::State& state) {
  const int64_t rows = 768, in = kGptShapes[state.range(0)][0], out = kGptShapes[state.range(0)][1];
  NoGradGuard no_grad;
  Tensor x = filled({rows, in}), w = filled({out, in}), dy = filled({rows, out});
  for (auto _ : state) {
    Tensor r = state.range(1) == 0 ? x.mm(w.t()) : state.range(1) == 1 ? dy.mm(w) : dy.t().mm(x);
    benchmark::DoNotOptimize(r.raw_data_ptr());
  }
  state.SetLabel(fmt::format("in {} out {} {}", in, out,
                             state.range(1) == 0   ? "fwd"
                             : state.range(1) == 1 ? "dX"
                                                   : "dW"));
  set_flops(state, 2.0 * rows * in * out);
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

// A bias gradient: (768, 512) summed over its rows.
void BM_sum_rows(benchmark::State& state) {
  NoGradGuard no_grad;
  Tensor x = filled({768, 512});
  for (auto _ : state) benchmark::DoNotOptimize(x.sum(0).raw_data_ptr());
  state.SetBytesProcessed(state.iterations() * x.nbytes());
}

// Causal attention of the baby GPT (12 sequences, 4 heads, 64 tokens, head size 32), forward
// and backward through the fused kernels.
void BM_causal_attention(benchmark::State& state) {
  const bool backward = state.range(0);
  Tensor q = filled({12, 4, 64, 32}).requires_grad_(backward),
         k = (filled({12, 4, 64, 32}) * 0.7).requires_grad_(backward),
         v = (filled({12, 4, 64, 32}) * 1.3).requires_grad_(backward);
  for (auto _ : state) {
    Tensor y = nn::functional::scaled_dot_product_attention(q, k, v, {}, 0.0, /*is_causal=*/true);
    if (backward) y.sum().backward();
    benchmark::DoNotOptimize(y.raw_data_ptr());
  }
  state.SetLabel(backward ? "forward+backward" : "forward");
}

// GELU forward and backward over the baby MLP's hidden activations (768, 512).
void BM_gelu(benchmark::State& state) {
  const bool backward = state.range(0);
  Tensor x = filled({768, 512}).requires_grad_(backward);
  Tensor g = filled({768, 512}) * 0.5;
  for (auto _ : state) {
    Tensor y = x.gelu();
    if (backward) benchmark::DoNotOptimize(autograd::grad({y}, {x}, {g})[0].raw_data_ptr());
    benchmark::DoNotOptimize(y.raw_data_ptr());
  }
  state.SetLabel(backward ? "forward+backward" : "forward");
  state.SetItemsProcessed(state.iterations() * x.numel());
}

// LayerNorm of the baby GPT's activations (768, 128), forward and backward.
void BM_layer_norm(benchmark::State& state) {
  const bool backward = state.range(0);
  Tensor x = filled({768, 128}).requires_grad_(backward);
  Tensor w = (filled({128}) + 1).requires_grad_(backward), b = filled({128}).requires_grad_(backward);
  Tensor g = filled({768, 128}) * 0.5;
  for (auto _ : state) {
    Tensor y = nn::functional::layer_norm(x, {128}, w, b, 1e-5);
    if (backward) benchmark::DoNotOptimize(autograd::grad({y}, {x, w, b}, {g})[0].raw_data_ptr());
    benchmark::DoNotOptimize(y.raw_data_ptr());
  }
  state.SetLabel(backward ? "forward+backward" : "forward");
}

}  // namespace

BENCHMARK(BM_sgemm_direct)->ArgsProduct({{256, 512, 1024, 2048}, {0, 1}})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ember_matmul)->ArgsProduct({{256, 512, 1024, 2048}, {0, 1}})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_gpt_linear_gemm)->ArgsProduct({{0, 1, 2, 3, 4}, {0, 1, 2}})->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_sum_rows)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_causal_attention)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_gelu)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_layer_norm)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_memcpy)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_softmax)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_add_broadcast)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_sum_lastdim)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
