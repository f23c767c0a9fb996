// The two jobs of ember-charlm and ember-charlstm: train a character model of a family (with evals,
// checkpoints, resume and a clean stop on Ctrl-C or SIGTERM) and sample text from a checkpoint.
#pragma once

#include <optional>
#include <string>

#include "config.h"
#include "family.h"

namespace charlm {

struct TrainArgs {
  Config cfg;                  // without --resume: the whole config
  SettingOverrides continued;  // with --resume: the changes to the checkpoint's config (resumable ones),
                               // saved in the next checkpoint
  std::string data_path;
  std::string out_dir;
  bool resume = false;     // continue from out_dir/ckpt.safetensors
  bool overwrite = false;  // start over in an out_dir that holds a run (deletes its checkpoints and log)
  bool plot = false;       // draw out_dir/loss.png with gnuplot at the end
  int64_t stop_at = -1;    // behave as if Ctrl-C came before this step (tests of resume)
  // Under ember-run: seconds a collective (and the start) waits for the other ranks before failing
  // with an error, as init_process_group's timeout (c10d's default: 30 minutes).
  double dist_timeout_s = 1800;
};
// The longest --dist_timeout: a week.
inline constexpr double kMaxDistTimeout = 7 * 24 * 3600.0;

struct TrainResult {
  int64_t iters = 0;
  double train_loss = 0, val_loss = 0, best_val = 0;
  double median_tokens_per_s = 0, wall_s = 0;
  bool interrupted = false;
  int signal = 0;  // SIGINT or SIGTERM when a signal interrupted the run (0: --stop_at)
};

TrainResult train(const Family& family, const TrainArgs& args);

struct SampleArgs {
  std::string checkpoint;  // a .safetensors file written by train
  std::string prompt = "\n";
  int64_t num_chars = 500;
  double temperature = 0.8;
  std::optional<int64_t> top_k = 200;
  uint64_t seed = 1337;
  bool use_cache = true;  // keep the model's state between characters (false: recompute the context)
};

// Streams the prompt and the generated characters to stdout as they come. Time and memory per
// character stay the same however many are asked for (the model keeps a bounded context).
void sample(const Family& family, const SampleArgs& args);

// Draws the loss curves of out_dir/log.csv into out_dir/loss.png (needs gnuplot).
void plot(const Family& family, const std::string& out_dir);

}  // namespace charlm
