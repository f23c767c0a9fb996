// Internal helpers shared by the optimizers' .cpp files; not part of the public API (ember.h does
// not include it). JSON access for the options' to_json/from_json, and the test that decides
// whether an update can go to the backend's optimizer kernel.
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/tensor.h"
#include "optim/optimizer.h"

namespace ember::optim::detail {

// True when every defined tensor is contiguous and of `dtype`: what the backends' optimizer
// kernels take (core/backend.h, EMBER_OPTIMIZER_KERNELS). Others are updated by tensor ops.
inline bool fusable(ScalarType dtype, std::initializer_list<const Tensor*> tensors) {
  for (const Tensor* t : tensors)
    if (t->defined() && (!t->is_contiguous() || t->dtype() != dtype)) return false;
  return true;
}

// A group's options as the optimizer's own options class; a group given another optimizer's
// options (AdamOptions in an SGD) is an error, not a silent misread.
template <typename Options>
const Options& options_as(const OptimizerOptions& options, const char* op) {
  const auto* o = dynamic_cast<const Options*>(&options);
  EMBER_CHECK(o != nullptr, "{}: a parameter group has options of another optimizer (expected {}Options)", op, op);
  return *o;
}

// The field `name` of a saved options object, with an error naming it when absent or mistyped.
template <typename T>
T field(const nlohmann::json& j, const char* name) {
  EMBER_CHECK(j.contains(name), "the saved options have no '{}'", name);
  try {
    return j.at(name).get<T>();
  } catch (const nlohmann::json::exception&) {
    EMBER_FAIL("the saved option '{}' has the wrong type: {}", name, j.at(name).dump());
  }
}

}  // namespace ember::optim::detail
