// Presets, validation and JSON round trip of the trainer's settings (see config.h).
#include "config.h"

#include <ember/ember.h>

namespace charlm {

Config preset(const std::string& name) {
  Config c;
  if (name == "baby") return c;  // the defaults are nanoGPT's shakespeare_char CPU run
  if (name == "tiny") {
    c.n_layer = 1;
    c.n_head = 4;
    c.n_embd = 32;
    c.block_size = 8;
    c.batch_size = 32;
    c.learning_rate = 1e-3;
    c.min_lr = 1e-4;
    c.max_iters = 500;
    c.lr_decay_iters = 500;
    c.warmup_iters = 20;
    c.eval_interval = 100;
    c.eval_iters = 50;
    return c;
  }
  if (name == "video") {
    c.n_layer = 6;
    c.n_head = 6;
    c.n_embd = 384;
    c.block_size = 256;
    c.batch_size = 64;
    c.dropout = 0.2;
    c.learning_rate = 3e-4;
    c.min_lr = 3e-5;
    c.max_iters = 5000;
    c.lr_decay_iters = 5000;
    c.warmup_iters = 100;
    c.eval_interval = 500;
    c.eval_iters = 200;
    return c;
  }
  EMBER_FAIL("--preset: unknown preset '{}' (choose tiny, baby or video)", name);
}

void validate(const Config& c) {
  EMBER_CHECK(c.n_layer > 0 && c.n_head > 0 && c.n_embd > 0 && c.block_size > 0 && c.batch_size > 0,
              "config: n_layer, n_head, n_embd, block_size and batch_size must be positive (got {}, {}, {}, {}, {})",
              c.n_layer, c.n_head, c.n_embd, c.block_size, c.batch_size);
  EMBER_CHECK(c.n_embd % c.n_head == 0, "config: n_embd ({}) must be divisible by n_head ({})", c.n_embd, c.n_head);
  EMBER_CHECK(c.dropout >= 0 && c.dropout < 1, "config: dropout must be in [0, 1), got {}", c.dropout);
  EMBER_CHECK(c.learning_rate > 0 && c.min_lr >= 0, "config: learning_rate must be positive and min_lr non-negative");
  EMBER_CHECK(c.max_iters >= 0 && c.eval_interval > 0 && c.eval_iters > 0,
              "config: max_iters must be >= 0, eval_interval and eval_iters positive");
  EMBER_CHECK(c.device == "cpu" || c.device.rfind("cuda", 0) == 0, "config: device must be cpu or cuda, got '{}'",
              c.device);
}

nlohmann::json to_json(const Config& c) {
  return {{"n_layer", c.n_layer},         {"n_head", c.n_head},
          {"n_embd", c.n_embd},           {"block_size", c.block_size},
          {"dropout", c.dropout},         {"bias", c.bias},
          {"batch_size", c.batch_size},   {"learning_rate", c.learning_rate},
          {"min_lr", c.min_lr},           {"weight_decay", c.weight_decay},
          {"beta1", c.beta1},             {"beta2", c.beta2},
          {"grad_clip", c.grad_clip},     {"warmup_iters", c.warmup_iters},
          {"lr_decay_iters", c.lr_decay_iters}, {"max_iters", c.max_iters},
          {"eval_interval", c.eval_interval}, {"eval_iters", c.eval_iters},
          {"seed", c.seed},               {"device", c.device}};
}

Config config_from_json(const nlohmann::json& j) {
  Config c;
  auto get = [&](const char* key, auto& field) {
    if (j.contains(key)) field = j.at(key).get<std::decay_t<decltype(field)>>();
  };
  get("n_layer", c.n_layer);
  get("n_head", c.n_head);
  get("n_embd", c.n_embd);
  get("block_size", c.block_size);
  get("dropout", c.dropout);
  get("bias", c.bias);
  get("batch_size", c.batch_size);
  get("learning_rate", c.learning_rate);
  get("min_lr", c.min_lr);
  get("weight_decay", c.weight_decay);
  get("beta1", c.beta1);
  get("beta2", c.beta2);
  get("grad_clip", c.grad_clip);
  get("warmup_iters", c.warmup_iters);
  get("lr_decay_iters", c.lr_decay_iters);
  get("max_iters", c.max_iters);
  get("eval_interval", c.eval_interval);
  get("eval_iters", c.eval_iters);
  get("seed", c.seed);
  get("device", c.device);
  return c;
}

}  // namespace charlm
