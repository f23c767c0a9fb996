// The command line shared by ember-charlm and ember-charlstm (run_cli in family.h): train, sample and
// plot, with train's flags made from the family's settings table. Errors end the program with status
// 1 and one line "<program>: error: ..."; an interrupted run with 128 + the signal.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <variant>
#include <vector>

#include <CLI/CLI.hpp>
#include <ember/ember.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "family.h"
#include "trainer.h"

namespace {

// The flags of `train`, one per setting of the family's table: each fills a typed optional, so only
// the flags given override the preset (or, with --resume, the checkpoint).
struct SettingFlags {
  template <typename... T>
  using Optionals = std::variant<std::optional<T>...>;
  explicit SettingFlags(const charlm::SettingTable& table) : table(table) {}
  const charlm::SettingTable& table;
  std::vector<Optionals<int64_t, int, uint64_t, double, bool, std::string>> values;

  void add_to(CLI::App* app) {
    values.resize(table.size());  // not resized again: CLI11 keeps pointers into it
    for (size_t i = 0; i < table.size(); ++i) {
      std::visit(
          [&](auto field) {
            using T = std::decay_t<decltype(std::declval<charlm::Config&>().*field)>;
            app->add_option(std::string("--") + table[i].name, values[i].emplace<std::optional<T>>(), table[i].help);
          },
          table[i].field);
    }
  }

  charlm::SettingOverrides given() const {
    charlm::SettingOverrides out;
    for (size_t i = 0; i < values.size(); ++i)
      std::visit(
          [&](const auto& value) {
            if (value) out.given.emplace_back(&table[i], *value);
          },
          values[i]);
    return out;
  }
};

}  // namespace

namespace charlm {

int run_cli(const Family& family, int argc, char** argv) {
  CLI::App app{family.program + ": " + family.description};
  app.require_subcommand(1);

  const std::string default_out_dir = "out-" + family.program.substr(family.program.find('-') + 1);
  TrainArgs train_args;
  train_args.out_dir = default_out_dir;
  std::string preset = family.default_preset;
  SettingFlags setting_flags(family.settings);
  std::string preset_names = fmt::format("{}", fmt::join(family.presets, ", "));
  CLI::App* train = app.add_subcommand("train", "train a model (presets: " + preset_names + ")");
  train->add_option("--data", train_args.data_path,
                    "UTF-8 text file (default: data/tinyshakespeare.txt here, else the installed copy)");
  CLI::Option* preset_option = train->add_option("--preset", preset, family.preset_list())->capture_default_str();
  train->add_option("--out_dir", train_args.out_dir, "where checkpoints and log.csv go")->capture_default_str();
  train->add_flag("--resume", train_args.resume,
                  "continue from out_dir/ckpt.safetensors (may change " + resumable_flags(family.settings) + ")");
  train->add_flag("--overwrite", train_args.overwrite,
                  "start over in an out_dir that holds a run (deletes its checkpoints and log)");
  train->add_flag("--plot", train_args.plot, "draw out_dir/loss.png with gnuplot at the end");
  bool profile = false;
  train->add_flag("--profile", profile, "time every kernel and print a table by op at the end (EMBER_DEBUG=profile)");
  train
      ->add_option("--dist_timeout", train_args.dist_timeout_s,
                   "under ember-run: seconds to wait for the other ranks at a collective before failing")
      ->capture_default_str();
  train->add_option("--stop_at", train_args.stop_at, "act as if Ctrl-C came before this step (for testing resume)")
      ->group("Testing");
  setting_flags.add_to(train);

  SampleArgs sample_args;
  std::string sample_dir = default_out_dir;
  int64_t top_k = 200;
  CLI::App* sample = app.add_subcommand("sample", "generate text from a trained checkpoint");
  sample
      ->add_option("--out_dir", sample_dir,
                   "the training run's directory (uses best.safetensors, else ckpt.safetensors)")
      ->capture_default_str();
  sample->add_option("--checkpoint", sample_args.checkpoint, "a checkpoint file (overrides --out_dir)");
  sample->add_option("--prompt", sample_args.prompt, "text to start from (default: a newline)");
  sample->add_option("--num_chars", sample_args.num_chars, "characters to generate")->capture_default_str();
  sample->add_option("--temperature", sample_args.temperature, "softmax temperature (> 0)")->capture_default_str();
  sample->add_option("--top_k", top_k, "sample among the k likeliest characters (0: all)")->capture_default_str();
  sample->add_option("--seed", sample_args.seed, "random seed")->capture_default_str();
  sample->add_option("--use_cache", sample_args.use_cache, family.use_cache_help)->capture_default_str();

  std::string plot_dir;
  CLI::App* plot = app.add_subcommand("plot", "draw out_dir/loss.png from out_dir/log.csv (needs gnuplot)");
  plot->add_option("--out_dir", plot_dir, "the training run's directory")->required();

  CLI11_PARSE(app, argc, argv);
  try {
    if (train->parsed()) {
      // Read by the tracer at the first kernel, which runs after this line.
      if (profile) setenv("EMBER_DEBUG", "profile", /*overwrite=*/1);
      if (!train_args.resume) {
        train_args.cfg = family.preset_named(preset);
        setting_flags.given().apply(train_args.cfg);
        family.validate(train_args.cfg);
      } else {
        // A resumed run takes its settings from the checkpoint; only the length, the evals and where
        // it runs may change (a new model shape or optimizer would not continue the same run).
        std::vector<std::string> fixed = setting_flags.given().fixed_by_checkpoint();
        if (preset_option->count() > 0) fixed.insert(fixed.begin(), "--preset");
        EMBER_CHECK(fixed.empty(),
                    "train --resume: {} cannot change in a resumed run (the checkpoint holds them); only {} can. "
                    "Start a new run in another --out_dir instead",
                    fmt::join(fixed, ", "), resumable_flags(family.settings));
        train_args.continued = setting_flags.given().resumable();
      }
      TrainResult r = charlm::train(family, train_args);
      return r.interrupted ? 128 + (r.signal != 0 ? r.signal : SIGINT) : 0;
    }
    if (sample->parsed()) {
      if (sample_args.checkpoint.empty()) {
        // A run interrupted before its first eval has a ckpt but no best yet.
        const std::string best = sample_dir + "/best.safetensors", latest = sample_dir + "/ckpt.safetensors";
        sample_args.checkpoint = !std::filesystem::exists(best) && std::filesystem::exists(latest) ? latest : best;
      }
      sample_args.top_k = top_k > 0 ? std::optional<int64_t>(top_k) : std::nullopt;
      charlm::sample(family, sample_args);
      return 0;
    }
    if (plot->parsed()) {
      charlm::plot(family, plot_dir);
      return 0;
    }
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::cerr << "\n" << family.program << ": error: " << e.what() << '\n';
    return 1;
  }
  return 0;
}

}  // namespace charlm
