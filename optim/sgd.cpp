// SGD (optim/sgd.h). Two ways to run the same update:
//   - the backend's sgd_update kernel (SgdRule in core/optim_rules.h) for contiguous tensors,
//     every parameter of a device and dtype in one call;
//   - PyTorch's sequence of tensor ops, for any other device or layout.
// Both follow torch 1.13's _single_tensor_sgd operation by operation.
#include "optim/sgd.h"

#include <algorithm>
#include <cmath>

#include "autograd/grad_mode.h"
#include "core/backend.h"
#include "core/trace.h"
#include "optim/detail.h"

namespace ember::optim {

using nlohmann::json;

SGDOptions::SGDOptions(double lr) : lr_(lr) {}

std::string SGDOptions::to_json() const {
  return json{{"lr", lr()},
              {"momentum", momentum()},
              {"dampening", dampening()},
              {"weight_decay", weight_decay()},
              {"nesterov", nesterov()},
              {"maximize", maximize()}}
      .dump();
}

void SGDOptions::from_json(const std::string& text) {
  json j = detail::parse_json(text, "SGDOptions::from_json");
  lr(detail::field<double>(j, "lr"));
  momentum(detail::field<double>(j, "momentum"));
  dampening(detail::field<double>(j, "dampening"));
  weight_decay(detail::field<double>(j, "weight_decay"));
  nesterov(detail::field<bool>(j, "nesterov"));
  maximize(detail::field<bool>(j, "maximize"));
}

SGD::SGD(std::vector<OptimizerParamGroup> param_groups, SGDOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<SGDOptions>(defaults)) {
  check_options();
}

SGD::SGD(std::vector<Tensor> params, SGDOptions defaults)
    : Optimizer(std::move(params), std::make_unique<SGDOptions>(defaults)) {
  check_options();
}

void SGD::check_options() const {
  for (size_t g = 0; g < param_groups_.size(); ++g) {
    const auto& o = detail::options_as<SGDOptions>(param_groups_[g].options(), "SGD");
    EMBER_CHECK(o.lr() >= 0, "SGD: invalid learning rate {} (group {})", o.lr(), g);
    EMBER_CHECK(o.momentum() >= 0, "SGD: invalid momentum value {} (group {})", o.momentum(), g);
    EMBER_CHECK(o.weight_decay() >= 0, "SGD: invalid weight_decay value {} (group {})", o.weight_decay(), g);
    EMBER_CHECK(!o.nesterov() || (o.momentum() > 0 && o.dampening() == 0),
                "SGD: Nesterov momentum requires a momentum and zero dampening (group {}: momentum {}, dampening {})",
                g, o.momentum(), o.dampening());
  }
}

void SGD::check_param_state(const OptimizerOptions& options, OptimizerParamState& state,
                            const std::string& where) const {
  const auto& o = detail::options_as<SGDOptions>(options, "SGD");
  EMBER_CHECK(o.momentum() == 0 || static_cast<SGDParamState&>(state).momentum_buffer().defined(),
              "{}: the group uses momentum {} but the checkpoint has no momentum_buffer", where, o.momentum());
}

namespace {

// torch 1.13's _single_tensor_sgd, op by op.
void sgd_composed(const Tensor& param, const Tensor& grad, Tensor& buf, const SgdStep& s) {
  Tensor p = param;
  Tensor d_p = s.maximize ? -grad : grad;
  if (s.weight_decay != 0) d_p = d_p.add(p, s.weight_decay);
  if (s.momentum != 0) {
    if (s.first_step)
      buf = d_p.clone().detach();
    else
      buf.mul_(s.momentum).add_(d_p, 1 - s.dampening);
    d_p = s.nesterov ? d_p.add(buf, s.momentum) : buf;
  }
  p.add_(d_p, -s.lr);
}

}  // namespace

Tensor SGD::step(LossClosure closure) {
  trace::StepEnd step_end;  // EMBER_DEBUG_STEPS counts optimizer steps
  Tensor loss = run_closure(closure);
  NoGradGuard no_grad;
  detail::UpdateBatches<3, SgdStep, Tensor> batches;  // State: the slot that keeps the momentum buffer
  for (auto& group : param_groups_) {
    const auto& o = detail::options_as<SGDOptions>(group.options(), "SGD");
    for (auto& p : group.params()) {
      const Tensor& grad = p.grad();
      if (!grad.defined()) continue;
      auto& slot = state_[p.unsafeGetTensorImpl()];
      if (!slot) slot = std::make_unique<SGDParamState>();
      Tensor& buf = static_cast<SGDParamState&>(*slot).momentum_buffer();
      const bool first_step = o.momentum() != 0 && !buf.defined();
      if (first_step) buf = empty_like(p);  // written by the kernel, or replaced by the composed update
      const SgdStep step{o.lr(), o.momentum(), o.dampening(), o.weight_decay(), o.nesterov(), o.maximize(), first_step};
      if (!batches.add({p, grad, buf}, step, &buf)) sgd_composed(p, grad, buf, step);
    }
  }
  batches.run([](Backend& backend, auto& l,
                 const std::vector<SgdStep>& steps) { return backend.sgd_update(l[0], l[1], l[2], steps); },
              sgd_composed);
  return loss;
}

}  // namespace ember::optim
