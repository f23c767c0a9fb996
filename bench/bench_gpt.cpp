// A training step of ember-charlm's GPT, timed: nanoGPT's model, AdamW with its decay groups,
// gradient clipping, on random tokens. The same step in libtorch is torch_gpt.cpp; run both
// side by side with scripts/bench_cpu.sh.
//
//   bench_gpt --preset baby --steps 30 --threads 2
//   bench_gpt --preset video --dtype bfloat16         # forward under autocast (bf16 matrix products)
//   EMBER_BF16_GEMM=openblas bench_gpt --preset video --dtype bfloat16   # OpenBLAS's sbgemm instead
//   EMBER_DEBUG=2 bench_gpt --preset baby --steps 5   # and a table of time by op at exit
//
// Prints one line: "ember <preset> threads <n> dtype <d> ms/step <x> tok/s <x> GFLOP/s <x> peak_rss_mib <x> loss <x>".
#include <ember/ember.h>

#include "bench_gpt_common.h"

namespace {

int run(int argc, char** argv) {
  bench::Args args = bench::parse_args(argc, argv);
  ember::set_num_threads(args.threads);
  ember::manual_seed(1337);
  const bench::Preset& p = args.preset;
  ember::nn::GPTConfig config;
  config.vocab_size = p.vocab_size;
  config.block_size = p.block_size;
  config.n_layer = p.n_layer;
  config.n_head = p.n_head;
  config.n_embd = p.n_embd;
  config.dropout = p.dropout;
  ember::nn::GPT model(config);
  model->train();

  ember::nn::WeightDecayGroups split = model->weight_decay_groups();
  auto options = ember::optim::AdamWOptions(1e-3).betas({0.9, 0.99}).weight_decay(0.1);
  std::vector<ember::optim::OptimizerParamGroup> groups;
  groups.emplace_back(split.decay, std::make_unique<ember::optim::AdamWOptions>(options));
  auto no_decay = options;
  groups.emplace_back(split.no_decay, std::make_unique<ember::optim::AdamWOptions>(no_decay.weight_decay(0.0)));
  ember::optim::AdamW opt(std::move(groups), options);
  std::vector<ember::Tensor> params = model->parameters();

  double loss_value = 0;
  auto step = [&] {
    ember::Tensor x = ember::randint(p.vocab_size, {p.batch_size, p.block_size}, ember::dtype(ember::kInt64));
    ember::Tensor y = ember::randint(p.vocab_size, {p.batch_size, p.block_size}, ember::dtype(ember::kInt64));
    ember::Tensor loss;
    {
      ember::autocast mixed(ember::kCPU, ember::kBFloat16, args.dtype == "bfloat16");
      loss = std::get<1>(model->forward(x, y));
    }
    opt.zero_grad(true);
    loss.backward();
    ember::nn::utils::clip_grad_norm_(params, 1.0);
    opt.step();
    loss_value = loss.item<double>();
  };
  bench::run_and_report("ember", args, step, [&] { return loss_value; });
  return 0;
}

}  // namespace

// An error (a kernel this machine lacks, say EMBER_BF16_GEMM=openblas without sbgemm) is a message
// and exit status 1, not std::terminate's abort.
int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_gpt: %s\n", e.what());
    return 1;
  }
}
