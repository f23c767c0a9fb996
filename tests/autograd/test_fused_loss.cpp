// The fused cross-entropy (Backend::cross_entropy, core/cpu/loss.cpp) against the composed
// log_softmax + nll_loss it replaces (the reference, run on a CPU backend without fused kernels),
// in float64: values, gradients, every reduction, ignore_index, label smoothing, (C) and (N, C)
// input; float64 gradchecks, first and second order (create_graph takes the composed formula);
// the backward composed where a backend has only the forward; bad targets named in the error.
#include <string_view>

#include <ember/ember.h>
#include <gtest/gtest.h>

#include "autograd/gradcheck.h"
#include "core/backend.h"
#include "test_util.h"

namespace ember {
namespace {

namespace F = nn::functional;

// The CPU backend without fused kernels (so ops compose), or without fused backwards only.
class FusedOffBackend final : public Backend {
 public:
  FusedOffBackend(Backend& cpu, bool forwards) : cpu_(cpu), forwards_(forwards) {}
  const char* name() const override { return "cpu (fused kernels off)"; }
  void* allocate(size_t n, Device d) override { return cpu_.allocate(n, d); }
  void deallocate(void* p, Device d) override { cpu_.deallocate(p, d); }
  void copy_to_host(void* dst, const void* src, size_t n, Device d) override { cpu_.copy_to_host(dst, src, n, d); }
  void copy_from_host(void* dst, const void* src, size_t n, Device d) override { cpu_.copy_from_host(dst, src, n, d); }
#define PASS_KERNEL(name, params, args, ...) \
  void name params override { cpu_.name args; }
#define MAYBE_FUSED_KERNEL(name, params, args, ...)                                         \
  bool name params override {                                                               \
    if (!forwards_ || std::string_view(#name).ends_with("_backward")) return ++refused, false; \
    return cpu_.name args;                                                                  \
  }
  EMBER_BACKEND_KERNELS(PASS_KERNEL)
  EMBER_FUSED_KERNELS(MAYBE_FUSED_KERNEL)
#undef MAYBE_FUSED_KERNEL
#undef PASS_KERNEL
  int refused = 0;

 private:
  Backend& cpu_;
  bool forwards_;
};

struct Case {
  std::vector<int64_t> logits;  // (N, C) or (C)
  Reduction reduction;
  int64_t ignore_index;
  double smoothing;
};

F::CrossEntropyFuncOptions options_of(const Case& c) {
  return F::CrossEntropyFuncOptions().reduction(c.reduction).ignore_index(c.ignore_index).label_smoothing(c.smoothing);
}

// Targets in [0, C), with every third row set to ignore_index when it is a valid class or -100.
Tensor targets_for(const Case& c) {
  const int64_t C = c.logits.back();
  if (c.logits.size() == 1) return tensor(int64_t{C - 1});
  const int64_t N = c.logits[0];
  std::vector<int64_t> t(N);
  for (int64_t i = 0; i < N; ++i) t[i] = i % 3 == 1 ? c.ignore_index : (i * 7 + 2) % C;
  return from_vector<int64_t>(t, {N});
}

const std::vector<Case> kCases = {
    {{5, 7}, kMean, -100, 0.0},  {{5, 7}, kSum, -100, 0.0},   {{5, 7}, kNone, -100, 0.0},
    {{6, 4}, kMean, -100, 0.2},  {{6, 4}, kSum, 2, 0.1},      {{6, 4}, kNone, -100, 0.3},
    {{1, 1}, kMean, -100, 0.0},  {{1, 9}, kMean, -100, 0.5},  {{9}, kMean, -100, 0.0},
    {{9}, kNone, -100, 0.1},     {{300, 130}, kMean, -100, 0.1}, {{40, 5}, kMean, 3, 0.0},
};

TEST(FusedCrossEntropy, MatchesTheComposedOpsValuesAndGradients) {
  manual_seed(11);
  for (const Case& c : kCases) {
    const std::string where = fmt::format("logits {} reduction {} ignore {} smoothing {}", IntArrayRef(c.logits),
                                          static_cast<int>(c.reduction), c.ignore_index, c.smoothing);
    Tensor x = (randn(c.logits, dtype(kFloat64)) * 3).requires_grad_(), t = targets_for(c);
    Tensor y = F::cross_entropy(x, t, options_of(c));
    EXPECT_EQ(y.grad_fn()->name(), c.smoothing > 0 ? "AddBackward0" : "NllLossBackward0") << where;
    Tensor g = randn(y.sizes(), dtype(kFloat64));
    Tensor dx = autograd::grad({y}, {x}, {g})[0];
    FusedOffBackend composed(backend_for(Device(kCPU)), false);
    ScopedBackendOverride use(kCPU, composed);
    Tensor r = F::cross_entropy(x, t, options_of(c));
    Tensor dr = autograd::grad({r}, {x}, {g})[0];
    EXPECT_GE(composed.refused, 1) << where;
    EXPECT_TENSOR_CLOSE(y, r, 1e-12, 1e-12) << where;
    EXPECT_TENSOR_CLOSE(dx, dr, 1e-12, 1e-12) << where;
  }
}

TEST(FusedCrossEntropy, AllTargetsIgnoredGiveNaNMeanAndZeroGradient) {
  Tensor x = randn({3, 4}, dtype(kFloat64)).requires_grad_();
  Tensor t = full({3}, -100, kInt64);
  Tensor y = F::cross_entropy(x, t);
  EXPECT_TRUE(std::isnan(y.item<double>()));  // PyTorch: 0 / 0
  EXPECT_EQ(F::cross_entropy(x, t, F::CrossEntropyFuncOptions().reduction(kSum)).item<double>(), 0.0);
  F::cross_entropy(x, t, F::CrossEntropyFuncOptions().reduction(kSum)).backward();
  EXPECT_TENSOR_CLOSE(x.grad(), zeros({3, 4}, dtype(kFloat64)), 0, 0);
}

TEST(FusedCrossEntropy, GradcheckFirstAndSecondOrder) {
  manual_seed(12);
  Tensor t = tensor({2, 0, -100, 3}, kInt64);
  for (const double s : {0.0, 0.25}) {
    auto fn = [&](const tensor_list& in) {
      return tensor_list{F::cross_entropy(in[0], t, F::CrossEntropyFuncOptions().label_smoothing(s))};
    };
    Tensor x = randn({4, 5}, dtype(kFloat64)).requires_grad_();
    EXPECT_TRUE(autograd::gradcheck(fn, {x})) << "smoothing " << s;
    EXPECT_TRUE(autograd::gradgradcheck(fn, {x})) << "smoothing " << s;
  }
}

TEST(FusedCrossEntropy, BackwardComposedWhenTheBackendHasOnlyTheForward) {
  manual_seed(13);
  Tensor x = randn({6, 5}, dtype(kFloat64)).requires_grad_(), t = tensor({0, 4, -100, 2, 2, 1}, kInt64);
  const auto opts = F::CrossEntropyFuncOptions().label_smoothing(0.1);
  Tensor dx = autograd::grad({F::cross_entropy(x, t, opts)}, {x})[0];
  FusedOffBackend forwards_only(backend_for(Device(kCPU)), true);
  ScopedBackendOverride use(kCPU, forwards_only);
  Tensor y = F::cross_entropy(x, t, opts);
  EXPECT_EQ(y.grad_fn()->name(), "AddBackward0");  // the fused forward ran
  Tensor got = autograd::grad({y}, {x})[0];
  EXPECT_GE(forwards_only.refused, 1);  // its backward was asked for and missing
  EXPECT_TENSOR_CLOSE(got, dx, 1e-12, 1e-12);
}

TEST(FusedCrossEntropy, BadTargetsNameTheOpAndTheValue) {
  Tensor x = randn({3, 4});
  EXPECT_THROWS_WITH(F::cross_entropy(x, tensor({0, 4, 1}, kInt64)),
                     "cross_entropy: target 4 is out of bounds for 4 classes (input [3, 4], target [3])");
  EXPECT_THROWS_WITH(F::cross_entropy(x, tensor({0, -1, 7}, kInt64)), "cross_entropy: target -1 is out of bounds");
  // ignore_index itself is never out of bounds
  EXPECT_NO_THROW(F::cross_entropy(x, tensor({0, 9, 1}, kInt64), F::CrossEntropyFuncOptions().ignore_index(9)));
}

}  // namespace
}  // namespace ember
