// <torch/torch.h>, part 2: libtorch's error and warning macros (TORCH_CHECK, TORCH_WARN,
// TORCH_WARN_ONCE, TORCH_INTERNAL_ASSERT, AT_ASSERT, AT_ERROR) and c10's warning API, on Ember's
// errors and warning handlers (core/error.h).
#pragma once

#include <sstream>
#include <string>

#include "ember_compat/aliases.h"

// Warnings: c10::Warning, c10::WarningHandler and the guard are Ember's (core/error.h); a handler
// may override libtorch 2.x's process(const c10::Warning&) or 1.x's process(loc, msg, verbatim).
namespace c10 {
using SourceLocation = ember::SourceLocation;
using Warning = ember::Warning;
using WarningHandler = ember::WarningHandler;
// libtorch 2.x's home of the handler functions.
namespace WarningUtils {
using ember::get_warning_handler;
using ember::set_warning_handler;
using ember::WarningHandlerGuard;
inline void set_warnAlways(bool enabled) { ember::set_warn_always(enabled); }
inline bool get_warnAlways() { return ember::get_warn_always(); }
}  // namespace WarningUtils
inline void warn(const Warning& warning) { ember::warn(warning); }
}  // namespace c10

namespace torch::compat_detail {

// TORCH_CHECK's message: the parts streamed together, or libtorch's text for a bare condition.
template <typename... Parts>
std::string check_message(const char* condition, const Parts&... parts) {
  if constexpr (sizeof...(Parts) == 0) {
    return std::string("Expected ") + condition +
           " to be true, but got false.  (Could this error message be improved?  If so, please report an "
           "enhancement request to PyTorch.)";
  } else {
    std::ostringstream os;
    (os << ... << parts);
    return os.str();
  }
}

template <typename... Parts>
std::string concat(const Parts&... parts) {
  std::ostringstream os;
  (os << ... << parts);
  return os.str();
}

}  // namespace torch::compat_detail

// Throws torch::Error (ember::Error) with the parts streamed together, as libtorch's does.
#define TORCH_CHECK(cond, ...)                                                                               \
  do {                                                                                                       \
    if (!(cond)) {                                                                                           \
      ::ember::detail::throw_error(::torch::compat_detail::check_message(#cond __VA_OPT__(, ) __VA_ARGS__)); \
    }                                                                                                        \
  } while (0)

// TORCH_WARN("x is ", x): the parts streamed together, to the current warning handler.
#define TORCH_WARN(...)                                                                                        \
  ::ember::warn(::ember::Warning(::ember::SourceLocation{__func__, __FILE__, static_cast<uint32_t>(__LINE__)}, \
                                 ::torch::compat_detail::concat(__VA_ARGS__), false))
// Once per call site, unless warnAlways is set (as libtorch).
#define TORCH_WARN_ONCE(...)                                            \
  if (::ember::get_warn_always()) {                                     \
    TORCH_WARN(__VA_ARGS__);                                            \
  } else {                                                              \
    [[maybe_unused]] static const bool ember_torch_warned_once_ = [&] { \
      TORCH_WARN(__VA_ARGS__);                                          \
      return true;                                                      \
    }();                                                                \
  }
// libtorch's message: `cond INTERNAL ASSERT FAILED at "file":line, please report a bug to PyTorch. ` + parts.
#define EMBER_TORCH_STRINGIZE_(x) #x
#define EMBER_TORCH_STRINGIZE(x) EMBER_TORCH_STRINGIZE_(x)
#define TORCH_INTERNAL_ASSERT(cond, ...)                                                                 \
  do {                                                                                                   \
    if (!(cond)) {                                                                                       \
      ::ember::detail::throw_error(::torch::compat_detail::concat(                                       \
          #cond " INTERNAL ASSERT FAILED at " EMBER_TORCH_STRINGIZE(__FILE__) ":" EMBER_TORCH_STRINGIZE( \
              __LINE__) ", please report a bug to PyTorch. " __VA_OPT__(, ) __VA_ARGS__));               \
    }                                                                                                    \
  } while (0)
// libtorch 1.x's older spellings, still in tutorials (the MNIST example's AT_ASSERT).
#define AT_ASSERT(...) TORCH_INTERNAL_ASSERT(__VA_ARGS__)
#ifndef AT_ERROR
#define AT_ERROR(...) ::ember::detail::throw_error(::torch::compat_detail::concat(__VA_ARGS__))
#endif
