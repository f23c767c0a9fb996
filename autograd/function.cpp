// Custom autograd functions (autograd/function.h): the node that calls the user's backward, and
// the checks on what it returns.
//
// A custom function is recorded like any built-in op, through record() and a FunctionNode whose
// closure owns the AutogradContext. Releasing the node after backward therefore frees the saved
// tensors, and a second backward without retain_graph fails with the usual message.
#include "autograd/function.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

#include "autograd/autograd.h"

namespace ember {

const char* IValue::tagKind() const {
  static const char* const kinds[] = {"None", "Bool", "Int", "Double", "String", "Tensor", "IntList"};
  return kinds[v_.index()];
}

namespace autograd {

variable_list AutogradContext::get_saved_variables() const {
  variable_list out;
  out.reserve(saved_.size());
  for (const SavedVariable& s : saved_) out.push_back(s.unpack(name_));
  return out;
}

void AutogradContext::mark_non_differentiable(const variable_list& outputs) {
  for (const Tensor& t : outputs)
    if (t.defined()) non_differentiable_.push_back(t.unsafeGetTensorImpl());
}

void AutogradContext::mark_dirty(const variable_list& inputs) {
  for (const Tensor& t : inputs)
    if (t.defined()) dirty_.push_back(t.unsafeGetTensorImpl());
}

bool AutogradContext::needs_input_grad(size_t index) const {
  EMBER_CHECK(index < needs_input_grad_.size() || needs_input_grad_.empty(),
              "{}: needs_input_grad({}) but forward has {} tensor inputs", name_, index, needs_input_grad_.size());
  return index < needs_input_grad_.size() && needs_input_grad_[index];
}

std::string FunctionWiring::node_name(const std::type_info& type) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> demangled(abi::__cxa_demangle(type.name(), nullptr, nullptr, &status),
                                                   std::free);
  std::string name = status == 0 ? demangled.get() : type.name();
  // Keep the last component: "(anonymous namespace)::MyExp" -> "MyExp".
  const size_t colon = name.rfind("::");
  if (colon != std::string::npos) name = name.substr(colon + 2);
  return name + "Backward";
}

namespace {

// Shape and dtype of a forward tensor, for checking and materialising gradients.
struct TensorInfo {
  std::vector<int64_t> sizes;
  TensorOptions options;
  bool defined = false;
};

TensorInfo info_of(const Tensor& t) {
  if (!t.defined()) return {};
  return {t.sizes().vec(), t.options(), true};
}

// input's shape expands to grad's (so the gradient can be summed back to it).
bool expandable_to(IntArrayRef input, IntArrayRef grad) {
  if (input.size() > grad.size()) return false;
  const size_t lead = grad.size() - input.size();
  for (size_t d = 0; d < input.size(); ++d)
    if (input[d] != 1 && input[d] != grad[lead + d]) return false;
  return true;
}

// Checks the user's backward results and keeps one gradient per tensor input.
tensor_list validate(const std::string& name, variable_list grads, const std::vector<bool>& is_tensor_arg,
                     const std::vector<TensorInfo>& inputs) {
  const size_t expected = is_tensor_arg.size();
  // Returning too many is fine when the extra ones are undefined (as in libtorch).
  if (grads.size() > expected && std::none_of(grads.begin() + static_cast<std::ptrdiff_t>(expected), grads.end(),
                                              [](const Tensor& g) { return g.defined(); }))
    grads.resize(expected);
  EMBER_CHECK(grads.size() == expected,
              "function {} returned an incorrect number of gradients (expected {}, got {}): backward returns one "
              "gradient per forward argument, an undefined Tensor() for arguments that are not tensors",
              name, expected, grads.size());
  tensor_list out;
  for (size_t i = 0; i < expected; ++i) {
    if (!is_tensor_arg[i]) {
      EMBER_CHECK(!grads[i].defined(),
                  "function {} returned a defined gradient at index {}, but the corresponding forward argument is "
                  "not a tensor; return Tensor() there",
                  name, i);
      continue;
    }
    const TensorInfo& in = inputs[out.size()];
    Tensor g = grads[i];
    if (g.defined() && in.defined) {
      if (g.sizes() != IntArrayRef(in.sizes)) {
        EMBER_CHECK(expandable_to(in.sizes, g.sizes()),
                    "function {} returned an invalid gradient at index {} - got {} but expected shape compatible "
                    "with {}",
                    name, i, g.sizes(), in.sizes);
        g = sum_to(g, in.sizes);
      }
      if (g.dtype() != in.options.dtype()) g = g.to(in.options.dtype());
    }
    out.push_back(g);
  }
  return out;
}

}  // namespace

void FunctionWiring::connect(const std::shared_ptr<AutogradContext>& ctx, std::string name,
                             std::vector<bool> is_tensor_arg, const tensor_list& inputs, tensor_list& outputs,
                             Backward backward) {
  ctx->name_ = name;
  const auto is_dirty = [&](const Tensor& t) {
    return t.defined() &&
           std::find(ctx->dirty_.begin(), ctx->dirty_.end(), t.unsafeGetTensorImpl()) != ctx->dirty_.end();
  };
  for (TensorImpl* dirty : ctx->dirty_) {
    const bool returned =
        std::any_of(outputs.begin(), outputs.end(), [&](const Tensor& o) { return o.unsafeGetTensorImpl() == dirty; });
    EMBER_CHECK(returned,
                "{}: Some elements marked as dirty during the forward method were not returned as output. "
                "The inputs that are modified inplace must all be outputs of the Function.",
                name);
  }
  for (const Tensor& in : inputs) {
    if (!is_dirty(in)) continue;
    AutogradMeta* m = meta(in);
    EMBER_CHECK(!(m && m->requires_grad && !m->grad_fn && GradMode::is_enabled()),
                "{}: a leaf Variable that requires grad has been used in an in-place operation.", name);
    EMBER_CHECK(!(m && m->view_base.defined()),
                "{}: mark_dirty on a view is not supported by Ember; modify and return the base tensor instead", name);
    in.bump_version();
  }
  // An output that is one of the inputs gets its own handle, so the input keeps its history,
  // unless forward marked it dirty: then the input itself takes the new history, as in-place ops do.
  for (Tensor& out : outputs)
    for (const Tensor& in : inputs)
      if (out.defined() && out.is_same(in) && !is_dirty(in)) out = out.detach();
  if (!any_requires_grad(inputs)) return;

  std::vector<TensorInfo> input_info;
  for (const Tensor& in : inputs) {
    input_info.push_back(info_of(in));
    ctx->needs_input_grad_.push_back(in.defined() && in.requires_grad());
  }
  std::vector<TensorInfo> output_info;
  tensor_list differentiable = outputs;
  for (Tensor& out : differentiable) {
    output_info.push_back(info_of(out));
    const auto& nd = ctx->non_differentiable_;
    if (out.defined() && std::find(nd.begin(), nd.end(), out.unsafeGetTensorImpl()) != nd.end()) out = Tensor();
  }

  std::shared_ptr<Node> node =
      record(name, differentiable, inputs,
             [ctx, name, is_tensor_arg = std::move(is_tensor_arg), input_info = std::move(input_info),
              output_info = std::move(output_info), backward](const tensor_list& grads_in) -> tensor_list {
               variable_list grads(grads_in.begin(), grads_in.end());
               grads.resize(output_info.size());
               if (ctx->materialize_grads_)
                 for (size_t i = 0; i < grads.size(); ++i)
                   if (!grads[i].defined() && output_info[i].defined)
                     grads[i] = zeros(output_info[i].sizes, output_info[i].options);
               return validate(name, backward(ctx.get(), std::move(grads)), is_tensor_arg, input_info);
             });
  node->runs_without_grads = true;

  // Saved after record(), so a saved output links (weakly) to the node that produced it.
  for (const Tensor& t : ctx->to_save_) {
    const bool is_output = std::any_of(outputs.begin(), outputs.end(), [&](const Tensor& o) { return o.is_same(t); });
    ctx->saved_.emplace_back(t, is_output);
  }
  ctx->to_save_.clear();
}

variable_list UndefinedGrad::apply(variable_list&& inputs) {
  variable_list outputs;
  {
    NoGradGuard no_grad;
    for (const Tensor& in : inputs) outputs.push_back(in.defined() ? in.clone() : Tensor());
  }
  if (any_requires_grad(inputs))
    record("UndefinedGradBackward", outputs, inputs,
           [n = inputs.size()](const tensor_list&) { return tensor_list(n); });
  return outputs;
}

}  // namespace autograd
}  // namespace ember
