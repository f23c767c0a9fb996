// Samplers (data/samplers.h).
#include "data/samplers.h"

#include <algorithm>

#include "core/random.h"

namespace ember::data::samplers {

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

}  // namespace ember::data::samplers
