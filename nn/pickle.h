// pickle_save / pickle_load: values in the zip archive that Python's torch.save writes and torch.load
// reads, the format of libtorch's torch::pickle_save / torch::pickle_load.
//
//   ember::PickleValue dict = ember::PickleValue::dict({{ember::PickleValue::string("w"), ember::PickleValue(w)}});
//   std::vector<char> bytes = ember::pickle_save(dict);   // torch.load(io.BytesIO(bytes)) in Python
//   ember::PickleValue back = ember::pickle_load(bytes.data(), bytes.size());  // or what Python's torch.save wrote
//   Tensor w2 = back.entries->at(0).second.tensor;
//
// The archive: "archive/data.pkl" (a pickle, protocol 2) whose tensors are persistent ids naming raw
// storages "archive/data/0", "archive/data/1", ... (entries stored uncompressed, data 64-byte aligned),
// and "archive/version". Tensors are rebuilt with torch._utils._rebuild_tensor_v2 as views (offset,
// sizes, strides) of their storage, so views sharing a storage stay shared both ways.
// The reader is a restricted unpickler, not Python's: only the opcodes and globals of tensors, None,
// bool, int, float, str, list, tuple, dict and OrderedDict; anything else is an ember::Error naming
// pickle_load. It never runs code. This is not TorchScript's module format (no objects, no code).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/tensor.h"

namespace ember {

// One value of a pickle. Containers are shared and immutable, so one list held twice is written
// once and read back shared, and copying a PickleValue is cheap.
struct PickleValue {
  enum class Kind : uint8_t { None, Tensor, Double, Int, Bool, String, List, Tuple, Dict };
  // A list's element type: libtorch's typed lists (List[int] ...) are written with
  // torch.jit._pickle.build_intlist etc. and read back typed; Any is Python's plain list.
  enum class ListType : uint8_t { Any, Int, Double, Bool, Tensor };
  using Items = std::vector<PickleValue>;
  using Entries = std::vector<std::pair<PickleValue, PickleValue>>;  // insertion order, unique keys

  Kind kind = Kind::None;
  ListType list_type = ListType::Any;
  bool boolean = false;
  int64_t integer = 0;
  double real = 0;
  std::string text;
  Tensor tensor;
  std::shared_ptr<const Items> items;      // List, Tuple
  std::shared_ptr<const Entries> entries;  // Dict

  PickleValue() = default;
  explicit PickleValue(Tensor t);
  static PickleValue none() { return {}; }
  static PickleValue boolean_value(bool b);
  static PickleValue int_value(int64_t i);
  static PickleValue double_value(double d);
  static PickleValue string(std::string s);
  static PickleValue list(Items items, ListType type = ListType::Any);
  static PickleValue tuple(Items items);
  static PickleValue dict(Entries entries);
};

// Containers nested deeper than this are refused by both directions (a recursion bomb).
inline constexpr int kPickleMaxDepth = 1000;

// The bytes of a torch.save archive holding `value` (tensors of any device are written as CPU
// storages; each distinct (storage, dtype) once, whole, with the tensors as views of it).
std::vector<char> pickle_save(const PickleValue& value);

// Reads an archive written by pickle_save, torch.save (PyTorch 1.6 and later, default protocol) or
// libtorch's pickle_save. Tensors come back on the CPU whatever their saved location.
// (No std::vector overload: torch::pickle_load(const std::vector<char>&) is the compat layer's.)
PickleValue pickle_load(const char* data, size_t size);

}  // namespace ember
