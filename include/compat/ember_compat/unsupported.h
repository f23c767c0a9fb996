// <torch/torch.h>, part 5: what Ember does not support, named at compile time: using it stops
// the build with a message saying so (tests/compat/unsupported checks each message).
#pragma once

#include <exception>

#include "ember_compat/aliases.h"

namespace torch {

// A dtype Ember lacks. The conversion (to TensorOptions, as torch::ones({2}, torch::kComplexFloat)
// or x.to(torch::kComplexFloat) need) is what fails, so merely including this header costs nothing.
#define EMBER_TORCH_UNSUPPORTED_DTYPE(name)                                                                        \
  template <typename = void>                                                                                       \
  struct name##_is_not_supported {                                                                                 \
    operator TensorOptions() const {                                                                               \
      static_assert(                                                                                               \
          compat_detail::always_false<name##_is_not_supported>,                                                    \
          "torch::" #name                                                                                          \
          ": Ember has kFloat32, kFloat64, kFloat16, kBFloat16, kInt64, kInt32, kInt16, kInt8, kUInt8 and kBool"); \
      std::terminate();                                                                                            \
    }                                                                                                              \
    /* as a ScalarType too: torch::dtype(torch::kInt32), x.scalar_type() == torch::kInt32 */                       \
    operator ScalarType() const {                                                                                  \
      static_assert(                                                                                               \
          compat_detail::always_false<name##_is_not_supported>,                                                    \
          "torch::" #name                                                                                          \
          ": Ember has kFloat32, kFloat64, kFloat16, kBFloat16, kInt64, kInt32, kInt16, kInt8, kUInt8 and kBool"); \
      std::terminate();                                                                                            \
    }                                                                                                              \
  };                                                                                                               \
  inline constexpr name##_is_not_supported<> name {}

EMBER_TORCH_UNSUPPORTED_DTYPE(kComplexFloat);
EMBER_TORCH_UNSUPPORTED_DTYPE(kComplexDouble);
#undef EMBER_TORCH_UNSUPPORTED_DTYPE

// TorchScript: a whole subsystem Ember does not have. (torch::data is ember::data, data/data.h.)
namespace jit {
template <typename... Args>
void load(Args&&...) {
  static_assert(compat_detail::always_false<Args...>,
                "torch::jit::load: Ember has no TorchScript; save weights with torch::save and build the model in C++");
}
namespace script {
// A TorchScript module (a member, a local) stops the build where it is made, with the same advice.
struct Module {
  template <typename... Args>
  Module(Args&&...) {  // NOLINT: every constructor, the default one included
    static_assert(compat_detail::always_false<Args...>,
                  "torch::jit::script::Module: Ember has no TorchScript; build the model as an nn::Module in C++ "
                  "and load its weights with torch::load");
  }
};
}  // namespace script
using script::Module;
using ::c10::IValue;  // libtorch's torch::jit::IValue (ember_compat/ivalue.h)
}  // namespace jit

}  // namespace torch
