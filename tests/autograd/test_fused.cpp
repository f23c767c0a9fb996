// The fused CPU kernels against the composed ops they replace (the reference), values and
// gradients, in float64 so any real difference shows; plus float64 gradchecks of the fused
// paths, first and second order (create_graph takes the composed formula in backward).
//
// Fused paths covered: layer_norm (NativeLayerNormBackward0), causal scaled_dot_product_attention
// (ScaledDotProductAttentionBackward0), GELU's one-pass backward, and addmm's bias added in the
// product's buffer. A backend with the fused forwards but not their backwards (FusedFallback)
// gets the composed gradients.
#include <functional>
#include <memory>
#include <optional>
#include <string_view>

#include <ember/ember.h>
#include <gtest/gtest.h>

#include "autograd/gradcheck.h"
#include "core/backend.h"
#include "test_util.h"

namespace ember {
namespace {

namespace F = nn::functional;
constexpr double kNegInf = -std::numeric_limits<double>::infinity();

Tensor rand64(IntArrayRef sizes, bool grad = true) { return randn(sizes, dtype(kFloat64)).requires_grad_(grad); }

// ---- layer_norm ----

Tensor layer_norm_reference(const Tensor& x, std::vector<int64_t> dims, const Tensor& w, const Tensor& b, double eps) {
  Tensor centered = x - x.mean(dims, true);
  Tensor y = centered / (centered.square().mean(dims, true) + eps).sqrt();
  if (w.defined()) y = y * w;
  if (b.defined()) y = y + b;
  return y;
}

void expect_layer_norm_matches(const Tensor& x, IntArrayRef shape, const Tensor& w, const Tensor& b) {
  std::vector<int64_t> dims;
  for (int64_t d = x.dim() - static_cast<int64_t>(shape.size()); d < x.dim(); ++d) dims.push_back(d);
  Tensor y = F::layer_norm(x, shape, w, b, 1e-5);
  Tensor r = layer_norm_reference(x, dims, w, b, 1e-5);
  EXPECT_EQ(y.grad_fn()->name(), "NativeLayerNormBackward0");
  EXPECT_TENSOR_CLOSE(y, r, 1e-12, 1e-12);
  Tensor g = randn(y.sizes(), dtype(kFloat64));
  tensor_list inputs{x};
  if (w.defined() && w.requires_grad()) inputs.push_back(w);
  if (b.defined() && b.requires_grad()) inputs.push_back(b);
  tensor_list fused = autograd::grad({y}, inputs, {g});
  tensor_list ref = autograd::grad({r}, inputs, {g});
  for (size_t i = 0; i < inputs.size(); ++i) EXPECT_TENSOR_CLOSE(fused[i], ref[i], 1e-10, 1e-10) << "input " << i;
}

TEST(FusedLayerNorm, MatchesComposedWithAndWithoutAffine) {
  manual_seed(0);
  Tensor x = rand64({3, 5, 8});
  expect_layer_norm_matches(x, {8}, rand64({8}), rand64({8}));
  expect_layer_norm_matches(x, {8}, rand64({8}), Tensor());  // nanoGPT's bias=False
  expect_layer_norm_matches(x, {8}, Tensor(), Tensor());
  expect_layer_norm_matches(x, {5, 8}, rand64({5, 8}), rand64({5, 8}));  // two normalized dims
  expect_layer_norm_matches(x, {8}, rand64({8}, false), rand64({8}));    // weight frozen
}

TEST(FusedLayerNorm, NonContiguousAndLargeRows) {
  manual_seed(1);
  Tensor base = rand64({6, 4}, false);
  Tensor x = base.t().detach().requires_grad_(true);  // (4, 6) with strides (1, 4)
  expect_layer_norm_matches(x, {6}, rand64({6}), rand64({6}));
  // Enough rows for the threaded path (per-thread partial sums of dweight and dbias).
  expect_layer_norm_matches(rand64({300, 128}), {128}, rand64({128}), rand64({128}));
}

TEST(FusedLayerNorm, ConstantRowGivesBiasNotNaN) {
  Tensor x = full({2, 4}, 3.0, dtype(kFloat64));
  Tensor b = tensor({1.0, 2.0, 3.0, 4.0}, dtype(kFloat64));
  Tensor y = F::layer_norm(x, {4}, Tensor(), b, 1e-5);
  EXPECT_TENSOR_CLOSE(y, b.expand({2, 4}), 0, 0);
}

TEST(FusedLayerNorm, GradcheckFirstAndSecondOrder) {
  manual_seed(2);
  Tensor x = rand64({2, 3, 4}), w = rand64({4}), b = rand64({4});
  auto fn = [](const tensor_list& in) { return tensor_list{F::layer_norm(in[0], {4}, in[1], in[2], 1e-5)}; };
  EXPECT_TRUE(autograd::gradcheck(fn, {x, w, b}));
  EXPECT_TRUE(autograd::gradgradcheck(fn, {x, w, b}));
}

TEST(FusedLayerNorm, BadInputNamesTheOp) {
  Tensor x = randn({2, 4});
  EXPECT_THROWS_WITH(F::layer_norm(x, {5}, Tensor(), Tensor(), 1e-5), "layer_norm: input of shape [2, 4]");
  EXPECT_THROWS_WITH(F::layer_norm(x, {4}, randn({3}), Tensor(), 1e-5), "layer_norm: weight has shape [3]");
  EXPECT_THROWS_WITH(F::layer_norm(arange(8).view({2, 4}), {4}, Tensor(), Tensor(), 1e-5),
                     "layer_norm: expected a floating-point input");
}

// ---- causal attention ----

// The composed reference: explicit scores, -inf above the diagonal, softmax, noise, @ v.
Tensor attention_reference(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& noise, double scale) {
  int64_t L = q.size(-2), S = k.size(-2);
  Tensor future = ones({L, S}, dtype(kBool)).triu(1);
  Tensor w = (q.matmul(k.mT()) * scale).masked_fill(future, kNegInf).softmax(-1);
  if (noise.defined()) w = w * noise;
  return w.matmul(v);
}

struct Qkv {
  Tensor q, k, v;
};

// q, k, v as GPT makes them: one (B, T, 3C) projection split and viewed into heads (strided views).
Qkv projected(int64_t B, int64_t T, int64_t H, int64_t HS) {
  Tensor qkv = rand64({B, T, 3 * H * HS});
  tensor_list parts = qkv.split(H * HS, 2);
  auto heads = [&](const Tensor& t) { return t.view({B, T, H, HS}).transpose(1, 2); };
  return {heads(parts[0]), heads(parts[1]), heads(parts[2])};
}

void expect_attention_matches(const Tensor& q, const Tensor& k, const Tensor& v, double dropout_p) {
  const double scale = 1.0 / std::sqrt(static_cast<double>(q.size(-1)));
  manual_seed(42);
  Tensor y = F::scaled_dot_product_attention(q, k, v, {}, dropout_p, /*is_causal=*/true);
  EXPECT_EQ(y.grad_fn()->name(), "ScaledDotProductAttentionBackward0");
  // The same noise, drawn as the op draws it: after reseeding, the first draw.
  manual_seed(42);
  Tensor noise;
  if (dropout_p > 0) {
    std::vector<int64_t> shape = q.sizes().vec();
    shape.back() = k.size(-2);
    noise = empty(shape, dtype(kFloat64)).bernoulli_(1 - dropout_p).div_(1 - dropout_p);
  }
  Tensor r = attention_reference(q, k, v, noise, scale);
  EXPECT_TENSOR_CLOSE(y, r, 1e-12, 1e-12);
  Tensor g = randn(y.sizes(), dtype(kFloat64));
  tensor_list fused = autograd::grad({y}, {q, k, v}, {g});
  tensor_list ref = autograd::grad({r}, {q, k, v}, {g});
  for (size_t i = 0; i < 3; ++i) EXPECT_TENSOR_CLOSE(fused[i], ref[i], 1e-10, 1e-10) << "q, k, v: " << i;
}

TEST(FusedAttention, MatchesComposedOnProjectedHeads) {
  manual_seed(3);
  Qkv a = projected(2, 7, 3, 4);
  expect_attention_matches(a.q, a.k, a.v, 0.0);
}

TEST(FusedAttention, MatchesComposedWithDropout) {
  manual_seed(4);
  Qkv a = projected(2, 6, 2, 3);
  expect_attention_matches(a.q, a.k, a.v, 0.25);
}

TEST(FusedAttention, BroadcastBatchWithDropoutDrawsOverTheWeightsShape) {
  // (1, 2, L, E) queries against (3, 2, S, E) keys: no fused kernel (the batch broadcasts), and the
  // dropout mask is drawn over the weights' (3, 2, L, S), as dropout(weights) draws it.
  manual_seed(12);
  Tensor q = rand64({1, 2, 4, 3}), k = rand64({3, 2, 4, 3}), v = rand64({3, 2, 4, 2});
  manual_seed(43);
  Tensor y = F::scaled_dot_product_attention(q, k, v, {}, 0.5, /*is_causal=*/true);
  manual_seed(43);
  Tensor noise = empty({3, 2, 4, 4}, dtype(kFloat64)).bernoulli_(0.5).div_(0.5);
  EXPECT_TENSOR_CLOSE(y, attention_reference(q, k, v, noise, 1.0 / std::sqrt(3.0)), 1e-12, 1e-12);
}

TEST(FusedAttention, QueriesAndKeysOfDifferentLengths) {
  manual_seed(5);
  // Causal means key j is hidden from query i when j > i (top-left aligned, as PyTorch).
  expect_attention_matches(rand64({1, 2, 3, 4}), rand64({1, 2, 5, 4}), rand64({1, 2, 5, 6}), 0.0);  // L < S
  expect_attention_matches(rand64({1, 2, 5, 4}), rand64({1, 2, 3, 4}), rand64({1, 2, 3, 2}), 0.0);  // L > S
  expect_attention_matches(rand64({2, 1, 1, 4}), rand64({2, 1, 1, 4}), rand64({2, 1, 1, 4}), 0.0);  // one token
}

TEST(FusedAttention, QueryBlocksSkipTheUpperTriangleExactly) {
  // The kernel multiplies blocks of 32 queries (64 past 128 tokens) by the keys they can see; block
  // edges, partial last blocks, dropout, and queries and keys of different lengths across blocks.
  manual_seed(7);
  Qkv a = projected(1, 70, 2, 5);
  expect_attention_matches(a.q, a.k, a.v, 0.0);
  expect_attention_matches(a.q, a.k, a.v, 0.3);
  expect_attention_matches(rand64({1, 2, 70, 4}), rand64({1, 2, 45, 4}), rand64({1, 2, 45, 3}), 0.2);    // L > S
  expect_attention_matches(rand64({1, 2, 40, 4}), rand64({1, 2, 100, 4}), rand64({1, 2, 100, 3}), 0.0);  // L < S
  Qkv big = projected(1, 150, 1, 4);
  expect_attention_matches(big.q, big.k, big.v, 0.1);
}

TEST(FusedAttention, ANonFiniteHeadDoesNotReachTheNextOne) {
  // Heads share a thread's scratch; a float row's vector tail must read only its own head's values.
  // Head 0 gets NaN gradients, head 1 (run after it on the same scratch) must stay finite.
  manual_seed(8);
  Tensor q = randn({1, 2, 40, 8}).requires_grad_(true), k = randn({1, 2, 100, 8}).requires_grad_(true),
         v = randn({1, 2, 100, 8}).requires_grad_(true);
  Tensor y = F::scaled_dot_product_attention(q, k, v, {}, 0.0, /*is_causal=*/true);
  Tensor g = ones(y.sizes());
  g.select(1, 0).fill_(std::numeric_limits<double>::quiet_NaN());
  tensor_list d = autograd::grad({y}, {q, k, v}, {g});
  for (const Tensor& t : d) {
    EXPECT_TRUE(t.select(1, 1).abs().lt(1e30).all().item<bool>());
    EXPECT_TRUE(t.select(1, 0).ne(t.select(1, 0)).any().item<bool>());
  }
}

TEST(FusedAttention, ManyHeadsTakeTheThreadedPath) {
  manual_seed(6);
  Qkv a = projected(4, 16, 4, 8);  // 16 heads, each small: heads run in parallel
  expect_attention_matches(a.q, a.k, a.v, 0.0);
}

TEST(FusedAttention, OutputIsLaidOutHeadsSideBySide) {
  manual_seed(7);
  Qkv a = projected(2, 5, 3, 4);
  Tensor y = F::scaled_dot_product_attention(a.q, a.k, a.v, {}, 0.0, true);  // (2, 3, 5, 4)
  EXPECT_TRUE(y.transpose(1, 2).is_contiguous());  // so GPT's .contiguous() before c_proj copies nothing
}

TEST(FusedAttention, GradcheckFirstAndSecondOrder) {
  manual_seed(8);
  Tensor q = rand64({1, 1, 3, 2}), k = rand64({1, 1, 3, 2}), v = rand64({1, 1, 3, 2});
  auto fn = [](const tensor_list& in) {
    return tensor_list{F::scaled_dot_product_attention(in[0], in[1], in[2], {}, 0.0, true)};
  };
  EXPECT_TRUE(autograd::gradcheck(fn, {q, k, v}));
  EXPECT_TRUE(autograd::gradgradcheck(fn, {q, k, v}));
}

TEST(FusedAttention, Float32AgreesWithFloat64) {
  manual_seed(9);
  Qkv a = projected(2, 8, 2, 4);
  Tensor y64 = F::scaled_dot_product_attention(a.q, a.k, a.v, {}, 0.0, true);
  Tensor y32 = F::scaled_dot_product_attention(a.q.to(kFloat32), a.k.to(kFloat32), a.v.to(kFloat32), {}, 0.0, true);
  EXPECT_TENSOR_CLOSE(y32.to(kFloat64), y64, 1e-5, 1e-6);
}

TEST(FusedAttention, Float32RowsOfAnyLengthAgreeWithFloat64) {
  // 37 keys: the float rows run over whole 16-float vectors past the diagonal (scores -inf, weights 0);
  // none of that padding may reach the values or the gradients.
  manual_seed(10);
  Qkv a = projected(2, 37, 3, 8);
  auto run = [&](ScalarType t) {
    Tensor q = a.q.detach().to(t).requires_grad_(true), k = a.k.detach().to(t).requires_grad_(true),
           v = a.v.detach().to(t).requires_grad_(true);
    Tensor y = F::scaled_dot_product_attention(q, k, v, {}, 0.0, true);
    (y * y).sum().backward();
    return tensor_list{y.detach(), q.grad(), k.grad(), v.grad()};
  };
  tensor_list r32 = run(kFloat32), r64 = run(kFloat64);
  for (size_t i = 0; i < r32.size(); ++i)
    EXPECT_TENSOR_CLOSE(r32[i].to(kFloat64), r64[i], 1e-4, 1e-5) << "output " << i;
}

// ---- addmm: the addend copied into the product's buffer, BLAS adding the product (beta = 1) ----

TEST(FusedAddmm, MatchesProductPlusAddendForEveryBroadcast) {
  manual_seed(11);
  for (ScalarType t : {kFloat32, kFloat64}) {
    // K = 700 spans more than one of OpenBLAS's K blocks, so the addend is added before the last one
    for (int64_t K : {5, 700}) {
      Tensor m1 = randn({6, K}, dtype(t)), m2 = randn({K, 4}, dtype(t));
      for (std::vector<int64_t> shape : std::vector<std::vector<int64_t>>{{4}, {1, 4}, {6, 1}, {6, 4}, {}}) {
        Tensor self = randn(shape, dtype(t));
        Tensor reference = m1.mm(m2) + self;
        const double tol = t == kFloat32 ? 1e-5 : 1e-12;
        EXPECT_TENSOR_CLOSE(addmm(self, m1, m2), reference, tol, tol)
            << dtype_name(t) << " K " << K << " self " << self.sizes();
        EXPECT_TENSOR_CLOSE(addmm(self, m1.t().contiguous().t(), m2.t().contiguous().t()), reference, tol, tol);
      }
    }
  }
  // integers have no BLAS: the loop adds the product to the addend too
  Tensor i1 = arange(6, dtype(kInt64)).view({2, 3}), i2 = arange(6, dtype(kInt64)).view({3, 2});
  EXPECT_TRUE(addmm(tensor({10, 20}, dtype(kInt64)), i1, i2).equal(tensor({{20, 33}, {38, 60}}, dtype(kInt64))));
  // an empty inner dim leaves the addend
  EXPECT_TRUE(addmm(ones({2, 2}), zeros({2, 0}), zeros({0, 2})).equal(ones({2, 2})));
}

TEST(FusedAddmm, GradientsAndBadInput) {
  auto fn = [](const tensor_list& x) { return tensor_list{addmm(x[0], x[1], x[2].t())}; };
  EXPECT_TRUE(autograd::gradcheck(fn, {rand64({1, 3}), rand64({2, 4}), rand64({3, 4})}));
  EXPECT_TRUE(autograd::gradgradcheck(fn, {rand64({2, 1}), rand64({2, 4}), rand64({3, 4})}));
  EXPECT_THROWS_WITH(addmm(ones({3}, dtype(kFloat64)), ones({2, 4}), ones({4, 3})),
                     "addmm: self has dtype float64 but the matrices have float32");
  EXPECT_THROWS_WITH(addmm(ones({2}), ones({2, 4}), ones({4, 3})),
                     "addmm: self of shape [2] does not broadcast to the product's shape [2, 3]");
}

// ---- GELU's one-pass backward ----

TEST(FusedGelu, BackwardMatchesTheComposedFormula) {
  for (ScalarType t : {kFloat32, kFloat64}) {
    Tensor x = linspace(-6, 6, 1001, dtype(t)).requires_grad_(true);
    for (std::string approximate : {"none", "tanh"}) {
      Tensor g = autograd::grad({x.gelu(approximate).sum()}, {x})[0];
      // create_graph takes the composed formula: the reference
      Tensor r = autograd::grad({x.gelu(approximate).sum()}, {x}, {}, std::nullopt, /*create_graph=*/true)[0];
      double tol = t == kFloat32 ? 1e-6 : 1e-13;
      EXPECT_TENSOR_CLOSE(g, r.detach(), tol, tol) << approximate << " " << dtype_name(t);
    }
  }
}

}  // namespace
}  // namespace ember

namespace ember {
namespace {

// ---- a backend with fused forwards but no fused backwards ----

// The CPU backend, except that every fused backward kernel is missing (returns false), as on a
// device whose author wrote only the forwards so far. Counts the fused kernels it ran and refused.
class ForwardsOnlyBackend final : public Backend {
 public:
  explicit ForwardsOnlyBackend(Backend& cpu) : cpu_(cpu) {}
  const char* name() const override { return "cpu (fused forwards only)"; }
  void* allocate(size_t n, Device d) override { return cpu_.allocate(n, d); }
  void deallocate(void* p, Device d) override { cpu_.deallocate(p, d); }
  void copy_to_host(void* dst, const void* src, size_t n, Device d) override { cpu_.copy_to_host(dst, src, n, d); }
  void copy_from_host(void* dst, const void* src, size_t n, Device d) override { cpu_.copy_from_host(dst, src, n, d); }
#define FORWARD_KERNEL(name, params, args, ...) \
  void name params override { cpu_.name args; }
#define FORWARD_FUSED_KERNEL(name, params, args, ...)                            \
  bool name params override {                                                    \
    if (std::string_view(#name).ends_with("_backward")) return ++refused, false; \
    return ++fused, cpu_.name args;                                              \
  }
  EMBER_BACKEND_KERNELS(FORWARD_KERNEL)
  EMBER_FUSED_KERNELS(FORWARD_FUSED_KERNEL)
#undef FORWARD_FUSED_KERNEL
#undef FORWARD_KERNEL
  int fused = 0, refused = 0;

 private:
  Backend& cpu_;
};

// Gradients of f(inputs) under the full CPU backend and under ForwardsOnlyBackend, compared; the
// second must come from the composed formula, not from uninitialised buffers.
void expect_same_gradients_with_forwards_only(const std::function<Tensor(const tensor_list&)>& f,
                                              const tensor_list& inputs, const char* node) {
  Tensor y = f(inputs);
  Tensor g = randn(y.sizes(), dtype(kFloat64));
  tensor_list want = autograd::grad({y}, inputs, {g});
  ForwardsOnlyBackend be(backend_for(Device(kCPU)));
  ScopedBackendOverride use(kCPU, be);
  Tensor y2 = f(inputs);
  EXPECT_EQ(y2.grad_fn()->name(), node);  // the fused forward ran...
  EXPECT_GE(be.fused, 1);
  tensor_list got = autograd::grad({y2}, inputs, {g});
  EXPECT_GE(be.refused, 1);  // ...its fused backward was asked for and missing
  EXPECT_TENSOR_CLOSE(y2, y, 0, 0);
  for (size_t i = 0; i < inputs.size(); ++i) EXPECT_TENSOR_CLOSE(got[i], want[i], 1e-10, 1e-10) << "input " << i;
}

TEST(FusedFallback, LayerNormBackwardComposedWhenTheBackendHasOnlyTheForward) {
  manual_seed(5);
  expect_same_gradients_with_forwards_only(
      [](const tensor_list& in) { return F::layer_norm(in[0], {8}, in[1], in[2], 1e-5); },
      {rand64({3, 5, 8}), rand64({8}), rand64({8})}, "NativeLayerNormBackward0");
}

TEST(FusedFallback, AttentionBackwardComposedWhenTheBackendHasOnlyTheForward) {
  manual_seed(6);
  Qkv a = projected(2, 6, 3, 4);
  expect_same_gradients_with_forwards_only(
      [](const tensor_list& in) { return F::scaled_dot_product_attention(in[0], in[1], in[2], {}, 0.0, true); },
      {a.q, a.k, a.v}, "ScaledDotProductAttentionBackward0");
}

// Two steps of each optimizer and a clipping, with and without the backend's optimizer kernels
// (ForwardsOnlyBackend has none): the composed updates agree with the kernels to rounding.
TEST(FusedFallback, OptimizersComposeTheUpdateWhereTheBackendHasNoKernel) {
  auto train = [](bool with_kernels, const std::string& which, ScalarType dt) {
    manual_seed(7);
    std::vector<Tensor> params{randn({5, 3}, dtype(dt)).requires_grad_(true),
                               randn({3}, dtype(dt)).requires_grad_(true)};
    static ForwardsOnlyBackend be(backend_for(Device(kCPU)));  // outlives the tensors it allocates
    std::optional<ScopedBackendOverride> use;
    if (!with_kernels) use.emplace(kCPU, be);
    std::unique_ptr<optim::Optimizer> opt;
    if (which == "adamw") opt = std::make_unique<optim::AdamW>(params, optim::AdamWOptions(0.1).weight_decay(0.1));
    if (which == "adam") opt = std::make_unique<optim::Adam>(params, optim::AdamOptions(0.1).amsgrad(true));
    if (which == "sgd") opt = std::make_unique<optim::SGD>(params, optim::SGDOptions(0.1).momentum(0.9).nesterov(true));
    for (int step = 0; step < 2; ++step) {
      opt->zero_grad();
      ((params[0].sum(0) * params[1]).square().sum() * 3).backward();
      nn::utils::clip_grad_norm_(params, 1.0);
      opt->step();
    }
    return params;
  };
  for (ScalarType dt : {kFloat32, kFloat64})
    for (const std::string which : {"adamw", "adam", "sgd"}) {
      std::vector<Tensor> fused = train(true, which, dt), composed = train(false, which, dt);
      const double tol = dt == kFloat32 ? 1e-5 : 1e-12;
      for (size_t i = 0; i < fused.size(); ++i)
        EXPECT_TENSOR_CLOSE(composed[i], fused[i], tol, tol) << which << " " << dtype_name(dt) << " param " << i;
    }
}

// ---- split as one node ----

TEST(SplitNode, OneNodeForAllPiecesAsPyTorch) {
  Tensor x = arange(12, dtype(kFloat64)).view({3, 4}).requires_grad_(true);
  tensor_list parts = x.split(2, 1);
  EXPECT_EQ(parts[0].grad_fn()->name(), "SplitBackward0");
  EXPECT_EQ(parts[0].grad_fn(), parts[1].grad_fn());
  EXPECT_EQ(parts[1].output_nr(), 1);
  EXPECT_EQ(x.split_with_sizes({1, 3}, 1)[1].grad_fn()->name(), "SplitWithSizesBackward0");
}

TEST(SplitNode, UnusedPiecesGetZeroGradient) {
  // y = 2 * p0 + 3 * p2, p1 unused: dx is 2 on the first rows, 0 in the middle, 3 at the end.
  Tensor x = ones({5, 2}, dtype(kFloat64)).requires_grad_(true);
  tensor_list p = x.split(2, 0);  // sizes 2, 2, 1
  ((p[0] * 2).sum() + (p[2] * 3).sum()).backward();
  EXPECT_TENSOR_CLOSE(x.grad(), tensor({{2.0, 2.0}, {2.0, 2.0}, {0.0, 0.0}, {0.0, 0.0}, {3.0, 3.0}}, dtype(kFloat64)),
                      0, 0);
}

TEST(SplitNode, GradcheckFirstAndSecondOrder) {
  manual_seed(10);
  Tensor x = randn({4, 3}, dtype(kFloat64)).requires_grad_(true);
  auto fn = [](const tensor_list& in) {
    tensor_list p = in[0].split_with_sizes({1, 2}, 1);
    return tensor_list{p[0] * p[1].square()};  // broadcast (4, 1) * (4, 2)
  };
  EXPECT_TRUE(autograd::gradcheck(fn, {x}));
  EXPECT_TRUE(autograd::gradgradcheck(fn, {x}));
}

TEST(SplitNode, BadSizesNameTheOp) {
  Tensor x = zeros({4, 3});
  EXPECT_THROWS_WITH(x.split_with_sizes({1, 1}, 1), "split_with_sizes: sizes [1, 1] add up to 2");
  EXPECT_THROWS_WITH(x.split_with_sizes({4, -1}, 1), "split_with_sizes: split sizes must be non-negative");
  EXPECT_THROWS_WITH(x.split(0, 0), "split: split_size must be positive");
}

}  // namespace
}  // namespace ember
