// Datasets, as libtorch's torch::data::datasets: a dataset answers get(index) (or get_batch(indices))
// and size(); .map(transform) wraps it in a MapDataset that transforms each batch it returns.
//
//   class Squares : public ember::data::datasets::Dataset<Squares> {
//    public:
//     ember::data::Example<> get(size_t i) override {
//       return {ember::full({1}, double(i)), ember::full({1}, double(i * i))};
//     }
//     std::optional<size_t> size() const override { return 10; }
//   };
//   auto batches = Squares().map(ember::data::transforms::Stack<>());   // get_batch -> one Example<>
//
// Besides these map-style datasets, as libtorch:
// - a StreamDataset takes a count (samplers::StreamSampler's BatchSize) instead of indices;
// - a StatefulDataset keeps its own position: get_batch(batch_size) returns the next batch or
//   nullopt at the end of an epoch, reset() starts the next, save/load checkpoint the position.
//   The loader (dataloader.h) hands it only the batch size; its workers share the one dataset, so
//   get_batch must be thread-safe. ChunkDataset (chunk.h) is the one libtorch provides.
// - SharedBatchDataset holds a dataset by shared_ptr, so that loader workers that copy it share it.
#pragma once

#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/array_ref.h"
#include "data/example.h"

namespace ember::serialize {  // nn/archive.h
class OutputArchive;
class InputArchive;
}  // namespace ember::serialize

namespace ember::data::datasets {

namespace detail {
template <typename T>
struct is_optional : std::false_type {};
template <typename T>
struct is_optional<std::optional<T>> : std::true_type {};

// The batch type a transform sees: a stateful dataset's batches without their optional.
template <bool Stateful, typename T>
using optional_if_t = std::conditional_t<Stateful, std::optional<T>, T>;
}  // namespace detail

template <typename Source, typename AppliedTransform>
class MapDataset;
template <typename DatasetType, typename TransformType>
MapDataset<DatasetType, TransformType> map(DatasetType dataset, TransformType transform);

// A dataset that returns whole batches for a request (a list of indices). `Self` is the derived
// class (what .map() wraps).
template <typename Self, typename Batch = std::vector<Example<>>, typename BatchRequest = ArrayRef<size_t>>
class BatchDataset {
 public:
  using SelfType = Self;
  using BatchType = Batch;
  using BatchRequestType = BatchRequest;
  // A dataset whose batches are optional keeps its own position (StatefulDataset below).
  constexpr static bool is_stateful = detail::is_optional<Batch>::value;

  virtual ~BatchDataset() = default;
  virtual Batch get_batch(BatchRequest request) = 0;
  // The number of examples, or nullopt for a dataset without one.
  virtual std::optional<size_t> size() const = 0;

  template <typename TransformType>
  MapDataset<Self, TransformType> map(TransformType transform) & {
    return datasets::map(static_cast<Self&>(*this), std::move(transform));
  }
  template <typename TransformType>
  MapDataset<Self, TransformType> map(TransformType transform) && {
    return datasets::map(std::move(static_cast<Self&>(*this)), std::move(transform));
  }
};

// A dataset of single examples: get(index); a batch is the examples of its indices, in order.
template <typename Self, typename SingleExample = Example<>>
class Dataset : public BatchDataset<Self, std::vector<SingleExample>> {
 public:
  using ExampleType = SingleExample;

  virtual ExampleType get(size_t index) = 0;

  std::vector<ExampleType> get_batch(ArrayRef<size_t> indices) override {
    std::vector<ExampleType> batch;
    batch.reserve(indices.size());
    for (const size_t i : indices) batch.push_back(get(i));
    return batch;
  }
};

// A dataset whose batches pass through a transform (transforms.h): Normalize, Stack, Lambda...
// Over a stateful dataset its batches are optional too, and nullopt passes through untransformed.
template <typename Source, typename AppliedTransform>
class MapDataset
    : public BatchDataset<MapDataset<Source, AppliedTransform>,
                          detail::optional_if_t<Source::is_stateful, typename AppliedTransform::OutputBatchType>,
                          typename Source::BatchRequestType> {
 public:
  using DatasetType = Source;
  using TransformType = AppliedTransform;
  using BatchRequestType = typename Source::BatchRequestType;
  using OutputBatchType = detail::optional_if_t<Source::is_stateful, typename AppliedTransform::OutputBatchType>;

  MapDataset(DatasetType dataset, TransformType transform)
      : dataset_(std::move(dataset)), transform_(std::move(transform)) {}

  OutputBatchType get_batch(BatchRequestType request) override {
    if constexpr (Source::is_stateful) {
      auto batch = dataset_.get_batch(std::move(request));
      if (!batch) return std::nullopt;
      return transform_.apply_batch(std::move(*batch));
    } else {
      return transform_.apply_batch(dataset_.get_batch(std::move(request)));
    }
  }
  std::optional<size_t> size() const noexcept override { return dataset_.size(); }
  // A stateful source's reset (the loader calls it at the start of each epoch).
  void reset() { dataset_.reset(); }

  const Source& dataset() noexcept { return dataset_; }
  const AppliedTransform& transform() noexcept { return transform_; }

 private:
  Source dataset_;
  AppliedTransform transform_;
};

template <typename DatasetType, typename TransformType>
MapDataset<DatasetType, TransformType> map(DatasetType dataset, TransformType transform) {
  using SourceBatch = std::conditional_t<DatasetType::is_stateful, typename DatasetType::BatchType::value_type,
                                         typename DatasetType::BatchType>;
  static_assert(std::is_same_v<SourceBatch, typename TransformType::InputBatchType>,
                "BatchType type of dataset does not match input type of transform");
  return {std::move(dataset), std::move(transform)};
}

// A dataset that takes a count of examples instead of their indices (with samplers::StreamSampler).
template <typename Self, typename Batch = std::vector<Example<>>>
using StreamDataset = BatchDataset<Self, Batch, /*BatchRequest=*/size_t>;

// A dataset that keeps its own position: get_batch returns nullopt at the end of an epoch, reset()
// starts the next, save/load write and read the position. get_batch must be thread-safe when a
// loader with workers reads it.
template <typename Self, typename Batch = std::vector<Example<>>, typename BatchRequest = size_t>
class StatefulDataset : public BatchDataset<Self, std::optional<Batch>, BatchRequest> {
 public:
  virtual void reset() = 0;
  virtual void save(serialize::OutputArchive& archive) const = 0;
  virtual void load(serialize::InputArchive& archive) = 0;
};

template <typename... Args>
serialize::OutputArchive& operator<<(serialize::OutputArchive& archive, const StatefulDataset<Args...>& dataset) {
  dataset.save(archive);
  return archive;
}

template <typename... Args>
serialize::InputArchive& operator>>(serialize::InputArchive& archive, StatefulDataset<Args...>& dataset) {
  dataset.load(archive);
  return archive;
}

// A dataset held by shared_ptr: copies (one per loader worker) all read the one underlying dataset.
template <typename UnderlyingDataset>
class SharedBatchDataset
    : public BatchDataset<SharedBatchDataset<UnderlyingDataset>, typename UnderlyingDataset::BatchType,
                          typename UnderlyingDataset::BatchRequestType> {
 public:
  using BatchType = typename UnderlyingDataset::BatchType;
  using BatchRequestType = typename UnderlyingDataset::BatchRequestType;

  SharedBatchDataset(std::shared_ptr<UnderlyingDataset> shared_dataset)  // NOLINT: implicit, as libtorch
      : dataset_(std::move(shared_dataset)) {}

  BatchType get_batch(BatchRequestType request) override { return dataset_->get_batch(std::move(request)); }
  std::optional<size_t> size() const override { return dataset_->size(); }

  UnderlyingDataset& operator*() { return *dataset_; }
  const UnderlyingDataset& operator*() const { return *dataset_; }
  UnderlyingDataset* operator->() { return dataset_.get(); }
  const UnderlyingDataset* operator->() const { return dataset_.get(); }

  void reset() { dataset_->reset(); }

 private:
  std::shared_ptr<UnderlyingDataset> dataset_;
};

// A SharedBatchDataset of a new UnderlyingDataset(args...).
template <typename UnderlyingDataset, typename... Args>
SharedBatchDataset<UnderlyingDataset> make_shared_dataset(Args&&... args) {
  return std::make_shared<UnderlyingDataset>(std::forward<Args>(args)...);
}

// libtorch's TensorDataset: the slices of one tensor along its first dimension, without targets.
class TensorDataset : public Dataset<TensorDataset, TensorExample> {
 public:
  explicit TensorDataset(const std::vector<Tensor>& tensors) : TensorDataset(stack(tensors)) {}
  explicit TensorDataset(Tensor tensor) : tensor(std::move(tensor)) {}
  TensorExample get(size_t index) override { return tensor[static_cast<int64_t>(index)]; }
  std::optional<size_t> size() const override { return static_cast<size_t>(tensor.size(0)); }

  Tensor tensor;  // (N, ...)
};

}  // namespace ember::data::datasets
