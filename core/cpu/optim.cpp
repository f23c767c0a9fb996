// The optimizers' update kernels on host memory (Backend's EMBER_OPTIMIZER_KERNELS): Adam / AdamW,
// SGD, RMSprop, Adagrad, and the sum of squares and scaling of gradient clipping. optim/ decides what
// to update and with which scalars; the rules of core/optim_rules.h say how an element is updated;
// these loops apply them.
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
#include "core/optim_rules.h"

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

// The loops: one rule (core/optim_rules.h) over n elements of a piece's arrays, compiled for CPUs with
// FMA instructions and for the baseline (both give the same bits). Adam's and SGD's are vectorised
// (`omp simd`: an element's update reads and writes only element i of each array).

template <bool kAmsgrad, bool kDecoupled, typename T>
inline __attribute__((always_inline)) void adam_loop(T* __restrict p, const T* __restrict g, T* __restrict m,
                                                     T* __restrict v, T* __restrict vmax, int64_t n,
                                                     const AdamRule<T> r) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) r.template update<kAmsgrad, kDecoupled>(p, g, m, v, vmax, i);
}

template <typename T>
inline __attribute__((always_inline)) void adam_any(T* p, const T* g, T* m, T* v, T* vmax, int64_t n,
                                                    const AdamRule<T>& r) {
  if (r.amsgrad)
    r.decoupled ? adam_loop<true, true>(p, g, m, v, vmax, n, r) : adam_loop<true, false>(p, g, m, v, vmax, n, r);
  else
    r.decoupled ? adam_loop<false, true>(p, g, m, v, vmax, n, r) : adam_loop<false, false>(p, g, m, v, vmax, n, r);
}

template <typename T>
inline __attribute__((always_inline)) void sgd_loop(T* __restrict p, const T* __restrict g, T* __restrict buf,
                                                    int64_t n, const SgdRule<T> r) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) r.update(p, g, buf, i);
}

template <typename T>
inline __attribute__((always_inline)) void rmsprop_loop(T* __restrict p, const T* __restrict g, T* __restrict sq,
                                                        T* __restrict ga, T* __restrict buf, int64_t n,
                                                        const RmspropRule<T> r) {
  for (int64_t i = 0; i < n; ++i) r.update(p, g, sq, ga, buf, i);
}

template <typename T>
inline __attribute__((always_inline)) void adagrad_loop(T* __restrict p, const T* __restrict g, T* __restrict sum,
                                                        int64_t n, const AdagradRule<T> r) {
  for (int64_t i = 0; i < n; ++i) r.update(p, g, sum, i);
}

#define EMBER_UPDATE_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
EMBER_UPDATE_CLONES void adam_f32(float* p, const float* g, float* m, float* v, float* vmax, int64_t n,
                                  AdamRule<float> r) {
  adam_any(p, g, m, v, vmax, n, r);
}
EMBER_UPDATE_CLONES void adam_f64(double* p, const double* g, double* m, double* v, double* vmax, int64_t n,
                                  AdamRule<double> r) {
  adam_any(p, g, m, v, vmax, n, r);
}
EMBER_UPDATE_CLONES void sgd_f32(float* p, const float* g, float* buf, int64_t n, SgdRule<float> r) {
  sgd_loop(p, g, buf, n, r);
}
EMBER_UPDATE_CLONES void sgd_f64(double* p, const double* g, double* buf, int64_t n, SgdRule<double> r) {
  sgd_loop(p, g, buf, n, r);
}
EMBER_UPDATE_CLONES void rmsprop_f32(float* p, const float* g, float* sq, float* ga, float* buf, int64_t n,
                                     RmspropRule<float> r) {
  rmsprop_loop(p, g, sq, ga, buf, n, r);
}
EMBER_UPDATE_CLONES void rmsprop_f64(double* p, const double* g, double* sq, double* ga, double* buf, int64_t n,
                                     RmspropRule<double> r) {
  rmsprop_loop(p, g, sq, ga, buf, n, r);
}
EMBER_UPDATE_CLONES void adagrad_f32(float* p, const float* g, float* sum, int64_t n, AdagradRule<float> r) {
  adagrad_loop(p, g, sum, n, r);
}
EMBER_UPDATE_CLONES void adagrad_f64(double* p, const double* g, double* sum, int64_t n, AdagradRule<double> r) {
  adagrad_loop(p, g, sum, n, r);
}
#undef EMBER_UPDATE_CLONES

// One optimizer kernel: params, grads and the state lists (one entry per parameter, undefined where the
// rule does not use that array), steps[i] the scalars of parameter i, loop_f32 / loop_f64 the rule's
// loops above. False (the optimizer composes the update) unless every list is plain arrays of the
// params' floating dtype. The elements of all the parameters are split evenly across the threads.
template <template <typename> class Rule, typename Step, typename LoopF32, typename LoopF64, typename... Lists>
bool run_update(const char* name, LoopF32 loop_f32, LoopF64 loop_f64, const std::vector<Step>& steps,
                const tensor_list& params, const tensor_list& grads, const Lists&... state) {
  if (params.empty()) return true;
  const ScalarType dtype = params[0].dtype();
  if (dtype != kFloat32 && dtype != kFloat64) return false;
  for (const tensor_list* ts : {&params, &grads, &state...})
    if (!plain(*ts, dtype)) return false;
  dispatch_floating(dtype, name, [&]<typename T>() {
    std::vector<Rule<T>> rules(steps.begin(), steps.end());
    for_each_piece(numels(params), [&](int, size_t i, int64_t b, int64_t e) {
      const auto at = [&](const Tensor& t) { return t.defined() ? t.data_ptr<T>() + b : nullptr; };
      if constexpr (std::is_same_v<T, float>)
        loop_f32(at(params[i]), at(grads[i]), at(state[i])..., e - b, rules[i]);
      else
        loop_f64(at(params[i]), at(grads[i]), at(state[i])..., e - b, rules[i]);
    });
  });
  return true;
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
  return run_update<AdamRule>("adam_update", adam_f32, adam_f64, steps, params, grads, exp_avgs, exp_avg_sqs,
                              max_exp_avg_sqs);
}

bool CpuBackend::sgd_update(const tensor_list& params, const tensor_list& grads, const tensor_list& momentum_buffers,
                            const std::vector<SgdStep>& steps) {
  return run_update<SgdRule>("sgd_update", sgd_f32, sgd_f64, steps, params, grads, momentum_buffers);
}

bool CpuBackend::rmsprop_update(const tensor_list& params, const tensor_list& grads, const tensor_list& square_avgs,
                                const tensor_list& grad_avgs, const tensor_list& momentum_buffers,
                                const std::vector<RmspropStep>& steps) {
  return run_update<RmspropRule>("rmsprop_update", rmsprop_f32, rmsprop_f64, steps, params, grads, square_avgs,
                                 grad_avgs, momentum_buffers);
}

bool CpuBackend::adagrad_update(const tensor_list& params, const tensor_list& grads, const tensor_list& sums,
                                const std::vector<AdagradStep>& steps) {
  return run_update<AdagradRule>("adagrad_update", adagrad_f32, adagrad_f64, steps, params, grads, sums);
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
