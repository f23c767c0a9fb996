// serialize::OutputArchive / InputArchive (nn/archive.h) over safetensors files (nn/serialize.cpp).
#include "nn/archive.h"

#include <algorithm>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "autograd/grad_mode.h"
#include "core/error.h"

namespace ember::serialize {

namespace {

// Puts `value` under `key`, replacing an earlier entry of the same name.
void put(ember::NamedTensors& tensors, const std::string& key, const Tensor& value) {
  auto it = std::find_if(tensors.begin(), tensors.end(), [&](const auto& entry) { return entry.first == key; });
  if (it == tensors.end()) {
    tensors.emplace_back(key, value);
  } else {
    it->second = value;
  }
}

void check_key(const char* op, const std::string& key) { EMBER_CHECK(!key.empty(), "{}: the key is empty", op); }

}  // namespace

// ---- OutputArchive ----

void OutputArchive::write(const std::string& key, const Tensor& tensor, bool /*is_buffer*/) {
  check_key("OutputArchive::write", key);
  EMBER_CHECK(key.find('.') == std::string::npos,
              "OutputArchive::write: key '{}' contains '.', which separates nested archives; write the tensor into "
              "a nested archive instead",
              key);
  write_entry(key, tensor);
}

void OutputArchive::write_entry(const std::string& name, const Tensor& tensor) {
  check_key("OutputArchive::write", name);
  EMBER_CHECK(tensor.defined(), "OutputArchive::write: the tensor for '{}' is undefined", name);
  put(tensors_, name, tensor.detach());
}

void OutputArchive::write(const std::string& key, const OutputArchive& nested) {
  check_key("OutputArchive::write", key);
  EMBER_CHECK(&nested != this, "OutputArchive::write: an archive cannot be written into itself (key '{}')", key);
  for (const auto& [name, tensor] : nested.tensors_) put(tensors_, key + "." + name, tensor);
  for (const auto& [name, text] : nested.texts_) texts_[key + "." + name] = text;
}

void OutputArchive::write_text(const std::string& key, const std::string& value) {
  check_key("OutputArchive::write_text", key);
  texts_[key] = value;
}

void OutputArchive::save_to(const std::string& filename) const { save_safetensors(filename, tensors_, texts_); }

void OutputArchive::save_to(std::ostream& stream) const { save_safetensors(stream, tensors_, texts_); }

void OutputArchive::save_to(const std::function<size_t(const void*, size_t)>& writer) const {
  std::ostringstream bytes;
  save_to(bytes);
  const std::string data = std::move(bytes).str();
  const size_t taken = writer(data.data(), data.size());
  EMBER_CHECK(taken == data.size(), "OutputArchive::save_to: the writer function took {} of the archive's {} bytes",
              taken, data.size());
}

// ---- InputArchive ----

void InputArchive::take(SafetensorsFile file, std::optional<Device> device) {
  if (device && !device->is_cpu()) {
    for (auto& entry : file.tensors) entry.second = entry.second.to(*device);
  }
  file_ = std::make_shared<const SafetensorsFile>(std::move(file));
  prefix_.clear();
}

void InputArchive::load_from(const std::string& filename, std::optional<Device> device) {
  take(load_safetensors(filename), device);
}

void InputArchive::load_from(std::istream& stream, std::optional<Device> device) {
  take(load_safetensors(stream), device);
}

void InputArchive::load_from(const char* data, size_t size, std::optional<Device> device) {
  EMBER_CHECK(data != nullptr || size == 0, "InputArchive::load_from: data is null but size is {}", size);
  std::istringstream stream(std::string(data, size));
  load_from(stream, device);
}

void InputArchive::load_from(const std::function<size_t(uint64_t, void*, size_t)>& read_func,
                             const std::function<size_t()>& size_func, std::optional<Device> device) {
  const size_t size = size_func();
  std::string bytes(size, '\0');
  size_t done = 0;
  while (done < size) {
    const size_t got = read_func(done, bytes.data() + done, size - done);
    EMBER_CHECK(got > 0 && got <= size - done,
                "InputArchive::load_from: the read function returned {} at position {} of {} bytes", got, done, size);
    done += got;
  }
  std::istringstream stream(std::move(bytes));
  load_from(stream, device);
}

const SafetensorsFile& InputArchive::file() const {
  EMBER_CHECK(file_ != nullptr, "InputArchive: nothing was loaded (call load_from first)");
  return *file_;
}

bool InputArchive::try_read(const std::string& key, Tensor& tensor, bool /*is_buffer*/) const {
  const std::string name = prefix_ + key;
  if (key.find('.') != std::string::npos || !file().contains(name)) return false;
  const Tensor& stored = file_->at(name);
  if (!tensor.defined()) {
    tensor = stored.clone();  // the archive may be read again: never hand out its own tensor
    return true;
  }
  // libtorch's read replaces the tensor's data in place (set_): the saved shape and dtype win, and
  // the tensor stays where it is (device) and keeps requires_grad.
  NoGradGuard no_grad;
  tensor.set_data(stored.to(tensor.device(), stored.dtype(), /*non_blocking=*/false, /*copy=*/true));
  return true;
}

void InputArchive::read(const std::string& key, Tensor& tensor, bool is_buffer) const {
  EMBER_CHECK(try_read(key, tensor, is_buffer), "No such serialized tensor '{}{}'", prefix_, key);
}

bool InputArchive::try_read(const std::string& key, InputArchive& archive) const {
  const std::string nested = prefix_ + key + ".";
  const auto& tensors = file().tensors;
  const bool found =
      std::any_of(tensors.begin(), tensors.end(), [&](const auto& entry) { return entry.first.starts_with(nested); }) ||
      std::any_of(file_->metadata.begin(), file_->metadata.end(),
                  [&](const auto& entry) { return entry.first.starts_with(nested); });
  if (!found) return false;
  archive.file_ = file_;
  archive.prefix_ = nested;
  return true;
}

void InputArchive::read(const std::string& key, InputArchive& archive) const {
  EMBER_CHECK(try_read(key, archive), "No such serialized submodule: '{}{}'", prefix_, key);
}

std::vector<std::string> InputArchive::keys() const {
  std::vector<std::string> keys;
  for (const auto& [name, tensor] : file().tensors) {
    if (!name.starts_with(prefix_)) continue;
    const std::string rest = name.substr(prefix_.size());
    std::string key = rest.substr(0, rest.find('.'));
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(std::move(key));
  }
  return keys;
}

}  // namespace ember::serialize

namespace ember::nn {

void Module::save(serialize::OutputArchive& archive) const {
  for (const auto& [name, tensor] : state_dict(*this)) archive.write_entry(name, tensor);
}

void Module::load(serialize::InputArchive& archive) {
  const SafetensorsFile& file = archive.file();
  ember::NamedTensors wanted;
  std::vector<std::string> missing;
  for (const auto& [key, tensor] : state_dict(*this)) {
    const std::string stored = archive.prefix() + key;
    if (file.contains(stored)) {
      wanted.emplace_back(key, file.at(stored));
    } else {
      missing.push_back(stored);
    }
  }
  EMBER_CHECK(missing.empty(), "Module::load: the archive has no tensor for {} (of module {})",
              fmt::format("'{}'", fmt::join(missing, "', '")), name());
  load_state_dict(*this, wanted, /*strict=*/true);
}

}  // namespace ember::nn

namespace ember::serialize {

OutputArchive& operator<<(OutputArchive& archive, const std::shared_ptr<nn::Module>& module) {
  module->save(archive);
  return archive;
}

InputArchive& operator>>(InputArchive& archive, const std::shared_ptr<nn::Module>& module) {
  module->load(archive);
  return archive;
}

}  // namespace ember::serialize
