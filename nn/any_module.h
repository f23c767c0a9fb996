// AnyValue and AnyModule: type erasure over values and over modules, as libtorch's.
//
//   nn::AnyModule any(nn::Linear(3, 2));          // any module whose forward is not overloaded
//   Tensor y = any.forward(x);                     // forward<T>() returns T (Tensor by default)
//   nn::AnyValue v = any.any_forward(x);           // or keep the result erased
//   nn::LinearImpl& linear = any.get<nn::LinearImpl>();
//   std::shared_ptr<nn::Module> module = any.ptr();
//
// An AnyModule remembers its module's forward signature (deduced from &M::forward): arguments are
// checked at run time against it ("...'s forward() method expects 2 argument(s), but received 1.",
// "Expected argument #0 to be of type at::Tensor, but received value of type double"), with
// libtorch's messages. This is what lets Sequential hold user modules. A forward with default
// arguments declares them with EMBER_FORWARD_HAS_DEFAULT_ARGS (libtorch's FORWARD_HAS_DEFAULT_ARGS in
// <torch/torch.h>), and AnyModule fills in those not passed:
//
//   class MImpl : public nn::Module {
//    public:
//     Tensor forward(const Tensor& x, Tensor h = {});
//    protected:
//     EMBER_FORWARD_HAS_DEFAULT_ARGS({1, nn::AnyValue(Tensor())})  // (parameter index, default), ascending
//   };
//
// Not supported: an overloaded or templated forward, forward() returning void.
#pragma once

#include <any>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "core/error.h"
#include "nn/module.h"
#include "nn/pimpl.h"

namespace ember::nn {

// A value of any copyable type, with checked access.
class AnyValue {
 public:
  template <typename T, typename = std::enable_if_t<!std::is_same_v<std::decay_t<T>, AnyValue>>>
  explicit AnyValue(T&& value) : value_(std::forward<T>(value)) {}

  // A pointer to the value when it is a T, else nullptr.
  template <typename T>
  T* try_get() {
    return std::any_cast<T>(&value_);
  }
  template <typename T>
  const T* try_get() const {
    return std::any_cast<T>(&value_);
  }
  // The value as T; throws "Attempted to cast AnyValue to X, but its actual type is Y" otherwise.
  template <typename T>
  T get() const {
    if (const T* value = try_get<T>()) return *value;
    EMBER_FAIL("Attempted to cast AnyValue to {}, but its actual type is {}", detail::demangle(typeid(T)),
               detail::demangle(type_info()));
  }
  const std::type_info& type_info() const noexcept { return value_.type(); }

 private:
  std::any value_;
};

class AnyModule;

// The (index, value) pairs of a forward's trailing default arguments, ascending by index; the first
// index is the number of required arguments. Declared in the module's class body (any access section).
#define EMBER_FORWARD_HAS_DEFAULT_ARGS(...)                                                   \
  friend class ::ember::nn::AnyModule;                                                       \
  static std::vector<std::pair<unsigned, ::ember::nn::AnyValue>> _forward_default_args() { \
    return {__VA_ARGS__};                                                                    \
  }

class AnyModule {
 public:
  AnyModule() = default;
  template <typename M>
  explicit AnyModule(std::shared_ptr<M> module) : content_(make_holder(std::move(module), &M::forward)) {}
  template <typename M>
  explicit AnyModule(const ModuleHolder<M>& holder) : AnyModule(holder.ptr()) {}
  // A module by value is moved into a new shared_ptr: AnyModule(Add{}).
  template <typename M, typename = std::enable_if_t<std::is_base_of_v<Module, std::decay_t<M>>>>
  explicit AnyModule(M&& module) : AnyModule(std::make_shared<std::decay_t<M>>(std::forward<M>(module))) {}

  AnyModule(const AnyModule& other) : content_(other.content_ ? other.content_->copy() : nullptr) {}
  AnyModule& operator=(const AnyModule& other) {
    content_ = other.content_ ? other.content_->copy() : nullptr;
    return *this;
  }
  AnyModule(AnyModule&&) noexcept = default;
  AnyModule& operator=(AnyModule&&) noexcept = default;

  // Calls forward with the arguments (an AnyValue is passed on as the value it holds).
  template <typename... Args>
  AnyValue any_forward(Args&&... args) {
    EMBER_CHECK(!is_empty(), "Cannot call forward() on an empty AnyModule");
    std::vector<AnyValue> arguments;
    arguments.reserve(sizeof...(Args));
    (arguments.push_back(to_value(std::forward<Args>(args))), ...);
    return content_->forward(std::move(arguments));
  }
  template <typename Return = Tensor, typename... Args>
  Return forward(Args&&... args) {
    return any_forward(std::forward<Args>(args)...).template get<Return>();
  }

  // The module as its class (get<LinearImpl>() -> LinearImpl&) or as its holder (get<Linear>()).
  template <typename T>
  decltype(auto) get() const {
    if constexpr (requires { typename T::ContainedType; }) {
      return T(ptr<typename T::ContainedType>());
    } else {
      return static_cast<T&>(*ptr<T>());
    }
  }
  std::shared_ptr<Module> ptr() const {
    EMBER_CHECK(!is_empty(), "Cannot call ptr() on an empty AnyModule");
    return content_->module();
  }
  // The module as its exact class; "Attempted to cast module of type X to type Y" otherwise.
  template <typename T>
  std::shared_ptr<T> ptr() const {
    EMBER_CHECK(!is_empty(), "Cannot call ptr() on an empty AnyModule");
    EMBER_CHECK(typeid(T) == type_info(), "Attempted to cast module of type {} to type {}",
                detail::demangle(type_info()), detail::demangle(typeid(T)));
    return std::static_pointer_cast<T>(content_->module());
  }
  const std::type_info& type_info() const {
    EMBER_CHECK(!is_empty(), "Cannot call type_info() on an empty AnyModule");
    return content_->type;
  }
  bool is_empty() const noexcept { return content_ == nullptr; }
  // An AnyModule holding a deep copy (the module must derive from nn::Cloneable).
  AnyModule clone(const std::optional<Device>& device = std::nullopt) const {
    AnyModule copy;
    if (content_) copy.content_ = content_->clone(device);
    return copy;
  }

 private:
  struct Placeholder {
    explicit Placeholder(const std::type_info& type) : type(type) {}
    virtual ~Placeholder() = default;
    virtual AnyValue forward(std::vector<AnyValue>&& arguments) = 0;
    virtual std::shared_ptr<Module> module() const = 0;
    virtual std::unique_ptr<Placeholder> copy() const = 0;
    virtual std::unique_ptr<Placeholder> clone(const std::optional<Device>& device) const = 0;
    const std::type_info& type;
  };

  template <typename M, typename Return, typename... Parameters>
  struct Holder : Placeholder {
    explicit Holder(std::shared_ptr<M> module) : Placeholder(typeid(M)), module_(std::move(module)) {}

    AnyValue forward(std::vector<AnyValue>&& arguments) override {
      const std::string name = detail::demangle(type);
      if constexpr (requires { M::_forward_default_args(); }) {
        std::vector<std::pair<unsigned, AnyValue>> defaults = M::_forward_default_args();
        const size_t required = defaults.empty() ? sizeof...(Parameters) : defaults.front().first;
        EMBER_CHECK(arguments.size() >= required && arguments.size() <= sizeof...(Parameters),
                    "{}'s forward() method expects at least {} argument(s) and at most {} argument(s), but "
                    "received {}.",
                    name, required, sizeof...(Parameters), arguments.size());
        for (auto& [index, value] : defaults)
          if (index >= arguments.size()) arguments.push_back(std::move(value));
      }
      EMBER_CHECK(arguments.size() == sizeof...(Parameters), "{}'s forward() method expects {} argument(s), but received {}.{}",
                  name, sizeof...(Parameters), arguments.size(),
                  arguments.size() < sizeof...(Parameters)
                      ? " If " + name + "'s forward() method has default arguments, please make sure the forward() "
                                        "method is declared with a corresponding `FORWARD_HAS_DEFAULT_ARGS` macro."
                      : std::string());
      return call(arguments, std::index_sequence_for<Parameters...>{});
    }
    std::shared_ptr<Module> module() const override { return module_; }
    std::unique_ptr<Placeholder> copy() const override { return std::make_unique<Holder>(module_); }
    std::unique_ptr<Placeholder> clone(const std::optional<Device>& device) const override {
      auto copied = std::dynamic_pointer_cast<M>(module_->clone(device));
      EMBER_CHECK(copied != nullptr, "AnyModule::clone: the clone of {} has another type", detail::demangle(type));
      return std::make_unique<Holder>(std::move(copied));
    }

   private:
    template <size_t... I>
    AnyValue call(std::vector<AnyValue>& arguments, std::index_sequence<I...>) {
      (check_argument<std::decay_t<Parameters>>(arguments[I], I), ...);
      return AnyValue(module_->forward(std::move(*arguments[I].template try_get<std::decay_t<Parameters>>())...));
    }
    template <typename P>
    static void check_argument(const AnyValue& argument, size_t index) {
      EMBER_CHECK(argument.try_get<P>() != nullptr,
                  "Expected argument #{} to be of type {}, but received value of type {}", index,
                  detail::demangle(typeid(P)), detail::demangle(argument.type_info()));
    }
    std::shared_ptr<M> module_;
  };

  template <typename M, typename Return, typename Class, typename... Parameters>
  static std::unique_ptr<Placeholder> make_holder(std::shared_ptr<M> module, Return (Class::*)(Parameters...)) {
    static_assert(!std::is_void_v<Return>, "AnyModule: the module's forward() must return a value");
    EMBER_CHECK(module != nullptr, "AnyModule: the module is null (an empty holder?)");
    return std::make_unique<Holder<M, Return, Parameters...>>(std::move(module));
  }
  template <typename M, typename Return, typename Class, typename... Parameters>
  static std::unique_ptr<Placeholder> make_holder(std::shared_ptr<M> module, Return (Class::*)(Parameters...) const) {
    static_assert(!std::is_void_v<Return>, "AnyModule: the module's forward() must return a value");
    EMBER_CHECK(module != nullptr, "AnyModule: the module is null (an empty holder?)");
    return std::make_unique<Holder<M, Return, Parameters...>>(std::move(module));
  }

  template <typename A>
  static AnyValue to_value(A&& argument) {
    if constexpr (std::is_same_v<std::decay_t<A>, AnyValue>) {
      return std::forward<A>(argument);
    } else {
      return AnyValue(std::decay_t<A>(std::forward<A>(argument)));
    }
  }

  std::unique_ptr<Placeholder> content_;
};

}  // namespace ember::nn
