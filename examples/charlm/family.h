// A family of character models the trainer drives: what ember-charlm (a GPT) and ember-charlstm (an
// LSTM) tell the shared command line, training loop, checkpoints and sampler about their model.
//
//   int main(int argc, char** argv) { return charlm::run_cli(charlm::gpt_family(), argc, argv); }
//
// A family names its program, lists its settings (its model's rows, then training_settings()),
// builds its presets, checks and sizes its model, and builds the model as a CharModel. Everything
// else (data, AdamW and its schedule, evals, checkpoints, resume, signals, ember-run) is the
// trainer's, the same for every family.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <ember/ember.h>

#include "config.h"

namespace charlm {

// What the trainer needs of a model: the module (parameters, buffers, train/eval, to), its loss on a
// batch, and its sampler.
class CharModel {
 public:
  virtual ~CharModel() = default;
  // Shared, so that DistributedDataParallel can hold it too.
  virtual std::shared_ptr<ember::nn::Module> module() const = 0;
  // x, y: (B, T) int64 ids -> the mean cross-entropy of predicting each y from x and what precedes it.
  virtual ember::Tensor loss(const ember::Tensor& x, const ember::Tensor& y) = 0;
  // Distinct parameter elements, as the start of a run prints them.
  virtual int64_t num_parameters() const = 0;
  // Draws `count` ids after idx (1, T), each (1, 1) handed to on_token as it comes: the last logits
  // divided by temperature, kept to the top_k, multinomial(softmax). use_cache: keep the model's
  // state between characters (false: recompute it from the context each time).
  virtual void generate_stream(const ember::Tensor& idx, int64_t count,
                               const std::function<void(const ember::Tensor&)>& on_token, double temperature,
                               std::optional<int64_t> top_k, ember::Generator gen, bool use_cache) = 0;
};

struct Family {
  std::string program;            // "ember-charlm": starts messages, names the default out_dir
  std::string description;        // "a character-level GPT trained on a text file, nanoGPT-style"
  std::string checkpoint_format;  // "ember-charlm/1": a checkpoint of another family is refused
  SettingTable settings;          // the model's rows, then training_settings()
  std::vector<std::string> presets;
  std::string default_preset;
  std::function<Config(const std::string& name)> preset;  // a name of `presets`
  // The model's own checks (sizes positive, batch_size included), before validate_training's.
  std::function<void(const Config&)> validate_model;
  std::function<MemoryEstimate(const Config&, int64_t vocab_size, bool training)> estimate_memory;
  // "n_layer 4, n_head 4, n_embd 128": the sizes an out-of-memory message names, and the flags
  // that shrink them ("--n_layer, --n_embd").
  std::function<std::string(const Config&)> describe_size;
  std::string size_flags;
  std::string use_cache_help;  // what sample --use_cache keeps
  std::function<std::unique_ptr<CharModel>(const Config&, int64_t vocab_size)> make_model;

  // The preset by name; throws naming the valid presets otherwise.
  Config preset_named(const std::string& name) const;
  // The default preset: the settings a checkpoint that lacks one keeps.
  Config defaults() const { return preset(default_preset); }
  // validate_model, then validate_training.
  void validate(const Config& c) const;
  // "tiny, baby or video"
  std::string preset_list() const;
  // Throws, with the numbers, when the memory estimate plus `data_bytes` (the encoded training
  // text) exceeds this machine's physical memory. `what` names the command ("train", "sample").
  void check_fits_in_memory(const Config& c, int64_t vocab_size, bool training, const std::string& what,
                            uint64_t data_bytes = 0) const;
};

// ember-charlm's GPT (nn/gpt.h) with its presets tiny, baby and video.
const Family& gpt_family();

// The command line of a family's program: train, sample and plot (see examples/charlm/main.cpp).
int run_cli(const Family& family, int argc, char** argv);

}  // namespace charlm
