// The Philox4x32-10 generator (core/philox.h), its stream of seed and offset (core/generator.h), and
// CUDA dropout drawn from it (cuda/random.cu).
//
// The generator against Random123's published known-answer vectors (kat_vectors, philox4x32 10:
// counter, key -> four words), which scripts/philox_reference.py, an independent Python Philox written
// from the paper, reproduces. CUDA dropout: the device mask equals the host reference built from
// PhiloxDropout::keeps; the kept fraction is 1 - p within 5 standard deviations; the same seed gives
// the same mask, the next call another; backward reuses the forward's mask. The CUDA tests run on a
// GPU or under the emulator and skip elsewhere with "no CUDA device".
#include <cmath>

#include "core/backend.h"
#include "core/philox.h"
#include "cuda/cuda.h"
#include "cuda_test_util.h"
#include "test_util.h"

using namespace ember;
using namespace ember::cuda_test;

namespace {

namespace F = nn::functional;

struct KnownAnswer {
  PhiloxBlock counter;
  PhiloxKey key;
  PhiloxBlock expected;
};
// Random123 1.14 examples/kat_vectors, the three philox4x32 10 lines (the third: digits of pi).
const KnownAnswer kKnownAnswers[] = {
    {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
    {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
     {0xffffffff, 0xffffffff},
     {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
    {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
     {0xa4093822, 0x299f31d0},
     {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
};

TEST(Philox, KnownAnswerVectors) {
  for (const KnownAnswer& kat : kKnownAnswers) {
    const PhiloxBlock r = philox4x32_10(kat.counter, kat.key);
    EXPECT_EQ(r.x, kat.expected.x) << std::hex << kat.counter.x;
    EXPECT_EQ(r.y, kat.expected.y) << std::hex << kat.counter.x;
    EXPECT_EQ(r.z, kat.expected.z) << std::hex << kat.counter.x;
    EXPECT_EQ(r.w, kat.expected.w) << std::hex << kat.counter.x;
  }
}

// The stream is counter 0's four words, then counter 1's, ...; the seed is the key.
TEST(Philox, StreamWordsAreTheCountersInOrder) {
  const uint32_t first[] = {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8};  // counter 0, key 0
  for (uint64_t w = 0; w < 4; ++w) EXPECT_EQ(philox_word(0, w), first[w]) << w;
  // A counter past 2^32 (its high word in the counter's second word) and a seed of two words.
  const uint64_t seed = 0x299f31d0a4093822ULL, c = 0x05a308d3243f6a88ULL;
  const PhiloxBlock r = philox4x32_10({0x243f6a88, 0x05a308d3, 0, 0}, {0xa4093822, 0x299f31d0});
  EXPECT_EQ(philox_word(seed, 4 * c + 0), r.x);
  EXPECT_EQ(philox_word(seed, 4 * c + 3), r.w);
}

// curand_uniform's mapping: x 2^-32 + 2^-33 in float, so (0, 1].
TEST(Philox, UniformIsCurandStyle) {
  EXPECT_EQ(philox_uniform(0), std::ldexp(1.0f, -33));
  EXPECT_EQ(philox_uniform(0xffffffffu), 1.0f);
  EXPECT_EQ(philox_uniform(256), static_cast<float>(std::ldexp(1.0, -24) + std::ldexp(1.0, -33)));  // exact
  EXPECT_EQ(philox_uniform(0x80000000u), 0.5f);  // 0.5 + 2^-33 rounds to 0.5
}

// Each reservation starts where the last ended, rounded up to whole counters; manual_seed and
// cuda::manual_seed restart the stream.
TEST(Philox, ReserveAdvancesTheOffsetByWholeCounters) {
  manual_seed(7);
  PhiloxSeedOffset a = philox_reserve(5), b = philox_reserve(8), c = philox_reserve(1);
  EXPECT_EQ(a.seed, 7u);
  EXPECT_EQ(a.offset, 0u);
  EXPECT_EQ(b.offset, 8u);
  EXPECT_EQ(c.offset, 16u);
  EXPECT_EQ(philox_reserve(0).offset, 20u);
  cuda::manual_seed(9);
  a = philox_reserve(3);
  EXPECT_EQ(a.seed, 9u);
  EXPECT_EQ(a.offset, 0u);
}

// ---- CUDA dropout ----

class CudaDropout : public CudaDtypeTest {};

// The mask PhiloxDropout{seed, offset, p} gives n elements, built on the host.
Tensor host_mask(IntArrayRef sizes, ScalarType dt, uint64_t seed, uint64_t offset, double p) {
  const PhiloxDropout d{.seed = seed, .offset = offset, .p = p};
  Tensor mask = zeros(sizes, dtype(kFloat64));
  double* m = mask.data_ptr<double>();
  for (int64_t i = 0; i < mask.numel(); ++i) m[i] = d.keeps(static_cast<uint64_t>(i)) ? 1.0 / (1.0 - p) : 0.0;
  return mask.to(dt);
}

TEST_P(CudaDropout, DeviceMaskEqualsTheHostReference) {
  const ScalarType dt = GetParam();
  for (const std::vector<int64_t>& sizes : {std::vector<int64_t>{1}, {7}, {3, 333}, {2, 5, 17}}) {
    const double p = 0.3;
    manual_seed(21);
    Tensor x = ones(sizes, dtype(dt).device(kGpu));
    Tensor first = F::dropout(x, p, /*training=*/true).cpu(), second = F::dropout(x, p, true).cpu();
    const int64_t n = x.numel();
    EXPECT_TENSOR_CLOSE(first, host_mask(sizes, dt, 21, 0, p), 0, 0) << n << " elements, first call";
    const uint64_t next = static_cast<uint64_t>((n + 3) / 4 * 4);  // the offset after n words, whole counters
    EXPECT_TENSOR_CLOSE(second, host_mask(sizes, dt, 21, next, p), 0, 0) << n << " elements, second call";
  }
}

// The kept fraction of 100000 elements is 1 - p within 5 standard deviations (deterministic given
// the seed), for several p; kept elements are exactly 1 / (1 - p).
TEST_P(CudaDropout, KeepsOneMinusPOfTheElements) {
  const ScalarType dt = GetParam();
  const int64_t n = 100000;
  manual_seed(5);
  for (double p : {0.1, 0.2, 0.5, 0.9}) {
    Tensor y = F::dropout(ones({n}, dtype(dt).device(kGpu)), p, true).cpu().to(kFloat64);
    const double kept = y.ne(0).sum().item<int64_t>() / static_cast<double>(n);
    const double sigma = std::sqrt(p * (1 - p) / n);
    EXPECT_NEAR(kept, 1 - p, 5 * sigma) << "p = " << p;
    const double scale = full({}, 1.0 / (1 - p), dtype(dt)).to(kFloat64).item<double>();  // rounded to dt
    EXPECT_EQ(y.eq(0).logical_or(y.eq(scale)).all().item<bool>(), true) << "p = " << p;
  }
}

TEST_P(CudaDropout, SameSeedSameMaskNextCallAnother) {
  const ScalarType dt = GetParam();
  Tensor x = ones({64, 33}, dtype(dt).device(kGpu));
  manual_seed(3);
  Tensor a = F::dropout(x, 0.5, true).cpu(), b = F::dropout(x, 0.5, true).cpu();
  manual_seed(3);
  Tensor a2 = F::dropout(x, 0.5, true).cpu();
  cuda::manual_seed(3);  // seeds the Philox stream alone: the same first mask
  Tensor a3 = F::dropout(x, 0.5, true).cpu();
  EXPECT_TENSOR_CLOSE(a2, a, 0, 0);
  EXPECT_TENSOR_CLOSE(a3, a, 0, 0);
  EXPECT_FALSE(a.equal(b));
  manual_seed(4);
  EXPECT_FALSE(F::dropout(x, 0.5, true).cpu().equal(a));
}

// Backward multiplies by the forward's mask, kept with the product; nn::Dropout is the same op, a
// non-contiguous input takes the mask in its logical (row-major) order.
TEST_P(CudaDropout, BackwardReusesTheMask) {
  const ScalarType dt = GetParam();
  const double p = 0.25;
  Tensor xc = randn({6, 11}, dtype(dt)), g = randn({11, 6}, dtype(dt));
  Tensor x = xc.to(kGpu).requires_grad_();
  nn::Dropout drop(p);
  drop->train();
  manual_seed(8);
  Tensor y = drop(x.t());  // a transposed view
  y.backward(g.to(kGpu));
  Tensor mask = host_mask({11, 6}, dt, 8, 0, p);
  EXPECT_TENSOR_CLOSE(y.cpu(), xc.t() * mask, 0, 0);
  EXPECT_TENSOR_CLOSE(x.grad().cpu(), (g * mask).t(), 0, 0);
}

TEST_P(CudaDropout, EdgeProbabilitiesAndBadOnes) {
  const ScalarType dt = GetParam();
  Tensor x = randn({5, 3}, dtype(dt)).to(kGpu);
  EXPECT_TENSOR_CLOSE(F::dropout(x, 0.0, true).cpu(), x.cpu(), 0, 0);
  EXPECT_TENSOR_CLOSE(F::dropout(x, 1.0, true).cpu(), zeros({5, 3}, dtype(dt)), 0, 0);
  EXPECT_TENSOR_CLOSE(F::dropout(x, 0.5, /*training=*/false).cpu(), x.cpu(), 0, 0);
  EXPECT_THROWS_WITH(F::dropout(x, -0.1, true), "dropout: probability has to be between 0 and 1, but got -0.1");
  EXPECT_THROWS_WITH(F::dropout(x, 1.5, true), "dropout: probability has to be between 0 and 1, but got 1.5");
  EXPECT_THROWS_WITH(nn::Dropout(2.0), "Dropout: probability has to be between 0 and 1, but got 2");
}

INSTANTIATE_TEST_SUITE_P(Dtypes, CudaDropout, ::testing::Values(kFloat32, kFloat64), dtype_case_name);

}  // namespace
