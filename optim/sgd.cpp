// SGD (optim/sgd.h). Two ways to run the same update:
//   - a fused loop over raw memory for contiguous host tensors, one pass per parameter;
//   - PyTorch's sequence of tensor ops, for any other device or layout.
// Both follow torch 1.13's _single_tensor_sgd operation by operation. PyTorch's add(x, alpha=a)
// rounds once (its CPU kernels use a fused multiply-add), so the loop uses std::fma where PyTorch
// adds a scaled tensor, and scalars are rounded to the tensor's dtype first, as PyTorch does.
#include "optim/sgd.h"

#include <cmath>

#include "autograd/grad_mode.h"
#include "optim/detail.h"

namespace ember::optim {

using nlohmann::json;

SGDOptions::SGDOptions(double lr) : lr_(lr) {}

std::string SGDOptions::to_json() const {
  return json{{"lr", lr()}, {"momentum", momentum()}, {"dampening", dampening()}, {"weight_decay", weight_decay()},
              {"nesterov", nesterov()}, {"maximize", maximize()}}
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
                "SGD: Nesterov momentum requires a momentum and zero dampening (group {}: momentum {}, dampening {})", g,
                o.momentum(), o.dampening());
  }
}

void SGD::check_param_state(const OptimizerOptions& options, OptimizerParamState& state,
                            const std::string& where) const {
  const auto& o = detail::options_as<SGDOptions>(options, "SGD");
  EMBER_CHECK(o.momentum() == 0 || static_cast<SGDParamState&>(state).momentum_buffer().defined(),
              "{}: the group uses momentum {} but the checkpoint has no momentum_buffer", where, o.momentum());
}

namespace {

// The scalars of one update, rounded to the parameter's dtype T as PyTorch's kernels round them.
template <typename T>
struct SGDScalars {
  T neg_lr, momentum, one_minus_dampening, weight_decay;
  bool use_momentum, nesterov, maximize, first_step;
};

// One pass over n elements: p (updated), g (read), buf (updated, or written when first_step).
template <typename T>
inline __attribute__((always_inline)) void sgd_update(T* __restrict p, const T* __restrict g, T* __restrict buf,
                                                     int64_t n, const SGDScalars<T> s) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) {
    T d = s.maximize ? -g[i] : g[i];
    if (s.weight_decay != T(0)) d = std::fma(s.weight_decay, p[i], d);  // d_p.add(param, alpha=wd)
    if (s.use_momentum) {
      // buf.mul_(momentum).add_(d_p, alpha=1 - dampening), or a copy of d_p on the first step
      const T b = s.first_step ? d : std::fma(s.one_minus_dampening, d, buf[i] * s.momentum);
      buf[i] = b;
      d = s.nesterov ? std::fma(s.momentum, b, d) : b;  // d_p.add(buf, alpha=momentum)
    }
    p[i] = std::fma(s.neg_lr, d, p[i]);  // param.add_(d_p, alpha=-lr)
  }
}

// Compiled for CPUs with FMA instructions and for the baseline; both give the same bits.
__attribute__((target_clones("arch=x86-64-v3", "default")))
void sgd_update_f32(float* p, const float* g, float* buf, int64_t n, SGDScalars<float> s) {
  sgd_update(p, g, buf, n, s);
}
__attribute__((target_clones("arch=x86-64-v3", "default")))
void sgd_update_f64(double* p, const double* g, double* buf, int64_t n, SGDScalars<double> s) {
  sgd_update(p, g, buf, n, s);
}

template <typename T>
void sgd_fused(const Tensor& p, const Tensor& grad, Tensor& buf, const SGDOptions& o) {
  const bool use_momentum = o.momentum() != 0;
  const bool first_step = use_momentum && !buf.defined();
  if (first_step) buf = empty_like(p);
  SGDScalars<T> s{T(-o.lr()), T(o.momentum()), T(1 - o.dampening()), T(o.weight_decay()),
                  use_momentum, o.nesterov(), o.maximize(), first_step};
  T* pp = p.data_ptr<T>();
  const T* gp = grad.data_ptr<T>();
  T* bp = use_momentum ? buf.data_ptr<T>() : nullptr;
  detail::parallel_chunks(p.numel(), [&](int64_t begin, int64_t end) {
    T* b = bp ? bp + begin : nullptr;
    if constexpr (std::is_same_v<T, float>)
      sgd_update_f32(pp + begin, gp + begin, b, end - begin, s);
    else
      sgd_update_f64(pp + begin, gp + begin, b, end - begin, s);
  });
}

// torch 1.13's _single_tensor_sgd, op by op.
void sgd_composed(Tensor& p, const Tensor& grad, Tensor& buf, const SGDOptions& o) {
  Tensor d_p = o.maximize() ? -grad : grad;
  if (o.weight_decay() != 0) d_p = d_p.add(p, o.weight_decay());
  if (o.momentum() != 0) {
    if (!buf.defined())
      buf = d_p.clone().detach();
    else
      buf.mul_(o.momentum()).add_(d_p, 1 - o.dampening());
    d_p = o.nesterov() ? d_p.add(buf, o.momentum()) : buf;
  }
  p.add_(d_p, -o.lr());
}

}  // namespace

Tensor SGD::step(LossClosure closure) {
  Tensor loss = run_closure(closure);
  NoGradGuard no_grad;
  for (auto& group : param_groups_) {
    const auto& o = detail::options_as<SGDOptions>(group.options(), "SGD");
    for (auto& p : group.params()) {
      const Tensor& grad = p.grad();
      if (!grad.defined()) continue;
      auto& slot = state_[p.unsafeGetTensorImpl()];
      if (!slot) slot = std::make_unique<SGDParamState>();
      Tensor& buf = static_cast<SGDParamState&>(*slot).momentum_buffer();
      if (detail::fusable(p.dtype(), {&p, &grad, &buf})) {
        if (p.dtype() == kFloat32)
          sgd_fused<float>(p, grad, buf, o);
        else
          sgd_fused<double>(p, grad, buf, o);
        p.bump_version();  // an in-place write, as param.add_ would record
        if (buf.defined()) buf.bump_version();
      } else {
        sgd_composed(p, grad, buf, o);
      }
    }
  }
  return loss;
}

}  // namespace ember::optim
