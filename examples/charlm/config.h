// Settings of the character-level GPT trainer, with nanoGPT's names, and the three presets.
//
//   tiny  - the tutorials' bigram-plus-attention scale: block 8, n_embd 32, 4 heads (under a minute)
//   baby  - nanoGPT's shakespeare_char CPU config: 4 layers, 4 heads, n_embd 128, block 64, batch 12
//   video - the lecture's final model: 6 layers, 6 heads, n_embd 384, block 256, batch 64 (for a GPU)
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace charlm {

struct Config {
  // model
  int64_t n_layer = 4, n_head = 4, n_embd = 128, block_size = 64;
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

// Every setting, once: the flags, the checkpoint's settings and the printout are made from it.
const std::vector<Setting>& settings();

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
std::string resumable_flags();
// "n_layer 4, n_head 4, ...": every setting of `c`, in the table's order.
std::string describe(const Config& c);

// Applies a preset by name; throws naming the valid presets otherwise.
Config preset(const std::string& name);
// Checks the values make sense (n_embd % n_head, positive sizes, finite learning rates, betas in
// [0, 1), loop counts within the maxima above, ...), with messages naming the flag.
void validate(const Config& c);
// The most --threads accepts: 4 x the cores of this machine.
int max_threads();

// An upper-ish estimate of the memory a model of this config needs, from the config alone (nothing
// is allocated): parameters with their gradients and AdamW moments, and the activations the
// backward keeps for one (batch_size, block_size) step. `training` false: weights and one
// (1, block_size) forward, as in sampling. Saturates at UINT64_MAX instead of overflowing.
struct MemoryEstimate {
  uint64_t state_bytes = 0;       // parameters (+ gradients and optimizer state when training)
  uint64_t activation_bytes = 0;  // what one forward (and backward) step keeps alive
};
MemoryEstimate estimate_memory(const Config& c, int64_t vocab_size, bool training);
// Throws, with the numbers, when the estimate plus `data_bytes` (the encoded training text)
// exceeds this machine's physical memory. `what` names the command ("train", "sample").
void check_fits_in_memory(const Config& c, int64_t vocab_size, bool training, const std::string& what,
                          uint64_t data_bytes = 0);

nlohmann::json to_json(const Config& c);
// Settings a checkpoint lacks keep their defaults; a value of the wrong JSON type, or an integer
// that does not fit its setting (1e300 for n_layer), throws naming the setting.
Config config_from_json(const nlohmann::json& j);

}  // namespace charlm
