// Containers of modules: Sequential (a chain), ModuleList (indexed), ModuleDict (keyed), as libtorch's.
//
//   nn::Sequential mlp(nn::Linear(4, 16), nn::GELU(), nn::Linear(16, 4));
//   Tensor y = mlp(x);                                   // each module's forward, in order
//   nn::ModuleList blocks;
//   for (int i = 0; i < 3; ++i) blocks->push_back(nn::Linear(4, 4));
//   for (const auto& block : *blocks) ...;                // std::shared_ptr<nn::Module>
//   auto first = blocks->ptr<nn::LinearImpl>(0);          // typed access
//   nn::ModuleDict heads(nn::Module::NamedModules{{"q", nn::Linear(4, 4).ptr()}, {"k", nn::Linear(4, 4).ptr()}});
//
// Children are registered under their position ("0", "1", ...) or key, so parameter names read
// "blocks.0.weight". Sequential keeps, beside each module, a call of its Tensor -> Tensor forward, so
// only modules with such a forward can join it (a compile-time error otherwise).
#pragma once

#include <concepts>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "nn/module.h"

namespace ember::nn {

template <typename M>
concept TensorToTensorModule = std::derived_from<M, Module> && requires(M& m, const Tensor& x) {
  { m.forward(x) } -> std::convertible_to<Tensor>;
};

class SequentialImpl : public Module {
 public:
  SequentialImpl() : Module("Sequential") {}
  template <typename... Modules>
    requires(sizeof...(Modules) > 0)
  explicit SequentialImpl(Modules&&... modules) : Module("Sequential") {
    (push_back(std::forward<Modules>(modules)), ...);
  }

  template <TensorToTensorModule M>
  void push_back(std::shared_ptr<M> module) {
    push_back(std::to_string(size()), std::move(module));
  }
  template <TensorToTensorModule M>
  void push_back(std::string name, std::shared_ptr<M> module) {
    register_module(std::move(name), module);
    forwards_.push_back([module](const Tensor& x) { return module->forward(x); });
    modules_.push_back(std::move(module));
  }
  template <typename M>
  void push_back(const ModuleHolder<M>& holder) {
    push_back(holder.ptr());
  }
  template <typename M>
  void push_back(std::string name, const ModuleHolder<M>& holder) {
    push_back(std::move(name), holder.ptr());
  }

  // Runs the modules in order, each on the previous one's output.
  Tensor forward(const Tensor& input);

  size_t size() const noexcept { return modules_.size(); }
  bool is_empty() const noexcept { return modules_.empty(); }
  const std::shared_ptr<Module>& ptr(size_t index) const;
  std::shared_ptr<Module> operator[](size_t index) const { return ptr(index); }
  template <typename M>
  std::shared_ptr<M> ptr(size_t index) const {
    return checked_cast<M>(ptr(index), index);
  }
  using const_iterator = std::vector<std::shared_ptr<Module>>::const_iterator;
  const_iterator begin() const { return modules_.begin(); }
  const_iterator end() const { return modules_.end(); }

 private:
  template <typename M>
  static std::shared_ptr<M> checked_cast(const std::shared_ptr<Module>& module, size_t index) {
    auto typed = std::dynamic_pointer_cast<M>(module);
    EMBER_CHECK(typed != nullptr, "Sequential: module {} is a {}, not the type asked for", index, module->name());
    return typed;
  }
  std::vector<std::shared_ptr<Module>> modules_;
  std::vector<std::function<Tensor(const Tensor&)>> forwards_;
};
EMBER_MODULE(Sequential);

class ModuleListImpl : public Module {
 public:
  ModuleListImpl() : Module("ModuleList") {}
  template <typename... Modules>
    requires(sizeof...(Modules) > 0)
  explicit ModuleListImpl(Modules&&... modules) : Module("ModuleList") {
    (push_back(std::forward<Modules>(modules)), ...);
  }

  template <typename M>
  void push_back(std::shared_ptr<M> module) {
    modules_.push_back(register_module(std::to_string(size()), std::move(module)));
  }
  template <typename M>
  void push_back(const ModuleHolder<M>& holder) {
    push_back(holder.ptr());
  }
  // Appends every module of another list.
  void extend(const ModuleListImpl& other) {
    for (const auto& m : other) push_back(m);
  }

  size_t size() const noexcept { return modules_.size(); }
  bool is_empty() const noexcept { return modules_.empty(); }
  const std::shared_ptr<Module>& ptr(size_t index) const;
  std::shared_ptr<Module> operator[](size_t index) const { return ptr(index); }
  // The module at `index` as its own type (throws if it is another type).
  template <typename M>
  std::shared_ptr<M> ptr(size_t index) const {
    auto typed = std::dynamic_pointer_cast<M>(ptr(index));
    EMBER_CHECK(typed != nullptr, "ModuleList: module {} is a {}, not the type asked for", index, ptr(index)->name());
    return typed;
  }
  template <typename M>
  M& at(size_t index) const {
    return *ptr<M>(index);
  }
  using const_iterator = std::vector<std::shared_ptr<Module>>::const_iterator;
  const_iterator begin() const { return modules_.begin(); }
  const_iterator end() const { return modules_.end(); }

 private:
  std::vector<std::shared_ptr<Module>> modules_;
};
EMBER_MODULE(ModuleList);

class ModuleDictImpl : public Module {
 public:
  ModuleDictImpl() : Module("ModuleDict") {}
  explicit ModuleDictImpl(const NamedModules& modules);

  // Adds `module` under `key`, or replaces the module already there.
  template <typename M>
  std::shared_ptr<M> insert(const std::string& key, std::shared_ptr<M> module) {
    insert_module(key, module);
    return module;
  }
  template <typename M>
  std::shared_ptr<M> insert(const std::string& key, const ModuleHolder<M>& holder) {
    return insert(key, holder.ptr());
  }
  // Inserts (or replaces) every entry of `modules`, in order.
  void update(const NamedModules& modules);

  size_t size() const noexcept { return modules_.size(); }
  bool is_empty() const noexcept { return modules_.empty(); }
  bool contains(const std::string& key) const;
  std::vector<std::string> keys() const;
  std::vector<std::shared_ptr<Module>> values() const;
  const std::shared_ptr<Module>& ptr(const std::string& key) const;
  std::shared_ptr<Module> operator[](const std::string& key) const { return ptr(key); }
  template <typename M>
  std::shared_ptr<M> ptr(const std::string& key) const {
    auto typed = std::dynamic_pointer_cast<M>(ptr(key));
    EMBER_CHECK(typed != nullptr, "ModuleDict: module '{}' is a {}, not the type asked for", key, ptr(key)->name());
    return typed;
  }
  // (key, module) pairs in insertion order.
  using const_iterator = std::vector<std::pair<std::string, std::shared_ptr<Module>>>::const_iterator;
  const_iterator begin() const { return modules_.begin(); }
  const_iterator end() const { return modules_.end(); }

 private:
  void insert_module(const std::string& key, std::shared_ptr<Module> module);
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> modules_;
};
EMBER_MODULE(ModuleDict);

}  // namespace ember::nn
