// PyTorch's CPU generator: a Mersenne Twister (MT19937) seeded from the low 32 bits of the seed,
// plus the cached second value of the scalar Box-Muller path. Same seed, same stream as torch.
#include "core/generator.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <mutex>
#include <random>

#include "core/error.h"
#include "core/tensor.h"

namespace ember {

namespace {

// MT19937 as Matsumoto and Nishimura define it; the stream equals std::mt19937's for a
// 32-bit seed. Written out so that its whole state can be saved and restored.
class MT19937 {
 public:
  static constexpr int kN = 624, kM = 397;

  void seed(uint32_t s) {
    state_[0] = s;
    for (int i = 1; i < kN; ++i) state_[i] = 1812433253u * (state_[i - 1] ^ (state_[i - 1] >> 30)) + uint32_t(i);
    next_ = kN;  // the first draw regenerates the whole block
  }

  uint32_t operator()() {
    if (next_ >= kN) twist();
    return temper(state_[next_++]);
  }

  // n outputs at once: whole runs of the state tempered in one vectorised loop.
  void fill(uint32_t* out, int64_t n) {
    while (n > 0) {
      if (next_ >= kN) twist();
      const int64_t take = std::min<int64_t>(n, kN - next_);
      temper_run(out, state_.data() + next_, take);
      next_ += static_cast<int>(take);
      out += take;
      n -= take;
    }
  }

  std::array<uint32_t, kN> state_{};
  int next_ = kN;

 private:
  static uint32_t temper(uint32_t y) {
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
  }
  __attribute__((target_clones("avx512f", "avx2", "default"))) static void temper_run(uint32_t* out,
                                                                                      const uint32_t* state,
                                                                                      int64_t n) {
    for (int64_t i = 0; i < n; ++i) out[i] = temper(state[i]);
  }
  // The next 624 words. Split where i + 1 and i + kM wrap around, so the loops have no modulo
  // and vectorise: each word reads only words the loop has not rewritten yet, or has finished.
  static uint32_t twisted(uint32_t cur, uint32_t next, uint32_t far) {
    constexpr uint32_t kUpper = 0x80000000u, kLower = 0x7fffffffu, kMatrix = 0x9908b0dfu;
    const uint32_t y = (cur & kUpper) | (next & kLower);
    return far ^ (y >> 1) ^ ((0u - (y & 1u)) & kMatrix);
  }
  __attribute__((target_clones("avx512f", "avx2", "default"))) static void twist_words(uint32_t* s) {
    int i = 0;
    for (; i < kN - kM; ++i) s[i] = twisted(s[i], s[i + 1], s[i + kM]);
    for (; i < kN - 1; ++i) s[i] = twisted(s[i], s[i + 1], s[i + kM - kN]);
    s[kN - 1] = twisted(s[kN - 1], s[0], s[kM - 1]);
  }
  void twist() {
    twist_words(state_.data());
    next_ = 0;
  }
};

uint64_t nondeterministic_seed() {
  std::random_device rd;
  return (uint64_t(rd()) << 32) | rd();
}

// Layout of get_state(): [seed, next, has_normal, normal bits, 624 state words], all int64.
constexpr int64_t kStateHeader = 4;
constexpr int64_t kStateSize = kStateHeader + MT19937::kN;

}  // namespace

struct Generator::Impl {
  std::mutex mutex;
  uint64_t seed = 0;
  MT19937 engine;
  std::optional<double> next_double_normal;

  void reseed(uint64_t s) {
    seed = s;
    engine.seed(static_cast<uint32_t>(s & 0xffffffffu));
    next_double_normal.reset();
  }
};

Generator::Generator(uint64_t seed) : impl_(std::make_shared<Impl>()) { impl_->reseed(seed); }

void Generator::manual_seed(uint64_t seed) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->reseed(seed);
}

uint64_t Generator::initial_seed() const { return impl_->seed; }

uint64_t Generator::seed() {
  uint64_t s = nondeterministic_seed();
  manual_seed(s);
  return s;
}

// Draws are not locked one by one: the random functions hold the generator for a whole fill.
uint32_t Generator::random() { return impl_->engine(); }
void Generator::random_block(uint32_t* out, int64_t n) { impl_->engine.fill(out, n); }

uint64_t Generator::random64() {
  uint64_t hi = impl_->engine();
  uint64_t lo = impl_->engine();
  return (hi << 32) | lo;
}

std::optional<double>& Generator::next_double_normal_sample() { return impl_->next_double_normal; }

std::mutex& Generator::mutex() const { return impl_->mutex; }

Tensor Generator::get_state() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  std::vector<int64_t> words(kStateSize);
  words[0] = static_cast<int64_t>(impl_->seed);
  words[1] = impl_->engine.next_;
  words[2] = impl_->next_double_normal.has_value();
  double cached = impl_->next_double_normal.value_or(0.0);
  std::memcpy(&words[3], &cached, sizeof(double));
  for (int i = 0; i < MT19937::kN; ++i) words[kStateHeader + i] = impl_->engine.state_[i];
  return from_vector(words, {kStateSize}, dtype(kInt64));
}

void Generator::set_state(const Tensor& state) {
  EMBER_CHECK(state.scalar_type() == kInt64 && state.dim() == 1 && state.numel() == kStateSize,
              "Generator::set_state: expected an int64 tensor of {} elements from get_state(), got {} {}", kStateSize,
              dtype_name(state.scalar_type()), state.sizes());
  Tensor s = state.to(Device(kCPU)).contiguous();
  const int64_t* w = s.data_ptr<int64_t>();
  EMBER_CHECK(w[1] >= 0 && w[1] <= MT19937::kN && (w[2] == 0 || w[2] == 1),
              "Generator::set_state: the state is corrupt (position {}, cached-normal flag {})", w[1], w[2]);
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->seed = static_cast<uint64_t>(w[0]);
  impl_->engine.next_ = static_cast<int>(w[1]);
  for (int i = 0; i < MT19937::kN; ++i) impl_->engine.state_[i] = static_cast<uint32_t>(w[kStateHeader + i]);
  if (w[2]) {
    double cached;
    std::memcpy(&cached, &w[3], sizeof(double));
    impl_->next_double_normal = cached;
  } else {
    impl_->next_double_normal.reset();
  }
}

Generator& default_generator() {
  // Like PyTorch, an unseeded program draws a different stream on every run.
  static Generator gen(nondeterministic_seed());
  return gen;
}

namespace {
// The Philox stream's seed and next word; unseeded, it starts from the default generator's seed.
struct PhiloxState {
  std::mutex mutex;
  uint64_t seed = default_generator().initial_seed();
  uint64_t offset = 0;
};
PhiloxState& philox_state() {
  static PhiloxState state;
  return state;
}
}  // namespace

void philox_manual_seed(uint64_t seed) {
  PhiloxState& state = philox_state();
  std::lock_guard<std::mutex> lock(state.mutex);
  state.seed = seed;
  state.offset = 0;
}

PhiloxSeedOffset philox_reserve(uint64_t words) {
  PhiloxState& state = philox_state();
  std::lock_guard<std::mutex> lock(state.mutex);
  const PhiloxSeedOffset taken{state.seed, state.offset};
  state.offset += (words + 3) / 4 * 4;  // whole counters: the next call starts on a fresh one
  return taken;
}

void manual_seed(uint64_t seed) {
  default_generator().manual_seed(seed);
  philox_manual_seed(seed);
}

}  // namespace ember
