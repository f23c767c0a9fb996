// Internal helpers shared by the optimizers' .cpp files; not part of the public API (ember.h does
// not include it). JSON access for the options' to_json/from_json, and the test that decides
// whether an update can go to the backend's optimizer kernel.
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/tensor.h"
#include "nn/json_guard.h"
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
