// Adagrad (optim/adagrad.h), run like optim/sgd.cpp: the backend's adagrad_update kernel
// (AdagradRule in core/optim_rules.h) for contiguous tensors, PyTorch's bits; torch 1.13's _single_tensor_adagrad
// (dense gradients) as tensor ops for any other device or layout. The decayed learning rate is
// computed in double, as Python does; the kernels round it to the tensor's dtype.
#include "optim/adagrad.h"

#include <algorithm>

#include "autograd/grad_mode.h"
#include "core/backend.h"
#include "core/trace.h"
#include "optim/detail.h"

namespace ember::optim {

using nlohmann::json;

AdagradOptions::AdagradOptions(double lr) : lr_(lr) {}

std::string AdagradOptions::to_json() const {
  return json{{"lr", lr()},
              {"lr_decay", lr_decay()},
              {"weight_decay", weight_decay()},
              {"initial_accumulator_value", initial_accumulator_value()},
              {"eps", eps()},
              {"maximize", maximize()}}
      .dump();
}

void AdagradOptions::from_json(const std::string& text) {
  json j = detail::parse_json(text, "AdagradOptions::from_json");
  lr(detail::field<double>(j, "lr"));
  lr_decay(detail::field<double>(j, "lr_decay"));
  weight_decay(detail::field<double>(j, "weight_decay"));
  initial_accumulator_value(detail::field<double>(j, "initial_accumulator_value"));
  eps(detail::field<double>(j, "eps"));
  maximize(detail::field<bool>(j, "maximize"));
}

Adagrad::Adagrad(std::vector<OptimizerParamGroup> param_groups, AdagradOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<AdagradOptions>(defaults)) {
  for (size_t g = 0; g < param_groups_.size(); ++g) {
    const auto& o = detail::options_as<AdagradOptions>(param_groups_[g].options(), "Adagrad");
    EMBER_CHECK(o.lr() >= 0, "Adagrad: invalid learning rate {} (group {})", o.lr(), g);
    EMBER_CHECK(o.lr_decay() >= 0, "Adagrad: invalid lr_decay value {} (group {})", o.lr_decay(), g);
    EMBER_CHECK(o.weight_decay() >= 0, "Adagrad: invalid weight_decay value {} (group {})", o.weight_decay(), g);
    EMBER_CHECK(o.initial_accumulator_value() >= 0, "Adagrad: invalid initial_accumulator_value value {} (group {})",
                o.initial_accumulator_value(), g);
    EMBER_CHECK(o.eps() >= 0, "Adagrad: invalid epsilon value {} (group {})", o.eps(), g);
  }
}

Adagrad::Adagrad(std::vector<Tensor> params, AdagradOptions defaults)
    : Adagrad(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, std::move(defaults)) {}

void Adagrad::check_param_state(const OptimizerOptions&, OptimizerParamState& state, const std::string& where) const {
  EMBER_CHECK(static_cast<AdagradParamState&>(state).sum().defined(), "{}: the checkpoint lacks sum", where);
}

namespace {

// torch 1.13's _single_tensor_adagrad (dense), op by op.
void adagrad_composed(const Tensor& param, const Tensor& g, AdagradParamState& st, const AdagradStep& h) {
  Tensor p = param;
  Tensor grad = h.maximize ? -g : g;
  if (h.weight_decay != 0) grad = grad.add(p, h.weight_decay);
  st.sum().add_(grad * 1.0 * grad);  // addcmul_(grad, grad, value=1)
  Tensor std = st.sum().sqrt().add_(h.eps);
  p.add_(grad * (-h.clr) / std);  // addcdiv_(grad, std, value=-clr)
}

}  // namespace

Tensor Adagrad::step(LossClosure closure) {
  trace::StepEnd step_end;  // EMBER_DEBUG_STEPS counts optimizer steps
  Tensor loss = run_closure(closure);
  NoGradGuard no_grad;
  const double initial_value = detail::options_as<AdagradOptions>(defaults(), "Adagrad").initial_accumulator_value();
  detail::UpdateBatches<3, AdagradStep, AdagradParamState> batches;
  for (auto& group : param_groups_) {
    const auto& o = detail::options_as<AdagradOptions>(group.options(), "Adagrad");
    for (auto& p : group.params()) {
      const Tensor& grad = p.grad();
      if (!grad.defined()) continue;
      auto& slot = state_[p.unsafeGetTensorImpl()];
      if (!slot) {
        auto fresh = std::make_unique<AdagradParamState>();
        fresh->sum(full_like(p, initial_value));
        slot = std::move(fresh);
      }
      auto& st = static_cast<AdagradParamState&>(*slot);
      st.step(st.step() + 1);
      // Python's arithmetic on the step count, in double
      const AdagradStep step{o.lr() / (1 + static_cast<double>(st.step() - 1) * o.lr_decay()), o.eps(),
                             o.weight_decay(), o.maximize()};
      if (!batches.add({p, grad, st.sum()}, step, &st)) adagrad_composed(p, grad, st, step);
    }
  }
  batches.run([](Backend& backend, auto& l,
                 const std::vector<AdagradStep>& steps) { return backend.adagrad_update(l[0], l[1], l[2], steps); },
              adagrad_composed);
  return loss;
}

}  // namespace ember::optim
