// <torch/torch.h>, part 4: torch::save / torch::load. Same calls as libtorch, but the file is a
// safetensors file (nn/serialize.h), not libtorch's zip archive: Ember writes and reads its own
// files, never a libtorch .pt file. A path or a std::ostream / std::istream (the same bytes as the
// file); the values: a Tensor, a std::vector<Tensor>, a module (holder or shared_ptr) and, to a path
// only, an optimizer.
#pragma once

#include <istream>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

#include "ember_compat/aliases.h"

namespace torch {
namespace compat_detail {

// The one ladder behind every save: `target` is a path (std::string) or a std::ostream.
template <typename Value, typename Target>
void save_to(const Value& value, Target& target) {
  constexpr bool kToPath = std::is_same_v<std::remove_cv_t<Target>, std::string>;
  if constexpr (std::is_same_v<Value, Tensor>) {
    save_safetensors(target, {{"tensor", value}});
  } else if constexpr (std::is_same_v<Value, std::vector<Tensor>>) {
    NamedTensors named;
    for (size_t i = 0; i < value.size(); ++i) named.emplace_back(std::to_string(i), value[i]);
    save_safetensors(target, named);
  } else if constexpr (ModuleHolderType<Value>) {
    nn::save(static_cast<const nn::Module&>(*value), target);
  } else if constexpr (kToPath && std::is_base_of_v<optim::Optimizer, Value>) {
    value.save(target);
  } else if constexpr (kToPath) {
    static_assert(always_false<Value>,
                  "torch::save: Ember saves a Tensor, a std::vector<Tensor>, an nn module or an optimizer");
  } else {
    static_assert(always_false<Value>,
                  "torch::save to a stream: Ember saves a Tensor, a std::vector<Tensor> or an nn module");
  }
}

// And behind every load: `source` is a path (std::string) or a std::istream.
template <typename Value, typename Source>
void load_from(Value& value, Source& source) {
  constexpr bool kFromPath = std::is_same_v<std::remove_cv_t<Source>, std::string>;
  if constexpr (std::is_same_v<Value, Tensor>) {
    value = load_safetensors(source).at("tensor");
  } else if constexpr (std::is_same_v<Value, std::vector<Tensor>>) {
    SafetensorsFile file = load_safetensors(source);
    value.clear();
    for (size_t i = 0; file.contains(std::to_string(i)); ++i) value.push_back(file.at(std::to_string(i)));
  } else if constexpr (ModuleHolderType<Value>) {
    nn::load(static_cast<nn::Module&>(*value), source);
  } else if constexpr (kFromPath && std::is_base_of_v<optim::Optimizer, Value>) {
    value.load(source);
  } else if constexpr (kFromPath) {
    static_assert(always_false<Value>,
                  "torch::load: Ember loads a Tensor, a std::vector<Tensor>, an nn module or an optimizer");
  } else {
    static_assert(always_false<Value>,
                  "torch::load from a stream: Ember loads a Tensor, a std::vector<Tensor> or an nn module");
  }
}

}  // namespace compat_detail

template <typename Value>
void save(const Value& value, const std::string& path) {
  compat_detail::save_to(value, path);
}
template <typename Value>
void save(const Value& value, std::ostream& stream) {
  compat_detail::save_to(value, stream);
}
template <typename Value>
void load(Value& value, const std::string& path) {
  compat_detail::load_from(value, path);
}
template <typename Value>
void load(Value& value, std::istream& stream) {
  compat_detail::load_from(value, stream);
}

}  // namespace torch
