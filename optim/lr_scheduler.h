// Learning-rate schedules that set each parameter group's lr, as torch.optim.lr_scheduler does,
// and nanoGPT's warmup-plus-cosine schedule as a plain function.
//
//   ember::optim::SGD opt(params, ember::optim::SGDOptions(0.1));
//   ember::optim::StepLR sched(opt, /*step_size=*/30, /*gamma=*/0.1);
//   for (int epoch = 0; epoch < 100; ++epoch) { train_one_epoch(); sched.step(); }
//
//   double lr = ember::optim::nanogpt_lr(it, 6e-4, 6e-5, /*warmup_iters=*/2000, /*lr_decay_iters=*/600000);
//
// Counting follows Python's schedulers (which differ from libtorch's by one step): constructing a
// scheduler is epoch 0 and sets the epoch-0 lr; each step() moves one epoch on and sets that
// epoch's lr. base_lrs() are the groups' lrs when the scheduler was made.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "optim/optimizer.h"

namespace ember::optim {

class LRScheduler {
 public:
  explicit LRScheduler(Optimizer& optimizer);
  virtual ~LRScheduler() = default;

  // Moves to the next epoch and writes its learning rates into the optimizer's groups.
  void step();
  int64_t last_epoch() const { return last_epoch_; }
  // The learning rates the last step() (or the constructor) set, one per group.
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  const std::vector<double>& base_lrs() const { return base_lrs_; }

 protected:
  // The learning rates for epoch last_epoch_, one per group.
  virtual std::vector<double> get_lr() = 0;
  // Python's initial step (epoch -1 -> 0); each concrete constructor calls it once it is ready.
  void initial_step() { step(); }
  // The groups' learning rates right now.
  std::vector<double> current_lrs() const;

  Optimizer& optimizer_;
  int64_t last_epoch_ = -1;
  std::vector<double> base_lrs_;
  std::vector<double> last_lr_;
};

// Multiplies every group's lr by gamma each step_size epochs.
class StepLR : public LRScheduler {
 public:
  StepLR(Optimizer& optimizer, int64_t step_size, double gamma = 0.1);

 protected:
  std::vector<double> get_lr() override;

 private:
  int64_t step_size_;
  double gamma_;
};

// lr = base_lr * lr_lambda(epoch): one function for every group, or one per group.
class LambdaLR : public LRScheduler {
 public:
  using LrLambda = std::function<double(int64_t epoch)>;
  LambdaLR(Optimizer& optimizer, LrLambda lr_lambda);
  LambdaLR(Optimizer& optimizer, std::vector<LrLambda> lr_lambdas);

 protected:
  std::vector<double> get_lr() override;

 private:
  std::vector<LrLambda> lr_lambdas_;
};

// nanoGPT's learning rate at iteration `it`: linear warmup to learning_rate over warmup_iters
// (learning_rate * (it + 1) / (warmup_iters + 1)), cosine decay to min_lr at lr_decay_iters, then min_lr.
double nanogpt_lr(int64_t it, double learning_rate, double min_lr, int64_t warmup_iters, int64_t lr_decay_iters);

// nanogpt_lr as a scheduler: epoch e sets each group's lr to nanogpt_lr(e, base_lr, min_lr, ...).
class CosineWarmupLR : public LRScheduler {
 public:
  CosineWarmupLR(Optimizer& optimizer, int64_t warmup_iters, int64_t lr_decay_iters, double min_lr);

 protected:
  std::vector<double> get_lr() override;

 private:
  int64_t warmup_iters_, lr_decay_iters_;
  double min_lr_;
};

}  // namespace ember::optim
