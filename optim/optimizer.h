// The optimizer base class, as libtorch's torch::optim::Optimizer: parameter groups with their own
// options, per-parameter state, zero_grad, step, and checkpoints of that state.
//
//   auto opt = ember::optim::AdamW(model->parameters(), ember::optim::AdamWOptions(3e-4).weight_decay(0.1));
//   opt.zero_grad();
//   loss.backward();
//   opt.step();
//   for (auto& group : opt.param_groups()) group.options().set_lr(1e-4);   // what schedulers do
//   opt.save("opt.safetensors");                                          // resume with opt.load(...)
//
// State is kept per parameter (keyed by the parameter's TensorImpl, as libtorch does) and is
// created lazily by the first step that sees a gradient. The concrete optimizers (sgd.h, adam.h)
// define the options, the state and the update; this file knows nothing about their formulas.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/arg.h"  // EMBER_ARG
#include "core/tensor.h"

namespace ember {
struct SafetensorsFile;  // nn/serialize.h
}
namespace ember::serialize {  // nn/archive.h
class OutputArchive;
class InputArchive;
}  // namespace ember::serialize

namespace ember::optim {

// The hyper-parameters of one parameter group (SGDOptions, AdamOptions, ...).
class OptimizerOptions {
 public:
  virtual ~OptimizerOptions() = default;
  virtual std::unique_ptr<OptimizerOptions> clone() const = 0;
  virtual double get_lr() const = 0;
  virtual void set_lr(double lr) = 0;
  // Checkpoints: the options as a JSON object in PyTorch's param_groups spelling
  // ({"lr": 0.001, "betas": [0.9, 0.999], ...}), and back. from_json throws on a missing field.
  virtual std::string to_json() const = 0;
  virtual void from_json(const std::string& json) = 0;
};

// The state an optimizer keeps for one parameter (momentum buffers, Adam's moments, step count).
class OptimizerParamState {
 public:
  virtual ~OptimizerParamState() = default;
  virtual std::unique_ptr<OptimizerParamState> clone() const = 0;
  // Checkpoints: the state's tensors under PyTorch's names ("exp_avg", "momentum_buffer"), and
  // its integer counters ("step"). Undefined tensors are not saved.
  virtual std::vector<std::pair<std::string, Tensor*>> tensors() = 0;
  virtual std::vector<std::pair<std::string, int64_t*>> counters() { return {}; }
  // Real-valued scalars (LBFGS's step length "t" and "prev_loss"), saved exactly.
  virtual std::vector<std::pair<std::string, double*>> reals() { return {}; }
  // Where load_state puts a saved tensor called `name`, or nullptr when the state keeps none by
  // that name: by default one of tensors(); a state holding lists (LBFGS's "old_dirs.3") makes room.
  virtual Tensor* tensor_slot(const std::string& name);
  // Whether every saved tensor has its parameter's shape (LBFGS's flat vectors and scalars do not;
  // their dtype is still checked).
  virtual bool shaped_like_parameter() const { return true; }
};

// A list of parameters and, optionally, options of their own (else the optimizer's defaults).
class OptimizerParamGroup {
 public:
  OptimizerParamGroup(std::vector<Tensor> params) : params_(std::move(params)) {}  // NOLINT: implicit, as libtorch
  OptimizerParamGroup(std::vector<Tensor> params, std::unique_ptr<OptimizerOptions> options)
      : params_(std::move(params)), options_(std::move(options)) {}
  OptimizerParamGroup(const OptimizerParamGroup& other);
  OptimizerParamGroup& operator=(const OptimizerParamGroup& other);
  OptimizerParamGroup(OptimizerParamGroup&&) = default;
  OptimizerParamGroup& operator=(OptimizerParamGroup&&) = default;

  bool has_options() const { return options_ != nullptr; }
  OptimizerOptions& options();
  const OptimizerOptions& options() const;
  void set_options(std::unique_ptr<OptimizerOptions> options) { options_ = std::move(options); }
  std::vector<Tensor>& params() { return params_; }
  const std::vector<Tensor>& params() const { return params_; }

 private:
  std::vector<Tensor> params_;
  std::unique_ptr<OptimizerOptions> options_;
};

class Optimizer {
 public:
  Optimizer(std::vector<OptimizerParamGroup> param_groups, std::unique_ptr<OptimizerOptions> defaults);
  Optimizer(std::vector<Tensor> parameters, std::unique_ptr<OptimizerOptions> defaults);
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;
  Optimizer(Optimizer&&) = default;
  Optimizer& operator=(Optimizer&&) = default;
  virtual ~Optimizer() = default;

  // One update of every parameter that has a gradient. `closure`, when given, recomputes the loss
  // (with grad enabled) before the update; its value is returned.
  using LossClosure = std::function<Tensor()>;
  virtual Tensor step(LossClosure closure = nullptr) = 0;

  // Adds a group; options it lacks come from the defaults. A parameter may be in one group only.
  void add_param_group(const OptimizerParamGroup& param_group);
  // Adds parameters to the first group.
  void add_parameters(const std::vector<Tensor>& parameters);
  // Clears every parameter's gradient: unset (the default, as PyTorch 2) or filled with zeros.
  void zero_grad(bool set_to_none = true);

  // Every parameter, group by group (the numbering checkpoints use).
  std::vector<Tensor> parameters() const;
  size_t size() const;  // number of parameters
  OptimizerOptions& defaults() { return *defaults_; }
  const OptimizerOptions& defaults() const { return *defaults_; }
  std::vector<OptimizerParamGroup>& param_groups() { return param_groups_; }
  const std::vector<OptimizerParamGroup>& param_groups() const { return param_groups_; }
  std::unordered_map<void*, std::unique_ptr<OptimizerParamState>>& state() { return state_; }
  const std::unordered_map<void*, std::unique_ptr<OptimizerParamState>>& state() const { return state_; }

  // ---- checkpoints (optim/optimizer.cpp), in the safetensors format of nn/serialize.h ----
  // Appends the state under `prefix`: tensors "<prefix>state.<i>.<name>" (i numbers parameters as
  // parameters() does), metadata "<prefix>type", "<prefix>param_groups" (PyTorch's param_groups
  // as JSON) and "<prefix>state.<i>.<counter>". Values are copied, so later steps don't change them.
  void save_state(std::vector<std::pair<std::string, Tensor>>& tensors, std::map<std::string, std::string>& metadata,
                  const std::string& prefix = "") const;
  // Restores what save_state wrote: group options (lr included) and per-parameter state. Checks
  // everything first (optimizer type, group sizes, every tensor's shape and dtype) and throws
  // naming the entry, leaving the optimizer unchanged. Tensors outside `prefix` are ignored.
  void load_state(const SafetensorsFile& file, const std::string& prefix = "");
  void save(const std::string& path) const;  // save_state into its own file
  void load(const std::string& path);
  // The same state into and out of an archive (nn/archive.h), beside a model's tensors; virtual as
  // libtorch's, so an optimizer of the program's own can add to it.
  virtual void save(serialize::OutputArchive& archive) const;
  virtual void load(serialize::InputArchive& archive);

  // The optimizer's name as saved in checkpoints ("SGD", "Adam", "AdamW").
  virtual std::string type_name() const = 0;

 protected:
  // A fresh, empty state for one parameter (what load_state fills).
  virtual std::unique_ptr<OptimizerParamState> make_param_state() const = 0;
  // Throws if `state` cannot serve a parameter of a group with `options` (e.g. Adam with amsgrad
  // but no max_exp_avg_sq); called by load_state before anything changes.
  virtual void check_param_state(const OptimizerOptions& /*options*/, OptimizerParamState& /*state*/,
                                 const std::string& /*where*/) const {}
  // Runs `closure` with grad mode on, if given.
  static Tensor run_closure(const LossClosure& closure);

  std::vector<OptimizerParamGroup> param_groups_;
  std::unordered_map<void*, std::unique_ptr<OptimizerParamState>> state_;
  std::unique_ptr<OptimizerOptions> defaults_;
};

}  // namespace ember::optim

namespace ember::serialize {
// archive << optimizer and archive >> optimizer: libtorch's spelling of optimizer.save / load.
OutputArchive& operator<<(OutputArchive& archive, const optim::Optimizer& optimizer);
InputArchive& operator>>(InputArchive& archive, optim::Optimizer& optimizer);
}  // namespace ember::serialize
