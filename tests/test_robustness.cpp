// Hostile and careless input to the library (issue 16): sizes whose products overflow or that no
// machine holds, JSON nested 100,000 deep, names that are not UTF-8, absurd thread counts, and
// gradients that overflow float32. Each case must end in an ember::Error with a message naming
// the op and the values, never a crash, a hang or another exception type. One line per case.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>

#include "core/caching_allocator.h"
#include "core/shape.h"
#include "test_util.h"

// Under AddressSanitizer a refused allocation must come back as nullptr (and so as an
// OutOfMemoryError), not abort the process; ASAN_OPTIONS still overrides this.
#if defined(__SANITIZE_ADDRESS__)
extern "C" const char* __asan_default_options() { return "allocator_may_return_null=1"; }
#endif

namespace ember {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t k2to62 = int64_t(1) << 62;
constexpr int64_t k2to40 = int64_t(1) << 40;
// 3 * kWrapsTo2 is 2 modulo 2^64: a shape [3, kWrapsTo2] "has" 2 elements if nobody checks.
constexpr int64_t kWrapsTo2 = 6148914691236517206;

// A call that must throw an ember::Error whose message contains `needle`; with `oom`, the
// error must be an OutOfMemoryError (overflowing sizes and refused allocations alike).
struct ErrorCase {
  const char* name;
  std::function<void()> run;
  std::string needle;
  bool oom = false;
};

void expect_error(const ErrorCase& c) {
  SCOPED_TRACE(c.name);
  try {
    c.run();
    ADD_FAILURE() << c.name << ": no exception (expected one containing \"" << c.needle << "\")";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(c.needle), std::string::npos) << c.name << ": message \"" << what << "\"";
    EXPECT_LT(what.size(), 1000u) << c.name << ": the message is unbounded";
    if (c.oom) EXPECT_NE(dynamic_cast<const OutOfMemoryError*>(&e), nullptr) << c.name << ": not an OutOfMemoryError";
  } catch (const std::exception& e) {
    ADD_FAILURE() << c.name << ": threw a " << typeid(e).name() << " instead of ember::Error: " << e.what();
  }
}

void expect_errors(const std::vector<ErrorCase>& cases) {
  for (const ErrorCase& c : cases) expect_error(c);
}

// ---- sizes ----

TEST(Robustness, SizesThatOverflowAreOutOfMemoryErrors) {
  expect_errors({
      {"empty 2^62 floats", [] { empty({k2to62}); },
       "empty: cannot allocate a tensor of shape [4611686018427387904] float32 (the size overflows 64 bits)", true},
      {"empty 2^62 doubles", [] { empty({k2to62}, kFloat64); }, "float64 (the size overflows 64 bits)", true},
      {"zeros 2^32 x 2^32", [] { zeros({int64_t(1) << 32, int64_t(1) << 32}); },
       "empty: cannot allocate a tensor of shape [4294967296, 4294967296] float32 (the size overflows", true},
      {"ones whose numel wraps to 2", [] { ones({3, kWrapsTo2}); }, "(the size overflows 64 bits)", true},
      {"full", [] { full({kMax, 2}, 1.0); }, "(the size overflows 64 bits)", true},
      {"rand", [] { rand({k2to62}); }, "rand: cannot allocate a tensor of shape [4611686018427387904] float32", true},
      {"randn", [] { randn({kMax}); }, "randn: cannot allocate", true},
      {"randint INT64_MAX", [] { randint(0, 10, {kMax}); },
       "randint: cannot allocate a tensor of shape [9223372036854775807] int64 (the size overflows 64 bits)", true},
      {"zero-element shape whose strides overflow", [] { empty({0, k2to62, k2to62}); }, "overflows 64 bits", true},
      {"from_blob", [] { from_blob(nullptr, {k2to62, 4}); }, "from_blob: cannot allocate", true},
      {"multinomial", [] { multinomial(ones({2, 3}), kMax, true); },
       "multinomial: cannot allocate a tensor of shape [2, 9223372036854775807] int64", true},
      {"linspace", [] { linspace(0, 1, k2to62); }, "linspace: cannot allocate", true},
      {"eye", [] { eye(k2to40, k2to40); }, "eye: cannot allocate", true},
      {"randperm", [] { randperm(k2to62); }, "randperm: cannot allocate", true},
      {"arange", [] { arange(k2to62); }, "arange: cannot allocate", true},
  });
}

TEST(Robustness, HugeAllocationsAreOutOfMemoryErrors) {
  // 4 TiB: the product fits, no machine running these tests has the memory.
  expect_errors({
      {"empty 2^40 floats", [] { empty({k2to40}); },
       "empty: cannot allocate a tensor of shape [1099511627776] float32 (4.00 TiB): cpu out of memory", true},
      {"int64 max bools", [] { empty({kMax}, kBool); }, "cpu out of memory", true},
      {"zeros 2^20 x 2^20", [] { zeros({int64_t(1) << 20, int64_t(1) << 20}, kFloat64); }, "cpu out of memory", true},
      {"one_hot with 2^40 classes", [] { one_hot(tensor({0, 1}, kInt64), k2to40); }, "out of memory", true},
      {"randperm 2^40", [] { randperm(k2to40); }, "randperm: cannot allocate", true},
  });
  // Memory is still usable afterwards.
  EXPECT_EQ(ones({3}).sum().item<float>(), 3.0f);
}

TEST(Robustness, CachingAllocatorRefusesSizesItCannotRound) {
  struct NoMemory : DeviceMemory {
    void* raw_alloc(size_t) override { return nullptr; }
    void raw_free(void*) override {}
  } device;
  CachingAllocator alloc(device, "test");
  expect_errors({
      {"SIZE_MAX bytes", [&] { alloc.allocate(SIZE_MAX); }, "test out of memory: tried to allocate", true},
      {"refused by the device", [&] { alloc.allocate(4096); }, "test out of memory: tried to allocate 4.00 KiB", true},
  });
}

TEST(Robustness, NegativeSizesAreErrors) {
  expect_errors({
      {"empty", [] { empty({2, -3}); }, "empty: negative dimension -3 in shape [2, -3]"},
      {"randn", [] { randn({-1, 2}); }, "randn: negative dimension -1"},
      {"randint", [] { randint(5, {-2}); }, "randint: negative dimension -2"},
      {"from_blob", [] { from_blob(nullptr, {-4}); }, "from_blob: negative dimension -4"},
      {"from_vector", [] { from_vector(std::vector<float>{1}, {-1}); }, "from_vector: negative dimension -1"},
      {"expand to a negative size", [] { ones({1}).expand({-5}); }, "expand: negative dimension -5"},
      {"expand, leading", [] { ones({2}).expand({-2, 2}); }, "expand: negative dimension -2"},
      {"eye", [] { eye(-1); }, "eye: n and m must be non-negative"},
      {"randperm", [] { randperm(-1); }, "randperm: n must be non-negative"},
      {"one_hot", [] { one_hot(tensor({0}, kInt64), -5); }, "one_hot: num_classes must be -1 (inferred) or non-negative"},
  });
}

TEST(Robustness, ViewsWhoseSizesOverflowAreErrors) {
  const Tensor two = ones({2});
  expect_errors({
      {"view wrapping to 2", [&] { two.view({3, kWrapsTo2}); },
       "view: shape [3, 6148914691236517206] is invalid for input of size 2 (the product of the sizes overflows"},
      {"reshape wrapping to 2", [&] { two.reshape({3, kWrapsTo2}); }, "reshape: shape [3, 6148914691236517206]"},
      {"view with -1", [&] { two.view({-1, k2to62, 4}); }, "overflows 64 bits"},
      {"view of an empty tensor", [] { ones({0}).view({0, k2to62, k2to62}); }, "overflows 64 bits"},
      {"unflatten", [&] { two.unflatten(0, {3, kWrapsTo2}); }, "unflatten: shape [3, 6148914691236517206]"},
      {"from_vector", [] { from_vector(std::vector<float>{1, 2}, {3, kWrapsTo2}); }, "from_vector: shape"},
      {"expand", [] { ones({1, 1}).expand({k2to40, k2to40}); }, "expand: shape [1099511627776, 1099511627776] has too "
                                                                  "many elements"},
      {"as_strided stride", [] { ones({4}).as_strided({2}, {kMax}); }, "as_strided: sizes [2] and strides"},
      {"as_strided size", [] { ones({4}).as_strided({kMax}, {1}); }, "reach outside the storage"},
      {"as_strided product", [] { ones({4}).as_strided({k2to62, 4}, {0, 0}); }, "as_strided: shape"},
      {"as_strided negative", [] { ones({4}).as_strided({2}, {-1}, 1); }, "reach outside the storage"},
      {"split_with_sizes wrapping to 0", [] { ones({0}).split_with_sizes({kMax, kMax, 2}); },
       "split_with_sizes: sizes [9223372036854775807, 9223372036854775807, 2] add up to more than 64 bits hold"},
      {"narrow length", [] { arange(10).narrow(0, 1, kMax); }, "narrow: start (1) + length (9223372036854775807) "
                                                               "exceeds dimension size (10)"},
      {"narrow start", [] { arange(10).narrow(0, kMax, 1); }, "narrow: start (9223372036854775807)"},
      {"arange to 1e300", [] { arange(0.0, 1e300); }, "arange: invalid size, possible overflow?"},
      {"arange to inf", [] { arange(0.0, std::numeric_limits<double>::infinity()); }, "arange: unsupported range"},
      {"arange nan step", [] { arange(0.0, 1.0, std::nan("")); }, "arange: upper bound"},
      {"one_hot of INT64_MAX", [] { one_hot(from_vector(std::vector<int64_t>{kMax}, {1})); }, "one_hot: cannot infer num_classes"},
  });
}

TEST(Robustness, HugeStepsAndChunkCountsGiveTheRightViews) {
  // Computing ceil((end - start) / step) as (end - start + step - 1) / step overflowed here.
  EXPECT_TRUE(equal(arange(10).slice(0, 0, 10, kMax), tensor({0}, kInt64)));
  EXPECT_TRUE(equal(arange(10).slice(0, 3, 10, kMax - 1), tensor({3}, kInt64)));
  tensor_list chunks = arange(5).chunk(kMax);
  ASSERT_EQ(chunks.size(), 5u);
  EXPECT_TRUE(equal(chunks[4], tensor({4}, kInt64)));
  EXPECT_TRUE(equal(arange(4).narrow(0, 4, 0), arange(0)));
  // Still correct on ordinary sizes.
  EXPECT_TRUE(equal(eye(2, 3), tensor({{1.0, 0.0, 0.0}, {0.0, 1.0, 0.0}})));
  EXPECT_TRUE(equal(arange(1, 2, 0.25), tensor({1.0, 1.25, 1.5, 1.75})));
  std::vector<int64_t> perm = randperm(6).to_vector<int64_t>();
  std::sort(perm.begin(), perm.end());
  EXPECT_EQ(perm, (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
}

}  // namespace
}  // namespace ember
