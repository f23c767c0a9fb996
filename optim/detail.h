// Internal helpers shared by the optimizers' .cpp files; not part of the public API (ember.h does
// not include it). JSON access for the options' to_json/from_json, and the batching of updates
// for the backend's optimizer kernels.
#pragma once

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/backend.h"
#include "core/tensor.h"
#include "nn/json_guard.h"
#include "optim/optimizer.h"

namespace ember::optim::detail {

// The parameters of one step, grouped by device and dtype for one call each of the backend's
// optimizer kernel (core/backend_kernels.h, EMBER_OPTIMIZER_KERNELS). A parameter brings kLists tensors:
// itself, its gradient, then the state the kernel updates (undefined where the options do not use
// it), with its Step (core/optim_rules.h) and the State its composed update reads:
//
//   UpdateBatches<5, AdamStep, AdamParamState> batches;
//   if (!batches.add({p, grad, m, v, vmax}, step, &st)) adam_composed(p, grad, st, step);
//   ...
//   batches.run([](Backend& b, auto& l, auto& steps) { return b.adam_update(l[0], ..., steps); },
//               adam_composed);
template <size_t kLists, typename Step, typename State>
class UpdateBatches {
 public:
  // Adds a parameter to the batch of its device and dtype; false, adding nothing, where the kernels
  // cannot take it (a parameter not floating, a tensor not contiguous or of another dtype), and the
  // caller composes its update.
  bool add(const std::array<Tensor, kLists>& tensors, const Step& step, State* state) {
    const Tensor& p = tensors[0];
    if (!p.is_floating_point()) return false;
    for (const Tensor& t : tensors)
      if (t.defined() && (!t.is_contiguous() || t.dtype() != p.dtype())) return false;
    auto b = std::find_if(batches_.begin(), batches_.end(),
                          [&](const Batch& b) { return b.device == p.device() && b.dtype == p.dtype(); });
    if (b == batches_.end()) b = batches_.insert(batches_.end(), Batch{p.device(), p.dtype()});
    for (size_t k = 0; k < kLists; ++k) b->lists[k].push_back(tensors[k]);
    b->steps.push_back(step);
    b->states.push_back(state);
    return true;
  }

  // kernel(backend, lists, steps) once per batch; where it returns false (the device has no such
  // kernel), composed(param, grad, state, step) for each of the batch's parameters. A kernel writes
  // in place, so each tensor it updated (all but the gradients) has its version bumped, as the
  // tensor ops would record.
  template <typename Kernel, typename Composed>
  void run(Kernel kernel, Composed composed) {
    for (Batch& b : batches_) {
      if (kernel(backend_for(b.device), b.lists, b.steps)) {
        for (size_t k = 0; k < kLists; ++k)
          if (k != 1)
            for (const Tensor& t : b.lists[k])
              if (t.defined()) t.bump_version();
        continue;
      }
      for (size_t i = 0; i < b.steps.size(); ++i) composed(b.lists[0][i], b.lists[1][i], *b.states[i], b.steps[i]);
    }
  }

 private:
  struct Batch {
    Device device;
    ScalarType dtype;
    std::array<tensor_list, kLists> lists = {};
    std::vector<Step> steps = {};
    std::vector<State*> states = {};
  };
  std::vector<Batch> batches_;
};

// A group's options as the optimizer's own options class; a group given another optimizer's
// options (AdamOptions in an SGD) is an error, not a silent misread.
template <typename Options>
const Options& options_as(const OptimizerOptions& options, const char* op) {
  const auto* o = dynamic_cast<const Options*>(&options);
  EMBER_CHECK(o != nullptr, "{}: a parameter group has options of another optimizer (expected {}Options)", op, op);
  return *o;
}

// Parses JSON from a checkpoint: nesting deeper than kMaxJsonDepth and malformed text are
// ember::Errors starting with `what`, never nlohmann exceptions or a stack overflow.
inline nlohmann::json parse_json(const std::string& text, const std::string& what) {
  check_json_depth(text, what);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    EMBER_FAIL("{}: not valid JSON ({})", what, excerpt(e.what(), 200));
  }
}

// The field `name` of a saved options object, with an error naming it when absent or mistyped.
template <typename T>
T field(const nlohmann::json& j, const char* name) {
  EMBER_CHECK(j.is_object(), "the saved options must be a JSON object, got {}", json_excerpt(j));
  EMBER_CHECK(j.contains(name), "the saved options have no '{}'", name);
  try {
    return j.at(name).get<T>();
  } catch (const nlohmann::json::exception&) {
    EMBER_FAIL("the saved option '{}' has the wrong type: {}", name, json_excerpt(j.at(name)));
  }
}

}  // namespace ember::optim::detail
