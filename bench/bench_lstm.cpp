// A training step of ember-charlstm's LSTM language model, timed with Google Benchmark: Embedding ->
// LSTM -> Linear (examples/charlstm/model.h), cross-entropy over the vocabulary, backward, gradient
// clipping and AdamW, on random tokens. bench/torch_lstm_step.py times the same step in PyTorch.
//
//   bench_lstm                                    # every shape, 2 threads
//   bench_lstm --benchmark_filter=small --threads 1
//   OPENBLAS_CORETYPE=SkylakeX bench_lstm         # OpenBLAS's AVX-512 kernels on a CPU it does not know
//
// Each shape is (batch B, sequence T, embedding C, hidden H, layers L) with the 65 characters of tiny
// Shakespeare; "small" is ember-charlstm's preset of that name. Reports ms per step and tokens/s.
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <ember/ember.h>

#include "model.h"

namespace {

struct Shape {
  const char* name;
  int64_t B, T, C, H, L;
};
constexpr int64_t kVocab = 65;
const Shape kShapes[] = {
    {"small", 32, 64, 32, 128, 2},  // ember-charlstm --preset small
    {"wide", 32, 64, 128, 512, 2},  // char-rnn's width, two layers
    {"long", 16, 256, 64, 256, 1},  // long sequences: many small sequential steps
};

void lstm_step(benchmark::State& state, const Shape& s) {
  ember::manual_seed(1337);
  charlstm::CharLSTM model(kVocab, charlstm::CharLSTMOptions{s.C, s.H, s.L, 0.0});
  model->train();
  ember::nn::WeightDecayGroups split = ember::nn::weight_decay_groups(*model);
  auto options = ember::optim::AdamWOptions(2e-3).betas({0.9, 0.99}).weight_decay(0.1);
  std::vector<ember::optim::OptimizerParamGroup> groups;
  groups.emplace_back(split.decay, std::make_unique<ember::optim::AdamWOptions>(options));
  auto no_decay = options;
  groups.emplace_back(split.no_decay, std::make_unique<ember::optim::AdamWOptions>(no_decay.weight_decay(0.0)));
  ember::optim::AdamW opt(std::move(groups), options);
  const std::vector<ember::Tensor> params = model->parameters();
  for (auto _ : state) {
    ember::Tensor x = ember::randint(kVocab, {s.B, s.T}, ember::dtype(ember::kInt64));
    ember::Tensor y = ember::randint(kVocab, {s.B, s.T}, ember::dtype(ember::kInt64));
    ember::Tensor logits = std::get<0>(model->forward(x));  // (B, T, V)
    ember::Tensor loss = ember::nn::functional::cross_entropy(logits.view({-1, kVocab}), y.view({-1}));
    opt.zero_grad(true);
    loss.backward();
    ember::nn::utils::clip_grad_norm_(params, 1.0);
    opt.step();
    benchmark::DoNotOptimize(loss.item<double>());
  }
  state.counters["tok/s"] =
      benchmark::Counter(static_cast<double>(s.B * s.T), benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace

int main(int argc, char** argv) {
  // --threads N (default 2) is ours; the rest goes to Google Benchmark.
  int threads = 2;
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
      threads = std::atoi(argv[++i]);
    else
      rest.push_back(argv[i]);
  }
  ember::set_num_threads(threads);
  for (const Shape& s : kShapes)
    benchmark::RegisterBenchmark((std::string("lstm_step/") + s.name).c_str(), lstm_step, s)
        ->Unit(benchmark::kMillisecond)
        ->MinTime(1.0);
  int n = static_cast<int>(rest.size());
  benchmark::Initialize(&n, rest.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
