// The dtypes beyond float32 / float64 / int64 / bool on CUDA: uint8, int8, int16, int32, float16 and
// bfloat16, each kernel family against the CPU on the same inputs.
//
// Copies, conversions, elementwise ops and integer reductions must give the CPU's bits (NaN matches
// any NaN: a GPU's NaN payloads are its own); float reductions and matmul are within the tolerances
// stated beside them. Edge values (NaN, infinities, -0, subnormal halves, 65504, integer overflow)
// come from one list, converted on the CPU to each dtype. Without a usable CUDA device (or the
// emulator) every test skips.
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

#include "cuda/reduced_float.h"
#include "cuda_test_util.h"
#include "test_util.h"

using namespace ember;
using namespace ember::cuda_test;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

const std::vector<ScalarType> kNewDtypes = {kUInt8, kInt8, kInt16, kInt32, kFloat16, kBFloat16};
const std::vector<ScalarType> kAllDtypes = {kFloat32, kFloat64, kInt64,   kBool,  kUInt8,
                                            kInt8,    kInt16,   kInt32,   kFloat16, kBFloat16};

// Values every conversion meets: signed zeros, ties of each rounding, the float16 limits (65504, the
// 65520 tie to infinity, a subnormal, half's smallest subnormal and below it), integer wraparound
// (300 -> uint8 44, -129 -> int8 127), values beyond int32 and int64, infinities and NaN.
const std::vector<double> kEdgeValues = {0.0,     -0.0,  1.0,     -1.0,    0.5,   1.5,     2.5,      -2.5,
                                         127.5,   200.0, 255.0,   256.0,   300.0, -129.0,  -128.0,   65504.0,
                                         65519.0, 65520, 1e5,     -1e5,    1e-7,  6e-8,    2e-8,     1.00390625,
                                         3e9,     -3e9,  1e20,    -1e20,   3e38,  kInf,    -kInf,    kNaN};

// The edge values as a CPU tensor of `dtype` (converted by the CPU), shape (4, 8).
Tensor edge_tensor(ScalarType dtype) {
  return from_vector<double>(kEdgeValues, {4, 8}).to(dtype);
}

// Random CPU values of `dtype`: normal * scale for floating types, integers over the type's
// range (with its extremes) otherwise.
Tensor random_tensor(ScalarType dtype, std::vector<int64_t> shape, double scale = 1.0) {
  if (is_floating_point(dtype)) return (randn(shape) * scale).to(dtype);
  if (dtype == kBool) return randn(shape).gt(0);
  const double lo = dtype == kUInt8 ? 0 : dtype == kInt8 ? -128 : dtype == kInt16 ? -32768 : -2147483648.0;
  const double hi = dtype == kUInt8 ? 255 : dtype == kInt8 ? 127 : dtype == kInt16 ? 32767 : 2147483647.0;
  Tensor x = (rand(shape, TensorOptions().dtype(kFloat64)) * (hi - lo + 1) + lo).floor().clamp(lo, hi);
  return x.to(dtype);
}

// One element as a double, for NaN checks and messages.
double element_value(const char* p, ScalarType dtype) {
  switch (dtype) {
    case kFloat32:
      return *reinterpret_cast<const float*>(p);
    case kFloat64:
      return *reinterpret_cast<const double*>(p);
    case kFloat16:
      return *reinterpret_cast<const Half*>(p);
    case kBFloat16:
      return *reinterpret_cast<const BFloat16*>(p);
    default:
      return 0;  // integers and bool are compared by their bits only
  }
}

// The same bits, or NaN in both (a GPU's NaN payloads are its own).
bool same_element(const char* a, const char* b, ScalarType dtype) {
  if (std::memcmp(a, b, element_size(dtype)) == 0) return true;
  return is_floating_point(dtype) && std::isnan(element_value(a, dtype)) && std::isnan(element_value(b, dtype));
}

// EXPECTs that `gpu` (on CUDA) holds the bits of `cpu`: dtype, shape and every element; -0 differs
// from 0, NaN matches NaN. Prints the first differing element.
void expect_same_bits(const Tensor& gpu, const Tensor& cpu, const std::string& what) {
  ASSERT_TRUE(gpu.is_cuda()) << what;
  ASSERT_EQ(gpu.dtype(), cpu.dtype()) << what;
  ASSERT_EQ(gpu.sizes(), cpu.sizes()) << what;
  const Tensor g = gpu.cpu().contiguous(), c = cpu.contiguous();
  const auto* gb = static_cast<const char*>(g.data_ptr());
  const auto* cb = static_cast<const char*>(c.data_ptr());
  const size_t n = element_size(c.dtype());
  for (int64_t i = 0; i < c.numel(); ++i) {
    if (same_element(gb + i * n, cb + i * n, c.dtype())) continue;
    ADD_FAILURE() << what << ": element " << i << " differs: cuda " << g.reshape({-1})[i].to(kFloat64).item<double>()
                  << ", cpu " << c.reshape({-1})[i].to(kFloat64).item<double>() << " (dtype " << dtype_name(c.dtype())
                  << ")";
    return;
  }
}

std::string name_of(ScalarType t) { return std::string(dtype_name(t)); }

class CudaDtypeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
    manual_seed(7);
  }
};

using CudaDtypeConvert = CudaDtypeTest;
using CudaDtypeElementwise = CudaDtypeTest;
using CudaDtypeReduce = CudaDtypeTest;
using CudaDtypeIndex = CudaDtypeTest;
using CudaDtypeMatmul = CudaDtypeTest;
using CudaDtypeAutograd = CudaDtypeTest;

// ---- the device's float16 / bfloat16 types (host code; runs in every build) ----

// cuda/reduced_float.h repeats core/half.h's and core/bfloat16.h's conversions for device code:
// every 16-bit pattern widens to the same float, and floats (a sweep over all exponents, every
// pattern near the rounding ties and limits) round to the same bits.
TEST(CudaDtypeHost, DeviceTypesConvertAsCoreTypes) {
  for (uint32_t b = 0; b <= 0xFFFF; ++b) {
    const auto bits = static_cast<uint16_t>(b);
    const float h = Half::to_float(bits), dh = cuda::DeviceHalf::to_float(bits);
    const float f = BFloat16::to_float(bits), df = cuda::DeviceBFloat16::to_float(bits);
    ASSERT_EQ(std::memcmp(&h, &dh, 4), 0) << "half bits " << b;
    ASSERT_EQ(std::memcmp(&f, &df, 4), 0) << "bfloat16 bits " << b;
  }
  const auto check = [](uint32_t u) {
    float f;
    std::memcpy(&f, &u, 4);
    ASSERT_EQ(Half(f).bits, cuda::DeviceHalf(f).bits) << "float bits " << u;
    ASSERT_EQ(BFloat16(f).bits, cuda::DeviceBFloat16(f).bits) << "float bits " << u;
    ASSERT_EQ(Half(static_cast<double>(f)).bits, cuda::DeviceHalf(static_cast<double>(f)).bits) << u;
  };
  for (uint64_t u = 0; u <= 0xFFFFFFFFu; u += 65521) check(static_cast<uint32_t>(u));  // a prime stride
  for (uint32_t center : {0x477FF000u, 0x38800000u, 0x33000000u, 0x3F808000u, 0x7F800000u, 0x7F7FFFFFu}) {
    for (uint32_t d = 0; d < 4096; ++d) {
      check(center + d - 2048);
      check((center + d - 2048) | 0x80000000u);
    }
  }
}

// ---- allocation, copies, conversions, fill, printing ----

TEST_F(CudaDtypeConvert, EveryPairMatchesCpuBits) {
  for (ScalarType from : kAllDtypes) {
    const Tensor src = edge_tensor(from);
    const Tensor gsrc = src.to(kGpu);
    expect_same_bits(gsrc, src, "upload " + name_of(from));
    for (ScalarType to : kAllDtypes) {
      const std::string what = name_of(from) + " -> " + name_of(to);
      expect_same_bits(gsrc.to(to), src.to(to), what);
      expect_same_bits(gsrc.t().to(to), src.t().to(to), what + " (transposed)");
      expect_same_bits(gsrc.slice(1, 1, 8, 3).to(to), src.slice(1, 1, 8, 3).to(to), what + " (strided)");
    }
  }
}

TEST_F(CudaDtypeConvert, AllocationFillAndPrinting) {
  for (ScalarType dt : kNewDtypes) {
    const TensorOptions on_gpu = TensorOptions().dtype(dt).device(kGpu);
    expect_same_bits(zeros({2, 3}, on_gpu), zeros({2, 3}, TensorOptions().dtype(dt)), "zeros " + name_of(dt));
    for (double v : {1.0, -1.0, 2.5, 300.0, 65504.0, 70000.0, -0.0}) {
      expect_same_bits(full({5}, v, on_gpu), full({5}, v, TensorOptions().dtype(dt)),
                       "full " + name_of(dt) + " " + std::to_string(v));
    }
    expect_same_bits(arange(0, 40, 3, on_gpu), arange(0, 40, 3, TensorOptions().dtype(dt)), "arange " + name_of(dt));
    if (is_floating_point(dt)) {
      const Tensor r = randn({64}, on_gpu);
      EXPECT_TRUE(r.is_cuda() && r.dtype() == dt) << "randn " << name_of(dt);
      EXPECT_TRUE(r.isfinite().all().item<bool>()) << "randn " << name_of(dt);
    }
    Tensor strided = zeros({3, 4}, on_gpu).t();
    strided.fill_(7);
    expect_same_bits(strided, full({4, 3}, 7, TensorOptions().dtype(dt)), "fill_ strided " + name_of(dt));
    std::ostringstream gpu_text, cpu_text;
    const Tensor x = edge_tensor(dt);
    gpu_text << x.to(kGpu);
    cpu_text << x;
    EXPECT_NE(gpu_text.str().find(cpu_text.str().substr(0, cpu_text.str().find(']'))), std::string::npos)
        << gpu_text.str() << "\nvs\n"
        << cpu_text.str();
  }
}

TEST_F(CudaDtypeConvert, ImagePipelineUint8ToFloat) {
  // Every value 0..255 (37 is odd, so 37 i mod 256 visits them all), three times.
  const Tensor image = (arange(768) * 37).remainder(256).reshape({3, 16, 16}).to(kUInt8);
  const Tensor cpu = image.to(kFloat).div(255);
  expect_same_bits(image.to(kCUDA).to(kFloat).div(255), cpu, "uint8 image / 255");
  // HWC -> CHW through a permuted view, as a loader does.
  const Tensor hwc = image.permute({1, 2, 0});
  expect_same_bits(hwc.to(kCUDA).permute({2, 0, 1}).to(kHalf).div(255), hwc.permute({2, 0, 1}).to(kHalf).div(255),
                   "uint8 HWC -> half CHW / 255");
}

// ---- elementwise ----

struct UnaryCase {
  const char* name;
  std::function<Tensor(const Tensor&)> fn;
  bool floating_only;
};
// clang-format off
const std::vector<UnaryCase> kUnary = {
  {"neg", [](const Tensor& x) { return -x; }, false},
  {"abs", [](const Tensor& x) { return x.abs(); }, false},
  {"sign", [](const Tensor& x) { return x.sign(); }, false},
  {"square", [](const Tensor& x) { return x.square(); }, false},
  {"relu", [](const Tensor& x) { return x.relu(); }, false},
  {"exp", [](const Tensor& x) { return x.exp(); }, true},
  {"log", [](const Tensor& x) { return x.log(); }, true},
  {"sqrt", [](const Tensor& x) { return x.sqrt(); }, true},
  {"rsqrt", [](const Tensor& x) { return x.rsqrt(); }, true},
  {"tanh", [](const Tensor& x) { return x.tanh(); }, true},
  {"sigmoid", [](const Tensor& x) { return x.sigmoid(); }, true},
  {"gelu", [](const Tensor& x) { return x.gelu(); }, true},
  {"erf", [](const Tensor& x) { return x.erf(); }, true},
  {"sin", [](const Tensor& x) { return x.sin(); }, true},
  {"reciprocal", [](const Tensor& x) { return x.reciprocal(); }, true},
  {"round", [](const Tensor& x) { return x.round(); }, true},
  {"floor", [](const Tensor& x) { return x.floor(); }, true},
};

struct BinaryCase {
  const char* name;
  std::function<Tensor(const Tensor&, const Tensor&)> fn;
  bool nonzero_divisor;  // integer division refuses a zero divisor: the right operand avoids 0
};
const std::vector<BinaryCase> kBinary = {
  {"add", [](const Tensor& a, const Tensor& b) { return a + b; }, false},
  {"sub", [](const Tensor& a, const Tensor& b) { return a - b; }, false},
  {"mul", [](const Tensor& a, const Tensor& b) { return a * b; }, false},
  {"div", [](const Tensor& a, const Tensor& b) { return a / b; }, false},
  {"maximum", [](const Tensor& a, const Tensor& b) { return maximum(a, b); }, false},
  {"minimum", [](const Tensor& a, const Tensor& b) { return a.minimum(b); }, false},
  {"eq", [](const Tensor& a, const Tensor& b) { return a.eq(b); }, false},
  {"lt", [](const Tensor& a, const Tensor& b) { return a.lt(b); }, false},
  {"ge", [](const Tensor& a, const Tensor& b) { return a.ge(b); }, false},
  {"where", [](const Tensor& a, const Tensor& b) { return where(a.gt(b), a, b); }, false},
  {"remainder", [](const Tensor& a, const Tensor& b) { return a.remainder(b); }, true},
  {"fmod", [](const Tensor& a, const Tensor& b) { return a.fmod(b); }, true},
  {"floor_divide", [](const Tensor& a, const Tensor& b) { return a.floor_divide(b); }, true},
  {"div_trunc", [](const Tensor& a, const Tensor& b) { return a.div(b, "trunc"); }, true},
  {"scalar_add", [](const Tensor& a, const Tensor&) { return a + 100; }, false},
  {"scalar_mul", [](const Tensor& a, const Tensor&) { return a * 3; }, false},
};
// clang-format on

TEST_F(CudaDtypeElementwise, UnaryMatchesCpuBits) {
  for (ScalarType dt : kNewDtypes) {
    const Tensor edges = edge_tensor(dt), rnd = random_tensor(dt, {5, 7}, 3.0);
    for (const UnaryCase& c : kUnary) {
      if (c.floating_only && !is_floating_point(dt)) continue;
      const std::string what = std::string(c.name) + " " + name_of(dt);
      expect_same_bits(c.fn(edges.to(kGpu)), c.fn(edges), what + " (edge values)");
      expect_same_bits(c.fn(rnd.to(kGpu).t()), c.fn(rnd.t()), what + " (transposed)");
    }
  }
}

TEST_F(CudaDtypeElementwise, BinaryMatchesCpuBitsWithBroadcasting) {
  for (ScalarType dt : kNewDtypes) {
    const Tensor a = random_tensor(dt, {4, 6}, 4.0), b = random_tensor(dt, {6}, 4.0);
    const Tensor edges = edge_tensor(dt);  // (4, 8): against its own flip, every pair of edges meets
    for (const BinaryCase& c : kBinary) {
      const std::string what = std::string(c.name) + " " + name_of(dt);
      Tensor rhs = b, edge_rhs = edges.flip({1});
      if (c.nonzero_divisor && !is_floating_point(dt)) {
        rhs = where(b.eq(0), ones_like(b), b);
        edge_rhs = where(edge_rhs.eq(0), ones_like(edge_rhs), edge_rhs);
      }
      expect_same_bits(c.fn(a.to(kGpu), rhs.to(kGpu)), c.fn(a, rhs), what + " (broadcast)");
      expect_same_bits(c.fn(a.to(kGpu).t().t(), rhs.to(kGpu).reshape({6, 1}).t()), c.fn(a, rhs.reshape({6, 1}).t()),
                       what + " (broadcast view)");
      expect_same_bits(c.fn(edges.to(kGpu), edge_rhs.to(kGpu)), c.fn(edges, edge_rhs), what + " (edge values)");
      expect_same_bits(c.fn(edges.to(kGpu).t(), edge_rhs.to(kGpu).t()), c.fn(edges.t(), edge_rhs.t()),
                       what + " (transposed)");
    }
  }
}

TEST_F(CudaDtypeElementwise, IntegerOverflowWrapsAsOnCpu) {
  const Tensor u = from_vector<int64_t>({200, 255, 0, 128}, {4}).to(kUInt8);
  expect_same_bits(u.to(kGpu) + 100, u + 100, "uint8 + 100");
  EXPECT_EQ((u.to(kGpu) + 100).cpu().to(kInt64).to_vector<int64_t>(), (std::vector<int64_t>{44, 99, 100, 228}));
  expect_same_bits(u.to(kGpu) - 1, u - 1, "uint8 - 1 (0 wraps to 255)");
  const Tensor c = from_vector<int64_t>({-128, 127, -1, 64}, {4}).to(kInt8);
  expect_same_bits(-c.to(kGpu), -c, "-int8 (-128 stays)");
  expect_same_bits(c.to(kGpu) * 2, c * 2, "int8 * 2");
  expect_same_bits(c.to(kGpu).abs(), c.abs(), "abs int8");
  expect_same_bits(c.to(kGpu).div(-1, "trunc"), c.div(-1, "trunc"), "int8 / -1");
  const Tensor i = from_vector<int64_t>({2147483647, -2147483648LL, 65536}, {3}).to(kInt32);
  expect_same_bits(i.to(kGpu) * i.to(kGpu), i * i, "int32 overflow");
  expect_same_bits(i.to(kGpu) + 1, i + 1, "int32 max + 1");
}

TEST_F(CudaDtypeElementwise, IntegerDivisionByZeroIsRefusedAsOnCpu) {
  for (ScalarType dt : {kUInt8, kInt8, kInt16, kInt32}) {
    const Tensor a = from_vector<int64_t>({5, 7}, {2}).to(dt), b = from_vector<int64_t>({1, 0}, {2}).to(dt);
    EXPECT_THROWS_WITH(a.to(kGpu).floor_divide(b.to(kGpu)), "ZeroDivisionError");
    EXPECT_THROWS_WITH(a.floor_divide(b), "ZeroDivisionError");
    EXPECT_THROWS_WITH(a.to(kGpu).remainder(b.to(kGpu)), "ZeroDivisionError");
    // True division promotes to float first: 5 / 0 is inf on both devices.
    expect_same_bits(a.to(kGpu) / b.to(kGpu), a / b, "true division by zero " + name_of(dt));
  }
}

// ---- reductions ----

// Integer reductions are exact (sums are int64, as PyTorch's); float16 and bfloat16 accumulate in
// float32 on both devices but in different orders (the CPU's loops in double, the GPU's block tree
// in float) and are rounded once, so they may differ in the last bit of the result: 1 ulp of the
// dtype (2^-10 relative for float16, 2^-7 for bfloat16) of the largest |partial sum|, bounded by
// sum |x|.
double reduce_tolerance(ScalarType dt) { return dt == kFloat16 ? 1.0 / 1024 : dt == kBFloat16 ? 1.0 / 128 : 0.0; }

void expect_reduction(const Tensor& gpu, const Tensor& cpu, const Tensor& abs_sum, ScalarType dt,
                      const std::string& what) {
  if (!is_floating_point(gpu.dtype()) || reduce_tolerance(dt) == 0.0) return expect_same_bits(gpu, cpu, what);
  ASSERT_TRUE(gpu.is_cuda()) << what;
  ASSERT_EQ(gpu.dtype(), cpu.dtype()) << what;
  const Tensor diff = (gpu.cpu().to(kFloat64) - cpu.to(kFloat64)).abs();
  const Tensor bound = abs_sum.to(kFloat64) * reduce_tolerance(dt) + 1e-6;
  EXPECT_TRUE(diff.le(bound).all().item<bool>())
      << what << ": largest difference " << diff.max().item<double>() << "\ncuda " << gpu.cpu() << "\ncpu " << cpu;
}

TEST_F(CudaDtypeReduce, SumProdMaxMinAllAnyMatchCpu) {
  for (ScalarType dt : kNewDtypes) {
    const Tensor x = random_tensor(dt, {6, 40}, 2.0), g = x.to(kGpu);
    const Tensor ax = x.to(kFloat64).abs();
    const std::string n = name_of(dt);
    expect_reduction(g.sum(), x.sum(), ax.sum(), dt, "sum " + n);
    expect_reduction(g.sum(1), x.sum(1), ax.sum(1), dt, "sum(1) " + n);
    expect_reduction(g.t().sum(1), x.t().sum(1), ax.t().sum(1), dt, "sum over leading dim " + n);
    expect_reduction(g.slice(1, 0, 4).prod(1), x.slice(1, 0, 4).prod(1),
                     ax.slice(1, 0, 4).prod(1), dt, "prod(1) " + n);
    expect_same_bits(g.max(), x.max(), "max " + n);
    expect_same_bits(g.min(), x.min(), "min " + n);
    expect_same_bits(g.amax({0}), x.amax({0}), "amax(0) " + n);
    expect_same_bits(g.all(), x.all(), "all " + n);
    expect_same_bits(g.any(1), x.any(1), "any(1) " + n);
    expect_same_bits(g.argmax(1), x.argmax(1), "argmax(1) " + n);
    expect_same_bits(g.argmin(0), x.argmin(0), "argmin(0) " + n);
    const auto [gv, gi] = g.max(1);
    const auto [cv, ci] = x.max(1);
    expect_same_bits(gv, cv, "max(1) values " + n);
    expect_same_bits(gi, ci, "max(1) indices " + n);
    const auto [gv2, gi2] = g.t().min(1);
    const auto [cv2, ci2] = x.t().min(1);
    expect_same_bits(gv2, cv2, "min(1) of transposed values " + n);
    expect_same_bits(gi2, ci2, "min(1) of transposed indices " + n);
  }
}

TEST_F(CudaDtypeReduce, EdgeValuesAndLongSums) {
  for (ScalarType dt : kNewDtypes) {
    const Tensor e = edge_tensor(dt);
    expect_same_bits(e.to(kGpu).amax({1}), e.amax({1}), "amax over edges (NaN wins) " + name_of(dt));
    expect_same_bits(e.to(kGpu).argmin(1), e.argmin(1), "argmin over edges " + name_of(dt));
    expect_same_bits(e.to(kGpu).any(), e.any(), "any over edges " + name_of(dt));
    // Long enough for the split (two-pass) kernels.
    const Tensor x = random_tensor(dt, {20000});
    expect_reduction(x.to(kGpu).sum(), x.sum(), x.to(kFloat64).abs().sum(), dt, "long sum " + name_of(dt));
    expect_same_bits(x.to(kGpu).argmax(), x.argmax(), "long argmax " + name_of(dt));
  }
  // uint8 sums are int64: no wraparound.
  const Tensor u = full({1000}, 255, TensorOptions().dtype(kUInt8));
  expect_same_bits(u.to(kGpu).sum(), u.sum(), "uint8 sum");
  EXPECT_EQ(u.to(kGpu).sum().item<int64_t>(), 255000);
}

// Both devices multiply float16 / bfloat16 matrices accumulating in float32 and round each output
// once, but in different orders of addition (cuBLAS's, the CPU's blocked loops). The float32 sums
// then differ by rounding error, at most ~K 2^-24 (|a| @ |b|), and after the one rounding an output
// may differ by one ulp of its dtype: |cuda - cpu| <= 2^-10 |cpu| (float16; 2^-7 bfloat16) +
// 1e-5 (|a| @ |b|).
void expect_product(const Tensor& gpu, const Tensor& cpu, const Tensor& abs_product, ScalarType dt,
                    const std::string& what) {
  ASSERT_TRUE(gpu.is_cuda()) << what;
  ASSERT_EQ(gpu.dtype(), dt) << what;
  ASSERT_EQ(gpu.sizes(), cpu.sizes()) << what;
  const Tensor diff = (gpu.cpu().to(kFloat64) - cpu.to(kFloat64)).abs();
  const Tensor bound = cpu.to(kFloat64).abs() * reduce_tolerance(dt) + abs_product.to(kFloat64) * 1e-5;
  EXPECT_TRUE(diff.le(bound).all().item<bool>())
      << what << ": largest difference " << diff.max().item<double>() << " (bound there "
      << bound.reshape({-1})[diff.reshape({-1}).argmax().item<int64_t>()].item<double>() << ")";
}

// softmax of float16 / bfloat16 rows runs in float32 on both devices and rounds once; the float32
// results differ by the kernels' exp and summation order (a few float32 ulps), so an output may
// differ by one ulp of its dtype.
TEST_F(CudaDtypeReduce, SoftmaxOfReducedFloatsInFloat32) {
  for (ScalarType dt : {kFloat16, kBFloat16}) {
    const Tensor x = random_tensor(dt, {4, 50}, 3.0);
    const Tensor zero = zeros({4, 50}, TensorOptions().dtype(kFloat64));
    expect_product(x.to(kGpu).softmax(1), x.softmax(1), zero, dt, "softmax " + name_of(dt));
    expect_product(x.to(kGpu).t().log_softmax(0), x.t().log_softmax(0), zero.t() + 1e-2, dt,
                   "log_softmax " + name_of(dt));
  }
}

// sort and the scans: the narrow integers sort as int64, bf16 / f16 sort and scan in float32 (the op
// converts them), so the sorted values are the CPU's and the indices pick them (equal values may come
// in another order); integer scans are int64 sums.
TEST_F(CudaDtypeReduce, SortAndScansMatchCpu) {
  for (ScalarType dt : kNewDtypes) {
    const Tensor x = random_tensor(dt, {3, 17}, 3.0), g = x.to(kGpu);
    const auto [gv, gi] = g.sort(1, /*descending=*/true);
    const auto [cv, ci] = x.sort(1, /*descending=*/true);
    expect_same_bits(gv, cv, "sort values " + name_of(dt));
    expect_same_bits(g.gather(1, gi), x.gather(1, ci), "values at the sort indices " + name_of(dt));  // ties may swap
    if (!is_floating_point(dt)) expect_same_bits(g.cumsum(1), x.cumsum(1), "cumsum " + name_of(dt));
  }
}

// ---- indexing ----

TEST_F(CudaDtypeIndex, GathersAndScatterAddsMatchCpu) {
  const Tensor index = from_vector<int64_t>({2, 0, 2, 1, 3}, {5});
  const Tensor gather_index = from_vector<int64_t>({0, 3, 3, 1, 2, 0, 1, 1}, {2, 4});
  for (ScalarType dt : kNewDtypes) {
    const Tensor x = random_tensor(dt, {4, 6}, 3.0), g = x.to(kGpu);
    const std::string n = name_of(dt);
    expect_same_bits(g.index_select(0, index.to(kGpu)), x.index_select(0, index), "index_select(0) " + n);
    expect_same_bits(g.t().index_select(1, index.to(kGpu)), x.t().index_select(1, index), "index_select(1) " + n);
    expect_same_bits(g.gather(0, gather_index.to(kGpu)), x.gather(0, gather_index), "gather " + n);
    expect_same_bits(g.masked_fill(g.gt(0), 1), x.masked_fill(x.gt(0), 1), "masked_fill " + n);
    expect_same_bits(g.tril(), x.tril(), "tril " + n);
    if (is_floating_point(dt)) {
      EXPECT_THROWS_WITH(g.scatter_add(0, gather_index.to(kGpu), g.slice(0, 0, 2)), "scatter_add");
      continue;
    }
    const Tensor src = random_tensor(dt, {5, 6}, 3.0);
    expect_same_bits(g.index_add(0, index.to(kGpu), src.to(kGpu)), x.index_add(0, index, src), "index_add " + n);
    const Tensor s2 = random_tensor(dt, {2, 4});
    expect_same_bits(g.scatter_add(0, gather_index.to(kGpu), s2.to(kGpu)), x.scatter_add(0, gather_index, s2),
                     "scatter_add " + n);
  }
}

// ---- matmul ----

TEST_F(CudaDtypeMatmul, ReducedFloatProductsMatchCpuWithinOneUlp) {
  for (ScalarType dt : {kFloat16, kBFloat16}) {
    const std::string n = name_of(dt);
    const Tensor a = randn({5, 70}).to(dt), b = randn({70, 3}).to(dt);
    const auto abs_mm = [](const Tensor& x, const Tensor& y) { return x.to(kFloat64).abs().matmul(y.to(kFloat64).abs()); };
    expect_product(a.to(kGpu).matmul(b.to(kGpu)), a.matmul(b), abs_mm(a, b), dt, "matmul " + n);
    const Tensor at = randn({70, 5}).to(dt);
    expect_product(at.to(kGpu).t().matmul(b.to(kGpu)), at.t().matmul(b), abs_mm(at.t(), b), dt, "matmul a^T " + n);
    const Tensor x = randn({3, 4, 33}).to(dt), y = randn({3, 33, 6}).to(dt);
    expect_product(bmm(x.to(kGpu), y.to(kGpu)), bmm(x, y), abs_mm(x, y), dt, "bmm " + n);
    expect_product(x.to(kGpu).matmul(y[0].to(kGpu)), x.matmul(y[0]), abs_mm(x, y[0]), dt, "broadcast batch " + n);
    const Tensor bias = randn({6}).to(dt), w = randn({6, 33}).to(dt);
    expect_product(nn::functional::linear(x.to(kGpu), w.to(kGpu), bias.to(kGpu)), nn::functional::linear(x, w, bias),
                   abs_mm(x, w.t()) + bias.to(kFloat64).abs(), dt, "linear (matmul_add) " + n);
    // Exact small integers: every product and sum is representable, so both devices agree bit for bit.
    const Tensor ia = randint(-4, 5, a.sizes()).to(dt), ib = randint(-4, 5, b.sizes()).to(dt);
    expect_same_bits(ia.to(kGpu).matmul(ib.to(kGpu)), ia.matmul(ib), "exact matmul " + n);
  }
  const Tensor i = from_vector<int64_t>({1, 2, 3, 4}, {2, 2}).to(kInt32);
  EXPECT_THROWS_WITH(i.to(kGpu).matmul(i.to(kGpu)), "matmul");
}

// ---- autograd ----

TEST_F(CudaDtypeAutograd, ForwardAndBackwardThroughReducedFloats) {
  for (ScalarType dt : {kFloat16, kBFloat16}) {
    const Tensor x0 = randn({3, 5}).to(dt), w0 = randn({5}).to(dt);
    Tensor cx = x0.clone().requires_grad_(), cw = w0.clone().requires_grad_();
    Tensor gx = x0.to(kGpu).requires_grad_(), gw = w0.to(kGpu).requires_grad_();
    const auto f = [](const Tensor& x, const Tensor& w) { return ((x * w).tanh() + x.square()).sum(); };
    Tensor cl = f(cx, cw), gl = f(gx, gw);
    expect_reduction(gl, cl, (cx.detach().abs() * 8).sum(), dt, "loss " + name_of(dt));
    cl.backward();
    gl.backward();
    ASSERT_TRUE(gx.grad().defined() && gw.grad().defined());
    expect_same_bits(gx.grad(), cx.grad(), "dx " + name_of(dt));
    expect_reduction(gw.grad(), cw.grad(), (cx.detach().abs() * 4).sum(0), dt, "dw " + name_of(dt));
  }
}

// LayerNorm, attention and cross-entropy have no fused float16 / bfloat16 kernel on CUDA: the op
// composes them from the elementwise ops, reductions, softmax and matmuls above, each rounding to the
// dtype, where the CPU's fused kernels compute in float32 and round once. So they agree within a few
// ulps of the dtype, not bit for bit: |cuda - cpu| <= 8 ulps (relative) + 8 ulps of 1.
TEST_F(CudaDtypeAutograd, ComposedOpsRunOnReducedFloats) {
  namespace F = nn::functional;
  for (ScalarType dt : {kFloat16, kBFloat16}) {
    const double tol = 8 * reduce_tolerance(dt);
    const auto expect_near = [&](const Tensor& gpu, const Tensor& cpu, const std::string& what) {
      ASSERT_TRUE(gpu.is_cuda()) << what;
      ASSERT_EQ(gpu.dtype(), cpu.dtype()) << what;
      const Tensor diff = (gpu.cpu().to(kFloat64) - cpu.to(kFloat64)).abs();
      EXPECT_TRUE(diff.le(cpu.to(kFloat64).abs() * tol + tol).all().item<bool>())
          << what << ": largest difference " << diff.max().item<double>();
    };
    const Tensor x = randn({4, 16}).to(dt), w = randn({16}).to(dt), b = randn({16}).to(dt);
    expect_near(F::layer_norm(x.to(kGpu), {16}, w.to(kGpu), b.to(kGpu)), F::layer_norm(x, {16}, w, b),
                "layer_norm " + name_of(dt));
    const Tensor q = randn({1, 2, 5, 8}).to(dt), k = randn({1, 2, 5, 8}).to(dt), v = randn({1, 2, 5, 8}).to(dt);
    expect_near(F::scaled_dot_product_attention(q.to(kGpu), k.to(kGpu), v.to(kGpu)),
                F::scaled_dot_product_attention(q, k, v), "attention " + name_of(dt));
    const Tensor target = from_vector<int64_t>({3, 0, 15, 7}, {4});
    expect_near(F::cross_entropy(x.to(kGpu), target.to(kGpu)), F::cross_entropy(x, target),
                "cross_entropy " + name_of(dt));
  }
}

// ---- what CUDA still refuses ----

TEST_F(CudaDtypeElementwise, UnsupportedOpNamesOpAndDtype) {
  const Tensor h = randn({1, 1, 4, 4}).to(kHalf).to(kGpu);
  EXPECT_THROWS_WITH(nn::functional::avg_pool2d(h, nn::functional::AvgPool2dFuncOptions(2)), "avg_pool2d: not implemented for 'Half' on CUDA");
  const Tensor b = randn({1, 1, 4, 4}).to(kBFloat16).to(kGpu);
  EXPECT_THROWS_WITH(nn::functional::max_pool2d(b, nn::functional::MaxPool2dFuncOptions(2)), "max_pool2d: not implemented for 'BFloat16' on CUDA");
}

}  // namespace
