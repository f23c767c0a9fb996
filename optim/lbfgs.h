// L-BFGS: torch.optim.LBFGS (PyTorch 1.13), as libtorch's torch::optim::LBFGS. A quasi-Newton method
// that keeps the last `history_size` steps and gradient changes and, from them, an approximation of
// the inverse Hessian; optionally with a strong-Wolfe line search. Not a per-parameter update: every
// parameter is one flat vector, so there is one parameter group and one state.
//
//   ember::optim::LBFGS opt(model->parameters(), ember::optim::LBFGSOptions(1).line_search_fn("strong_wolfe"));
//   auto closure = [&] {
//     opt.zero_grad();
//     ember::Tensor loss = criterion(model->forward(x), y);
//     loss.backward();
//     return loss;
//   };
//   ember::Tensor loss = opt.step(closure);   // up to max_iter iterations; the loss at their start
//
// The state (as libtorch's and PyTorch's) is kept on the first parameter: func_evals and n_iter
// (counted over every step), the last direction d and step length t, H_diag, prev_flat_grad,
// prev_loss and the history old_dirs (y), old_stps (s), ro (1 / y.s); all flat vectors hold every
// parameter's elements, in order.
#pragma once

#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "optim/optimizer.h"

namespace ember::optim {

struct LBFGSOptions : public OptimizerOptions {
  LBFGSOptions(double lr = 1);  // NOLINT: implicit, as libtorch
  EMBER_ARG(double, lr) = 1;
  EMBER_ARG(int64_t, max_iter) = 20;            // iterations per step()
  EMBER_ARG(std::optional<int64_t>, max_eval);  // closure calls per step(); max_iter * 5 / 4 if unset
  EMBER_ARG(double, tolerance_grad) = 1e-7;     // stop when max |gradient| is at most this
  EMBER_ARG(double, tolerance_change) = 1e-9;   // stop when the step or the loss changes less
  EMBER_ARG(int64_t, history_size) = 100;
  EMBER_ARG(std::optional<std::string>, line_search_fn);  // none, or "strong_wolfe"

 public:
  std::unique_ptr<OptimizerOptions> clone() const override { return std::make_unique<LBFGSOptions>(*this); }
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { this->lr(lr); }
  std::string to_json() const override;
  void from_json(const std::string& json) override;
};

struct LBFGSParamState : public OptimizerParamState {
  EMBER_ARG(int64_t, func_evals) = 0;
  EMBER_ARG(int64_t, n_iter) = 0;
  EMBER_ARG(double, t) = 0;                           // the last step length
  EMBER_ARG(double, prev_loss) = 0;                   // the loss before the last iteration
  EMBER_ARG(Tensor, d);                               // (N,) the last search direction
  EMBER_ARG(Tensor, H_diag);                          // () scale of the initial inverse Hessian, y.s / y.y
  EMBER_ARG(Tensor, prev_flat_grad);                  // (N,)
  EMBER_ARG(std::deque<Tensor>, old_dirs);            // each (N,): gradient changes y, oldest first
  EMBER_ARG(std::deque<Tensor>, old_stps);            // each (N,): steps s
  EMBER_ARG(std::deque<Tensor>, ro);                  // each (): 1 / y.s
  EMBER_ARG(std::optional<std::vector<Tensor>>, al);  // history_size scalars, the two-loop's alphas

 public:
  std::unique_ptr<OptimizerParamState> clone() const override { return std::make_unique<LBFGSParamState>(*this); }
  // Saved as "d", "H_diag", "prev_flat_grad", "old_dirs.<k>", "old_stps.<k>", "ro.<k>", "al.<k>".
  std::vector<std::pair<std::string, Tensor*>> tensors() override;
  std::vector<std::pair<std::string, int64_t*>> counters() override {
    return {{"func_evals", &func_evals_}, {"n_iter", &n_iter_}};
  }
  std::vector<std::pair<std::string, double*>> reals() override { return {{"t", &t_}, {"prev_loss", &prev_loss_}}; }
  Tensor* tensor_slot(const std::string& name) override;
  bool shaped_like_parameter() const override { return false; }
};

class LBFGS : public Optimizer {
 public:
  LBFGS(std::vector<OptimizerParamGroup> param_groups, LBFGSOptions defaults = {});
  LBFGS(std::vector<Tensor> params, LBFGSOptions defaults = {});

  // Runs up to max_iter iterations, calling `closure` (required) to re-evaluate the loss and the
  // gradients; returns the loss of the first call.
  Tensor step(LossClosure closure) override;
  std::string type_name() const override { return "LBFGS"; }

 protected:
  std::unique_ptr<OptimizerParamState> make_param_state() const override { return std::make_unique<LBFGSParamState>(); }
  void check_param_state(const OptimizerOptions& options, OptimizerParamState& state,
                         const std::string& where) const override;

 private:
  const std::vector<Tensor>& params() const { return param_groups_.at(0).params(); }
  Tensor gather_flat_grad() const;                        // (N,) zeros where a gradient is unset
  void add_grad(double step_size, const Tensor& update);  // params += step_size * update
  std::vector<Tensor> clone_params() const;
  void set_params(const std::vector<Tensor>& values);
  // The loss and flat gradient at params + t * d; the parameters are put back afterwards.
  std::pair<double, Tensor> directional_evaluate(const LossClosure& closure, const std::vector<Tensor>& x, double t,
                                                 const Tensor& d);
};

}  // namespace ember::optim
