// Sequential, ModuleList, ModuleDict, Functional: the non-template parts (registration, checked
// lookups, clone).
#include "nn/container.h"

#include <ostream>

namespace ember::nn {

// ---- Sequential ----

SequentialImpl::SequentialImpl(OrderedDict<std::string, AnyModule>&& ordered_dict) : Module("Sequential") {
  modules_.reserve(ordered_dict.size());
  for (auto& item : ordered_dict) push_back_any(item.key(), std::move(item.value()));
}

SequentialImpl::SequentialImpl(std::initializer_list<NamedAnyModule> named_modules) : Module("Sequential") {
  modules_.reserve(named_modules.size());
  for (const NamedAnyModule& named : named_modules) push_back_any(named.name(), named.module());
}

void SequentialImpl::push_back_any(std::string name, AnyModule module) {
  EMBER_CHECK(!module.is_empty(), "Sequential: cannot add an empty AnyModule (under '{}')", name);
  register_module(std::move(name), module.ptr());
  modules_.push_back(std::move(module));
}

void SequentialImpl::check_index(size_t index) const {
  EMBER_CHECK(index < modules_.size(), "Index out of range: index {} of a Sequential of {} modules", index,
              modules_.size());
}

std::shared_ptr<Module> SequentialImpl::ptr(size_t index) const {
  check_index(index);
  return modules_[index].ptr();
}

// A new Sequential of the modules' clones, under the same names.
std::shared_ptr<Module> SequentialImpl::clone(const std::optional<Device>& device) const {
  auto copy = std::make_shared<SequentialImpl>();
  const auto children = named_children();
  for (size_t i = 0; i < modules_.size(); ++i) copy->push_back_any(children[i].key(), modules_[i].clone(device));
  return copy;
}

// ---- ModuleList ----

std::shared_ptr<Module> ModuleListImpl::ptr(size_t index) const {
  EMBER_CHECK(index < modules_.size(), "Index out of range: index {} of a ModuleList of {} modules", index,
              modules_.size());
  return modules_[index];
}

std::shared_ptr<Module> ModuleListImpl::clone(const std::optional<Device>& device) const {
  auto copy = std::make_shared<ModuleListImpl>();
  for (const auto& module : modules_) copy->push_back(module->clone(device));
  return copy;
}

// ---- ModuleDict ----

ModuleDictImpl::ModuleDictImpl(const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& modules)
    : Module("ModuleDict") {
  update(modules);
}

ModuleDictImpl::ModuleDictImpl(const OrderedDict<std::string, std::shared_ptr<Module>>& modules)
    : Module("ModuleDict") {
  update(modules);
}

void ModuleDictImpl::update(const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& modules) {
  for (const auto& [key, module] : modules) insert_module(key, module);
}

void ModuleDictImpl::insert_module(const std::string& key, std::shared_ptr<Module> module) {
  if (std::shared_ptr<Module>* existing = modules_.find(key)) {
    replace_module(key, module);
    *existing = std::move(module);
    return;
  }
  register_module(key, module);
  modules_.insert(key, std::move(module));
}

std::shared_ptr<Module> ModuleDictImpl::pop(const std::string& key) {
  std::shared_ptr<Module> module = modules_[key];
  modules_.erase(key);
  return module;
}

std::shared_ptr<Module> ModuleDictImpl::clone(const std::optional<Device>& device) const {
  auto copy = std::make_shared<ModuleDictImpl>();
  for (const auto& item : modules_) copy->insert_module(item.key(), item.value()->clone(device));
  return copy;
}

// ---- Functional ----

FunctionalImpl::FunctionalImpl(Function function) : Module("Functional"), function_(std::move(function)) {
  EMBER_CHECK(function_ != nullptr, "Functional: the function is empty");
}

Tensor FunctionalImpl::forward(Tensor input) { return function_(std::move(input)); }

void FunctionalImpl::pretty_print(std::ostream& stream) const { stream << "Functional()"; }

std::shared_ptr<Module> FunctionalImpl::clone(const std::optional<Device>&) const {
  return std::make_shared<FunctionalImpl>(function_);
}

}  // namespace ember::nn
