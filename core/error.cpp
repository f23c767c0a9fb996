// Warnings (core/error.h): the process-wide handler and the default one that prints to stderr.
// Errors themselves are plain exceptions; detail::throw_error lives in core/tensor.cpp.
#include "core/error.h"

#include <atomic>
#include <iostream>

namespace ember {

std::ostream& operator<<(std::ostream& os, const SourceLocation& loc) {
  return os << loc.function << " at " << loc.file << ":" << loc.line;
}

// libtorch's default handler: "[W file.cpp:12] Warning: message (function f)" on stderr.
void WarningHandler::process(const SourceLocation& loc, const std::string& msg, bool /*verbatim*/) {
  std::cerr << "[W " << loc.file << ":" << loc.line << "] Warning: " << msg << " (function " << loc.function << ")"
            << std::endl;
}

namespace {
WarningHandler stderr_handler;
std::atomic<WarningHandler*> current_handler{&stderr_handler};
std::atomic<bool> warn_always{false};
}  // namespace

WarningHandler* get_warning_handler() { return current_handler.load(); }
void set_warning_handler(WarningHandler* handler) { current_handler = handler ? handler : &stderr_handler; }
void warn(const Warning& warning) { get_warning_handler()->process(warning); }
void set_warn_always(bool enabled) { warn_always = enabled; }
bool get_warn_always() { return warn_always; }

}  // namespace ember
