// RMSprop (optim/rmsprop.h). Two ways to run the same update, as optim/sgd.cpp:
//   - the backend's rmsprop_update kernel (RmspropRule in core/optim_rules.h) for contiguous
//     tensors, every parameter of a device and dtype in one call: PyTorch's bits, fused multiply-adds
//     included;
//   - torch 1.13's _single_tensor_rmsprop as a sequence of tensor ops, for any other device or layout.
#include "optim/rmsprop.h"

#include <algorithm>

#include "autograd/grad_mode.h"
#include "core/backend.h"
#include "core/trace.h"
#include "optim/detail.h"

namespace ember::optim {

using nlohmann::json;

RMSpropOptions::RMSpropOptions(double lr) : lr_(lr) {}

std::string RMSpropOptions::to_json() const {
  return json{{"lr", lr()},
              {"alpha", alpha()},
              {"eps", eps()},
              {"weight_decay", weight_decay()},
              {"momentum", momentum()},
              {"centered", centered()},
              {"maximize", maximize()}}
      .dump();
}

void RMSpropOptions::from_json(const std::string& text) {
  json j = detail::parse_json(text, "RMSpropOptions::from_json");
  lr(detail::field<double>(j, "lr"));
  alpha(detail::field<double>(j, "alpha"));
  eps(detail::field<double>(j, "eps"));
  weight_decay(detail::field<double>(j, "weight_decay"));
  momentum(detail::field<double>(j, "momentum"));
  centered(detail::field<bool>(j, "centered"));
  maximize(detail::field<bool>(j, "maximize"));
}

RMSprop::RMSprop(std::vector<OptimizerParamGroup> param_groups, RMSpropOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<RMSpropOptions>(defaults)) {
  for (size_t g = 0; g < param_groups_.size(); ++g) {
    const auto& o = detail::options_as<RMSpropOptions>(param_groups_[g].options(), "RMSprop");
    EMBER_CHECK(o.lr() >= 0, "RMSprop: invalid learning rate {} (group {})", o.lr(), g);
    EMBER_CHECK(o.eps() >= 0, "RMSprop: invalid epsilon value {} (group {})", o.eps(), g);
    EMBER_CHECK(o.momentum() >= 0, "RMSprop: invalid momentum value {} (group {})", o.momentum(), g);
    EMBER_CHECK(o.weight_decay() >= 0, "RMSprop: invalid weight_decay value {} (group {})", o.weight_decay(), g);
    EMBER_CHECK(o.alpha() >= 0, "RMSprop: invalid alpha value {} (group {})", o.alpha(), g);
  }
}

RMSprop::RMSprop(std::vector<Tensor> params, RMSpropOptions defaults)
    : RMSprop(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, std::move(defaults)) {}

void RMSprop::check_param_state(const OptimizerOptions& options, OptimizerParamState& state,
                                const std::string& where) const {
  const auto& o = detail::options_as<RMSpropOptions>(options, "RMSprop");
  auto& s = static_cast<RMSpropParamState&>(state);
  EMBER_CHECK(s.square_avg().defined(), "{}: the checkpoint lacks square_avg", where);
  EMBER_CHECK(o.momentum() == 0 || s.momentum_buffer().defined(),
              "{}: the group uses momentum {} but the checkpoint has no momentum_buffer", where, o.momentum());
  EMBER_CHECK(!o.centered() || s.grad_avg().defined(), "{}: the group is centered but the checkpoint has no grad_avg",
              where);
}

namespace {

// torch 1.13's _single_tensor_rmsprop, op by op (tensor ops round where PyTorch's fused
// multiply-adds do not, so this agrees with PyTorch to float rounding, the kernel bit for bit).
void rmsprop_composed(const Tensor& param, const Tensor& g, RMSpropParamState& st, const RmspropStep& h) {
  Tensor p = param;
  Tensor grad = h.maximize ? -g : g;
  if (h.weight_decay != 0) grad = grad.add(p, h.weight_decay);
  Tensor& square_avg = st.square_avg();
  square_avg.mul_(h.alpha).add_(grad * (1 - h.alpha) * grad);  // addcmul_(grad, grad, 1 - alpha)
  Tensor avg;
  if (h.centered) {
    Tensor& grad_avg = st.grad_avg();
    grad_avg.mul_(h.alpha).add_(grad, 1 - h.alpha);
    avg = (square_avg + grad_avg * -1.0 * grad_avg).sqrt_();  // addcmul(grad_avg, grad_avg, -1)
  } else {
    avg = square_avg.sqrt();
  }
  avg.add_(h.eps);
  if (h.momentum > 0) {
    Tensor& buf = st.momentum_buffer();
    buf.mul_(h.momentum).add_(grad / avg);  // addcdiv_(grad, avg)
    p.add_(buf, -h.lr);
  } else {
    p.add_(grad * (-h.lr) / avg);  // addcdiv_(grad, avg, -lr)
  }
}

}  // namespace

Tensor RMSprop::step(LossClosure closure) {
  trace::StepEnd step_end;  // EMBER_DEBUG_STEPS counts optimizer steps
  Tensor loss = run_closure(closure);
  NoGradGuard no_grad;
  detail::UpdateBatches<5, RmspropStep, RMSpropParamState> batches;
  for (auto& group : param_groups_) {
    const auto& o = detail::options_as<RMSpropOptions>(group.options(), "RMSprop");
    const RmspropStep step{o.lr(), o.alpha(), o.eps(), o.weight_decay(), o.momentum(), o.centered(), o.maximize()};
    for (auto& p : group.params()) {
      const Tensor& grad = p.grad();
      if (!grad.defined()) continue;
      auto& slot = state_[p.unsafeGetTensorImpl()];
      if (!slot) {
        auto fresh = std::make_unique<RMSpropParamState>();
        fresh->square_avg(zeros_like(p));
        if (o.momentum() > 0) fresh->momentum_buffer(zeros_like(p));
        if (o.centered()) fresh->grad_avg(zeros_like(p));
        slot = std::move(fresh);
      }
      auto& st = static_cast<RMSpropParamState&>(*slot);
      EMBER_CHECK(o.momentum() == 0 || st.momentum_buffer().defined(),
                  "RMSprop: momentum was switched on after steps without it (parameter of shape {})", p.sizes());
      EMBER_CHECK(!o.centered() || st.grad_avg().defined(),
                  "RMSprop: centered was switched on after steps without it (parameter of shape {})", p.sizes());
      st.step(st.step() + 1);
      // Buffers the options do not use are not handed to the kernel.
      const Tensor& grad_avg = o.centered() ? st.grad_avg() : Tensor();
      const Tensor& buf = o.momentum() > 0 ? st.momentum_buffer() : Tensor();
      if (!batches.add({p, grad, st.square_avg(), grad_avg, buf}, step, &st)) rmsprop_composed(p, grad, st, step);
    }
  }
  batches.run(
      [](Backend& backend, auto& l, const std::vector<RmspropStep>& steps) {
        return backend.rmsprop_update(l[0], l[1], l[2], l[3], l[4], steps);
      },
      rmsprop_composed);
  return loss;
}

}  // namespace ember::optim
