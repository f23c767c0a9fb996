// Op tracing for people learning what a model does: EMBER_DEBUG=1 prints every kernel as it runs
// with its shapes, dtype and device; EMBER_DEBUG=2 also times each one and prints a table by op
// at exit. Kernels run inside backward are marked with the autograd node that called them.
//
//   EMBER_DEBUG=1 ./my_model     ->  [ember] matmul  out [4, 3] float32 cpu  <- [4, 8], [8, 3]
//
// Tracing wraps the device's backend (core/backend.cpp decides once, at first use), so it costs
// nothing when the variable is unset.
#pragma once

#include <string>

namespace ember {

class Backend;

namespace trace {

// 0 (off), 1 (print ops) or 2 (print and time ops, summary at exit); read from EMBER_DEBUG once.
int level();
// Wraps `inner` in the tracing backend (one wrapper per backend, kept for the process).
Backend& wrap(Backend& inner);

// Set by the autograd engine around each node it runs, so traced kernels show "backward <Node>".
class BackwardScope {
 public:
  explicit BackwardScope(const std::string& node_name);
  ~BackwardScope();
  BackwardScope(const BackwardScope&) = delete;
  BackwardScope& operator=(const BackwardScope&) = delete;

 private:
  const std::string* prev_;
};

}  // namespace trace
}  // namespace ember
