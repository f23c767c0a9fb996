// nn::Module: registration, recursive listings with dotted names, modes, device/dtype moves, printing.
#include "nn/module.h"

#include <cxxabi.h>

#include <cstdlib>
#include <ostream>
#include <typeinfo>
#include <unordered_set>

#include "autograd/grad_mode.h"

namespace ember::nn {

namespace {

// "ember::nn::LinearImpl" -> "Linear"; "(anonymous namespace)::NetImpl" -> "Net".
std::string class_name(const std::type_info& type) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(type.name(), nullptr, nullptr, &status);
  std::string full = status == 0 && demangled ? demangled : type.name();
  std::free(demangled);
  // Drop namespaces, but not the "::" inside template arguments.
  const size_t template_start = full.find('<');
  const size_t last_colon = full.rfind("::", template_start);
  std::string name = last_colon == std::string::npos ? full : full.substr(last_colon + 2);
  const std::string suffix = "Impl";
  if (name.size() > suffix.size() && name.ends_with(suffix)) name.resize(name.size() - suffix.size());
  return name;
}

void check_name(const std::string& name, const char* op, const char* what) {
  EMBER_CHECK(!name.empty(), "{}: {} name must not be empty", op, what);
  EMBER_CHECK(name.find('.') == std::string::npos, "{}: {} name must not contain a dot (got '{}')", op, what, name);
}

std::string join(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : prefix + "." + name;
}

// Points `t`'s TensorImpl at `value`'s data (storage, shape, dtype), keeping t's autograd identity:
// every handle to the tensor, and the optimizer holding it, sees the new data (libtorch's set_data).
void set_data(const Tensor& t, const Tensor& value) {
  if (t.is_same(value)) return;
  TensorImpl* impl = t.unsafeGetTensorImpl();
  TensorImpl* src = value.unsafeGetTensorImpl();
  impl->storage = src->storage;
  impl->sizes = src->sizes;
  impl->strides = src->strides;
  impl->offset = src->offset;
  impl->dtype = src->dtype;
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
  set_data(t, target(t));
  if (t.grad().defined()) set_data(t.grad(), target(t.grad()));
}

}  // namespace

Module::Module(std::string name) : name_(std::move(name)) {}
Module::Module() = default;

const std::string& Module::name() const {
  if (name_.empty()) name_ = class_name(typeid(*this));
  return name_;
}

// ---- registration ----

Tensor& Module::register_parameter(std::string name, Tensor tensor, bool requires_grad) {
  check_name(name, "register_parameter", "parameter");
  for (const auto& entry : parameters_)
    EMBER_CHECK(entry.first != name, "register_parameter: parameter '{}' is already defined in {}", name, this->name());
  if (tensor.defined()) {
    if (!tensor.is_leaf()) tensor = tensor.detach();
    tensor.requires_grad_(requires_grad);
  }
  parameters_.emplace_back(std::move(name), std::move(tensor));
  return parameters_.back().second;
}

Tensor& Module::register_buffer(std::string name, Tensor tensor) {
  check_name(name, "register_buffer", "buffer");
  for (const auto& entry : buffers_)
    EMBER_CHECK(entry.first != name, "register_buffer: buffer '{}' is already defined in {}", name, this->name());
  buffers_.emplace_back(std::move(name), std::move(tensor));
  return buffers_.back().second;
}

Tensor& Module::replace_parameter(const std::string& name, Tensor tensor) {
  for (auto& entry : parameters_) {
    if (entry.first != name) continue;
    EMBER_CHECK(!tensor.defined() || tensor.is_leaf(),
                "replace_parameter: the new value of '{}' must be a leaf tensor (a parameter), not a computed one", name);
    entry.second = std::move(tensor);
    return entry.second;
  }
  EMBER_FAIL("replace_parameter: {} has no parameter named '{}'", this->name(), name);
}

void Module::register_child(std::string name, std::shared_ptr<Module> module) {
  check_name(name, "register_module", "submodule");
  EMBER_CHECK(module != nullptr, "register_module: submodule '{}' is null (an empty holder?)", name);
  for (const auto& entry : children_)
    EMBER_CHECK(entry.first != name, "register_module: submodule '{}' is already defined in {}", name, this->name());
  children_.emplace_back(std::move(name), std::move(module));
}

std::shared_ptr<Module>& Module::child_slot(const std::string& name, const char* op) {
  for (auto& entry : children_)
    if (entry.first == name) return entry.second;
  EMBER_FAIL("{}: {} has no submodule named '{}'", op, this->name(), name);
}

// ---- listings ----

Module::NamedModules Module::named_modules(const std::string& name_prefix, bool include_self) const {
  NamedModules result;
  std::unordered_set<const Module*> seen{this};
  if (include_self) {
    auto self = std::const_pointer_cast<Module>(weak_from_this().lock());
    EMBER_CHECK(self != nullptr, "modules: this module is not owned by a shared_ptr, so it cannot list itself; "
                "call modules(/*include_self=*/false) or build it through its holder (nn::Linear, not LinearImpl)");
    result.emplace_back(name_prefix, std::move(self));
  }
  // Depth-first, parents before children; a module reachable twice is listed once.
  std::function<void(const Module&, const std::string&)> visit = [&](const Module& m, const std::string& prefix) {
    for (const auto& [name, child] : m.children_) {
      if (!seen.insert(child.get()).second) continue;
      const std::string full = join(prefix, name);
      result.emplace_back(full, child);
      visit(*child, full);
    }
  };
  visit(*this, name_prefix);
  return result;
}

std::vector<std::shared_ptr<Module>> Module::modules(bool include_self) const {
  std::vector<std::shared_ptr<Module>> result;
  for (auto& entry : named_modules("", include_self)) result.push_back(std::move(entry.second));
  return result;
}

Module::NamedModules Module::named_children() const { return children_; }

std::vector<std::shared_ptr<Module>> Module::children() const {
  std::vector<std::shared_ptr<Module>> result;
  for (const auto& entry : children_) result.push_back(entry.second);
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
      result.emplace_back(join(prefix, name), t);
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
  for (const auto& entry : named) result.push_back(entry.second);
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
  for (auto& entry : children_) entry.second->train(on);
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

void Module::apply(const std::function<void(Module&)>& fn) {
  for (auto& entry : children_) entry.second->apply(fn);
  fn(*this);
}

void Module::apply(const std::function<void(const std::string&, Module&)>& fn, const std::string& name_prefix) {
  for (auto& [name, child] : children_) child->apply(fn, join(name_prefix, name));
  fn(name_prefix, *this);
}

// ---- printing ----

void Module::pretty_print(std::ostream& stream) const { stream << name(); }

void Module::pretty_print_recursive(std::ostream& stream, const std::string& indentation) const {
  pretty_print(stream);
  if (children_.empty()) return;
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
