// The public autograd API, mirroring torch::autograd.
//
//   auto x = ember::tensor({1.0, 2.0}, ember::requires_grad());
//   auto y = (x * x).sum();
//   auto [dx] = std::array{ember::autograd::grad({y}, {x}, {}, std::nullopt, true)[0]};  // 2x, differentiable
//
// backward() accumulates into leaves' .grad(); grad() returns gradients and touches no .grad().
#pragma once

#include <optional>

#include "autograd/grad_mode.h"
#include "autograd/node.h"
#include "core/tensor.h"

namespace ember::autograd {

void backward(const tensor_list& tensors, const tensor_list& grad_tensors = {},
              std::optional<bool> retain_graph = std::nullopt, bool create_graph = false,
              const tensor_list& inputs = {});

tensor_list grad(const tensor_list& outputs, const tensor_list& inputs, const tensor_list& grad_outputs = {},
                 std::optional<bool> retain_graph = std::nullopt, bool create_graph = false, bool allow_unused = false);

// A new tensor sharing data's storage, without history, requiring grad as asked (libtorch's make_variable).
Tensor make_variable(const Tensor& data, bool requires_grad = false);

}  // namespace ember::autograd
