// Containers of modules: Sequential (a chain), ModuleList (indexed), ModuleDict (keyed), and
// Functional (a function as a module), as libtorch's.
//
//   nn::Sequential mlp(nn::Linear(4, 16), nn::GELU(), MyBlock(16), nn::Linear(16, 4));   // any modules
//   nn::Sequential named({{"fc", nn::Linear(4, 4)}, {"act", nn::ReLU()}});
//   Tensor y = mlp(x);                                    // each module's forward, in order
//   auto block = mlp->ptr<MyBlockImpl>(2);                // typed access; at<T>(i) gives a reference
//   nn::ModuleList blocks;
//   for (int i = 0; i < 3; ++i) blocks->push_back(nn::Linear(4, 4));
//   std::vector<std::pair<std::string, std::shared_ptr<nn::Module>>> entries = {{"q", nn::Linear(4, 4).ptr()}};
//   nn::ModuleDict heads(entries);                        // or from an OrderedDict
//   nn::Functional act([](Tensor t) { return t.clamp(0, 6); });
//
// Children are registered under their position ("0", "1", ...) or key, so parameter names read
// "blocks.0.weight". Sequential keeps each module as an AnyModule (nn/any_module.h), so it holds user
// modules with any forward; its forward passes the first module's output to the next, and so on.
#pragma once

#include <functional>
#include <initializer_list>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "nn/any_module.h"
#include "nn/module.h"
#include "nn/ordered_dict.h"

namespace ember::nn {

// A {name, module} pair for Sequential's named constructor: {"fc", nn::Linear(2, 2)}.
class NamedAnyModule {
 public:
  template <typename M>
  NamedAnyModule(std::string name, std::shared_ptr<M> module) : name_(std::move(name)), module_(std::move(module)) {}
  template <typename M>
  NamedAnyModule(std::string name, const ModuleHolder<M>& holder) : name_(std::move(name)), module_(holder) {}
  template <typename M, typename = std::enable_if_t<std::is_base_of_v<Module, std::decay_t<M>>>>
  NamedAnyModule(std::string name, M&& module) : name_(std::move(name)), module_(std::forward<M>(module)) {}
  NamedAnyModule(std::string name, AnyModule module) : name_(std::move(name)), module_(std::move(module)) {}

  const std::string& name() const noexcept { return name_; }
  AnyModule& module() noexcept { return module_; }
  const AnyModule& module() const noexcept { return module_; }

 private:
  std::string name_;
  AnyModule module_;
};

class SequentialImpl : public Module {
 public:
  using Iterator = std::vector<AnyModule>::iterator;
  using ConstIterator = std::vector<AnyModule>::const_iterator;

  SequentialImpl() : Module("Sequential") {}
  template <typename... Modules>
  requires(sizeof...(Modules) > 0) explicit SequentialImpl(Modules&&... modules) : Module("Sequential") {
    modules_.reserve(sizeof...(Modules));
    (push_back(std::forward<Modules>(modules)), ...);
  }
  explicit SequentialImpl(OrderedDict<std::string, AnyModule>&& ordered_dict);
  explicit SequentialImpl(std::initializer_list<NamedAnyModule> named_modules);

  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;
  void pretty_print(std::ostream& stream) const override { stream << "Sequential"; }

  // Appends a module (holder, shared_ptr, module by value or AnyModule), optionally under a name.
  template <typename M>
  void push_back(M&& module) {
    push_back(std::to_string(modules_.size()), std::forward<M>(module));
  }
  template <typename M>
  void push_back(std::string name, M&& module) {
    if constexpr (std::is_same_v<std::decay_t<M>, AnyModule>) {
      push_back_any(std::move(name), std::forward<M>(module));
    } else {
      push_back_any(std::move(name), AnyModule(std::forward<M>(module)));
    }
  }
  // Appends every module of another Sequential or of a container of modules.
  void extend(const SequentialImpl& other) {
    for (const AnyModule& module : other.modules_) push_back(module);
  }
  template <typename Container>
  void extend(const Container& container) {
    for (const auto& module : container) push_back(module);
  }

  // Feeds the inputs to the first module and each output to the next; returns the last output as
  // Return ("The type of the return value is X, but you asked for type Y" otherwise).
  template <typename Return = Tensor, typename... Inputs>
  Return forward(Inputs&&... inputs) {
    EMBER_CHECK(!is_empty(), "Cannot call forward() on an empty Sequential");
    auto iterator = modules_.begin();
    AnyValue value = iterator->any_forward(std::forward<Inputs>(inputs)...);
    for (++iterator; iterator != modules_.end(); ++iterator) value = iterator->any_forward(std::move(value));
    if (const Return* result = value.template try_get<Return>()) return *result;
    EMBER_FAIL("The type of the return value is {}, but you asked for type {}", detail::demangle(value.type_info()),
               detail::demangle(typeid(Return)));
  }

  size_t size() const noexcept { return modules_.size(); }
  bool is_empty() const noexcept { return modules_.empty(); }
  std::shared_ptr<Module> ptr(size_t index) const;
  std::shared_ptr<Module> operator[](size_t index) const { return ptr(index); }
  // The module at `index` as its class; "Attempted to cast module of type X to type Y" otherwise.
  template <typename T>
  std::shared_ptr<T> ptr(size_t index) const {
    check_index(index);
    return modules_[index].ptr<T>();
  }
  template <typename T>
  T& at(size_t index) const {
    return *ptr<T>(index);
  }
  Iterator begin() { return modules_.begin(); }
  ConstIterator begin() const { return modules_.begin(); }
  Iterator end() { return modules_.end(); }
  ConstIterator end() const { return modules_.end(); }

 private:
  void push_back_any(std::string name, AnyModule module);
  void check_index(size_t index) const;
  std::vector<AnyModule> modules_;
};
// The holder, with the named constructor: nn::Sequential seq({{"fc", nn::Linear(2, 2)}, {"act", nn::ReLU()}}).
class Sequential : public ModuleHolder<SequentialImpl> {
 public:
  using ModuleHolder<SequentialImpl>::ModuleHolder;
  using Impl = SequentialImpl;
  Sequential() : ModuleHolder() {}
  Sequential(std::initializer_list<NamedAnyModule> named_modules)
      : ModuleHolder(std::make_shared<SequentialImpl>(named_modules)) {}
};

class ModuleListImpl : public Module {
 public:
  using Iterator = std::vector<std::shared_ptr<Module>>::iterator;
  using ConstIterator = std::vector<std::shared_ptr<Module>>::const_iterator;

  ModuleListImpl() : Module("ModuleList") {}
  template <typename... Modules>
  requires(sizeof...(Modules) > 0) explicit ModuleListImpl(Modules&&... modules) : Module("ModuleList") {
    modules_.reserve(sizeof...(Modules));
    (push_back(std::forward<Modules>(modules)), ...);
  }

  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;
  void pretty_print(std::ostream& stream) const override { stream << "ModuleList"; }

  template <typename M>
  void push_back(std::shared_ptr<M> module) {
    modules_.push_back(register_module(std::to_string(size()), std::move(module)));
  }
  template <typename M>
  void push_back(const ModuleHolder<M>& holder) {
    push_back(holder.ptr());
  }
  template <typename M, typename = std::enable_if_t<std::is_base_of_v<Module, std::decay_t<M>>>>
  void push_back(M&& module) {
    push_back(std::make_shared<std::decay_t<M>>(std::forward<M>(module)));
  }
  // Appends every module of another list (or any container of modules).
  template <typename Container>
  void extend(const Container& container) {
    for (const auto& module : container) push_back(module);
  }

  size_t size() const noexcept { return modules_.size(); }
  bool is_empty() const noexcept { return modules_.empty(); }
  std::shared_ptr<Module> ptr(size_t index) const;
  std::shared_ptr<Module> operator[](size_t index) const { return ptr(index); }
  // The module at `index` as T, or nullptr when it is another type (libtorch's ptr<T>).
  template <typename T>
  std::shared_ptr<T> ptr(size_t index) const {
    return std::dynamic_pointer_cast<T>(ptr(index));
  }
  // The module at `index` as T; "Unable to cast module[i] to T" when it is another type.
  template <typename T>
  T& at(size_t index) const {
    T* typed = dynamic_cast<T*>(ptr(index).get());
    EMBER_CHECK(typed != nullptr, "Unable to cast module[{}] to {}: it is a {}", index, detail::demangle(typeid(T)),
                modules_[index]->name());
    return *typed;
  }
  Iterator begin() { return modules_.begin(); }
  ConstIterator begin() const { return modules_.begin(); }
  Iterator end() { return modules_.end(); }
  ConstIterator end() const { return modules_.end(); }

 private:
  std::vector<std::shared_ptr<Module>> modules_;
};
EMBER_MODULE(ModuleList);

class ModuleDictImpl : public Module {
 public:
  using Iterator = OrderedDict<std::string, std::shared_ptr<Module>>::Iterator;
  using ConstIterator = OrderedDict<std::string, std::shared_ptr<Module>>::ConstIterator;

  ModuleDictImpl() : Module("ModuleDict") {}
  explicit ModuleDictImpl(const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& modules);
  explicit ModuleDictImpl(const OrderedDict<std::string, std::shared_ptr<Module>>& modules);

  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;
  void pretty_print(std::ostream& stream) const override { stream << "ModuleDict"; }

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
  // Inserts (or replaces) every entry, in order: pairs, an OrderedDict or another ModuleDict.
  void update(const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& modules);
  template <typename Container>
  void update(const Container& container) {
    for (const auto& item : container) insert_module(item.key(), item.value());
  }
  // Removes the entry and returns its module (the registration stays, as in libtorch and PyTorch).
  std::shared_ptr<Module> pop(const std::string& key);
  void clear() { modules_.clear(); }

  size_t size() const noexcept { return modules_.size(); }
  bool is_empty() const noexcept { return modules_.is_empty(); }
  bool empty() const noexcept { return modules_.is_empty(); }
  bool contains(const std::string& key) const { return modules_.contains(key); }
  std::vector<std::string> keys() const { return modules_.keys(); }
  std::vector<std::shared_ptr<Module>> values() const { return modules_.values(); }
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> items() const { return modules_.pairs(); }
  std::shared_ptr<Module> ptr(const std::string& key) const { return modules_[key]; }
  std::shared_ptr<Module> operator[](const std::string& key) const { return modules_[key]; }
  // The module under `key` as T, or nullptr when it is another type.
  template <typename T>
  std::shared_ptr<T> ptr(const std::string& key) const {
    return std::dynamic_pointer_cast<T>(modules_[key]);
  }
  // The module under `key` as T; "Unable to cast module['k'] to T" when it is another type.
  template <typename T>
  T& at(const std::string& key) const {
    T* typed = dynamic_cast<T*>(modules_[key].get());
    EMBER_CHECK(typed != nullptr, "Unable to cast module['{}'] to {}: it is a {}", key, detail::demangle(typeid(T)),
                modules_[key]->name());
    return *typed;
  }
  Iterator begin() { return modules_.begin(); }
  ConstIterator begin() const { return modules_.begin(); }
  Iterator end() { return modules_.end(); }
  ConstIterator end() const { return modules_.end(); }

 private:
  void insert_module(const std::string& key, std::shared_ptr<Module> module);
  OrderedDict<std::string, std::shared_ptr<Module>> modules_;
};
EMBER_MODULE(ModuleDict);

// A function Tensor -> Tensor as a module (no parameters): nn::Functional(torch::relu),
// nn::Functional(fn, extra_args...) binds the arguments after the input.
class FunctionalImpl : public Module {
 public:
  using Function = std::function<Tensor(Tensor)>;

  explicit FunctionalImpl(Function function);
  template <typename SomeFunction, typename... Args>
  requires(sizeof...(Args) > 0) explicit FunctionalImpl(SomeFunction original_function, Args&&... args)
      : FunctionalImpl(Function(std::bind(original_function, std::placeholders::_1, std::forward<Args>(args)...))) {}

  Tensor forward(Tensor input);
  Tensor operator()(Tensor input) { return forward(std::move(input)); }
  void pretty_print(std::ostream& stream) const override;
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;

 private:
  Function function_;
};
EMBER_MODULE(Functional);

}  // namespace ember::nn
