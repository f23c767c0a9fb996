// The tracing backend behind EMBER_DEBUG (see core/trace.h): forwards every kernel to the real
// backend, printing (and with level 2 timing) it on the way.
#include "core/trace.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

#include "core/backend.h"

namespace ember::trace {

namespace {

thread_local const std::string* current_node = nullptr;

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

// One line per kernel: "[ember] <op> out <shape dtype device> <- <input shapes>". Level 1 prints it
// before the kernel runs (if a kernel crashes, the last line names it); level 2 prints it after,
// with the kernel's time, and adds the time to the summary.
class Scope {
 public:
  // deferred: a fused kernel the device may not have; its line waits until it has run, and
  // cancel() drops it when the op fell back to the composed kernels (which trace themselves).
  Scope(std::string op, const Tensor& out, std::initializer_list<const Tensor*> ins, bool deferred = false)
      : op_(std::move(op)), deferred_(deferred) {
    if (current_node) op_ = "backward " + *current_node + ": " + op_;
    std::string inputs;
    for (const Tensor* t : ins) inputs += (inputs.empty() ? " <- " : ", ") + shape_str(t->sizes());
    if (level() <= 2) line_ = fmt::format("[ember] {:<40} out {}{}", op_, describe(out), inputs);
    if (level() == 1 && !deferred_) std::fprintf(stderr, "%s\n", line_.c_str());
    start_ = std::chrono::steady_clock::now();
  }
  void cancel() { cancelled_ = true; }
  ~Scope() {
    if (cancelled_) return;
    if (level() == 1 && deferred_) std::fprintf(stderr, "%s\n", line_.c_str());
    if (level() < 2) return;
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (level() == 2) std::fprintf(stderr, "%s  (%.3f ms)\n", line_.c_str(), s * 1e3);
    const size_t colon = op_.rfind(": ");
    summary().add(colon == std::string::npos ? op_ : "backward " + op_.substr(colon + 2), s);
  }

 private:
  std::string op_, line_;
  bool deferred_ = false, cancelled_ = false;
  std::chrono::steady_clock::time_point start_;
};

// Runs a fused kernel under a deferred Scope: traced only when the device had it.
template <typename F>
bool traced_fused(const char* op, const Tensor& out, std::initializer_list<const Tensor*> ins, F run) {
  Scope s(op, out, ins, /*deferred=*/true);
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
    Scope s(op, out, {EMBER_UNPAREN ins});                    \
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
  if (level() == 1 || level() == 2) std::fprintf(stderr, "[ember] backward %s\n", node_name.c_str());
}
BackwardScope::~BackwardScope() { current_node = prev_; }

}  // namespace ember::trace
