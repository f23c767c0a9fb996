// The one contract of an op that has a fused kernel, and the saving of tensors for backward.
//
//   record_fused("GeluBackward0", y, {x}, {x}, SaveOutput::kNo,
//                {.composed = [](const Tensor& g, const tensor_list& s) -> tensor_list { ... },
//                 .fused = [](const Tensor& g, const tensor_list& s) -> std::optional<tensor_list> { ... }});
//
// Forward, the op runs its fused kernel where the backend has one, else composes the same result
// from primitive ops (which record their own graph, so nothing here is involved). Backward, when
// the fused forward ran: the fused backward kernel, unless grad mode is on (create_graph wants a
// graph of the backward) or the backend has no such kernel (`fused` returns std::nullopt); then
// the composed formula, from differentiable ops. So a backend with only a fused forward still
// gets correct gradients, and the composed formula is the reference the kernel is tested against.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "autograd/node.h"
#include "core/tensor.h"

namespace ember::autograd {

// saved[i] is the i-th tensor given to record_fused, unpacked (undefined where it was undefined),
// followed by the op's output when it was saved too.
using BackwardFormula = std::function<tensor_list(const Tensor& grad, const tensor_list& saved)>;
using FusedBackwardKernel = std::function<std::optional<tensor_list>(const Tensor& grad, const tensor_list& saved)>;

struct FusedBackward {
  BackwardFormula composed = nullptr;  // from differentiable ops: any device, any grad mode
  FusedBackwardKernel fused = nullptr;  // optional: one pass; std::nullopt when the backend has no kernel
};

enum class SaveOutput : bool { kNo, kYes };

// Records `output` as node `name` of `inputs` (call only when any_requires_grad(inputs)), keeping
// `saved` and, with SaveOutput::kYes, the output itself for backward, each checked against
// in-place writes when unpacked. The output is kept without a reference cycle through the node.
std::shared_ptr<Node> record_fused(const std::string& name, const Tensor& output, const tensor_list& inputs,
                                   const tensor_list& saved, SaveOutput save_output, FusedBackward backward);

}  // namespace ember::autograd
