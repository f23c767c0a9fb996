// <torch/torch.h>, part: torch::pickle_save / torch::pickle_load on c10::IValue (ember_compat/ivalue.h),
// over Ember's reader and writer of torch.save archives (nn/pickle.h).
//
//   c10::Dict<std::string, torch::Tensor> weights;
//   weights.insert("w", torch::ones({2, 2}));
//   std::vector<char> bytes = torch::pickle_save(weights);   // Python: torch.load(io.BytesIO(bytes))
//   c10::IValue back = torch::pickle_load(bytes);             // also what Python's torch.save wrote
//   torch::Tensor w = back.toGenericDict().at("w").toTensor();
//
// Values convert to ember::PickleValue and back node by node, shared lists, tuples and dicts once
// each, so sharing survives both ways. Loaded tensors are CPU tensors whatever their saved location.
// Errors (a refused global, a truncated archive, ...) are c10::Error naming pickle_load.
#pragma once

#include <memory>
#include <unordered_map>
#include <vector>

#include "ember_compat/errors.h"
#include "ember_compat/ivalue.h"
#include "nn/pickle.h"

namespace torch::compat_detail {

// c10::IValue <-> ember::PickleValue, each shared container converted once.
class PickleConverter {
 public:
  ember::PickleValue to_pickle(const c10::IValue& v, int depth = 0) {
    using ember::PickleValue;
    EMBER_CHECK(depth <= ember::kPickleMaxDepth, "pickle_save: containers nested deeper than {}",
                ember::kPickleMaxDepth);
    if (v.isNone()) return PickleValue::none();
    if (v.isTensor()) return PickleValue(v.toTensor());
    if (v.isDouble()) return PickleValue::double_value(v.toDouble());
    if (v.isInt()) return PickleValue::int_value(v.toInt());
    if (v.isBool()) return PickleValue::boolean_value(v.toBool());
    if (v.isString()) return PickleValue::string(v.toStringRef());
    const void* identity = v.isList()    ? static_cast<const void*>(v.list_impl().get())
                           : v.isTuple() ? static_cast<const void*>(v.toTuple().get())
                                         : static_cast<const void*>(v.dict_impl().get());
    if (auto done = to_pickle_.find(identity); done != to_pickle_.end()) return done->second;
    PickleValue out;
    if (v.isGenericDict()) {
      PickleValue::Entries entries;
      for (const auto& [key, value] : v.dict_impl()->entries) {
        entries.emplace_back(to_pickle(key, depth + 1), to_pickle(value, depth + 1));
      }
      out = PickleValue::dict(std::move(entries));
    } else {
      PickleValue::Items items;
      for (const c10::IValue& item : v.isList() ? v.list_impl()->items : v.toTupleRef().elements()) {
        items.push_back(to_pickle(item, depth + 1));
      }
      out = v.isTuple() ? PickleValue::tuple(std::move(items)) : PickleValue::list(std::move(items), list_type(v));
    }
    to_pickle_.emplace(identity, out);
    return out;
  }

  c10::IValue from_pickle(const ember::PickleValue& v) {
    using Kind = ember::PickleValue::Kind;
    switch (v.kind) {
      case Kind::None:
        return {};
      case Kind::Tensor:
        return v.tensor;
      case Kind::Double:
        return v.real;
      case Kind::Int:
        return v.integer;
      case Kind::Bool:
        return v.boolean;
      case Kind::String:
        return v.text;
      default:
        break;
    }
    const void* identity = v.kind == Kind::Dict ? static_cast<const void*>(v.entries.get()) : v.items.get();
    if (auto done = from_pickle_.find(identity); done != from_pickle_.end()) return done->second;
    c10::IValue out;
    if (v.kind == Kind::Dict) {
      auto dict = std::make_shared<c10::detail::DictImpl>();
      for (const auto& [key, value] : *v.entries) dict->insert(from_pickle(key), from_pickle(value), true);
      out = c10::IValue::from_dict(std::move(dict));
    } else {
      std::vector<c10::IValue> items;
      for (const ember::PickleValue& item : *v.items) items.push_back(from_pickle(item));
      if (v.kind == Kind::Tuple) {
        out = c10::ivalue::Tuple::create(std::move(items));
      } else {
        auto list = std::make_shared<c10::detail::ListImpl>();
        list->items = std::move(items);
        list->element = element_type(v.list_type);
        out = c10::IValue::from_list(std::move(list));
      }
    }
    from_pickle_.emplace(identity, out);
    return out;
  }

 private:
  static ember::PickleValue::ListType list_type(const c10::IValue& list) {
    using ListType = ember::PickleValue::ListType;
    if (list.isIntList()) return ListType::Int;
    if (list.isDoubleList()) return ListType::Double;
    if (list.isBoolList()) return ListType::Bool;
    if (list.isTensorList()) return ListType::Tensor;
    return ListType::Any;
  }
  static c10::TypePtr element_type(ember::PickleValue::ListType type) {
    using ListType = ember::PickleValue::ListType;
    switch (type) {
      case ListType::Int:
        return c10::IntType::get();
      case ListType::Double:
        return c10::FloatType::get();
      case ListType::Bool:
        return c10::BoolType::get();
      case ListType::Tensor:
        return c10::TensorType::get();
      case ListType::Any:
        break;
    }
    return c10::AnyType::get();
  }

  std::unordered_map<const void*, ember::PickleValue> to_pickle_;
  std::unordered_map<const void*, c10::IValue> from_pickle_;
};

}  // namespace torch::compat_detail

namespace torch {

// The bytes of a torch.save archive holding `ivalue` (libtorch's torch::pickle_save).
inline std::vector<char> pickle_save(const c10::IValue& ivalue) {
  return ember::pickle_save(compat_detail::PickleConverter().to_pickle(ivalue));
}

// The value in a torch.save archive, from Python's torch.save or pickle_save (libtorch's torch::pickle_load).
inline c10::IValue pickle_load(const std::vector<char>& data) {
  return compat_detail::PickleConverter().from_pickle(ember::pickle_load(data.data(), data.size()));
}

}  // namespace torch
