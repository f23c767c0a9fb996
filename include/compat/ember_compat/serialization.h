// <torch/torch.h>, part 4: torch::save / torch::load. Same calls as libtorch, but the file is a
// safetensors file (nn/serialize.h), not libtorch's zip archive: Ember writes and reads its own
// files, never a libtorch .pt file. A path or a std::ostream / std::istream (the same bytes as the
// file); the values: a Tensor, a std::vector<Tensor>, a module (holder or shared_ptr), a sampler or
// a stateful dataset (their positions) and, to a path only, an optimizer.
#pragma once

#include <cstdint>
#include <deque>
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
  } else if constexpr (requires(serialize::OutputArchive & archive, const Value& v) { archive << v; }) {
    serialize::OutputArchive archive;  // a sampler or a stateful dataset: what its operator<< writes
    archive << value;
    archive.save_to(target);
  } else if constexpr (kToPath) {
    static_assert(always_false<Value>,
                  "torch::save: Ember saves a Tensor, a std::vector<Tensor>, an nn module, a sampler, a stateful "
                  "dataset or an optimizer");
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
  } else if constexpr (requires(serialize::InputArchive & archive, Value & v) { archive >> v; }) {
    serialize::InputArchive archive;
    archive.load_from(source);
    archive >> value;
  } else if constexpr (kFromPath) {
    static_assert(always_false<Value>,
                  "torch::load: Ember loads a Tensor, a std::vector<Tensor>, an nn module, a sampler, a stateful "
                  "dataset or an optimizer");
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

// torch::optim::serialize: the helpers a custom optimizer's state calls to save its counters and
// buffers (libtorch's keys: "key" for a count, "key/size" and "key/0", "key/1"... for a list),
// and the whole-optimizer form, which here writes the optimizer's own checkpoint (Ember's layout,
// not libtorch's: it round-trips in Ember). deque_to_list / list_to_deque convert LBFGS-style
// histories (c10::List is a std::vector here).
namespace ember::optim {

namespace compat_detail {
inline int64_t read_count(const serialize::InputArchive& archive, const std::string& key) {
  Tensor value;
  archive.read(key, value, /*is_buffer=*/true);
  EMBER_CHECK(value.numel() == 1 && !is_floating_point(value.dtype()),
              "torch::optim::serialize: '{}' must be one integer, got a {} tensor of shape {}", key,
              dtype_name(value.dtype()), shape_str(value.sizes()));
  return value.item<int64_t>();
}
}  // namespace compat_detail

inline void serialize(serialize::OutputArchive& archive, const std::string& key, const int64_t& value) {
  archive.write(key, scalar_tensor(value, kLong), /*is_buffer=*/true);
}
inline void serialize(serialize::InputArchive& archive, const std::string& key, int64_t& value) {
  value = compat_detail::read_count(archive, key);
}

template <typename BufferContainer>
void serialize(serialize::OutputArchive& archive, const std::string& key, const BufferContainer& buffers) {
  archive.write(key + "/size", scalar_tensor(static_cast<int64_t>(buffers.size()), kLong), /*is_buffer=*/true);
  for (size_t i = 0; i < buffers.size(); ++i) archive.write(key + "/" + std::to_string(i), buffers[i], true);
}
template <typename BufferContainer>
void serialize(serialize::InputArchive& archive, const std::string& key, BufferContainer& buffers) {
  const int64_t size = compat_detail::read_count(archive, key + "/size");
  EMBER_CHECK(size >= 0, "torch::optim::serialize: '{}/size' must not be negative, got {}", key, size);
  buffers.clear();
  for (int64_t i = 0; i < size; ++i) {
    buffers.emplace_back();
    archive.read(key + "/" + std::to_string(i), buffers.back(), /*is_buffer=*/true);
  }
}

// A list of step counts, one int64 tensor each (libtorch's layout).
inline void serialize(serialize::OutputArchive& archive, const std::string& key, const std::vector<int64_t>& steps) {
  std::vector<Tensor> tensors;
  tensors.reserve(steps.size());
  for (const int64_t step : steps) tensors.push_back(scalar_tensor(step, kLong));
  serialize(archive, key, tensors);
}
inline void serialize(serialize::InputArchive& archive, const std::string& key, std::vector<int64_t>& steps) {
  std::vector<Tensor> tensors;
  serialize(archive, key, tensors);
  steps.clear();
  for (const Tensor& step : tensors) steps.push_back(step.item<int64_t>());
}

template <typename DerivedOptimizerParamState, typename DerivedOptimizerParamOptions>
void serialize(serialize::OutputArchive& archive, const Optimizer& optimizer) {
  optimizer.save(archive);
}
template <typename DerivedOptimizerParamState, typename DerivedOptimizerParamOptions>
void serialize(serialize::InputArchive& archive, Optimizer& optimizer) {
  optimizer.load(archive);
}

template <typename T>
std::vector<T> deque_to_list(const std::deque<T>& values) {
  return std::vector<T>(values.begin(), values.end());
}
template <typename T>
std::deque<T> list_to_deque(const std::vector<T>& values) {
  return std::deque<T>(values.begin(), values.end());
}

}  // namespace ember::optim
