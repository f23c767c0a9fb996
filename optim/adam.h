// Adam and AdamW: torch.optim.Adam / AdamW's update (the single-tensor loop of PyTorch 1.13), as
// libtorch's torch::optim::Adam / AdamW. They differ only in weight decay: Adam adds
// weight_decay * p to the gradient (L2), AdamW shrinks the parameter by lr * weight_decay (decoupled).
//
//   ember::optim::AdamW opt(model->parameters(), ember::optim::AdamWOptions(1e-3).betas({0.9,
//   0.95}).weight_decay(0.1)); opt.zero_grad(); loss.backward(); opt.step();
//
// Per parameter p with gradient g, at step t (counted per parameter from 1):
//   m = beta1 * m + (1 - beta1) * g;   v = beta2 * v + (1 - beta2) * g * g;   (amsgrad: v_max = max(v_max, v))
//   p = p - lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)
#pragma once

#include <tuple>

#include "optim/optimizer.h"

namespace ember::optim {

struct AdamOptions : public OptimizerOptions {
  AdamOptions(double lr = 1e-3);  // NOLINT: implicit, as libtorch
  using betas_t = std::tuple<double, double>;
  EMBER_ARG(double, lr) = 1e-3;
  EMBER_ARG(betas_t, betas) = std::make_tuple(0.9, 0.999);
  EMBER_ARG(double, eps) = 1e-8;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(bool, amsgrad) = false;
  EMBER_ARG(bool, maximize) = false;  // ascend the objective instead

 public:
  std::unique_ptr<OptimizerOptions> clone() const override { return std::make_unique<AdamOptions>(*this); }
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { this->lr(lr); }
  std::string to_json() const override;
  void from_json(const std::string& json) override;
};

// AdamW's options: Adam's, with weight_decay 1e-2 by default.
struct AdamWOptions : public OptimizerOptions {
  AdamWOptions(double lr = 1e-3);  // NOLINT: implicit, as libtorch
  using betas_t = std::tuple<double, double>;
  EMBER_ARG(double, lr) = 1e-3;
  EMBER_ARG(betas_t, betas) = std::make_tuple(0.9, 0.999);
  EMBER_ARG(double, eps) = 1e-8;
  EMBER_ARG(double, weight_decay) = 1e-2;
  EMBER_ARG(bool, amsgrad) = false;
  EMBER_ARG(bool, maximize) = false;

 public:
  std::unique_ptr<OptimizerOptions> clone() const override { return std::make_unique<AdamWOptions>(*this); }
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { this->lr(lr); }
  std::string to_json() const override;
  void from_json(const std::string& json) override;
};

// Adam's and AdamW's per-parameter state; the moments are shaped like the parameter.
struct AdamParamState : public OptimizerParamState {
  EMBER_ARG(int64_t, step) = 0;
  EMBER_ARG(Tensor, exp_avg);         // m
  EMBER_ARG(Tensor, exp_avg_sq);      // v
  EMBER_ARG(Tensor, max_exp_avg_sq);  // max of v so far (amsgrad only)

 public:
  std::unique_ptr<OptimizerParamState> clone() const override { return std::make_unique<AdamParamState>(*this); }
  std::vector<std::pair<std::string, Tensor*>> tensors() override {
    return {{"exp_avg", &exp_avg_}, {"exp_avg_sq", &exp_avg_sq_}, {"max_exp_avg_sq", &max_exp_avg_sq_}};
  }
  std::vector<std::pair<std::string, int64_t*>> counters() override { return {{"step", &step_}}; }
};
using AdamWParamState = AdamParamState;

class Adam : public Optimizer {
 public:
  Adam(std::vector<OptimizerParamGroup> param_groups, AdamOptions defaults = {});
  Adam(std::vector<Tensor> params, AdamOptions defaults = {});

  Tensor step(LossClosure closure = nullptr) override;
  std::string type_name() const override { return "Adam"; }

 protected:
  std::unique_ptr<OptimizerParamState> make_param_state() const override { return std::make_unique<AdamParamState>(); }
  void check_param_state(const OptimizerOptions& options, OptimizerParamState& state,
                         const std::string& where) const override;
};

class AdamW : public Optimizer {
 public:
  AdamW(std::vector<OptimizerParamGroup> param_groups, AdamWOptions defaults = {});
  AdamW(std::vector<Tensor> params, AdamWOptions defaults = {});

  Tensor step(LossClosure closure = nullptr) override;
  std::string type_name() const override { return "AdamW"; }

 protected:
  std::unique_ptr<OptimizerParamState> make_param_state() const override { return std::make_unique<AdamParamState>(); }
  void check_param_state(const OptimizerOptions& options, OptimizerParamState& state,
                         const std::string& where) const override;
};

}  // namespace ember::optim
