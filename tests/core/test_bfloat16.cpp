// bfloat16 (issue 21): conversion, ops, printing and safetensors against PyTorch 1.13's fixtures
// (scripts/gen_bf16_fixtures.py), the bf16 gemm kernels against a float64 reference, and autocast:
// each op's output dtype against PyTorch, and a GPT's gradients against its float32 ones.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>

#include <gtest/gtest.h>

#include "autograd/attention.h"
#include "autograd/autocast.h"
#include "core/backend.h"
#include "core/cpu/gemm_bf16.h"
#include "fixture_json.h"
#include "test_util.h"

namespace ember {
namespace {

const nlohmann::json& fixture() {
  static const nlohmann::json j = test::load_fixture("bf16/bf16.json");
  return j;
}

Tensor bf16_from_bits(const std::vector<uint16_t>& bits, IntArrayRef sizes) {
  std::vector<uint16_t> copy = bits;
  return from_blob(copy.data(), sizes, dtype(kBFloat16)).clone();
}

std::vector<uint16_t> bits_of(const Tensor& t) {
  std::vector<uint16_t> out;
  for (BFloat16 h : t.contiguous().to_vector<BFloat16>()) out.push_back(h.bits);
  return out;
}

bool is_nan_bits(uint16_t b) { return (b & 0x7F80) == 0x7F80 && (b & 0x007F) != 0; }

float float_from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// ---- conversion ----

// The generating snippet: from_bits32(bits).to(torch.bfloat16), viewed as int16.
TEST(BFloat16, FromFloat32RoundsToNearestEvenAsPyTorch) {
  const auto& c = fixture()["from_float32"];
  std::vector<uint32_t> in = c["in"].get<std::vector<uint32_t>>();
  std::vector<uint16_t> expected = c["out"].get<std::vector<uint16_t>>();
  std::vector<float> values;
  for (uint32_t u : in) values.push_back(float_from_bits(u));
  Tensor f = from_blob(values.data(), {static_cast<int64_t>(values.size())}, dtype(kFloat32)).clone();
  std::vector<uint16_t> tensor_bits = bits_of(f.to(kBFloat16));
  for (size_t i = 0; i < in.size(); ++i) {
    const uint16_t scalar_bits = BFloat16(values[i]).bits;
    if (std::isnan(values[i])) {  // NaN stays NaN (PyTorch's vector path writes 0xFFFF, its scalar one 0x7FC0)
      EXPECT_TRUE(is_nan_bits(expected[i]));
      EXPECT_TRUE(is_nan_bits(scalar_bits)) << std::hex << in[i];
      EXPECT_TRUE(is_nan_bits(tensor_bits[i])) << std::hex << in[i];
      continue;
    }
    EXPECT_EQ(scalar_bits, expected[i]) << "float32 bits 0x" << std::hex << in[i];
    EXPECT_EQ(tensor_bits[i], expected[i]) << "float32 bits 0x" << std::hex << in[i];
  }
}

// torch.tensor(doubles, dtype=torch.float64).to(torch.bfloat16): rounded through float32, as c10 does.
TEST(BFloat16, FromFloat64GoesThroughFloat32AsPyTorch) {
  const auto& c = fixture()["from_float64"];
  std::vector<double> values;
  for (const auto& s : c["in"]) values.push_back(std::stod(s.get<std::string>()));
  Tensor d = from_blob(values.data(), {static_cast<int64_t>(values.size())}, dtype(kFloat64)).clone();
  EXPECT_EQ(bits_of(d.to(kBFloat16)), c["out"].get<std::vector<uint16_t>>());
}

TEST(BFloat16, WidensToFloat32ExactlyAndKeepsItsItems) {
  const auto& ops = fixture()["ops"];
  Tensor a = bf16_from_bits(ops["a"].get<std::vector<uint16_t>>(), {3, 37});
  std::vector<float> widened = a.to(kFloat32).to_vector<float>();
  std::vector<uint32_t> expected = ops["to_float32_of_a"].get<std::vector<uint32_t>>();
  for (size_t i = 0; i < widened.size(); ++i) EXPECT_EQ(widened[i], float_from_bits(expected[i])) << i;
  EXPECT_EQ(a.dtype(), kBFloat16);
  EXPECT_EQ(a.element_size(), 2u);
  EXPECT_TRUE(a.is_floating_point());
  EXPECT_EQ(a[0][0].item().toFloat(), widened[0]);
  EXPECT_EQ(full({2}, 0.1, dtype(kBFloat16)).to_vector<BFloat16>()[0].bits, 0x3DCD);  // 0.1 -> 0.10009765625
}

TEST(BFloat16, PromotesAsPyTorch) {
  Tensor h = ones({2}, dtype(kBFloat16));
  EXPECT_EQ((h + ones({2})).dtype(), kFloat32);                   // bfloat16 + float32
  EXPECT_EQ((h + ones({2}, dtype(kFloat64))).dtype(), kFloat64);  // + float64
  EXPECT_EQ((h + ones({2}, dtype(kInt64))).dtype(), kBFloat16);   // + int64
  EXPECT_EQ((h * 2.5).dtype(), kBFloat16);                        // a Python float keeps the tensor's dtype
  EXPECT_EQ((h + ones({}, dtype(kFloat32))).dtype(), kBFloat16);  // a 0-dim float32 of the same category
}

// ---- ops: computed in float32, rounded once ----

// bf16 values differ by at most `ulps` units in the last place (7 mantissa bits).
void expect_within_ulps(const std::vector<uint16_t>& got, const std::vector<uint16_t>& want, int ulps,
                        const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  int worst = 0;
  size_t worst_at = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    // Same sign: the distance of the bit patterns is the distance in ulps.
    const int d = (got[i] & 0x8000) == (want[i] & 0x8000) ? std::abs(int(got[i] & 0x7FFF) - int(want[i] & 0x7FFF))
                                                          : (got[i] & 0x7FFF) + (want[i] & 0x7FFF);
    if (d > worst) worst = d, worst_at = i;
  }
  EXPECT_LE(worst, ulps) << what << ": " << worst << " ulps at element " << worst_at << ": got "
                         << float(BFloat16::from_bits(got[worst_at])) << ", PyTorch "
                         << float(BFloat16::from_bits(want[worst_at]));
}

TEST(BFloat16, ElementwiseAndReductionsMatchPyTorch) {
  const auto& ops = fixture()["ops"];
  auto bits = [&](const char* name) { return ops[name].get<std::vector<uint16_t>>(); };
  Tensor a = bf16_from_bits(bits("a"), {3, 37});
  Tensor b = bf16_from_bits(bits("b"), {3, 37});
  Tensor big = bf16_from_bits(bits("big"), {4, 1000});
  // One rounding of an exact float32 result: bit for bit.
  expect_within_ulps(bits_of(a + b), bits("add"), 0, "a + b");
  expect_within_ulps(bits_of(a - b), bits("sub"), 0, "a - b");
  expect_within_ulps(bits_of(a * b), bits("mul"), 0, "a * b");
  expect_within_ulps(bits_of(a / b), bits("div"), 0, "a / b");
  expect_within_ulps(bits_of(a + 0.3), bits("add_scalar"), 0, "a + 0.3");
  expect_within_ulps(bits_of(a * 2.5), bits("mul_scalar"), 0, "a * 2.5");
  expect_within_ulps(bits_of(-a), bits("neg"), 0, "-a");
  expect_within_ulps(bits_of(big.amax({1})), bits("max_dim1"), 0, "amax");
  // Transcendental functions and sums: float32 results a few float ulps apart (another exp, another
  // order of summation) may round to neighbouring bf16 values.
  expect_within_ulps(bits_of(a.exp()), bits("exp"), 1, "exp");
  expect_within_ulps(bits_of(a.tanh()), bits("tanh"), 1, "tanh");
  expect_within_ulps(bits_of(nn::functional::gelu(a)), bits("gelu"), 1, "gelu");
  expect_within_ulps(bits_of(a.softmax(-1)), bits("softmax"), 1, "softmax");
  expect_within_ulps(bits_of(big.sum()), bits("sum_all"), 1, "sum");
  expect_within_ulps(bits_of(big.sum({1})), bits("sum_dim1"), 1, "sum(1)");
  expect_within_ulps(bits_of(big.mean({1})), bits("mean_dim1"), 1, "mean(1)");
  expect_within_ulps(bits_of(big.mean()), bits("mean_all"), 1, "mean");
  EXPECT_EQ(big.sum().dtype(), kBFloat16);
}

// A sum over leading dims of a bf16 tensor (a bf16 Linear's bias gradient) sums blocks of widened
// rows without a float32 copy of the input; it must keep the bits of the float32 sum of the widened
// tensor, rounded once: on one thread and split across threads, rows not a multiple of 4 or of the
// widening block, two leading dims, and a float32 result.
TEST(BFloat16, SumOverLeadingDimsIsTheFloat32SumRounded) {
  manual_seed(5);
  for (auto [rows, cols] : std::vector<std::pair<int64_t, int64_t>>{{5, 3}, {67, 41}, {1001, 77}, {4099, 96}}) {
    // Magnitudes over many binades, so that float32's sums round and their grouping shows in the bits.
    Tensor x = (randn({rows, cols}) * (randn({rows, cols}) * 4).exp()).to(kBFloat16);
    Tensor widened = x.to(kFloat32);
    Tensor got = x.sum({0});
    EXPECT_EQ(got.dtype(), kBFloat16);
    EXPECT_EQ(bits_of(got), bits_of(widened.sum({0}).to(kBFloat16))) << rows << " x " << cols;
    // The float32 sums themselves, before rounding (the backend with a float32 output: bits).
    Tensor sums = empty({1, cols});
    backend_for(Device(kCPU)).reduce(ReduceOp::Sum, sums, x, std::vector<int64_t>{0});
    EXPECT_EQ(sums.to_vector<float>(), widened.sum({0}).to_vector<float>()) << rows << " x " << cols << " float32";
  }
  Tensor x3 = randn({6, 50, 33}).to(kBFloat16);
  EXPECT_EQ(bits_of(x3.sum({0, 1})), bits_of(x3.to(kFloat32).sum({0, 1}).to(kBFloat16)));
  // Not leading dims, or not contiguous: the general loop, the same values.
  EXPECT_EQ(bits_of(x3.sum({1})), bits_of(x3.to(kFloat32).sum({1}).to(kBFloat16)));
  Tensor xt = randn({40, 70}).to(kBFloat16).t();
  EXPECT_EQ(bits_of(xt.sum({0})), bits_of(xt.to(kFloat32).sum({0}).to(kBFloat16)));
}

// bernoulli_ on bf16 (dropout's mask under autocast) draws as float32 does, element for element: the
// same generator words, stored as the bits of 1.0 (0x3F80) and 0.
TEST(BFloat16, BernoulliDrawsTheFloat32Mask) {
  for (double p : {0.0, 0.3, 0.9, 1.0}) {
    Tensor f = empty({5003}), h = empty({5003}, kBFloat16);  // past a 2048 chunk and off the vector width
    manual_seed(11);
    f.bernoulli_(p);
    manual_seed(11);
    h.bernoulli_(p);
    const std::vector<uint16_t> bits = bits_of(h);
    const std::vector<float> mask = f.to_vector<float>();
    int64_t ones = 0, mismatches = 0;
    for (size_t i = 0; i < bits.size(); ++i) {
      EXPECT_TRUE(bits[i] == 0x3F80 || bits[i] == 0) << "element " << i << " bits " << bits[i];
      ones += bits[i] == 0x3F80;
      mismatches += (bits[i] == 0x3F80) != (mask[i] == 1.0f);
    }
    EXPECT_EQ(mismatches, 0) << "p " << p;
    if (p == 0.0) EXPECT_EQ(ones, 0);
    if (p == 1.0) EXPECT_EQ(ones, 5003);
  }
}

TEST(BFloat16, OpsWithoutABFloat16KernelSaySo) {
  Tensor h = ones({2, 3}, dtype(kBFloat16));
  EXPECT_THROWS_WITH(h.index_add(0, tensor({0, 1}), ones({2, 3}, dtype(kBFloat16))),
                     "index_add: not implemented for 'BFloat16'");
}

// CUDA autocast takes float16 and bfloat16 (tests/cuda/test_cuda_autocast.cpp); other dtypes are
// refused, and the refusal leaves the state as it was.
TEST(BFloat16, AutocastRefusesUnsupportedDtypesClearly) {
  EXPECT_THROWS_WITH(autocast guard(kCUDA, kFloat64), "CUDA autocast supports float16 and bfloat16, got");
  EXPECT_THROWS_WITH(autocast guard(kCPU, kFloat16), "CPU autocast only supports bfloat16, got");
  EXPECT_FALSE(autocast::is_enabled());
  EXPECT_FALSE(autocast::is_cpu_enabled());
  EXPECT_EQ(autocast::get_autocast_gpu_dtype(), kFloat16);
  EXPECT_EQ(autocast::get_autocast_cpu_dtype(), kBFloat16);
}

// ---- printing and safetensors ----

// str(t) of the bf16 tensors in the fixture.
TEST(BFloat16, PrintsAsPyTorch) {
  for (const auto& [name, c] : fixture()["print"].items()) {
    std::vector<uint16_t> bits = c["bits"].get<std::vector<uint16_t>>();
    Tensor t = bf16_from_bits(bits, {static_cast<int64_t>(bits.size())});
    std::ostringstream os;
    os << t;
    EXPECT_EQ(os.str(), c["text"].get<std::string>()) << "case " << name;
  }
}

TEST(BFloat16, SafetensorsSavesAndLoadsBF16) {
  Tensor h = bf16_from_bits({0x3F80, 0xC049, 0x7F80, 0x0001, 0x8000, 0x4049}, {2, 3});
  std::stringstream file;
  save_safetensors(file, {{"w", h}});
  const std::string bytes = file.str();
  EXPECT_NE(bytes.find("\"dtype\":\"BF16\""), std::string::npos);
  // The data is the raw little-endian bf16 bits after the header.
  const std::string expected_data("\x80\x3F\x49\xC0\x80\x7F\x01\x00\x00\x80\x49\x40", 12);
  EXPECT_EQ(bytes.substr(bytes.size() - 12), expected_data);
  SafetensorsFile loaded = load_safetensors(file);
  const Tensor& w = loaded.at("w");
  EXPECT_EQ(w.dtype(), kBFloat16);
  EXPECT_EQ(w.sizes(), h.sizes());
  EXPECT_EQ(bits_of(w), bits_of(h));
}

// ---- the bf16 gemm kernels ----

struct GemmCase {
  int64_t M, N, K;
  bool ta, tb;
};

// C = op(A) op(B) with bf16 inputs against float64 sums of the same bf16 values; float32 sums are
// within K float32 roundings of it.
void check_gemm(cpu::Bf16GemmKernel kernel, const GemmCase& c, bool add) {
  cpu::set_bf16_gemm_kernel(kernel);
  Tensor A = (randn({c.ta ? c.K : c.M, c.ta ? c.M : c.K}) * 2).to(kBFloat16);
  Tensor B = randn({c.tb ? c.N : c.K, c.tb ? c.K : c.N}).to(kBFloat16);
  std::vector<BFloat16> a = A.to_vector<BFloat16>(), b = B.to_vector<BFloat16>();
  std::vector<float> C(static_cast<size_t>(c.M * c.N), 0.5f);
  const int64_t lda = A.size(1), ldb = B.size(1);
  cpu::gemm_bf16({a.data(), c.ta, lda}, {b.data(), c.tb, ldb}, c.M, c.N, c.K, C.data(), c.N, add);
  double worst = 0;
  std::vector<double> mags(C.size());
  for (int64_t i = 0; i < c.M; ++i)
    for (int64_t j = 0; j < c.N; ++j) {
      double ref = add ? 0.5 : 0.0, mag = ref;
      for (int64_t k = 0; k < c.K; ++k) {
        const double x = float(c.ta ? a[k * lda + i] : a[i * lda + k]);
        const double y = float(c.tb ? b[j * ldb + k] : b[k * ldb + j]);
        ref += x * y;
        mag += std::abs(x * y);
      }
      const double err = std::abs(C[i * c.N + j] - ref) / (mag + 1e-30);
      worst = std::max(worst, err);
      mags[i * c.N + j] = mag;
    }
  EXPECT_LE(worst, 2e-6 * std::sqrt(double(c.K) + 1))
      << cpu::bf16_gemm_kernel_name(kernel) << " M " << c.M << " N " << c.N << " K " << c.K << " ta " << c.ta << " tb "
      << c.tb << " add " << add;
  // The product rounded into bf16 (a matmul's result): the float32 sums above, each rounded once to
  // nearest (half a bf16 ulp, 2^-8 relative: bf16 has 8 significant bits; the sums may be made in
  // another order, so float32's error relative to the sum of |products| on top), into a C whose rows
  // are longer than N (ldc = N + 3). With `add`, C's own 0.5 is the addend (addmm's bias).
  const int64_t ldc = c.N + 3;
  std::vector<BFloat16> Cb(static_cast<size_t>(c.M * ldc), BFloat16(7.0f));
  for (int64_t i = 0; i < c.M && add; ++i) std::fill_n(Cb.begin() + i * ldc, c.N, BFloat16(0.5f));
  cpu::gemm_bf16_rounded({a.data(), c.ta, lda}, {b.data(), c.tb, ldb}, c.M, c.N, c.K, Cb.data(), ldc, add);
  double worst_rounded = 0;
  for (int64_t i = 0; i < c.M; ++i) {
    for (int64_t j = 0; j < c.N; ++j) {
      const double ref = C[i * c.N + j], got = float(Cb[i * ldc + j]);
      const double allowed = std::ldexp(std::abs(ref), -8) + 4e-6 * std::sqrt(double(c.K) + 1) * mags[i * c.N + j];
      worst_rounded = std::max(worst_rounded, std::abs(got - ref) / (allowed + 1e-30));
    }
    for (int64_t j = c.N; j < ldc; ++j) EXPECT_EQ(float(Cb[i * ldc + j]), 7.0f) << "wrote past N in row " << i;
  }
  EXPECT_LE(worst_rounded, 1.0) << cpu::bf16_gemm_kernel_name(kernel) << " rounded, M " << c.M << " N " << c.N << " K "
                                << c.K << " add " << add;
}

class Bf16Gemm : public ::testing::TestWithParam<cpu::Bf16GemmKernel> {
 protected:
  void SetUp() override {
    previous_ = cpu::bf16_gemm_kernel();
    if (GetParam() == cpu::Bf16GemmKernel::kAmx && !cpu::cpu_has_amx())
      GTEST_SKIP() << "no AMX here: cpuid lacks AMX-BF16, or the kernel refused the tile state (arch_prctl)";
    if (GetParam() == cpu::Bf16GemmKernel::kAvx512Bf16 && !cpu::cpu_has_avx512_bf16())
      GTEST_SKIP() << "this CPU has no AVX512_BF16";
    if (GetParam() == cpu::Bf16GemmKernel::kOpenBlas && !cpu::openblas_has_sbgemm())
      GTEST_SKIP() << "this OpenBLAS has no cblas_sbgemm";
  }
  void TearDown() override { cpu::set_bf16_gemm_kernel(previous_); }
  cpu::Bf16GemmKernel previous_ = cpu::Bf16GemmKernel::kFloat32;
};

// Odd shapes: edges of the 8-row tiles and 32-column panels, odd K (a half pair), K = 0 and 1, and K
// longer than one 512-deep pass.
TEST_P(Bf16Gemm, MatchesFloat64OnOddShapes) {
  manual_seed(7);
  for (GemmCase c : std::vector<GemmCase>{{1, 1, 1, false, false},
                                          {5, 7, 3, false, false},
                                          {17, 33, 15, false, true},
                                          {31, 65, 129, true, false},
                                          {9, 31, 64, true, true},
                                          {64, 48, 1, false, true},
                                          {3, 100, 2, false, false},
                                          {130, 40, 77, false, true},
                                          {20, 40, 1101, true, false},  // K past two blocks of 512
                                          {9, 33, 1030, false, true},
                                          {8, 32, 0, false, false},
                                          {37, 45, 64, false, true},       // A read in place, 5 rows past the tiles
                                          {11, 70, 1536, false, false},    // rounded in one pass deeper than 512
                                          {10, 35, 2100, false, true}}) {  // too deep to round in one pass
    check_gemm(GetParam(), c, false);
    check_gemm(GetParam(), c, true);
  }
}

// Through the op: bf16 tensors, a transposed weight, batched and broadcast, against float32 math on
// the same values, rounded to bf16 (half a bf16 ulp, plus float32 sums).
TEST_P(Bf16Gemm, MatmulOfBFloat16Tensors) {
  manual_seed(3);
  Tensor x = randn({3, 19, 45}).to(kBFloat16), w = randn({23, 45}).to(kBFloat16), bias = randn({23}).to(kBFloat16);
  Tensor y = x.matmul(w.t());
  Tensor ref = x.to(kFloat32).matmul(w.to(kFloat32).t());
  EXPECT_EQ(y.dtype(), kBFloat16);
  EXPECT_TRUE(y.to(kFloat32).allclose(ref, 8e-3, 1e-5)) << test::allclose_diff(y.to(kFloat32), ref);
  Tensor z = addmm(bias, x[0], w.t());
  Tensor zref = bias.to(kFloat32) + x[0].to(kFloat32).matmul(w.to(kFloat32).t());
  EXPECT_TRUE(z.to(kFloat32).allclose(zref, 8e-3, 1e-5)) << test::allclose_diff(z.to(kFloat32), zref);
  Tensor big = randn({200, 300}).to(kBFloat16), big2 = randn({300, 150}).to(kBFloat16);  // split across threads
  Tensor p = big.matmul(big2), pref = big.to(kFloat32).matmul(big2.to(kFloat32));
  EXPECT_TRUE(p.to(kFloat32).allclose(pref, 8e-3, 1e-3)) << test::allclose_diff(p.to(kFloat32), pref);
  // addmm with a full (M, N) addend, split across threads, K deeper than one 512 pass (the GPT's
  // MLP projection): the addend is added to the float32 sums, then rounded once.
  Tensor in = randn({200, 1536}).to(kBFloat16), proj = (randn({1536, 96}) * 0.05).to(kBFloat16);
  Tensor addend = (randn({200, 96}) * 3).to(kBFloat16);
  Tensor q = addmm(addend, in, proj);
  Tensor qref = addend.to(kFloat32) + in.to(kFloat32).matmul(proj.to(kFloat32));
  EXPECT_EQ(q.dtype(), kBFloat16);
  EXPECT_TRUE(q.to(kFloat32).allclose(qref, 8e-3, 1e-3)) << test::allclose_diff(q.to(kFloat32), qref);
}

// The AMX kernel is chosen only where it can run: cpuid's AMX-BF16 and the kernel's permission for
// the tile state (arch_prctl); elsewhere asking for it is an error that says why, and the default
// is another kernel.
TEST(BFloat16, AmxKernelIsRefusedClearlyWhereItCannotRun) {
  const cpu::Bf16GemmKernel previous = cpu::bf16_gemm_kernel();
  if (cpu::cpu_has_amx()) {
    std::printf("[   INFO   ] AMX usable here; the default kernel is %s\n", cpu::bf16_gemm_kernel_name(previous));
    EXPECT_NO_THROW(cpu::set_bf16_gemm_kernel(cpu::Bf16GemmKernel::kAmx));
  } else {
    std::printf("[   INFO   ] no AMX here (cpuid or arch_prctl): the AMX gemm tests skip\n");
    EXPECT_NE(previous, cpu::Bf16GemmKernel::kAmx);
    EXPECT_THROWS_WITH(cpu::set_bf16_gemm_kernel(cpu::Bf16GemmKernel::kAmx),
                       "set_bf16_gemm_kernel: no AMX-BF16 here (cpuid), or the kernel refused the tile state");
  }
  cpu::set_bf16_gemm_kernel(previous);
}

INSTANTIATE_TEST_SUITE_P(Kernels, Bf16Gemm,
                         ::testing::Values(cpu::Bf16GemmKernel::kAmx, cpu::Bf16GemmKernel::kAvx512Bf16,
                                           cpu::Bf16GemmKernel::kOpenBlas, cpu::Bf16GemmKernel::kFloat32),
                         [](const auto& info) { return std::string(cpu::bf16_gemm_kernel_name(info.param)); });

// ---- autocast ----

// with torch.autocast("cpu", dtype=torch.bfloat16): fn().dtype, for every op of the fixture.
TEST(Autocast, OutputDtypePerOpMatchesPyTorch) {
  manual_seed(1);
  Tensor x = randn({4, 8}), w = randn({6, 8}), bias = randn({6}), t = tensor({1, 2, 3, 4});
  Tensor k24 = w.view({6, 1, 2, 4}), w16 = w.to(kBFloat16);  // convolution weights, (C_out, C_in, kh, kw)
  namespace F = nn::functional;
  std::map<std::string, std::function<Tensor()>> ops = {
      {"linear", [&] { return F::linear(x, w, bias); }},
      {"matmul", [&] { return x.matmul(w.t()); }},
      {"mm", [&] { return x.mm(w.t()); }},
      {"bmm", [&] { return bmm(x.unsqueeze(0), w.t().unsqueeze(0)); }},
      {"addmm", [&] { return addmm(bias, x, w.t()); }},
      {"softmax", [&] { return x.softmax(-1); }},
      {"log_softmax", [&] { return x.log_softmax(-1); }},
      {"layer_norm", [&] { return F::layer_norm(x, {8}, {}, {}, 1e-5); }},
      {"gelu", [&] { return F::gelu(x); }},
      {"cross_entropy", [&] { return F::cross_entropy(x, t); }},
      {"nll_loss", [&] { return F::nll_loss(x, t); }},
      {"mse_loss", [&] { return F::mse_loss(x, x * 2); }},
      {"sum", [&] { return x.sum(); }},
      {"mean", [&] { return x.mean(); }},
      {"add", [&] { return x + x; }},
      {"softmax_of_bf16", [&] { return x.to(kBFloat16).softmax(-1); }},
      {"layer_norm_of_bf16", [&] { return F::layer_norm(x.to(kBFloat16), {8}, {}, {}, 1e-5); }},
      {"gelu_of_bf16", [&] { return F::gelu(x.to(kBFloat16)); }},
      {"cross_entropy_of_bf16", [&] { return F::cross_entropy(x.to(kBFloat16), t); }},
      {"nll_loss_of_bf16", [&] { return F::nll_loss(x.to(kBFloat16), t); }},
      {"mse_loss_of_bf16", [&] { return F::mse_loss(x.to(kBFloat16), x.to(kBFloat16)); }},
      {"sum_of_bf16", [&] { return x.to(kBFloat16).sum(); }},
      {"add_bf16_float32", [&] { return x.to(kBFloat16) + x; }},
      {"linear_of_float64", [&] { return F::linear(x.to(kFloat64), w.to(kFloat64)); }},
      {"conv1d", [&] { return conv1d(x.unsqueeze(0), w.view({6, 4, 2}), bias); }},
      {"conv2d", [&] { return conv2d(x.view({1, 1, 4, 8}), w.view({6, 1, 2, 4}), bias, 1, 1); }},
      {"conv2d_same", [&] { return detail::conv_same("conv2d", 2, x.view({1, 1, 4, 8}), k24, {}, {1}, 1); }},
      {"conv3d", [&] { return conv3d(x.view({1, 1, 2, 4, 4}), w.view({6, 1, 2, 2, 2}), bias); }},
      {"conv_transpose1d", [&] { return conv_transpose1d(x.unsqueeze(0), w.view({4, 6, 2}), bias, 2); }},
      {"conv_transpose2d", [&] { return conv_transpose2d(x.view({1, 1, 4, 8}), w.view({1, 6, 2, 4}), bias); }},
      {"conv_transpose3d", [&] { return conv_transpose3d(x.view({1, 1, 2, 4, 4}), w.view({1, 6, 2, 2, 2}), bias); }},
      {"conv2d_of_bf16_float32", [&] { return conv2d(x.view({1, 1, 4, 8}).to(kBFloat16), k24); }},
      {"conv_transpose1d_of_bf16", [&] { return conv_transpose1d(x.unsqueeze(0).to(kBFloat16), w16.view({4, 6, 2})); }},
  };
  const auto& expected = fixture()["autocast"];
  ASSERT_EQ(ops.size(), expected.size());
  autocast guard;
  for (const auto& [name, fn] : ops)
    EXPECT_EQ(std::string(dtype_name(fn().dtype())), expected.at(name).get<std::string>()) << name;
}

TEST(Autocast, GuardNestsAndRestores) {
  EXPECT_FALSE(autocast::is_cpu_enabled());
  {
    autocast on;
    EXPECT_TRUE(autocast::is_cpu_enabled());
    EXPECT_EQ(autocast::get_autocast_cpu_dtype(), kBFloat16);
    {
      autocast off(kCPU, kBFloat16, false);
      EXPECT_FALSE(autocast::is_cpu_enabled());
      EXPECT_EQ(ones({2, 2}).mm(ones({2, 2})).dtype(), kFloat32);
    }
    EXPECT_TRUE(autocast::is_cpu_enabled());
  }
  EXPECT_FALSE(autocast::is_cpu_enabled());
  EXPECT_THROWS_WITH(autocast::set_autocast_cpu_dtype(kFloat64), "CPU autocast only supports bfloat16");
}

// A small GPT's loss and every parameter gradient under autocast against float32: the parameters
// and their gradients stay float32, and the gradients agree to bf16 precision (relative error of
// each gradient's norm well under the 2^-8 of one rounding per product, summed over the layers).
TEST(Autocast, GptGradientsMatchFloat32WithinBFloat16Tolerance) {
  manual_seed(11);
  nn::GPTConfig config;
  config.vocab_size = 29;
  config.block_size = 16;
  config.n_layer = 2;
  config.n_head = 2;
  config.n_embd = 32;
  nn::GPT model(config);
  Tensor idx = randint(29, {3, 16}, dtype(kInt64)), targets = randint(29, {3, 16}, dtype(kInt64));
  auto grads = [&](bool mixed) {
    model->zero_grad();
    Tensor loss;
    {
      autocast guard(kCPU, kBFloat16, mixed);
      loss = std::get<1>(model->forward(idx, targets));
    }
    EXPECT_EQ(loss.dtype(), kFloat32);
    loss.backward();
    std::vector<Tensor> out{loss.detach()};
    for (const Tensor& p : model->parameters()) {
      EXPECT_EQ(p.dtype(), kFloat32);
      EXPECT_EQ(p.grad().dtype(), kFloat32);
      out.push_back(p.grad().clone());
    }
    return out;
  };
  std::vector<Tensor> f32 = grads(false), bf16 = grads(true);
  EXPECT_NEAR(bf16[0].item<double>(), f32[0].item<double>(), 0.02 * f32[0].item<double>());
  std::vector<std::string> names;
  for (const auto& item : model->named_parameters()) names.push_back(item.key());
  for (size_t i = 1; i < f32.size(); ++i) {
    const double rel = (bf16[i] - f32[i]).norm().item<double>() / (f32[i].norm().item<double>() + 1e-12);
    EXPECT_LT(rel, 0.03) << names[i - 1];
  }
}

// The fused causal attention on bf16 heads (what autocast's projections give it) widens each head to
// float32 and runs the float32 kernel, keeping float32 weights: its output and q, k, v gradients are
// the float32 kernel's on the same (bf16) values, rounded once, bit for bit. The composed bf16 form
// (bf16 scores, bf16 softmax) would be off by many bf16 ulps. Odd sizes: 37 queries and keys (past
// the 32-query blocks), head dims 24 and 20, q, k, v strided views of one projection, and dropout.
TEST(Autocast, FusedAttentionOnBFloat16HeadsIsFloat32Rounded) {
  manual_seed(5);
  const int64_t B = 2, H = 3, L = 37, E = 24, Ev = 20;
  Tensor qkv = randn({B, L, H * (2 * E + Ev)}).to(kBFloat16).reshape({B, L, H, 2 * E + Ev}).transpose(1, 2);
  Tensor noise = (rand({B, H, L, L}).gt(0.2).to(kFloat32) * 1.25).to(kBFloat16);
  Tensor g = randn({B, H, L, Ev}).to(kBFloat16);
  for (bool dropout : {false, true}) {
    auto run = [&](ScalarType dtype) {
      Tensor q = qkv.narrow(3, 0, E).to(dtype).detach().requires_grad_(true);
      Tensor k = qkv.narrow(3, E, E).to(dtype).detach().requires_grad_(true);
      Tensor v = qkv.narrow(3, 2 * E, Ev).to(dtype).detach().requires_grad_(true);
      Tensor out = autograd::causal_attention(q, k, v, dropout ? noise.to(dtype) : Tensor(), 0.3);
      out.backward(g.to(dtype));
      return std::vector<Tensor>{out, q.grad(), k.grad(), v.grad()};
    };
    std::vector<Tensor> h = run(kBFloat16), f = run(kFloat32);
    const char* names[] = {"out", "dq", "dk", "dv"};
    for (int i = 0; i < 4; ++i) {
      EXPECT_EQ(h[i].dtype(), kBFloat16) << names[i];
      EXPECT_EQ(bits_of(h[i]), bits_of(f[i].to(kBFloat16))) << names[i] << " dropout " << dropout;
    }
  }
}

// Autocast's cache of weight casts (torch 1.13's cached_cast): a weight used twice in a scope is cast
// once, and both uses send their gradient back to it; an in-place update of the weight (an
// optimizer step) makes a new cast; leaving the outermost scope empties the cache; activations and
// casts made without grad mode are not kept.
TEST(Autocast, CachesWeightCastsPerScope) {
  manual_seed(9);
  Tensor w = randn({6, 8}).requires_grad_(true), x = randn({4, 8});
  optim::SGD opt({w}, optim::SGDOptions(0.5));
  namespace F = nn::functional;
  Tensor y;
  {
    autocast outer;
    Tensor first = autograd::autocast_to_lower(w);
    EXPECT_EQ(first.dtype(), kBFloat16);
    EXPECT_TRUE(autograd::autocast_to_lower(w).is_same(first));  // a hit
    EXPECT_EQ(autocast::cache_size(), 1u);
    autograd::autocast_to_lower(x);      // an activation: cast, not kept
    autograd::autocast_to_lower(w * 2);  // not a leaf
    EXPECT_EQ(autocast::cache_size(), 1u);
    y = F::linear(x, w) + F::linear(x * 3, w);  // two uses of one cast
    {
      autocast inner;  // a nested scope shares the cache and leaves it as it was
      EXPECT_TRUE(autograd::autocast_to_lower(w).is_same(first));
    }
    EXPECT_EQ(autocast::cache_size(), 1u);
    y.to(kFloat32).sum().backward();
    // d/dw sum(x w^T + 3x w^T) = 4 * column sums of x, for each of w's rows (bf16 products of x)
    Tensor expected = (x.to(kBFloat16).to(kFloat32) * 4).sum(0, true).expand({6, 8});
    EXPECT_TRUE(w.grad().allclose(expected, 1e-2, 1e-2)) << test::allclose_diff(w.grad(), expected);
    opt.step();  // w changes in place: its version moves, the cached cast is stale
    Tensor second = autograd::autocast_to_lower(w);
    EXPECT_FALSE(second.is_same(first));
    EXPECT_EQ(bits_of(second), bits_of(w.detach().to(kBFloat16)));
    EXPECT_NE(bits_of(second), bits_of(first));
    EXPECT_EQ(autocast::cache_size(), 1u);
  }
  EXPECT_EQ(autocast::cache_size(), 0u);  // emptied on leaving the outermost scope
  {
    autocast on;
    NoGradGuard no_grad;
    EXPECT_FALSE(autograd::autocast_to_lower(w).requires_grad());
    EXPECT_EQ(autocast::cache_size(), 0u);  // a cast without a graph is not kept
  }
}

}  // namespace
}  // namespace ember
