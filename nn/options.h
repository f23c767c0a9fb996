// Option classes in libtorch's style: chainable setters, one getter per field.
//
//   struct MyOptions {
//     EMBER_ARG(int64_t, width) = 16;
//     EMBER_ARG(bool, bias) = true;
//   };
//   auto o = MyOptions().width(32).bias(false);   // o.width() == 32
//
// The loss reduction (ember::kMean, kSum, kNone) comes from autograd/loss.h.
#pragma once

#include <utility>

#include "autograd/loss.h"

// Declares a private field `name_` of type T with a setter `name(value)` returning *this and a getter `name()`.
#define EMBER_ARG(T, name)                                 \
 public:                                                   \
  auto name(const T& new_value)->decltype(*this) {         \
    this->name##_ = new_value;                             \
    return *this;                                          \
  }                                                        \
  auto name(T&& new_value)->decltype(*this) {              \
    this->name##_ = std::move(new_value);                  \
    return *this;                                          \
  }                                                        \
  const T& name() const noexcept { return this->name##_; } \
  T& name() noexcept { return this->name##_; }             \
                                                           \
 private:                                                  \
  T name##_
