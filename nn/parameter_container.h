// Containers of parameters: ParameterList (indexed) and ParameterDict (keyed), as libtorch's
// torch::nn::ParameterList and ParameterDict; and nn::utils::parameters_to_vector and
// vector_to_parameters, which flatten parameters into one vector and back.
//
//   nn::ParameterList taps(ember::randn({3}), ember::randn({3}));   // registered as "0", "1"
//   taps->append(ember::zeros({3}));
//   Tensor sum = taps[0] + taps[2];                       // taps->at(i): "Index out of range" past the end
//   nn::ParameterDict scales;
//   scales->insert("alpha", ember::ones({1}));            // requires_grad as the tensor has it
//   for (const auto& item : *scales) std::cout << item.key() << '\n';
//   std::cout << *taps;   // ParameterList( (0): Parameter containing: [Float of size [3]] ... (libtorch's format)
//
// Each entry is a parameter of the container, so a module that registers one (register_module("taps",
// taps)) lists them as "taps.0", "taps.1" and optimizers see them. An entry keeps the requires_grad of
// the tensor given, as libtorch's append and insert do. clone() copies every entry (libtorch's clone
// of these containers throws, since they register nothing in reset()).
#pragma once

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "nn/cloneable.h"
#include "nn/module.h"
#include "nn/ordered_dict.h"

namespace ember::nn {

namespace detail {
// "(key): Parameter containing: [Float of size [2, 3]]" per entry, between "ParameterList(" and ")".
void print_parameter_entries(std::ostream& stream, const char* title, const Module::NamedTensors& entries);
// `value`, copied (to `device` when given) without history, with its requires_grad.
Tensor copy_parameter(const Tensor& value, const std::optional<Device>& device);
}  // namespace detail

class ParameterListImpl : public Cloneable<ParameterListImpl> {
 public:
  using Iterator = std::vector<NamedTensors::Item>::iterator;
  using ConstIterator = std::vector<NamedTensors::Item>::const_iterator;

  ParameterListImpl() = default;
  template <typename... Tensors>
  requires(sizeof...(Tensors) > 0 &&
           (std::is_convertible_v<Tensors, Tensor> && ...)) explicit ParameterListImpl(Tensors&&... params) {
    parameters_.reserve(sizeof...(Tensors));
    (append(std::forward<Tensors>(params)), ...);
  }

  void reset() override {}
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;
  void pretty_print(std::ostream& stream) const override {
    detail::print_parameter_entries(stream, "ParameterList", parameters_);
  }

  // Registers the tensor as parameter "<size()>", with the tensor's requires_grad.
  void append(const Tensor& param) { register_parameter(std::to_string(size()), param, param.requires_grad()); }
  void append(const NamedTensors::Item& item) { append(item.value()); }
  // Appends every tensor (or OrderedDict item) of a container: another ParameterList, a vector, ...
  template <typename Container>
  void extend(const Container& container) {
    for (const auto& param : container) append(param);
  }
  template <typename Container>
  ParameterListImpl& operator+=(const Container& other) {
    extend(other);
    return *this;
  }

  Tensor& at(size_t index) {
    EMBER_CHECK(index < size(), "Index out of range");
    return parameters_[index].value();
  }
  const Tensor& at(size_t index) const {
    EMBER_CHECK(index < size(), "Index out of range");
    return parameters_[index].value();
  }
  Tensor& operator[](size_t index) { return at(index); }
  const Tensor& operator[](size_t index) const { return at(index); }

  size_t size() const noexcept { return parameters_.size(); }
  bool is_empty() const noexcept { return parameters_.is_empty(); }
  Iterator begin() { return parameters_.begin(); }
  ConstIterator begin() const { return parameters_.begin(); }
  Iterator end() { return parameters_.end(); }
  ConstIterator end() const { return parameters_.end(); }
};
EMBER_MODULE(ParameterList);

class ParameterDictImpl : public Cloneable<ParameterDictImpl> {
 public:
  using Iterator = NamedTensors::Iterator;
  using ConstIterator = NamedTensors::ConstIterator;

  ParameterDictImpl() = default;
  explicit ParameterDictImpl(const NamedTensors& params);

  void reset() override {}
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;
  void pretty_print(std::ostream& stream) const override {
    detail::print_parameter_entries(stream, "ParameterDict", parameters_);
  }

  // Registers `param` under `key` ("Parameter 'key' already defined" when taken).
  Tensor& insert(std::string key, const Tensor& param) {
    return register_parameter(std::move(key), param, param.requires_grad());
  }
  // Removes the entry and returns its tensor ("Parameter 'key' is not defined" when absent).
  Tensor pop(const std::string& key) {
    Tensor value = parameters_[key];
    parameters_.erase(key);
    return value;
  }
  // Each item of `container` (an OrderedDict<string, Tensor>, a ParameterDict, ...) replaces the
  // entry of its key, or is inserted after the others when the key is new (Python's update()).
  template <typename Container>
  void update(const Container& container) {
    for (const auto& item : container) {
      if (parameters_.contains(item.key())) {
        replace_parameter(item.key(), item.value());
      } else {
        insert(item.key(), item.value());
      }
    }
  }
  void clear() { parameters_.clear(); }

  std::vector<std::string> keys() const { return parameters_.keys(); }
  std::vector<Tensor> values() const { return parameters_.values(); }
  bool contains(const std::string& key) const noexcept { return parameters_.contains(key); }
  Tensor& get(const std::string& key) { return parameters_[key]; }
  const Tensor& get(const std::string& key) const { return parameters_[key]; }
  Tensor& operator[](const std::string& key) { return parameters_[key]; }
  const Tensor& operator[](const std::string& key) const { return parameters_[key]; }

  size_t size() const noexcept { return parameters_.size(); }
  bool empty() const noexcept { return parameters_.is_empty(); }
  Iterator begin() { return parameters_.begin(); }
  ConstIterator begin() const { return parameters_.begin(); }
  Iterator end() { return parameters_.end(); }
  ConstIterator end() const { return parameters_.end(); }
};
EMBER_MODULE(ParameterDict);

namespace utils {
// The parameters flattened and concatenated, in order, into one 1-D tensor (differentiable).
// All must be on one device: "Found two parameters on different devices, ..." otherwise.
Tensor parameters_to_vector(const std::vector<Tensor>& parameters);
// Points each parameter at its slice of `vec` (a view: the parameters then share vec's storage, as
// in PyTorch), in order. vec must be 1-D with at least as many elements as the parameters hold.
void vector_to_parameters(const Tensor& vec, const std::vector<Tensor>& parameters);
}  // namespace utils

}  // namespace ember::nn
