// The training settings, their validation, and the JSON round trip of a family's settings (see config.h).
#include "config.h"

#include <cmath>
#include <limits>
#include <thread>
#include <type_traits>

#include <ember/ember.h>
#include <fmt/format.h>

#include "nn/json_guard.h"

namespace charlm {

std::string human_bytes(uint64_t n) {
  if (n == Bytes::kMax) return "more than 16 EiB (the count overflows 64 bits)";
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double x = static_cast<double>(n);
  int u = 0;
  while (x >= 1024 && u < 6) x /= 1024, ++u;
  return u == 0 ? fmt::format("{} bytes", n) : fmt::format("{:.1f} {}", x, units[u]);
}

void validate_training(const Config& c) {
  EMBER_CHECK(c.gradient_accumulation_steps > 0 && c.gradient_accumulation_steps <= kMaxGradientAccumulationSteps,
              "config: --gradient_accumulation_steps must be between 1 and {}, got {}", kMaxGradientAccumulationSteps,
              c.gradient_accumulation_steps);
  EMBER_CHECK(c.dropout >= 0 && c.dropout < 1, "config: dropout must be in [0, 1), got {}", c.dropout);
  // The optimizer's options as PyTorch's AdamW checks them, and finite: an infinite rate trains to NaN.
  EMBER_CHECK(std::isfinite(c.learning_rate) && c.learning_rate > 0,
              "config: Invalid learning rate: {} (--learning_rate must be a finite number > 0)", c.learning_rate);
  EMBER_CHECK(std::isfinite(c.min_lr) && c.min_lr >= 0,
              "config: Invalid learning rate: {} (--min_lr must be a finite number >= 0)", c.min_lr);
  EMBER_CHECK(c.beta1 >= 0 && c.beta1 < 1, "config: Invalid beta parameter at index 0: {} (--beta1 must be in [0, 1))",
              c.beta1);
  EMBER_CHECK(c.beta2 >= 0 && c.beta2 < 1, "config: Invalid beta parameter at index 1: {} (--beta2 must be in [0, 1))",
              c.beta2);
  EMBER_CHECK(std::isfinite(c.weight_decay) && c.weight_decay >= 0,
              "config: Invalid weight_decay value: {} (--weight_decay must be a finite number >= 0)", c.weight_decay);
  EMBER_CHECK(std::isfinite(c.grad_clip) && c.grad_clip >= 0,
              "config: --grad_clip must be a finite number >= 0 (0: off), got {}", c.grad_clip);
  EMBER_CHECK(c.warmup_iters >= 0 && c.lr_decay_iters >= c.warmup_iters,
              "config: --warmup_iters must be >= 0 and --lr_decay_iters at least as large (got {} and {})",
              c.warmup_iters, c.lr_decay_iters);
  EMBER_CHECK(c.max_iters >= 0 && c.eval_interval > 0 && c.eval_iters > 0 && c.log_interval > 0,
              "config: max_iters must be >= 0, eval_interval, eval_iters and log_interval positive");
  EMBER_CHECK(c.max_iters <= kMaxIters && c.lr_decay_iters <= kMaxIters && c.eval_interval <= kMaxIters &&
                  c.log_interval <= kMaxIters,
              "config: --max_iters, --lr_decay_iters, --eval_interval and --log_interval must be at most {} (got {}, "
              "{}, {}, {})",
              kMaxIters, c.max_iters, c.lr_decay_iters, c.eval_interval, c.log_interval);
  EMBER_CHECK(c.eval_iters <= kMaxEvalIters, "config: --eval_iters must be between 1 and {}, got {}", kMaxEvalIters,
              c.eval_iters);
  EMBER_CHECK(c.device == "cpu" || c.device.rfind("cuda", 0) == 0, "config: device must be cpu or cuda, got '{}'",
              c.device);
  EMBER_CHECK(c.dtype == "float32" || c.dtype == "bfloat16", "config: dtype must be float32 or bfloat16, got '{}'",
              c.dtype);
  EMBER_CHECK(c.threads >= 0 && c.threads <= max_threads(),
              "config: --threads must be between 1 and {} (4 x the {} cores of this machine), or 0 for the library "
              "default; got {}",
              max_threads(), max_threads() / 4, c.threads);
}

int max_threads() { return 4 * static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

const std::vector<Setting>& training_settings() {
  static const std::vector<Setting> table = {
      // data and optimisation
      {"batch_size", &Config::batch_size, "sequences per step"},
      {"gradient_accumulation_steps", &Config::gradient_accumulation_steps,
       "micro-batches of batch_size whose gradients add up to one step (per rank under ember-run)"},
      {"learning_rate", &Config::learning_rate, "peak learning rate"},
      {"min_lr", &Config::min_lr, "final learning rate of the cosine decay"},
      {"weight_decay", &Config::weight_decay, "AdamW weight decay (matrices only)"},
      {"beta1", &Config::beta1, "AdamW beta1"},
      {"beta2", &Config::beta2, "AdamW beta2"},
      {"grad_clip", &Config::grad_clip, "clip the gradient norm to this (0: off)"},
      {"warmup_iters", &Config::warmup_iters, "linear warmup steps"},
      {"lr_decay_iters", &Config::lr_decay_iters, "steps of cosine decay"},
      {"seed", &Config::seed, "random seed"},
      // the run: these may change when it is resumed
      {"max_iters", &Config::max_iters, "training steps", true},
      {"eval_interval", &Config::eval_interval, "steps between evaluations", true},
      {"eval_iters", &Config::eval_iters, "batches per evaluation", true},
      {"log_interval", &Config::log_interval, "steps between progress lines when stdout is not a terminal", true},
      {"device", &Config::device, "cpu or cuda", true},
      {"threads", &Config::threads, "CPU threads, 1 .. 4 x cores (0 or not given: all cores)", true},
      {"dtype", &Config::dtype, "float32, or bfloat16 (autocast: matrix products in bf16, float32 weights)", true},
  };
  return table;
}

void SettingOverrides::apply(Config& c) const {
  for (const auto& [setting, value] : given)
    std::visit([&, v = &value](auto field) { c.*field = std::get<std::decay_t<decltype(c.*field)>>(*v); },
               setting->field);
}

SettingOverrides SettingOverrides::resumable() const {
  SettingOverrides out;
  for (const auto& entry : given)
    if (entry.first->resumable) out.given.push_back(entry);
  return out;
}

std::vector<std::string> SettingOverrides::fixed_by_checkpoint() const {
  std::vector<std::string> flags;
  for (const auto& [setting, value] : given)
    if (!setting->resumable) flags.push_back(std::string("--") + setting->name);
  return flags;
}

std::string resumable_flags(const SettingTable& table) {
  std::vector<std::string> flags;
  for (const Setting& s : table)
    if (s.resumable) flags.push_back(std::string("--") + s.name);
  std::string out;
  for (size_t i = 0; i < flags.size(); ++i) out += (i == 0 ? "" : i + 1 == flags.size() ? " and " : ", ") + flags[i];
  return out;
}

std::string describe(const Config& c, const SettingTable& table) {
  std::string out;
  for (const Setting& s : table) {
    const std::string value = std::visit([&](auto field) { return nlohmann::json(c.*field).dump(); }, s.field);
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", s.name, value);
  }
  return out;
}

nlohmann::json to_json(const Config& c, const SettingTable& table) {
  nlohmann::json j = nlohmann::json::object();
  for (const Setting& s : table) std::visit([&](auto field) { j[s.name] = c.*field; }, s.field);
  return j;
}

namespace {

// One saved setting as the type of its field: integers must be JSON integers that fit (never a
// float cast to an integer, which is undefined past the type's range), booleans and strings as
// themselves, real numbers any JSON number.
template <typename T>
T setting_value(const nlohmann::json& v, const char* name) {
  constexpr bool kBool = std::is_same_v<T, bool>;
  if constexpr (kBool || std::is_same_v<T, std::string>) {
    EMBER_CHECK(kBool ? v.is_boolean() : v.is_string(), "config: the saved setting '{}' should be a {}, got {}", name,
                kBool ? "boolean" : "string", ember::json_excerpt(v));
    return v.get<T>();
  } else if constexpr (std::is_floating_point_v<T>) {
    EMBER_CHECK(v.is_number(), "config: the saved setting '{}' should be a number, got {}", name,
                ember::json_excerpt(v));
    return v.get<T>();
  } else {
    bool fits = false;
    if (v.is_number_unsigned())
      fits = v.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<T>::max());
    else if (v.is_number_integer())
      fits = v.get<int64_t>() >= static_cast<int64_t>(std::numeric_limits<T>::min()) &&
             (std::is_unsigned_v<T> || v.get<int64_t>() <= static_cast<int64_t>(std::numeric_limits<T>::max()));
    EMBER_CHECK(fits, "config: the saved setting '{}' should be an integer in [{}, {}], got {}", name,
                std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), ember::json_excerpt(v));
    return v.get<T>();
  }
}

}  // namespace

Config config_from_json(const nlohmann::json& j, const SettingTable& table, const Config& defaults) {
  EMBER_CHECK(j.is_object(), "config: the saved settings must be a JSON object, got JSON of type {}", j.type_name());
  Config c = defaults;
  for (const Setting& s : table) {
    if (!j.contains(s.name)) continue;  // older checkpoints lack the newer settings: their defaults
    std::visit([&](auto field) { c.*field = setting_value<std::decay_t<decltype(c.*field)>>(j.at(s.name), s.name); },
               s.field);
  }
  return c;
}

}  // namespace charlm
