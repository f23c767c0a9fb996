// gradcheck: compares the gradients autograd computes with central finite differences, as
// torch.autograd.gradcheck does. For users checking a custom Function, and for Ember's own tests.
//
//   auto x = ember::tensor({0.5, -1.2, 2.0}, ember::dtype(ember::kFloat64).requires_grad(true));
//   bool ok = ember::autograd::gradcheck([](const ember::tensor_list& in) { return (in[0] * in[0]).sin(); }, {x});
//
// For every input that requires grad and every output, the numerical Jacobian
//   J_num[j][k] = (out_k(x + eps e_j) - out_k(x - eps e_j)) / (2 eps)
// is compared with the analytical one, built row by row from one vector-Jacobian product
// (autograd::grad with a one-hot grad_output) per output element. Elements pass when
// |J_ana - J_num| <= atol + rtol * |J_num|. Inputs that require grad must be float64: in float32
// the finite differences are too noisy for these tolerances. Cost: 2 forwards per input element
// and one backward per output element, so keep the shapes small.
#pragma once

#include <functional>
#include <type_traits>

#include "core/tensor.h"

namespace ember::autograd {

using GradcheckFn = std::function<tensor_list(const tensor_list& inputs)>;

// Returns true when the Jacobians agree. On a mismatch throws ember::Error naming the input, the
// output and the worst element with both values, or returns false when raise_exception is false.
bool gradcheck(const GradcheckFn& fn, const tensor_list& inputs, double eps = 1e-6, double atol = 1e-5,
               double rtol = 1e-3, bool raise_exception = true);

// Second derivatives: checks the gradient of the vector-Jacobian product
// (inputs, v) -> autograd::grad(fn(inputs), inputs, v, create_graph=true) with gradcheck, for fixed
// grad_outputs v (deterministic values in [-1, 1]); as torch.autograd.gradgradcheck.
bool gradgradcheck(const GradcheckFn& fn, const tensor_list& inputs, double eps = 1e-6, double atol = 1e-5,
                   double rtol = 1e-3, bool raise_exception = true);

// The same for a function returning one tensor: [](const tensor_list& in) { return in[0].exp(); }
template <typename F>
requires std::is_convertible_v<std::invoke_result_t<F, const tensor_list&>, Tensor>
bool gradcheck(F fn, const tensor_list& inputs, double eps = 1e-6, double atol = 1e-5, double rtol = 1e-3,
               bool raise_exception = true) {
  GradcheckFn wrapped = [fn](const tensor_list& in) { return tensor_list{fn(in)}; };
  return gradcheck(wrapped, inputs, eps, atol, rtol, raise_exception);
}

template <typename F>
requires std::is_convertible_v<std::invoke_result_t<F, const tensor_list&>, Tensor>
bool gradgradcheck(F fn, const tensor_list& inputs, double eps = 1e-6, double atol = 1e-5, double rtol = 1e-3,
                   bool raise_exception = true) {
  GradcheckFn wrapped = [fn](const tensor_list& in) { return tensor_list{fn(in)}; };
  return gradgradcheck(wrapped, inputs, eps, atol, rtol, raise_exception);
}

}  // namespace ember::autograd
