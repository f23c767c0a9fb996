// What every family shares: preset lookup, validation order and the memory check (see family.h).
#include "family.h"

#include <fmt/format.h>

#include "core/cpu/allocator.h"

namespace charlm {

std::string Family::preset_list() const {
  std::string out;
  for (size_t i = 0; i < presets.size(); ++i)
    out += (i == 0 ? "" : i + 1 == presets.size() ? " or " : ", ") + presets[i];
  return out;
}

Config Family::preset_named(const std::string& name) const {
  for (const std::string& known : presets)
    if (name == known) return preset(name);
  EMBER_FAIL("--preset: unknown preset '{}' (choose {})", name, preset_list());
}

void Family::validate(const Config& c) const {
  validate_model(c);
  validate_training(c);
}

void Family::check_fits_in_memory(const Config& c, int64_t vocab_size, bool training, const std::string& what,
                                  uint64_t data_bytes) const {
  const MemoryEstimate e = estimate_memory(c, vocab_size, training);
  // On a GPU the activations live in device memory, whose allocator reports its own shortage.
  const Bytes model{c.device == "cpu" ? (Bytes{e.state_bytes} + Bytes{e.activation_bytes}).v : e.state_bytes};
  const uint64_t host = (model + Bytes{data_bytes}).v;
  const uint64_t have = ember::system_memory_bytes();  // RAM
  const std::string data = data_bytes > 0 ? fmt::format(" + {} of training text", human_bytes(data_bytes)) : "";
  EMBER_CHECK(host <= have,
              "{}: the model needs {} for parameters{} + {} of activations at batch_size {} x block_size {} "
              "({}, vocabulary {}){}, and this machine has {} of memory. Use a smaller {}, --batch_size or "
              "--block_size{}",
              what, human_bytes(e.state_bytes), training ? ", gradients and AdamW state" : "",
              human_bytes(e.activation_bytes), training ? c.batch_size : 1, c.block_size, describe_size(c), vocab_size,
              data, human_bytes(have), size_flags, data_bytes > 0 ? ", or a shorter text" : "");
}

}  // namespace charlm
