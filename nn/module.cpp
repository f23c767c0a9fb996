// nn::Module: registration, recursive listings with dotted names, modes, device/dtype moves, printing.
#include "nn/module.h"

#include <cxxabi.h>

#include <cstdlib>
#include <ostream>
#include <typeinfo>
#include <unordered_set>

#include "autograd/grad_mode.h"
#include "core/print.h"

namespace ember::nn {

namespace {

// The demangled type name, namespaces kept: "test::MyModule", "(anonymous namespace)::NetImpl".
// In a libtorch program (print style LibTorch) Ember's own modules answer with libtorch's namespace:
// "torch::nn::LinearImpl".
std::string class_name(const std::type_info& type) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(type.name(), nullptr, nullptr, &status);
  std::string full = status == 0 && demangled ? demangled : type.name();
  std::free(demangled);
  const std::string ember_nn = "ember::nn::";
  if (get_print_style() == PrintStyle::LibTorch && full.starts_with(ember_nn))
    full = "torch::nn::" + full.substr(ember_nn.size());
  return full;
}

// Ember's built-in modules print as "Linear(...)", and as libtorch's "torch::nn::Linear(...)" in a
// libtorch program; user modules print their name() either way.
bool is_builtin(const Module& module) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(typeid(module).name(), nullptr, nullptr, &status);
  const bool builtin = status == 0 && demangled && std::string(demangled).starts_with("ember::nn::");
  std::free(demangled);
  return builtin;
}

// libtorch's messages: "Parameter name must not be empty", "Submodule name must not contain a dot (got 'a.b')".
void check_name(const std::string& name, const char* what) {
  EMBER_CHECK(!name.empty(), "{} name must not be empty", what);
  EMBER_CHECK(name.find('.') == std::string::npos, "{} name must not contain a dot (got '{}')", what, name);
}

std::string join(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : prefix + "." + name;
}

// Converts a parameter or buffer (and its gradient) in place.
void convert(const Tensor& t, const std::optional<Device>& device, const std::optional<ScalarType>& dtype) {
  if (!t.defined()) return;
  auto target = [&](const Tensor& x) {
    TensorOptions options = x.options();
    if (device) options = options.device(*device);
    if (dtype && x.is_floating_point()) options = options.dtype(*dtype);
    return x.to(options);
  };
  NoGradGuard no_grad;
  detail::set_data(t, target(t));
  if (t.grad().defined()) detail::set_data(t.grad(), target(t.grad()));
}

}  // namespace

namespace detail {

void set_data(const Tensor& target, const Tensor& value) {
  if (target.is_same(value)) return;
  TensorImpl* impl = target.unsafeGetTensorImpl();
  TensorImpl* src = value.unsafeGetTensorImpl();
  impl->storage = src->storage;
  impl->sizes = src->sizes;
  impl->strides = src->strides;
  impl->offset = src->offset;
  impl->dtype = src->dtype;
}

std::string demangle(const std::type_info& type) {
  std::string name = class_name(type);
  if (get_print_style() != PrintStyle::LibTorch) return name;
  const std::string tensor = "ember::Tensor";
  for (size_t at = name.find(tensor); at != std::string::npos; at = name.find(tensor, at))
    name.replace(at, tensor.size(), "at::Tensor");
  return name;
}

}  // namespace detail

Module::Module(std::string name) : name_(std::move(name)) {}
Module::Module() = default;

const std::string& Module::name() const noexcept {
  // A libtorch program sees libtorch's names for Ember's modules too: "torch::nn::SequentialImpl".
  if (get_print_style() == PrintStyle::LibTorch && is_builtin(*this)) {
    if (libtorch_name_.empty()) libtorch_name_ = class_name(typeid(*this));
    return libtorch_name_;
  }
  if (name_.empty()) name_ = class_name(typeid(*this));
  return name_;
}

std::shared_ptr<Module> Module::clone(const std::optional<Device>&) const {
  EMBER_FAIL(
      "clone() has not been implemented for {}. Subclass torch::nn::Cloneable<{}> instead of "
      "torch::nn::Module to inherit the ability to clone.",
      name(), name());
}

void Module::copy_state_from(const Module& source, const std::optional<Device>& device) {
  NoGradGuard no_grad;
  auto copy_all = [&](NamedTensors targets, const NamedTensors& sources, const char* what) {
    EMBER_CHECK(targets.size() == sources.size(), "copy_state_from: {} has {} {}s, the source {} has {}", name(),
                targets.size(), what, source.name(), sources.size());
    for (const auto& item : sources) {
      const Tensor& value = item.value();
      detail::set_data(targets[item.key()], device && value.device() != *device ? value.to(*device) : value.clone());
    }
  };
  copy_all(named_parameters(), source.named_parameters(), "parameter");
  copy_all(named_buffers(), source.named_buffers(), "buffer");
}

void Module::clone_(Module& other, const std::optional<Device>& device) {
  std::shared_ptr<Module> copy = other.clone(device);
  copy_state_from(*copy, device);
  train(other.is_training());
}

// ---- registration ----

Tensor& Module::register_parameter(std::string name, Tensor tensor, bool requires_grad) {
  check_name(name, "Parameter");
  if (tensor.defined()) {
    if (!tensor.is_leaf()) tensor = tensor.detach();
    tensor.requires_grad_(requires_grad);
  }
  return parameters_.insert(std::move(name), std::move(tensor));
}

Tensor& Module::register_buffer(std::string name, Tensor tensor) {
  check_name(name, "Buffer");
  return buffers_.insert(std::move(name), std::move(tensor));
}

Tensor& Module::replace_parameter(const std::string& name, Tensor tensor) {
  Tensor* slot = parameters_.find(name);
  EMBER_CHECK(slot != nullptr, "replace_parameter: {} has no parameter named '{}'", this->name(), name);
  EMBER_CHECK(!tensor.defined() || tensor.is_leaf(),
              "replace_parameter: the new value of '{}' must be a leaf tensor (a parameter), not a computed one", name);
  *slot = std::move(tensor);
  return *slot;
}

void Module::register_child(std::string name, std::shared_ptr<Module> module) {
  check_name(name, "Submodule");
  EMBER_CHECK(module != nullptr, "register_module: submodule '{}' is null (an empty holder?)", name);
  children_.insert(std::move(name), std::move(module));
}

void Module::unregister_module(const std::string& name) {
  EMBER_CHECK(children_.contains(name), "No Module with name `{}` is registered", name);
  children_.erase(name);
}

std::shared_ptr<Module>& Module::child_slot(const std::string& name, const char* op) {
  std::shared_ptr<Module>* slot = children_.find(name);
  EMBER_CHECK(slot != nullptr, "{}: {} has no submodule named '{}'", op, this->name(), name);
  return *slot;
}

// ---- listings ----

Module::NamedModules Module::named_modules(const std::string& name_prefix, bool include_self) const {
  NamedModules result;
  std::unordered_set<const Module*> seen{this};
  if (include_self) {
    auto self = std::const_pointer_cast<Module>(weak_from_this().lock());
    EMBER_CHECK(self != nullptr,
                "modules: this module is not owned by a shared_ptr, so it cannot list itself; "
                "call modules(/*include_self=*/false) or build it through its holder (nn::Linear, not LinearImpl)");
    result.insert(name_prefix, std::move(self));
  }
  // Depth-first, parents before children; a module reachable twice is listed once.
  std::function<void(const Module&, const std::string&)> visit = [&](const Module& m, const std::string& prefix) {
    for (const auto& [name, child] : m.children_) {
      if (!seen.insert(child.get()).second) continue;
      const std::string full = join(prefix, name);
      result.insert(full, child);
      visit(*child, full);
    }
  };
  visit(*this, name_prefix);
  return result;
}

std::vector<std::shared_ptr<Module>> Module::modules(bool include_self) const {
  std::vector<std::shared_ptr<Module>> result;
  for (auto& entry : named_modules("", include_self)) result.push_back(std::move(entry.value()));
  return result;
}

Module::NamedModules Module::named_children() const { return children_; }

std::vector<std::shared_ptr<Module>> Module::children() const {
  std::vector<std::shared_ptr<Module>> result;
  for (const auto& entry : children_) result.push_back(entry.value());
  return result;
}

namespace {
// Own tensors of `self` (and of every descendant when recurse), dotted names, each tensor once.
template <typename Own>
Module::NamedTensors collect(const Module& self, const Module::NamedModules& descendants, bool recurse, Own own) {
  Module::NamedTensors result;
  std::unordered_set<const TensorImpl*> seen;
  auto add = [&](const Module& m, const std::string& prefix) {
    for (const auto& [name, t] : own(m)) {
      if (!t.defined() || !seen.insert(t.unsafeGetTensorImpl()).second) continue;
      result.insert(join(prefix, name), t);
    }
  };
  add(self, "");
  if (recurse)
    for (const auto& [prefix, m] : descendants) add(*m, prefix);
  return result;
}

std::vector<Tensor> values(const Module::NamedTensors& named) {
  std::vector<Tensor> result;
  result.reserve(named.size());
  for (const auto& entry : named) result.push_back(entry.value());
  return result;
}
}  // namespace

Module::NamedTensors Module::named_parameters(bool recurse) const {
  return collect(*this, recurse ? named_modules("", false) : NamedModules{}, recurse,
                 [](const Module& m) -> const NamedTensors& { return m.parameters_; });
}

Module::NamedTensors Module::named_buffers(bool recurse) const {
  return collect(*this, recurse ? named_modules("", false) : NamedModules{}, recurse,
                 [](const Module& m) -> const NamedTensors& { return m.buffers_; });
}

std::vector<Tensor> Module::parameters(bool recurse) const { return values(named_parameters(recurse)); }
std::vector<Tensor> Module::buffers(bool recurse) const { return values(named_buffers(recurse)); }

// ---- state ----

void Module::train(bool on) {
  for (auto& entry : children_) entry.value()->train(on);
  is_training_ = on;
}

void Module::zero_grad(bool set_to_none) {
  for (Tensor& p : parameters()) {
    if (!p.grad().defined()) continue;
    if (set_to_none) {
      p.set_grad(Tensor());
    } else {
      NoGradGuard no_grad;
      p.mutable_grad() = p.grad().detach();
      p.mutable_grad().zero_();
    }
  }
}

void Module::to(Device device, ScalarType dtype, bool) {
  for (const Tensor& t : parameters()) convert(t, device, dtype);
  for (const Tensor& t : buffers()) convert(t, device, dtype);
}
void Module::to(ScalarType dtype, bool) {
  for (const Tensor& t : parameters()) convert(t, std::nullopt, dtype);
  for (const Tensor& t : buffers()) convert(t, std::nullopt, dtype);
}
void Module::to(Device device, bool) {
  for (const Tensor& t : parameters()) convert(t, device, std::nullopt);
  for (const Tensor& t : buffers()) convert(t, device, std::nullopt);
}

// libtorch's order: this module first, then each child's subtree in registration order.
void Module::apply(const ModuleApplyFunction& fn) {
  fn(*this);
  for (auto& entry : children_) entry.value()->apply(fn);
}

void Module::apply(const ConstModuleApplyFunction& fn) const {
  fn(*this);
  for (const auto& entry : children_) static_cast<const Module&>(*entry.value()).apply(fn);
}

void Module::apply(const NamedModuleApplyFunction& fn, const std::string& name_prefix) {
  fn(name_prefix, *this);
  for (auto& entry : children_) entry.value()->apply(fn, join(name_prefix, entry.key()));
}

void Module::apply(const ConstNamedModuleApplyFunction& fn, const std::string& name_prefix) const {
  fn(name_prefix, *this);
  for (const auto& entry : children_)
    static_cast<const Module&>(*entry.value()).apply(fn, join(name_prefix, entry.key()));
}

void Module::apply(const ModulePointerApplyFunction& fn) const {
  for (const auto& entry : named_modules()) fn(entry.value());
}

void Module::apply(const NamedModulePointerApplyFunction& fn, const std::string& name_prefix) const {
  for (const auto& entry : named_modules(name_prefix)) fn(entry.key(), entry.value());
}

// ---- printing ----

void Module::pretty_print(std::ostream& stream) const { stream << name(); }

void Module::pretty_print_recursive(std::ostream& stream, const std::string& indentation) const {
  if (get_print_style() == PrintStyle::LibTorch && is_builtin(*this)) stream << "torch::nn::";
  pretty_print(stream);
  if (children_.is_empty()) return;
  stream << "(\n";
  const std::string inner = indentation + "  ";
  for (const auto& [name, child] : children_) {
    stream << inner << "(" << name << "): ";
    child->pretty_print_recursive(stream, inner);
    stream << "\n";
  }
  stream << indentation << ")";
}

std::ostream& operator<<(std::ostream& stream, const Module& module) {
  module.pretty_print_recursive(stream, "");
  return stream;
}

std::ostream& operator<<(std::ostream& stream, const std::shared_ptr<Module>& module) {
  EMBER_CHECK(module != nullptr, "operator<<: cannot print a null module");
  return stream << *module;
}

}  // namespace ember::nn
