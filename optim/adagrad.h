// Adagrad: torch.optim.Adagrad's update (the single-tensor loop of PyTorch 1.13, dense gradients), as
// libtorch's torch::optim::Adagrad, with lr_decay, weight_decay, initial_accumulator_value, eps, maximize.
//
//   ember::optim::Adagrad opt(model->parameters(), ember::optim::AdagradOptions(0.1).lr_decay(1e-3));
//   opt.zero_grad();
//   loss.backward();
//   opt.step();
//
// Per parameter p with gradient g at step t (counted per parameter from 1), s the running sum of g^2
// (starting at initial_accumulator_value):
//   g = g + weight_decay * p;   clr = lr / (1 + (t - 1) lr_decay);   s = s + g * g
//   p = p - clr * g / (sqrt(s) + eps)
// The update is a sequence of tensor ops (no fused kernel), so it runs on every device.
#pragma once

#include "optim/optimizer.h"

namespace ember::optim {

struct AdagradOptions : public OptimizerOptions {
  AdagradOptions(double lr = 1e-2);  // NOLINT: implicit, as libtorch
  EMBER_ARG(double, lr) = 1e-2;
  EMBER_ARG(double, lr_decay) = 0;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(double, initial_accumulator_value) = 0;  // read from the defaults only (see Adagrad)
  EMBER_ARG(double, eps) = 1e-10;
  EMBER_ARG(bool, maximize) = false;

 public:
  std::unique_ptr<OptimizerOptions> clone() const override { return std::make_unique<AdagradOptions>(*this); }
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { this->lr(lr); }
  std::string to_json() const override;
  void from_json(const std::string& json) override;
};

struct AdagradParamState : public OptimizerParamState {
  EMBER_ARG(int64_t, step) = 0;
  EMBER_ARG(Tensor, sum);  // shaped like the parameter

 public:
  std::unique_ptr<OptimizerParamState> clone() const override { return std::make_unique<AdagradParamState>(*this); }
  std::vector<std::pair<std::string, Tensor*>> tensors() override { return {{"sum", &sum_}}; }
  std::vector<std::pair<std::string, int64_t*>> counters() override { return {{"step", &step_}}; }
};

// A parameter's sum is created by its first step, filled with the optimizer's default
// initial_accumulator_value: PyTorch 1.13 and libtorch fill every sum from the constructor's value,
// whatever a parameter group says (they fill it when the optimizer is built; the updates are the same).
class Adagrad : public Optimizer {
 public:
  Adagrad(std::vector<OptimizerParamGroup> param_groups, AdagradOptions defaults = {});
  Adagrad(std::vector<Tensor> params, AdagradOptions defaults = {});

  Tensor step(LossClosure closure = nullptr) override;
  std::string type_name() const override { return "Adagrad"; }

 protected:
  std::unique_ptr<OptimizerParamState> make_param_state() const override {
    return std::make_unique<AdagradParamState>();
  }
  void check_param_state(const OptimizerOptions& options, OptimizerParamState& state,
                         const std::string& where) const override;
};

}  // namespace ember::optim
