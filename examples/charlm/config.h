// Settings of the character-model trainer, with nanoGPT's names: one Config holds the settings of
// every model the trainer drives (family.h), and each program's table lists the ones it uses. The
// training settings (batch, AdamW, schedule, evals, device) are common to all; the model's own rows,
// presets, checks and memory estimate come from its family (gpt_family.cpp for ember-charlm).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace charlm {

struct Config {
  // model (the defaults are ember-charlm's baby GPT; another family's presets set its own)
  int64_t n_layer = 4, n_head = 4, n_embd = 128, block_size = 64;
  int64_t hidden_size = 256;  // LSTM state width (ember-charlstm)
  double dropout = 0.0;
  bool bias = true;
  // data and optimisation
  int64_t batch_size = 12;
  int64_t gradient_accumulation_steps = 1;  // micro-batches of batch_size per step (per rank)
  double learning_rate = 1e-3, min_lr = 1e-4, weight_decay = 0.1, beta1 = 0.9, beta2 = 0.99, grad_clip = 1.0;
  int64_t warmup_iters = 100, lr_decay_iters = 2000, max_iters = 2000;
  int64_t eval_interval = 250, eval_iters = 200;
  int64_t log_interval = 10;  // steps between progress lines when stdout is not a terminal
  uint64_t seed = 1337;
  std::string device = "cpu";
  int threads = 0;  // 0: the library default (all cores); otherwise 1 .. 4 x cores
  // float32, or bfloat16: the forward and the loss under autocast (autograd/autocast.h), with float32
  // weights, AdamW state and checkpoints, as nanoGPT's --dtype on the CPU.
  std::string dtype = "float32";
};

// One setting: nanoGPT's name (the --flag of `train` and the key in a checkpoint's settings JSON),
// where it lives in Config, its help text, and whether --resume may change it (how long the run
// goes, how often it evaluates and logs, where it runs: anything else would make another run).
using SettingField = std::variant<int64_t Config::*, int Config::*, uint64_t Config::*, double Config::*,
                                  bool Config::*, std::string Config::*>;
struct Setting {
  const char* name;
  SettingField field;
  const char* help;
  bool resumable = false;
};
// The most micro-batches per step and batches per eval that a run may ask for: more is a typo (an
// extra digit) that would keep one step, or one eval, going for hours.
inline constexpr int64_t kMaxGradientAccumulationSteps = 10000;
inline constexpr int64_t kMaxEvalIters = 10000;
// The most steps a run counts (max_iters, the schedule's lengths, a checkpoint's step): far past any
// real run, and far from int64's end, so step arithmetic and per-step seeds never overflow.
inline constexpr int64_t kMaxIters = 1'000'000'000'000;

// The settings every family shares (batch_size .. dtype), in their printed order; a family's table is
// its model rows followed by these. The flags, the checkpoint's settings and the printout are made
// from that table.
const std::vector<Setting>& training_settings();
using SettingTable = std::vector<Setting>;

// Settings given on the command line, laid over a preset or a checkpoint's settings.
using SettingValue = std::variant<int64_t, int, uint64_t, double, bool, std::string>;
struct SettingOverrides {
  std::vector<std::pair<const Setting*, SettingValue>> given;
  void apply(Config& c) const;
  // Only those --resume may change; and the flags of the others ("--n_layer", ...).
  SettingOverrides resumable() const;
  std::vector<std::string> fixed_by_checkpoint() const;
};
// The flags --resume may change: "--max_iters, ..., --device and --threads".
std::string resumable_flags(const SettingTable& table);
// "n_layer 4, n_head 4, ...": every setting of `c` in `table`, in its order.
std::string describe(const Config& c, const SettingTable& table);

// Checks the training settings make sense (finite learning rates, betas in [0, 1), loop counts
// within the maxima above, ...), with messages naming the flag. A family checks its model's.
void validate_training(const Config& c);
// The most --threads accepts: 4 x the cores of this machine.
int max_threads();

// Byte counts that saturate at UINT64_MAX instead of wrapping: a config with n_layer 99999999999 must
// give "too big", never a small number.
struct Bytes {
  static constexpr uint64_t kMax = UINT64_MAX;
  uint64_t v = 0;
  static Bytes of(int64_t n) { return {n < 0 ? kMax : static_cast<uint64_t>(n)}; }
  Bytes operator*(Bytes o) const {
    uint64_t r;
    return {__builtin_mul_overflow(v, o.v, &r) ? kMax : r};
  }
  Bytes operator+(Bytes o) const {
    uint64_t r;
    return {__builtin_add_overflow(v, o.v, &r) ? kMax : r};
  }
};

// An upper-ish estimate of the memory a model needs, from its config alone (nothing is allocated):
// parameters with their gradients and AdamW moments, and the activations the backward keeps for one
// (batch_size, block_size) step; without training, weights and one (1, block_size) forward.
struct MemoryEstimate {
  uint64_t state_bytes = 0;       // parameters (+ gradients and optimizer state when training)
  uint64_t activation_bytes = 0;  // what one forward (and backward) step keeps alive
};
// "12.5 MiB"
std::string human_bytes(uint64_t n);

nlohmann::json to_json(const Config& c, const SettingTable& table);
// Settings a checkpoint lacks keep their values in `defaults`; a value of the wrong JSON type, or an
// integer that does not fit its setting (1e300 for n_layer), throws naming the setting.
Config config_from_json(const nlohmann::json& j, const SettingTable& table, const Config& defaults);

}  // namespace charlm
