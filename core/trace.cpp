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
  void copy(const Tensor& dst, const Tensor& src) override {
    Scope s("copy", dst, {&src});
    in_.copy(dst, src);
  }
  void fill(const Tensor& dst, const Scalar& v) override {
    Scope s("fill", dst, {});
    in_.fill(dst, v);
  }
  void unary(UnaryOp op, const Tensor& out, const Tensor& in) override {
    Scope s(op_name(op), out, {&in});
    in_.unary(op, out, in);
  }
  void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b) override {
    Scope s(op_name(op), out, {&a, &b});
    in_.binary(op, out, a, b);
  }
  void where(const Tensor& out, const Tensor& c, const Tensor& a, const Tensor& b) override {
    Scope s("where", out, {&c, &a, &b});
    in_.where(out, c, a, b);
  }
  void reduce(ReduceOp op, const Tensor& out, const Tensor& in, IntArrayRef dims) override {
    Scope s(op_name(op), out, {&in});
    in_.reduce(op, out, in, dims);
  }
  void arg_reduce(bool is_max, const Tensor& v, const Tensor& i, const Tensor& in, int64_t dim) override {
    Scope s(is_max ? "max(dim)" : "min(dim)", v, {&in});
    in_.arg_reduce(is_max, v, i, in, dim);
  }
  void matmul(const Tensor& out, const Tensor& a, const Tensor& b) override {
    Scope s("matmul", out, {&a, &b});
    in_.matmul(out, a, b);
  }
  void softmax(const Tensor& out, const Tensor& in, bool log) override {
    Scope s(log ? "log_softmax" : "softmax", out, {&in});
    in_.softmax(out, in, log);
  }
  void softmax_backward(const Tensor& din, const Tensor& dout, const Tensor& out, bool log) override {
    Scope s(log ? "log_softmax_backward" : "softmax_backward", din, {&dout, &out});
    in_.softmax_backward(din, dout, out, log);
  }
  void triangle(const Tensor& out, const Tensor& in, int64_t k, bool lower) override {
    Scope s(lower ? "tril" : "triu", out, {&in});
    in_.triangle(out, in, k, lower);
  }
  void index_select(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& idx) override {
    Scope s("index_select", out, {&in, &idx});
    in_.index_select(out, in, dim, idx);
  }
  void index_add(const Tensor& out, int64_t dim, const Tensor& idx, const Tensor& src) override {
    Scope s("index_add", out, {&idx, &src});
    in_.index_add(out, dim, idx, src);
  }
  void gather(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& idx) override {
    Scope s("gather", out, {&in, &idx});
    in_.gather(out, in, dim, idx);
  }
  void scatter_add(const Tensor& out, int64_t dim, const Tensor& idx, const Tensor& src) override {
    Scope s("scatter_add", out, {&idx, &src});
    in_.scatter_add(out, dim, idx, src);
  }
  bool matmul_add(const Tensor& out, const Tensor& addend, const Tensor& a, const Tensor& b) override {
    return traced_fused("addmm", out, {&addend, &a, &b}, [&] { return in_.matmul_add(out, addend, a, b); });
  }
  bool layer_norm(const Tensor& out, const Tensor& mean, const Tensor& rstd, const Tensor& in, const Tensor& w,
                  const Tensor& b, double eps) override {
    return traced_fused("layer_norm", out, {&in}, [&] { return in_.layer_norm(out, mean, rstd, in, w, b, eps); });
  }
  bool layer_norm_backward(const Tensor& din, const Tensor& dw, const Tensor& db, const Tensor& dout,
                           const Tensor& in, const Tensor& mean, const Tensor& rstd, const Tensor& w) override {
    return traced_fused("layer_norm_backward", din.defined() ? din : dout, {&dout, &in},
                        [&] { return in_.layer_norm_backward(din, dw, db, dout, in, mean, rstd, w); });
  }
  bool causal_attention(const Tensor& out, const Tensor& probs, const Tensor& q, const Tensor& k, const Tensor& v,
                        const Tensor& noise, double scale) override {
    return traced_fused("causal_attention", out, {&q, &k, &v},
                        [&] { return in_.causal_attention(out, probs, q, k, v, noise, scale); });
  }
  bool causal_attention_backward(const Tensor& dq, const Tensor& dk, const Tensor& dv, const Tensor& dout,
                                 const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& probs,
                                 const Tensor& noise, double scale) override {
    return traced_fused("causal_attention_backward", dq, {&dout, &q, &k, &v},
                        [&] { return in_.causal_attention_backward(dq, dk, dv, dout, q, k, v, probs, noise, scale); });
  }

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
