// Grad mode: whether ops record a graph. NoGradGuard turns it off for a scope, as in libtorch.
//
//   { ember::NoGradGuard no_grad; w.sub_(w.grad() * lr); }   // an update autograd must not see
//
// The flag is per thread. Backward runs with it off unless create_graph is set.
#pragma once

namespace ember {

struct GradMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};

// Restores the previous mode on scope exit.
class AutoGradMode {
 public:
  explicit AutoGradMode(bool enabled) : prev_(GradMode::is_enabled()) { GradMode::set_enabled(enabled); }
  ~AutoGradMode() { GradMode::set_enabled(prev_); }
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;

 private:
  bool prev_;
};

class NoGradGuard : public AutoGradMode {
 public:
  NoGradGuard() : AutoGradMode(false) {}
};

class EnableGradGuard : public AutoGradMode {
 public:
  EnableGradGuard() : AutoGradMode(true) {}
};

namespace autograd {
// Anomaly mode (torch.autograd.set_detect_anomaly): every backward output is checked for NaN/inf
// and the op that produced it is named in the error.
void set_detect_anomaly(bool enabled);
bool is_anomaly_enabled();

class DetectAnomalyGuard {
 public:
  DetectAnomalyGuard() : prev_(is_anomaly_enabled()) { set_detect_anomaly(true); }
  ~DetectAnomalyGuard() { set_detect_anomaly(prev_); }

 private:
  bool prev_;
};
}  // namespace autograd

}  // namespace ember
