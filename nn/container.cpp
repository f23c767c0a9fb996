// Sequential, ModuleList, ModuleDict: the non-template parts (forward chaining, checked lookups).
#include "nn/container.h"

namespace ember::nn {

Tensor SequentialImpl::forward(const Tensor& input) {
  EMBER_CHECK(!forwards_.empty(), "Sequential: forward called on an empty Sequential");
  Tensor x = input;
  for (const auto& forward : forwards_) x = forward(x);
  return x;
}

const std::shared_ptr<Module>& SequentialImpl::ptr(size_t index) const {
  EMBER_CHECK(index < modules_.size(), "Sequential: index {} is out of range (size {})", index, modules_.size());
  return modules_[index];
}

const std::shared_ptr<Module>& ModuleListImpl::ptr(size_t index) const {
  EMBER_CHECK(index < modules_.size(), "ModuleList: index {} is out of range (size {})", index, modules_.size());
  return modules_[index];
}

ModuleDictImpl::ModuleDictImpl(const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& modules)
    : Module("ModuleDict") {
  update(modules);
}

void ModuleDictImpl::update(const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& modules) {
  for (const auto& [key, module] : modules) insert_module(key, module);
}

void ModuleDictImpl::insert_module(const std::string& key, std::shared_ptr<Module> module) {
  for (auto& entry : modules_) {
    if (entry.first != key) continue;
    replace_module(key, module);
    entry.second = std::move(module);
    return;
  }
  register_module(key, module);
  modules_.emplace_back(key, std::move(module));
}

bool ModuleDictImpl::contains(const std::string& key) const {
  for (const auto& entry : modules_)
    if (entry.first == key) return true;
  return false;
}

std::vector<std::string> ModuleDictImpl::keys() const {
  std::vector<std::string> result;
  for (const auto& entry : modules_) result.push_back(entry.first);
  return result;
}

std::vector<std::shared_ptr<Module>> ModuleDictImpl::values() const {
  std::vector<std::shared_ptr<Module>> result;
  for (const auto& entry : modules_) result.push_back(entry.second);
  return result;
}

const std::shared_ptr<Module>& ModuleDictImpl::ptr(const std::string& key) const {
  for (const auto& entry : modules_)
    if (entry.first == key) return entry.second;
  EMBER_FAIL("ModuleDict: no module under key '{}'", key);
}

}  // namespace ember::nn
