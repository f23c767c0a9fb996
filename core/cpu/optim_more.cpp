// RMSprop's and Adagrad's update kernels on host memory (Backend's EMBER_OPTIMIZER_KERNELS), beside
// Adam's and SGD's in core/cpu/optim.cpp and written the same way: where PyTorch's CPU kernels round
// once (add with alpha, addcmul: a fused multiply-add) the loops call std::fma, and this file is
// compiled without contraction (CMakeLists.txt), so results match PyTorch's bit for bit. Updates are
// elementwise: a large tensor is split across threads, which does not change a bit.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "core/cpu/cpu_backend.h"

namespace ember::cpu {

namespace {

// Elements below which an update runs on one thread.
constexpr int64_t kUpdateGrain = 1 << 16;

// True when every defined tensor is contiguous and of `dtype`: the loops read them as plain arrays.
bool plain(const tensor_list& tensors, ScalarType dtype) {
  for (const Tensor& t : tensors)
    if (t.defined() && (!t.is_contiguous() || t.dtype() != dtype)) return false;
  return true;
}

// f(begin, end) over [0, n), split across the threads when n is large.
template <typename F>
void parallel_range(int64_t n, F&& f) {
  const int threads = n < kUpdateGrain ? 1 : omp_get_max_threads();
#pragma omp parallel num_threads(threads)
  {
    const int64_t nt = omp_get_num_threads(), t = omp_get_thread_num();
    const int64_t chunk = (n + nt - 1) / nt;
    const int64_t begin = std::min(n, t * chunk), end = std::min(n, begin + chunk);
    if (begin < end) f(begin, end);
  }
}

// ---- RMSprop ----

template <typename T>
struct RmspropScalars {
  T neg_lr, alpha, one_minus_alpha, eps, weight_decay, momentum;
  bool centered, use_momentum, maximize;
};

// One pass over n elements of p, g, sq (square_avg), ga (grad_avg, centered only), buf (momentum only).
template <typename T>
inline __attribute__((always_inline)) void rmsprop_loop(T* __restrict p, const T* __restrict g, T* __restrict sq,
                                                        T* __restrict ga, T* __restrict buf, int64_t n,
                                                        const RmspropScalars<T> s) {
  for (int64_t i = 0; i < n; ++i) {
    T grad = s.maximize ? -g[i] : g[i];
    if (s.weight_decay != T(0)) grad = std::fma(s.weight_decay, p[i], grad);  // grad.add(param, alpha=wd)
    const T v = std::fma(s.one_minus_alpha * grad, grad, sq[i] * s.alpha);    // square_avg.mul_(a).addcmul_(g, g, 1-a)
    sq[i] = v;
    T avg;
    if (s.centered) {
      const T a = std::fma(s.one_minus_alpha, grad, ga[i] * s.alpha);  // grad_avg.mul_(a).add_(g, alpha=1-a)
      ga[i] = a;
      avg = std::sqrt(std::fma(-a, a, v));  // square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
    } else {
      avg = std::sqrt(v);
    }
    avg = avg + s.eps;
    if (s.use_momentum) {
      const T b = buf[i] * s.momentum + grad / avg;  // buf.mul_(momentum).addcdiv_(grad, avg)
      buf[i] = b;
      p[i] = std::fma(s.neg_lr, b, p[i]);  // param.add_(buf, alpha=-lr)
    } else {
      p[i] = p[i] + (s.neg_lr * grad) / avg;  // param.addcdiv_(grad, avg, value=-lr)
    }
  }
}

// ---- Adagrad ----

template <typename T>
struct AdagradScalars {
  T neg_clr, eps, weight_decay;
  bool maximize;
};

template <typename T>
inline __attribute__((always_inline)) void adagrad_loop(T* __restrict p, const T* __restrict g, T* __restrict sum,
                                                        int64_t n, const AdagradScalars<T> s) {
  for (int64_t i = 0; i < n; ++i) {
    T grad = s.maximize ? -g[i] : g[i];
    if (s.weight_decay != T(0)) grad = std::fma(s.weight_decay, p[i], grad);  // grad.add(param, alpha=wd)
    const T total = std::fma(grad, grad, sum[i]);                             // state_sum.addcmul_(grad, grad, value=1)
    sum[i] = total;
    const T std = std::sqrt(total) + s.eps;
    p[i] = p[i] + (s.neg_clr * grad) / std;  // param.addcdiv_(grad, std, value=-clr)
  }
}

// Compiled for CPUs with FMA instructions and for the baseline; both give the same bits.
__attribute__((target_clones("arch=x86-64-v3", "default"))) void rmsprop_f32(float* p, const float* g, float* sq,
                                                                             float* ga, float* buf, int64_t n,
                                                                             RmspropScalars<float> s) {
  rmsprop_loop(p, g, sq, ga, buf, n, s);
}
__attribute__((target_clones("arch=x86-64-v3", "default"))) void rmsprop_f64(double* p, const double* g, double* sq,
                                                                             double* ga, double* buf, int64_t n,
                                                                             RmspropScalars<double> s) {
  rmsprop_loop(p, g, sq, ga, buf, n, s);
}
__attribute__((target_clones("arch=x86-64-v3", "default"))) void adagrad_f32(float* p, const float* g, float* sum,
                                                                             int64_t n, AdagradScalars<float> s) {
  adagrad_loop(p, g, sum, n, s);
}
__attribute__((target_clones("arch=x86-64-v3", "default"))) void adagrad_f64(double* p, const double* g, double* sum,
                                                                             int64_t n, AdagradScalars<double> s) {
  adagrad_loop(p, g, sum, n, s);
}

template <typename T>
T* data_or_null(const Tensor& t, int64_t offset) {
  return t.defined() ? t.data_ptr<T>() + offset : nullptr;
}

}  // namespace

bool CpuBackend::rmsprop_update(const tensor_list& params, const tensor_list& grads, const tensor_list& square_avgs,
                                const tensor_list& grad_avgs, const tensor_list& momentum_buffers,
                                const std::vector<RmspropStep>& steps) {
  if (params.empty()) return true;
  const ScalarType dtype = params[0].dtype();
  if (dtype != kFloat32 && dtype != kFloat64) return false;
  for (const tensor_list* ts : {&params, &grads, &square_avgs, &grad_avgs, &momentum_buffers})
    if (!plain(*ts, dtype)) return false;
  dispatch_floating(dtype, "rmsprop_update", [&]<typename T>() {
    for (size_t i = 0; i < params.size(); ++i) {
      const RmspropStep& h = steps[i];
      const RmspropScalars<T> s{T(-h.lr),      T(h.alpha), T(1 - h.alpha), T(h.eps),  T(h.weight_decay),
                                T(h.momentum), h.centered, h.momentum > 0, h.maximize};
      parallel_range(params[i].numel(), [&](int64_t b, int64_t e) {
        T* p = params[i].data_ptr<T>() + b;
        const T* g = grads[i].data_ptr<T>() + b;
        T* sq = square_avgs[i].data_ptr<T>() + b;
        T* ga = data_or_null<T>(grad_avgs[i], b);
        T* buf = data_or_null<T>(momentum_buffers[i], b);
        if constexpr (std::is_same_v<T, float>)
          rmsprop_f32(p, g, sq, ga, buf, e - b, s);
        else
          rmsprop_f64(p, g, sq, ga, buf, e - b, s);
      });
    }
  });
  return true;
}

bool CpuBackend::adagrad_update(const tensor_list& params, const tensor_list& grads, const tensor_list& sums,
                                const std::vector<AdagradStep>& steps) {
  if (params.empty()) return true;
  const ScalarType dtype = params[0].dtype();
  if (dtype != kFloat32 && dtype != kFloat64) return false;
  for (const tensor_list* ts : {&params, &grads, &sums})
    if (!plain(*ts, dtype)) return false;
  dispatch_floating(dtype, "adagrad_update", [&]<typename T>() {
    for (size_t i = 0; i < params.size(); ++i) {
      const AdagradStep& h = steps[i];
      const AdagradScalars<T> s{T(-h.clr), T(h.eps), T(h.weight_decay), h.maximize};
      parallel_range(params[i].numel(), [&](int64_t b, int64_t e) {
        T* p = params[i].data_ptr<T>() + b;
        const T* g = grads[i].data_ptr<T>() + b;
        T* sum = sums[i].data_ptr<T>() + b;
        if constexpr (std::is_same_v<T, float>)
          adagrad_f32(p, g, sum, e - b, s);
        else
          adagrad_f64(p, g, sum, e - b, s);
      });
    }
  });
  return true;
}

}  // namespace ember::cpu
