// What elementwise.cpp and math.cpp share: the float promotion of integer inputs, scalar wrapping,
// the unary-op-with-local-derivative pattern and the in-place commit. Internal to autograd/.
#pragma once

#include <functional>

#include "core/kernel.h"
#include "core/tensor.h"

namespace ember::autograd::elementwise {

// Float ops (exp, log, ...) on integer and bool tensors compute in the default float dtype, as PyTorch does.
inline Tensor to_float(const Tensor& x) { return x.is_floating_point() ? x : kernel::cast(x, get_default_dtype()); }

// A Scalar as a 0-dim tensor of the dtype PyTorch promotes `like` and it to.
inline Tensor wrap(const Tensor& like, const Scalar& s) {
  return kernel::scalar(s, kernel::result_type(like, s), like.device());
}

// Local derivative of a unary op from its input x or its output y (the other is undefined).
using LocalDerivative = std::function<Tensor(const Tensor& x, const Tensor& y)>;

// The forward of a unary op on to_float(x_in) plus a backward `dout * local(x, y)`, keeping x or y as
// `saves_output` says. `name` is the backward node's name (PyTorch's, e.g. "ExpBackward0").
Tensor unary_op(UnaryOp op, const char* name, const Tensor& x_in, LocalDerivative local, bool saves_output);

// Integer division (a result type that is not floating) by a zero in b is PyTorch's
// "ZeroDivisionError", named after `op`; floating division gives inf or NaN and passes.
void check_integer_divisor(const char* op, const Tensor& a, const Tensor& b);

// self = f(self), for in-place unary forms: f sees a clone when autograd needs the old value,
// and the result is committed into self (autograd/inplace.cpp checks that its dtype fits).
Tensor& inplace_unary(Tensor& self, const char* name, const std::function<Tensor(const Tensor&)>& f);

}  // namespace ember::autograd::elementwise
