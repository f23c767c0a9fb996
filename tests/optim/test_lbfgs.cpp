// L-BFGS against PyTorch 1.13 (scripts/gen_lbfgs_fixtures.py): float64 trajectories on the
// Rosenbrock function and a two-parameter least-squares fit, with a fixed step and with the
// strong-Wolfe line search; after every step() the returned loss, the parameters and the state
// (func_evals, n_iter, t, prev_loss, H_diag, history length, d) must match. Then checkpoints and
// bad input.
#include <unistd.h>

#include <filesystem>
#include <set>

#include <gtest/gtest.h>

#include "fixture_json.h"
#include "test_util.h"

namespace ember {
namespace {

using nlohmann::json;

const json& lbfgs_fixture() {
  static const json j = test::load_fixture("optim/lbfgs.json");
  return j;
}

optim::LBFGSOptions options_from(const json& j) {
  optim::LBFGSOptions o(j.value("lr", 1.0));
  if (j.contains("max_iter")) o.max_iter(j["max_iter"].get<int64_t>());
  if (j.contains("max_eval")) o.max_eval(j["max_eval"].get<int64_t>());
  if (j.contains("history_size")) o.history_size(j["history_size"].get<int64_t>());
  if (j.contains("line_search_fn")) o.line_search_fn(j["line_search_fn"].get<std::string>());
  return o;
}

// A case's parameters and its loss, as the script builds them.
struct Problem {
  std::vector<Tensor> params;
  std::function<Tensor()> loss;
};

Problem make_problem(const json& c) {
  Problem p;
  for (const auto& t : c["initial"]) p.params.push_back(test::tensor_from_json(t).requires_grad_());
  auto ps = p.params;
  if (c["problem"] == "rosenbrock") {
    // (1 - x)^2 + 100 (y - x^2)^2
    p.loss = [ps] {
      Tensor x = ps[0][0], y = ps[0][1];
      return (1 - x).pow(2) + 100 * (y - x * x).pow(2);
    };
  } else {
    // mean((x @ w + b - y)^2)
    Tensor x = test::tensor_from_json(c["x"]), y = test::tensor_from_json(c["y"]);
    p.loss = [ps, x, y] { return (x.matmul(ps[0]) + ps[1] - y).pow(2).mean(); };
  }
  return p;
}

// kRtol: 1e-9, except where a trajectory amplifies rounding (see kLooseCases).
void expect_step_matches(const optim::LBFGS& opt, const Problem& p, const Tensor& loss, const json& s,
                         double kRtol = 1e-9) {
  EXPECT_NEAR(loss.item<double>(), s["loss"].get<double>(), kRtol * std::abs(s["loss"].get<double>()) + 1e-14);
  for (size_t i = 0; i < p.params.size(); ++i)
    EXPECT_TENSOR_CLOSE(p.params[i], test::tensor_from_json(s["params"][i]), kRtol, 1e-12) << "parameter " << i;
  const auto& st = static_cast<const optim::LBFGSParamState&>(*opt.state().at(p.params[0].unsafeGetTensorImpl()));
  EXPECT_EQ(st.func_evals(), s["func_evals"].get<int64_t>());
  EXPECT_EQ(st.n_iter(), s["n_iter"].get<int64_t>());
  EXPECT_NEAR(st.t(), s["t"].get<double>(), kRtol * std::abs(s["t"].get<double>()));
  EXPECT_NEAR(st.prev_loss(), s["prev_loss"].get<double>(), kRtol * std::abs(s["prev_loss"].get<double>()) + 1e-14);
  EXPECT_NEAR(st.H_diag().item<double>(), s["H_diag"].get<double>(), kRtol * std::abs(s["H_diag"].get<double>()));
  EXPECT_EQ(static_cast<int64_t>(st.old_dirs().size()), s["history"].get<int64_t>());
  EXPECT_TENSOR_CLOSE(st.d(), test::tensor_from_json(s["d"]), kRtol * 10, 1e-10);
}

// Rosenbrock's narrow valley with a 3-step history: after 30 evaluations, differences in the last
// bit (autograd's pow backward multiplies in another order than PyTorch's) have grown to about 1e-7
// relative. The evaluation counts and history lengths, which follow every branch taken, still match.
const std::set<std::string> kLooseCases = {"rosenbrock_wolfe_short_history"};

TEST(LBFGS, TrajectoriesMatchPyTorch) {
  for (const auto& [name, c] : lbfgs_fixture().items()) {
    SCOPED_TRACE(name);
    Problem p = make_problem(c);
    optim::LBFGS opt(p.params, options_from(c["options"]));
    auto closure = [&] {
      opt.zero_grad();
      Tensor loss = p.loss();
      loss.backward();
      return loss;
    };
    for (size_t k = 0; k < c["steps"].size(); ++k) {
      SCOPED_TRACE("step " + std::to_string(k));
      Tensor loss = opt.step(closure);
      expect_step_matches(opt, p, loss, c["steps"][k], kLooseCases.count(name) ? 1e-6 : 1e-9);
    }
  }
}

TEST(LBFGS, MaxEvalDefaultsToFiveQuartersOfMaxIter) {
  Tensor w = ones({2}, requires_grad());
  optim::LBFGS opt({w}, optim::LBFGSOptions().max_iter(10));
  const auto& o = static_cast<const optim::LBFGSOptions&>(opt.param_groups()[0].options());
  EXPECT_EQ(o.max_eval().value(), 12);
  EXPECT_EQ(optim::LBFGS({ones({1}, requires_grad())}).defaults().get_lr(), 1.0);
}

TEST(LBFGS, StopsAtOnceWhenTheGradientIsBelowTolerance) {
  Tensor w = zeros({3}, dtype(kFloat64).requires_grad(true));
  optim::LBFGS opt({w});
  int calls = 0;
  Tensor loss = opt.step([&] {
    ++calls;
    opt.zero_grad();
    Tensor l = (w * w).sum();  // gradient 0 at w = 0
    l.backward();
    return l;
  });
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(loss.item<double>(), 0.0);
  EXPECT_TENSOR_CLOSE(w, zeros({3}, dtype(kFloat64)), 0, 0);
}

// Two steps, a checkpoint, a third step in a fresh optimizer: the same as three steps in one.
TEST(LBFGS, CheckpointResumesTheSameTrajectory) {
  const json& c = lbfgs_fixture().at("rosenbrock_wolfe_short_history");
  Problem p = make_problem(c);
  optim::LBFGS opt(p.params, options_from(c["options"]));
  auto closure_for = [&](optim::LBFGS& o) {
    return [&] {
      o.zero_grad();
      Tensor loss = p.loss();
      loss.backward();
      return loss;
    };
  };
  opt.step(closure_for(opt));
  opt.step(closure_for(opt));
  const std::string path =
      (std::filesystem::temp_directory_path() / fmt::format("ember_lbfgs_{}.safetensors", getpid())).string();
  opt.save(path);

  optim::LBFGS resumed(p.params, optim::LBFGSOptions());  // options come from the checkpoint
  resumed.load(path);
  std::filesystem::remove(path);
  const auto& o = static_cast<const optim::LBFGSOptions&>(resumed.param_groups()[0].options());
  EXPECT_EQ(o.history_size(), 3);
  EXPECT_EQ(o.line_search_fn().value_or(""), "strong_wolfe");
  const auto& st = static_cast<const optim::LBFGSParamState&>(*resumed.state().at(p.params[0].unsafeGetTensorImpl()));
  EXPECT_EQ(st.old_dirs().size(), 3u);
  EXPECT_EQ(st.func_evals(), 20);
  Tensor loss = resumed.step(closure_for(resumed));
  expect_step_matches(resumed, p, loss, c["steps"][2], 1e-6);
}

TEST(LBFGS, BadInputIsRejected) {
  Tensor a = ones({2}, requires_grad()), b = ones({2}, requires_grad());
  optim::LBFGS opt({a});
  EXPECT_THROWS_WITH(opt.step(nullptr), "requires a closure");
  EXPECT_THROWS_WITH(opt.step([] { return ones({2}); }), "one-element tensor");
  EXPECT_THROWS_WITH(optim::LBFGS({a}, optim::LBFGSOptions().line_search_fn("backtracking")),
                     "only 'strong_wolfe' is supported");
  EXPECT_THROWS_WITH(optim::LBFGS({a}, optim::LBFGSOptions().history_size(0)), "history_size");
  std::vector<optim::OptimizerParamGroup> groups;
  groups.emplace_back(std::vector<Tensor>{a});
  groups.emplace_back(std::vector<Tensor>{b});
  EXPECT_THROWS_WITH(optim::LBFGS(std::move(groups)), "parameter groups");
}

}  // namespace
}  // namespace ember
