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
// Only map-style (stateless) datasets: libtorch's stateful and chunk datasets are not here.
#pragma once

#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/array_ref.h"
#include "data/example.h"

namespace ember::data::datasets {

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
  constexpr static bool is_stateful = false;  // Ember has only map-style datasets

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
template <typename Source, typename AppliedTransform>
class MapDataset : public BatchDataset<MapDataset<Source, AppliedTransform>, typename AppliedTransform::OutputBatchType,
                                       typename Source::BatchRequestType> {
 public:
  using DatasetType = Source;
  using TransformType = AppliedTransform;
  using BatchRequestType = typename Source::BatchRequestType;
  using OutputBatchType = typename AppliedTransform::OutputBatchType;

  MapDataset(DatasetType dataset, TransformType transform)
      : dataset_(std::move(dataset)), transform_(std::move(transform)) {}

  OutputBatchType get_batch(BatchRequestType indices) override {
    return transform_.apply_batch(dataset_.get_batch(std::move(indices)));
  }
  std::optional<size_t> size() const noexcept override { return dataset_.size(); }

  const Source& dataset() noexcept { return dataset_; }
  const AppliedTransform& transform() noexcept { return transform_; }

 private:
  Source dataset_;
  AppliedTransform transform_;
};

template <typename DatasetType, typename TransformType>
MapDataset<DatasetType, TransformType> map(DatasetType dataset, TransformType transform) {
  static_assert(std::is_same_v<typename DatasetType::BatchType, typename TransformType::InputBatchType>,
                "BatchType type of dataset does not match input type of transform");
  return {std::move(dataset), std::move(transform)};
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
