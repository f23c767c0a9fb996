// The elementwise kernels' vectorised path (cuda/elementwise.cu): where every operand is
// contiguous, unbroadcast and aligned, the unary, binary and converting-copy kernels move 16-byte
// packs, the last n % V elements one at a time. Each result must equal, bit for bit, the same op on
// a strided view of the same values (which takes the one-element-at-a-time OffsetCalc path), for
// every dtype, lengths around the pack size, and an operand at an odd offset. In the emulator the
// launch log also shows which kernel ran.
#include <functional>
#include <string>
#include <vector>

#include <ember/ember.h>
#include <gtest/gtest.h>

#include "cuda_test_util.h"
#ifdef EMBER_CUDA_EMULATE
#include "cuda/emu/emu.h"
#endif

namespace ember {
namespace {

using cuda_test::kGpu;

class CudaVectorized : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  }
};

// n values of dtype on the GPU, mixed signs and magnitudes (small integers for the integer dtypes).
Tensor sample(int64_t n, ScalarType dtype) {
  Tensor v = (arange(n, kDouble) * 0.37 - 0.1 * static_cast<double>(n)).sin() * 5.0;
  if (is_integral(dtype) && dtype != kBool) v = v.round();
  if (dtype == kBool) return v.gt(0).to(kGpu);
  if (dtype == kUInt8) v = v.abs();
  return v.to(dtype).to(kGpu);
}

// The same values as a strided view (every other element of a buffer twice as long).
Tensor strided_copy(const Tensor& t) {
  Tensor buffer = zeros({2 * t.numel()}, TensorOptions().dtype(t.dtype()).device(t.device()));
  Tensor view = buffer.slice(0, 0, 2 * t.numel(), 2);
  view.copy_(t);
  return view;
}

// The same values at an element offset of 1 in their storage: contiguous, off the pack boundary.
Tensor offset_copy(const Tensor& t) {
  Tensor buffer = zeros({t.numel() + 1}, TensorOptions().dtype(t.dtype()).device(t.device()));
  Tensor view = buffer.narrow(0, 1, t.numel());
  view.copy_(t);
  return view;
}

std::vector<double> host_values(const Tensor& t) { return t.to(kCPU).to(kDouble).to_vector<double>(); }

// f over contiguous aligned operands, over offset ones and over strided ones: the same bits.
void expect_paths_agree(const std::string& what, const std::vector<Tensor>& inputs,
                        const std::function<Tensor(const std::vector<Tensor>&)>& f) {
  std::vector<Tensor> strided, offset;
  for (const Tensor& t : inputs) {
    strided.push_back(strided_copy(t));
    offset.push_back(offset_copy(t));
  }
  const std::vector<double> want = host_values(f(strided));
  EXPECT_EQ(host_values(f(inputs)), want) << what << " (aligned)";
  EXPECT_EQ(host_values(f(offset)), want) << what << " (offset by one element)";
}

const std::vector<int64_t> kLengths = {1, 3, 7, 8, 9, 15, 16, 17, 33, 1027};

TEST_F(CudaVectorized, UnaryOpsGiveTheOneElementPathsBits) {
  for (ScalarType dt : {kFloat32, kFloat64, kBFloat16, kFloat16})
    for (int64_t n : kLengths) {
      const std::string c = std::string(dtype_name(dt)) + " n=" + std::to_string(n);
      const std::vector<Tensor> x = {sample(n, dt)};
      expect_paths_agree("neg " + c, x, [](const std::vector<Tensor>& v) { return v[0].neg(); });
      expect_paths_agree("exp " + c, x, [](const std::vector<Tensor>& v) { return v[0].exp(); });
      expect_paths_agree("tanh " + c, x, [](const std::vector<Tensor>& v) { return v[0].tanh(); });
    }
  for (ScalarType dt : {kInt64, kInt32, kInt16, kInt8, kUInt8})
    for (int64_t n : kLengths)
      expect_paths_agree("abs " + std::string(dtype_name(dt)) + " n=" + std::to_string(n), {sample(n, dt)},
                         [](const std::vector<Tensor>& v) { return v[0].abs(); });
}

TEST_F(CudaVectorized, BinaryOpsAndComparisonsGiveTheOneElementPathsBits) {
  for (ScalarType dt : {kFloat32, kFloat64, kBFloat16, kFloat16, kInt64, kInt32, kUInt8})
    for (int64_t n : kLengths) {
      const std::string c = std::string(dtype_name(dt)) + " n=" + std::to_string(n);
      const std::vector<Tensor> ab = {sample(n, dt), sample(n, dt).flip({0})};
      expect_paths_agree("add " + c, ab, [](const std::vector<Tensor>& v) { return v[0] + v[1]; });
      expect_paths_agree("mul " + c, ab, [](const std::vector<Tensor>& v) { return v[0] * v[1]; });
      expect_paths_agree("lt " + c, ab, [](const std::vector<Tensor>& v) { return v[0].lt(v[1]); });
    }
  for (int64_t n : kLengths)
    expect_paths_agree("logical_xor bool n=" + std::to_string(n), {sample(n, kBool), sample(n, kBool).flip({0})},
                       [](const std::vector<Tensor>& v) { return v[0].logical_xor(v[1]); });
}

TEST_F(CudaVectorized, ConvertingCopiesGiveTheOneElementPathsBits) {
  const std::vector<std::pair<ScalarType, ScalarType>> pairs = {
      {kFloat32, kBFloat16}, {kBFloat16, kFloat32}, {kFloat32, kFloat16}, {kFloat16, kFloat64},
      {kInt64, kFloat32},    {kFloat32, kInt32},    {kUInt8, kFloat32},   {kBool, kFloat32}};
  for (const auto& [from, to] : pairs)
    for (int64_t n : kLengths) {
      const ScalarType target = to;  // (a structured binding cannot be captured under Clang 14)
      expect_paths_agree(
          std::string(dtype_name(from)) + " -> " + std::string(dtype_name(to)) + " n=" + std::to_string(n),
          {sample(n, from)}, [target](const std::vector<Tensor>& v) { return v[0].to(target); });
    }
}

#ifdef EMBER_CUDA_EMULATE
// Which kernel each case launches: packs only where every operand allows them.
std::vector<std::string> kernels_of(const std::function<void()>& f) {
  cuda::emu::start_launch_log();
  f();
  return cuda::emu::stop_launch_log();
}

bool launched(const std::vector<std::string>& log, const std::string& kernel) {
  for (const std::string& name : log)
    if (name.rfind(kernel, 0) == 0) return true;
  return false;
}

TEST_F(CudaVectorized, PacksOnlyWhereEveryOperandIsContiguousAndAligned) {
  const Tensor a = sample(1000, kFloat32), b = sample(1000, kFloat32);
  Tensor out;
  std::vector<std::string> log = kernels_of([&] { out = a + b; });
  EXPECT_TRUE(launched(log, "vectorized_kernel<V, Op>")) << ::testing::PrintToString(log);
  EXPECT_FALSE(launched(log, "elementwise_kernel<N, Op>")) << ::testing::PrintToString(log);
  log = kernels_of([&] { out = a.to(kBFloat16); });
  EXPECT_TRUE(launched(log, "vectorized_kernel<V, Op>")) << ::testing::PrintToString(log);
  const Tensor shifted = offset_copy(b), row = sample(1, kFloat32);
  for (const auto& f : std::vector<std::function<void()>>{[&] { out = a + shifted; },  // off the boundary
                                                          [&] { out = a + row; },      // broadcast
                                                          [&] {
                                                            out = a.view({40, 25}).t().exp();
                                                          },                                            // transposed
                                                          [&] { out = sample(3, kFloat32).neg(); }}) {  // n < V
    log = kernels_of(f);
    EXPECT_FALSE(launched(log, "vectorized_kernel<V, Op>")) << ::testing::PrintToString(log);
    EXPECT_TRUE(launched(log, "elementwise_kernel<N, Op>")) << ::testing::PrintToString(log);
  }
}
#endif

}  // namespace
}  // namespace ember
