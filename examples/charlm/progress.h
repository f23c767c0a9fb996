// Training progress for a person watching: a redrawn bar on a terminal, plain log lines
// otherwise (pipes, log files, CI), and the numbers the final summary needs.
//
//   Progress p(max_iters, tokens_per_step, isatty(STDOUT_FILENO));
//   p.step(it, loss, lr);   // draws "step 120/2000 [====>   ] loss 2.1034 lr 9.9e-04 14.2k tok/s ETA 02:11"
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace charlm {

class Progress {
 public:
  // step() takes the run's step number (a resumed run continues its numbering); the ETA counts what is left.
  Progress(int64_t max_iters, int64_t tokens_per_step, bool interactive, int64_t log_every = 10);
  // Records one finished step (its time is measured from the previous call).
  void step(int64_t it, double loss, double lr);
  // Prints a line that must not be overwritten by the bar (evals, checkpoints).
  void message(const std::string& line);
  void finish();

  double median_tokens_per_s() const;
  double elapsed_s() const;

 private:
  std::string eta(double seconds) const;

  int64_t max_iters_, tokens_per_step_, log_every_;
  bool interactive_;
  bool bar_drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_;
  std::vector<double> step_seconds_;
};

}  // namespace charlm
