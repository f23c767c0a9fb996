// CUDA kernel benchmarks: matmul through cuBLAS, softmax, broadcast add and last-dim sum on the GPU,
// each against a device-to-device copy of the same bytes (the memory-bandwidth ceiling).
//
//   cmake -B build-gpu -DEMBER_CUDA=ON -DEMBER_BUILD_BENCH=ON && cmake --build build-gpu --target bench_cuda
//   build-gpu/bench/bench_cuda            # scripts/gpu_check.sh runs it
//
// Every iteration ends with cuda::synchronize(), so times include the kernels, not just launches.
// Without a GPU each benchmark reports "no CUDA device" and measures nothing.
#include <benchmark/benchmark.h>

#include <ember/ember.h>

using namespace ember;

namespace {

bool have_gpu(benchmark::State& state) {
  if (cuda::is_available()) return true;
  state.SkipWithError("no CUDA device");
  return false;
}

Tensor gpu_randn(IntArrayRef sizes) { return randn(sizes).to(kCUDA); }

void set_bytes(benchmark::State& state, double bytes) {
  state.counters["GB/s"] = benchmark::Counter(bytes * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}

void BM_cuda_matmul(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const int64_t n = state.range(0);
  Tensor a = gpu_randn({n, n}), b = gpu_randn({n, n});
  for (auto _ : state) {
    Tensor c = a.matmul(state.range(1) ? b.t() : b);
    cuda::synchronize();
  }
  state.counters["TFLOP/s"] =
      benchmark::Counter(2.0 * n * n * n * state.iterations() / 1e12, benchmark::Counter::kIsRate);
}

// (B, T, C) = (64, 256, 768) float32, a GPT-2 small activation.
void BM_cuda_copy(benchmark::State& state) {
  if (!have_gpu(state)) return;
  Tensor x = gpu_randn({64, 256, 768});
  for (auto _ : state) {
    Tensor y = x.clone();
    cuda::synchronize();
  }
  set_bytes(state, 2.0 * x.nbytes());
}

void BM_cuda_add_broadcast(benchmark::State& state) {
  if (!have_gpu(state)) return;
  Tensor x = gpu_randn({64, 256, 768}), bias = gpu_randn({768});
  for (auto _ : state) {
    Tensor y = x + bias;
    cuda::synchronize();
  }
  set_bytes(state, 2.0 * x.nbytes());
}

void BM_cuda_softmax(benchmark::State& state) {
  if (!have_gpu(state)) return;
  Tensor x = gpu_randn({64 * 12, 256, 256});  // attention scores (B * NH, T, T)
  for (auto _ : state) {
    Tensor y = x.softmax(-1);
    cuda::synchronize();
  }
  set_bytes(state, 2.0 * x.nbytes());
}

void BM_cuda_sum_lastdim(benchmark::State& state) {
  if (!have_gpu(state)) return;
  Tensor x = gpu_randn({64, 256, 768});
  for (auto _ : state) {
    Tensor y = x.sum({-1});
    cuda::synchronize();
  }
  set_bytes(state, static_cast<double>(x.nbytes()));
}

}  // namespace

BENCHMARK(BM_cuda_matmul)->ArgsProduct({{1024, 4096}, {0, 1}})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_cuda_copy)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_cuda_add_broadcast)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_cuda_softmax)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_cuda_sum_lastdim)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
