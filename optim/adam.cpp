// Adam and AdamW (optim/adam.h). One update routine serves both (`decoupled` picks AdamW's weight
// decay), in two forms that compute the same thing:
//   - a fused loop over raw memory for contiguous host tensors: one pass reads g, p, m, v once;
//   - torch 1.13's _single_tensor_adam(w) as a sequence of tensor ops, for any device or layout.
// Bias corrections and the step size are computed in double, as Python does, then rounded to the
// tensor's dtype. Where PyTorch's CPU kernels round once (add with alpha, addcmul: fused
// multiply-add), the loop calls std::fma, so results match PyTorch's bit for bit.
#include "optim/adam.h"

#include <cmath>

#include "autograd/grad_mode.h"
#include "optim/detail.h"

namespace ember::optim {

using nlohmann::json;

namespace {

template <typename Options>
std::string options_to_json(const Options& o) {
  return json{{"lr", o.lr()},
              {"betas", {std::get<0>(o.betas()), std::get<1>(o.betas())}},
              {"eps", o.eps()},
              {"weight_decay", o.weight_decay()},
              {"amsgrad", o.amsgrad()},
              {"maximize", o.maximize()}}
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
  return {o.lr(), std::get<0>(o.betas()), std::get<1>(o.betas()), o.eps(), o.weight_decay(), o.amsgrad(),
          o.maximize(), decoupled};
}

void check_hyper(const char* op, const Hyper& h, size_t group) {
  EMBER_CHECK(h.lr >= 0, "{}: invalid learning rate {} (group {})", op, h.lr, group);
  EMBER_CHECK(h.eps >= 0, "{}: invalid epsilon value {} (group {})", op, h.eps, group);
  EMBER_CHECK(h.beta1 >= 0 && h.beta1 < 1, "{}: invalid beta parameter at index 0: {} (group {})", op, h.beta1, group);
  EMBER_CHECK(h.beta2 >= 0 && h.beta2 < 1, "{}: invalid beta parameter at index 1: {} (group {})", op, h.beta2, group);
  EMBER_CHECK(h.weight_decay >= 0, "{}: invalid weight_decay value {} (group {})", op, h.weight_decay, group);
}

void check_state(const Hyper& h, AdamParamState& s, const std::string& where) {
  EMBER_CHECK(s.exp_avg().defined() && s.exp_avg_sq().defined(),
              "{}: the checkpoint lacks exp_avg or exp_avg_sq", where);
  EMBER_CHECK(s.step() >= 1, "{}: the checkpoint's step is {}, expected 1 or more", where, s.step());
  EMBER_CHECK(!h.amsgrad || s.max_exp_avg_sq().defined(),
              "{}: the group uses amsgrad but the checkpoint has no max_exp_avg_sq", where);
}

// The scalars of one update, rounded to the parameter's dtype T as PyTorch's kernels round them.
template <typename T>
struct AdamScalars {
  T beta1, one_minus_beta1, beta2, one_minus_beta2;
  T weight_decay;       // Adam: g + weight_decay * p
  T decay;              // AdamW: p * (1 - lr * weight_decay)
  T neg_step_size;      // -lr / (1 - beta1^t)
  T bias_correction2_sqrt, eps;
  bool amsgrad, maximize, decoupled;
};

// One pass over n elements of p, g, m (exp_avg), v (exp_avg_sq) and vmax (amsgrad only). The two
// flags that change which arrays are written are template parameters, so the loop has no branches
// and vectorises.
template <bool kAmsgrad, bool kDecoupled, typename T>
inline __attribute__((always_inline)) void adam_update(T* __restrict p, const T* __restrict g, T* __restrict m,
                                                      T* __restrict v, T* __restrict vmax, int64_t n,
                                                      const AdamScalars<T> s) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) {
    T grad = s.maximize ? -g[i] : g[i];
    T param = p[i];
    if constexpr (kDecoupled)
      param = param * s.decay;  // param.mul_(1 - lr * weight_decay)
    else
      grad = s.weight_decay != T(0) ? std::fma(s.weight_decay, param, grad) : grad;  // grad.add(param, alpha=wd)
    const T mi = std::fma(s.one_minus_beta1, grad, m[i] * s.beta1);         // exp_avg.mul_(b1).add_(g, alpha=1-b1)
    const T vi = std::fma(s.one_minus_beta2 * grad, grad, v[i] * s.beta2);  // exp_avg_sq.mul_(b2).addcmul_(g, g, 1-b2)
    m[i] = mi;
    v[i] = vi;
    T second = vi;
    if constexpr (kAmsgrad) {
      const T mx = vmax[i];
      second = (mx != mx || mx > vi) ? mx : vi;  // torch.maximum: NaN wins
      vmax[i] = second;
    }
    const T denom = std::sqrt(second) / s.bias_correction2_sqrt + s.eps;
    p[i] = param + (s.neg_step_size * mi) / denom;  // param.addcdiv_(exp_avg, denom, value=-step_size)
  }
}

template <typename T>
inline __attribute__((always_inline)) void adam_update_any(T* p, const T* g, T* m, T* v, T* vmax, int64_t n,
                                                          const AdamScalars<T>& s) {
  if (s.amsgrad)
    s.decoupled ? adam_update<true, true>(p, g, m, v, vmax, n, s) : adam_update<true, false>(p, g, m, v, vmax, n, s);
  else
    s.decoupled ? adam_update<false, true>(p, g, m, v, vmax, n, s) : adam_update<false, false>(p, g, m, v, vmax, n, s);
}

// Compiled for CPUs with FMA instructions and for the baseline; both give the same bits.
__attribute__((target_clones("arch=x86-64-v3", "default")))
void adam_update_f32(float* p, const float* g, float* m, float* v, float* vmax, int64_t n, AdamScalars<float> s) {
  adam_update_any(p, g, m, v, vmax, n, s);
}
__attribute__((target_clones("arch=x86-64-v3", "default")))
void adam_update_f64(double* p, const double* g, double* m, double* v, double* vmax, int64_t n,
                     AdamScalars<double> s) {
  adam_update_any(p, g, m, v, vmax, n, s);
}

struct StepScalars {
  double bias_correction1, bias_correction2, step_size, bias_correction2_sqrt;
};

// Python's arithmetic on the step count, in double.
StepScalars step_scalars(const Hyper& h, int64_t step) {
  StepScalars s;
  s.bias_correction1 = 1 - std::pow(h.beta1, static_cast<double>(step));
  s.bias_correction2 = 1 - std::pow(h.beta2, static_cast<double>(step));
  s.step_size = h.lr / s.bias_correction1;
  s.bias_correction2_sqrt = std::sqrt(s.bias_correction2);
  return s;
}

// One parameter's fused update: its arrays and the scalars of its step.
template <typename T>
struct FusedUpdate {
  T *p, *m, *v, *vmax;
  const T* g;
  int64_t n;
  AdamScalars<T> s;
};

template <typename T>
FusedUpdate<T> fused_update(const Tensor& p, const Tensor& grad, AdamParamState& st, const Hyper& h,
                            const StepScalars& c) {
  AdamScalars<T> s{T(h.beta1), T(1 - h.beta1), T(h.beta2), T(1 - h.beta2), T(h.weight_decay),
                   T(1 - h.lr * h.weight_decay), T(-c.step_size), T(c.bias_correction2_sqrt), T(h.eps),
                   h.amsgrad, h.maximize, h.decoupled};
  return {p.data_ptr<T>(), st.exp_avg().data_ptr<T>(), st.exp_avg_sq().data_ptr<T>(),
          h.amsgrad ? st.max_exp_avg_sq().data_ptr<T>() : nullptr, grad.data_ptr<T>(), p.numel(), s};
}

template <typename T>
void run_update(const FusedUpdate<T>& u, int64_t b, int64_t e) {
  T* x = u.vmax ? u.vmax + b : nullptr;
  if constexpr (std::is_same_v<T, float>)
    adam_update_f32(u.p + b, u.g + b, u.m + b, u.v + b, x, e - b, u.s);
  else
    adam_update_f64(u.p + b, u.g + b, u.m + b, u.v + b, x, e - b, u.s);
}

// Every parameter's update in one loop over all their elements (detail::for_each_piece).
template <typename T>
void run_updates(const std::vector<FusedUpdate<T>>& updates) {
  std::vector<int64_t> sizes;
  for (const auto& u : updates) sizes.push_back(u.n);
  detail::for_each_piece(sizes, [&](int, size_t i, int64_t b, int64_t e) { run_update(updates[i], b, e); });
}

// torch 1.13's _single_tensor_adam / _single_tensor_adamw, op by op.
void adam_composed(Tensor& p, const Tensor& g, AdamParamState& st, const Hyper& h, const StepScalars& c) {
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
  Tensor denom = (second.sqrt() / c.bias_correction2_sqrt).add_(h.eps);
  p.add_(st.exp_avg() * (-c.step_size) / denom);
}

// The step shared by Adam and AdamW; `hyper_of` reads a group's options.
template <typename HyperOf>
void adam_step(std::vector<OptimizerParamGroup>& groups,
               std::unordered_map<void*, std::unique_ptr<OptimizerParamState>>& state, HyperOf hyper_of) {
  NoGradGuard no_grad;
  std::vector<FusedUpdate<float>> updates_f32;
  std::vector<FusedUpdate<double>> updates_f64;
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
                  "max_exp_avg_sq", p.sizes());
      st.step(st.step() + 1);
      const StepScalars c = step_scalars(h, st.step());
      const Tensor& vmax = h.amsgrad ? st.max_exp_avg_sq() : Tensor();
      const bool fused = (p.dtype() == kFloat32 || p.dtype() == kFloat64) &&
                         detail::fusable(p.dtype(), {&p, &grad, &st.exp_avg(), &st.exp_avg_sq(), &vmax});
      if (fused) {
        if (p.dtype() == kFloat32)
          updates_f32.push_back(fused_update<float>(p, grad, st, h, c));
        else
          updates_f64.push_back(fused_update<double>(p, grad, st, h, c));
        for (const Tensor* t : std::initializer_list<const Tensor*>{&p, &st.exp_avg(), &st.exp_avg_sq(), &vmax})
          if (t->defined()) t->bump_version();  // in-place writes, as the tensor ops would record
      } else {
        adam_composed(p, grad, st, h, c);
      }
    }
  }
  run_updates(updates_f32);
  run_updates(updates_f64);
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
  Tensor loss = run_closure(closure);
  adam_step(param_groups_, state_,
            [](const OptimizerOptions& o) { return hyper(detail::options_as<AdamOptions>(o, "Adam"), false); });
  return loss;
}

void Adam::check_param_state(const OptimizerOptions& options, OptimizerParamState& state,
                             const std::string& where) const {
  check_state(hyper(detail::options_as<AdamOptions>(options, "Adam"), false), static_cast<AdamParamState&>(state), where);
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
  Tensor loss = run_closure(closure);
  adam_step(param_groups_, state_,
            [](const OptimizerOptions& o) { return hyper(detail::options_as<AdamWOptions>(o, "AdamW"), true); });
  return loss;
}

void AdamW::check_param_state(const OptimizerOptions& options, OptimizerParamState& state,
                              const std::string& where) const {
  check_state(hyper(detail::options_as<AdamWOptions>(options, "AdamW"), true), static_cast<AdamParamState&>(state), where);
}

}  // namespace ember::optim
