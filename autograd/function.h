// Custom differentiable functions, written as libtorch users write them (torch::autograd::Function).
//
//   struct MyExp : ember::autograd::Function<MyExp> {
//     static ember::Tensor forward(ember::autograd::AutogradContext* ctx, ember::Tensor x) {
//       ember::Tensor y = x.exp();
//       ctx->save_for_backward({y});
//       return y;
//     }
//     static ember::autograd::variable_list backward(ember::autograd::AutogradContext* ctx,
//                                                    ember::autograd::variable_list grad_outputs) {
//       ember::Tensor y = ctx->get_saved_variables()[0];
//       return {grad_outputs[0] * y};  // d/dx exp(x) = exp(x)
//     }
//   };
//   ember::Tensor y = MyExp::apply(x);   // y.grad_fn()->name() == "MyExpBackward"
//
// forward runs with grad mode off and may take any arguments: Tensors and tensor_lists become
// the node's inputs (a tensor_list counts as one argument per element), everything else (double,
// int, std::string, ...) passes through untouched.
// It returns a Tensor or a variable_list; apply returns the same. backward gets one gradient per
// forward output and returns one per forward argument (an undefined Tensor for arguments that
// are not tensors or need no gradient). Its results are checked: wrong count, a gradient for a
// non-tensor argument, or a shape that cannot be summed back to the input's are errors naming
// the function. An in-place function modifies an input, marks it with ctx->mark_dirty({x}) and
// returns it: x then carries the function's history, as after a built-in in-place op (a leaf that
// requires grad cannot be modified, a dirty tensor must be returned; marking a view is not
// supported). Not supported: forward-mode AD.
//
// torch::autograd::UndefinedGrad().apply({x}) passes x through with a backward that returns no
// gradient, which is how libtorch tests what a custom backward receives for an unused output.
#pragma once

#include <string>
#include <type_traits>
#include <typeinfo>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "autograd/grad_mode.h"
#include "autograd/node.h"
#include "core/tensor.h"

namespace ember {

// A small tagged value for AutogradContext::saved_data (libtorch's IValue, reduced to the types
// a backward usually needs): none, bool, int, double, string, Tensor, list of ints.
class IValue {
 public:
  IValue() = default;
  IValue(bool v) : v_(v) {}  // NOLINT: implicit, as in libtorch
  template <typename I>
  requires(std::is_integral_v<I> && !std::is_same_v<I, bool>) IValue(I v) : v_(static_cast<int64_t>(v)) {}  // NOLINT
  template <typename F>
  requires std::is_floating_point_v<F> IValue(F v) : v_(static_cast<double>(v)) {}  // NOLINT
  IValue(std::string v) : v_(std::move(v)) {}                                       // NOLINT
  IValue(const char* v) : v_(std::string(v)) {}                                     // NOLINT
  IValue(Tensor v) : v_(std::move(v)) {}                                            // NOLINT
  IValue(std::vector<int64_t> v) : v_(std::move(v)) {}                              // NOLINT

  bool isNone() const { return v_.index() == 0; }
  bool isBool() const { return std::holds_alternative<bool>(v_); }
  bool isInt() const { return std::holds_alternative<int64_t>(v_); }
  bool isDouble() const { return std::holds_alternative<double>(v_); }
  bool isString() const { return std::holds_alternative<std::string>(v_); }
  bool isTensor() const { return std::holds_alternative<Tensor>(v_); }
  bool isIntList() const { return std::holds_alternative<std::vector<int64_t>>(v_); }

  // Each throws ember::Error naming both kinds when the value holds another kind.
  bool toBool() const { return get<bool>("Bool"); }
  int64_t toInt() const { return get<int64_t>("Int"); }
  double toDouble() const { return get<double>("Double"); }
  const std::string& toStringRef() const { return get<std::string>("String"); }
  const Tensor& toTensor() const { return get<Tensor>("Tensor"); }
  const std::vector<int64_t>& toIntVector() const { return get<std::vector<int64_t>>("IntList"); }
  // "None", "Bool", "Int", "Double", "String", "Tensor" or "IntList".
  const char* tagKind() const;

 private:
  template <typename T>
  const T& get(const char* kind) const {
    const T* p = std::get_if<T>(&v_);
    EMBER_CHECK(p != nullptr, "IValue: expected {} but got {}", kind, tagKind());
    return *p;
  }
  std::variant<std::monostate, bool, int64_t, double, std::string, Tensor, std::vector<int64_t>> v_;
};

namespace autograd {

using variable_list = tensor_list;

// What forward hands to backward: saved tensors (checked against in-place writes), saved
// non-tensor values, and which inputs need a gradient.
class AutogradContext {
 public:
  // Tensors backward needs; inputs or outputs of forward. Call at most once, in forward.
  void save_for_backward(variable_list to_save) { to_save_ = std::move(to_save); }
  // The tensors given to save_for_backward. Throws if one was modified in place since, or if
  // the graph was already freed by an earlier backward.
  variable_list get_saved_variables() const;
  // Outputs that get no gradient (indices, masks): they do not require grad.
  void mark_non_differentiable(const variable_list& outputs);
  // Inputs that forward modified in place; each must also be returned as an output.
  void mark_dirty(const variable_list& inputs);
  // When true (the default) backward receives zeros for outputs no gradient flowed into;
  // when false it receives undefined tensors there.
  void set_materialize_grads(bool value) { materialize_grads_ = value; }
  // Whether tensor input `index` (counting tensor arguments of forward only) needs a gradient.
  bool needs_input_grad(size_t index) const;

  // Non-tensor values for backward: ctx->saved_data["scale"] = 2.5; ...toDouble().
  std::unordered_map<std::string, IValue> saved_data;

 private:
  friend struct FunctionWiring;
  variable_list to_save_;
  std::vector<SavedVariable> saved_;
  std::vector<TensorImpl*> non_differentiable_;
  std::vector<TensorImpl*> dirty_;
  std::vector<bool> needs_input_grad_;
  std::string name_;
  bool materialize_grads_ = true;
};

// The non-template part of Function<T>::apply (autograd/function.cpp).
struct FunctionWiring {
  using Backward = variable_list (*)(AutogradContext*, variable_list);
  // Demangles T's name and appends "Backward": "MyExpBackward".
  static std::string node_name(const std::type_info& type);
  // Records the node when an input requires grad; `outputs` may be replaced by fresh handles
  // (an output that is an input itself gets its own history without touching the input's).
  static void connect(const std::shared_ptr<AutogradContext>& ctx, std::string name, std::vector<bool> is_tensor_arg,
                      const tensor_list& inputs, tensor_list& outputs, Backward backward);
  // Collects forward's tensor arguments: one flag per argument (per element for a tensor_list).
  static void collect(std::vector<bool>& is_tensor, tensor_list& tensors, const Tensor& t) {
    is_tensor.push_back(true);
    tensors.push_back(t);
  }
  static void collect(std::vector<bool>& is_tensor, tensor_list& tensors, const tensor_list& ts) {
    for (const Tensor& t : ts) collect(is_tensor, tensors, t);
  }
  template <typename Other>
  static void collect(std::vector<bool>& is_tensor, tensor_list&, const Other&) {
    is_tensor.push_back(false);
  }
};

template <class T>
struct Function {
  template <typename... Args>
  static auto apply(Args&&... args) {
    using Out = decltype(T::forward(std::declval<AutogradContext*>(), std::forward<Args>(args)...));
    static_assert(std::is_same_v<Out, Tensor> || std::is_same_v<Out, variable_list>,
                  "autograd::Function: forward must return ember::Tensor or ember::autograd::variable_list");
    auto ctx = std::make_shared<AutogradContext>();
    std::vector<bool> is_tensor_arg;
    tensor_list inputs;
    (FunctionWiring::collect(is_tensor_arg, inputs, args), ...);

    Out out;
    {
      AutoGradMode grad_mode(false);
      out = T::forward(ctx.get(), std::forward<Args>(args)...);
    }
    tensor_list outputs;
    if constexpr (std::is_same_v<Out, Tensor>) {
      outputs = {out};
    } else {
      outputs = std::move(out);
    }
    FunctionWiring::connect(ctx, FunctionWiring::node_name(typeid(T)), std::move(is_tensor_arg), inputs, outputs,
                            &T::backward);
    if constexpr (std::is_same_v<Out, Tensor>) {
      return outputs[0];
    } else {
      return outputs;
    }
  }
};

// Passes its inputs through (as new tensors) with a backward that returns undefined gradients.
struct UndefinedGrad {
  variable_list apply(variable_list&& inputs);
};

}  // namespace autograd
}  // namespace ember
