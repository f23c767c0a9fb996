// ember::Error and the one check macro every op uses to reject bad input.
//
//   EMBER_CHECK(a.dim() == 2, "mm: expected 2-D tensors, got {}-D and {}-D", a.dim(), b.dim());
//
// The message is formatted with fmt only when the check fails, so checks on hot paths cost a
// branch. Messages name the op first and then the shapes or values involved, so a user can act.
#pragma once

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <stdexcept>
#include <string>

namespace ember {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Raised for features Ember has chosen not to support yet; still an ember::Error.
class NotImplementedError : public Error {
 public:
  using Error::Error;
};

// Raised when memory for a tensor cannot be had (torch.OutOfMemoryError): the device refused it, or
// its size in bytes does not fit in 64 bits. The message names the shape and dtype asked for.
class OutOfMemoryError : public Error {
 public:
  using Error::Error;
};

namespace detail {
[[noreturn]] void throw_error(std::string msg);
}  // namespace detail

}  // namespace ember

#define EMBER_CHECK(cond, ...)                                        \
  do {                                                                \
    if (!(cond)) [[unlikely]] {                                       \
      ::ember::detail::throw_error(::fmt::format(__VA_ARGS__));       \
    }                                                                 \
  } while (0)

#define EMBER_FAIL(...) ::ember::detail::throw_error(::fmt::format(__VA_ARGS__))
