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
//   for (const auto& p : net->named_parameters()) std::cout << p.key() << '\n';  // scale, fc1.weight, fc1.bias
//   std::cout << *net;                       // NetImpl( (fc1): Linear(in_features=4, out_features=8, bias=true) )
//
// A module keeps its parameters, buffers and submodules in registration order; the recursive
// listings walk the tree depth-first (a module's own entries before its children's) with dotted
// names, and list a tensor or module that is reachable twice only once, as PyTorch does.
// Named listings are OrderedDicts (nn/ordered_dict.h), as libtorch's: item.key(), item.value(),
// dict["fc1.weight"], or structured bindings.
#pragma once

#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "core/tensor.h"
#include "nn/ordered_dict.h"
#include "nn/pimpl.h"

namespace ember::serialize {
class OutputArchive;
class InputArchive;
}  // namespace ember::serialize

namespace ember::nn {

class Module;

namespace detail {
// Points `target`'s TensorImpl at `value`'s data (storage, shape, dtype), keeping target's autograd
// identity, so every handle to the tensor sees the new data (libtorch's set_data).
void set_data(const Tensor& target, const Tensor& value);
// A demangled type name as a libtorch program shows it: "ember::Tensor" -> "at::Tensor",
// "ember::nn::LinearImpl" -> "torch::nn::LinearImpl" (print style LibTorch), else unchanged.
std::string demangle(const std::type_info& type);

// The module class behind a holder (nn::Linear -> LinearImpl), or the class itself.
template <typename T, typename = void>
struct ContainedOf {
  using type = T;
};
template <typename T>
struct ContainedOf<T, std::void_t<typename T::ContainedType>> {
  using type = typename T::ContainedType;
};
}  // namespace detail

class Module : public std::enable_shared_from_this<Module> {
 public:
  using NamedTensors = OrderedDict<std::string, Tensor>;
  using NamedModules = OrderedDict<std::string, std::shared_ptr<Module>>;
  using ModuleApplyFunction = std::function<void(Module&)>;
  using ConstModuleApplyFunction = std::function<void(const Module&)>;
  using NamedModuleApplyFunction = std::function<void(const std::string&, Module&)>;
  using ConstNamedModuleApplyFunction = std::function<void(const std::string&, const Module&)>;
  using ModulePointerApplyFunction = std::function<void(const std::shared_ptr<Module>&)>;
  using NamedModulePointerApplyFunction = std::function<void(const std::string&, const std::shared_ptr<Module>&)>;

  // `name` is what name() and the default printout show; by default the demangled class name with
  // its namespace, as libtorch's ("test::MyModule", "NetImpl").
  explicit Module(std::string name);
  Module();
  virtual ~Module() = default;

  const std::string& name() const noexcept;

  // A deep copy: only modules deriving from nn::Cloneable<T> (nn/cloneable.h) can; the base throws.
  virtual std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const;

  // This module as the type asked for (a module class or its holder), or nullptr: libtorch's as<T>().
  template <typename ModuleType>
  auto* as() noexcept {
    return dynamic_cast<typename detail::ContainedOf<ModuleType>::type*>(this);
  }
  template <typename ModuleType>
  const auto* as() const noexcept {
    return dynamic_cast<const typename detail::ContainedOf<ModuleType>::type*>(this);
  }

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
  // Calls fn on this module and then on every descendant, depth-first (libtorch's order); the named
  // forms pass dotted names ("" for this module, or name_prefix). The shared_ptr forms need this
  // module owned by a shared_ptr.
  void apply(const ModuleApplyFunction& fn);
  void apply(const ConstModuleApplyFunction& fn) const;
  void apply(const NamedModuleApplyFunction& fn, const std::string& name_prefix = std::string());
  void apply(const ConstNamedModuleApplyFunction& fn, const std::string& name_prefix = std::string()) const;
  void apply(const ModulePointerApplyFunction& fn) const;
  void apply(const NamedModulePointerApplyFunction& fn, const std::string& name_prefix = std::string()) const;

  // ---- checkpoints in archives (nn/archive.h) ----
  // save writes parameters and buffers by dotted name, as state_dict lists them. load reads every
  // one of them (entries the module lacks are ignored), checking all names, shapes and dtypes before
  // copying in place, as nn::load_state_dict does.
  virtual void save(serialize::OutputArchive& archive) const;
  virtual void load(serialize::InputArchive& archive);

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
  // Removes the submodule `name` (libtorch: "No Module with name `x` is registered" when absent).
  void unregister_module(const std::string& name);
  template <typename ModuleType>
  std::shared_ptr<ModuleType> replace_module(const std::string& name, std::shared_ptr<ModuleType> module);
  template <typename ModuleType>
  std::shared_ptr<ModuleType> replace_module(const std::string& name, ModuleHolder<ModuleType> holder) {
    return replace_module(name, holder.ptr());
  }

  // Prints the module tree (this module's line, then "(name): child" lines, indented).
  void pretty_print_recursive(std::ostream& stream, const std::string& indentation) const;

  // Points each parameter and buffer of this module (recursively, by dotted name) at a copy of
  // `source`'s value: moved to `device` when given, else cloned. Both must have the same names.
  // clone() of the built-in modules is a fresh module of the same options plus this.
  void copy_state_from(const Module& source, const std::optional<Device>& device = std::nullopt);

 protected:
  // Makes this module (a child created by its parent's reset() during Cloneable::clone) a deep copy
  // of `other`. The base copies the tensors of other.clone(device) by name; Cloneable<T> replaces
  // the whole object, as libtorch does.
  virtual void clone_(Module& other, const std::optional<Device>& device);

  // This module's own parameters, in registration order (libtorch's protected member, which
  // containers such as ParameterList read and edit directly).
  NamedTensors parameters_{"Parameter"};

 private:
  template <typename Derived>
  friend class Cloneable;
  void register_child(std::string name, std::shared_ptr<Module> module);
  std::shared_ptr<Module>& child_slot(const std::string& name, const char* op);

  NamedTensors buffers_{"Buffer"};
  NamedModules children_{"Submodule"};
  mutable std::string name_;           // filled on first use from the dynamic type when not given
  mutable std::string libtorch_name_;  // a built-in module's name in a libtorch program
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

namespace detail {
// clone() of a built-in module: a new one built from the same options, holding copies of the values.
template <typename ModuleType>
std::shared_ptr<Module> clone_with_options(const ModuleType& self, const std::optional<Device>& device) {
  auto copy = std::make_shared<ModuleType>(self.options);
  copy->copy_state_from(self, device);
  copy->train(self.is_training());
  return copy;
}
}  // namespace detail

// Defines a built-in module's clone(), declared in its class, in the module's .cpp: written inline in
// the header, the ~70 built-in modules' clones were instantiated again in every file that includes
// <ember/ember.h> (a second of each test program's compile).
#define EMBER_CLONE_WITH_OPTIONS(Impl)                                             \
  std::shared_ptr<Module> Impl::clone(const std::optional<Device>& device) const { \
    return detail::clone_with_options(*this, device);                              \
  }

std::ostream& operator<<(std::ostream& stream, const Module& module);
std::ostream& operator<<(std::ostream& stream, const std::shared_ptr<Module>& module);

template <typename ModuleType>
std::ostream& operator<<(std::ostream& stream, const ModuleHolder<ModuleType>& holder) {
  return stream << static_cast<const Module&>(*holder);
}

}  // namespace ember::nn
