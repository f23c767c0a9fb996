// nn::Module: the base of every layer and model, as torch::nn::Module.
//
//   struct NetImpl : ember::nn::Module {
//     NetImpl() {
//       fc1 = register_module("fc1", ember::nn::Linear(4, 8));
//       scale = register_parameter("scale", ember::ones({8}));
//     }
//     ember::Tensor forward(const ember::Tensor& x) { return fc1(x).relu() * scale; }
//     ember::nn::Linear fc1{nullptr};
//     ember::Tensor scale;
//   };
//   EMBER_MODULE(Net);                       // Net: the shared handle (nn/pimpl.h)
//   Net net;
//   for (const auto& [name, p] : net->named_parameters()) std::cout << name << '\n';  // scale, fc1.weight, fc1.bias
//   std::cout << *net;                       // Net( (fc1): Linear(in_features=4, out_features=8, bias=true) )
//
// A module keeps its parameters, buffers and submodules in registration order; the recursive
// listings walk the tree depth-first (a module's own entries before its children's) with dotted
// names, and list a tensor or module that is reachable twice only once, as PyTorch does.
// Named listings are plain ordered vectors of (name, value) pairs.
#pragma once

#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/tensor.h"
#include "nn/pimpl.h"

namespace ember::nn {

class Module : public std::enable_shared_from_this<Module> {
 public:
  using NamedTensors = std::vector<std::pair<std::string, Tensor>>;
  using NamedModules = std::vector<std::pair<std::string, std::shared_ptr<Module>>>;

  // `name` is what name() and the printout show; by default the class name without namespace and
  // without a trailing "Impl" (LinearImpl -> "Linear").
  explicit Module(std::string name);
  Module();
  virtual ~Module() = default;

  const std::string& name() const;

  // ---- what the module holds ----
  std::vector<Tensor> parameters(bool recurse = true) const;
  NamedTensors named_parameters(bool recurse = true) const;
  std::vector<Tensor> buffers(bool recurse = true) const;
  NamedTensors named_buffers(bool recurse = true) const;
  std::vector<std::shared_ptr<Module>> children() const;
  NamedModules named_children() const;
  // This module (when include_self; it must then be owned by a shared_ptr) and every descendant.
  std::vector<std::shared_ptr<Module>> modules(bool include_self = true) const;
  NamedModules named_modules(const std::string& name_prefix = "", bool include_self = true) const;

  // ---- state ----
  // Sets training mode here and in every descendant (Dropout reads it).
  virtual void train(bool on = true);
  void eval() { train(false); }
  bool is_training() const noexcept { return is_training_; }
  // Clears every parameter's gradient: undefined when set_to_none, else filled with zeros.
  virtual void zero_grad(bool set_to_none = true);
  // Moves parameters and buffers (and their gradients) in place, so handles held elsewhere see the
  // change. A dtype applies only to floating-point tensors, as in PyTorch (a bool mask stays bool).
  virtual void to(Device device, ScalarType dtype, bool non_blocking = false);
  virtual void to(ScalarType dtype, bool non_blocking = false);
  virtual void to(Device device, bool non_blocking = false);
  // Calls fn on every descendant and then on this module (PyTorch's order: children first).
  void apply(const std::function<void(Module&)>& fn);
  void apply(const std::function<void(const std::string&, Module&)>& fn, const std::string& name_prefix = "");

  // ---- printing ----
  // One line describing this module alone: "Linear(in_features=3, out_features=2, bias=true)".
  // The default prints name(); operator<< adds the children, indented, beneath it.
  virtual void pretty_print(std::ostream& stream) const;

  // ---- registration ----
  // Registers a parameter and returns the stored handle. A tensor with history is detached first, so
  // a parameter is always a leaf; requires_grad is set as asked. An undefined tensor reserves the
  // name (Linear's bias=false) and is left out of parameters().
  Tensor& register_parameter(std::string name, Tensor tensor, bool requires_grad = true);
  // A buffer is state that is not trained (a causal mask, running statistics): not a parameter.
  Tensor& register_buffer(std::string name, Tensor tensor);
  template <typename ModuleType>
  std::shared_ptr<ModuleType> register_module(std::string name, std::shared_ptr<ModuleType> module);
  template <typename ModuleType>
  std::shared_ptr<ModuleType> register_module(std::string name, ModuleHolder<ModuleType> holder) {
    return register_module(std::move(name), holder.ptr());
  }
  // Swaps what an existing name refers to (weight tying: lm_head->weight =
  // lm_head->replace_parameter("weight", wte->weight)). Throws when the name is not registered.
  Tensor& replace_parameter(const std::string& name, Tensor tensor);
  template <typename ModuleType>
  std::shared_ptr<ModuleType> replace_module(const std::string& name, std::shared_ptr<ModuleType> module);
  template <typename ModuleType>
  std::shared_ptr<ModuleType> replace_module(const std::string& name, ModuleHolder<ModuleType> holder) {
    return replace_module(name, holder.ptr());
  }

  // Prints the module tree (this module's line, then "(name): child" lines, indented).
  void pretty_print_recursive(std::ostream& stream, const std::string& indentation) const;

 private:
  void register_child(std::string name, std::shared_ptr<Module> module);
  std::shared_ptr<Module>& child_slot(const std::string& name, const char* op);

  NamedTensors parameters_;
  NamedTensors buffers_;
  NamedModules children_;
  mutable std::string name_;  // filled on first use from the dynamic type when not given
  bool is_training_ = true;
};

template <typename ModuleType>
std::shared_ptr<ModuleType> Module::register_module(std::string name, std::shared_ptr<ModuleType> module) {
  static_assert(std::is_base_of_v<Module, ModuleType>, "register_module: the type must derive from nn::Module");
  register_child(std::move(name), module);
  return module;
}

template <typename ModuleType>
std::shared_ptr<ModuleType> Module::replace_module(const std::string& name, std::shared_ptr<ModuleType> module) {
  static_assert(std::is_base_of_v<Module, ModuleType>, "replace_module: the type must derive from nn::Module");
  EMBER_CHECK(module != nullptr, "replace_module: the module for '{}' is null", name);
  child_slot(name, "replace_module") = module;
  return module;
}

std::ostream& operator<<(std::ostream& stream, const Module& module);
std::ostream& operator<<(std::ostream& stream, const std::shared_ptr<Module>& module);

template <typename ModuleType>
std::ostream& operator<<(std::ostream& stream, const ModuleHolder<ModuleType>& holder) {
  return stream << static_cast<const Module&>(*holder);
}

}  // namespace ember::nn
