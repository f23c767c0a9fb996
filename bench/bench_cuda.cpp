// CUDA benchmarks: the GPT training step at the `baby` and `video` presets, each fused kernel of
// the step (LayerNorm, GELU, causal attention, the AdamW update, a long sum), and matmul, softmax,
// broadcast add and a copy (the memory-bandwidth ceiling), each printed beside the H100's limits.
//
//   cmake -B build-gpu -DEMBER_CUDA=ON -DEMBER_BUILD_BENCH=ON && cmake --build build-gpu --target bench_cuda
//   build-gpu/bench/bench_cuda                    # scripts/gpu_check.sh runs it
//   build-gpu/bench/bench_cuda --count-calls baby # backend kernel calls per GPT step, fused and composed
//   EMBER_DEBUG=profile bench_cuda --count-calls baby fused   # and the calls by op, for one of them
//
// Every iteration ends with cuda::synchronize(), so times include the kernels, not just launches.
// "H100 %" counters are achieved GB/s over 3.35 TB/s (HBM3) and TFLOP/s over 495 (dense TF32).
// Without a GPU each benchmark reports "no CUDA device" and measures nothing; --count-calls runs
// in the emulator too (the counts do not depend on the device).
#include <cstdio>
#include <cstring>
#include <string>

#include <benchmark/benchmark.h>
#include <ember/ember.h>

#include "bench_gpt_common.h"
#include "core/backend.h"
#include "core/trace.h"

using namespace ember;

namespace {

bool have_gpu(benchmark::State& state) {
  if (cuda::is_available()) return true;
  state.SkipWithError("no CUDA device");
  return false;
}

Tensor gpu_randn(IntArrayRef sizes) { return randn(sizes).to(kCUDA); }

constexpr double kH100BytesPerSecond = 3.35e12;  // HBM3
constexpr double kH100Tf32Flops = 495e12;        // dense TF32 tensor cores
constexpr double kH100Bf16Flops = 989e12;        // dense BF16 tensor cores

// Bytes moved per iteration: GB/s, and that as a share of the H100's bandwidth.
void set_bytes(benchmark::State& state, double bytes) {
  state.counters["GB/s"] = benchmark::Counter(bytes * state.iterations() / 1e9, benchmark::Counter::kIsRate);
  state.counters["H100 BW %"] =
      benchmark::Counter(100 * bytes * state.iterations() / kH100BytesPerSecond, benchmark::Counter::kIsRate);
}
void set_flops(benchmark::State& state, double flops) {
  state.counters["TFLOP/s"] = benchmark::Counter(flops * state.iterations() / 1e12, benchmark::Counter::kIsRate);
  state.counters["H100 TF32 %"] =
      benchmark::Counter(100 * flops * state.iterations() / kH100Tf32Flops, benchmark::Counter::kIsRate);
}

// ---- the GPT training step ----

// A GPT of `preset` on the GPU with bench_gpt's AdamW groups and clipping: one call of step() is
// forward, backward, clip_grad_norm_ and the AdamW update on fresh random tokens.
struct GptStep {
  bench::Preset p;
  nn::GPT model{nullptr};
  std::unique_ptr<optim::AdamW> opt;
  std::vector<Tensor> params;

  explicit GptStep(bench::Preset preset) : p(std::move(preset)) {
    manual_seed(1337);
    nn::GPTConfig config;
    config.vocab_size = p.vocab_size, config.block_size = p.block_size, config.n_layer = p.n_layer;
    config.n_head = p.n_head, config.n_embd = p.n_embd, config.dropout = p.dropout;
    model = nn::GPT(config);
    model->to(kCUDA);
    model->train();
    nn::WeightDecayGroups split = model->weight_decay_groups();
    auto options = optim::AdamWOptions(1e-3).betas({0.9, 0.99}).weight_decay(0.1);
    std::vector<optim::OptimizerParamGroup> groups;
    groups.emplace_back(split.decay, std::make_unique<optim::AdamWOptions>(options));
    auto no_decay = options;
    groups.emplace_back(split.no_decay, std::make_unique<optim::AdamWOptions>(no_decay.weight_decay(0.0)));
    opt = std::make_unique<optim::AdamW>(std::move(groups), options);
    params = model->parameters();
  }
  void step() {
    Tensor x = randint(p.vocab_size, {p.batch_size, p.block_size}, dtype(kInt64)).to(kCUDA);
    Tensor y = randint(p.vocab_size, {p.batch_size, p.block_size}, dtype(kInt64)).to(kCUDA);
    auto [logits, loss] = model->forward(x, y);
    opt->zero_grad(true);
    loss.backward();
    nn::utils::clip_grad_norm_(params, 1.0);
    opt->step();
  }
};

void BM_cuda_gpt_step(benchmark::State& state, const char* preset) {
  if (!have_gpu(state)) return;
  GptStep g(bench::preset(preset));
  g.step();  // warm-up: the caching allocator fills, cuBLAS picks its kernels
  cuda::synchronize();
  for (auto _ : state) {
    g.step();
    cuda::synchronize();
  }
  set_flops(state, bench::flops_per_step(g.p));
  state.counters["tok/s"] = benchmark::Counter(
      static_cast<double>(g.p.batch_size * g.p.block_size) * state.iterations(), benchmark::Counter::kIsRate);
}

// Forwards every kernel to the CUDA backend and counts the calls; with `fused` false the fused and
// optimizer kernels decline, so the ops compose them from primitive kernels, as before cuda/ had them.
class CountingBackend final : public Backend {
 public:
  CountingBackend(Backend& inner, bool fused) : in_(inner), fused_(fused) {}
  int64_t calls = 0;
  const char* name() const override { return in_.name(); }
  void* allocate(size_t n, Device d) override { return in_.allocate(n, d); }
  void deallocate(void* p, Device d) override { in_.deallocate(p, d); }
  void copy_to_host(void* dst, const void* src, size_t n, Device d) override { in_.copy_to_host(dst, src, n, d); }
  void copy_from_host(void* dst, const void* src, size_t n, Device d) override { in_.copy_from_host(dst, src, n, d); }
#define EMBER_COUNTED_KERNEL(name, params, args, ...) \
  void name params override {                         \
    ++calls;                                          \
    in_.name args;                                    \
  }
#define EMBER_COUNTED_OPTIONAL_KERNEL(name, params, args, ...) \
  bool name params override {                                  \
    if (!fused_ || !in_.name args) return false;               \
    ++calls;                                                   \
    return true;                                               \
  }
  EMBER_BACKEND_KERNELS(EMBER_COUNTED_KERNEL)
  EMBER_FUSED_KERNELS(EMBER_COUNTED_OPTIONAL_KERNEL)
  EMBER_OPTIMIZER_KERNELS(EMBER_COUNTED_OPTIONAL_KERNEL)
  EMBER_FLASH_KERNELS(EMBER_COUNTED_OPTIONAL_KERNEL)
  EMBER_PHILOX_KERNELS(EMBER_COUNTED_OPTIONAL_KERNEL)
#undef EMBER_COUNTED_OPTIONAL_KERNEL
#undef EMBER_COUNTED_KERNEL

 private:
  Backend& in_;
  bool fused_;
};

// Prints the backend kernel calls of one GPT training step (the second: the first creates the
// optimizer's state) with the CUDA backend's fused kernels and with the ops composed. The count
// does not depend on the batch, so the preset runs with batch 1 (the emulator stays quick).
// `only` ("fused" or "composed") runs one of the two, so that EMBER_DEBUG=profile's table at exit
// shows that one's calls by op (for its two steps).
int count_calls(const std::string& preset, const std::string& only) {
  if (!cuda::is_available()) {
    std::fprintf(stderr, "no CUDA device\n");
    return 1;
  }
  bench::Preset p = bench::preset(preset);
  p.batch_size = 1;
  for (const bool fused : {false, true}) {
    if (!only.empty() && only != (fused ? "fused" : "composed")) continue;
    CountingBackend counting(cuda_backend(), fused);
    ScopedBackendOverride use(kCUDA, trace::level() > 0 ? trace::wrap(counting) : counting);
    GptStep g(p);
    g.step();
    counting.calls = 0;
    g.step();
    cuda::synchronize();
    std::printf("gpt step %s: %lld backend kernel calls (%s)\n", preset.c_str(), static_cast<long long>(counting.calls),
                fused ? "fused kernels" : "composed, no fused or optimizer kernels");
  }
  return 0;
}

// ---- the fused kernels, at the `video` preset's sizes: (B, T, C) = (64, 256, 384), 4C hidden ----

constexpr int64_t kB = 64, kT = 256, kC = 384;

// LayerNorm forward: reads x, writes y (plus w, b, mean, rstd: negligible).
void BM_cuda_layer_norm(benchmark::State& state) {
  if (!have_gpu(state)) return;
  Tensor x = gpu_randn({kB * kT, kC}), w = gpu_randn({kC}), b = gpu_randn({kC});
  for (auto _ : state) {
    Tensor y = layer_norm(x, {kC}, w, b);
    cuda::synchronize();
  }
  set_bytes(state, 2.0 * x.nbytes());
  set_flops(state, 8.0 * x.numel());
}

// LayerNorm backward: reads dy and x, writes dx, reads dy and x again for dweight and dbias.
void BM_cuda_layer_norm_backward(benchmark::State& state) {
  if (!have_gpu(state)) return;
  Tensor x = gpu_randn({kB * kT, kC}).requires_grad_(), w = gpu_randn({kC}).requires_grad_();
  Tensor b = gpu_randn({kC}).requires_grad_(), dy = gpu_randn({kB * kT, kC});
  Tensor y = layer_norm(x, {kC}, w, b);
  for (auto _ : state) {
    autograd::grad({y}, {x, w, b}, {dy}, /*retain_graph=*/true);
    cuda::synchronize();
  }
  set_bytes(state, 5.0 * x.nbytes());
  set_flops(state, 14.0 * x.numel());
}

// GELU forward (reads x, writes y) and backward (reads dy and x, writes dx), on (B, T, 4C).
void BM_cuda_gelu(benchmark::State& state) {
  if (!have_gpu(state)) return;
  Tensor x = gpu_randn({kB * kT, 4 * kC});
  for (auto _ : state) {
    Tensor y = x.gelu();
    cuda::synchronize();
  }
  set_bytes(state, 2.0 * x.nbytes());
  set_flops(state, 10.0 * x.numel());
}
void BM_cuda_gelu_backward(benchmark::State& state) {
  if (!have_gpu(state)) return;
  Tensor x = gpu_randn({kB * kT, 4 * kC}).requires_grad_(), dy = gpu_randn({kB * kT, 4 * kC});
  Tensor y = x.gelu();
  for (auto _ : state) {
    autograd::grad({y}, {x}, {dy}, /*retain_graph=*/true);
    cuda::synchronize();
  }
  set_bytes(state, 3.0 * x.nbytes());
  set_flops(state, 20.0 * x.numel());
}

// AdamW over the `video` GPT's parameters: reads p, g, m, v, writes p, m, v (7 floats a parameter).
void BM_cuda_adamw_update(benchmark::State& state) {
  if (!have_gpu(state)) return;
  GptStep g(bench::preset("video"));
  int64_t n = 0;
  for (const Tensor& p : g.params) {
    p.mutable_grad() = randn(p.sizes()).to(kCUDA);
    n += p.numel();
  }
  for (auto _ : state) {
    g.opt->step();
    cuda::synchronize();
  }
  set_bytes(state, 7.0 * 4 * n);
  set_flops(state, 14.0 * n);
}

// Causal attention of the `video` GPT's heads: (B, H, T, hs) = (64, 6, 256, 64), without dropout
// and with the preset's 0.2 (the mask drawn from Philox inside the kernels), the
// heads of one qkv projection (strided, as the model makes them). Forward reads q, k, v and writes
// out and one logsumexp a row; the bytes count each tensor once (the kernel's floor), the FLOPs the
// two products over the lower triangle.
constexpr int64_t kHeads = 6, kHeadDim = kC / kHeads;
Tensor video_qkv() { return gpu_randn({kB, kT, 3, kHeads, kHeadDim}); }
Tensor head(const Tensor& qkv, int64_t which) { return qkv.select(2, which).transpose(1, 2); }
void BM_cuda_attention(benchmark::State& state, double dropout_p) {
  if (!have_gpu(state)) return;
  Tensor qkv = video_qkv();
  for (auto _ : state) {
    Tensor y =
        nn::functional::scaled_dot_product_attention(head(qkv, 0), head(qkv, 1), head(qkv, 2), {}, dropout_p, true);
    cuda::synchronize();
  }
  const double head_bytes = 4.0 * kB * kHeads * kT * kHeadDim;
  set_bytes(state, 4 * head_bytes + 4.0 * kB * kHeads * kT);
  set_flops(state, 2.0 * kB * kHeads * kT * kT * kHeadDim);  // 2 products x 2 flops x half the (T, T) matrix
}
// The same heads in bfloat16, as autocast's projection gives them: the forward on tensor cores
// (cuda/attention_mma.cu). 2 bytes an element; the FLOPs against the H100's 990 dense BF16 TFLOP/s.
void BM_cuda_attention_bf16(benchmark::State& state) {
  if (!have_gpu(state)) return;
  Tensor qkv = video_qkv().to(kBFloat16);
  for (auto _ : state) {
    Tensor y = nn::functional::scaled_dot_product_attention(head(qkv, 0), head(qkv, 1), head(qkv, 2), {}, 0.0, true);
    cuda::synchronize();
  }
  const double head_bytes = 2.0 * kB * kHeads * kT * kHeadDim, flops = 2.0 * kB * kHeads * kT * kT * kHeadDim;
  set_bytes(state, 4 * head_bytes + 4.0 * kB * kHeads * kT);
  set_flops(state, flops);
  state.counters["H100 BF16 %"] =
      benchmark::Counter(100 * flops * state.iterations() / kH100Bf16Flops, benchmark::Counter::kIsRate);
}
// Backward: reads q, k, v, dout and the logsumexp, writes dq, dk, dv; the scores and dp are
// recomputed three times (dq's two passes, dk/dv's one): 9 half-triangle products in all.
void BM_cuda_attention_backward(benchmark::State& state, double dropout_p) {
  if (!have_gpu(state)) return;
  Tensor qkv = video_qkv().requires_grad_();
  Tensor y =
      nn::functional::scaled_dot_product_attention(head(qkv, 0), head(qkv, 1), head(qkv, 2), {}, dropout_p, true);
  Tensor dy = randn(y.sizes()).to(kCUDA);
  for (auto _ : state) {
    autograd::grad({y}, {qkv}, {dy}, /*retain_graph=*/true);
    cuda::synchronize();
  }
  const double head_bytes = 4.0 * kB * kHeads * kT * kHeadDim;
  set_bytes(state, 7 * head_bytes + 4.0 * kB * kHeads * kT);
  set_flops(state, 9.0 * kB * kHeads * kT * kT * kHeadDim);
}

// x.sum() over a (B, T, C) activation: one pass of reads, split across many blocks.
void BM_cuda_sum_all(benchmark::State& state) {
  if (!have_gpu(state)) return;
  Tensor x = gpu_randn({kB, kT, kC});
  for (auto _ : state) {
    Tensor y = x.sum();
    cuda::synchronize();
  }
  set_bytes(state, static_cast<double>(x.nbytes()));
  set_flops(state, static_cast<double>(x.numel()));
}

// The bias gradient's reduction: (B * T, C) summed over rows, coalesced by columns.
void BM_cuda_sum_rows(benchmark::State& state) {
  if (!have_gpu(state)) return;
  Tensor x = gpu_randn({kB * kT, 4 * kC});
  for (auto _ : state) {
    Tensor y = x.sum({0});
    cuda::synchronize();
  }
  set_bytes(state, static_cast<double>(x.nbytes()));
  set_flops(state, static_cast<double>(x.numel()));
}

void BM_cuda_matmul(benchmark::State& state) {
  if (!have_gpu(state)) return;
  const int64_t n = state.range(0);
  Tensor a = gpu_randn({n, n}), b = gpu_randn({n, n});
  // Warm-up: the first product of a process creates cuBLAS's handle and workspace (85 ms on the H200,
  // where the first run timed that one call as the whole benchmark).
  a.matmul(state.range(1) ? b.t() : b);
  cuda::synchronize();
  for (auto _ : state) {
    Tensor c = a.matmul(state.range(1) ? b.t() : b);
    cuda::synchronize();
  }
  set_flops(state, 2.0 * n * n * n);
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

// ---- cross-entropy, embedding backward and Linear's bias at the `video` preset: N = B * T rows, vocab 65 ----

constexpr int64_t kVocab = 65;

// Fused cross-entropy forward (mean) and backward: reads the (N, V) logits twice (once each way)
// and writes dlogits; the (N) targets, losses and logsumexps are small beside them.
void BM_cuda_cross_entropy(benchmark::State& state) {
  if (!have_gpu(state)) return;
  Tensor logits = gpu_randn({kB * kT, kVocab}).requires_grad_();
  Tensor targets = randint(kVocab, {kB * kT}, dtype(kInt64)).to(kCUDA);
  for (auto _ : state) {
    Tensor loss = nn::functional::cross_entropy(logits, targets);
    autograd::grad({loss}, {logits});
    cuda::synchronize();
  }
  set_bytes(state, 3.0 * static_cast<double>(logits.nbytes()));
  set_flops(state, 10.0 * static_cast<double>(logits.numel()));
}

// Token embedding backward, (N, C) gradients summed into 65 rows: index_add without atomics.
void BM_cuda_embedding_backward(benchmark::State& state) {
  if (!have_gpu(state)) return;
  Tensor weight = gpu_randn({kVocab, kC}).requires_grad_();
  Tensor idx = randint(kVocab, {kB, kT}, dtype(kInt64)).to(kCUDA), dy = gpu_randn({kB, kT, kC});
  Tensor y = nn::functional::embedding(idx, weight);
  for (auto _ : state) {
    autograd::grad({y}, {weight}, {dy}, /*retain_graph=*/true);
    cuda::synchronize();
  }
  // dy read once; the chunk sums (a 32nd of it) written and read back
  set_bytes(state, static_cast<double>(dy.nbytes()) * (1 + 2.0 / 32));
  set_flops(state, static_cast<double>(dy.numel()));
}

// Linear(C, 4C) forward with its bias: addmm as one gemm with beta = 1 over the copied bias.
void BM_cuda_linear(benchmark::State& state) {
  if (!have_gpu(state)) return;
  Tensor x = gpu_randn({kB * kT, kC}), w = gpu_randn({4 * kC, kC}), b = gpu_randn({4 * kC});
  for (auto _ : state) {
    Tensor y = nn::functional::linear(x, w, b);
    cuda::synchronize();
  }
  set_flops(state, 2.0 * kB * kT * kC * 4 * kC);
}
}  // namespace

BENCHMARK(BM_cuda_matmul)->ArgsProduct({{1024, 4096}, {0, 1}})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_cuda_copy)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_cuda_add_broadcast)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_cuda_softmax)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_cuda_sum_lastdim)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_cuda_gpt_step, baby, "baby")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_cuda_gpt_step, video, "video")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_cuda_layer_norm)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_cuda_layer_norm_backward)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_cuda_gelu)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_cuda_gelu_backward)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_cuda_adamw_update)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_cuda_attention, no_dropout, 0.0)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_cuda_attention, dropout_0_2, 0.2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_cuda_attention_bf16)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_cuda_attention_backward, no_dropout, 0.0)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_cuda_attention_backward, dropout_0_2, 0.2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_cuda_sum_all)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_cuda_sum_rows)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_cuda_cross_entropy)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_cuda_embedding_backward)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_cuda_linear)->Unit(benchmark::kMillisecond);

int main(int argc, char** argv) {
  if ((argc == 3 || argc == 4) && std::strcmp(argv[1], "--count-calls") == 0)
    return count_calls(argv[2], argc == 4 ? argv[3] : "");
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
