// Checkpoints in the safetensors format, the layout Hugging Face's `safetensors` library reads:
//
//   [8 bytes: header length N, little-endian u64][N bytes: JSON header, padded with spaces][raw data]
//   header = {"__metadata__": {"k": "v"}, "w": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]}, ...}
//
//   ember::save_safetensors("w.safetensors", {{"w", w}, {"b", b}}, {{"step", "10"}});
//   ember::SafetensorsFile f = ember::load_safetensors("w.safetensors");
//   Tensor w2 = f.at("w");
//
//   ember::nn::save(model, "model.safetensors");       // parameters and buffers by dotted name
//   ember::nn::load(model, "model.safetensors");       // checks every name, shape and dtype first
//
// Data is little-endian and row-major; offsets are relative to the end of the header. Ember
// handles F32, F64, I64 and BOOL. Writes are atomic (temporary file in the same directory, fsync,
// rename), so an existing file is never left half-written. Reads check every field and name the
// file and the tensor in the error. This is a tensor container, not pickle: no code, no objects.
#pragma once

#include <iosfwd>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/tensor.h"
#include "nn/module.h"
#include "nn/pimpl.h"

namespace ember {

using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

// The contents of a safetensors file: its tensors (CPU, contiguous, in the order of their data
// in the file) and the string metadata of its "__metadata__" entry.
struct SafetensorsFile {
  std::string path;
  NamedTensors tensors;
  std::map<std::string, std::string> metadata;

  bool contains(const std::string& name) const;
  // The tensor called `name`; throws naming the file when there is none.
  const Tensor& at(const std::string& name) const;
  // The tensors whose names start with `prefix`, with the prefix removed ("model.w" -> "w").
  NamedTensors with_prefix(const std::string& prefix) const;
};

// Writes `tensors` (any device and layout; names unique, not "__metadata__") in the given order.
void save_safetensors(const std::string& path, const NamedTensors& tensors,
                      const std::map<std::string, std::string>& metadata = {});
SafetensorsFile load_safetensors(const std::string& path);
// The same bytes to and from a stream (a file, a std::stringstream, a socket): the stream holds
// one safetensors file from its position to its end. Not atomic: the stream gets what it gets.
void save_safetensors(std::ostream& stream, const NamedTensors& tensors,
                      const std::map<std::string, std::string>& metadata = {});
SafetensorsFile load_safetensors(std::istream& stream);

// The safetensors dtype names: kFloat32 <-> "F32", kFloat64 <-> "F64", kInt64 <-> "I64", kBool <-> "BOOL".
std::string safetensors_dtype(ScalarType dtype);

}  // namespace ember

namespace ember::nn {

// A module's parameters and then its buffers by dotted name, as named_parameters() and
// named_buffers() list them (PyTorch's state_dict; a tied weight appears once, under its first name).
ember::NamedTensors state_dict(const Module& module);
// Copies `state` into the module's tensors in place (handles held elsewhere, such as an
// optimizer's, see the new values). Everything is checked before anything is copied, and a
// mismatch throws naming every offending tensor, leaving the module unchanged:
//   - strict: a module tensor absent from `state` (missing key) or a name in `state` the module
//     does not have (unexpected key);
//   - always: a shape or dtype that differs from the module's tensor, or a name given twice.
void load_state_dict(Module& module, const ember::NamedTensors& state, bool strict = true);

// state_dict into a safetensors file / load_state_dict from one.
void save(const Module& module, const std::string& path, const std::map<std::string, std::string>& metadata = {});
void load(Module& module, const std::string& path, bool strict = true);

void save(const Module& module, std::ostream& stream, const std::map<std::string, std::string>& metadata = {});
void load(Module& module, std::istream& stream, bool strict = true);

template <typename M>
void save(const ModuleHolder<M>& module, const std::string& path,
          const std::map<std::string, std::string>& metadata = {}) {
  save(static_cast<const Module&>(*module), path, metadata);
}
template <typename M>
void load(ModuleHolder<M>& module, const std::string& path, bool strict = true) {
  load(static_cast<Module&>(*module), path, strict);
}

}  // namespace ember::nn
