// The tracing backend behind EMBER_DEBUG (see core/trace.h): forwards every kernel to the real
// backend, printing (and with level 2 timing) it on the way.
#include "core/trace.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

#include "core/backend.h"

namespace ember::trace {

namespace {

thread_local const std::string* current_node = nullptr;  // the backward node running, if any
thread_local const char* current_op = nullptr;            // the outermost op running (OpTag)
thread_local int scope_depth = 0;                         // Scopes open on this thread
thread_local int quiet_depth = 0;                         // Quiets open on this thread
std::atomic<int> open_scopes{0};                          // Scopes open in the process
std::atomic<int64_t> steps_done{0};                       // end_step() calls

// EMBER_DEBUG_STEPS: the optimizer steps to trace, 1-based and inclusive; every step when unset.
struct StepRange {
  int64_t first = 1, last = std::numeric_limits<int64_t>::max();
  bool set = false;
};

// A whole non-negative decimal number, or -1.
int64_t parse_count(const std::string& text) {
  if (text.empty() || text.size() > 18 || text.find_first_not_of("0123456789") != std::string::npos) return -1;
  return std::stoll(text);
}

const StepRange& step_range() {
  static const StepRange range = [] {
    StepRange r;
    const char* v = std::getenv("EMBER_DEBUG_STEPS");
    if (!v || !*v) return r;
    const std::string text(v);
    const size_t dash = text.find('-');
    const int64_t a = parse_count(dash == std::string::npos ? "1" : text.substr(0, dash));
    const int64_t b = parse_count(dash == std::string::npos ? text : text.substr(dash + 1));
    if (a < 1 || b < a) {
      std::fprintf(stderr,
                   "[ember] EMBER_DEBUG_STEPS='%s' is not N (the first N steps) or A-B (steps A to B, 1 <= A <= "
                   "B): tracing every step\n",
                   v);
      return r;
    }
    r.first = a, r.last = b, r.set = true;
    return r;
  }();
  return range;
}

bool in_traced_steps() {
  const StepRange& r = step_range();
  if (!r.set) return true;
  const int64_t step = steps_done.load(std::memory_order_relaxed) + 1;
  return step >= r.first && step <= r.last;
}

// What this thread does with a kernel now: 0 nothing, 1 print its line before it runs, 2 print it
// after with its time and add it to the table, kProfile only add it to the table.
int effective_level() {
  if (quiet_depth > 0) return 0;
  const int env = level();
  if (env > 0 && in_traced_steps()) return env;
  return scope_depth > 0 ? 1 : 0;
}

struct Stat {
  int64_t calls = 0;
  double seconds = 0;
};

class Summary {
 public:
  void add(const std::string& op, double s) {
    std::lock_guard<std::mutex> lock(mu_);
    Stat& st = stats_[op];
    st.calls++;
    st.seconds += s;
  }
  ~Summary() {
    if (stats_.empty()) return;
    std::vector<std::pair<std::string, Stat>> rows(stats_.begin(), stats_.end());
    std::sort(rows.begin(), rows.end(), [](auto& a, auto& b) { return a.second.seconds > b.second.seconds; });
    double total = 0;
    for (auto& r : rows) total += r.second.seconds;
    std::fprintf(stderr, "[ember] op summary (EMBER_DEBUG=%s)\n%-28s %10s %12s %7s\n",
                 level() == kProfile ? "profile" : "2", "op", "calls", "total ms", "%");
    for (auto& [op, st] : rows)
      std::fprintf(stderr, "%-28s %10lld %12.3f %6.1f%%\n", op.c_str(), static_cast<long long>(st.calls),
                   st.seconds * 1e3, total > 0 ? 100 * st.seconds / total : 0.0);
    int64_t calls = 0;
    for (auto& r : rows) calls += r.second.calls;
    std::fprintf(stderr, "%-28s %10lld %12.3f %6.1f%%\n", "total", static_cast<long long>(calls), total * 1e3, 100.0);
  }

 private:
  std::mutex mu_;
  std::map<std::string, Stat> stats_;
};

Summary& summary() {
  static Summary s;
  return s;
}

std::string describe(const Tensor& t) {
  return fmt::format("{} {} {}", shape_str(t.sizes()), dtype_name(t.dtype()), t.device().str());
}

// One line per kernel: "[ember] <tag><kernel> out <shape dtype device> <- <input shapes>", the tag
// being "backward <Node>: " in backward, else "<op>: " for the op the program called (when it is
// not the kernel's own name). Level 1 prints it before the kernel runs (if a kernel crashes, the
// last line names it); level 2 prints it after, with the kernel's time, and adds the time to the
// summary, by kernel (forward and backward apart).
class KernelLine {
 public:
  // deferred: a fused kernel the device may not have; its line waits until it has run, and
  // cancel() drops it when the op fell back to the composed kernels (which trace themselves).
  KernelLine(const char* kernel, const Tensor& out, std::initializer_list<const Tensor*> ins, bool deferred = false)
      : level_(effective_level()), deferred_(deferred) {
    if (level_ == 0) return;
    std::string tag;
    if (current_node)
      tag = "backward " + *current_node + ": ";
    else if (current_op && std::strcmp(current_op, kernel) != 0)
      tag = std::string(current_op) + ": ";
    key_ = current_node ? "backward " + std::string(kernel) : std::string(kernel);
    if (level_ <= 2) {
      std::string inputs;
      for (const Tensor* t : ins) inputs += (inputs.empty() ? " <- " : ", ") + shape_str(t->sizes());
      line_ = fmt::format("[ember] {:<40} out {}{}", tag + kernel, describe(out), inputs);
    }
    if (level_ == 1 && !deferred_) std::fprintf(stderr, "%s\n", line_.c_str());
    start_ = std::chrono::steady_clock::now();
  }
  void cancel() { cancelled_ = true; }
  ~KernelLine() {
    if (level_ == 0 || cancelled_) return;
    if (level_ == 1 && deferred_) std::fprintf(stderr, "%s\n", line_.c_str());
    if (level_ < 2) return;
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (level_ == 2) std::fprintf(stderr, "%s  (%.3f ms)\n", line_.c_str(), s * 1e3);
    summary().add(key_, s);
  }

 private:
  int level_;
  std::string key_, line_;
  bool deferred_ = false, cancelled_ = false;
  std::chrono::steady_clock::time_point start_;
};

// Runs a fused kernel under a deferred KernelLine: traced only when the device had it.
template <typename F>
bool traced_fused(const char* op, const Tensor& out, std::initializer_list<const Tensor*> ins, F run) {
  KernelLine s(op, out, ins, /*deferred=*/true);
  const bool ran = run();
  if (!ran) s.cancel();
  return ran;
}

class TracingBackend final : public Backend {
 public:
  explicit TracingBackend(Backend& inner) : in_(inner) {}
  const char* name() const override { return in_.name(); }
  void* allocate(size_t n, Device d) override { return in_.allocate(n, d); }
  void deallocate(void* p, Device d) override { in_.deallocate(p, d); }
  void copy_to_host(void* dst, const void* src, size_t n, Device d) override { in_.copy_to_host(dst, src, n, d); }
  void copy_from_host(void* dst, const void* src, size_t n, Device d) override { in_.copy_from_host(dst, src, n, d); }

  // Every kernel forwards to the real backend under a Scope; a fused kernel's Scope is deferred,
  // so a device without it prints nothing for it (the composed kernels print themselves).
#define EMBER_UNPAREN(...) __VA_ARGS__
#define EMBER_TRACED_KERNEL(name, params, args, op, out, ins) \
  void name params override {                                 \
    KernelLine s(op, out, {EMBER_UNPAREN ins});               \
    in_.name args;                                            \
  }
#define EMBER_TRACED_FUSED_KERNEL(name, params, args, op, out, ins)                   \
  bool name params override {                                                         \
    return traced_fused(op, out, {EMBER_UNPAREN ins}, [&] { return in_.name args; }); \
  }
#define EMBER_UNTRACED_KERNEL(name, params, args) \
  bool name params override { return in_.name args; }
  EMBER_BACKEND_KERNELS(EMBER_TRACED_KERNEL)
  EMBER_FUSED_KERNELS(EMBER_TRACED_FUSED_KERNEL)
  EMBER_FLASH_KERNELS(EMBER_TRACED_FUSED_KERNEL)
  EMBER_PHILOX_KERNELS(EMBER_TRACED_FUSED_KERNEL)
  EMBER_OPTIMIZER_KERNELS(EMBER_UNTRACED_KERNEL)
#undef EMBER_UNTRACED_KERNEL
#undef EMBER_TRACED_FUSED_KERNEL
#undef EMBER_TRACED_KERNEL
#undef EMBER_UNPAREN

 private:
  Backend& in_;
};

}  // namespace

int level() {
  static const int lvl = [] {
    const char* v = std::getenv("EMBER_DEBUG");
    if (v && std::string_view(v) == "profile") return kProfile;
    return v ? std::atoi(v) : 0;
  }();
  return lvl;
}

Backend& wrap(Backend& inner) {
  static std::mutex mu;
  static std::map<Backend*, std::unique_ptr<TracingBackend>> wrappers;
  std::lock_guard<std::mutex> lock(mu);
  auto& w = wrappers[&inner];
  if (!w) w = std::make_unique<TracingBackend>(inner);
  return *w;
}

BackwardScope::BackwardScope(const std::string& node_name) : prev_(current_node) {
  current_node = &node_name;
  // A line per node, so nodes that run no kernel (views, expand) are seen too.
  const int lvl = effective_level();
  if (lvl == 1 || lvl == 2) std::fprintf(stderr, "[ember] backward %s\n", node_name.c_str());
}
BackwardScope::~BackwardScope() { current_node = prev_; }

Scope::Scope(std::string label) : label_(std::move(label)) {
  ++scope_depth;
  open_scopes.fetch_add(1, std::memory_order_relaxed);
  if (quiet_depth == 0) std::fprintf(stderr, "[ember] ---- trace scope '%s' begins ----\n", label_.c_str());
}
Scope::~Scope() {
  if (quiet_depth == 0) std::fprintf(stderr, "[ember] ---- trace scope '%s' ends ----\n", label_.c_str());
  open_scopes.fetch_sub(1, std::memory_order_relaxed);
  --scope_depth;
}

bool scope_open() { return open_scopes.load(std::memory_order_relaxed) > 0; }

void end_step() {
  const int64_t step = steps_done.fetch_add(1, std::memory_order_relaxed) + 1;
  const int lvl = level();
  if (lvl != 1 && lvl != 2) return;  // EMBER_DEBUG_STEPS is read only where it is used
  const StepRange& r = step_range();
  if (!r.set || step < r.first || step > r.last) return;
  std::fprintf(stderr, "[ember] ---- end of step %lld%s ----\n", static_cast<long long>(step),
               step == r.last ? " (the last EMBER_DEBUG_STEPS traces)" : "");
}

OpTag::OpTag(const char* op) noexcept : outermost_(current_op == nullptr) {
  if (outermost_) current_op = op;
}
OpTag::~OpTag() {
  if (outermost_) current_op = nullptr;
}

Quiet::Quiet() noexcept { ++quiet_depth; }
Quiet::~Quiet() { --quiet_depth; }

}  // namespace ember::trace
