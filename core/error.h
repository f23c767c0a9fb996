// ember::Error, the one check macro every op uses to reject bad input, and warnings.
//
//   EMBER_CHECK(a.dim() == 2, "mm: expected 2-D tensors, got {}-D and {}-D", a.dim(), b.dim());
//   EMBER_WARN("clip_grad_norm_: total norm is {}", norm);   // to the current WarningHandler
//
// The message is formatted with fmt only when the check fails, so checks on hot paths cost a
// branch. Messages name the op first and then the shapes or values involved, so a user can act.
// Warnings go to one process-wide handler (libtorch's c10::Warning model): stderr by default,
// replaceable so that a test can capture them (WarningHandlerGuard).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <stdexcept>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace ember {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
  // libtorch's c10::Error carries a backtrace after the message; Ember's carries none.
  const char* what_without_backtrace() const noexcept { return what(); }
  std::string msg() const { return what(); }
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

// Where a warning was raised: function, file and line, as libtorch's c10::SourceLocation.
struct SourceLocation {
  const char* function = "";
  const char* file = "";
  uint32_t line = 0;
};
std::ostream& operator<<(std::ostream& os, const SourceLocation& loc);  // "func at file:line"

class WarningHandler;
class Warning;
// The handler in use (never null: the stderr one unless replaced). Not thread-safe to change
// while other threads warn, as in libtorch; the caller keeps `handler` alive while installed.
WarningHandler* get_warning_handler();
void set_warning_handler(WarningHandler* handler);  // null restores the stderr handler
void warn(const Warning& warning);
// When true, a warn-once site warns every time (tests of TORCH_WARN_ONCE).
void set_warn_always(bool enabled);
bool get_warn_always();

// Installs a handler for its lifetime, then restores the previous one.
class WarningHandlerGuard {
 public:
  explicit WarningHandlerGuard(WarningHandler* handler) : previous_(get_warning_handler()) {
    set_warning_handler(handler);
  }
  ~WarningHandlerGuard() { set_warning_handler(previous_); }
  WarningHandlerGuard(const WarningHandlerGuard&) = delete;
  WarningHandlerGuard& operator=(const WarningHandlerGuard&) = delete;

 private:
  WarningHandler* previous_;
};

// One warning: what WarningHandler::process receives (libtorch 2.x's c10::Warning).
class Warning {
 public:
  Warning(SourceLocation source_location, std::string msg, bool verbatim)
      : source_location_(source_location), msg_(std::move(msg)), verbatim_(verbatim) {}
  const SourceLocation& source_location() const { return source_location_; }
  const std::string& msg() const { return msg_; }
  bool verbatim() const { return verbatim_; }

  // libtorch 1.x's spellings, where c10::Warning was a namespace: Warning::set_warning_handler(h).
  static void warn(const SourceLocation& loc, const std::string& msg, bool verbatim) {
    ember::warn(Warning(loc, msg, verbatim));
  }
  static WarningHandler* get_warning_handler() { return ember::get_warning_handler(); }
  static void set_warning_handler(WarningHandler* handler) { ember::set_warning_handler(handler); }
  static void set_warnAlways(bool enabled) { set_warn_always(enabled); }
  static bool get_warnAlways() { return get_warn_always(); }
  using WarningHandlerGuard = ember::WarningHandlerGuard;

 private:
  SourceLocation source_location_;
  std::string msg_;
  bool verbatim_;
};

// Receives every warning. Override either form of process: libtorch 2.x's (one Warning) or
// libtorch 1.x's (location, message, verbatim); the default prints libtorch's stderr line
// "[W file:line] Warning: msg (function func)".
class WarningHandler {
 public:
  virtual ~WarningHandler() = default;
  virtual void process(const Warning& warning) {
    process(warning.source_location(), warning.msg(), warning.verbatim());
  }
  virtual void process(const SourceLocation& source_location, const std::string& msg, bool verbatim);
};

}  // namespace ember

#define EMBER_CHECK(cond, ...)                                  \
  do {                                                          \
    if (!(cond)) [[unlikely]] {                                 \
      ::ember::detail::throw_error(::fmt::format(__VA_ARGS__)); \
    }                                                           \
  } while (0)

#define EMBER_FAIL(...) ::ember::detail::throw_error(::fmt::format(__VA_ARGS__))

// A warning formatted like EMBER_CHECK's message, sent to the current WarningHandler.
#define EMBER_WARN(...)                                                                                        \
  ::ember::warn(::ember::Warning(::ember::SourceLocation{__func__, __FILE__, static_cast<uint32_t>(__LINE__)}, \
                                 ::fmt::format(__VA_ARGS__), false))
