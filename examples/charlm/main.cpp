// ember-charlm: train a character-level GPT on a text file (tiny Shakespeare by default) and sample
// from it, nanoGPT-style, on the command line.
//
//   ember-charlm train --preset baby --out_dir out-baby      # --data defaults to data/tinyshakespeare.txt
//   ember-charlm train --out_dir out-baby --resume           # continue an interrupted run exactly
//   ember-charlm train --out_dir out-baby --resume --max_iters 4000   # or make it longer
//   ember-charlm sample --out_dir out-baby --prompt "ROMEO:" --num_chars 300 --temperature 0.8
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include <CLI/CLI.hpp>
#include <ember/ember.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "trainer.h"

namespace {

// Registers nanoGPT's flag names on the train command; only the flags given override the preset.
struct Overrides {
  std::optional<int64_t> n_layer, n_head, n_embd, block_size, batch_size, warmup_iters, lr_decay_iters, max_iters,
      eval_interval, eval_iters;
  std::optional<double> dropout, learning_rate, min_lr, weight_decay, beta1, beta2, grad_clip;
  std::optional<uint64_t> seed;
  std::optional<std::string> device;
  std::optional<int> threads;

  void add_to(CLI::App* app) {
    app->add_option("--n_layer", n_layer, "transformer blocks");
    app->add_option("--n_head", n_head, "attention heads per block");
    app->add_option("--n_embd", n_embd, "embedding width (divisible by n_head)");
    app->add_option("--block_size", block_size, "context length in characters");
    app->add_option("--batch_size", batch_size, "sequences per step");
    app->add_option("--dropout", dropout, "dropout probability");
    app->add_option("--learning_rate", learning_rate, "peak learning rate");
    app->add_option("--min_lr", min_lr, "final learning rate of the cosine decay");
    app->add_option("--warmup_iters", warmup_iters, "linear warmup steps");
    app->add_option("--lr_decay_iters", lr_decay_iters, "steps of cosine decay");
    app->add_option("--max_iters", max_iters, "training steps");
    app->add_option("--weight_decay", weight_decay, "AdamW weight decay (matrices only)");
    app->add_option("--beta1", beta1, "AdamW beta1");
    app->add_option("--beta2", beta2, "AdamW beta2");
    app->add_option("--grad_clip", grad_clip, "clip the gradient norm to this (0: off)");
    app->add_option("--eval_interval", eval_interval, "steps between evaluations");
    app->add_option("--eval_iters", eval_iters, "batches per evaluation");
    app->add_option("--seed", seed, "random seed");
    app->add_option("--device", device, "cpu or cuda");
    app->add_option("--threads", threads, "CPU threads, 1 .. 4 x cores (0 or not given: all cores)");
  }

  // With --resume the checkpoint holds the config; these may change, the rest must not be given.
  charlm::ResumeOverrides for_resume() const { return {max_iters, eval_interval, eval_iters, threads, device}; }
  std::vector<std::string> fixed_by_checkpoint() const {
    std::vector<std::string> given;
    auto note = [&](const char* flag, bool set) {
      if (set) given.push_back(flag);
    };
    note("--n_layer", n_layer.has_value()), note("--n_head", n_head.has_value()), note("--n_embd", n_embd.has_value());
    note("--block_size", block_size.has_value()), note("--batch_size", batch_size.has_value());
    note("--dropout", dropout.has_value()), note("--learning_rate", learning_rate.has_value());
    note("--min_lr", min_lr.has_value()), note("--warmup_iters", warmup_iters.has_value());
    note("--lr_decay_iters", lr_decay_iters.has_value()), note("--weight_decay", weight_decay.has_value());
    note("--beta1", beta1.has_value()), note("--beta2", beta2.has_value()), note("--grad_clip", grad_clip.has_value());
    note("--seed", seed.has_value());
    return given;
  }

  void apply(charlm::Config& c) const {
    auto set = [](auto& field, const auto& value) {
      if (value) field = *value;
    };
    set(c.n_layer, n_layer), set(c.n_head, n_head), set(c.n_embd, n_embd), set(c.block_size, block_size);
    set(c.batch_size, batch_size), set(c.dropout, dropout), set(c.learning_rate, learning_rate);
    set(c.min_lr, min_lr), set(c.warmup_iters, warmup_iters), set(c.lr_decay_iters, lr_decay_iters);
    set(c.max_iters, max_iters), set(c.weight_decay, weight_decay), set(c.beta1, beta1), set(c.beta2, beta2);
    set(c.grad_clip, grad_clip), set(c.eval_interval, eval_interval), set(c.eval_iters, eval_iters);
    set(c.seed, seed), set(c.device, device), set(c.threads, threads);
  }
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ember-charlm: a character-level GPT trained on a text file, nanoGPT-style"};
  app.require_subcommand(1);

  charlm::TrainArgs train_args;
  std::string preset = "baby";
  Overrides overrides;
  CLI::App* train = app.add_subcommand("train", "train a model (presets: tiny, baby, video)");
  train->add_option("--data", train_args.data_path,
                    "UTF-8 text file (default: data/tinyshakespeare.txt here, else the installed copy)");
  CLI::Option* preset_option = train->add_option("--preset", preset, "tiny, baby or video")->capture_default_str();
  train->add_option("--out_dir", train_args.out_dir, "where checkpoints and log.csv go")->capture_default_str();
  train->add_flag("--resume", train_args.resume,
                  "continue from out_dir/ckpt.safetensors (may change --max_iters, --eval_interval, --eval_iters, "
                  "--threads, --device)");
  train->add_flag("--overwrite", train_args.overwrite,
                  "start over in an out_dir that holds a run (deletes its checkpoints and log)");
  train->add_flag("--plot", train_args.plot, "draw out_dir/loss.png with gnuplot at the end");
  bool profile = false;
  train->add_flag("--profile", profile, "time every kernel and print a table by op at the end (EMBER_DEBUG=profile)");
  train->add_option("--stop_at", train_args.stop_at, "act as if Ctrl-C came before this step (for testing resume)")
      ->group("Testing");
  overrides.add_to(train);

  charlm::SampleArgs sample_args;
  std::string sample_dir = "out-charlm";
  int64_t top_k = 200;
  CLI::App* sample = app.add_subcommand("sample", "generate text from a trained checkpoint");
  sample->add_option("--out_dir", sample_dir,
                     "the training run's directory (uses best.safetensors, else ckpt.safetensors)")
      ->capture_default_str();
  sample->add_option("--checkpoint", sample_args.checkpoint, "a checkpoint file (overrides --out_dir)");
  sample->add_option("--prompt", sample_args.prompt, "text to start from (default: a newline)");
  sample->add_option("--num_chars", sample_args.num_chars, "characters to generate")->capture_default_str();
  sample->add_option("--temperature", sample_args.temperature, "softmax temperature (> 0)")->capture_default_str();
  sample->add_option("--top_k", top_k, "sample among the k likeliest characters (0: all)")->capture_default_str();
  sample->add_option("--seed", sample_args.seed, "random seed")->capture_default_str();

  std::string plot_dir;
  CLI::App* plot = app.add_subcommand("plot", "draw out_dir/loss.png from out_dir/log.csv (needs gnuplot)");
  plot->add_option("--out_dir", plot_dir, "the training run's directory")->required();

  CLI11_PARSE(app, argc, argv);
  try {
    if (train->parsed()) {
      // Read by the tracer at the first kernel, which runs after this line.
      if (profile) setenv("EMBER_DEBUG", "profile", /*overwrite=*/1);
      if (!train_args.resume) {
        train_args.cfg = charlm::preset(preset);
        overrides.apply(train_args.cfg);
        charlm::validate(train_args.cfg);
      } else {
        // A resumed run takes its settings from the checkpoint; only the length, the evals and where
        // it runs may change (a new model shape or optimizer would not continue the same run).
        std::vector<std::string> fixed = overrides.fixed_by_checkpoint();
        if (preset_option->count() > 0) fixed.insert(fixed.begin(), "--preset");
        EMBER_CHECK(fixed.empty(),
                    "train --resume: {} cannot change in a resumed run (the checkpoint holds them); only --max_iters, "
                    "--eval_interval, --eval_iters, --threads and --device can. Start a new run in another --out_dir "
                    "instead",
                    fmt::join(fixed, ", "));
        train_args.continued = overrides.for_resume();
      }
      charlm::TrainResult r = charlm::train(train_args);
      return r.interrupted ? 128 + (r.signal != 0 ? r.signal : SIGINT) : 0;
    }
    if (sample->parsed()) {
      if (sample_args.checkpoint.empty()) {
        // A run interrupted before its first eval has a ckpt but no best yet.
        const std::string best = sample_dir + "/best.safetensors", latest = sample_dir + "/ckpt.safetensors";
        sample_args.checkpoint = !std::filesystem::exists(best) && std::filesystem::exists(latest) ? latest : best;
      }
      sample_args.top_k = top_k > 0 ? std::optional<int64_t>(top_k) : std::nullopt;
      charlm::sample(sample_args);
      return 0;
    }
    if (plot->parsed()) {
      charlm::plot(plot_dir);
      return 0;
    }
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::cerr << "\nember-charlm: error: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
