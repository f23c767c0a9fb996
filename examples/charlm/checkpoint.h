// Checkpoints of a character model (any family): weights, optimizer state, step, RNG state, config and
// vocabulary in one safetensors file, written atomically (a crash or a full disk never damages
// the previous checkpoint).
//
//   out_dir/ckpt.safetensors   the latest state (resume from it)
//   out_dir/best.safetensors   the state with the lowest val loss so far (sample from it)
#pragma once

#include <string>

#include <ember/ember.h>

#include "config.h"
#include "data.h"
#include "family.h"

namespace charlm {

struct TrainState {
  int64_t iter = 0;        // the next iteration to run
  bool evaluated = false;  // whether the eval of `iter` already ran (its RNG draws are in `rng`)
  double best_val = 1e30;
  double last_train = 0, last_val = 0;
  int64_t world_size = 1;  // processes that trained it (ember-run); --resume needs as many
};

void save_checkpoint(const std::string& path, const Family& family, const Config& cfg, const Vocab& vocab,
                     const TrainState& st, const ember::nn::Module& model, ember::optim::Optimizer& opt,
                     const ember::Generator& gen);

struct Loaded {
  Config cfg;
  Vocab vocab;
  TrainState state;
};
// Reads config, vocabulary and state only (to build the model before loading weights); a checkpoint
// of another family (its format) is refused.
Loaded read_checkpoint_header(const std::string& path, const Family& family);
// Loads weights (and, when `opt` is given, optimizer and RNG state) into objects built from the header.
void load_checkpoint(const std::string& path, const ember::nn::Module& model, ember::optim::Optimizer* opt,
                     ember::Generator* gen);

}  // namespace charlm
