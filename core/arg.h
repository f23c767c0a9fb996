// EMBER_ARG: the options classes' fields (nn/options.h's module options, optim/'s optimizer
// options), with a chainable setter and a getter, as libtorch's TORCH_ARG:
//   EMBER_ARG(double, lr) = 1e-3;   ->   opts.lr(0.1).lr() == 0.1
#pragma once

#include <utility>

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
