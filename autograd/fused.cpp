// apply_fused and record_fused (see fused.h): the choice between a fused kernel and the composed
// ops, forward and backward, made in one place for every op.
#include "autograd/fused.h"

#include <vector>

#include "autograd/autograd.h"

namespace ember::autograd {

std::shared_ptr<Node> record_fused(const std::string& name, const Tensor& output, const tensor_list& inputs,
                                   const tensor_list& saved, SaveOutput save_output, FusedBackward backward) {
  auto slots = std::make_shared<std::vector<SavedVariable>>();
  slots->reserve(saved.size() + 1);
  for (const Tensor& t : saved) slots->emplace_back(t, false);
  auto node =
      record(name, output, inputs, [slots, name, backward = std::move(backward)](const Tensor& g) -> tensor_list {
        tensor_list values;
        values.reserve(slots->size());
        for (const SavedVariable& v : *slots) values.push_back(v.unpack(name));
        if (backward.fused && !GradMode::is_enabled())
          if (std::optional<tensor_list> d = backward.fused(g, values)) return std::move(*d);
        return backward.composed(g, values);
      });
  // After record: the output's SavedVariable links weakly to the node that now produces it.
  if (save_output == SaveOutput::kYes) slots->emplace_back(output, true);
  return node;
}

Tensor apply_fused(const FusedOp& op) {
  std::optional<tensor_list> result;
  {
    NoGradGuard no_grad;  // kernels only: the node is recorded below
    result = op.forward.fused();
  }
  if (!result) {
    EMBER_CHECK(op.forward.composed, "{}: the backend has no fused kernel and the op gave no composed form", op.name);
    return op.forward.composed();
  }
  const Tensor output = result->front();
  if (!any_requires_grad(op.inputs)) return output;
  tensor_list saved = op.saved;
  saved.insert(saved.end(), result->begin() + 1, result->end());
  record_fused(op.name, output, op.inputs, saved, op.save_output, op.backward);
  return output;
}

}  // namespace ember::autograd
