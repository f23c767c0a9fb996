// Generator: PyTorch's CPU random generator (MT19937), bit for bit, as a shared handle.
//
//   ember::manual_seed(123);
//   ember::Tensor r = ember::rand({3, 2});      // the same numbers torch.rand prints
//   ember::Generator g(42);                      // a private stream
//   ember::Tensor n = ember::randn({4}, {}, g);
//
// Copies of a Generator share one state, as torch.Generator objects do.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>

namespace ember {

class Tensor;

class Generator {
 public:
  // A generator seeded with `seed` (the default generator starts from a nondeterministic seed).
  explicit Generator(uint64_t seed = 67280421310721ULL);

  void manual_seed(uint64_t seed);
  uint64_t initial_seed() const;
  // Reseeds from a nondeterministic source and returns the new seed.
  uint64_t seed();
  // The whole state (seed, MT19937 words and position, cached normal) as a 1-d int64 tensor;
  // set_state() restores it exactly, so a resumed run continues the same stream.
  Tensor get_state() const;
  void set_state(const Tensor& state);

  // Raw draws, as at::CPUGeneratorImpl: 32 bits, and 64 bits from two 32-bit draws (first is high).
  uint32_t random();
  uint64_t random64();
  // n draws of random() at once, the same numbers in the same order: the fast path of bulk fills.
  void random_block(uint32_t* out, int64_t n);
  // The Box-Muller value cached by the scalar normal path (PyTorch's next_double_normal_sample).
  std::optional<double>& next_double_normal_sample();
  // Held by the random functions for the whole of one fill, as PyTorch does.
  std::mutex& mutex() const;

  struct Impl;
  const std::shared_ptr<Impl>& impl() const { return impl_; }

 private:
  std::shared_ptr<Impl> impl_;
};

// The process-wide default generator used when no generator is passed.
Generator& default_generator();
// torch::manual_seed: seeds the default CPU generator and the Philox stream below.
void manual_seed(uint64_t seed);

// The Philox stream (core/philox.h) that CUDA kernels draw from, as PyTorch's CUDA generator: a
// seed and an offset, the index of the next unused 32-bit word. Each call that draws reserves its
// words: philox_reserve(n) returns (seed, offset) and advances the offset by n rounded up to a
// multiple of 4 (whole counters, as PyTorch advances its philox offset), so a mask depends only on
// (seed, offset, element) and no two calls share a word. manual_seed and cuda::manual_seed reset it
// to (seed, 0); unseeded, it starts from the default generator's initial seed. It is not PyTorch's
// CUDA stream (docs/GPU.md, "Philox"), and Generator objects do not touch it.
struct PhiloxSeedOffset {
  uint64_t seed, offset;
};
PhiloxSeedOffset philox_reserve(uint64_t words);
void philox_manual_seed(uint64_t seed);

}  // namespace ember
