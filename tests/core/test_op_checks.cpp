// Ops on the edges of their domains, against PyTorch: integer division at INT_MIN and by zero,
// what PyTorch refuses on bools and integer powers, convolution sizes that overflow or are empty,
// Embedding's padding_idx, GroupNorm on an empty batch, bf16 multinomial and the memory of a bool
// sum. Each error must name the op the user called and the values involved.
#include <cstdint>
#include <limits>

#include <gtest/gtest.h>

#include "core/cpu/allocator.h"
#include "nn/conv.h"
#include "nn/embedding.h"
#include "nn/normalization.h"
#include "test_util.h"

namespace ember {
namespace {

constexpr int64_t kMin64 = std::numeric_limits<int64_t>::min();

std::vector<int64_t> values64(const Tensor& t) {
  Tensor c = t.contiguous();
  return {c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel()};
}

// ---- integer division ----

// torch.tensor([-2**63, 7, -7, 5]) % torch.tensor([-1, -1, 2, -3]) -> [0, 0, 1, -1];
// torch.fmod(...) -> [0, 0, -1, 2] (the machine's idiv would trap on INT64_MIN / -1).
TEST(OpChecks, IntegerRemainderAndFmodOfIntMinByMinusOneAreZero) {
  Tensor a = from_vector<int64_t>({kMin64, 7, -7, 5}, {4}), b = from_vector<int64_t>({-1, -1, 2, -3}, {4});
  EXPECT_EQ(values64(a.remainder(b)), (std::vector<int64_t>{0, 0, 1, -1}));
  EXPECT_EQ(values64(a.fmod(b)), (std::vector<int64_t>{0, 0, -1, 2}));
  EXPECT_EQ(values64(a % b), (std::vector<int64_t>{0, 0, 1, -1}));
  EXPECT_EQ(a.remainder(-1).sum().item<int64_t>(), 0);
  EXPECT_EQ(a.fmod(-1).sum().item<int64_t>(), 0);
}

// torch.tensor([-2**63, 5, -5]).neg() -> [-2**63, -5, 5] and .abs() -> [-2**63, 5, 5]: the minimum
// wraps to itself (negating it in C++ is undefined behaviour, which UBSan reports).
TEST(OpChecks, NegAndAbsOfIntMinWrapToItself) {
  Tensor a = from_vector<int64_t>({kMin64, 5, -5}, {3});
  EXPECT_EQ(values64(a.neg()), (std::vector<int64_t>{kMin64, -5, 5}));
  EXPECT_EQ(values64(a.abs()), (std::vector<int64_t>{kMin64, 5, 5}));
}

TEST(OpChecks, IntegerRemainderByZeroIsAZeroDivisionError) {
  Tensor a = from_vector<int64_t>({kMin64, 3}, {2});
  EXPECT_THROWS_WITH(a.remainder(from_vector<int64_t>({1, 0}, {2})),
                     "ZeroDivisionError: remainder: integer division by zero (divisor shape [2])");
  EXPECT_THROWS_WITH(a.fmod(0), "ZeroDivisionError: fmod: integer division by zero");
  EXPECT_THROWS_WITH(a % 0, "ZeroDivisionError: remainder: integer division by zero");
}

// torch.tensor([-2**63]) / -1 is true division: 9.2234e+18 as float32.
TEST(OpChecks, IntegerDivisionIsTrueDivision) {
  Tensor q = from_vector<int64_t>({kMin64, 7}, {2}).div(-1);
  EXPECT_EQ(q.dtype(), kFloat32);
  EXPECT_EQ(q[0].item<float>(), 9.223372036854775808e18f);
  EXPECT_EQ(q[1].item<float>(), -7.0f);
  Tensor by_zero = from_vector<int64_t>({1, -1, 0}, {3}) / from_vector<int64_t>({0, 0, 0}, {3});
  EXPECT_EQ(by_zero[0].item<float>(), std::numeric_limits<float>::infinity());
  EXPECT_EQ(by_zero[1].item<float>(), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(by_zero[2].item<float>()));
  // In place, the float result cannot go back into the integers (PyTorch: "result type Float can't
  // be cast to the desired output type Long").
  Tensor x = from_vector<int64_t>({kMin64, 6}, {2});
  EXPECT_THROWS_WITH(x.div_(-1), "div_: result type float32 can't be cast to the desired output type int64");
  EXPECT_THROWS_WITH(x.div_(0), "div_: result type float32 can't be cast to the desired output type int64");
  EXPECT_THROWS_WITH(x.div_(ones({2})), "div_: result type float32 can't be cast to the desired output type int64");
  EXPECT_EQ(x[0].item<int64_t>(), kMin64);
}

// ---- what PyTorch refuses ----

TEST(OpChecks, IntegersToNegativeIntegerPowersAreRefused) {
  Tensor x = from_vector<int64_t>({2, -1, 1}, {3});
  EXPECT_THROWS_WITH(x.pow(-1), "pow: Integers to negative integer powers are not allowed (a int64 tensor to the "
                                "power -1)");
  EXPECT_THROWS_WITH(x.pow_(-2), "pow: Integers to negative integer powers are not allowed");
  EXPECT_THROWS_WITH(ones({2}, dtype(kBool)).pow(-1), "Integers to negative integer powers are not allowed");
  // Allowed, as in PyTorch: a float exponent, a float base, and a tensor of negative exponents.
  EXPECT_EQ(x.pow(-1.0)[0].item<float>(), 0.5f);
  EXPECT_EQ(x.to(kFloat32).pow(-1)[0].item<float>(), 0.5f);
  EXPECT_EQ(values64(x.pow(from_vector<int64_t>({-1, -1, -3}, {3}))), (std::vector<int64_t>{0, -1, 1}));
  EXPECT_EQ(values64(x.pow(3)), (std::vector<int64_t>{8, -1, 1}));
}

TEST(OpChecks, BoolSubtractionAndNegationAreRefusedAsInPyTorch) {
  Tensor m = from_vector<bool>({true, false}, {2}, dtype(kBool));
  EXPECT_THROWS_WITH(m - m,
                     "sub: Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
                     "`logical_xor()` operator instead (shapes [2] and [2])");
  EXPECT_THROWS_WITH(-m,
                     "neg: Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
                     "invert a mask, use the `~` or `logical_not()` operator instead (input of shape [2])");
  EXPECT_THROWS_WITH(m.neg_(), "Negation, the `-` operator, on a bool tensor is not supported");
  EXPECT_THROWS_WITH(m - 1, "sub: Subtraction, the `-` operator, with a bool tensor is not supported");
  EXPECT_THROWS_WITH(ones({2}) - m, "sub: Subtraction, the `-` operator, with a bool tensor is not supported");
  EXPECT_EQ(m.logical_xor(m).sum().item<int64_t>(), 0);  // what the message suggests
  EXPECT_EQ(m.logical_not()[1].item<bool>(), true);
}

// PyTorch 1.13: torch.add(int, int, alpha=0.5), a.add_(b, alpha=0.5) and a.add(1, alpha=0.5) raise "For
// integral input tensors, argument alpha must not be a floating point number."; alpha=True with a
// non-bool result raises "Boolean alpha only supported for Boolean results."; bool + bool with alpha=2 is
// tensor([True, True]).
TEST(OpChecks, AlphaMatchesTheResultDtypeAsInPyTorch) {
  Tensor a = from_vector<int64_t>({1, 2}, {2}), b = from_vector<int64_t>({3, 4}, {2});
  EXPECT_THROWS_WITH(a.add(b, 0.5),
                     "add: For integral input tensors, argument alpha must not be a floating point "
                     "number (alpha 0.5, result dtype int64)");
  EXPECT_THROWS_WITH(a.sub(b, 0.5), "sub: For integral input tensors, argument alpha must not be a floating point");
  EXPECT_THROWS_WITH(a.add(1, 0.5), "add: For integral input tensors");
  EXPECT_THROWS_WITH(a.sub(1, 0.5), "sub: For integral input tensors");
  EXPECT_THROWS_WITH(a.add_(b, 0.5), "add_: For integral input tensors");
  EXPECT_THROWS_WITH(a.sub_(1, 0.5), "sub_: For integral input tensors");
  EXPECT_EQ(values64(a), (std::vector<int64_t>{1, 2}));  // the failed in-place ops left it alone
  EXPECT_THROWS_WITH(a.add(b, true), "add: Boolean alpha only supported for Boolean results");
  EXPECT_THROWS_WITH(a.to(kFloat32).add(b, true), "Boolean alpha only supported for Boolean results");
  // Allowed: an integral alpha on integers, a float alpha on a float result, any bool alpha on bools.
  EXPECT_EQ(values64(a.add(b, 2)), (std::vector<int64_t>{7, 10}));
  EXPECT_FLOAT_EQ(a.add(b.to(kFloat32), 0.5)[1].item<float>(), 4.0f);
  EXPECT_FLOAT_EQ(a.add(1.5, 0.5)[0].item<float>(), 1.75f);
  Tensor m = from_vector<bool>({true, false}, {2}, dtype(kBool));
  EXPECT_EQ(m.add(m, 2).sum().item<int64_t>(), 1);
}

// ---- convolution sizes ----

TEST(OpChecks, ConvolutionSizesThatOverflowAreErrorsNamingTheValues) {
  const int64_t big = int64_t(1) << 62;
  Tensor x = ones({1, 1, 5, 5}), w = ones({1, 1, 3, 3});
  EXPECT_THROWS_WITH(conv2d(x, w, {}, {1}, {0}, {big}),
                     "conv2d: the sizes overflow 64 bits: input of size [1, 1, 5, 5], weight of size [1, 1, 3, 3], "
                     "stride=[1, 1], padding=[0, 0], dilation=[4611686018427387904, 4611686018427387904]");
  EXPECT_THROWS_WITH(conv2d(x, w, {}, {1}, {std::numeric_limits<int64_t>::max()}), "conv2d: the sizes overflow 64 bits");
  EXPECT_THROWS_WITH(conv1d(ones({1, 1, 5}), ones({1, 1, 3}), {}, {1}, {0}, {big}), "conv1d: the sizes overflow 64 bits");
  EXPECT_THROWS_WITH(conv_transpose2d(x, w, {}, {big}), "conv_transpose2d: the sizes overflow 64 bits");
  EXPECT_THROWS_WITH(conv_transpose2d(x, w, {}, {1}, {0}, {0}, 1, {big}), "conv_transpose2d: the sizes overflow");
  // Large but representable: the usual "kernel can't be greater than the input" error.
  EXPECT_THROWS_WITH(conv2d(x, w, {}, {1}, {0}, {int64_t(1) << 40}),
                     "conv2d: Calculated padded input size per channel: (5 x 5). Kernel size: (2199023255553 x "
                     "2199023255553)");
}

// F.conv2d(torch.ones(1, 1, 5, 5), torch.ones(1, 1, 0, 0)) raises "kernel size should be greater
// than zero" rather than returning a 6 x 6 output.
TEST(OpChecks, AnEmptyConvolutionKernelIsRefused) {
  EXPECT_THROWS_WITH(conv2d(ones({1, 1, 5, 5}), ones({1, 1, 0, 0})),
                     "conv2d: kernel size should be greater than zero, but got kernel size (0 x 0) (weight of size "
                     "[1, 1, 0, 0])");
  EXPECT_THROWS_WITH(conv2d(ones({1, 1, 5, 5}), ones({1, 1, 3, 0})), "kernel size (3 x 0)");
  EXPECT_THROWS_WITH(conv1d(ones({1, 1, 5}), ones({1, 1, 0})), "conv1d: kernel size should be greater than zero");
  EXPECT_THROWS_WITH(conv_transpose2d(ones({1, 1, 5, 5}), ones({1, 1, 0, 0})),
                     "conv_transpose2d: kernel size should be greater than zero");
  EXPECT_THROWS_WITH(detail::conv_same("conv2d", 2, ones({1, 1, 5, 5}), ones({1, 1, 0, 0}), {}, {1}, 1),
                     "conv2d: kernel size should be greater than zero");
}

// F.conv_transpose2d(torch.ones(1, 3, 5, 5), torch.ones(3, 1, 3, 3), groups=2): "Given groups=2,
// expected weight to be divisible by 2 at dimension 0, but got weight of size [3, 1, 3, 3] instead".
TEST(OpChecks, TransposedConvolutionGroupErrorsSayWhatIsWrong) {
  EXPECT_THROWS_WITH(conv_transpose2d(ones({1, 3, 5, 5}), ones({3, 1, 3, 3}), {}, {1}, {0}, {0}, 2),
                     "conv_transpose2d: Given groups=2, expected weight to be divisible by 2 at dimension 0, but got "
                     "weight of size [3, 1, 3, 3] instead");
  EXPECT_THROWS_WITH(conv_transpose2d(ones({1, 4, 5, 5}), ones({2, 1, 3, 3}), {}, {1}, {0}, {0}, 2),
                     "conv_transpose2d: Given transposed=1, weight of size [2, 1, 3, 3], expected input[1, 4, 5, 5] to "
                     "have 2 channels, but got 4 channels instead");
  EXPECT_THROWS_WITH(conv2d(ones({1, 2, 5, 5}), ones({1, 1, 3, 3}), {}, {1}, {0}, {1}, 2),
                     "conv2d: Given groups=2, expected weight to be at least 2 at dimension 0, but got weight of size "
                     "[1, 1, 3, 3] instead");
  // Valid grouped transposed convolution still runs: 4 -> 2 channels, 5 x 5 -> 7 x 7.
  EXPECT_EQ(conv_transpose2d(ones({1, 4, 5, 5}), ones({4, 1, 3, 3}), {}, {1}, {0}, {0}, 2).sizes(),
            IntArrayRef({1, 2, 7, 7}));
}

// ---- nn ----

TEST(OpChecks, EmbeddingPaddingIdxMustBeWithinNumEmbeddings) {
  Tensor w = ones({4, 2}), idx = from_vector<int64_t>({0, 3}, {2});
  EXPECT_THROWS_WITH(embedding(w, idx, 4), "embedding: padding_idx 4 must be within num_embeddings (4)");
  EXPECT_THROWS_WITH(embedding(w, idx, -5), "embedding: padding_idx -5 must be within num_embeddings (4)");
  EXPECT_THROWS_WITH(nn::Embedding(nn::EmbeddingOptions(4, 2).padding_idx(7)),
                     "Embedding: padding_idx 7 must be within num_embeddings (4)");
  // -1 is the last row, as in PyTorch: no gradient reaches it.
  Tensor wg = ones({4, 2}).requires_grad_();
  embedding(wg, idx, -1).sum().backward();
  EXPECT_EQ(wg.grad()[0][0].item<float>(), 1.0f);
  EXPECT_EQ(wg.grad()[3][0].item<float>(), 0.0f);
}

// F.group_norm(torch.ones(0, 6, 4), 2) is an empty (0, 6, 4) tensor.
TEST(OpChecks, GroupNormOfAnEmptyBatchIsEmpty) {
  nn::GroupNorm gn(nn::GroupNormOptions(2, 6));
  Tensor y = gn(ones({0, 6, 4}));
  EXPECT_EQ(y.sizes(), IntArrayRef({0, 6, 4}));
  EXPECT_EQ(gn(ones({0, 6})).sizes(), IntArrayRef({0, 6}));
  EXPECT_THROWS_WITH(gn(ones({0, 5, 4})), "group_norm: expected the number of channels of input of shape [0, 5, 4] (5)");
}

// ---- bf16 multinomial, bool sums ----

TEST(OpChecks, MultinomialSamplesBFloat16ProbabilitiesAsFloat32) {
  Tensor p = from_vector<float>({0, 0, 1, 0, 0.5f, 0.5f}, {2, 3}).to(kBFloat16);
  manual_seed(3);
  Tensor s = multinomial(p, 1);
  manual_seed(3);
  Tensor f = multinomial(p.to(kFloat32), 1);
  EXPECT_EQ(values64(s), values64(f));
  EXPECT_EQ(s[0][0].item<int64_t>(), 2);
  EXPECT_NE(s[1][0].item<int64_t>(), 0);
  EXPECT_EQ(multinomial(p, 2, /*replacement=*/true).sizes(), IntArrayRef({2, 2}));
  EXPECT_THROWS_WITH(multinomial(from_vector<float>({-1, 1}, {2}).to(kBFloat16), 1),
                     "multinomial: probability tensor contains either `inf`, `nan` or element < 0");
}

TEST(OpChecks, BoolSumsCountWithoutAWidenedCopyOfTheMask) {
  const int64_t n = int64_t(1) << 24;  // 16 MiB of bools; an int64 copy would be 128 MiB
  Tensor mask = zeros({2, n / 2}, dtype(kBool));
  mask[0][5].fill_(true);
  mask[1][n / 2 - 1].fill_(true);
  const size_t in_use = cpu::cpu_memory_stats().allocated;
  cpu::cpu_reset_peak_memory_stats();
  EXPECT_EQ(mask.sum().item<int64_t>(), 2);
  EXPECT_EQ(mask.sum().dtype(), kInt64);
  EXPECT_EQ(values64(mask.sum(1)), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(values64(mask.sum({0, 1}, /*keepdim=*/true)), (std::vector<int64_t>{2}));
  // One int64 slab of 4 Mi elements (32 MiB) and its row sums at a time, never the 128 MiB copy.
  if (cpu::kCacheFrom != ~size_t(0)) EXPECT_LE(cpu::cpu_memory_stats().max_allocated - in_use, size_t(40) << 20);
  Tensor per_column = mask.sum(0, /*keepdim=*/true);  // its output alone is 64 MiB
  EXPECT_EQ(per_column.sizes(), IntArrayRef({1, n / 2}));
  EXPECT_EQ(per_column.sum().item<int64_t>(), 2);
  EXPECT_EQ(per_column[0][5].item<int64_t>(), 1);
  EXPECT_EQ(per_column[0][n / 2 - 1].item<int64_t>(), 1);
}

}  // namespace
}  // namespace ember
