// Optimizers, schedulers and gradient clipping against PyTorch 1.13 (scripts/gen_optim_fixtures.py).
//
// The optimizer fixtures hold 10 steps of a two-layer linear regression: the gradients PyTorch
// computed at each step and the parameters after each update. Fed PyTorch's gradients, Ember's
// fused updates must reproduce PyTorch's parameters bit for bit; with its own autograd computing
// the gradients, the trajectories must agree to float rounding.
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <functional>

#include <gtest/gtest.h>

#include "fixture_json.h"
#include "test_util.h"

namespace ember {
namespace {

using nlohmann::json;
using optim::Optimizer;

const json& optimizer_fixture() {
  static const json j = test::load_fixture("optim/optimizers.json");
  return j;
}

// The optimizers of the fixture cases, built as the script builds them. params = {w1, b1, w2, b2}.
std::unique_ptr<Optimizer> make_optimizer(const std::string& name, const std::vector<Tensor>& params) {
  using namespace optim;
  if (name == "sgd") return std::make_unique<SGD>(params, SGDOptions(0.1));
  if (name == "sgd_momentum")
    return std::make_unique<SGD>(params, SGDOptions(0.05).momentum(0.9).dampening(0.1).weight_decay(0.01));
  if (name == "sgd_nesterov")
    return std::make_unique<SGD>(params, SGDOptions(0.05).momentum(0.9).nesterov(true).weight_decay(0.01));
  if (name == "sgd_maximize") return std::make_unique<SGD>(params, SGDOptions(0.01).momentum(0.5).maximize(true));
  if (name == "adam") return std::make_unique<Adam>(params, AdamOptions(0.01));
  if (name == "adam_weight_decay")
    return std::make_unique<Adam>(params, AdamOptions(0.02).betas({0.8, 0.99}).eps(1e-6).weight_decay(0.1));
  if (name == "adam_amsgrad") return std::make_unique<Adam>(params, AdamOptions(0.01).amsgrad(true).weight_decay(0.05));
  if (name == "adamw") return std::make_unique<AdamW>(params, AdamWOptions(0.01).weight_decay(0.1));
  if (name == "adamw_amsgrad")
    return std::make_unique<AdamW>(params, AdamWOptions(0.03).betas({0.9, 0.95}).amsgrad(true));
  EMBER_CHECK(name == "adamw_groups", "unknown optimizer case {}", name);
  auto defaults = AdamWOptions(0.01).weight_decay(0.1);
  std::vector<OptimizerParamGroup> groups;
  groups.emplace_back(std::vector<Tensor>{params[0], params[2]},
                      std::make_unique<AdamWOptions>(AdamWOptions(defaults).weight_decay(0.2)));
  groups.emplace_back(std::vector<Tensor>{params[1], params[3]},
                      std::make_unique<AdamWOptions>(AdamWOptions(defaults).lr(0.005).weight_decay(0.0)));
  return std::make_unique<AdamW>(std::move(groups), defaults);
}

const std::vector<std::string> kCases = {"sgd",           "sgd_momentum",      "sgd_nesterov", "sgd_maximize",
                                         "adam",          "adam_weight_decay", "adam_amsgrad", "adamw",
                                         "adamw_amsgrad", "adamw_groups"};

std::vector<Tensor> leaf_params(const json& list, bool contiguous = true) {
  std::vector<Tensor> params;
  for (const auto& j : list) {
    Tensor t = test::tensor_from_json(j);
    if (!contiguous) {  // the same values, every second element of a wider buffer
      std::vector<int64_t> wide = t.sizes().vec();
      wide.back() *= 2;
      Tensor view = zeros(wide, dtype(t.dtype())).slice(-1, 0, std::nullopt, 2);
      view.copy_(t);
      t = view;
    }
    params.push_back(t.requires_grad_());
  }
  return params;
}

// Runs `steps` updates from the fixture's gradients, starting after step `from`.
void run_with_fixture_grads(Optimizer& opt, std::vector<Tensor>& params, const json& steps, int from, int to) {
  for (int s = from; s < to; ++s) {
    opt.zero_grad();
    for (size_t i = 0; i < params.size(); ++i) params[i].set_grad(test::tensor_from_json(steps[s]["grads"][i]));
    opt.step();
  }
}

// ---- fed PyTorch's gradients: bit for bit ----

TEST(Optim, FusedUpdatesMatchPyTorchBitForBit) {
  for (const std::string& name : kCases) {
    for (const std::string dt : {"float32", "float64"}) {
      SCOPED_TRACE(name + "_" + dt);
      const json& c = optimizer_fixture().at(name + "_" + dt);
      std::vector<Tensor> params = leaf_params(c["initial"]);
      auto opt = make_optimizer(name, params);
      for (int s = 0; s < 10; ++s) {
        run_with_fixture_grads(*opt, params, c["steps"], s, s + 1);
        for (size_t i = 0; i < params.size(); ++i)
          ASSERT_TRUE(test::tensors_close(params[i], test::tensor_from_json(c["steps"][s]["params"][i]), 0, 0))
              << "step " << s << ", parameter " << i;
      }
    }
  }
}

// Non-contiguous parameters take the composed tensor-op path (the one other devices use).
TEST(Optim, ComposedUpdatesMatchPyTorch) {
  for (const std::string& name : kCases) {
    for (const std::string dt : {"float32", "float64"}) {
      SCOPED_TRACE(name + "_" + dt);
      const json& c = optimizer_fixture().at(name + "_" + dt);
      std::vector<Tensor> params = leaf_params(c["initial"], /*contiguous=*/false);
      ASSERT_FALSE(params[0].is_contiguous());
      auto opt = make_optimizer(name, params);
      run_with_fixture_grads(*opt, params, c["steps"], 0, 10);
      const double rtol = dt == "float32" ? 1e-5 : 1e-12;
      for (size_t i = 0; i < params.size(); ++i)
        EXPECT_TENSOR_CLOSE(params[i], test::tensor_from_json(c["steps"][9]["params"][i]), rtol, rtol * 1e-2);
    }
  }
}

// ---- Ember's own gradients: the whole training loop ----

TEST(Optim, TrainingTrajectoriesMatchPyTorch) {
  for (const std::string& name : kCases) {
    for (const std::string dt : {"float32", "float64"}) {
      SCOPED_TRACE(name + "_" + dt);
      const json& c = optimizer_fixture().at(name + "_" + dt);
      Tensor x = test::tensor_from_json(c["x"]), y = test::tensor_from_json(c["y"]);
      std::vector<Tensor> params = leaf_params(c["initial"]);
      auto opt = make_optimizer(name, params);
      const double rtol = dt == "float32" ? 1e-4 : 1e-10;
      for (int s = 0; s < 10; ++s) {
        opt->zero_grad();
        // out = (x @ w1 + b1) @ w2 + b2;  loss = mean((out - y)^2)
        Tensor out = (x.matmul(params[0]) + params[1]).matmul(params[2]) + params[3];
        Tensor loss = (out - y).pow(2).mean();
        loss.backward();
        EXPECT_NEAR(loss.item<double>(), c["steps"][s]["loss"].get<double>(), rtol * 10);
        opt->step();
      }
      for (size_t i = 0; i < params.size(); ++i)
        EXPECT_TENSOR_CLOSE(params[i], test::tensor_from_json(c["steps"][9]["params"][i]), rtol, rtol);
    }
  }
}

// ---- the Optimizer base ----

TEST(Optim, StepIsAnInPlaceWriteThatRecordsNoHistory) {
  Tensor w = ones({3}, requires_grad());
  optim::Adam opt({w}, optim::AdamOptions(0.1));
  (w * w).sum().backward();
  const uint32_t before = w._version();
  opt.step();
  EXPECT_GT(w._version(), before);
  EXPECT_TRUE(w.is_leaf());
  EXPECT_EQ(w.grad_fn(), nullptr);
  EXPECT_TRUE(w.requires_grad());
}

TEST(Optim, ParametersWithoutGradientsAreSkipped) {
  Tensor a = ones({2}, requires_grad()), b = ones({2}, requires_grad());
  optim::SGD opt({a, b}, optim::SGDOptions(0.5).momentum(0.9));
  a.sum().backward();
  opt.step();
  EXPECT_TENSOR_CLOSE(a, full({2}, 0.5), 0, 0);
  EXPECT_TENSOR_CLOSE(b, ones({2}), 0, 0);
  EXPECT_EQ(opt.state().size(), 1u);
}

TEST(Optim, ZeroGradUnsetsOrZeroes) {
  Tensor w = ones({2}, requires_grad());
  optim::SGD opt({w}, optim::SGDOptions(0.1));
  (w * 3).sum().backward();
  opt.zero_grad(/*set_to_none=*/false);
  ASSERT_TRUE(w.grad().defined());
  EXPECT_TENSOR_CLOSE(w.grad(), zeros({2}), 0, 0);
  opt.zero_grad();
  EXPECT_FALSE(w.grad().defined());
}

TEST(Optim, ParamGroupsTakeMissingOptionsFromDefaults) {
  Tensor a = ones({2}, requires_grad()), b = ones({3}, requires_grad()), c = ones({1}, requires_grad());
  std::vector<optim::OptimizerParamGroup> groups;
  groups.emplace_back(std::vector<Tensor>{a});
  groups.emplace_back(std::vector<Tensor>{b}, std::make_unique<optim::SGDOptions>(0.5));
  optim::SGD opt(std::move(groups), optim::SGDOptions(0.1));
  opt.add_param_group(optim::OptimizerParamGroup({c}));
  ASSERT_EQ(opt.param_groups().size(), 3u);
  EXPECT_EQ(opt.param_groups()[0].options().get_lr(), 0.1);
  EXPECT_EQ(opt.param_groups()[1].options().get_lr(), 0.5);
  EXPECT_EQ(opt.param_groups()[2].options().get_lr(), 0.1);
  EXPECT_EQ(opt.size(), 3u);
  opt.param_groups()[2].options().set_lr(2.0);
  c.sum().backward();
  opt.step();
  EXPECT_TENSOR_CLOSE(c, full({1}, -1.0), 0, 0);
}

TEST(Optim, BadConfigurationsAreRejected) {
  Tensor w = ones({2}, requires_grad());
  Tensor nonleaf = w * 2;
  EXPECT_THROWS_WITH(optim::SGD({nonleaf}, optim::SGDOptions(0.1)), "can't optimize a non-leaf Tensor");
  EXPECT_THROWS_WITH(optim::SGD({w, w}, optim::SGDOptions(0.1)), "more than one parameter group");
  EXPECT_THROWS_WITH(optim::SGD({w}, optim::SGDOptions(-1)), "SGD: invalid learning rate -1");
  EXPECT_THROWS_WITH(optim::SGD({w}, optim::SGDOptions(0.1).nesterov(true)),
                     "Nesterov momentum requires a momentum and zero dampening");
  EXPECT_THROWS_WITH(optim::Adam({w}, optim::AdamOptions(0.1).betas({0.9, 1.0})),
                     "Adam: invalid beta parameter at index 1: 1");
  EXPECT_THROWS_WITH(optim::AdamW({w}, optim::AdamWOptions(0.1).eps(-1)), "AdamW: invalid epsilon value -1");
  std::vector<optim::OptimizerParamGroup> groups;
  groups.emplace_back(std::vector<Tensor>{w}, std::make_unique<optim::SGDOptions>(0.1));
  EXPECT_THROWS_WITH(optim::Adam(std::move(groups)), "options of another optimizer (expected AdamOptions)");
  Tensor ints = ones({2}, dtype(kInt64));
  EXPECT_THROWS_WITH(optim::SGD({ints}, optim::SGDOptions(0.1)), "only float32 and float64");
}

// ---- checkpoints of optimizer state ----

std::string temp_path(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("ember_optim_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

TEST(Optim, SaveLoadResumesBitForBit) {
  for (const std::string& name : {"sgd_momentum", "adam_amsgrad", "adamw_groups", "adam"}) {
    SCOPED_TRACE(name);
    const json& c = optimizer_fixture().at(name + std::string("_float32"));
    // Uninterrupted: 10 steps.
    std::vector<Tensor> straight = leaf_params(c["initial"]);
    auto opt = make_optimizer(name, straight);
    run_with_fixture_grads(*opt, straight, c["steps"], 0, 10);

    // Interrupted after 4 steps: save, rebuild everything, load, finish.
    std::vector<Tensor> first = leaf_params(c["initial"]);
    auto opt1 = make_optimizer(name, first);
    run_with_fixture_grads(*opt1, first, c["steps"], 0, 4);
    const std::string path = temp_path(name + ".safetensors");
    opt1->save(path);
    std::vector<Tensor> resumed;
    for (const auto& p : first) resumed.push_back(p.detach().clone().requires_grad_());
    auto opt2 = make_optimizer(name, resumed);
    opt2->load(path);
    run_with_fixture_grads(*opt2, resumed, c["steps"], 4, 10);
    for (size_t i = 0; i < straight.size(); ++i) EXPECT_TENSOR_CLOSE(resumed[i], straight[i], 0, 0);
  }
}

TEST(Optim, LoadRestoresGroupOptions) {
  Tensor w = ones({2}, requires_grad());
  optim::AdamW opt({w}, optim::AdamWOptions(0.1).betas({0.8, 0.9}).weight_decay(0.3).amsgrad(true));
  std::vector<std::pair<std::string, Tensor>> tensors;
  std::map<std::string, std::string> metadata;
  opt.save_state(tensors, metadata, "optim.");
  EXPECT_EQ(metadata.at("optim.type"), "AdamW");
  EXPECT_EQ(json::parse(metadata.at("optim.param_groups")),
            json::parse(R"([{"lr":0.1,"betas":[0.8,0.9],"eps":1e-08,"weight_decay":0.3,"amsgrad":true,)"
                        R"("maximize":false,"params":[0]}])"));
  SafetensorsFile file{"in memory", tensors, metadata};
  Tensor v = ones({2}, requires_grad());
  optim::AdamW other({v});
  other.load_state(file, "optim.");
  const auto& o = static_cast<const optim::AdamWOptions&>(other.param_groups()[0].options());
  EXPECT_EQ(o.lr(), 0.1);
  EXPECT_EQ(std::get<0>(o.betas()), 0.8);
  EXPECT_EQ(o.weight_decay(), 0.3);
  EXPECT_TRUE(o.amsgrad());
}

TEST(Optim, BadStateIsRejectedAndLeavesTheOptimizerUnchanged) {
  Tensor w = ones({2, 3}, requires_grad());
  optim::Adam saved({w}, optim::AdamOptions(0.5));
  (w * w).sum().backward();
  saved.step();
  std::vector<std::pair<std::string, Tensor>> tensors;
  std::map<std::string, std::string> meta;
  saved.save_state(tensors, meta);

  Tensor v = ones({2, 3}, requires_grad());
  optim::Adam target({v}, optim::AdamOptions(0.01));
  auto load = [&](NamedTensors t, std::map<std::string, std::string> m) {
    target.load_state(SafetensorsFile{"ckpt.safetensors", std::move(t), std::move(m)});
  };
  auto with_meta = [&](const std::string& k, const std::string& val) {
    auto m = meta;
    m[k] = val;
    return m;
  };
  NamedTensors wrong_shape = tensors;
  wrong_shape[0].second = zeros({3, 2});
  EXPECT_THROWS_WITH(load(wrong_shape, meta),
                     "state tensor 'state.0.exp_avg' is float32 [3, 2] but parameter 0 is "
                     "float32 [2, 3]");
  NamedTensors wrong_dtype = tensors;
  wrong_dtype[1].second = zeros({2, 3}, dtype(kFloat64));
  EXPECT_THROWS_WITH(load(wrong_dtype, meta), "'state.0.exp_avg_sq' is float64 [2, 3]");
  NamedTensors missing(tensors.begin(), tensors.begin() + 1);
  EXPECT_THROWS_WITH(load(missing, meta), "lacks exp_avg or exp_avg_sq");
  NamedTensors unexpected = tensors;
  unexpected.emplace_back("state.0.momentum_buffer", zeros({2, 3}));
  EXPECT_THROWS_WITH(load(unexpected, meta), "unexpected state tensor 'state.0.momentum_buffer'");
  NamedTensors out_of_range = tensors;
  out_of_range.emplace_back("state.7.exp_avg", zeros({2, 3}));
  EXPECT_THROWS_WITH(load(out_of_range, meta), "refers to parameter 7, but this optimizer has 1");
  EXPECT_THROWS_WITH(load(tensors, with_meta("type", "SGD")), "the state was saved by SGD, not Adam");
  EXPECT_THROWS_WITH(load(tensors, with_meta("state.0.step", "ten")), "should be an integer, got 'ten'");
  EXPECT_THROWS_WITH(load(tensors, with_meta("param_groups", "[]")), "the checkpoint has 0 parameter groups");
  EXPECT_THROWS_WITH(load(tensors, with_meta("param_groups", R"([{"lr":1,"params":[0]}])")),
                     "parameter group 0: the saved options have no 'betas'");
  EXPECT_THROWS_WITH(load(tensors, {}), "the metadata has no 'type'");

  EXPECT_TRUE(target.state().empty());
  EXPECT_EQ(target.param_groups()[0].options().get_lr(), 0.01);
  load(tensors, meta);  // the good one still loads
  EXPECT_EQ(target.state().size(), 1u);
  EXPECT_EQ(target.param_groups()[0].options().get_lr(), 0.5);
}

// Options and counters read from a checkpoint are checked as the constructors check theirs (a
// negative learning rate, a beta of 1, a negative step used to be taken as they were), and every
// option must be a finite number, from a checkpoint or from the caller.
TEST(Optim, LoadedOptionsAreCheckedLikeTheConstructorsChecks) {
  Tensor w = ones({2}, requires_grad());
  optim::Adam saved({w}, optim::AdamOptions(0.5));
  (w * w).sum().backward();
  saved.step();
  std::vector<std::pair<std::string, Tensor>> tensors;
  std::map<std::string, std::string> meta;
  saved.save_state(tensors, meta);
  Tensor v = ones({2}, requires_grad());
  optim::Adam target({v}, optim::AdamOptions(0.01));
  auto load_with = [&](const std::string& key, const std::string& value) {
    auto m = meta;
    m[key] = value;
    target.load_state(SafetensorsFile{"ckpt.safetensors", tensors, std::move(m)});
  };
  auto group_with = [&](const char* option, const json& value) {
    json groups = json::parse(meta.at("param_groups"));
    groups[0][option] = value;
    return groups.dump();
  };
  EXPECT_THROWS_WITH(load_with("param_groups", group_with("lr", -1)),
                     "Adam load_state: ckpt.safetensors: parameter group 0: invalid learning rate -1 (must be >= 0)");
  EXPECT_THROWS_WITH(load_with("param_groups", group_with("lr", "fast")), "the saved option 'lr' has the wrong type");
  EXPECT_THROWS_WITH(load_with("param_groups", group_with("eps", -1e-8)), "invalid epsilon value -1e-08");
  EXPECT_THROWS_WITH(load_with("param_groups", group_with("weight_decay", -0.5)), "invalid weight_decay value -0.5");
  EXPECT_THROWS_WITH(load_with("param_groups", group_with("betas", json::array({0.9, 1.0}))),
                     "invalid beta parameter at index 1: 1 (must be in [0, 1))");
  EXPECT_THROWS_WITH(load_with("param_groups", group_with("betas", json::array({-0.1, 0.9}))),
                     "invalid beta parameter at index 0: -0.1");
  EXPECT_THROWS_WITH(load_with("state.0.step", "-3"),
                     "state entry 'state.0.step' is a count and should be >= 0, got -3");
  EXPECT_EQ(target.param_groups()[0].options().get_lr(), 0.01);  // unchanged by the failed loads
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_THROWS_WITH(optim::AdamW({v}, optim::AdamWOptions(inf)), "parameter group 0: invalid lr value inf");
  EXPECT_THROWS_WITH(optim::SGD({v}, optim::SGDOptions(0.1).momentum(std::nan(""))),
                     "invalid momentum value (NaN or infinite)");
}

// ---- schedulers ----

TEST(LRScheduler, MatchPyTorch) {
  const json fx = test::load_fixture("optim/schedulers.json");
  using Make = std::function<std::unique_ptr<optim::LRScheduler>(Optimizer&)>;
  const std::vector<std::pair<std::string, Make>> cases = {
      {"step_lr", [](Optimizer& o) { return std::make_unique<optim::StepLR>(o, 3, 0.5); }},
      {"step_lr_gamma_0.1", [](Optimizer& o) { return std::make_unique<optim::StepLR>(o, 2); }},
      {"lambda_lr_one",
       [](Optimizer& o) { return std::make_unique<optim::LambdaLR>(o, [](int64_t e) { return std::pow(0.95, e); }); }},
      {"lambda_lr_per_group",
       [](Optimizer& o) {
         std::vector<optim::LambdaLR::LrLambda> f = {
             [](int64_t e) { return 1.0 / static_cast<double>(e + 1); },
             [](int64_t e) { return std::min(1.0, static_cast<double>(e + 1) / 4); }};
         return std::make_unique<optim::LambdaLR>(o, f);
       }},
  };
  for (const auto& [name, make] : cases) {
    SCOPED_TRACE(name);
    Tensor w = zeros({2}, requires_grad()), b = zeros({1}, requires_grad());
    std::vector<optim::OptimizerParamGroup> groups;
    groups.emplace_back(std::vector<Tensor>{w});
    groups.emplace_back(std::vector<Tensor>{b}, std::make_unique<optim::SGDOptions>(0.01));
    optim::SGD opt(std::move(groups), optim::SGDOptions(0.1));
    auto sched = make(opt);
    const json& expected = fx.at(name);
    for (int e = 0; e <= 10; ++e) {
      if (e > 0) sched->step();
      EXPECT_EQ(sched->last_epoch(), e);
      const auto& lrs = sched->get_last_lr();
      ASSERT_EQ(lrs.size(), 2u);
      for (size_t g = 0; g < 2; ++g) {
        EXPECT_EQ(lrs[g], expected[e][g].get<double>()) << "epoch " << e << ", group " << g;  // exact
        EXPECT_EQ(opt.param_groups()[g].options().get_lr(), lrs[g]);
      }
    }
  }
}

TEST(LRScheduler, NanoGPTCosineWithWarmup) {
  // Hand-computed: lr 1, min_lr 0.1, warmup 10, decay until 110.
  EXPECT_DOUBLE_EQ(optim::nanogpt_lr(0, 1.0, 0.1, 10, 110), 1.0 / 11);  // (it + 1) / (warmup + 1)
  EXPECT_DOUBLE_EQ(optim::nanogpt_lr(9, 1.0, 0.1, 10, 110), 10.0 / 11);
  EXPECT_DOUBLE_EQ(optim::nanogpt_lr(10, 1.0, 0.1, 10, 110), 1.0);   // cos(0) = 1
  EXPECT_DOUBLE_EQ(optim::nanogpt_lr(60, 1.0, 0.1, 10, 110), 0.55);  // halfway: 0.1 + 0.5 * 0.9
  EXPECT_DOUBLE_EQ(optim::nanogpt_lr(35, 1.0, 0.1, 10, 110), 0.1 + 0.9 * 0.5 * (1 + std::sqrt(0.5)));  // a quarter
  EXPECT_NEAR(optim::nanogpt_lr(110, 1.0, 0.1, 10, 110), 0.1, 1e-15);                                  // cos(pi) = -1
  EXPECT_EQ(optim::nanogpt_lr(111, 1.0, 0.1, 10, 110), 0.1);
  EXPECT_EQ(optim::nanogpt_lr(5000, 1.0, 0.1, 10, 110), 0.1);
  EXPECT_THROWS_WITH(optim::nanogpt_lr(0, 1.0, 0.1, 10, 5), "need 0 <= warmup_iters <= lr_decay_iters");

  Tensor w = zeros({1}, requires_grad());
  optim::AdamW opt({w}, optim::AdamWOptions(6e-4));
  optim::CosineWarmupLR sched(opt, 100, 2000, 6e-5);
  for (int it = 0; it < 2100; ++it) {
    EXPECT_EQ(opt.param_groups()[0].options().get_lr(), optim::nanogpt_lr(it, 6e-4, 6e-5, 100, 2000));
    sched.step();
  }
}

// ---- gradient clipping ----

TEST(ClipGrad, NormMatchesPyTorch) {
  const json fx = test::load_fixture("optim/clip_grad.json");
  for (const auto& c : fx["cases"]) {
    SCOPED_TRACE(c.dump().substr(0, 60));
    std::vector<Tensor> params;
    for (const auto& g : fx["grads"]) {
      Tensor grad = test::tensor_from_json(g);
      Tensor p = zeros(grad.sizes(), requires_grad());
      p.set_grad(grad);
      params.push_back(p);
    }
    params.push_back(zeros({4}, requires_grad()));  // no gradient: skipped
    const double norm_type = test::value_from_json(c["norm_type"]);
    const double total = nn::utils::clip_grad_norm_(params, c["max_norm"].get<double>(), norm_type);
    EXPECT_NEAR(total, c["total_norm"].get<double>(), 1e-6 * c["total_norm"].get<double>());
    for (size_t i = 0; i < fx["grads"].size(); ++i)
      EXPECT_TENSOR_CLOSE(params[i].grad(), test::tensor_from_json(c["clipped"][i]), 1e-6, 1e-7);
  }
}

TEST(ClipGrad, OnePassFloatPathAgreesWithTheOps) {
  // Float32 gradients take one parallel pass to measure and one to scale; float64 ones the ops.
  // Many gradients, some larger than a thread's share, so the pieces split across threads.
  manual_seed(21);
  std::vector<Tensor> p32, p64;
  for (int64_t n : {3, 100'000, 17, 70'000, 1, 5'000}) {
    Tensor g = randn({n}) * 0.01;
    p32.push_back(zeros({n}, requires_grad()));
    p32.back().set_grad(g.clone());
    p64.push_back(zeros({n}, dtype(kFloat64).requires_grad(true)));
    p64.back().set_grad(g.to(kFloat64));
  }
  for (double max_norm : {0.5, 1e6}) {  // clipped, and left as is (coefficient clamped to 1)
    for (size_t i = 0; i < p32.size(); ++i) p32[i].set_grad(p64[i].grad().to(kFloat32));
    std::vector<Tensor> before;
    for (auto& p : p32) before.push_back(p.grad().clone());
    const double t32 = nn::utils::clip_grad_norm_(p32, max_norm);
    std::vector<Tensor> ref;
    for (auto& p : p64) ref.push_back(p.grad().clone());
    double t64 = 0;
    {
      std::vector<Tensor> q64;
      for (auto& g : ref) {
        q64.push_back(zeros(g.sizes(), dtype(kFloat64).requires_grad(true)));
        q64.back().set_grad(g);
      }
      t64 = nn::utils::clip_grad_norm_(q64, max_norm);
    }
    EXPECT_NEAR(t32, t64, 1e-6 * t64);
    for (size_t i = 0; i < p32.size(); ++i) {
      EXPECT_TENSOR_CLOSE(p32[i].grad().to(kFloat64), ref[i], 1e-6, 1e-9);
      if (max_norm > 1e5) EXPECT_TRUE(p32[i].grad().equal(before[i]));  // times exactly 1
    }
  }
  // a NaN gradient: an error when asked for, else every gradient becomes NaN (PyTorch's behaviour)
  Tensor bad = zeros({2}, requires_grad()), other = zeros({2}, requires_grad());
  bad.set_grad(tensor({1.0f, std::numeric_limits<float>::quiet_NaN()}));
  other.set_grad(tensor({1.0f, 2.0f}));
  EXPECT_THROWS_WITH(nn::utils::clip_grad_norm_({bad, other}, 1.0, 2.0, true), "is non-finite (nan)");
  EXPECT_TRUE(std::isnan(nn::utils::clip_grad_norm_({bad, other}, 1.0)));
  EXPECT_TRUE(other.grad().ne(other.grad()).all().item<bool>());
}

TEST(ClipGrad, ValueAndEdgeCases) {
  const json fx = test::load_fixture("optim/clip_grad.json");
  std::vector<Tensor> params;
  for (const auto& g : fx["grads"]) {
    Tensor p = zeros(test::tensor_from_json(g).sizes(), requires_grad());
    p.set_grad(test::tensor_from_json(g));
    params.push_back(p);
  }
  nn::utils::clip_grad_value_(params, 0.5);
  for (size_t i = 0; i < params.size(); ++i)
    EXPECT_TENSOR_CLOSE(params[i].grad(), test::tensor_from_json(fx["value_0.5"][i]), 0, 0);

  Tensor none = zeros({3}, requires_grad());
  EXPECT_EQ(nn::utils::clip_grad_norm_(none, 1.0), 0.0);
  Tensor bad = zeros({2}, requires_grad());
  bad.set_grad(tensor({1.0, std::numeric_limits<double>::infinity()}));
  EXPECT_THROWS_WITH(nn::utils::clip_grad_norm_(bad, 1.0, 2.0, true), "is non-finite");
  Tensor single = zeros({2}, requires_grad());
  single.set_grad(tensor({3.0, 4.0}));
  EXPECT_DOUBLE_EQ(nn::utils::clip_grad_norm_(single, 1.0), 5.0);
  EXPECT_TENSOR_CLOSE(single.grad(), tensor({0.6, 0.8}), 1e-6, 0);
}

}  // namespace
}  // namespace ember
