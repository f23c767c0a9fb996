// Transforms applied to a dataset's batches by .map(...), as libtorch's torch::data::transforms:
// Stack (collate examples into one batch), Normalize, Lambda / BatchLambda / TensorLambda.
//
//   auto dataset = ember::data::datasets::MNIST("data/mnist")
//                      .map(ember::data::transforms::Normalize<>(0.1307, 0.3081))   // per example
//                      .map(ember::data::transforms::Stack<>());                    // vector -> Example<>
//
// A Transform maps one example to one example; a BatchTransform maps a whole batch (a Collation
// turns a vector of examples into one batch).
#pragma once

#include <functional>
#include <utility>
#include <vector>

#include "core/array_ref.h"
#include "core/tensor.h"
#include "data/example.h"

namespace ember::data::transforms {

template <typename InputBatch, typename OutputBatch>
class BatchTransform {
 public:
  using InputBatchType = InputBatch;
  using OutputBatchType = OutputBatch;
  virtual ~BatchTransform() = default;
  virtual OutputBatch apply_batch(InputBatch input_batch) = 0;
};

// One example at a time; a batch is transformed element by element.
template <typename Input, typename Output>
class Transform : public BatchTransform<std::vector<Input>, std::vector<Output>> {
 public:
  using InputType = Input;
  using OutputType = Output;
  virtual OutputType apply(InputType input) = 0;
  std::vector<Output> apply_batch(std::vector<Input> input_batch) override {
    std::vector<Output> output_batch;
    output_batch.reserve(input_batch.size());
    for (auto&& input : input_batch) output_batch.push_back(apply(std::move(input)));
    return output_batch;
  }
};

template <typename Input, typename Output = Input>
class BatchLambda : public BatchTransform<Input, Output> {
 public:
  using FunctionType = std::function<Output(Input)>;
  explicit BatchLambda(FunctionType function) : function_(std::move(function)) {}
  Output apply_batch(Input input_batch) override { return function_(std::move(input_batch)); }

 private:
  FunctionType function_;
};

template <typename Input, typename Output = Input>
class Lambda : public Transform<Input, Output> {
 public:
  using FunctionType = std::function<Output(Input)>;
  explicit Lambda(FunctionType function) : function_(std::move(function)) {}
  Output apply(Input input) override { return function_(std::move(input)); }

 private:
  FunctionType function_;
};

// Collates a vector of examples into one batch: the class to derive from, or Collate with a function,
// .map(transforms::Collate<Example<>>([](std::vector<Example<>> e) { return e.front(); })).
template <typename BatchType, typename T = std::vector<BatchType>>
using Collation = BatchTransform<T, BatchType>;
template <typename BatchType, typename T = std::vector<BatchType>>
using Collate = BatchLambda<T, BatchType>;

// Stacks the examples' data (and targets) along a new first dimension:
// N examples of data (C, H, W) and target () -> Example{(N, C, H, W), (N)}.
template <typename T = Example<>>
struct Stack;

template <>
struct Stack<Example<>> : public Collation<Example<>> {
  Example<> apply_batch(std::vector<Example<>> examples) override {
    tensor_list data, targets;
    data.reserve(examples.size());
    targets.reserve(examples.size());
    for (auto& example : examples) {
      data.push_back(std::move(example.data));
      targets.push_back(std::move(example.target));
    }
    return {stack(data), stack(targets)};
  }
};

template <>
struct Stack<TensorExample> : public Collation<TensorExample> {
  TensorExample apply_batch(std::vector<TensorExample> examples) override {
    tensor_list data;
    data.reserve(examples.size());
    for (auto& example : examples) data.push_back(std::move(example.data));
    return stack(data);
  }
};

// Transforms an example's data tensor, leaving its target.
template <typename Target = Tensor>
class TensorTransform : public Transform<Example<Tensor, Target>, Example<Tensor, Target>> {
 public:
  using E = Example<Tensor, Target>;
  virtual Tensor operator()(Tensor input) = 0;
  E apply(E input) override {
    input.data = (*this)(std::move(input.data));
    return input;
  }
};

template <typename Target = Tensor>
class TensorLambda : public TensorTransform<Target> {
 public:
  using FunctionType = std::function<Tensor(Tensor)>;
  explicit TensorLambda(FunctionType function) : function_(std::move(function)) {}
  Tensor operator()(Tensor input) override { return function_(std::move(input)); }

 private:
  FunctionType function_;
};

// (x - mean) / stddev per channel: mean and stddev hold one value, or one per channel of a
// (C, H, W) example (float32, as libtorch's, shaped (C, 1, 1) to broadcast).
template <typename Target = Tensor>
struct Normalize : public TensorTransform<Target> {
  Normalize(ArrayRef<double> mean, ArrayRef<double> stddev) : mean(as_channels(mean)), stddev(as_channels(stddev)) {}
  Tensor operator()(Tensor input) override { return input.sub(mean).div(stddev); }

  Tensor mean, stddev;  // (C, 1, 1)

 private:
  static Tensor as_channels(ArrayRef<double> values) {
    const int64_t c = static_cast<int64_t>(values.size());
    return from_vector(values.vec(), {c}, dtype(kFloat32)).unsqueeze(1).unsqueeze(2);
  }
};

}  // namespace ember::data::transforms
