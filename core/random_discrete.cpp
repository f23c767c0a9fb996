// Poisson and binomial draws (core/random_discrete.h) on the host, in libtorch 1.13's arithmetic.
//
// The samplers follow PyTorch's CPU ones (aten/src/ATen/native/Distributions.cpp and .h, after
// NumPy and TensorFlow): every uniform is at::uniform_real_distribution<double>(0, 1), 53 bits of
// one 64-bit draw, and elements draw one after another in the result's row-major order under the
// generator's lock. Where PyTorch computes in the element type (float for float32 binomials) this
// code does too, since a float product rounds differently from a double one and the draws must
// match bit for bit. Device tensors are drawn here and copied over, as core/random.cpp does.
#include "core/random_discrete.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <mutex>
#include <type_traits>
#include <vector>

#include "core/error.h"

namespace ember {

namespace {

Generator& pick(OptGenerator& g) { return g ? *g : default_generator(); }

// at::uniform_real_distribution<double>(0, 1): the low 53 bits of a 64-bit draw, scaled.
double standard_uniform(Generator& g) {
  constexpr uint64_t kMask = (uint64_t(1) << 53) - 1;
  constexpr double kDivisor = 1.0 / double(uint64_t(1) << 53);
  return double(g.random64() & kMask) * kDivisor;
}

// ---- Poisson ----

// A Poisson(lambda) count, lambda >= 0. Below 10: multiply uniforms until the product drops to
// exp(-lambda). From 10: Hörmann's transformed rejection (PTRS, 1993), two uniforms per try.
int64_t sample_poisson(double lambda, Generator& g) {
  if (lambda >= 10) {
    const double slam = std::sqrt(lambda);
    const double loglam = std::log(lambda);
    const double b = 0.931 + 2.53 * slam;
    const double a = -0.059 + 0.02483 * b;
    const double invalpha = 1.1239 + 1.1328 / (b - 3.4);
    const double vr = 0.9277 - 3.6224 / (b - 2);
    while (true) {
      const double U = standard_uniform(g) - 0.5;
      const double V = standard_uniform(g);
      const double us = 0.5 - std::fabs(U);
      const auto k = static_cast<int64_t>(std::floor((2 * a / us + b) * U + lambda + 0.43));
      if (us >= 0.07 && V <= vr) return k;  // inside the box: accepted without the density
      if (k < 0 || (us < 0.013 && V > us)) continue;
      // log(V * invalpha / (a / us^2 + b)) <= log(lambda^k e^-lambda / k!)
      if (std::log(V) + std::log(invalpha) - std::log(a / (us * us) + b) <=
          -lambda + k * loglam - std::lgamma(double(k) + 1))
        return k;
    }
  }
  if (lambda == 0) return 0;
  const double enlam = std::exp(-lambda);
  int64_t count = 0;
  double prod = 1.0;
  while (true) {
    prod *= standard_uniform(g);
    if (!(prod > enlam)) return count;
    ++count;
  }
}

// ---- binomial ----
// T is the element type (float or double); the rejection arithmetic is in double, as PyTorch's
// accscalar_t, but each expression of two T operands is rounded to T first, as in PyTorch.

// log(k!) - Stirling's approximation of it: a table to 9, then the series' next terms.
double stirling_tail(double k) {
  constexpr double kTail[] = {0.0810614667953272,  0.0413406959554092, 0.0276779256849983, 0.02079067210376509,
                              0.0166446911898211,  0.0138761288230707, 0.0118967099458917, 0.0104112652619720,
                              0.00925546218271273, 0.00833056343336287};
  if (k <= 9) return kTail[static_cast<size_t>(k)];
  const double kp1sq = (k + 1) * (k + 1);
  return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1);
}

// Inversion by geometric waiting times: count the failures-to-success gaps that fit in `count`.
template <typename T>
T binomial_inversion(T count, T prob, Generator& g) {
  const double logprob = std::log1p(-prob);  // in T: log1pf for float
  double geom_sum = 0;
  T successes = 0;
  while (true) {
    geom_sum += std::ceil(std::log(standard_uniform(g)) / logprob);
    if (geom_sum > count) return successes;
    successes = successes + 1;
  }
}

// Hörmann's BTRS (transformed rejection with squeeze), for count * prob >= 10 and prob <= 0.5.
template <typename T>
T binomial_btrs(T count, T prob, Generator& g) {
  const double stddev = std::sqrt(count * prob * (1 - prob));
  const double b = 1.15 + 2.53 * stddev;
  const double a = -0.0873 + 0.0248 * b + 0.01 * prob;
  const double c = count * prob + 0.5;
  const double v_r = 0.92 - 4.2 / b;
  const double r = prob / (1 - prob);
  const double alpha = (2.83 + 5.1 / b) * stddev;
  const double m = std::floor((count + 1) * prob);
  while (true) {
    const double U = standard_uniform(g) - 0.5;
    double V = standard_uniform(g);
    const double us = 0.5 - std::abs(U);
    const T k = static_cast<T>(std::floor((2 * a / us + b) * U + c));
    if (k < 0 || k > count) continue;
    if (us >= 0.07 && V <= v_r) return k;  // inside the box
    // As PyTorch (and TensorFlow), V is compared in log space against log f(k) / f(m).
    V = std::log(V * alpha / (a / (us * us) + b));
    const double upperbound = (m + 0.5) * std::log((m + 1) / (r * (count - m + 1))) +
                              (count + 1) * std::log((count - m + 1) / (count - k + 1)) +
                              (k + 0.5) * std::log(r * (count - k + 1) / (k + 1)) + stirling_tail(m) +
                              stirling_tail(count - m) - stirling_tail(k) - stirling_tail(count - k);
    if (V <= upperbound) return k;
  }
}

template <typename T>
T sample_binomial(T count, T prob, Generator& g) {
  if (count <= 0.0 || prob <= 0.0) return 0;
  if (prob >= 1.0) return count;
  if (prob <= 0.5) return count * prob >= 10.0 ? binomial_btrs(count, prob, g) : binomial_inversion(count, prob, g);
  if (prob > 0.5) {  // draw the failures
    const T qprob = static_cast<T>(1.0 - prob);
    return count - (count * qprob >= 10.0 ? binomial_btrs(count, qprob, g) : binomial_inversion(count, qprob, g));
  }
  return static_cast<T>(NAN);  // prob is NaN
}

}  // namespace

Tensor poisson(const Tensor& rates, OptGenerator generator) {
  const ScalarType type = rates.scalar_type();
  EMBER_CHECK(type == kFloat32 || type == kFloat64 || type == kBFloat16, "\"poisson_cpu\" not implemented for '{}'",
              scalar_type_name(type));
  const Tensor in = rates.detach().to(Device(kCPU)).contiguous();
  Tensor out = raw_empty(rates.sizes(), type, Device(kCPU), "poisson");
  Generator& g = pick(generator);
  std::lock_guard<std::mutex> lock(g.mutex());
  auto run = [&]<typename T>() {
    const T* rate = in.data_ptr<T>();
    T* drawn = out.data_ptr<T>();
    for (int64_t i = 0; i < in.numel(); ++i) {
      const double lambda = static_cast<double>(rate[i]);
      EMBER_CHECK(lambda >= 0, "poisson: invalid Poisson rate, expected rate to be non-negative (element {} is {})", i,
                  lambda);
      const int64_t k = sample_poisson(lambda, g);
      if constexpr (std::is_same_v<T, BFloat16>)
        drawn[i] = BFloat16(static_cast<float>(k));  // through float, as c10::BFloat16 converts
      else
        drawn[i] = static_cast<T>(k);
    }
  };
  if (type == kFloat32)
    run.operator()<float>();
  else if (type == kFloat64)
    run.operator()<double>();
  else
    run.operator()<BFloat16>();
  return out.to(rates.device());
}

Tensor binomial(const Tensor& count, const Tensor& prob, OptGenerator generator) {
  const ScalarType type = count.scalar_type();
  // libtorch's TensorIterator checks prob against the result's dtype (count's) before dispatching.
  EMBER_CHECK(prob.scalar_type() == type, "binomial: Found dtype {} but expected {}",
              scalar_type_name(prob.scalar_type()), scalar_type_name(type));
  EMBER_CHECK(type == kFloat32 || type == kFloat64, "\"binomial_cpu\" not implemented for '{}'",
              scalar_type_name(type));
  // TensorIterator's broadcast, with its message: dimensions compared from the innermost out.
  const int64_t dims = std::max(count.dim(), prob.dim());
  std::vector<int64_t> shape(static_cast<size_t>(dims));
  for (int64_t i = dims - 1; i >= 0; --i) {
    const int64_t a_dim = i - (dims - count.dim()), b_dim = i - (dims - prob.dim());
    const int64_t a = a_dim >= 0 ? count.size(a_dim) : 1, b = b_dim >= 0 ? prob.size(b_dim) : 1;
    EMBER_CHECK(
        a == b || a == 1 || b == 1,
        "binomial: The size of tensor a ({}) must match the size of tensor b ({}) at non-singleton dimension {}", a, b,
        i);
    shape[static_cast<size_t>(i)] = a == 1 ? b : a;
  }
  const Tensor n = count.detach().to(Device(kCPU)).expand(shape).contiguous();
  const Tensor p = prob.detach().to(Device(kCPU)).expand(shape).contiguous();
  Tensor out = raw_empty(shape, type, Device(kCPU), "binomial");
  Generator& g = pick(generator);
  std::lock_guard<std::mutex> lock(g.mutex());
  auto run = [&]<typename T>() {
    const T* nd = n.data_ptr<T>();
    const T* pd = p.data_ptr<T>();
    T* drawn = out.data_ptr<T>();
    for (int64_t i = 0; i < out.numel(); ++i) drawn[i] = sample_binomial<T>(nd[i], pd[i], g);
  };
  if (type == kFloat32)
    run.operator()<float>();
  else
    run.operator()<double>();
  return out.to(count.device());
}

}  // namespace ember
