// ModuleHolder: the shared handle every nn module is used through, as in libtorch.
//
//   nn::Linear lin(3, 2);          // builds a LinearImpl in a shared_ptr
//   lin->weight;                   // -> reaches the Impl
//   Tensor y = lin(x);             // operator() calls lin->forward(x)
//   nn::Linear later{nullptr};     // an empty holder, filled later by assignment
//
// Copying a holder copies the pointer, so copies share one module (and its parameters).
// EMBER_MODULE(Linear) declares `class Linear : public ModuleHolder<LinearImpl>`.
// A holder is not a Module itself; Module::register_module accepts holders and shared_ptrs alike.
#pragma once

#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>

#include "core/error.h"

namespace ember::nn {

template <typename Contained>
class ModuleHolder {
 public:
  using ContainedType = Contained;

  // Default-constructs the module when it has a default constructor (nn::Sequential seq;). Modules
  // that need arguments must be built with them or left empty with `= nullptr`.
  ModuleHolder() : impl_(default_construct()) {}
  ModuleHolder(std::nullptr_t) : impl_(nullptr) {}
  // Forwards the arguments to Contained's constructor: nn::Linear(3, 2), nn::Linear(LinearOptions(3, 2)).
  template <typename Head, typename... Tail>
  requires(!(std::is_base_of_v<ModuleHolder, std::decay_t<Head>> && sizeof...(Tail) == 0) &&
           !(std::is_same_v<std::decay_t<Head>, std::nullptr_t> && sizeof...(Tail) == 0) &&
           std::is_constructible_v<Contained, Head, Tail...>) explicit ModuleHolder(Head&& head, Tail&&... tail)
      : impl_(std::make_shared<Contained>(std::forward<Head>(head), std::forward<Tail>(tail)...)) {}
  // Wraps an existing module (shared, not copied).
  ModuleHolder(std::shared_ptr<Contained> module) : impl_(std::move(module)) {}

  explicit operator bool() const noexcept { return !is_empty(); }
  bool is_empty() const noexcept { return impl_ == nullptr; }

  Contained* operator->() { return get(); }
  const Contained* operator->() const { return get(); }
  Contained& operator*() { return *get(); }
  const Contained& operator*() const { return *get(); }
  const std::shared_ptr<Contained>& ptr() const {
    check_not_empty();
    return impl_;
  }
  Contained* get() {
    check_not_empty();
    return impl_.get();
  }
  const Contained* get() const {
    check_not_empty();
    return impl_.get();
  }

  // Calls the module's forward with the arguments: lin(x) == lin->forward(x). Like a shared_ptr, a
  // const holder still reaches a mutable module.
  template <typename... Args>
  decltype(auto) operator()(Args&&... args) const {
    check_not_empty();
    return impl_->forward(std::forward<Args>(args)...);
  }
  // Indexing for containers: seq[0], list[i], dict["key"].
  template <typename Arg>
  decltype(auto) operator[](Arg&& arg) const {
    check_not_empty();
    return (*impl_)[std::forward<Arg>(arg)];
  }

 protected:
  std::shared_ptr<Contained> impl_;

 private:
  static std::shared_ptr<Contained> default_construct() {
    if constexpr (std::is_default_constructible_v<Contained>) {
      return std::make_shared<Contained>();
    } else {
      static_assert(std::is_default_constructible_v<Contained>,
                    "this module has no default constructor: construct it with its arguments, or empty with "
                    "`= nullptr` (nn::Linear lin{nullptr};) and assign it later");
      return nullptr;
    }
  }
  void check_not_empty() const {
    EMBER_CHECK(impl_ != nullptr,
                "ModuleHolder: accessing an empty module holder (constructed with nullptr); "
                "assign a module to it first");
  }
};

}  // namespace ember::nn

// Declares the holder class `Name` for the module class `ImplType`.
#define EMBER_MODULE_IMPL(Name, ImplType)                    \
  class Name : public ::ember::nn::ModuleHolder<ImplType> {  \
   public:                                                   \
    using ::ember::nn::ModuleHolder<ImplType>::ModuleHolder; \
    using Impl = ImplType;                                   \
  }

// EMBER_MODULE(Linear) declares `Linear`, the holder of `LinearImpl` (as TORCH_MODULE).
#define EMBER_MODULE(Name) EMBER_MODULE_IMPL(Name, Name##Impl)
