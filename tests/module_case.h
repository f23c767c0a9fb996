// Checking an nn module against a PyTorch module case from tests/fixtures/attention/*.json (written by
// scripts/gen_attention_fixtures.py): parameters by name and registration order, forward output,
// and the gradients of (output * weight).sum() for the inputs and every parameter.
//
//   auto c = ember::test::load_fixture("attention/attention.json")["mha"];
//   nn::MultiHeadAttention mha(3, 2, 6, 0.0, 2);
//   ember::test::load_case_parameters(*mha, c);                       // weights from the fixture
//   ember::test::check_case(*mha, c, [&](const tensor_list& in) { return mha(in[0]); });
#pragma once

#include <functional>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "fixture_json.h"
#include "test_util.h"

namespace ember::test {

// (name, parameter) in registration order, a tensor shared under two names (weight tying) listed once,
// as PyTorch's named_parameters() does.
inline std::vector<std::pair<std::string, Tensor>> unique_named_parameters(const nn::Module& m) {
  std::vector<std::pair<std::string, Tensor>> out;
  std::unordered_set<const TensorImpl*> seen;
  for (const auto& [name, p] : m.named_parameters()) {
    if (seen.insert(p.unsafeGetTensorImpl()).second) out.emplace_back(name, p);
  }
  return out;
}

// The module's parameter names, in order, equal the PyTorch module's.
inline void expect_parameter_names(const nn::Module& m, const nlohmann::json& c) {
  std::vector<std::string> names;
  for (const auto& [name, p] : unique_named_parameters(m)) names.push_back(name);
  EXPECT_EQ(names, c.at("param_names").get<std::vector<std::string>>());
}

// Copies the fixture's parameters into the module (so a test does not depend on the RNG).
inline void load_case_parameters(nn::Module& m, const nlohmann::json& c) {
  NoGradGuard no_grad;
  for (auto& [name, p] : unique_named_parameters(m)) {
    ASSERT_TRUE(c.at("params").contains(name)) << "fixture has no parameter " << name;
    p.copy_(tensor_from_json(c["params"][name]));
  }
}

// The module's parameters equal the fixture's (for modules built after manual_seed(c["seed"])).
inline void expect_parameters_equal(const nn::Module& m, const nlohmann::json& c, double atol = 1e-7) {
  for (const auto& [name, p] : unique_named_parameters(m)) {
    ASSERT_TRUE(c.at("params").contains(name)) << "fixture has no parameter " << name;
    EXPECT_TENSOR_CLOSE(p, tensor_from_json(c["params"][name]), 0.0, atol) << name;
  }
}

// Runs forward on the fixture's inputs (floating ones require grad), compares the output, then
// backpropagates (output * weight).sum() and compares the input and parameter gradients.
inline void check_case(nn::Module& m, const nlohmann::json& c, const std::function<Tensor(const tensor_list&)>& forward,
                       double rtol = 1e-4, double atol = 1e-5) {
  tensor_list inputs = tensors_from_json(c.at("inputs"));
  for (Tensor& t : inputs) {
    if (t.is_floating_point()) t.requires_grad_();
  }
  Tensor out = forward(inputs);
  EXPECT_TENSOR_CLOSE(out, tensor_from_json(c.at("output")), rtol, atol) << "forward output";
  (out * tensor_from_json(c.at("weight"))).sum().backward();
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (c["input_grads"][i].is_null()) continue;
    EXPECT_TENSOR_CLOSE(inputs[i].grad(), tensor_from_json(c["input_grads"][i]), rtol, atol) << "input " << i;
  }
  for (const auto& [name, p] : unique_named_parameters(m)) {
    if (!c.at("param_grads").contains(name)) continue;
    EXPECT_TENSOR_CLOSE(p.grad(), tensor_from_json(c["param_grads"][name]), rtol, atol) << "grad of " << name;
  }
}

}  // namespace ember::test
