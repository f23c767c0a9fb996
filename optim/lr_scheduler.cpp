// Learning-rate schedulers (optim/lr_scheduler.h), following torch.optim.lr_scheduler in 1.13:
// StepLR's chainable form multiplies the current lr (so lr after k decays is lr*gamma*...*gamma,
// rounded at each step, not lr*gamma^k), LambdaLR multiplies the base lr.
#include "optim/lr_scheduler.h"

#include <cmath>
#include <numbers>

namespace ember::optim {

// ---- LRScheduler ----

LRScheduler::LRScheduler(Optimizer& optimizer) : optimizer_(optimizer), base_lrs_(current_lrs()) {}

std::vector<double> LRScheduler::current_lrs() const {
  std::vector<double> lrs;
  for (const auto& group : optimizer_.param_groups()) lrs.push_back(group.options().get_lr());
  return lrs;
}

void LRScheduler::step() {
  ++last_epoch_;
  std::vector<double> lrs = get_lr();
  auto& groups = optimizer_.param_groups();
  EMBER_CHECK(lrs.size() == groups.size(),
              "LRScheduler: {} learning rates for {} parameter groups (groups were "
              "added after the scheduler was made)",
              lrs.size(), groups.size());
  for (size_t g = 0; g < groups.size(); ++g) groups[g].options().set_lr(lrs[g]);
  last_lr_ = std::move(lrs);
}

// ---- StepLR ----

StepLR::StepLR(Optimizer& optimizer, int64_t step_size, double gamma)
    : LRScheduler(optimizer), step_size_(step_size), gamma_(gamma) {
  EMBER_CHECK(step_size > 0, "StepLR: step_size must be positive, got {}", step_size);
  initial_step();
}

std::vector<double> StepLR::get_lr() {
  std::vector<double> lrs = current_lrs();
  if (last_epoch_ == 0 || last_epoch_ % step_size_ != 0) return lrs;
  for (double& lr : lrs) lr *= gamma_;
  return lrs;
}

// ---- LambdaLR ----

LambdaLR::LambdaLR(Optimizer& optimizer, LrLambda lr_lambda)
    : LambdaLR(optimizer, std::vector<LrLambda>(optimizer.param_groups().size(), lr_lambda)) {}

LambdaLR::LambdaLR(Optimizer& optimizer, std::vector<LrLambda> lr_lambdas)
    : LRScheduler(optimizer), lr_lambdas_(std::move(lr_lambdas)) {
  EMBER_CHECK(lr_lambdas_.size() == base_lrs_.size(), "LambdaLR: expected {} lr_lambdas (one per group), but got {}",
              base_lrs_.size(), lr_lambdas_.size());
  for (size_t g = 0; g < lr_lambdas_.size(); ++g)
    EMBER_CHECK(static_cast<bool>(lr_lambdas_[g]), "LambdaLR: lr_lambda of group {} is empty", g);
  initial_step();
}

std::vector<double> LambdaLR::get_lr() {
  std::vector<double> lrs;
  for (size_t g = 0; g < base_lrs_.size(); ++g) lrs.push_back(base_lrs_[g] * lr_lambdas_[g](last_epoch_));
  return lrs;
}

// ---- nanoGPT's schedule ----

double nanogpt_lr(int64_t it, double learning_rate, double min_lr, int64_t warmup_iters, int64_t lr_decay_iters) {
  EMBER_CHECK(warmup_iters >= 0 && lr_decay_iters >= warmup_iters,
              "nanogpt_lr: need 0 <= warmup_iters <= lr_decay_iters, got warmup_iters {} and lr_decay_iters {}",
              warmup_iters, lr_decay_iters);
  // 1) linear warmup for warmup_iters steps
  if (it < warmup_iters) return learning_rate * static_cast<double>(it + 1) / static_cast<double>(warmup_iters + 1);
  // 2) past lr_decay_iters (or an empty decay window), min_lr
  if (it > lr_decay_iters || lr_decay_iters == warmup_iters) return min_lr;
  // 3) in between, cosine decay from learning_rate down to min_lr
  const double decay_ratio =
      static_cast<double>(it - warmup_iters) / static_cast<double>(lr_decay_iters - warmup_iters);
  const double coeff = 0.5 * (1.0 + std::cos(std::numbers::pi * decay_ratio));  // 1 -> 0
  return min_lr + coeff * (learning_rate - min_lr);
}

CosineWarmupLR::CosineWarmupLR(Optimizer& optimizer, int64_t warmup_iters, int64_t lr_decay_iters, double min_lr)
    : LRScheduler(optimizer), warmup_iters_(warmup_iters), lr_decay_iters_(lr_decay_iters), min_lr_(min_lr) {
  nanogpt_lr(0, 0, 0, warmup_iters, lr_decay_iters);  // checks the arguments
  initial_step();
}

std::vector<double> CosineWarmupLR::get_lr() {
  std::vector<double> lrs;
  for (double base : base_lrs_) lrs.push_back(nanogpt_lr(last_epoch_, base, min_lr_, warmup_iters_, lr_decay_iters_));
  return lrs;
}

}  // namespace ember::optim
