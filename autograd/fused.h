// The one contract of an op that has a fused kernel, and the saving of tensors for backward.
//
//   return apply_fused({.name = "GeluBackward0", .inputs = {x}, .saved = {x},
//                       .forward = {.fused = [&]() -> std::optional<tensor_list> { ... one kernel ... },
//                                   .composed = [&] { ... the same from differentiable ops ... }},
//                       .backward = {.composed = [](const Tensor& g, const tensor_list& s) -> tensor_list { ... },
//                                    .fused = [](const Tensor& g, const tensor_list& s)
//                                        -> std::optional<tensor_list> { ... }}});
//
// Forward: the op's fused kernel where the backend has one (its output then becomes one node of the
// graph), else the same result composed from primitive ops (which record their own graph). Backward,
// when the fused forward ran: the fused backward kernel, unless grad mode is on (create_graph wants
// a graph of the backward) or the backend has no such kernel (`fused` returns std::nullopt); then the
// composed formula, from differentiable ops. So a backend with only a fused forward still gets
// correct gradients, and the composed formulas are the reference the kernels are tested against.
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
  BackwardFormula composed = nullptr;   // from differentiable ops: any device, any grad mode
  FusedBackwardKernel fused = nullptr;  // optional: one pass; std::nullopt when the backend has no kernel
};

enum class SaveOutput : bool { kNo, kYes };

// The forward half: one pass on the backend, or the composition.
struct FusedForward {
  // Runs without grad mode. The output first, then what the fused backward needs besides the op's
  // saved tensors (appended to them); std::nullopt when the backend has no such kernel.
  std::function<std::optional<tensor_list>()> fused = nullptr;
  // The same output from differentiable ops; null when `fused` always answers (its kernel is one
  // every backend has, or it composes at the kernel level itself).
  std::function<Tensor()> composed = nullptr;
};

// An op with a fused kernel: its node's name (as PyTorch records it), its differentiable inputs
// (the order of the gradients backward returns), what backward keeps, and the two halves.
struct FusedOp {
  std::string name;
  tensor_list inputs = {};
  tensor_list saved = {};
  SaveOutput save_output = SaveOutput::kNo;
  FusedForward forward = {};
  FusedBackward backward = {};
};

// Runs op.forward.fused, or op.forward.composed where the backend said no; records the fused
// output as node op.name when an input requires grad, keeping saved + the kernel's extra outputs
// (+ the output with SaveOutput::kYes) in that order.
Tensor apply_fused(const FusedOp& op);

// Records `output` as node `name` of `inputs` (call only when any_requires_grad(inputs)), keeping
// `saved` and, with SaveOutput::kYes, the output itself for backward, each checked against
// in-place writes when unpacked. The output is kept without a reference cycle through the node.
std::shared_ptr<Node> record_fused(const std::string& name, const Tensor& output, const tensor_list& inputs,
                                   const tensor_list& saved, SaveOutput save_output, FusedBackward backward);

}  // namespace ember::autograd
