// Samplers: the order in which a data loader visits a dataset's indices, as libtorch's
// torch::data::samplers. SequentialSampler gives 0, 1, ..., n-1; RandomSampler a permutation drawn
// by ember::randperm from the default generator (so ember::manual_seed makes it reproducible, and it
// draws what libtorch's does for the same seed). reset() starts a new epoch (a new permutation).
//
//   ember::data::samplers::RandomSampler sampler(10);
//   while (auto indices = sampler.next(4)) { ... }   // 4, 4, then 2 indices
//
// The distributed samplers give each of num_replicas processes its own share of the indices, as
// libtorch's: DistributedSequentialSampler a contiguous run, DistributedRandomSampler its slice of
// one permutation drawn by std::mt19937 seeded with the epoch (the same on every rank, and the same
// order libtorch draws); set_epoch(e) then reset() reshuffles. With allow_duplicates the share is
// ceil(size / num_replicas) and the last shares wrap around to the first indices; without, it is
// floor(size / num_replicas) and the tail is never visited.
//
// StreamSampler is for stream datasets (datasets.h), which take a count instead of indices: each
// request is a BatchSize, and an epoch ends after epoch_size examples.
//
// save/load write and read a sampler's position (and epoch) in a serialize archive (nn/archive.h)
// under libtorch's names, so a resumed run goes on where it stopped.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "core/tensor.h"

namespace ember::serialize {  // nn/archive.h
class OutputArchive;
class InputArchive;
}  // namespace ember::serialize

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
  // The sampler's position into / out of an archive. A sampler that keeps none throws.
  virtual void save(serialize::OutputArchive& archive) const;
  virtual void load(serialize::InputArchive& archive);
};

// archive << sampler and archive >> sampler, as libtorch's (torch::save(sampler, path) uses them).
template <typename BatchRequest>
serialize::OutputArchive& operator<<(serialize::OutputArchive& archive, const Sampler<BatchRequest>& sampler) {
  sampler.save(archive);
  return archive;
}
template <typename BatchRequest>
serialize::InputArchive& operator>>(serialize::InputArchive& archive, Sampler<BatchRequest>& sampler) {
  sampler.load(archive);
  return archive;
}

// What Sampler's own save and load do: refuse, naming the op.
[[noreturn]] void refuse_position(const char* op);
template <typename BatchRequest>
void Sampler<BatchRequest>::save(serialize::OutputArchive& /*archive*/) const {
  refuse_position("Sampler::save");
}
template <typename BatchRequest>
void Sampler<BatchRequest>::load(serialize::InputArchive& /*archive*/) {
  refuse_position("Sampler::load");
}

class SequentialSampler : public Sampler<> {
 public:
  explicit SequentialSampler(size_t size) : size_(size) {}
  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
  size_t index() const noexcept { return index_; }
  void save(serialize::OutputArchive& archive) const override;  // "index"
  void load(serialize::InputArchive& archive) override;

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
  void save(serialize::OutputArchive& archive) const override;  // "index" and the permutation, "indices"
  void load(serialize::InputArchive& archive) override;

 private:
  Tensor indices_;  // (size,) the current permutation
  int64_t index_ = 0;
};

// Throws unless num_replicas > 0 and rank < num_replicas.
void check_replicas(size_t num_replicas, size_t rank);

// What the distributed samplers share: which share of the indices this process (rank) takes.
template <typename BatchRequest = std::vector<size_t>>
class DistributedSampler : public Sampler<BatchRequest> {
 public:
  DistributedSampler(size_t size, size_t num_replicas = 1, size_t rank = 0, bool allow_duplicates = true)
      : size_(size), num_replicas_(num_replicas), rank_(rank), allow_duplicates_(allow_duplicates) {
    check_replicas(num_replicas, rank);
  }
  // The epoch seeds the next reset()'s shuffle.
  void set_epoch(size_t epoch) { epoch_ = epoch; }
  size_t epoch() const { return epoch_; }

 protected:
  // How many indices each rank visits.
  size_t local_sample_count() const {
    return allow_duplicates_ ? (size_ + num_replicas_ - 1) / num_replicas_ : size_ / num_replicas_;
  }

  size_t size_;
  size_t num_replicas_;
  size_t rank_;
  size_t epoch_ = 0;
  bool allow_duplicates_;
};

class DistributedRandomSampler : public DistributedSampler<> {
 public:
  DistributedRandomSampler(size_t size, size_t num_replicas = 1, size_t rank = 0, bool allow_duplicates = true);
  void reset(std::optional<size_t> new_size = std::nullopt) override;  // reshuffles with the epoch as seed
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
  void save(serialize::OutputArchive& archive) const override;  // "sample_index_", "epoch_"
  void load(serialize::InputArchive& archive) override;
  size_t index() const noexcept { return sample_index_; }

 private:
  void populate_indices();

  size_t begin_index_ = 0;
  size_t end_index_ = 0;
  size_t sample_index_ = 0;
  std::vector<size_t> all_indices_;
};

class DistributedSequentialSampler : public DistributedSampler<> {
 public:
  DistributedSequentialSampler(size_t size, size_t num_replicas = 1, size_t rank = 0, bool allow_duplicates = true);
  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
  void save(serialize::OutputArchive& archive) const override;  // "sample_index_"
  void load(serialize::InputArchive& archive) override;
  size_t index() const noexcept { return sample_index_; }

 private:
  void populate_indices();

  size_t begin_index_ = 0;
  size_t end_index_ = 0;
  size_t sample_index_ = 0;
};

// A batch request other than a list of indices: what a sampler hands a dataset that takes one.
struct CustomBatchRequest {
  virtual ~CustomBatchRequest() = default;
  // The number of examples the request asks for.
  virtual size_t size() const = 0;
};

// The request of a stream dataset: only how many examples (converts to size_t).
struct BatchSize : public CustomBatchRequest {
  explicit BatchSize(size_t size) : size_(size) {}
  size_t size() const noexcept override { return size_; }
  operator size_t() const noexcept { return size_; }  // NOLINT: implicit, as libtorch
  size_t size_;
};

class StreamSampler : public Sampler<BatchSize> {
 public:
  explicit StreamSampler(size_t epoch_size) : epoch_size_(epoch_size) {}
  void reset(std::optional<size_t> new_size = std::nullopt) override;
  // batch_size examples, fewer at the epoch's end, nullopt after it.
  std::optional<BatchSize> next(size_t batch_size) override;
  void save(serialize::OutputArchive& archive) const override;  // "examples_retrieved_so_far"
  void load(serialize::InputArchive& archive) override;

 private:
  size_t examples_retrieved_so_far_ = 0;
  size_t epoch_size_;
};

}  // namespace ember::data::samplers
