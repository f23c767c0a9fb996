// Philox4x32-10 (Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as easy as 1, 2, 3", SC11),
// the counter-based generator of cuRAND's and PyTorch's CUDA random numbers, written once for the
// host and for CUDA kernels. A draw is a pure function of (key, counter), so a kernel thread makes
// the numbers of its own elements with no state, and a host loop makes the very same numbers.
//
//   PhiloxDropout drop{.seed = 42, .offset = 0, .p = 0.1};
//   float u = philox_uniform(philox_word(drop.seed, drop.offset + 7));   // in (0, 1]
//   bool kept = drop.keeps(7);                                            // u < 1 - p
//
// Not here: where the seed and offset come from (core/generator.h's philox_reserve) and the
// kernels that use them (cuda/random.cu, cuda/attention.cu). This is not PyTorch's CUDA random
// stream: PyTorch spreads its words over threads by its launch configuration; Ember numbers them
// by element (philox_word), so a mask does not depend on the grid (docs/GPU.md, "Philox").
#pragma once

#include <cstdint>

#include "core/functors.h"  // EMBER_HD

namespace ember {

// The round multipliers and the Weyl sequence that bumps the key between rounds (the paper's
// Table 2; the Weyl constants are the golden ratio and sqrt(3) - 1 in 32-bit fixed point).
inline constexpr uint32_t kPhiloxM0 = 0xD2511F53u;
inline constexpr uint32_t kPhiloxM1 = 0xCD9E8D57u;
inline constexpr uint32_t kPhiloxW0 = 0x9E3779B9u;
inline constexpr uint32_t kPhiloxW1 = 0xBB67AE85u;
inline constexpr int kPhiloxRounds = 10;

struct PhiloxBlock {  // four 32-bit words: a counter in, four random words out
  uint32_t x, y, z, w;
};
struct PhiloxKey {
  uint32_t k0, k1;
};

// One round: two 32x32 -> 64-bit products, their halves swapped and mixed with the key.
EMBER_HD inline PhiloxBlock philox_round(PhiloxBlock c, PhiloxKey key) {
  const uint64_t p0 = static_cast<uint64_t>(kPhiloxM0) * c.x;
  const uint64_t p1 = static_cast<uint64_t>(kPhiloxM1) * c.z;
  return {static_cast<uint32_t>(p1 >> 32) ^ c.y ^ key.k0, static_cast<uint32_t>(p1),
          static_cast<uint32_t>(p0 >> 32) ^ c.w ^ key.k1, static_cast<uint32_t>(p0)};
}

// Philox4x32-10: ten rounds, the key bumped by the Weyl constants before each round but the first.
EMBER_HD inline PhiloxBlock philox4x32_10(PhiloxBlock counter, PhiloxKey key) {
  for (int r = 0; r < kPhiloxRounds; ++r) {
    if (r > 0) key = {key.k0 + kPhiloxW0, key.k1 + kPhiloxW1};
    counter = philox_round(counter, key);
  }
  return counter;
}

// A uniform float in (0, 1] from 32 random bits, as cuRAND's curand_uniform: x 2^-32 + 2^-33 in
// float arithmetic. float(x) 2^-32 is exact (a power of two), so the only rounding is the sum's, and
// a fused multiply-add gives the same bits as the separate operations, on the host and the device.
// Words above 2^32 - 2^8 round to 1.0f; a 0 becomes 2^-33.
inline constexpr float kTwoPow32Inv = 2.3283064365386963e-10f;  // 2^-32
EMBER_HD inline float philox_uniform(uint32_t x) { return static_cast<float>(x) * kTwoPow32Inv + kTwoPow32Inv / 2.0f; }

// Seed's stream is the words of counters 0, 1, 2, ... in order, four a counter: counter c is
// (low, high 32 bits of c, 0, 0), the key (low, high 32 bits of seed).
EMBER_HD inline PhiloxBlock philox_counter(uint64_t seed, uint64_t c) {
  return philox4x32_10({static_cast<uint32_t>(c), static_cast<uint32_t>(c >> 32), 0u, 0u},
                       {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)});
}

// Word `index` of seed's stream: word index % 4 of counter index / 4.
EMBER_HD inline uint32_t philox_word(uint64_t seed, uint64_t index) {
  const PhiloxBlock r = philox_counter(seed, index / 4);
  switch (index % 4) {
    case 0:
      return r.x;
    case 1:
      return r.y;
    case 2:
      return r.z;
    default:
      return r.w;
  }
}

// Dropout from the Philox stream: element i of a call is kept when the uniform of word offset + i
// is below 1 - p (computed in float, as PyTorch's CUDA dropout compares curand_uniform4 with it),
// and kept elements are scaled by 1 / (1 - p). p = 0: no dropout (nothing is drawn).
struct PhiloxDropout {
  uint64_t seed = 0;
  uint64_t offset = 0;  // the word of element 0
  double p = 0;         // the probability of dropping, in [0, 1)

  EMBER_HD bool active() const { return p > 0; }
  EMBER_HD float keep_probability() const { return static_cast<float>(1.0 - p); }
  EMBER_HD double scale() const { return 1.0 / (1.0 - p); }
  EMBER_HD bool keeps(uint64_t i) const { return philox_uniform(philox_word(seed, offset + i)) < keep_probability(); }
};

}  // namespace ember
