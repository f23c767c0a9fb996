// Op tracing for people learning what a model does: EMBER_DEBUG=1 prints every kernel as it runs
// with its output shape, dtype and device and its input shapes; EMBER_DEBUG=2 prints each line
// after the kernel, with its time, and a table by op at exit; EMBER_DEBUG=profile only the table.
// A kernel is tagged with the op the program called that issued it ("linear: addmm"; nothing when
// the op and the kernel share a name). In backward, each node the engine runs gets a line of its
// own, and the kernels it calls are marked with its name.
//
//   EMBER_DEBUG=1 ./my_model  ->  [ember] matmul              out [1, 2, 4] float32 cpu <- [1, 2, 3], [1, 3, 4]
//                                 [ember] backward ReluBackward0
//                                 [ember] backward ReluBackward0: mul  out [2, 4] float32 cpu <- [2, 4], [2, 4]
//
// One step or one region instead of the whole run:
//   EMBER_DEBUG=1 EMBER_DEBUG_STEPS=3 ./train      the first 3 optimizer steps (forward, backward, step)
//   EMBER_DEBUG=1 EMBER_DEBUG_STEPS=100-100 ...    step 100 only (steps count optimizer.step() calls)
//   { ember::trace::Scope scope("my layer"); y = layer->forward(x); }   that region, EMBER_DEBUG unset
// Printing a tensor (operator<<, to_string) runs copies of its own; they are left out.
//
// Tracing wraps the device's backend (core/backend.cpp), so it costs nothing when the variable is
// unset and no Scope is open. These are kernels, not autograd ops: a view runs none, and a
// composite op (cross_entropy) shows every kernel it is made of.
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

// Prints the kernels this thread runs while it lives, as EMBER_DEBUG=1 does, with a line at its
// start and end naming `label`; with EMBER_DEBUG unset too. Scopes nest.
class Scope {
 public:
  explicit Scope(std::string label = "");
  ~Scope();
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  std::string label_;
};

// Whether any Scope is open (in any thread): backend_for then hands out the tracing wrapper.
bool scope_open();

// The end of a training step: the optimizers call it at the end of step(); a training loop with an
// optimizer of its own may call it too. EMBER_DEBUG_STEPS counts these.
void end_step();

// Calls end_step() when it goes out of scope: the first line of an optimizer's step().
class StepEnd {
 public:
  StepEnd() = default;
  ~StepEnd() { end_step(); }
  StepEnd(const StepEnd&) = delete;
  StepEnd& operator=(const StepEnd&) = delete;
};

// Tags the kernels run while it lives with `op`, unless an outer op already tagged them (the op the
// program called wins over the ops it is made of). `op` must outlive the tag: ops pass __func__.
class OpTag {
 public:
  explicit OpTag(const char* op) noexcept;
  ~OpTag();
  OpTag(const OpTag&) = delete;
  OpTag& operator=(const OpTag&) = delete;

 private:
  bool outermost_;
};
// The first line of a public op: its kernels are traced as "<op>: <kernel>".
#define EMBER_TRACE_OP() ::ember::trace::OpTag ember_trace_op_tag_(__func__)

// Leaves the kernels run while it lives out of the trace (printing's own copies).
class Quiet {
 public:
  Quiet() noexcept;
  ~Quiet();
  Quiet(const Quiet&) = delete;
  Quiet& operator=(const Quiet&) = delete;
};

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
