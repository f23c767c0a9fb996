// Adam and AdamW (optim/adam.h). One update routine serves both (`decoupled` picks AdamW's weight
// decay), in two forms that compute the same thing:
//   - the backend's adam_update kernel (AdamRule in core/optim_rules.h): one pass reads g, p, m, v
//     once, for contiguous tensors, every parameter of a device and dtype in one call;
//   - torch 1.13's _single_tensor_adam(w) as a sequence of tensor ops, for any device or layout.
// Bias corrections and the step size are computed here in double, as Python does; the kernel
// rounds them to the tensor's dtype.
#include "optim/adam.h"

#include <algorithm>
#include <cmath>

#include "autograd/grad_mode.h"
#include "core/backend.h"
#include "core/trace.h"
#include "optim/detail.h"

namespace ember::optim {

using nlohmann::json;

namespace {

template <typename Options>
std::string options_to_json(const Options& o) {
  return json{{"lr", o.lr()},           {"betas", {std::get<0>(o.betas()), std::get<1>(o.betas())}},
              {"eps", o.eps()},         {"weight_decay", o.weight_decay()},
              {"amsgrad", o.amsgrad()}, {"maximize", o.maximize()}}
      .dump();
}

template <typename Options>
void options_from_json(Options& o, const std::string& text) {
  json j = detail::parse_json(text, "from_json");
  auto betas = detail::field<std::vector<double>>(j, "betas");
  EMBER_CHECK(betas.size() == 2, "the saved option 'betas' must hold two numbers, got {}", betas.size());
  o.lr(detail::field<double>(j, "lr"));
  o.betas({betas[0], betas[1]});
  o.eps(detail::field<double>(j, "eps"));
  o.weight_decay(detail::field<double>(j, "weight_decay"));
  o.amsgrad(detail::field<bool>(j, "amsgrad"));
  o.maximize(detail::field<bool>(j, "maximize"));
}

// The hyper-parameters of one group, whichever options class holds them.
struct Hyper {
  double lr, beta1, beta2, eps, weight_decay;
  bool amsgrad, maximize, decoupled;
};

template <typename Options>
Hyper hyper(const Options& o, bool decoupled) {
  return {
      o.lr(),   std::get<0>(o.betas()), std::get<1>(o.betas()), o.eps(), o.weight_decay(), o.amsgrad(), o.maximize(),
      decoupled};
}

void check_hyper(const char* op, const Hyper& h, size_t group) {
  EMBER_CHECK(h.lr >= 0, "{}: invalid learning rate {} (group {})", op, h.lr, group);
  EMBER_CHECK(h.eps >= 0, "{}: invalid epsilon value {} (group {})", op, h.eps, group);
  EMBER_CHECK(h.beta1 >= 0 && h.beta1 < 1, "{}: invalid beta parameter at index 0: {} (group {})", op, h.beta1, group);
  EMBER_CHECK(h.beta2 >= 0 && h.beta2 < 1, "{}: invalid beta parameter at index 1: {} (group {})", op, h.beta2, group);
  EMBER_CHECK(h.weight_decay >= 0, "{}: invalid weight_decay value {} (group {})", op, h.weight_decay, group);
}

void check_state(const Hyper& h, AdamParamState& s, const std::string& where) {
  EMBER_CHECK(s.exp_avg().defined() && s.exp_avg_sq().defined(), "{}: the checkpoint lacks exp_avg or exp_avg_sq",
              where);
  EMBER_CHECK(s.step() >= 1, "{}: the checkpoint's step is {}, expected 1 or more", where, s.step());
  EMBER_CHECK(!h.amsgrad || s.max_exp_avg_sq().defined(),
              "{}: the group uses amsgrad but the checkpoint has no max_exp_avg_sq", where);
}

// Python's arithmetic on the step count, in double.
AdamStep adam_step_scalars(const Hyper& h, int64_t step) {
  const double bias_correction1 = 1 - std::pow(h.beta1, static_cast<double>(step));
  const double bias_correction2 = 1 - std::pow(h.beta2, static_cast<double>(step));
  return {
      h.lr,      h.beta1,    h.beta2,    h.eps, h.weight_decay, h.lr / bias_correction1, std::sqrt(bias_correction2),
      h.amsgrad, h.maximize, h.decoupled};
}

// torch 1.13's _single_tensor_adam / _single_tensor_adamw, op by op.
void adam_composed(const Tensor& param, const Tensor& g, AdamParamState& st, const AdamStep& h) {
  Tensor p = param;
  Tensor grad = h.maximize ? -g : g;
  if (h.decoupled)
    p.mul_(1 - h.lr * h.weight_decay);
  else if (h.weight_decay != 0)
    grad = grad.add(p, h.weight_decay);
  st.exp_avg().mul_(h.beta1).add_(grad, 1 - h.beta1);
  st.exp_avg_sq().mul_(h.beta2).add_(grad * (1 - h.beta2) * grad);  // addcmul_(grad, grad, value=1-b2)
  Tensor second = st.exp_avg_sq();
  if (h.amsgrad) {
    st.max_exp_avg_sq().copy_(maximum(st.max_exp_avg_sq(), st.exp_avg_sq()));
    second = st.max_exp_avg_sq();
  }
  Tensor denom = (second.sqrt() / h.bias_correction2_sqrt).add_(h.eps);
  p.add_(st.exp_avg() * (-h.step_size) / denom);
}

// The step shared by Adam and AdamW; `hyper_of` reads a group's options.
template <typename HyperOf>
void adam_step(std::vector<OptimizerParamGroup>& groups,
               std::unordered_map<void*, std::unique_ptr<OptimizerParamState>>& state, HyperOf hyper_of) {
  NoGradGuard no_grad;
  detail::UpdateBatches<5, AdamStep, AdamParamState> batches;
  for (auto& group : groups) {
    const Hyper h = hyper_of(group.options());
    for (auto& p : group.params()) {
      const Tensor& grad = p.grad();
      if (!grad.defined()) continue;
      auto& slot = state[p.unsafeGetTensorImpl()];
      if (!slot) {
        auto fresh = std::make_unique<AdamParamState>();
        fresh->exp_avg(zeros_like(p));
        fresh->exp_avg_sq(zeros_like(p));
        if (h.amsgrad) fresh->max_exp_avg_sq(zeros_like(p));
        slot = std::move(fresh);
      }
      auto& st = static_cast<AdamParamState&>(*slot);
      EMBER_CHECK(!h.amsgrad || st.max_exp_avg_sq().defined(),
                  "Adam: amsgrad was switched on after steps without it; the parameter of shape {} has no "
                  "max_exp_avg_sq",
                  p.sizes());
      st.step(st.step() + 1);
      const AdamStep step = adam_step_scalars(h, st.step());
      const Tensor& vmax = h.amsgrad ? st.max_exp_avg_sq() : Tensor();
      if (!batches.add({p, grad, st.exp_avg(), st.exp_avg_sq(), vmax}, step, &st)) adam_composed(p, grad, st, step);
    }
  }
  batches.run(
      [](Backend& backend, auto& l, const std::vector<AdamStep>& steps) {
        return backend.adam_update(l[0], l[1], l[2], l[3], l[4], steps);
      },
      adam_composed);
}

}  // namespace

// ---- options ----

AdamOptions::AdamOptions(double lr) : lr_(lr) {}
std::string AdamOptions::to_json() const { return options_to_json(*this); }
void AdamOptions::from_json(const std::string& json) { options_from_json(*this, json); }

AdamWOptions::AdamWOptions(double lr) : lr_(lr) {}
std::string AdamWOptions::to_json() const { return options_to_json(*this); }
void AdamWOptions::from_json(const std::string& json) { options_from_json(*this, json); }

// ---- Adam ----

Adam::Adam(std::vector<OptimizerParamGroup> param_groups, AdamOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<AdamOptions>(defaults)) {
  for (size_t g = 0; g < param_groups_.size(); ++g)
    check_hyper("Adam", hyper(detail::options_as<AdamOptions>(param_groups_[g].options(), "Adam"), false), g);
}

Adam::Adam(std::vector<Tensor> params, AdamOptions defaults)
    : Adam(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, std::move(defaults)) {}

Tensor Adam::step(LossClosure closure) {
  trace::StepEnd step_end;  // EMBER_DEBUG_STEPS counts optimizer steps
  Tensor loss = run_closure(closure);
  adam_step(param_groups_, state_,
            [](const OptimizerOptions& o) { return hyper(detail::options_as<AdamOptions>(o, "Adam"), false); });
  return loss;
}

void Adam::check_param_state(const OptimizerOptions& options, OptimizerParamState& state,
                             const std::string& where) const {
  check_state(hyper(detail::options_as<AdamOptions>(options, "Adam"), false), static_cast<AdamParamState&>(state),
              where);
}

// ---- AdamW ----

AdamW::AdamW(std::vector<OptimizerParamGroup> param_groups, AdamWOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<AdamWOptions>(defaults)) {
  for (size_t g = 0; g < param_groups_.size(); ++g)
    check_hyper("AdamW", hyper(detail::options_as<AdamWOptions>(param_groups_[g].options(), "AdamW"), true), g);
}

AdamW::AdamW(std::vector<Tensor> params, AdamWOptions defaults)
    : AdamW(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, std::move(defaults)) {}

Tensor AdamW::step(LossClosure closure) {
  trace::StepEnd step_end;  // EMBER_DEBUG_STEPS counts optimizer steps
  Tensor loss = run_closure(closure);
  adam_step(param_groups_, state_,
            [](const OptimizerOptions& o) { return hyper(detail::options_as<AdamWOptions>(o, "AdamW"), true); });
  return loss;
}

void AdamW::check_param_state(const OptimizerOptions& options, OptimizerParamState& state,
                              const std::string& where) const {
  check_state(hyper(detail::options_as<AdamWOptions>(options, "AdamW"), true), static_cast<AdamParamState&>(state),
              where);
}

}  // namespace ember::optim
