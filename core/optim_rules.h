// The optimizers' update rules, one element at a time, written once for the CPU kernels
// (core/cpu/optim.cpp) and the CUDA kernels (cuda/optim.cu), as core/pool.h does for pooling windows.
//
//   optim/adam.cpp                 AdamStep (double, Python's arithmetic on the step count)
//     -> backend's adam_update     AdamRule<T> rule(step);  rounds the scalars to the parameter's dtype
//     -> the kernel's loop         rule.update<kAmsgrad, kDecoupled>(p, g, m, v, vmax, i) for each i
//
// Each rule follows torch 1.13's _single_tensor_<name> operation by operation. Where PyTorch's CPU
// kernels round once (add with alpha, addcmul) a rule calls fma, and the CPU kernels are compiled
// without contraction (CMakeLists.txt), so their results are PyTorch's bit for bit. The tensor-op
// form of each update in optim/ stays, for layouts the kernels do not take and as the tests' oracle.
//
// The Step structs are plain data (no Tensor), so nvcc parses this header too.
#pragma once

#include <cmath>
#include <cstdint>

#include "core/functors.h"  // EMBER_HD, EMBER_HD_INLINE

namespace ember {

// ---- the scalars of one parameter's step, in double as optim/ computes them ----

// Adam / AdamW (optim/adam.h).
struct AdamStep {
  double lr, beta1, beta2, eps, weight_decay;
  double step_size;                   // lr / (1 - beta1^step)
  double bias_correction2_sqrt;       // sqrt(1 - beta2^step)
  bool amsgrad, maximize, decoupled;  // decoupled: AdamW's weight decay
};
// SGD (optim/sgd.h); first_step: the momentum buffer is written, not read.
struct SgdStep {
  double lr, momentum, dampening, weight_decay;
  bool nesterov, maximize, first_step;
};
// RMSprop (optim/rmsprop.h).
struct RmspropStep {
  double lr, alpha, eps, weight_decay, momentum;
  bool centered, maximize;
};
// Adagrad; clr = lr / (1 + (step - 1) lr_decay) (optim/adagrad.h).
struct AdagradStep {
  double clr, eps, weight_decay;
  bool maximize;
};

namespace detail {
// fma and sqrt in T on either side: std:: on the host, CUDA's overloads for float and double on a device.
template <typename T>
EMBER_HD_INLINE T fma_(T a, T b, T c) {
#ifdef __CUDA_ARCH__
  return fma(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}
template <typename T>
EMBER_HD_INLINE T sqrt_(T x) {
#ifdef __CUDA_ARCH__
  return sqrt(x);
#else
  return std::sqrt(x);
#endif
}
}  // namespace detail

// ---- the rules: a Step's scalars rounded to T, and the update of element i ----
// Arrays a rule does not use (vmax without amsgrad, say) may be null; a rule never touches them.

// Adam / AdamW on p (param), g (grad), m (exp_avg), v (exp_avg_sq), vmax (max_exp_avg_sq).
template <typename T>
struct AdamRule {
  T beta1, one_minus_beta1, beta2, one_minus_beta2;
  T weight_decay;   // Adam: g + weight_decay * p
  T decay;          // AdamW: p * (1 - lr * weight_decay)
  T neg_step_size;  // -lr / (1 - beta1^t)
  T bias_correction2_sqrt, eps;
  bool amsgrad, maximize, decoupled;

  AdamRule() = default;
  explicit AdamRule(const AdamStep& h)
      : beta1(T(h.beta1)),
        one_minus_beta1(T(1 - h.beta1)),
        beta2(T(h.beta2)),
        one_minus_beta2(T(1 - h.beta2)),
        weight_decay(T(h.weight_decay)),
        decay(T(1 - h.lr * h.weight_decay)),
        neg_step_size(T(-h.step_size)),
        bias_correction2_sqrt(T(h.bias_correction2_sqrt)),
        eps(T(h.eps)),
        amsgrad(h.amsgrad),
        maximize(h.maximize),
        decoupled(h.decoupled) {}
  bool operator==(const AdamRule&) const = default;

  // The two flags that change which arrays are written are template parameters, so a loop over i
  // has no branches and vectorises; the caller picks them from amsgrad and decoupled.
  template <bool kAmsgrad, bool kDecoupled>
  EMBER_HD_INLINE void update(T* p, const T* g, T* m, T* v, T* vmax, int64_t i) const {
    T grad = maximize ? -g[i] : g[i];
    T param = p[i];
    if constexpr (kDecoupled)
      param = param * decay;  // param.mul_(1 - lr * weight_decay)
    else
      grad = weight_decay != T(0) ? detail::fma_(weight_decay, param, grad) : grad;  // grad.add(param, alpha=wd)
    const T mi = detail::fma_(one_minus_beta1, grad, m[i] * beta1);         // exp_avg.mul_(b1).add_(g, alpha=1-b1)
    const T vi = detail::fma_(one_minus_beta2 * grad, grad, v[i] * beta2);  // exp_avg_sq.mul_(b2).addcmul_(g, g, 1-b2)
    m[i] = mi;
    v[i] = vi;
    T second = vi;
    if constexpr (kAmsgrad) {
      const T mx = vmax[i];
      second = (mx != mx || mx > vi) ? mx : vi;  // torch.maximum: NaN wins
      vmax[i] = second;
    }
    const T denom = detail::sqrt_(second) / bias_correction2_sqrt + eps;
    p[i] = param + (neg_step_size * mi) / denom;  // param.addcdiv_(exp_avg, denom, value=-step_size)
  }
};

// SGD on p (param), g (grad), buf (momentum_buffer: with momentum; written, not read, on the first step).
template <typename T>
struct SgdRule {
  T neg_lr, momentum, one_minus_dampening, weight_decay;
  bool use_momentum, nesterov, maximize, first_step;

  SgdRule() = default;
  explicit SgdRule(const SgdStep& h)
      : neg_lr(T(-h.lr)),
        momentum(T(h.momentum)),
        one_minus_dampening(T(1 - h.dampening)),
        weight_decay(T(h.weight_decay)),
        use_momentum(h.momentum != 0),
        nesterov(h.nesterov),
        maximize(h.maximize),
        first_step(h.first_step) {}
  bool operator==(const SgdRule&) const = default;

  EMBER_HD_INLINE void update(T* p, const T* g, T* buf, int64_t i) const {
    T d = maximize ? -g[i] : g[i];
    if (weight_decay != T(0)) d = detail::fma_(weight_decay, p[i], d);  // d_p.add(param, alpha=wd)
    if (use_momentum) {
      // buf.mul_(momentum).add_(d_p, alpha=1 - dampening), or a copy of d_p on the first step
      const T b = first_step ? d : detail::fma_(one_minus_dampening, d, buf[i] * momentum);
      buf[i] = b;
      d = nesterov ? detail::fma_(momentum, b, d) : b;  // d_p.add(buf, alpha=momentum)
    }
    p[i] = detail::fma_(neg_lr, d, p[i]);  // param.add_(d_p, alpha=-lr)
  }
};

// RMSprop on p (param), g (grad), sq (square_avg), ga (grad_avg, centered only), buf (momentum_buffer,
// momentum > 0 only).
template <typename T>
struct RmspropRule {
  T neg_lr, alpha, one_minus_alpha, eps, weight_decay, momentum;
  bool centered, use_momentum, maximize;

  RmspropRule() = default;
  explicit RmspropRule(const RmspropStep& h)
      : neg_lr(T(-h.lr)),
        alpha(T(h.alpha)),
        one_minus_alpha(T(1 - h.alpha)),
        eps(T(h.eps)),
        weight_decay(T(h.weight_decay)),
        momentum(T(h.momentum)),
        centered(h.centered),
        use_momentum(h.momentum > 0),
        maximize(h.maximize) {}
  bool operator==(const RmspropRule&) const = default;

  EMBER_HD_INLINE void update(T* p, const T* g, T* sq, T* ga, T* buf, int64_t i) const {
    T grad = maximize ? -g[i] : g[i];
    if (weight_decay != T(0)) grad = detail::fma_(weight_decay, p[i], grad);  // grad.add(param, alpha=wd)
    const T v = detail::fma_(one_minus_alpha * grad, grad, sq[i] * alpha);    // square_avg.mul_(a).addcmul_(g, g, 1-a)
    sq[i] = v;
    T avg;
    if (centered) {
      const T a = detail::fma_(one_minus_alpha, grad, ga[i] * alpha);  // grad_avg.mul_(a).add_(g, alpha=1-a)
      ga[i] = a;
      avg = detail::sqrt_(detail::fma_(-a, a, v));  // square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
    } else {
      avg = detail::sqrt_(v);
    }
    avg = avg + eps;
    if (use_momentum) {
      const T b = buf[i] * momentum + grad / avg;  // buf.mul_(momentum).addcdiv_(grad, avg)
      buf[i] = b;
      p[i] = detail::fma_(neg_lr, b, p[i]);  // param.add_(buf, alpha=-lr)
    } else {
      p[i] = p[i] + (neg_lr * grad) / avg;  // param.addcdiv_(grad, avg, value=-lr)
    }
  }
};

// Adagrad (dense) on p (param), g (grad), sum (the state's sum of squares).
template <typename T>
struct AdagradRule {
  T neg_clr, eps, weight_decay;
  bool maximize;

  AdagradRule() = default;
  explicit AdagradRule(const AdagradStep& h)
      : neg_clr(T(-h.clr)), eps(T(h.eps)), weight_decay(T(h.weight_decay)), maximize(h.maximize) {}
  bool operator==(const AdagradRule&) const = default;

  EMBER_HD_INLINE void update(T* p, const T* g, T* sum, int64_t i) const {
    T grad = maximize ? -g[i] : g[i];
    if (weight_decay != T(0)) grad = detail::fma_(weight_decay, p[i], grad);  // grad.add(param, alpha=wd)
    const T total = detail::fma_(grad, grad, sum[i]);                         // state_sum.addcmul_(grad, grad, value=1)
    sum[i] = total;
    const T std = detail::sqrt_(total) + eps;
    p[i] = p[i] + (neg_clr * grad) / std;  // param.addcdiv_(grad, std, value=-clr)
  }
};

}  // namespace ember
