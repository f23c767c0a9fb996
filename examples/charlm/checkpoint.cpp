// Checkpoints of a character model in one safetensors file (see checkpoint.h):
//
//   tensors   model.<parameter or buffer name>   the weights
//             optim.state.<i>.<name>             AdamW's moments (Optimizer::save_state)
//             rng.default                        the default generator's state (batches, dropout)
//   metadata  format, config (JSON), vocab (UTF-8), train_state (JSON), optim.* (param groups, steps)
//
// Loading checks everything (format, vocabulary, every tensor's presence, shape and dtype) before
// anything is copied, so a bad file leaves the model, optimizer and generator as they were.
#include "checkpoint.h"

#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "nn/json_guard.h"

namespace charlm {

namespace {

const ember::Tensor* find_tensor(const ember::SafetensorsFile& f, const std::string& name) {
  return f.contains(name) ? &f.at(name) : nullptr;
}

const std::string& meta(const ember::SafetensorsFile& f, const std::string& key, const std::string& path,
                        const Family& family) {
  auto it = f.metadata.find(key);
  EMBER_CHECK(it != f.metadata.end(), "checkpoint {}: missing metadata '{}' (not a checkpoint of {}?)", path, key,
              family.program);
  return it->second;
}

// Every named parameter and buffer of the model, as saved.
std::vector<std::pair<std::string, ember::Tensor>> model_tensors(const ember::nn::Module& model) {
  std::vector<std::pair<std::string, ember::Tensor>> out;
  for (const auto& [name, t] : model.named_parameters()) out.emplace_back(name, t);
  for (const auto& [name, t] : model.named_buffers()) out.emplace_back(name, t);
  return out;
}

// The train_state JSON, every field checked: the step a JSON integer in [0, kMaxIters] (not -100,
// not 1e300), the world size at least 1, the losses finite numbers.
TrainState train_state_from_json(const nlohmann::json& s, const std::string& path) {
  EMBER_CHECK(s.is_object(), "checkpoint {}: train_state must be a JSON object, got {}", path, ember::json_excerpt(s));
  auto integer = [&](const char* key, int64_t lo, int64_t hi) {
    const nlohmann::json& v = s.at(key);
    const bool fits = v.is_number_integer() && !(v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(hi)) &&
                      v.get<int64_t>() >= lo && v.get<int64_t>() <= hi;
    EMBER_CHECK(fits, "checkpoint {}: train_state '{}' must be an integer in [{}, {}], got {}", path, key, lo, hi,
                ember::json_excerpt(v));
    return v.get<int64_t>();
  };
  auto real = [&](const char* key) {
    const nlohmann::json& v = s.at(key);
    EMBER_CHECK(v.is_number() && std::isfinite(v.get<double>()),
                "checkpoint {}: train_state '{}' must be a finite number, got {}", path, key, ember::json_excerpt(v));
    return v.get<double>();
  };
  TrainState st;
  st.iter = integer("iter", 0, kMaxIters);
  EMBER_CHECK(s.at("evaluated").is_boolean(), "checkpoint {}: train_state 'evaluated' must be true or false, got {}",
              path, ember::json_excerpt(s.at("evaluated")));
  st.evaluated = s.at("evaluated").get<bool>();
  st.best_val = real("best_val");
  st.last_train = real("last_train");
  st.last_val = real("last_val");
  // Older checkpoints lack the world size: one process.
  st.world_size = s.contains("world_size") ? integer("world_size", 1, std::numeric_limits<int>::max()) : 1;
  return st;
}

}  // namespace

void save_checkpoint(const std::string& path, const Family& family, const Config& cfg, const Vocab& vocab,
                     const TrainState& st, const ember::nn::Module& model, ember::optim::Optimizer& opt,
                     const ember::Generator& gen) {
  std::vector<std::pair<std::string, ember::Tensor>> tensors;
  std::map<std::string, std::string> metadata;
  for (const auto& [name, t] : model_tensors(model)) tensors.emplace_back("model." + name, t.detach());
  opt.save_state(tensors, metadata, "optim.");
  tensors.emplace_back("rng.default", gen.get_state());
  metadata["format"] = family.checkpoint_format;
  metadata["config"] = to_json(cfg, family.settings).dump();
  metadata["vocab"] = u32_to_utf8(vocab.chars());
  metadata["train_state"] = nlohmann::json{{"iter", st.iter},         {"evaluated", st.evaluated},
                                           {"best_val", st.best_val}, {"last_train", st.last_train},
                                           {"last_val", st.last_val}, {"world_size", st.world_size}}
                                .dump();
  ember::save_safetensors(path, tensors, metadata);  // atomic: temporary file, fsync, rename
}

Loaded read_checkpoint_header(const std::string& path, const Family& family) {
  ember::SafetensorsFile f = ember::load_safetensors(path);
  const std::string& format = meta(f, "format", path, family);
  EMBER_CHECK(format == family.checkpoint_format, "checkpoint {}: format '{}', expected '{}'", path, format,
              family.checkpoint_format);
  Loaded out;
  try {
    out.cfg =
        config_from_json(nlohmann::json::parse(meta(f, "config", path, family)), family.settings, family.defaults());
    out.state = train_state_from_json(nlohmann::json::parse(meta(f, "train_state", path, family)), path);
  } catch (const nlohmann::json::exception& e) {
    EMBER_FAIL("checkpoint {}: corrupt metadata ({})", path, e.what());
  }
  out.vocab = Vocab::from_chars(utf8_to_u32(meta(f, "vocab", path, family), "checkpoint vocabulary"));
  // Threads recorded on a larger machine: this one's default instead (--threads sets it on resume).
  if (out.cfg.threads > max_threads()) out.cfg.threads = 0;
  family.validate(out.cfg);
  return out;
}

void load_checkpoint(const std::string& path, const ember::nn::Module& model, ember::optim::Optimizer* opt,
                     ember::Generator* gen) {
  ember::SafetensorsFile f = ember::load_safetensors(path);
  // Check every tensor before copying any.
  auto targets = model_tensors(model);
  for (const auto& [name, t] : targets) {
    const ember::Tensor* src = find_tensor(f, "model." + name);
    EMBER_CHECK(src != nullptr, "checkpoint {}: no tensor for model parameter '{}' (another model config?)", path,
                name);
    EMBER_CHECK(src->sizes() == t.sizes() && src->scalar_type() == t.scalar_type(),
                "checkpoint {}: '{}' is {} {} in the file but {} {} in the model (another model config?)", path, name,
                ember::dtype_name(src->scalar_type()), src->sizes(), ember::dtype_name(t.scalar_type()), t.sizes());
  }
  const ember::Tensor* rng = find_tensor(f, "rng.default");
  if (gen) EMBER_CHECK(rng != nullptr, "checkpoint {}: no generator state 'rng.default'", path);
  if (opt) opt->load_state(f, "optim.");  // checks before it changes anything
  ember::NoGradGuard no_grad;
  for (auto& [name, t] : targets) t.copy_(*find_tensor(f, "model." + name));
  if (gen) gen->set_state(*rng);
}

}  // namespace charlm
