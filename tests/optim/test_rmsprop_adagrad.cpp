// RMSprop and Adagrad against PyTorch 1.13 (scripts/gen_activation_loss_fixtures.py,
// tests/fixtures/optim/rmsprop_adagrad.json): 10 steps of gen_optim_fixtures.py's two-layer linear
// regression. Fed PyTorch's gradients, the CPU kernels must give PyTorch's parameters bit for bit and
// the composed tensor-op updates (strided parameters) agree to rounding; with Ember's own gradients, the trajectories
// must agree to float rounding. Also checkpoints (save, load, resume) and bad options.
#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "fixture_json.h"
#include "test_util.h"

namespace ember {
namespace {

using nlohmann::json;
using optim::Optimizer;

const json& fixture() {
  static const json j = test::load_fixture("optim/rmsprop_adagrad.json");
  return j;
}

// Built as the script builds each case. params = {w1, b1, w2, b2}.
std::unique_ptr<Optimizer> make_optimizer(const std::string& name, const std::vector<Tensor>& params) {
  using namespace optim;
  if (name == "rmsprop") return std::make_unique<RMSprop>(params, RMSpropOptions(0.01));
  if (name == "rmsprop_alpha_wd")
    return std::make_unique<RMSprop>(params, RMSpropOptions(0.005).alpha(0.9).eps(1e-6).weight_decay(0.1));
  if (name == "rmsprop_momentum") return std::make_unique<RMSprop>(params, RMSpropOptions(0.01).momentum(0.9));
  if (name == "rmsprop_centered")
    return std::make_unique<RMSprop>(params, RMSpropOptions(0.01).centered(true).weight_decay(0.05));
  if (name == "rmsprop_centered_momentum_maximize")
    return std::make_unique<RMSprop>(params, RMSpropOptions(0.002).momentum(0.5).centered(true).maximize(true));
  if (name == "adagrad") return std::make_unique<Adagrad>(params, AdagradOptions(0.1));
  if (name == "adagrad_decay")
    return std::make_unique<Adagrad>(
        params, AdagradOptions(0.2).lr_decay(0.05).weight_decay(0.1).initial_accumulator_value(0.5));
  if (name == "adagrad_eps_maximize")
    return std::make_unique<Adagrad>(params, AdagradOptions(0.05).eps(1e-3).maximize(true));
  EMBER_CHECK(name == "adagrad_groups", "unknown optimizer case {}", name);
  auto defaults = AdagradOptions(0.1);
  std::vector<OptimizerParamGroup> groups;
  groups.emplace_back(std::vector<Tensor>{params[0], params[2]},
                      std::make_unique<AdagradOptions>(AdagradOptions(defaults).lr_decay(0.1)));
  groups.emplace_back(
      std::vector<Tensor>{params[1], params[3]},
      std::make_unique<AdagradOptions>(AdagradOptions(defaults).lr(0.3).initial_accumulator_value(1.0)));
  return std::make_unique<Adagrad>(std::move(groups), defaults);
}

const std::vector<std::string> kCases = {
    "rmsprop", "rmsprop_alpha_wd", "rmsprop_momentum",     "rmsprop_centered", "rmsprop_centered_momentum_maximize",
    "adagrad", "adagrad_decay",    "adagrad_eps_maximize", "adagrad_groups"};

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

void run_with_fixture_grads(Optimizer& opt, std::vector<Tensor>& params, const json& steps, int from, int to) {
  for (int s = from; s < to; ++s) {
    opt.zero_grad();
    for (size_t i = 0; i < params.size(); ++i) params[i].set_grad(test::tensor_from_json(steps[s]["grads"][i]));
    opt.step();
  }
}

TEST(RmspropAdagrad, EveryCaseHasAFixture) {
  for (const std::string& name : kCases)
    for (const char* dt : {"_float32", "_float64"}) EXPECT_TRUE(fixture().contains(name + dt)) << name << dt;
  EXPECT_EQ(fixture().size(), 2 * kCases.size());
}

TEST(RmspropAdagrad, UpdatesMatchPyTorchBitForBit) {
  for (const std::string& name : kCases) {
    for (const std::string dt : {"float32", "float64"}) {
      SCOPED_TRACE(name + "_" + dt);
      const json& c = fixture().at(name + "_" + dt);
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

// Strided parameters take the composed tensor-op path (the one other devices use): PyTorch's fused
// multiply-adds are two roundings there, so it agrees to float rounding rather than bit for bit.
TEST(RmspropAdagrad, ComposedUpdatesMatchPyTorch) {
  for (const std::string& name : kCases) {
    for (const std::string dt : {"float32", "float64"}) {
      SCOPED_TRACE(name + "_" + dt);
      const json& c = fixture().at(name + "_" + dt);
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

TEST(RmspropAdagrad, TrainingTrajectoriesMatchPyTorch) {
  for (const std::string& name : kCases) {
    for (const std::string dt : {"float32", "float64"}) {
      SCOPED_TRACE(name + "_" + dt);
      const json& c = fixture().at(name + "_" + dt);
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

TEST(RmspropAdagrad, SaveLoadResumesBitForBit) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("ember_rmsprop_adagrad_" + std::to_string(getpid()) + ".safetensors"))
          .string();
  for (const char* name : {"rmsprop_centered_momentum_maximize", "adagrad_groups"}) {
    SCOPED_TRACE(name);
    const json& c = fixture().at(name + std::string("_float32"));
    std::vector<Tensor> resumed = leaf_params(c["initial"]);
    auto first = make_optimizer(name, resumed);
    run_with_fixture_grads(*first, resumed, c["steps"], 0, 4);
    first->save(path);
    auto second = make_optimizer(name, resumed);
    second->load(path);
    run_with_fixture_grads(*second, resumed, c["steps"], 4, 10);
    for (size_t i = 0; i < resumed.size(); ++i)
      EXPECT_TENSOR_CLOSE(resumed[i], test::tensor_from_json(c["steps"][9]["params"][i]), 0, 0) << i;
  }
  std::filesystem::remove(path);
}

TEST(RmspropAdagrad, OptionsRoundTripThroughJson) {
  optim::RMSpropOptions r(0.5);
  r.alpha(0.8).eps(1e-3).weight_decay(0.2).momentum(0.7).centered(true).maximize(true);
  optim::RMSpropOptions r2;
  r2.from_json(r.to_json());
  EXPECT_EQ(r2.to_json(), r.to_json());
  EXPECT_EQ(r2.alpha(), 0.8);
  EXPECT_TRUE(r2.centered());
  optim::AdagradOptions a(0.3);
  a.lr_decay(0.1).weight_decay(0.2).initial_accumulator_value(0.4).eps(1e-5).maximize(true);
  optim::AdagradOptions a2;
  a2.from_json(a.to_json());
  EXPECT_EQ(a2.to_json(), a.to_json());
  EXPECT_EQ(a2.initial_accumulator_value(), 0.4);
  EXPECT_THROWS_WITH(a2.from_json("{\"lr\": 0.1}"), "the saved options have no 'lr_decay'");
}

TEST(RmspropAdagrad, BadOptionsAreRejected) {
  std::vector<Tensor> params{ones({2}, requires_grad())};
  using namespace optim;
  EXPECT_THROWS_WITH(RMSprop(params, RMSpropOptions(-0.1)), "RMSprop: invalid learning rate -0.1 (group 0)");
  EXPECT_THROWS_WITH(RMSprop(params, RMSpropOptions().alpha(-1)), "RMSprop: invalid alpha value -1");
  EXPECT_THROWS_WITH(RMSprop(params, RMSpropOptions().eps(-1)), "RMSprop: invalid epsilon value -1");
  EXPECT_THROWS_WITH(RMSprop(params, RMSpropOptions().momentum(-0.5)), "RMSprop: invalid momentum value -0.5");
  EXPECT_THROWS_WITH(RMSprop(params, RMSpropOptions().weight_decay(-1)), "RMSprop: invalid weight_decay value -1");
  EXPECT_THROWS_WITH(Adagrad(params, AdagradOptions(-1)), "Adagrad: invalid learning rate -1 (group 0)");
  EXPECT_THROWS_WITH(Adagrad(params, AdagradOptions().lr_decay(-1)), "Adagrad: invalid lr_decay value -1");
  EXPECT_THROWS_WITH(Adagrad(params, AdagradOptions().initial_accumulator_value(-1)),
                     "Adagrad: invalid initial_accumulator_value value -1");
  EXPECT_THROWS_WITH(Adagrad(params, AdagradOptions().eps(-1)), "Adagrad: invalid epsilon value -1");
  // A group of another optimizer's options, and state that does not fit the options.
  std::vector<OptimizerParamGroup> groups;
  groups.emplace_back(params, std::make_unique<SGDOptions>(0.1));
  EXPECT_THROWS_WITH(RMSprop(groups, RMSpropOptions()), "RMSprop: a parameter group has options of another optimizer");
  RMSprop plain(params, RMSpropOptions());
  params[0].set_grad(ones({2}));
  plain.step();
  static_cast<RMSpropOptions&>(plain.param_groups()[0].options()).centered(true);
  EXPECT_THROWS_WITH(plain.step(), "RMSprop: centered was switched on after steps without it");
}

}  // namespace
}  // namespace ember
