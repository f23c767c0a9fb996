// Optimizer base (optim/optimizer.h): parameter groups, zero_grad, and checkpoints of the state.
//
// Checkpoint layout under a prefix p (PyTorch's optimizer.state_dict(), flattened for safetensors):
//   metadata  p+"type"            "AdamW"
//             p+"param_groups"    [{"lr": 0.001, "betas": [0.9, 0.999], ..., "params": [0, 1]}, ...]
//             p+"state.3.step"    "10"
//   tensors   p+"state.3.exp_avg" the state tensor of parameter 3 (numbered as parameters() does)
#include "optim/optimizer.h"

#include <charconv>
#include <cmath>
#include <set>

#include <nlohmann/json.hpp>

#include "autograd/grad_mode.h"
#include "autograd/node.h"
#include "nn/json_guard.h"
#include "nn/archive.h"
#include "nn/serialize.h"
#include "optim/detail.h"

namespace ember::optim {

using nlohmann::json;

namespace {

// Every number among `options` must be finite: an infinite learning rate trains to NaN without a
// word. to_json (PyTorch's param_groups spelling) writes a NaN or an infinity as null, which only
// options that PyTorch lets be None (LBFGS's max_eval and line_search_fn) may hold. Returns the
// options as JSON.
json check_finite_options(const OptimizerOptions& options, const std::string& where) {
  static const std::set<std::string> kMayBeNone = {"max_eval", "line_search_fn"};
  json j = json::parse(options.to_json());
  for (const auto& [key, value] : j.items()) {
    const json values = value.is_array() ? value : json::array({value});
    for (const json& v : values) {
      const bool finite = v.is_number() ? std::isfinite(v.get<double>()) : !v.is_null() || kMayBeNone.count(key) > 0;
      EMBER_CHECK(finite, "{}: invalid {} value {}: options must be finite numbers", where, key,
                  key == "lr" ? fmt::format("{}", options.get_lr()) : std::string("(NaN or infinite)"));
    }
  }
  return j;
}

// The ranges PyTorch's optimizers check in their constructors, for options read from a checkpoint
// (the constructors check their own): learning rate, epsilon, weight decay, momentum, alpha and
// lr_decay non-negative, betas in [0, 1).
void check_loaded_options(const OptimizerOptions& options, const std::string& where) {
  const json j = check_finite_options(options, where);
  const std::pair<const char*, const char*> non_negative[] = {
      {"lr", "learning rate"},
      {"eps", "epsilon value"},
      {"weight_decay", "weight_decay value"},
      {"momentum", "momentum value"},
      {"alpha", "alpha value"},
      {"lr_decay", "lr_decay value"},
      {"initial_accumulator_value", "initial_accumulator_value value"}};
  for (const auto& [key, what] : non_negative)
    if (j.contains(key) && j[key].is_number())
      EMBER_CHECK(j[key].get<double>() >= 0, "{}: invalid {} {} (must be >= 0)", where, what, j[key].get<double>());
  if (j.contains("betas") && j["betas"].is_array())
    for (size_t i = 0; i < j["betas"].size(); ++i) {
      const json& beta = j["betas"][i];
      EMBER_CHECK(beta.is_number() && beta.get<double>() >= 0 && beta.get<double>() < 1,
                  "{}: invalid beta parameter at index {}: {} (must be in [0, 1))", where, i,
                  beta.is_number() ? fmt::format("{}", beta.get<double>()) : json_excerpt(beta));
    }
}

}  // namespace

// ---- OptimizerParamGroup ----

OptimizerParamGroup::OptimizerParamGroup(const OptimizerParamGroup& other)
    : params_(other.params_), options_(other.has_options() ? other.options_->clone() : nullptr) {}

OptimizerParamGroup& OptimizerParamGroup::operator=(const OptimizerParamGroup& other) {
  if (this != &other) {
    params_ = other.params_;
    options_ = other.has_options() ? other.options_->clone() : nullptr;
  }
  return *this;
}

OptimizerOptions& OptimizerParamGroup::options() {
  EMBER_CHECK(options_ != nullptr, "OptimizerParamGroup: this group has no options (add it to an optimizer first)");
  return *options_;
}

const OptimizerOptions& OptimizerParamGroup::options() const {
  EMBER_CHECK(options_ != nullptr, "OptimizerParamGroup: this group has no options (add it to an optimizer first)");
  return *options_;
}

// ---- OptimizerParamState ----

Tensor* OptimizerParamState::tensor_slot(const std::string& name) {
  for (auto& [n, slot] : tensors())
    if (n == name) return slot;
  return nullptr;
}

// ---- Optimizer ----

Optimizer::Optimizer(std::vector<OptimizerParamGroup> param_groups, std::unique_ptr<OptimizerOptions> defaults)
    : defaults_(std::move(defaults)) {
  for (const auto& group : param_groups) add_param_group(group);
}

Optimizer::Optimizer(std::vector<Tensor> parameters, std::unique_ptr<OptimizerOptions> defaults)
    : defaults_(std::move(defaults)) {
  add_param_group(OptimizerParamGroup(std::move(parameters)));
}

void Optimizer::add_param_group(const OptimizerParamGroup& param_group) {
  std::set<const TensorImpl*> seen;
  for (const auto& group : param_groups_)
    for (const auto& p : group.params()) seen.insert(p.unsafeGetTensorImpl());
  for (size_t i = 0; i < param_group.params().size(); ++i) {
    const Tensor& p = param_group.params()[i];
    EMBER_CHECK(p.defined(), "optimizer: parameter {} of the new group is undefined", i);
    EMBER_CHECK(p.is_leaf(),
                "optimizer: can't optimize a non-leaf Tensor (parameter {} of the new group has "
                "grad_fn {}); optimize the leaf it was computed from",
                i, p.grad_fn() ? p.grad_fn()->name() : "");
    EMBER_CHECK(p.is_floating_point(),
                "optimizer: parameter {} of the new group is {}; only float32 and float64 "
                "tensors can be optimized",
                i, dtype_name(p.dtype()));
    EMBER_CHECK(seen.insert(p.unsafeGetTensorImpl()).second,
                "optimizer: some parameters appear in more than one parameter group (parameter {} of the new group, "
                "shape {})",
                i, p.sizes());
  }
  OptimizerParamGroup group(param_group.params());
  group.set_options(param_group.has_options() ? param_group.options().clone() : defaults_->clone());
  check_finite_options(group.options(), fmt::format("optimizer: parameter group {}", param_groups_.size()));
  param_groups_.push_back(std::move(group));
}

void Optimizer::add_parameters(const std::vector<Tensor>& parameters) {
  if (param_groups_.empty()) {
    add_param_group(OptimizerParamGroup(parameters));
    return;
  }
  // Check through add_param_group's rules, then move the parameters into the first group.
  OptimizerParamGroup probe(parameters, param_groups_[0].options().clone());
  add_param_group(probe);
  param_groups_.pop_back();
  auto& params = param_groups_[0].params();
  params.insert(params.end(), parameters.begin(), parameters.end());
}

void Optimizer::zero_grad(bool set_to_none) {
  NoGradGuard no_grad;
  for (auto& group : param_groups_) {
    for (auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      if (set_to_none) {
        p.set_grad(Tensor());
        continue;
      }
      Tensor& g = p.mutable_grad();
      if (g.grad_fn()) g = g.detach();  // a grad with history (create_graph) is replaced, as PyTorch does
      g.zero_();
    }
  }
}

std::vector<Tensor> Optimizer::parameters() const {
  std::vector<Tensor> out;
  for (const auto& group : param_groups_) out.insert(out.end(), group.params().begin(), group.params().end());
  return out;
}

size_t Optimizer::size() const {
  size_t n = 0;
  for (const auto& group : param_groups_) n += group.params().size();
  return n;
}

Tensor Optimizer::run_closure(const LossClosure& closure) {
  if (!closure) return {};
  EnableGradGuard enable_grad;
  return closure();
}

// ---- checkpoints ----

void Optimizer::save_state(std::vector<std::pair<std::string, Tensor>>& tensors,
                           std::map<std::string, std::string>& metadata, const std::string& prefix) const {
  json groups = json::array();
  int64_t index = 0;
  for (const auto& group : param_groups_) {
    json g = json::parse(group.options().to_json());
    json ids = json::array();
    for (const auto& p : group.params()) {
      ids.push_back(index);
      auto it = state_.find(p.unsafeGetTensorImpl());
      if (it != state_.end()) {
        const std::string key = fmt::format("{}state.{}.", prefix, index);
        for (auto& [name, t] : it->second->tensors())
          if (t->defined()) tensors.emplace_back(key + name, *t);
        for (auto& [name, value] : it->second->counters()) metadata[key + name] = std::to_string(*value);
        for (auto& [name, value] : it->second->reals()) metadata[key + name] = fmt::format("{}", *value);
      }
      ++index;
    }
    g["params"] = ids;
    groups.push_back(g);
  }
  metadata[prefix + "type"] = type_name();
  metadata[prefix + "param_groups"] = groups.dump();
}

namespace {

// "12" -> 12; anything else (sign, spaces, trailing text, overflow) is rejected.
std::optional<int64_t> parse_int(std::string_view s) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

// "0.25", "-1e-07", "inf" -> the double; anything else (spaces, trailing text) is rejected.
std::optional<double> parse_double(std::string_view s) {
  double v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

// Splits "<i>.<name>" (what follows "state.") into the parameter index and the field name.
std::optional<std::pair<int64_t, std::string>> split_state_key(const std::string& rest) {
  size_t dot = rest.find('.');
  if (dot == std::string::npos || dot + 1 == rest.size()) return std::nullopt;
  std::optional<int64_t> i = parse_int(std::string_view(rest).substr(0, dot));
  if (!i || *i < 0) return std::nullopt;
  return std::make_pair(*i, rest.substr(dot + 1));
}

}  // namespace

void Optimizer::load_state(const SafetensorsFile& file, const std::string& prefix) {
  const std::string op = fmt::format("{} load_state: {}", type_name(), file.path);
  auto meta = [&](const std::string& key) -> const std::string& {
    auto it = file.metadata.find(prefix + key);
    EMBER_CHECK(it != file.metadata.end(),
                "{}: the metadata has no '{}{}' (not an optimizer checkpoint, or another "
                "prefix?)",
                op, prefix, key);
    return it->second;
  };
  EMBER_CHECK(meta("type") == type_name(), "{}: the state was saved by {}, not {}", op, excerpt(meta("type")),
              type_name());

  // 1. Group options, into copies.
  json groups = detail::parse_json(meta("param_groups"), op + ": param_groups");
  EMBER_CHECK(groups.is_array() && groups.size() == param_groups_.size(),
              "{}: the checkpoint has {} parameter groups, this optimizer {}", op,
              groups.is_array() ? groups.size() : 0, param_groups_.size());
  std::vector<std::unique_ptr<OptimizerOptions>> new_options;
  std::vector<Tensor> params;
  std::vector<size_t> group_of;
  for (size_t g = 0; g < param_groups_.size(); ++g) {
    const auto& group = param_groups_[g];
    json saved = groups[g];
    EMBER_CHECK(saved.is_object() && saved.contains("params") && saved["params"].is_array(),
                "{}: parameter group {} has no params list", op, g);
    const json ids = saved["params"];
    EMBER_CHECK(ids.size() == group.params().size(),
                "{}: parameter group {} has {} parameters in the checkpoint, {} "
                "in this optimizer",
                op, g, ids.size(), group.params().size());
    for (size_t k = 0; k < ids.size(); ++k)
      EMBER_CHECK(ids[k].is_number_integer() && ids[k].get<int64_t>() == static_cast<int64_t>(params.size() + k),
                  "{}: parameter group {} lists parameter {} where {} was expected", op, g, json_excerpt(ids[k]),
                  params.size() + k);
    saved.erase("params");
    auto options = group.options().clone();
    try {
      options->from_json(saved.dump());
    } catch (const std::exception& e) {
      EMBER_FAIL("{}: parameter group {}: {}", op, g, e.what());
    }
    check_loaded_options(*options, fmt::format("{}: parameter group {}", op, g));
    new_options.push_back(std::move(options));
    for (const auto& p : group.params()) {
      params.push_back(p);
      group_of.push_back(g);
    }
  }

  // 2. Per-parameter state, into fresh objects; every tensor is checked against its parameter.
  const std::string state_prefix = prefix + "state.";
  std::map<int64_t, std::unique_ptr<OptimizerParamState>> new_state;
  auto state_for = [&](int64_t i, const std::string& key) -> OptimizerParamState& {
    EMBER_CHECK(i < static_cast<int64_t>(params.size()), "{}: '{}' refers to parameter {}, but this optimizer has {}",
                op, key, i, params.size());
    auto& s = new_state[i];
    if (!s) s = make_param_state();
    return *s;
  };
  for (const auto& [key, t] : file.tensors) {
    if (key.compare(0, state_prefix.size(), state_prefix) != 0) continue;
    auto parsed = split_state_key(key.substr(state_prefix.size()));
    EMBER_CHECK(parsed.has_value(), "{}: cannot read the state tensor name '{}' (expected {}<index>.<name>)", op, key,
                state_prefix);
    auto [i, name] = *parsed;
    OptimizerParamState& s = state_for(i, key);
    Tensor* slot = s.tensor_slot(name);
    EMBER_CHECK(slot != nullptr, "{}: unexpected state tensor '{}' ({} keeps no '{}')", op, key, type_name(), name);
    const Tensor& p = params[i];
    EMBER_CHECK((!s.shaped_like_parameter() || t.sizes() == p.sizes()) && t.dtype() == p.dtype(),
                "{}: state tensor '{}' is {} {} but parameter {} is {} {}", op, key, dtype_name(t.dtype()), t.sizes(),
                i, dtype_name(p.dtype()), p.sizes());
    *slot = t.to(p.device(), /*non_blocking=*/false, /*copy=*/true);
  }
  for (const auto& [key, value] : file.metadata) {
    if (key.compare(0, state_prefix.size(), state_prefix) != 0) continue;
    auto parsed = split_state_key(key.substr(state_prefix.size()));
    EMBER_CHECK(parsed.has_value(), "{}: cannot read the state entry '{}' (expected {}<index>.<name>)", op, key,
                state_prefix);
    auto [i, name] = *parsed;
    OptimizerParamState& s = state_for(i, key);
    double* real = nullptr;
    for (auto& [n, ptr] : s.reals())
      if (n == name) real = ptr;
    if (real != nullptr) {
      std::optional<double> v = parse_double(value);
      EMBER_CHECK(v.has_value(), "{}: state entry '{}' should be a number, got '{}'", op, excerpt(key), excerpt(value));
      *real = *v;
      continue;
    }
    int64_t* slot = nullptr;
    for (auto& [n, ptr] : s.counters())
      if (n == name) slot = ptr;
    EMBER_CHECK(slot != nullptr, "{}: unexpected state entry '{}' ({} keeps no counter '{}')", op, key, type_name(),
                name);
    std::optional<int64_t> v = parse_int(value);
    EMBER_CHECK(v.has_value(), "{}: state entry '{}' should be an integer, got '{}'", op, excerpt(key), excerpt(value));
    EMBER_CHECK(*v >= 0, "{}: state entry '{}' is a count and should be >= 0, got {}", op, excerpt(key), *v);
    *slot = *v;
  }
  for (auto& [i, s] : new_state)
    check_param_state(*new_options[group_of[i]], *s, fmt::format("{}: parameter {}", op, i));

  // 3. Nothing threw: commit.
  for (size_t g = 0; g < param_groups_.size(); ++g) param_groups_[g].set_options(std::move(new_options[g]));
  state_.clear();
  for (auto& [i, s] : new_state) state_[params[i].unsafeGetTensorImpl()] = std::move(s);
}

void Optimizer::save(const std::string& path) const {
  std::vector<std::pair<std::string, Tensor>> tensors;
  std::map<std::string, std::string> metadata;
  save_state(tensors, metadata);
  save_safetensors(path, tensors, metadata);
}

void Optimizer::load(const std::string& path) { load_state(load_safetensors(path)); }

void Optimizer::save(serialize::OutputArchive& archive) const {
  std::vector<std::pair<std::string, Tensor>> tensors;
  std::map<std::string, std::string> metadata;
  save_state(tensors, metadata);
  for (const auto& [name, tensor] : tensors) archive.write_entry(name, tensor);
  for (const auto& [key, value] : metadata) archive.write_text(key, value);
}

void Optimizer::load(serialize::InputArchive& archive) { load_state(archive.file(), archive.prefix()); }

}  // namespace ember::optim

namespace ember::serialize {

OutputArchive& operator<<(OutputArchive& archive, const optim::Optimizer& optimizer) {
  optimizer.save(archive);
  return archive;
}

InputArchive& operator>>(InputArchive& archive, optim::Optimizer& optimizer) {
  optimizer.load(archive);
  return archive;
}

}  // namespace ember::serialize
