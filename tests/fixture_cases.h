// The harness shared by the table-driven reference tests (test_conv, test_pooling_norm, test_activation_loss,
// test_nn_functional): each C++ table line is the twin of one `case(...)` of a scripts/gen_*_fixtures.py
// generator, and each fixture case is run the same way.
//
//   const nlohmann::json& c = ember::test::cached_fixture("nn/conv.json").at(GetParam());
//   ember::test::check_fixture_case(c, RequireGrad::kFloatingWithStoredGrad,
//                                   [&](const NamedInputs& in) { return cases().at(GetParam())(in); });
//
// Plus the module-over-training-steps runner and the float64 gradcheck table runner those files share.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "fixture_json.h"
#include "test_util.h"

namespace ember::test {

using NamedInputs = std::map<std::string, Tensor>;

// A fixture file parsed once per test binary (the returned reference stays valid).
inline const nlohmann::json& cached_fixture(const std::string& file) {
  static std::map<std::string, nlohmann::json> parsed;
  auto it = parsed.find(file);
  if (it == parsed.end()) it = parsed.emplace(file, load_fixture(file)).first;
  return it->second;
}

// The case names of a fixture file (its top-level keys), or of a C++ table, in sorted order.
inline std::vector<std::string> case_names(const nlohmann::json& fixture) {
  std::vector<std::string> names;
  for (const auto& [name, value] : fixture.items()) names.push_back(name);
  return names;
}

template <typename Fn>
std::vector<std::string> case_names(const std::map<std::string, Fn>& table) {
  std::vector<std::string> names;
  for (const auto& [name, fn] : table) names.push_back(name);
  return names;
}

// Which floating inputs of a case require grad: only those the fixture stores a gradient for, or all
// of them (targets too, so the case also runs with a graph through every floating input).
enum class RequireGrad { kFloatingWithStoredGrad, kEveryFloating };

// Reads a case's inputs by name and marks the floating ones that need grad.
inline NamedInputs fixture_inputs(const nlohmann::json& c, RequireGrad which) {
  NamedInputs in;
  for (const auto& [name, value] : c.at("inputs").items()) {
    Tensor t = tensor_from_json(value);
    bool stored = c.contains("grads") && c.at("grads").contains(name);
    if (t.is_floating_point() && (which == RequireGrad::kEveryFloating || stored)) t.requires_grad_();
    in[name] = t;
  }
  return in;
}

// Runs one fixture case: seeds the generator when the case has a seed, calls `forward` on the inputs,
// compares the output (1e-12 in float64, 1e-5 otherwise), then backpropagates (out * weight).sum()
// with the fixture's weight and compares every stored gradient.
inline void check_fixture_case(const nlohmann::json& c, RequireGrad which,
                               const std::function<Tensor(const NamedInputs&)>& forward) {
  NamedInputs in = fixture_inputs(c, which);
  if (c.contains("seed")) manual_seed(c.at("seed").get<uint64_t>());
  Tensor out = forward(in);
  Tensor expected = tensor_from_json(c.at("output"));
  EXPECT_EQ(out.dtype(), expected.dtype());
  const double tol = out.dtype() == kFloat64 ? 1e-12 : 1e-5;
  EXPECT_TENSOR_CLOSE(out, expected, tol, tol);
  if (!c.contains("weight")) return;
  (out * tensor_from_json(c.at("weight"))).sum().backward();
  for (const auto& [name, grad] : c.at("grads").items()) {
    SCOPED_TRACE("gradient of " + name);
    ASSERT_TRUE(in.at(name).grad().defined());
    EXPECT_TENSOR_CLOSE(in.at(name).grad(), tensor_from_json(grad), tol, tol);
  }
}

// ---- a module over training steps, then eval (gen_pooling_norm_fixtures.py's run_module) ----

// Runs the fixture's steps through `m` (parameters from the fixture): each step's output, the
// gradients of x and of every parameter, and every buffer afterwards (running statistics,
// num_batches_tracked) against PyTorch's.
inline void check_module_run(nn::Module& m, const std::function<Tensor(const Tensor&)>& forward,
                             const nlohmann::json& c) {
  {
    NoGradGuard no_grad;
    for (auto& [name, p] : m.named_parameters()) p.copy_(tensor_from_json(c.at("params").at(name)));
  }
  std::vector<const nlohmann::json*> steps;
  for (const auto& s : c.at("steps")) steps.push_back(&s);
  steps.push_back(&c.at("eval"));
  for (size_t i = 0; i < steps.size(); ++i) {
    const nlohmann::json& s = *steps[i];
    SCOPED_TRACE(i < 3 ? "training step " + std::to_string(i) : std::string("eval"));
    m.train(i < 3);
    m.zero_grad();
    Tensor x = tensor_from_json(s.at("x")).requires_grad_();
    Tensor out = forward(x);
    const double tol = out.dtype() == kFloat64 ? 1e-12 : 2e-5;
    EXPECT_TENSOR_CLOSE(out, tensor_from_json(s.at("output")), tol, tol);
    (out * tensor_from_json(s.at("weight"))).sum().backward();
    EXPECT_TENSOR_CLOSE(x.grad(), tensor_from_json(s.at("grads").at("x")), tol, tol);
    for (const auto& [name, p] : m.named_parameters()) {
      SCOPED_TRACE("gradient of " + name);
      EXPECT_TENSOR_CLOSE(p.grad(), tensor_from_json(s.at("grads").at(name)), tol, tol);
    }
    std::vector<std::string> buffer_names;
    for (const auto& [name, b] : m.named_buffers()) {
      SCOPED_TRACE("buffer " + name);
      buffer_names.push_back(name);
      Tensor expected = tensor_from_json(s.at("buffers").at(name));
      EXPECT_EQ(b.dtype(), expected.dtype());
      EXPECT_TENSOR_CLOSE(b, expected, tol, tol);
    }
    EXPECT_EQ(buffer_names.size(), s.at("buffers").size());
  }
}

// ---- gradient check: central differences in float64 ----

// Inputs in float64 with irregular values (sin of a ramp), scaled and shifted away from kinks.
inline Tensor wave64(IntArrayRef sizes, double phase = 0.0, double scale = 1.0, double shift = 0.0) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return (arange(n, dtype(kFloat64)) * 0.731 + 0.3 + phase).sin().mul(scale).add(shift).reshape(sizes);
}

struct GradCase {
  const char* name;
  std::function<Tensor(const tensor_list&)> f;
  tensor_list inputs;        // all require grad
  bool second_order = true;  // also gradgradcheck (double backward through the composition)
};

// gradcheck (and gradgradcheck where asked) on every line; an exception fails that line by name.
inline void check_grad_cases(const std::vector<GradCase>& table) {
  for (const GradCase& c : table) {
    tensor_list inputs = c.inputs;
    for (Tensor& t : inputs) t.requires_grad_();
    try {
      EXPECT_TRUE(autograd::gradcheck(c.f, inputs)) << c.name;
      if (c.second_order) EXPECT_TRUE(autograd::gradgradcheck(c.f, inputs)) << c.name;
    } catch (const Error& e) {
      ADD_FAILURE() << c.name << ": " << e.what();
    }
  }
}

}  // namespace ember::test
