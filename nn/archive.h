// serialize::OutputArchive / InputArchive: libtorch's named containers for checkpoints that hold more
// than one module, an optimizer and a few tensors of the program's own, in one file.
//
//   ember::serialize::OutputArchive archive;
//   model->save(archive);                          // "fc1.weight", "fc1.bias", ...
//   ember::serialize::OutputArchive extra;
//   extra.write("step", ember::tensor({int64_t{1200}}));
//   archive.write("extra", extra);                 // a nested archive: "extra.step"
//   archive.save_to("checkpoint.safetensors");
//
//   ember::serialize::InputArchive in;
//   in.load_from("checkpoint.safetensors");
//   model->load(in);                               // checks names, shapes and dtypes first
//   ember::serialize::InputArchive extra_in;
//   in.read("extra", extra_in);
//   ember::Tensor step;
//   extra_in.read("step", step);
//
// The file is a safetensors file (nn/serialize.h), not libtorch's zip archive: a nested archive's
// entries are stored under "<key>." prefixes, so a model saved with nn::save (or torch::save) loads
// through an InputArchive and the other way round. Only tensors are stored; libtorch's IValues
// (ints, strings, lists) are not, so write a number as a tensor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/tensor.h"
#include "nn/module.h"
#include "nn/pimpl.h"
#include "nn/serialize.h"

namespace ember::serialize {

class OutputArchive {
 public:
  OutputArchive() = default;

  // Adds `tensor` under `key` (a later write of the same key replaces it). is_buffer is accepted for
  // libtorch's signature; buffers and parameters are stored alike. A key may not contain '.', which
  // separates nested archives: write those as archives.
  void write(const std::string& key, const Tensor& tensor, bool is_buffer = false);
  // Adds every entry of `nested` under "<key>.". Copies what `nested` holds now.
  void write(const std::string& key, const OutputArchive& nested);
  // archive("w", w) is archive.write("w", w).
  template <typename... Ts>
  void operator()(Ts&&... ts) {
    write(std::forward<Ts>(ts)...);
  }

  // Writes the archive: to a file (atomically), to a stream, or through `writer`, which is given the
  // whole file's bytes and returns how many it took (fewer is an error).
  void save_to(const std::string& filename) const;
  void save_to(std::ostream& stream) const;
  void save_to(const std::function<size_t(const void*, size_t)>& writer) const;

  // ---- Ember's view of the contents (what nn::Module::save and optimizers write through) ----
  const ember::NamedTensors& tensors() const { return tensors_; }
  // A tensor under its full dotted name ("fc1.weight"), as the nested writes would place it.
  void write_entry(const std::string& name, const Tensor& tensor);
  // Text entries stored in the file's metadata (an optimizer's options and counters).
  void write_text(const std::string& key, const std::string& value);
  const std::map<std::string, std::string>& texts() const { return texts_; }

 private:
  ember::NamedTensors tensors_;
  std::map<std::string, std::string> texts_;
};

class InputArchive {
 public:
  InputArchive() = default;

  // Reads a whole archive, its tensors placed on `device` when given (else the CPU).
  void load_from(const std::string& filename, std::optional<Device> device = std::nullopt);
  void load_from(std::istream& stream, std::optional<Device> device = std::nullopt);
  void load_from(const char* data, size_t size, std::optional<Device> device = std::nullopt);
  // `read_func(pos, buf, n)` copies up to n bytes from position pos and returns how many it copied;
  // `size_func()` is the archive's size in bytes.
  void load_from(const std::function<size_t(uint64_t, void*, size_t)>& read_func,
                 const std::function<size_t()>& size_func, std::optional<Device> device = std::nullopt);

  // The tensor stored under `key` in this archive (not in a nested one: "fc1.weight" is read through
  // the archive "fc1", as in libtorch). When `tensor` is defined, its data is replaced in place,
  // without autograd, so handles held elsewhere (an optimizer's) see the values; it keeps its device
  // and requires_grad. try_read returns false when the archive has no such tensor; read throws.
  bool try_read(const std::string& key, Tensor& tensor, bool is_buffer = false) const;
  void read(const std::string& key, Tensor& tensor, bool is_buffer = false) const;
  // The nested archive written under `key`.
  bool try_read(const std::string& key, InputArchive& archive) const;
  void read(const std::string& key, InputArchive& archive) const;
  // archive("w", w) is archive.read("w", w).
  template <typename... Ts>
  void operator()(Ts&&... ts) {
    read(std::forward<Ts>(ts)...);
  }

  // The keys directly in this archive (a nested archive's key once), in the order they were written.
  std::vector<std::string> keys() const;

  // ---- Ember's view: the file and this archive's prefix in it ("" at the top, "extra." nested) ----
  const SafetensorsFile& file() const;
  const std::string& prefix() const { return prefix_; }

 private:
  void take(SafetensorsFile file, std::optional<Device> device);

  std::shared_ptr<const SafetensorsFile> file_;
  std::string prefix_;
};

// archive << module and archive >> module, as libtorch spells module->save(archive) / load(archive).
OutputArchive& operator<<(OutputArchive& archive, const std::shared_ptr<nn::Module>& module);
InputArchive& operator>>(InputArchive& archive, const std::shared_ptr<nn::Module>& module);
template <typename ModuleType>
OutputArchive& operator<<(OutputArchive& archive, const nn::ModuleHolder<ModuleType>& module) {
  return archive << std::static_pointer_cast<nn::Module>(module.ptr());
}
template <typename ModuleType>
InputArchive& operator>>(InputArchive& archive, const nn::ModuleHolder<ModuleType>& module) {
  return archive >> std::static_pointer_cast<nn::Module>(module.ptr());
}

}  // namespace ember::serialize
