// Op tracing for people learning what a model does: EMBER_DEBUG=1 prints every kernel as it runs
// with its output shape, dtype and device and its input shapes; EMBER_DEBUG=2 prints each line
// after the kernel, with its time, and a table by op at exit; EMBER_DEBUG=profile only the table.
// In backward, each node the engine runs gets a line of its own, and the kernels it calls are
// marked with its name.
//
//   EMBER_DEBUG=1 ./my_model  ->  [ember] matmul              out [1, 2, 4] float32 cpu <- [1, 2, 3], [1, 3, 4]
//                                 [ember] backward ReluBackward0
//                                 [ember] backward ReluBackward0: mul  out [2, 4] float32 cpu <- [2, 4], [2, 4]
//
// Tracing wraps the device's backend (core/backend.cpp decides once, at first use), so it costs
// nothing when the variable is unset. These are kernels, not autograd ops: a view runs none, and
// a composite op (cross_entropy) shows every kernel it is made of.
#pragma once

#include <string>

namespace ember {

class Backend;

namespace trace {

// EMBER_DEBUG=profile: time every kernel and print only the table by op at exit (what
// `ember-charlm train --profile` sets), for seeing where a training step's time goes.
inline constexpr int kProfile = 3;

// 0 (off), 1 (print ops), 2 (print and time ops, summary at exit) or kProfile (summary only);
// read from EMBER_DEBUG once, at the first kernel.
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
