// The optimizers' update kernels on host memory (Backend's EMBER_OPTIMIZER_KERNELS): Adam / AdamW,
// SGD, and the sum of squares and scaling of gradient clipping. optim/ decides what to update and
// with which scalars; these loops only apply them.
//
// Each runs over many tensors at once, their elements split evenly across the threads, so the
// small parameters (biases, norms) do not each run on one thread. Updates are elementwise, so any
// split gives the same bits. Where PyTorch's CPU kernels round once (add with alpha, addcmul:
// fused multiply-add) the loops call std::fma, and this file is compiled without contraction
// (CMakeLists.txt), so results match PyTorch's bit for bit.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "core/cpu/cpu_backend.h"

namespace ember::cpu {

namespace {

// Elements below which an update runs on one thread.
constexpr int64_t kUpdateGrain = 1 << 16;

// Many tensors of `sizes` elements laid end to end, and their total split evenly across the
// threads: f(thread, piece, begin, end) for each part of a piece in a thread's share. Returns how
// many threads took part (each `thread` passed is below it).
template <typename F>
int for_each_piece(const std::vector<int64_t>& sizes, F&& f) {
  int64_t total = 0;
  for (int64_t n : sizes) total += n;
  const int threads = total < kUpdateGrain ? 1 : omp_get_max_threads();
#pragma omp parallel num_threads(threads)
  {
    const int64_t nt = omp_get_num_threads(), t = omp_get_thread_num();
    const int64_t chunk = (total + nt - 1) / nt;
    const int64_t begin = std::min(total, t * chunk), end = std::min(total, begin + chunk);
    int64_t offset = 0;  // where piece i starts
    for (size_t i = 0; i < sizes.size() && offset < end; offset += sizes[i], ++i) {
      const int64_t b = std::max(begin, offset), e = std::min(end, offset + sizes[i]);
      if (b < e) f(static_cast<int>(t), i, b - offset, e - offset);
    }
  }
  return threads;
}

std::vector<int64_t> numels(const tensor_list& tensors) {
  std::vector<int64_t> sizes;
  for (const Tensor& t : tensors) sizes.push_back(t.numel());
  return sizes;
}

// True when every defined tensor is contiguous and of `dtype`: the loops read them as plain arrays.
bool plain(const tensor_list& tensors, ScalarType dtype) {
  for (const Tensor& t : tensors)
    if (t.defined() && (!t.is_contiguous() || t.dtype() != dtype)) return false;
  return true;
}

// ---- Adam / AdamW ----

// The scalars of one update, rounded to the parameter's dtype T as PyTorch's kernels round them.
template <typename T>
struct AdamScalars {
  T beta1, one_minus_beta1, beta2, one_minus_beta2;
  T weight_decay;   // Adam: g + weight_decay * p
  T decay;          // AdamW: p * (1 - lr * weight_decay)
  T neg_step_size;  // -lr / (1 - beta1^t)
  T bias_correction2_sqrt, eps;
  bool amsgrad, maximize, decoupled;
};

template <typename T>
AdamScalars<T> adam_scalars(const AdamStep& h) {
  return {T(h.beta1),        T(1 - h.beta1),
          T(h.beta2),        T(1 - h.beta2),
          T(h.weight_decay), T(1 - h.lr * h.weight_decay),
          T(-h.step_size),   T(h.bias_correction2_sqrt),
          T(h.eps),          h.amsgrad,
          h.maximize,        h.decoupled};
}

// One pass over n elements of p, g, m (exp_avg), v (exp_avg_sq) and vmax (amsgrad only). The two
// flags that change which arrays are written are template parameters, so the loop has no branches
// and vectorises.
template <bool kAmsgrad, bool kDecoupled, typename T>
inline __attribute__((always_inline)) void adam_loop(T* __restrict p, const T* __restrict g, T* __restrict m,
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
inline __attribute__((always_inline)) void adam_any(T* p, const T* g, T* m, T* v, T* vmax, int64_t n,
                                                    const AdamScalars<T>& s) {
  if (s.amsgrad)
    s.decoupled ? adam_loop<true, true>(p, g, m, v, vmax, n, s) : adam_loop<true, false>(p, g, m, v, vmax, n, s);
  else
    s.decoupled ? adam_loop<false, true>(p, g, m, v, vmax, n, s) : adam_loop<false, false>(p, g, m, v, vmax, n, s);
}

// Compiled for CPUs with FMA instructions and for the baseline; both give the same bits.
__attribute__((target_clones("arch=x86-64-v3", "default"))) void adam_f32(float* p, const float* g, float* m, float* v,
                                                                          float* vmax, int64_t n,
                                                                          AdamScalars<float> s) {
  adam_any(p, g, m, v, vmax, n, s);
}
__attribute__((target_clones("arch=x86-64-v3", "default"))) void adam_f64(double* p, const double* g, double* m,
                                                                          double* v, double* vmax, int64_t n,
                                                                          AdamScalars<double> s) {
  adam_any(p, g, m, v, vmax, n, s);
}

// ---- SGD ----

template <typename T>
struct SgdScalars {
  T neg_lr, momentum, one_minus_dampening, weight_decay;
  bool use_momentum, nesterov, maximize, first_step;
};

// One pass over n elements: p (updated), g (read), buf (updated, or written when first_step).
template <typename T>
inline __attribute__((always_inline)) void sgd_loop(T* __restrict p, const T* __restrict g, T* __restrict buf,
                                                    int64_t n, const SgdScalars<T> s) {
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

__attribute__((target_clones("arch=x86-64-v3", "default"))) void sgd_f32(float* p, const float* g, float* buf,
                                                                         int64_t n, SgdScalars<float> s) {
  sgd_loop(p, g, buf, n, s);
}
__attribute__((target_clones("arch=x86-64-v3", "default"))) void sgd_f64(double* p, const double* g, double* buf,
                                                                         int64_t n, SgdScalars<double> s) {
  sgd_loop(p, g, buf, n, s);
}

// ---- gradient clipping ----

__attribute__((target_clones("avx512f", "avx2", "default"))) double sum_of_squares_f32(const float* x, int64_t n) {
  double acc = 0;
#pragma omp simd reduction(+ : acc)
  for (int64_t i = 0; i < n; ++i) acc += static_cast<double>(x[i] * x[i]);
  return acc;
}

__attribute__((target_clones("avx512f", "avx2", "default"))) void scale_f32(float* x, int64_t n, float c) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) x[i] *= c;
}

}  // namespace

bool CpuBackend::adam_update(const tensor_list& params, const tensor_list& grads, const tensor_list& exp_avgs,
                             const tensor_list& exp_avg_sqs, const tensor_list& max_exp_avg_sqs,
                             const std::vector<AdamStep>& steps) {
  if (params.empty()) return true;
  const ScalarType dtype = params[0].dtype();
  if (dtype != kFloat32 && dtype != kFloat64) return false;
  for (const tensor_list* ts : {&params, &grads, &exp_avgs, &exp_avg_sqs, &max_exp_avg_sqs})
    if (!plain(*ts, dtype)) return false;
  dispatch_floating(dtype, "adam_update", [&]<typename T>() {
    std::vector<AdamScalars<T>> scalars;
    for (const AdamStep& h : steps) scalars.push_back(adam_scalars<T>(h));
    for_each_piece(numels(params), [&](int, size_t i, int64_t b, int64_t e) {
      T* vmax = max_exp_avg_sqs[i].defined() ? max_exp_avg_sqs[i].data_ptr<T>() + b : nullptr;
      T* p = params[i].data_ptr<T>() + b;
      const T* g = grads[i].data_ptr<T>() + b;
      T* m = exp_avgs[i].data_ptr<T>() + b;
      T* v = exp_avg_sqs[i].data_ptr<T>() + b;
      if constexpr (std::is_same_v<T, float>)
        adam_f32(p, g, m, v, vmax, e - b, scalars[i]);
      else
        adam_f64(p, g, m, v, vmax, e - b, scalars[i]);
    });
  });
  return true;
}

bool CpuBackend::sgd_update(const tensor_list& params, const tensor_list& grads, const tensor_list& momentum_buffers,
                            const std::vector<SgdStep>& steps) {
  if (params.empty()) return true;
  const ScalarType dtype = params[0].dtype();
  if (dtype != kFloat32 && dtype != kFloat64) return false;
  for (const tensor_list* ts : {&params, &grads, &momentum_buffers})
    if (!plain(*ts, dtype)) return false;
  dispatch_floating(dtype, "sgd_update", [&]<typename T>() {
    std::vector<SgdScalars<T>> scalars;
    for (const SgdStep& h : steps)
      scalars.push_back({T(-h.lr), T(h.momentum), T(1 - h.dampening), T(h.weight_decay), h.momentum != 0, h.nesterov,
                         h.maximize, h.first_step});
    for_each_piece(numels(params), [&](int, size_t i, int64_t b, int64_t e) {
      T* buf = momentum_buffers[i].defined() ? momentum_buffers[i].data_ptr<T>() + b : nullptr;
      T* p = params[i].data_ptr<T>() + b;
      const T* g = grads[i].data_ptr<T>() + b;
      if constexpr (std::is_same_v<T, float>)
        sgd_f32(p, g, buf, e - b, scalars[i]);
      else
        sgd_f64(p, g, buf, e - b, scalars[i]);
    });
  });
  return true;
}

bool CpuBackend::sum_of_squares(const Tensor& out, const tensor_list& tensors) {
  if (!plain(tensors, kFloat32)) return false;
  const size_t n = tensors.size();
  std::vector<double> partial(static_cast<size_t>(omp_get_max_threads()) * n, 0.0);  // [thread][tensor]
  const int used = for_each_piece(numels(tensors), [&](int t, size_t i, int64_t b, int64_t e) {
    partial[t * n + i] += sum_of_squares_f32(tensors[i].data_ptr<float>() + b, e - b);
  });
  double* o = out.data_ptr<double>();
  for (size_t i = 0; i < n; ++i) {
    double sq = 0;
    for (int t = 0; t < used; ++t) sq += partial[t * n + i];
    o[i] = sq;
  }
  return true;
}

bool CpuBackend::scale_(const tensor_list& tensors, double factor) {
  if (!plain(tensors, kFloat32)) return false;
  const float c = static_cast<float>(factor);
  for_each_piece(numels(tensors),
                 [&](int, size_t i, int64_t b, int64_t e) { scale_f32(tensors[i].data_ptr<float>() + b, e - b, c); });
  return true;
}

}  // namespace ember::cpu
