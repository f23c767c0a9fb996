// data::Example: one sample (or one collated batch) of a dataset, as libtorch's torch::data::Example.
//
//   ember::data::Example<> e{image, label};       // e.data: (1, 28, 28), e.target: () int64
//   ember::data::TensorExample x{features};      // no target; converts to the Tensor
//
// A plain pair of members; what the tensors hold is up to the dataset.
#pragma once

#include <utility>

#include "core/tensor.h"

namespace ember::data {

template <typename Data = Tensor, typename Target = Tensor>
struct Example {
  using DataType = Data;
  using TargetType = Target;

  Example() = default;
  Example(Data data, Target target) : data(std::move(data)), target(std::move(target)) {}

  Data data;
  Target target;
};

namespace example {
using NoTarget = void;  // Example<Data, NoTarget>: a sample without a target
}  // namespace example

template <typename Data>
struct Example<Data, example::NoTarget> {
  using DataType = Data;
  using TargetType = example::NoTarget;

  Example() = default;
  Example(Data data) : data(std::move(data)) {}  // NOLINT: implicit, as libtorch

  operator Data&() { return data; }              // NOLINT
  operator const Data&() const { return data; }  // NOLINT

  Data data;
};

using TensorExample = Example<Tensor, example::NoTarget>;

}  // namespace ember::data
