// Progress bar / log lines and throughput statistics (see progress.h).
#include "progress.h"

#include <algorithm>
#include <cstdio>

#include <fmt/format.h>

namespace charlm {

Progress::Progress(int64_t max_iters, int64_t tokens_per_step, bool interactive, int64_t log_every)
    : max_iters_(max_iters),
      tokens_per_step_(tokens_per_step),
      log_every_(std::max<int64_t>(log_every, 1)),
      interactive_(interactive),
      start_(std::chrono::steady_clock::now()),
      last_(start_) {}

std::string Progress::eta(double seconds) const {
  const int64_t s = static_cast<int64_t>(seconds + 0.5);
  if (s >= 3600) return fmt::format("{}:{:02d}:{:02d}", s / 3600, (s / 60) % 60, s % 60);
  return fmt::format("{:02d}:{:02d}", s / 60, s % 60);
}

void Progress::step(int64_t it, double loss, double lr) {
  const auto now = std::chrono::steady_clock::now();
  step_seconds_.push_back(std::chrono::duration<double>(now - last_).count());
  last_ = now;
  // Recent speed (last 20 steps) predicts the remaining time better than the average.
  const size_t n = std::min<size_t>(step_seconds_.size(), 20);
  double recent = 0;
  for (size_t i = step_seconds_.size() - n; i < step_seconds_.size(); ++i) recent += step_seconds_[i];
  recent /= static_cast<double>(n);
  const double tok_s = recent > 0 ? tokens_per_step_ / recent : 0;
  const int64_t done = it + 1;  // steps finished in the whole run, this one included
  const double remaining = recent * static_cast<double>(max_iters_ - done);
  if (interactive_) {
    constexpr int kWidth = 24;
    const int filled = static_cast<int>(kWidth * std::min(done, max_iters_) / std::max<int64_t>(max_iters_, 1));
    std::string bar(filled, '=');
    if (filled < kWidth) bar += '>' + std::string(kWidth - filled - 1, ' ');
    std::fprintf(stdout, "\r\033[Kstep %lld/%lld [%s] loss %.4f lr %.2e %.1fk tok/s ETA %s",
                 static_cast<long long>(done), static_cast<long long>(max_iters_), bar.c_str(), loss, lr, tok_s / 1000,
                 eta(remaining).c_str());
    std::fflush(stdout);
    bar_drawn_ = true;
  } else if (done % log_every_ == 0 || done == max_iters_) {
    std::fprintf(stdout, "step %lld/%lld loss %.4f lr %.2e %.0f tok/s eta %s\n", static_cast<long long>(done),
                 static_cast<long long>(max_iters_), loss, lr, tok_s, eta(remaining).c_str());
    std::fflush(stdout);
  }
}

void Progress::message(const std::string& line) {
  if (bar_drawn_) std::fputs("\r\033[K", stdout);
  std::fprintf(stdout, "%s\n", line.c_str());
  std::fflush(stdout);
  bar_drawn_ = false;
}

void Progress::finish() {
  if (bar_drawn_) std::fputs("\n", stdout);
  bar_drawn_ = false;
}

double Progress::median_tokens_per_s() const {
  if (step_seconds_.empty()) return 0;
  std::vector<double> s = step_seconds_;
  std::nth_element(s.begin(), s.begin() + s.size() / 2, s.end());
  const double med = s[s.size() / 2];
  return med > 0 ? tokens_per_step_ / med : 0;
}

double Progress::elapsed_s() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

}  // namespace charlm
