// Internal helpers shared by the optimizers' .cpp files; not part of the public API (ember.h does
// not include it). JSON access for the options' to_json/from_json, and the test that decides
// whether an update can run as one fused loop over raw memory.
#pragma once

#include <omp.h>

#include <algorithm>
#include <initializer_list>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/tensor.h"
#include "nn/json_guard.h"
#include "optim/optimizer.h"

namespace ember::optim::detail {

// Elements per thread below which a fused update runs on one thread.
inline constexpr int64_t kFusedParallelGrain = 1 << 16;

// True when every defined tensor is contiguous, in host memory and of `dtype`: the fused update
// loops read and write them as plain arrays. Otherwise the optimizer composes tensor ops, which
// run on any device and layout.
inline bool fusable(ScalarType dtype, std::initializer_list<const Tensor*> tensors) {
  for (const Tensor* t : tensors)
    if (t->defined() && (!t->is_cpu() || !t->is_contiguous() || t->dtype() != dtype)) return false;
  return true;
}

// Calls f(begin, end) on chunks of [0, n): one per OpenMP thread for large n, else one call.
// Elementwise updates give the same bits however they are split.
template <typename F>
void parallel_chunks(int64_t n, F&& f) {
  if (n < kFusedParallelGrain || omp_get_max_threads() == 1) {
    f(int64_t(0), n);
    return;
  }
#pragma omp parallel
  {
    const int64_t threads = omp_get_num_threads(), t = omp_get_thread_num();
    const int64_t chunk = (n + threads - 1) / threads;
    const int64_t begin = std::min(n, t * chunk), end = std::min(n, begin + chunk);
    if (begin < end) f(begin, end);
  }
}

// Many tensors of `sizes` elements laid end to end, and their total split evenly across the
// threads: f(thread, piece, begin, end) for each part of a piece in a thread's share. One parallel
// loop over every parameter, so the small ones (biases, norms) do not each run on one thread.
// Returns how many threads took part (each `thread` passed is below it).
template <typename F>
int for_each_piece(const std::vector<int64_t>& sizes, F&& f) {
  int64_t total = 0;
  for (int64_t n : sizes) total += n;
  const int threads = total < kFusedParallelGrain ? 1 : omp_get_max_threads();
#pragma omp parallel num_threads(threads)
  {
    const int64_t nt = omp_get_num_threads(), t = omp_get_thread_num();
    const int64_t chunk = (total + nt - 1) / nt;
    const int64_t begin = std::min(total, t * chunk), end = std::min(total, begin + chunk);
    int64_t offset = 0;  // where piece i starts
    for (size_t i = 0; i < sizes.size() && offset < end; offset += sizes[i], ++i) {
      const int64_t b = std::max(begin, offset), e = std::min(end, offset + sizes[i]);
      if (b < e) f(static_cast<int>(t), i, b - offset, e - offset);
    }
  }
  return threads;
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
