// Random fills and random tensors, drawing from PyTorch's CPU generator in PyTorch's order, so
// that the same seed gives the same bits (see tests/core/test_random.cpp and scripts/gen_rng_fixtures.py).
//
// Every fill writes its elements in memory order, as PyTorch's serial CPU kernels do, then lands
// in the tensor through copy_ when the tensor is not a plain contiguous CPU one (views, CUDA,
// tensors with autograd history). CUDA tensors are filled on the host and copied over: the
// numbers equal the CPU ones, which PyTorch's CUDA generator does not promise.
#include "core/random.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <numeric>

#include "core/backend.h"
#include "core/error.h"
#include "core/shape.h"

namespace ember {

namespace {

constexpr double kPi = 3.14159265358979323846;

Generator& pick(std::optional<Generator>& g) { return g ? *g : default_generator(); }

// at::uniform_real_distribution: float from the low 24 bits of one 32-bit draw, double from the
// low 53 bits of a 64-bit draw, then scaled to [from, to) in the type's own arithmetic.
// PyTorch's kernel is compiled for AVX2 with FMA, so x * (to - from) + from is one fused
// multiply-add there: std::fma reproduces its rounding.
float uniform_float(Generator& g, float from, float to) {
  constexpr uint32_t kMask = (1u << 24) - 1;
  constexpr float kDivisor = 1.0f / float(1u << 24);
  float x = float(g.random() & kMask) * kDivisor;
  return std::fma(x, to - from, from);
}

double uniform_double(Generator& g, double from, double to) {
  constexpr uint64_t kMask = (uint64_t(1) << 53) - 1;
  constexpr double kDivisor = 1.0 / double(uint64_t(1) << 53);
  double x = double(g.random64() & kMask) * kDivisor;
  return std::fma(x, to - from, from);
}

// at::normal_distribution<double>: Box-Muller on two doubles, caching the sine half for the next call.
double normal_double(Generator& g, double mean, double std) {
  if (auto& cached = g.next_double_normal_sample()) {
    double r = *cached * std + mean;
    cached.reset();
    return r;
  }
  double u1 = uniform_double(g, 0, 1);
  double u2 = uniform_double(g, 0, 1);
  double radius = std::sqrt(-2.0 * std::log(1.0 - u2));
  double theta = 2.0 * kPi * u1;
  g.next_double_normal_sample() = radius * std::sin(theta);
  return radius * std::cos(theta) * std + mean;
}

// out[i] = one if (53 low bits of (words[2i] << 32 | words[2i + 1])) < threshold, else 0; vectorised.
template <typename T>
inline __attribute__((always_inline)) void bernoulli_from_words_any(T* out, const uint32_t* words, int64_t m,
                                                                    uint64_t threshold, T one = T(1)) {
  for (int64_t i = 0; i < m; ++i) {
    const uint64_t u = (static_cast<uint64_t>(words[2 * i] & 0x1fffffu) << 32) | words[2 * i + 1];
    out[i] = u < threshold ? one : T(0);
  }
}
__attribute__((target_clones("avx512f", "avx2", "default"))) void bernoulli_words_f32(float* out, const uint32_t* words,
                                                                                      int64_t m, uint64_t threshold) {
  bernoulli_from_words_any(out, words, m, threshold);
}
// bfloat16 as its bits: 1.0 is 0x3F80 (converting each bool through BFloat16's rounding constructor
// would cost a scalar call per element, a tenth of a bf16 GPT step's time in dropout).
__attribute__((target_clones("avx512f", "avx2", "default"))) void bernoulli_words_bf16(uint16_t* out,
                                                                                       const uint32_t* words, int64_t m,
                                                                                       uint64_t threshold) {
  bernoulli_from_words_any(out, words, m, threshold, uint16_t{0x3F80});
}
template <typename T>
void bernoulli_from_words(T* out, const uint32_t* words, int64_t m, uint64_t threshold) {
  if constexpr (std::is_same_v<T, float>)
    bernoulli_words_f32(out, words, m, threshold);
  else if constexpr (std::is_same_v<T, BFloat16>)
    bernoulli_words_bf16(reinterpret_cast<uint16_t*>(out), words, m, threshold);
  else
    bernoulli_from_words_any(out, words, m, threshold);
}

// bernoulli_(p) over n contiguous elements, the same draws as uniform_double(g, 0, 1) < p one by
// one: u = (random64() & (2^53 - 1)) * 2^-53 < p holds exactly when the 53-bit integer is below
// ceil(p * 2^53), so each element is an integer compare on two 32-bit draws made a block at a time.
template <typename T>
void bernoulli_fill(T* out, int64_t n, double p, Generator& g) {
  constexpr double kTwo53 = 9007199254740992.0;
  const uint64_t threshold = static_cast<uint64_t>(std::ceil(p * kTwo53));
  constexpr int64_t kChunk = 2048;
  uint32_t words[2 * kChunk];
  for (int64_t start = 0; start < n; start += kChunk) {
    const int64_t m = std::min(kChunk, n - start);
    g.random_block(words, 2 * m);
    bernoulli_from_words(out + start, words, m, threshold);
  }
}

// Calls draw() once per element of `self`, in memory order, and stores the results.
template <typename T, typename Draw>
void fill_in_memory_order(Tensor& self, Draw draw) {
  const bool direct = self.is_cpu() && self.is_contiguous() && !self.requires_grad();
  Tensor out = self;
  if (!direct) {
    // Sort the dims by stride so that a transposed or permuted tensor is filled in memory order.
    std::vector<int64_t> perm(self.dim());
    std::iota(perm.begin(), perm.end(), 0);
    std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) { return self.stride(a) > self.stride(b); });
    std::vector<int64_t> sizes;
    for (int64_t d : perm) sizes.push_back(self.size(d));
    out = raw_empty(sizes, self.scalar_type(), Device(kCPU));
  }
  T* data = out.data_ptr<T>();
  const int64_t n = out.numel();
  for (int64_t i = 0; i < n; ++i) data[i] = static_cast<T>(draw());
  if (direct) {
    self.bump_version();
    return;
  }
  std::vector<int64_t> perm(self.dim());
  std::iota(perm.begin(), perm.end(), 0);
  std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) { return self.stride(a) > self.stride(b); });
  std::vector<int64_t> inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inverse[perm[i]] = static_cast<int64_t>(i);
  self.copy_(out.permute(inverse));
}

// Dispatches a fill over the tensor's dtype; `draw` gets a tag value of the element type.
template <typename Fn>
void dispatch_fill(Tensor& self, const char* op, bool allow_integral, Fn fn) {
  switch (self.scalar_type()) {
    case kFloat32:
      fill_in_memory_order<float>(self, [&] { return fn(float{}); });
      return;
    case kFloat64:
      fill_in_memory_order<double>(self, [&] { return fn(double{}); });
      return;
    case kInt64:
      EMBER_CHECK(allow_integral, "{}: expected a floating point tensor, got {}", op, dtype_name(self.scalar_type()));
      fill_in_memory_order<int64_t>(self, [&] { return fn(int64_t{}); });
      return;
    case kBool:
      EMBER_CHECK(allow_integral, "{}: expected a floating point tensor, got {}", op, dtype_name(self.scalar_type()));
      fill_in_memory_order<bool>(self, [&] { return fn(bool{}); });
      return;
    case kBFloat16:  // drawn as float32, then rounded
      fill_in_memory_order<BFloat16>(self, [&] { return BFloat16(static_cast<float>(fn(float{}))); });
      return;
    case kFloat16:  // drawn as float32, then rounded
      fill_in_memory_order<Half>(self, [&] { return Half(static_cast<float>(fn(float{}))); });
      return;
    case kUInt8:
    case kInt8:
    case kInt16:
    case kInt32:
      EMBER_CHECK(allow_integral, "{}: expected a floating point tensor, got {}", op, dtype_name(self.scalar_type()));
      dispatch_all(self.scalar_type(), op,
                   [&]<typename T>() { fill_in_memory_order<T>(self, [&] { return static_cast<T>(fn(int64_t{})); }); });
      return;
  }
}

// PyTorch's normal_fill: uniforms for every element, then Box-Muller on blocks of 16 (8 pairs:
// element j with element j + 8). A tail that is not a multiple of 16 redraws the last 16.
template <typename T>
void normal_fill_16(T* data, T mean, T std) {
  for (int j = 0; j < 8; ++j) {
    const T u1 = 1 - data[j];  // [0, 1) -> (0, 1] for the log
    const T u2 = data[j + 8];
    const T radius = std::sqrt(-2 * std::log(u1));
    const T theta = static_cast<T>(2.0f * kPi * u2);
    data[j] = radius * std::cos(theta) * std + mean;
    data[j + 8] = radius * std::sin(theta) * std + mean;
  }
}

// PyTorch's float32 path on AVX2 CPUs (normal_fill_AVX2) evaluates log, sin and cos with the
// Cephes polynomials of avx_mathfun.h, compiled with fused multiply-adds. These scalar twins do
// the same operations in the same order, so float32 randn matches PyTorch's bits.
namespace cephes {

inline float bits_to_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline uint32_t float_to_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// Natural log for x > 0: x = m * 2^e with m in [sqrt(1/2), sqrt(2)), then a degree-8 polynomial in m - 1.
inline float log(float x) {
  constexpr float kSqrtHalf = 0.707106781186547524f;
  constexpr float kP[] = {7.0376836292E-2f,  -1.1514610310E-1f, 1.1676998740E-1f,  -1.2420140846E-1f, 1.4249322787E-1f,
                          -1.6668057665E-1f, 2.0000714765E-1f,  -2.4999993993E-1f, 3.3333331174E-1f};
  constexpr float kQ1 = -2.12194440e-4f, kQ2 = 0.693359375f;
  x = std::max(x, bits_to_float(0x00800000u));  // smallest normal
  const uint32_t u = float_to_bits(x);
  float e = float(int32_t(u >> 23) - 0x7f) + 1.0f;
  x = bits_to_float((u & ~0x7f800000u) | float_to_bits(0.5f));  // mantissa in [0.5, 1)
  const bool small = x < kSqrtHalf;
  const float tmp = small ? x : 0.0f;
  x = x - 1.0f;
  e = e - (small ? 1.0f : 0.0f);
  x = x + tmp;
  const float z = x * x;
  float y = kP[0];
  for (int i = 1; i < 9; ++i) y = std::fma(y, x, kP[i]);
  y = y * x;
  y = y * z;
  y = std::fma(e, kQ1, y);
  y = std::fma(z, -0.5f, y);
  x = x + y;
  return std::fma(e, kQ2, x);
}

// sin and cos for x >= 0 together: reduce by multiples of pi/4 (in three parts), then two polynomials.
inline void sincos(float x, float* s, float* c) {
  constexpr float kFourOverPi = 1.27323954473516f;
  constexpr float kDP1 = -0.78515625f, kDP2 = -2.4187564849853515625e-4f, kDP3 = -3.77489497744594108e-8f;
  constexpr float kSin[] = {-1.9515295891E-4f, 8.3321608736E-3f, -1.6666654611E-1f};
  constexpr float kCos[] = {2.443315711809948E-005f, -1.388731625493765E-003f, 4.166664568298827E-002f};
  const uint32_t sign_in = float_to_bits(x) & 0x80000000u;
  x = std::fabs(x);
  int32_t j = int32_t(x * kFourOverPi);
  j = (j + 1) & ~1;
  const float y = float(j);
  const uint32_t swap_sign_sin = uint32_t(j & 4) << 29;
  const bool use_cos_poly = (j & 2) == 0;
  x = std::fma(y, kDP1, x);
  x = std::fma(y, kDP2, x);
  x = std::fma(y, kDP3, x);
  const uint32_t sign_cos = uint32_t(~(j - 2) & 4) << 29;
  const uint32_t sign_sin = sign_in ^ swap_sign_sin;
  const float z = x * x;
  float yc = std::fma(kCos[0], z, kCos[1]);
  yc = std::fma(yc, z, kCos[2]);
  yc = yc * z;
  yc = yc * z;
  yc = std::fma(z, -0.5f, yc);
  yc = yc + 1.0f;
  float ys = std::fma(kSin[0], z, kSin[1]);
  ys = std::fma(ys, z, kSin[2]);
  ys = ys * z;
  ys = std::fma(ys, x, x);
  const float sin_val = use_cos_poly ? ys : yc;
  const float cos_val = use_cos_poly ? yc : ys;
  *s = bits_to_float(float_to_bits(sin_val) ^ sign_sin);
  *c = bits_to_float(float_to_bits(cos_val) ^ sign_cos);
}

}  // namespace cephes

inline void normal_fill_16_avx2(float* data, float mean, float std) {
  const float two_pi = static_cast<float>(2.0f * kPi);
  for (int j = 0; j < 8; ++j) {
    const float u1 = 1.0f - data[j];
    const float u2 = data[j + 8];
    const float radius = std::sqrt(-2.0f * cephes::log(u1));
    const float theta = two_pi * u2;
    float s, c;
    cephes::sincos(theta, &s, &c);
    data[j] = std::fma(radius * c, std, mean);
    data[j + 8] = std::fma(radius * s, std, mean);
  }
}

template <typename T>
T uniform_of(Generator& g) {
  if constexpr (std::is_same_v<T, float>)
    return uniform_float(g, 0.f, 1.f);
  else
    return uniform_double(g, 0.0, 1.0);
}

template <typename T>
void normal_fill(T* data, int64_t size, T mean, T std, Generator& g) {
  auto block = [&](T* d) {
    if constexpr (std::is_same_v<T, float>)
      normal_fill_16_avx2(d, mean, std);
    else
      normal_fill_16(d, mean, std);
  };
  for (int64_t i = 0; i < size; ++i) data[i] = uniform_of<T>(g);
  for (int64_t i = 0; i + 16 <= size; i += 16) block(data + i);
  if (size % 16 != 0) {
    T* tail = data + size - 16;
    for (int i = 0; i < 16; ++i) tail[i] = uniform_of<T>(g);
    block(tail);
  }
}

Tensor finish(Tensor t, const TensorOptions& options) {
  if (options.requires_grad()) t.requires_grad_(true);
  return t;
}

Tensor new_floating(IntArrayRef sizes, const TensorOptions& options, const char* op) {
  EMBER_CHECK(is_floating_point(options.dtype()), "{}: expected a floating point dtype, got {}", op,
              dtype_name(options.dtype()));
  return raw_empty(sizes, options.dtype(), options.device(), op);
}

}  // namespace

// ---- fills ----

Tensor& Tensor::uniform_(double from, double to, std::optional<Generator> generator) {
  EMBER_CHECK(from <= to, "uniform_: expects from <= to, but got from={} to={}", from, to);
  Generator& g = pick(generator);
  std::lock_guard<std::mutex> lock(g.mutex());
  dispatch_fill(*this, "uniform_", false, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float>)
      return uniform_float(g, float(from), float(to));
    else
      return static_cast<T>(uniform_double(g, from, to));
  });
  return *this;
}

Tensor& Tensor::normal_(double mean, double std, std::optional<Generator> generator) {
  EMBER_CHECK(std >= 0, "normal_: expects std >= 0.0, but found std {}", std);
  EMBER_CHECK(is_floating_point(), "normal_: expected a floating point tensor, got {}", dtype_name(scalar_type()));
  Generator& g = pick(generator);
  std::lock_guard<std::mutex> lock(g.mutex());
  if (numel() >= 16 && is_contiguous()) {
    // The batched path fills a contiguous buffer; copy_ takes it to views, devices and graphs.
    // bfloat16 and float16 draw float32 values and round them: PyTorch 2's numbers wherever numel is
    // a multiple of 16 (its last block of 16 otherwise differs).
    const bool reduced = is_reduced_floating_point(scalar_type());
    const bool direct = is_cpu() && !requires_grad() && !reduced;
    Tensor out = direct ? *this : raw_empty(sizes(), reduced ? kFloat32 : scalar_type(), Device(kCPU));
    if (out.scalar_type() == kFloat32)
      normal_fill<float>(out.data_ptr<float>(), numel(), float(mean), float(std), g);
    else
      normal_fill<double>(out.data_ptr<double>(), numel(), mean, std, g);
    if (direct)
      bump_version();
    else
      copy_(out);
    return *this;
  }
  dispatch_fill(*this, "normal_", false, [&](auto tag) {
    using T = decltype(tag);
    return static_cast<T>(normal_double(g, mean, std));
  });
  return *this;
}

Tensor& Tensor::bernoulli_(double p, std::optional<Generator> generator) {
  EMBER_CHECK(p >= 0 && p <= 1, "bernoulli_: expected 0 <= p <= 1, but got p={}", p);
  Generator& g = pick(generator);
  std::lock_guard<std::mutex> lock(g.mutex());
  if (is_cpu() && is_contiguous() && !requires_grad()) {
    switch (scalar_type()) {
      case kFloat32:
        bernoulli_fill(data_ptr<float>(), numel(), p, g);
        break;
      case kFloat64:
        bernoulli_fill(data_ptr<double>(), numel(), p, g);
        break;
      case kInt64:
        bernoulli_fill(data_ptr<int64_t>(), numel(), p, g);
        break;
      case kBool:
        bernoulli_fill(data_ptr<bool>(), numel(), p, g);
        break;
      case kBFloat16:  // 0 and 1 are exact in bfloat16
        bernoulli_fill(data_ptr<BFloat16>(), numel(), p, g);
        break;
      default:
        dispatch_all(scalar_type(), "bernoulli_", [&]<typename T>() { bernoulli_fill(data_ptr<T>(), numel(), p, g); });
        break;
    }
    bump_version();
    return *this;
  }
  dispatch_fill(*this, "bernoulli_", true, [&](auto tag) {
    using T = decltype(tag);
    return static_cast<T>(uniform_double(g, 0, 1) < p);
  });
  return *this;
}

Tensor& Tensor::random_(int64_t from, std::optional<int64_t> to, std::optional<Generator> generator) {
  // Without `to`, the range runs to the largest value the dtype holds exactly (inclusive), as in PyTorch.
  uint64_t range = 0;
  if (to) {
    EMBER_CHECK(from < *to, "random_: expects 'from' to be less than 'to', but got from={} >= to={}", from, *to);
    range = static_cast<uint64_t>(*to) - static_cast<uint64_t>(from);
  } else {
    uint64_t to_inclusive = 0;
    switch (scalar_type()) {
      case kFloat32:
        to_inclusive = uint64_t(1) << 24;
        break;
      case kFloat64:
        to_inclusive = uint64_t(1) << 53;
        break;
      case kInt64:
        to_inclusive = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
        break;
      case kBool:
        to_inclusive = 1;
        break;
      case kBFloat16:
        to_inclusive = uint64_t(1) << 8;
        break;
      case kFloat16:
        to_inclusive = uint64_t(1) << 11;
        break;
      case kUInt8:
        to_inclusive = 255;
        break;
      case kInt8:
        to_inclusive = 127;
        break;
      case kInt16:
        to_inclusive = 32767;
        break;
      case kInt32:
        to_inclusive = 2147483647;
        break;
    }
    EMBER_CHECK(from >= 0 && static_cast<uint64_t>(from) <= to_inclusive,
                "random_: from={} is out of range for a {} tensor", from, dtype_name(scalar_type()));
    range = to_inclusive - static_cast<uint64_t>(from) + 1;
  }
  EMBER_CHECK(scalar_type() != kBool || (from >= 0 && from + range <= 2),
              "random_: from and to must be in [0, 2] for a bool tensor, got from={} and a range of {}", from, range);
  Generator& g = pick(generator);
  std::lock_guard<std::mutex> lock(g.mutex());
  dispatch_fill(*this, "random_", true, [&](auto tag) {
    using T = decltype(tag);
    // at::uniform_int_from_to: a 64-bit draw only when the range needs more than 32 bits.
    const uint64_t draw = range >= (uint64_t(1) << 32) ? g.random64() : uint64_t(g.random());
    return static_cast<T>(static_cast<int64_t>(draw % range + static_cast<uint64_t>(from)));
  });
  return *this;
}

Tensor& Tensor::random_(int64_t to, std::optional<Generator> generator) { return random_(0, to, generator); }
Tensor& Tensor::random_(std::optional<Generator> generator) { return random_(0, std::nullopt, generator); }

namespace {
// self filled element by element with draw(g) (a double, cast to the element type) from `generator`
// or the default one, under its lock: the fills libtorch 1.13's CPU kernels make from one double
// draw per element.
template <typename Draw>
Tensor& fill_from_draws(Tensor& self, const char* op, bool allow_integral, std::optional<Generator>& generator,
                        Draw draw) {
  Generator& g = pick(generator);
  std::lock_guard<std::mutex> lock(g.mutex());
  dispatch_fill(self, op, allow_integral, [&](auto tag) { return static_cast<decltype(tag)>(draw(g)); });
  return self;
}
}  // namespace

Tensor& Tensor::exponential_(double lambd, std::optional<Generator> generator) {
  EMBER_CHECK(lambd > 0, "exponential_: expects lambda > 0.0, but found lambda={}", lambd);
  return fill_from_draws(*this, "exponential_", false, generator,
                         [&](Generator& g) { return -1.0 / lambd * std::log(1.0 - uniform_double(g, 0, 1)); });
}

// lognormal = exp(normal_distribution<double>), cauchy and geometric from one uniform double each.
Tensor& Tensor::log_normal_(double mean, double std, std::optional<Generator> generator) {
  EMBER_CHECK(std > 0, "log_normal_ expects std > 0.0, but found std={}", std);
  return fill_from_draws(*this, "log_normal_", false, generator,
                         [&](Generator& g) { return std::exp(normal_double(g, mean, std)); });
}

Tensor& Tensor::cauchy_(double median, double sigma, std::optional<Generator> generator) {
  EMBER_CHECK(sigma > 0, "cauchy_ expects sigma > 0.0, but found sigma={}", sigma);
  return fill_from_draws(*this, "cauchy_", false, generator, [&](Generator& g) {
    return median + sigma * std::tan(kPi * (uniform_double(g, 0, 1) - 0.5));
  });
}

Tensor& Tensor::geometric_(double p, std::optional<Generator> generator) {
  EMBER_CHECK(p > 0 && p < 1, "geometric_ expects p to be in (0, 1), but got p={}", p);
  return fill_from_draws(*this, "geometric_", true, generator,
                         [&](Generator& g) { return std::ceil(std::log(uniform_double(g, 0, 1)) / std::log1p(-p)); });
}

Tensor Tensor::bernoulli(std::optional<Generator> generator) const { return ember::bernoulli(*this, generator); }
Tensor Tensor::bernoulli(double p, std::optional<Generator> generator) const {
  return ember::bernoulli(*this, p, generator);
}

// ---- random tensors ----

Tensor rand(IntArrayRef sizes, const TensorOptions& options) {
  return finish(new_floating(sizes, options, "rand").uniform_(0, 1), options);
}
Tensor rand(IntArrayRef sizes, Generator generator, const TensorOptions& options) {
  return finish(new_floating(sizes, options, "rand").uniform_(0, 1, generator), options);
}
Tensor randn(IntArrayRef sizes, const TensorOptions& options) {
  return finish(new_floating(sizes, options, "randn").normal_(0, 1), options);
}
Tensor randn(IntArrayRef sizes, Generator generator, const TensorOptions& options) {
  return finish(new_floating(sizes, options, "randn").normal_(0, 1, generator), options);
}
Tensor normal(double mean, double std, IntArrayRef sizes, OptGenerator generator, const TensorOptions& options) {
  return finish(new_floating(sizes, options, "normal").normal_(mean, std, generator), options);
}
Tensor rand_like(const Tensor& t, std::optional<TensorOptions> options) {
  return empty_like(t, options).uniform_(0, 1);
}
Tensor randn_like(const Tensor& t, std::optional<TensorOptions> options) {
  return empty_like(t, options).normal_(0, 1);
}

Tensor randint(int64_t high, IntArrayRef sizes, const TensorOptions& options) {
  return randint(0, high, sizes, default_generator(), options);
}
Tensor randint(int64_t low, int64_t high, IntArrayRef sizes, const TensorOptions& options) {
  return randint(low, high, sizes, default_generator(), options);
}
Tensor randint(int64_t low, int64_t high, IntArrayRef sizes, Generator generator, const TensorOptions& options) {
  EMBER_CHECK(low < high, "randint: expects 'low' to be less than 'high', but got low={} >= high={}", low, high);
  TensorOptions o = options.has_dtype() ? options : options.dtype(kInt64);
  Tensor t = raw_empty(sizes, o.dtype(), o.device(), "randint");
  t.random_(low, high, generator);
  return t;
}

Tensor randperm(int64_t n, const TensorOptions& options) { return randperm(n, default_generator(), options); }
Tensor randperm(int64_t n, Generator generator, const TensorOptions& options) {
  EMBER_CHECK(n >= 0, "randperm: n must be non-negative, got {}", n);
  Tensor out = raw_empty({n}, kInt64, Device(kCPU), "randperm");
  int64_t* perm = out.data_ptr<int64_t>();
  std::iota(perm, perm + n, 0);
  {
    // PyTorch's randperm_cpu: swap element i with one drawn uniformly from [i, n).
    std::lock_guard<std::mutex> lock(generator.mutex());
    for (int64_t i = 0; i + 1 < n; ++i) {
      int64_t z = static_cast<int64_t>(generator.random() % static_cast<uint64_t>(n - i));
      std::swap(perm[i], perm[z + i]);
    }
  }
  TensorOptions o = options.has_dtype() ? options : options.dtype(kInt64);
  return finish(out.to(o.device(), o.dtype()), o);
}

PhiloxDropout reserve_dropout(double p, int64_t elements) {
  const PhiloxSeedOffset taken = philox_reserve(static_cast<uint64_t>(elements));
  return {.seed = taken.seed, .offset = taken.offset, .p = p};
}

Tensor dropout_noise(IntArrayRef sizes, const TensorOptions& options, const PhiloxDropout& dropout) {
  if (is_reduced_floating_point(options.dtype()) && numel_of(sizes) > 0) {
    // A bfloat16 or float16 mask is the float32 kernel's, rounded on the device (1 / (1 - p) rounds
    // as the CPU's bf16 div_ rounds it); without the kernel it is drawn below, as for every dtype.
    Tensor wide = empty(sizes, TensorOptions(options).dtype(kFloat32));
    if (backend_for(wide).dropout_noise(wide, dropout)) return wide.to(options.dtype());
  }
  Tensor noise = empty(sizes, options);
  if (noise.numel() > 0 && !backend_for(noise).dropout_noise(noise, dropout))
    noise.bernoulli_(1 - dropout.p).div_(1 - dropout.p);
  return noise;
}

Tensor dropout_noise(IntArrayRef sizes, const TensorOptions& options, double p) {
  return dropout_noise(sizes, options, reserve_dropout(p, numel_of(sizes)));
}

Tensor bernoulli(const Tensor& self, double p, OptGenerator generator) {
  return empty_like(self).bernoulli_(p, generator);
}

Tensor bernoulli(const Tensor& p, OptGenerator generator) {
  EMBER_CHECK(is_floating_point(p.scalar_type()),
              "bernoulli: expected a floating point tensor of probabilities, got {}", dtype_name(p.scalar_type()));
  Tensor probs = p.detach().to(Device(kCPU)).contiguous();
  Tensor out = raw_empty(p.sizes(), p.scalar_type(), Device(kCPU));
  Generator& g = pick(generator);
  std::lock_guard<std::mutex> lock(g.mutex());
  auto run = [&](auto tag) {
    using T = decltype(tag);
    const T* pd = probs.data_ptr<T>();
    T* od = out.data_ptr<T>();
    for (int64_t i = 0; i < probs.numel(); ++i) {
      EMBER_CHECK(pd[i] >= 0 && pd[i] <= 1, "bernoulli: expected all probabilities in [0, 1], but element {} is {}", i,
                  double(pd[i]));
      // A float probability draws a float uniform, a double one a double uniform.
      if constexpr (std::is_same_v<T, float>)
        od[i] = uniform_float(g, 0.f, 1.f) < pd[i];
      else
        od[i] = uniform_double(g, 0, 1) < pd[i];
    }
  };
  if (p.scalar_type() == kFloat32)
    run(float{});
  else
    run(double{});
  return out.to(p.device());
}

// ---- multinomial ----

namespace {

void check_probabilities(const Tensor& probs, int64_t num_samples, bool replacement) {
  EMBER_CHECK(probs.dim() == 1 || probs.dim() == 2, "multinomial: prob_dist must be 1 or 2 dim, got {}-D {}",
              probs.dim(), probs.sizes());
  EMBER_CHECK(is_floating_point(probs.scalar_type()),
              "multinomial: only supports floating-point dtypes for input, got {}", dtype_name(probs.scalar_type()));
  EMBER_CHECK(num_samples > 0, "multinomial: cannot sample n_sample <= 0 samples (got {})", num_samples);
  const int64_t n_categories = probs.size(-1);
  EMBER_CHECK(replacement || num_samples <= n_categories,
              "multinomial: cannot sample n_sample > prob_dist.size(-1) samples without replacement "
              "(n_sample {}, {} categories)",
              num_samples, n_categories);
  EMBER_CHECK(n_categories > 0, "multinomial: the distribution has no categories (shape {})", probs.sizes());
}

// Row i of `rows` as doubles, checked to be a valid distribution.
template <typename T>
std::vector<T> checked_row(const T* data, int64_t n, int64_t row) {
  std::vector<T> r(data + row * n, data + (row + 1) * n);
  T sum = 0;
  int64_t nonzero = 0;
  for (T v : r) {
    EMBER_CHECK(std::isfinite(double(v)) && v >= 0,
                "multinomial: probability tensor contains either `inf`, `nan` or element < 0 (row {})", row);
    sum += v;
    nonzero += v > 0;
  }
  EMBER_CHECK(sum > 0, "multinomial: invalid multinomial distribution (sum of probabilities <= 0) in row {}", row);
  return r;
}

template <typename T>
void multinomial_rows(const Tensor& probs, int64_t num_samples, bool replacement, Generator& g, int64_t* out) {
  const int64_t n_dist = probs.dim() == 2 ? probs.size(0) : 1;
  const int64_t n = probs.size(-1);
  const T* data = probs.data_ptr<T>();
  if (!replacement || num_samples == 1) {
    // PyTorch's fast path (the Gumbel-max trick): q ~ Exp(1), then the indices of the largest p / q.
    std::vector<T> q(n_dist * n);
    for (auto& v : q) v = static_cast<T>(-1.0 * std::log(1.0 - uniform_double(g, 0, 1)));
    for (int64_t row = 0; row < n_dist; ++row) {
      std::vector<T> p = checked_row(data, n, row);
      int64_t nonzero = std::count_if(p.begin(), p.end(), [](T v) { return v > 0; });
      EMBER_CHECK(replacement || num_samples <= nonzero,
                  "multinomial: invalid multinomial distribution (with replacement=False, not enough non-negative "
                  "category to sample): row {} has {} nonzero probabilities, {} samples asked",
                  row, nonzero, num_samples);
      std::vector<T> score(n);
      for (int64_t j = 0; j < n; ++j) score[j] = p[j] / q[row * n + j];
      std::vector<int64_t> idx(n);
      std::iota(idx.begin(), idx.end(), 0);
      std::stable_sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) { return score[a] > score[b]; });
      for (int64_t s = 0; s < num_samples; ++s) out[row * num_samples + s] = idx[s];
    }
    return;
  }
  // With replacement: a binary search of one double uniform per sample in the normalised CDF.
  for (int64_t row = 0; row < n_dist; ++row) {
    std::vector<T> cdf = checked_row(data, n, row);
    T sum = 0;
    for (auto& v : cdf) v = (sum += v);
    for (auto& v : cdf) v /= sum;
    cdf[n - 1] = 1;
    for (int64_t s = 0; s < num_samples; ++s) {
      double u = uniform_double(g, 0, 1);
      int64_t left = 0, right = n;
      while (right - left > 0) {
        int64_t mid = left + (right - left) / 2;
        if (cdf[mid] < u)
          left = mid + 1;
        else
          right = mid;
      }
      out[row * num_samples + s] = left;
    }
  }
}

}  // namespace

Tensor multinomial(const Tensor& probs, int64_t num_samples, bool replacement, OptGenerator generator) {
  check_probabilities(probs, num_samples, replacement);
  Tensor p = probs.detach().to(Device(kCPU)).contiguous();
  if (is_reduced_floating_point(p.scalar_type())) p = p.to(kFloat32);  // sampled in float32
  std::vector<int64_t> out_sizes =
      probs.dim() == 2 ? std::vector<int64_t>{probs.size(0), num_samples} : std::vector<int64_t>{num_samples};
  Tensor out = raw_empty(out_sizes, kInt64, Device(kCPU), "multinomial");
  Generator& g = pick(generator);
  std::lock_guard<std::mutex> lock(g.mutex());
  if (p.scalar_type() == kFloat32)
    multinomial_rows<float>(p, num_samples, replacement, g, out.data_ptr<int64_t>());
  else
    multinomial_rows<double>(p, num_samples, replacement, g, out.data_ptr<int64_t>());
  return out.to(probs.device());
}

}  // namespace ember
