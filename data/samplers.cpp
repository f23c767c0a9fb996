// Samplers (data/samplers.h).
#include "data/samplers.h"

#include <algorithm>
#include <numeric>
#include <random>

#include "core/error.h"
#include "core/random.h"
#include "nn/archive.h"

namespace ember::data::samplers {

namespace {

// A position saved as libtorch saves it: an int64 tensor of one element.
void write_count(serialize::OutputArchive& archive, const std::string& key, size_t value) {
  archive.write(key, scalar_tensor(static_cast<int64_t>(value), kLong), /*is_buffer=*/true);
}

size_t read_count(const serialize::InputArchive& archive, const std::string& key, const char* op) {
  Tensor value;
  archive.read(key, value, /*is_buffer=*/true);
  EMBER_CHECK(value.numel() == 1 && !is_floating_point(value.dtype()),
              "{}: '{}' must be one integer, got a {} tensor of shape {}", op, key, dtype_name(value.dtype()),
              shape_str(value.sizes()));
  const int64_t count = value.item<int64_t>();
  EMBER_CHECK(count >= 0, "{}: '{}' must not be negative, got {}", op, key, count);
  return static_cast<size_t>(count);
}

}  // namespace

void refuse_position(const char* op) {
  throw Error(fmt::format("{}: this sampler keeps no position to save or load", op));
}

void check_replicas(size_t num_replicas, size_t rank) {
  EMBER_CHECK(num_replicas > 0, "DistributedSampler: num_replicas must be positive, got 0");
  EMBER_CHECK(rank < num_replicas, "DistributedSampler: rank {} is not below num_replicas {}", rank, num_replicas);
}

void SequentialSampler::reset(std::optional<size_t> new_size) {
  if (new_size) size_ = *new_size;
  index_ = 0;
}

std::optional<std::vector<size_t>> SequentialSampler::next(size_t batch_size) {
  const size_t end = std::min(index_ + batch_size, size_);
  if (end <= index_) return std::nullopt;
  std::vector<size_t> indices(end - index_);
  for (size_t k = 0; k < indices.size(); ++k) indices[k] = index_ + k;
  index_ = end;
  return indices;
}

RandomSampler::RandomSampler(int64_t size, ScalarType index_dtype) : indices_(randperm(size, dtype(index_dtype))) {}

void RandomSampler::reset(std::optional<size_t> new_size) {
  const int64_t size = new_size ? static_cast<int64_t>(*new_size) : indices_.numel();
  indices_ = randperm(size, dtype(indices_.dtype()));
  index_ = 0;
}

std::optional<std::vector<size_t>> RandomSampler::next(size_t batch_size) {
  const int64_t end = std::min(index_ + static_cast<int64_t>(batch_size), indices_.numel());
  if (end <= index_) return std::nullopt;
  Tensor slice = indices_.slice(0, index_, end).to(kInt64).contiguous();
  const int64_t* values = slice.data_ptr<int64_t>();
  std::vector<size_t> indices(values, values + (end - index_));
  index_ = end;
  return indices;
}

void SequentialSampler::save(serialize::OutputArchive& archive) const { write_count(archive, "index", index_); }

void SequentialSampler::load(serialize::InputArchive& archive) {
  const size_t index = read_count(archive, "index", "SequentialSampler::load");
  EMBER_CHECK(index <= size_, "SequentialSampler::load: index {} is past the sampler's size {}", index, size_);
  index_ = index;
}

void RandomSampler::save(serialize::OutputArchive& archive) const {
  write_count(archive, "index", static_cast<size_t>(index_));
  archive.write("indices", indices_, /*is_buffer=*/true);
}

void RandomSampler::load(serialize::InputArchive& archive) {
  Tensor indices;
  archive.read("indices", indices, /*is_buffer=*/true);
  EMBER_CHECK(indices.dim() == 1 && !is_floating_point(indices.dtype()),
              "RandomSampler::load: 'indices' must be a 1-D integer tensor, got {} of shape {}",
              dtype_name(indices.dtype()), shape_str(indices.sizes()));
  const size_t index = read_count(archive, "index", "RandomSampler::load");
  EMBER_CHECK(index <= static_cast<size_t>(indices.numel()),
              "RandomSampler::load: index {} is past the {} saved indices", index, indices.numel());
  indices_ = indices.to(indices_.dtype());
  index_ = static_cast<int64_t>(index);
}

// ---- distributed ----

DistributedRandomSampler::DistributedRandomSampler(size_t size, size_t num_replicas, size_t rank, bool allow_duplicates)
    : DistributedSampler(size, num_replicas, rank, allow_duplicates) {
  reset(size_);
}

void DistributedRandomSampler::populate_indices() {
  const size_t local = local_sample_count();
  const size_t count = num_replicas_ == 1 ? size_ : local * num_replicas_;
  all_indices_.resize(count);
  std::iota(all_indices_.begin(), all_indices_.end(), size_t{0});
  for (size_t i = size_; i < count; ++i) all_indices_[i] = i - size_;  // the shares padded with repeats
  begin_index_ = rank_ * local;
  end_index_ = begin_index_ + local;
  sample_index_ = begin_index_;
}

void DistributedRandomSampler::reset(std::optional<size_t> new_size) {
  size_ = new_size.value_or(size_);
  populate_indices();
  std::mt19937 generator(static_cast<std::mt19937::result_type>(epoch_));
  std::shuffle(all_indices_.begin(), all_indices_.end(), generator);
  sample_index_ = begin_index_;
}

std::optional<std::vector<size_t>> DistributedRandomSampler::next(size_t batch_size) {
  if (sample_index_ == end_index_) return std::nullopt;
  const size_t end = std::min(sample_index_ + batch_size, end_index_);
  std::vector<size_t> indices(all_indices_.begin() + static_cast<std::ptrdiff_t>(sample_index_),
                              all_indices_.begin() + static_cast<std::ptrdiff_t>(end));
  sample_index_ = end;
  return indices;
}

void DistributedRandomSampler::save(serialize::OutputArchive& archive) const {
  write_count(archive, "sample_index_", sample_index_);
  write_count(archive, "epoch_", epoch_);
}

void DistributedRandomSampler::load(serialize::InputArchive& archive) {
  const char* op = "DistributedRandomSampler::load";
  const size_t epoch = read_count(archive, "epoch_", op);
  const size_t index = read_count(archive, "sample_index_", op);
  epoch_ = epoch;
  reset(size_);  // the epoch's permutation
  EMBER_CHECK(index >= begin_index_ && index <= end_index_,
              "{}: sample_index_ {} is outside this rank's share [{}, {}]", op, index, begin_index_, end_index_);
  sample_index_ = index;
}

DistributedSequentialSampler::DistributedSequentialSampler(size_t size, size_t num_replicas, size_t rank,
                                                           bool allow_duplicates)
    : DistributedSampler(size, num_replicas, rank, allow_duplicates) {
  populate_indices();
}

void DistributedSequentialSampler::populate_indices() {
  begin_index_ = rank_ * local_sample_count();
  end_index_ = begin_index_ + local_sample_count();
  sample_index_ = begin_index_;
}

void DistributedSequentialSampler::reset(std::optional<size_t> new_size) {
  const size_t size = new_size.value_or(size_);
  if (size != size_) {
    size_ = size;
    populate_indices();
  } else {
    sample_index_ = begin_index_;
  }
}

std::optional<std::vector<size_t>> DistributedSequentialSampler::next(size_t batch_size) {
  if (sample_index_ == end_index_) return std::nullopt;
  const size_t end = std::min(sample_index_ + batch_size, end_index_);
  std::vector<size_t> indices(end - sample_index_);
  std::iota(indices.begin(), indices.end(), sample_index_);
  if (end >= size_) {
    for (size_t& index : indices) index %= size_;  // the last shares wrap to the first indices
  }
  sample_index_ = end;
  return indices;
}

void DistributedSequentialSampler::save(serialize::OutputArchive& archive) const {
  write_count(archive, "sample_index_", sample_index_);
}

void DistributedSequentialSampler::load(serialize::InputArchive& archive) {
  const char* op = "DistributedSequentialSampler::load";
  const size_t index = read_count(archive, "sample_index_", op);
  EMBER_CHECK(index >= begin_index_ && index <= end_index_,
              "{}: sample_index_ {} is outside this rank's share [{}, {}]", op, index, begin_index_, end_index_);
  sample_index_ = index;
}

// ---- stream ----

void StreamSampler::reset(std::optional<size_t> new_size) {
  if (new_size) epoch_size_ = *new_size;
  examples_retrieved_so_far_ = 0;
}

std::optional<BatchSize> StreamSampler::next(size_t batch_size) {
  if (examples_retrieved_so_far_ >= epoch_size_) return std::nullopt;
  batch_size = std::min(batch_size, epoch_size_ - examples_retrieved_so_far_);
  examples_retrieved_so_far_ += batch_size;
  return BatchSize(batch_size);
}

void StreamSampler::save(serialize::OutputArchive& archive) const {
  write_count(archive, "examples_retrieved_so_far", examples_retrieved_so_far_);
}

void StreamSampler::load(serialize::InputArchive& archive) {
  const char* op = "StreamSampler::load";
  const size_t count = read_count(archive, "examples_retrieved_so_far", op);
  EMBER_CHECK(count <= epoch_size_, "{}: examples_retrieved_so_far {} is past the epoch size {}", op, count,
              epoch_size_);
  examples_retrieved_so_far_ = count;
}

}  // namespace ember::data::samplers
