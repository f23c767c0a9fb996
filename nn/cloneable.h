// nn::Cloneable<T>: the base of a module that can be deep-copied with clone(), as libtorch's.
//
//   struct NetImpl : ember::nn::Cloneable<NetImpl> {
//     NetImpl() { reset(); }
//     void reset() override { fc = register_module("fc", ember::nn::Linear(2, 2)); }  // all registration here
//     ember::nn::Linear fc{nullptr};
//   };
//   auto copy = std::dynamic_pointer_cast<NetImpl>(net->clone());  // new parameters, same values
//
// clone() copy-constructs the module (so plain members are copied), clears what it registered,
// calls reset() to register fresh parameters, buffers and submodules, then copies the original's
// values into them and makes each submodule a clone of the original's. Registration must happen in
// reset(), not in the constructor; the counts are checked, with libtorch's messages.
#pragma once

#include <memory>
#include <optional>

#include "autograd/grad_mode.h"
#include "nn/module.h"

namespace ember::nn {

template <typename Derived>
class Cloneable : public Module {
 public:
  using Module::Module;

  // Registers the module's parameters, buffers and submodules (and initialises them).
  virtual void reset() = 0;

  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override {
    NoGradGuard no_grad;
    const auto& self = static_cast<const Derived&>(*this);
    auto copy = std::make_shared<Derived>(self);
    copy->parameters_.clear();
    copy->buffers_.clear();
    copy->children_.clear();
    copy->reset();
    EMBER_CHECK(
        copy->parameters_.size() == parameters_.size(),
        "The cloned module does not have the same number of parameters as the original module after "
        "calling reset(). Are you sure you called register_parameter() inside reset() and not the constructor?");
    for (const auto& item : parameters_) {
      if (item.value().defined()) detail::set_data(copy->parameters_[item.key()], copy_of(item.value(), device));
    }
    EMBER_CHECK(copy->buffers_.size() == buffers_.size(),
                "The cloned module does not have the same number of buffers as the original module after "
                "calling reset(). Are you sure you called register_buffer() inside reset() and not the constructor?");
    for (const auto& item : buffers_) {
      if (item.value().defined()) detail::set_data(copy->buffers_[item.key()], copy_of(item.value(), device));
    }
    EMBER_CHECK(copy->children_.size() == children_.size(),
                "The cloned module does not have the same number of child modules as the original module after "
                "calling reset(). Are you sure you called register_module() inside reset() and not the constructor?");
    for (const auto& item : children_) copy->children_[item.key()]->clone_(*item.value(), device);
    return copy;
  }

 private:
  static Tensor copy_of(const Tensor& value, const std::optional<Device>& device) {
    return device && value.device() != *device ? value.to(*device) : value.clone();
  }
  // The child slot built by the parent's reset() becomes a clone of `other`, in place, so the
  // parent's member handles (fc above) see it.
  void clone_(Module& other, const std::optional<Device>& device) final {
    auto clone = std::dynamic_pointer_cast<Derived>(other.clone(device));
    EMBER_CHECK(
        clone != nullptr,
        "Attempted to clone submodule, but it is of a different type than the submodule it was to be cloned into");
    static_cast<Derived&>(*this) = std::move(*clone);
  }
};

}  // namespace ember::nn
