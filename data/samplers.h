// Samplers: the order in which a data loader visits a dataset's indices, as libtorch's
// torch::data::samplers. SequentialSampler gives 0, 1, ..., n-1; RandomSampler a permutation drawn
// by ember::randperm from the default generator (so ember::manual_seed makes it reproducible, and it
// draws what libtorch's does for the same seed). reset() starts a new epoch (a new permutation).
//
//   ember::data::samplers::RandomSampler sampler(10);
//   while (auto indices = sampler.next(4)) { ... }   // 4, 4, then 2 indices
//
// libtorch's save/load of a sampler's position (serialize archives) is not here.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "core/tensor.h"

namespace ember::data::samplers {

template <typename BatchRequest = std::vector<size_t>>
class Sampler {
 public:
  using BatchRequestType = BatchRequest;
  virtual ~Sampler() = default;
  // Back to the start of the indices; new_size, when given, is the dataset's new size.
  virtual void reset(std::optional<size_t> new_size) = 0;
  // The next batch_size indices (fewer at the end), or nullopt when none are left.
  virtual std::optional<BatchRequest> next(size_t batch_size) = 0;
};

class SequentialSampler : public Sampler<> {
 public:
  explicit SequentialSampler(size_t size) : size_(size) {}
  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
  size_t index() const noexcept { return index_; }

 private:
  size_t size_;
  size_t index_ = 0;
};

class RandomSampler : public Sampler<> {
 public:
  // index_dtype: the dtype the permutation is kept in (kInt64, as libtorch's default).
  explicit RandomSampler(int64_t size, ScalarType index_dtype = kInt64);
  void reset(std::optional<size_t> new_size = std::nullopt) override;  // draws a new permutation
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
  size_t index() const noexcept { return static_cast<size_t>(index_); }

 private:
  Tensor indices_;  // (size,) the current permutation
  int64_t index_ = 0;
};

}  // namespace ember::data::samplers
