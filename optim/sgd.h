// Stochastic gradient descent with momentum, dampening, Nesterov momentum and weight decay:
// torch.optim.SGD's update (the single-tensor loop of PyTorch 1.13), as libtorch's torch::optim::SGD.
//
//   ember::optim::SGD opt(model->parameters(), ember::optim::SGDOptions(0.1).momentum(0.9).nesterov(true));
//   opt.zero_grad();
//   loss.backward();
//   opt.step();
//
// Per parameter p with gradient g (b is the momentum buffer, created as a copy of g on the first step):
//   g = g + weight_decay * p;   b = momentum * b + (1 - dampening) * g;
//   g = nesterov ? g + momentum * b : b;   p = p - lr * g
#pragma once

#include "optim/optimizer.h"

namespace ember::optim {

struct SGDOptions : public OptimizerOptions {
  SGDOptions(double lr);  // NOLINT: implicit, as libtorch
  EMBER_ARG(double, lr);
  EMBER_ARG(double, momentum) = 0;
  EMBER_ARG(double, dampening) = 0;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(bool, nesterov) = false;
  EMBER_ARG(bool, maximize) = false;  // ascend the objective instead

 public:
  std::unique_ptr<OptimizerOptions> clone() const override { return std::make_unique<SGDOptions>(*this); }
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { this->lr(lr); }
  std::string to_json() const override;
  void from_json(const std::string& json) override;
};

struct SGDParamState : public OptimizerParamState {
  EMBER_ARG(Tensor, momentum_buffer);  // shaped like the parameter; undefined until momentum is used

 public:
  std::unique_ptr<OptimizerParamState> clone() const override { return std::make_unique<SGDParamState>(*this); }
  std::vector<std::pair<std::string, Tensor*>> tensors() override { return {{"momentum_buffer", &momentum_buffer_}}; }
};

class SGD : public Optimizer {
 public:
  SGD(std::vector<OptimizerParamGroup> param_groups, SGDOptions defaults);
  SGD(std::vector<Tensor> params, SGDOptions defaults);

  Tensor step(LossClosure closure = nullptr) override;
  std::string type_name() const override { return "SGD"; }

 protected:
  std::unique_ptr<OptimizerParamState> make_param_state() const override { return std::make_unique<SGDParamState>(); }
  void check_param_state(const OptimizerOptions& options, OptimizerParamState& state,
                         const std::string& where) const override;

 private:
  void check_options() const;
};

}  // namespace ember::optim
