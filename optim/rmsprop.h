// RMSprop: torch.optim.RMSprop's update (the single-tensor loop of PyTorch 1.13), as libtorch's
// torch::optim::RMSprop, with alpha, eps, weight_decay, momentum, centered and maximize.
//
//   ember::optim::RMSprop opt(model->parameters(), ember::optim::RMSpropOptions(1e-3).momentum(0.9).centered(true));
//   opt.zero_grad();
//   loss.backward();
//   opt.step();
//
// Per parameter p with gradient g (v, the running mean of g^2; a, of g (centered); b, the momentum buffer;
// all start at zero):
//   g = g + weight_decay * p;   v = alpha * v + (1 - alpha) * g * g
//   avg = sqrt(centered ? v - a * a : v) + eps, with a = alpha * a + (1 - alpha) * g
//   momentum > 0: b = momentum * b + g / avg, p = p - lr * b;   else p = p - lr * g / avg
// The update is a sequence of tensor ops (no fused kernel), so it runs on every device.
#pragma once

#include "optim/optimizer.h"

namespace ember::optim {

struct RMSpropOptions : public OptimizerOptions {
  RMSpropOptions(double lr = 1e-2);  // NOLINT: implicit, as libtorch
  EMBER_ARG(double, lr) = 1e-2;
  EMBER_ARG(double, alpha) = 0.99;  // smoothing of the running mean of g^2
  EMBER_ARG(double, eps) = 1e-8;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(double, momentum) = 0;
  EMBER_ARG(bool, centered) = false;  // divide by the estimated standard deviation of g instead
  EMBER_ARG(bool, maximize) = false;

 public:
  std::unique_ptr<OptimizerOptions> clone() const override { return std::make_unique<RMSpropOptions>(*this); }
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { this->lr(lr); }
  std::string to_json() const override;
  void from_json(const std::string& json) override;
};

// Shaped like the parameter; momentum_buffer only with momentum > 0, grad_avg only when centered.
struct RMSpropParamState : public OptimizerParamState {
  EMBER_ARG(int64_t, step) = 0;
  EMBER_ARG(Tensor, square_avg);
  EMBER_ARG(Tensor, momentum_buffer);
  EMBER_ARG(Tensor, grad_avg);

 public:
  std::unique_ptr<OptimizerParamState> clone() const override { return std::make_unique<RMSpropParamState>(*this); }
  std::vector<std::pair<std::string, Tensor*>> tensors() override {
    return {{"square_avg", &square_avg_}, {"momentum_buffer", &momentum_buffer_}, {"grad_avg", &grad_avg_}};
  }
  std::vector<std::pair<std::string, int64_t*>> counters() override { return {{"step", &step_}}; }
};

class RMSprop : public Optimizer {
 public:
  RMSprop(std::vector<OptimizerParamGroup> param_groups, RMSpropOptions defaults = {});
  RMSprop(std::vector<Tensor> params, RMSpropOptions defaults = {});

  Tensor step(LossClosure closure = nullptr) override;
  std::string type_name() const override { return "RMSprop"; }

 protected:
  std::unique_ptr<OptimizerParamState> make_param_state() const override {
    return std::make_unique<RMSpropParamState>();
  }
  void check_param_state(const OptimizerOptions& options, OptimizerParamState& state,
                         const std::string& where) const override;
};

}  // namespace ember::optim
