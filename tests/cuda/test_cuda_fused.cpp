// Device parity of the CUDA backend's fused and multi-tensor kernels (cuda/norm.cu, cuda/optim.cu)
// against the CPU's, on fresh random inputs, in float32 and float64.
//
// Each kernel is checked twice: called on the backend directly (so a kernel that declined and
// left the op to its composed fallback would fail the test), and through the public op or
// optimizer, forward and every gradient. Sizes are chosen for the kernels' edges: one row, rows
// longer than a block, a row count that needs several bands of the parameter-gradient pass, lists
// of more tensors and chunks than one launch takes. Without a usable GPU, or the emulator, the
// tests skip with "no CUDA device".
#include "core/backend.h"
#include "cuda_test_util.h"
#include "test_util.h"

using namespace ember;
using namespace ember::cuda_test;

namespace {


class CudaFused : public CudaDtypeTest {};

// ---- LayerNorm ----

struct LayerNormShape {
  int64_t N, D;
};
// One row; a row of fewer values than a warp; rows longer than the largest block (1024); more
// rows than one band of the dweight / dbias pass (128), so partial sums are added in a last pass.
const std::vector<LayerNormShape> kLayerNormShapes = {{1, 5}, {7, 33}, {3, 1500}, {300, 40}, {1, 1}};

TEST_P(CudaFused, LayerNormKernelsMatchTheCpu) {
  const ScalarType dt = GetParam();
  const Tolerance tol = tolerance(dt);
  Backend& gpu = backend_for(kGpu);
  Backend& cpu = backend_for(Device(kCPU));
  manual_seed(5);
  for (const auto [N, D] : kLayerNormShapes) {
    const std::string where = fmt::format("N={} D={} {}", N, D, dtype_name(dt));
    Tensor x = randn({N, D}, dtype(dt)) * 3 + 1, w = randn({D}, dtype(dt)), b = randn({D}, dtype(dt));
    Tensor g = randn({N, D}, dtype(dt));
    for (const bool affine : {true, false}) {
      const Tensor wc = affine ? w : Tensor(), bc = affine ? b : Tensor();
      Tensor y = empty({N, D}, dtype(dt)), mean = empty({N}, dtype(dt)), rstd = empty({N}, dtype(dt));
      ASSERT_TRUE(cpu.layer_norm(y, mean, rstd, x, wc, bc, 1e-5));
      Tensor yg = empty({N, D}, dtype(dt).device(kGpu)), meang = empty({N}, dtype(dt).device(kGpu)),
             rstdg = empty({N}, dtype(dt).device(kGpu));
      ASSERT_TRUE(gpu.layer_norm(yg, meang, rstdg, x.to(kGpu), affine ? w.to(kGpu) : Tensor(),
                                 affine ? b.to(kGpu) : Tensor(), 1e-5));
      EXPECT_TENSOR_CLOSE(yg.cpu(), y, tol.rtol, tol.atol) << where << " out";
      EXPECT_TENSOR_CLOSE(meang.cpu(), mean, tol.rtol, tol.atol) << where << " mean";
      EXPECT_TENSOR_CLOSE(rstdg.cpu(), rstd, tol.rtol, tol.atol) << where << " rstd";

      Tensor dx = empty({N, D}, dtype(dt)), dw = empty({D}, dtype(dt)), db = empty({D}, dtype(dt));
      ASSERT_TRUE(cpu.layer_norm_backward(dx, dw, db, g, x, mean, rstd, wc));
      // Every subset of the gradients: the kernels skip what is undefined.
      for (const int want : {7, 1, 6, 2}) {
        Tensor dxg = want & 1 ? empty({N, D}, dtype(dt).device(kGpu)) : Tensor();
        Tensor dwg = want & 2 ? empty({D}, dtype(dt).device(kGpu)) : Tensor();
        Tensor dbg = want & 4 ? empty({D}, dtype(dt).device(kGpu)) : Tensor();
        ASSERT_TRUE(gpu.layer_norm_backward(dxg, dwg, dbg, g.to(kGpu), x.to(kGpu), meang, rstdg,
                                            affine ? w.to(kGpu) : Tensor()));
        if (dxg.defined()) EXPECT_TENSOR_CLOSE(dxg.cpu(), dx, tol.rtol, tol.atol) << where << " din";
        // dw and db sum N terms each in a different order on each device.
        if (dwg.defined()) EXPECT_TENSOR_CLOSE(dwg.cpu(), dw, tol.rtol, 10 * tol.atol) << where << " dweight";
        if (dbg.defined()) EXPECT_TENSOR_CLOSE(dbg.cpu(), db, tol.rtol, 10 * tol.atol) << where << " dbias";
      }
    }
  }
}

// Through the op and autograd: a (B, T, C) input, T not a multiple of anything, weight and bias.
TEST_P(CudaFused, LayerNormOpForwardAndGradientsMatchTheCpu) {
  const ScalarType dt = GetParam();
  const Tolerance tol = tolerance(dt);
  manual_seed(6);
  for (const auto [N, D] : kLayerNormShapes) {
    Tensor x = randn({N, 1, D}, dtype(dt)), w = randn({D}, dtype(dt)), b = randn({D}, dtype(dt));
    Tensor weighting = randn({N, 1, D}, dtype(dt));
    tensor_list cpu_in = {x.requires_grad_(), w.requires_grad_(), b.requires_grad_()};
    tensor_list gpu_in;
    for (const Tensor& t : cpu_in) gpu_in.push_back(t.detach().to(kGpu).requires_grad_());
    Tensor yc = layer_norm(cpu_in[0], {D}, cpu_in[1], cpu_in[2]);
    Tensor yg = layer_norm(gpu_in[0], {D}, gpu_in[1], gpu_in[2]);
    EXPECT_TENSOR_CLOSE(yg.cpu(), yc, tol.rtol, tol.atol) << "N=" << N << " D=" << D;
    (yc * weighting).sum().backward();
    (yg * weighting.to(kGpu)).sum().backward();
    for (size_t i = 0; i < cpu_in.size(); ++i)
      EXPECT_TENSOR_CLOSE(gpu_in[i].grad().cpu(), cpu_in[i].grad(), tol.rtol, 10 * tol.atol)
          << "N=" << N << " D=" << D << " grad of input " << i;
  }
}

// ---- GELU: one elementwise launch each way (UnaryOp::Gelu, BinaryOp::GeluBackward) ----

TEST_P(CudaFused, GeluForwardAndBackwardMatchTheCpu) {
  const ScalarType dt = GetParam();
  const Tolerance tol = tolerance(dt);
  manual_seed(7);
  // One element; an odd length past one block of 256 threads; a transposed (strided) view.
  for (const std::vector<int64_t>& shape : std::vector<std::vector<int64_t>>{{1}, {3, 1037}, {67, 5}}) {
    for (const char* approximate : {"none", "tanh"}) {
      Tensor x = randn(shape, dtype(dt)) * 3;
      Tensor xc = x.clone().requires_grad_(), xg = x.to(kGpu).requires_grad_();
      const bool strided = shape.size() == 2 && shape[1] == 5;
      Tensor yc = (strided ? xc.t() : xc).gelu(approximate), yg = (strided ? xg.t() : xg).gelu(approximate);
      EXPECT_TENSOR_CLOSE(yg.cpu(), yc, tol.rtol, tol.atol) << approximate << " " << x.sizes();
      Tensor w = randn(yc.sizes(), dtype(dt));
      (yc * w).sum().backward();
      (yg * w.to(kGpu)).sum().backward();
      EXPECT_TENSOR_CLOSE(xg.grad().cpu(), xc.grad(), tol.rtol, tol.atol) << approximate << " grad " << x.sizes();
    }
  }
}

// ---- optimizers ----

// Parameter shapes for the multi-tensor kernels: more tensors than one launch takes (48), an
// empty one, a single element, and ones of several chunks (16384 elements each), in the first
// launch and in the second.
std::vector<std::vector<int64_t>> optimizer_shapes() {
  std::vector<std::vector<int64_t>> shapes = {{3, 5}, {0}, {1}, {40000}, {7}};
  for (int i = 0; i < 50; ++i) shapes.push_back({i + 2, 3});
  shapes.push_back({2, 16384 + 5});
  return shapes;
}

// Identical parameters and gradients on both devices.
struct TwinParams {
  std::vector<Tensor> cpu, gpu;
};
TwinParams twin_params(const std::vector<std::vector<int64_t>>& shapes, ScalarType dt) {
  TwinParams t;
  for (const auto& shape : shapes) {
    Tensor p = randn(shape, dtype(dt));
    t.cpu.push_back(p.clone().requires_grad_());
    t.gpu.push_back(p.to(kGpu).requires_grad_());
  }
  return t;
}
void set_grads(TwinParams& t, ScalarType dt) {
  for (size_t i = 0; i < t.cpu.size(); ++i) {
    Tensor g = randn(t.cpu[i].sizes(), dtype(dt));
    t.cpu[i].mutable_grad() = g;
    t.gpu[i].mutable_grad() = g.to(kGpu);
  }
}
void expect_same_params(const TwinParams& t, Tolerance tol, const std::string& what) {
  for (size_t i = 0; i < t.cpu.size(); ++i)
    EXPECT_TENSOR_CLOSE(t.gpu[i].detach().cpu(), t.cpu[i].detach(), tol.rtol, tol.atol) << what << " param " << i;
}

template <typename Opt, typename Options>
void check_three_steps(ScalarType dt, const Options& options, const std::string& what) {
  TwinParams t = twin_params(optimizer_shapes(), dt);
  Opt cpu_opt(t.cpu, options), gpu_opt(t.gpu, options);
  for (int step = 0; step < 3; ++step) {
    set_grads(t, dt);
    cpu_opt.step();
    gpu_opt.step();
  }
  expect_same_params(t, tolerance(dt), what);
}

TEST_P(CudaFused, AdamAndAdamWMatchTheCpu) {
  const ScalarType dt = GetParam();
  manual_seed(8);
  check_three_steps<optim::AdamW>(dt, optim::AdamWOptions(1e-2).weight_decay(0.1), "AdamW");
  check_three_steps<optim::Adam>(dt, optim::AdamOptions(1e-2).weight_decay(0.1).amsgrad(true), "Adam amsgrad");
  check_three_steps<optim::Adam>(dt, optim::AdamOptions(1e-2).maximize(true), "Adam maximize");
}

TEST_P(CudaFused, SgdMatchesTheCpu) {
  const ScalarType dt = GetParam();
  manual_seed(9);
  check_three_steps<optim::SGD>(dt, optim::SGDOptions(0.1), "SGD");
  check_three_steps<optim::SGD>(dt, optim::SGDOptions(0.1).momentum(0.9).nesterov(true).weight_decay(0.01),
                                "SGD nesterov");
  check_three_steps<optim::SGD>(dt, optim::SGDOptions(0.1).momentum(0.9).dampening(0.3).maximize(true),
                                "SGD dampening");
}

TEST_P(CudaFused, RmspropAndAdagradMatchTheCpu) {
  const ScalarType dt = GetParam();
  manual_seed(12);
  check_three_steps<optim::RMSprop>(dt, optim::RMSpropOptions(1e-2), "RMSprop");
  check_three_steps<optim::RMSprop>(dt, optim::RMSpropOptions(1e-2).centered(true).momentum(0.9).weight_decay(0.01),
                                    "RMSprop centered momentum");
  check_three_steps<optim::RMSprop>(dt, optim::RMSpropOptions(1e-2).alpha(0.9).momentum(0.5).maximize(true),
                                    "RMSprop maximize");
  check_three_steps<optim::Adagrad>(dt, optim::AdagradOptions(0.1).lr_decay(0.01).weight_decay(0.01), "Adagrad");
  check_three_steps<optim::Adagrad>(dt, optim::AdagradOptions(0.1).initial_accumulator_value(0.1).maximize(true),
                                    "Adagrad maximize");
}

// RMSprop's and Adagrad's kernels take the lists on the device, state the rule does not use left
// undefined entry by entry, and give the CPU's results.
TEST_P(CudaFused, RmspropAndAdagradKernelsRunOnTheDevice) {
  const ScalarType dt = GetParam();
  const Tolerance tol = tolerance(dt);
  manual_seed(13);
  TwinParams t = twin_params(optimizer_shapes(), dt);
  set_grads(t, dt);
  struct Lists {
    tensor_list p, g, sq, ga, buf, sum;
  } cpu, gpu;
  std::vector<RmspropStep> rmsprop_steps;
  std::vector<AdagradStep> adagrad_steps;
  const auto twin = [&](Tensor x, tensor_list Lists::*list) {
    (cpu.*list).push_back(x);
    (gpu.*list).push_back(x.defined() ? x.to(kGpu) : Tensor());
  };
  for (size_t i = 0; i < t.cpu.size(); ++i) {
    cpu.p.push_back(t.cpu[i].detach()), gpu.p.push_back(t.gpu[i].detach());
    cpu.g.push_back(t.cpu[i].grad()), gpu.g.push_back(t.gpu[i].grad());
    const IntArrayRef shape = t.cpu[i].sizes();
    // Parameters alternate between centered with momentum and plain with maximize.
    const bool centered = i % 2 == 1;
    twin(rand(shape, dtype(dt)) + 0.5, &Lists::sq);
    twin(centered ? randn(shape, dtype(dt)) * 0.1 : Tensor(), &Lists::ga);
    twin(centered ? randn(shape, dtype(dt)) : Tensor(), &Lists::buf);
    twin(rand(shape, dtype(dt)), &Lists::sum);
    rmsprop_steps.push_back(centered ? RmspropStep{1e-2, 0.99, 1e-8, 0.01, 0.9, true, false}
                                     : RmspropStep{1e-3, 0.9, 1e-6, 0, 0, false, true});
    adagrad_steps.push_back({0.1 / (1 + static_cast<double>(i % 3) * 0.01), 1e-10, i % 2 ? 0.01 : 0, i % 4 == 0});
  }
  NoGradGuard no_grad;
  ASSERT_TRUE(backend_for(Device(kCPU)).rmsprop_update(cpu.p, cpu.g, cpu.sq, cpu.ga, cpu.buf, rmsprop_steps));
  ASSERT_TRUE(backend_for(kGpu).rmsprop_update(gpu.p, gpu.g, gpu.sq, gpu.ga, gpu.buf, rmsprop_steps));
  ASSERT_TRUE(backend_for(Device(kCPU)).adagrad_update(cpu.p, cpu.g, cpu.sum, adagrad_steps));
  ASSERT_TRUE(backend_for(kGpu).adagrad_update(gpu.p, gpu.g, gpu.sum, adagrad_steps));
  for (size_t i = 0; i < cpu.p.size(); ++i) {
    EXPECT_TENSOR_CLOSE(gpu.p[i].cpu(), cpu.p[i], tol.rtol, tol.atol) << "param " << i;
    EXPECT_TENSOR_CLOSE(gpu.sq[i].cpu(), cpu.sq[i], tol.rtol, tol.atol) << "square_avg " << i;
    EXPECT_TENSOR_CLOSE(gpu.sum[i].cpu(), cpu.sum[i], tol.rtol, tol.atol) << "sum " << i;
    if (cpu.ga[i].defined()) {
      EXPECT_TENSOR_CLOSE(gpu.ga[i].cpu(), cpu.ga[i], tol.rtol, tol.atol) << "grad_avg " << i;
      EXPECT_TENSOR_CLOSE(gpu.buf[i].cpu(), cpu.buf[i], tol.rtol, tol.atol) << "momentum_buffer " << i;
    }
  }
}

// The kernels themselves take the lists (the optimizers above would compose where they declined).
TEST_P(CudaFused, OptimizerKernelsRunOnTheDevice) {
  const ScalarType dt = GetParam();
  const Tolerance tol = tolerance(dt);
  manual_seed(10);
  TwinParams t = twin_params(optimizer_shapes(), dt);
  set_grads(t, dt);
  tensor_list cpu_grads, gpu_grads, cpu_m, gpu_m, cpu_v, gpu_v, none(t.cpu.size());
  std::vector<AdamStep> steps;
  for (size_t i = 0; i < t.cpu.size(); ++i) {
    cpu_grads.push_back(t.cpu[i].grad());
    gpu_grads.push_back(t.gpu[i].grad());
    Tensor m = randn(t.cpu[i].sizes(), dtype(dt)), v = rand(t.cpu[i].sizes(), dtype(dt));
    cpu_m.push_back(m), gpu_m.push_back(m.to(kGpu)), cpu_v.push_back(v), gpu_v.push_back(v.to(kGpu));
    // Every fifth parameter at another step: its scalars differ, so the launches split there.
    const int step = i % 5 == 0 ? 7 : 3;
    steps.push_back({1e-2, 0.9, 0.999, 1e-8, 0.05, 1e-2 / (1 - std::pow(0.9, step)),
                     std::sqrt(1 - std::pow(0.999, step)), false, false, true});
  }
  NoGradGuard no_grad;
  tensor_list cpu_p(t.cpu.begin(), t.cpu.end()), gpu_p(t.gpu.begin(), t.gpu.end());
  ASSERT_TRUE(backend_for(Device(kCPU)).adam_update(cpu_p, cpu_grads, cpu_m, cpu_v, none, steps));
  ASSERT_TRUE(backend_for(kGpu).adam_update(gpu_p, gpu_grads, gpu_m, gpu_v, none, steps));
  for (size_t i = 0; i < cpu_p.size(); ++i) {
    EXPECT_TENSOR_CLOSE(gpu_p[i].cpu(), cpu_p[i], tol.rtol, tol.atol) << "param " << i;
    EXPECT_TENSOR_CLOSE(gpu_m[i].cpu(), cpu_m[i], tol.rtol, tol.atol) << "exp_avg " << i;
    EXPECT_TENSOR_CLOSE(gpu_v[i].cpu(), cpu_v[i], tol.rtol, tol.atol) << "exp_avg_sq " << i;
  }
  // Sums of squares in double, compared with a float64 reference; then the scaling.
  Tensor squares = empty({static_cast<int64_t>(gpu_grads.size())}, dtype(kFloat64).device(kGpu));
  ASSERT_TRUE(backend_for(kGpu).sum_of_squares(squares, gpu_grads));
  std::vector<double> expected;
  for (const Tensor& g : cpu_grads) expected.push_back(g.square().sum(kFloat64).item<double>());
  EXPECT_TENSOR_CLOSE(squares.cpu(), from_vector<double>(expected, {static_cast<int64_t>(expected.size())}), 1e-6,
                      1e-9);
  ASSERT_TRUE(backend_for(kGpu).scale_(gpu_grads, 0.25));
  for (size_t i = 0; i < cpu_grads.size(); ++i)
    EXPECT_TENSOR_CLOSE(gpu_grads[i].cpu(), cpu_grads[i] * 0.25, tol.rtol, tol.atol) << "scaled grad " << i;
}

TEST_P(CudaFused, ClipGradNormMatchesTheCpu) {
  const ScalarType dt = GetParam();
  const Tolerance tol = tolerance(dt);
  manual_seed(11);
  TwinParams t = twin_params(optimizer_shapes(), dt);
  set_grads(t, dt);
  const double cpu_norm = nn::utils::clip_grad_norm_(t.cpu, 1.0);
  const double gpu_norm = nn::utils::clip_grad_norm_(t.gpu, 1.0);
  EXPECT_NEAR(gpu_norm, cpu_norm, 1e-5 * cpu_norm);
  for (size_t i = 0; i < t.cpu.size(); ++i)
    EXPECT_TENSOR_CLOSE(t.gpu[i].grad().cpu(), t.cpu[i].grad(), tol.rtol, tol.atol) << "clipped grad " << i;
}

// ---- reductions: split across blocks, by columns, and arg-max/min by blocks ----

struct ReductionCase {
  const char* name;
  std::vector<int64_t> shape;
  std::function<Tensor(const Tensor&)> fn;
  bool differentiable = true;
};

// Shapes that pick each layout of cuda/reduce.cu: a whole-tensor sum over more elements than one
// split (4096) takes, so it runs as many blocks and a second pass; few long rows (split too);
// a sum over the leading dim with more outputs than one columns block (32) and a tail, and over
// enough rows (1,024 and more) that the column blocks split into bands of rows with a second pass
// (a last band shorter than the others; min and any through the partials too); arg-max and
// arg-min over long rows and down columns.
// clang-format off
const std::vector<ReductionCase> kReductionCases = {
  {"sum_all_split", {20011}, [](const Tensor& x) { return x.sum(); }},
  {"mean_rows_split", {3, 9001}, [](const Tensor& x) { return x.mean({1}); }},
  {"sum_leading_dim_columns", {301, 70}, [](const Tensor& x) { return x.sum({0}); }},
  {"sum_leading_dims_3d", {5, 33, 40}, [](const Tensor& x) { return x.sum({0, 1}); }},
  {"amax_split", {2, 12000}, [](const Tensor& x) { return x.amax({1}); }},
  {"min_columns", {200, 45}, [](const Tensor& x) { return x.amin({0}); }},
  {"sum_columns_in_bands", {3001, 70}, [](const Tensor& x) { return x.sum({0}); }},
  {"sum_leading_dims_3d_in_bands", {4, 700, 33}, [](const Tensor& x) { return x.sum({0, 1}); }},
  {"min_columns_in_bands", {2000, 40}, [](const Tensor& x) { return x.amin({0}); }},
  {"any_columns_in_bands", {1100, 64}, [](const Tensor& x) { return (x > 3.2).any(0); }, false},
  {"sum_of_transpose_columns", {40, 50}, [](const Tensor& x) { return x.t().sum({1}); }},
  {"all_any_split", {2, 10000}, [](const Tensor& x) { return (x > -3).all(1).logical_xor((x > 3.5).any(1)); }, false},
  {"any_columns", {50, 40}, [](const Tensor& x) { return (x > 2).any(0); }, false},
  {"argmax_long_rows", {3, 20000}, [](const Tensor& x) { return x.argmax(1); }, false},
  {"argmin_all", {30001}, [](const Tensor& x) { return x.argmin(); }, false},
  {"argmax_columns", {3000, 3}, [](const Tensor& x) { return x.argmax(0); }, false},
  {"max_dim_values", {4, 9000}, [](const Tensor& x) { return std::get<0>(x.max(1)); }},
};
// clang-format on

TEST_P(CudaFused, ReductionsMatchTheCpu) {
  const ScalarType dt = GetParam();
  // Float sums of 20,000 terms in float32, in a different order on each device.
  const Tolerance tol = dt == kFloat64 ? Tolerance{1e-10, 1e-10} : Tolerance{1e-4, 1e-3};
  manual_seed(12);
  for (const ReductionCase& c : kReductionCases) {
    Tensor x = randn(c.shape, dtype(dt));
    Tensor xc = x.clone().requires_grad_(c.differentiable), xg = x.to(kGpu).requires_grad_(c.differentiable);
    Tensor yc = c.fn(xc), yg = c.fn(xg);
    ASSERT_TRUE(yg.is_cuda()) << c.name;
    EXPECT_TENSOR_CLOSE(yg.cpu(), yc, tol.rtol, tol.atol) << c.name << " " << dtype_name(dt);
    if (!c.differentiable) continue;
    Tensor w = randn(yc.sizes(), dtype(dt));
    (yc * w).sum().backward();
    (yg * w.to(kGpu)).sum().backward();
    EXPECT_TENSOR_CLOSE(xg.grad().cpu(), xc.grad(), tol.rtol, tol.atol) << c.name << " grad " << dtype_name(dt);
  }
}

// Ties keep the first index and NaN wins, in the split kernels' second pass too.
TEST_P(CudaFused, ArgReductionsKeepTheFirstExtremeAndNaN) {
  const ScalarType dt = GetParam();
  Tensor x = zeros({2, 20000}, dtype(dt));
  x.select(0, 0).narrow(0, 15000, 1).fill_(5);  // the later of two maxima in the first row ...
  x.select(0, 0).narrow(0, 9000, 1).fill_(5);   // ... and the earlier, in another split
  x.select(0, 1).narrow(0, 17000, 1).fill_(std::nan(""));
  x.select(0, 1).narrow(0, 300, 1).fill_(7);
  Tensor g = x.to(kGpu);
  EXPECT_TRUE(equal(g.argmax(1).cpu(), from_vector<int64_t>({9000, 17000}, {2})));
  EXPECT_TRUE(equal(g.argmin(1).cpu(), from_vector<int64_t>({0, 17000}, {2})));
  EXPECT_TRUE(equal(g.argmax(1).cpu(), x.argmax(1)));
  EXPECT_TRUE(std::isnan(std::get<0>(g.max(1)).cpu()[1].item<double>()));
}

INSTANTIATE_TEST_SUITE_P(Dtypes, CudaFused, ::testing::Values(kFloat32, kFloat64), dtype_case_name);

// ---- the GPT's training step ----

// Three AdamW steps of a small GPT (dropout off) on emulated CUDA and on the CPU: the losses and
// every parameter afterwards agree. LayerNorm, the optimizer and clipping run in the CUDA
// backend's fused kernels; attention, GELU and the loss are composed from its primitive kernels.
TEST(CudaFusedGpt, ThreeAdamWStepsMatchTheCpu) {
  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  for (ScalarType dt : {kFloat32, kFloat64}) {
    nn::GPTConfig cfg;
    cfg.vocab_size = 13, cfg.block_size = 8, cfg.n_layer = 2, cfg.n_head = 2, cfg.n_embd = 16;
    manual_seed(31);
    nn::GPT cpu(cfg);
    manual_seed(31);
    nn::GPT gpu(cfg);
    cpu->to(dt);
    gpu->to(dt);
    gpu->to(kGpu);
    optim::AdamW cpu_opt(cpu->parameters(), optim::AdamWOptions(3e-3).weight_decay(0.1));
    optim::AdamW gpu_opt(gpu->parameters(), optim::AdamWOptions(3e-3).weight_decay(0.1));
    // Adam divides by sqrt(v): float32 differences in the gradients grow a little each step.
    const Tolerance tol = dt == kFloat64 ? Tolerance{1e-9, 1e-11} : Tolerance{1e-3, 1e-4};
    for (int step = 0; step < 3; ++step) {
      Tensor idx = randint(0, cfg.vocab_size, {2, 7}, dtype(kInt64));
      Tensor targets = randint(0, cfg.vocab_size, {2, 7}, dtype(kInt64));
      auto [cpu_logits, cpu_loss] = cpu->forward(idx, targets);
      auto [gpu_logits, gpu_loss] = gpu->forward(idx.to(kGpu), targets.to(kGpu));
      EXPECT_NEAR(gpu_loss.item<double>(), cpu_loss.item<double>(), tol.rtol * 10)
          << dtype_name(dt) << " loss at step " << step;
      cpu_opt.zero_grad();
      gpu_opt.zero_grad();
      cpu_loss.backward();
      gpu_loss.backward();
      nn::utils::clip_grad_norm_(cpu->parameters(), 1.0);
      nn::utils::clip_grad_norm_(gpu->parameters(), 1.0);
      cpu_opt.step();
      gpu_opt.step();
    }
    const auto cpu_params = cpu->named_parameters(), gpu_params = gpu->named_parameters();
    ASSERT_EQ(cpu_params.size(), gpu_params.size());
    for (size_t i = 0; i < cpu_params.size(); ++i) {
      EXPECT_TRUE(gpu_params[i].value().is_cuda());
      EXPECT_TENSOR_CLOSE(gpu_params[i].value().detach().cpu(), cpu_params[i].value().detach(), tol.rtol, tol.atol)
          << dtype_name(dt) << " " << cpu_params[i].key() << " after 3 steps";
    }
  }
}

}  // namespace
