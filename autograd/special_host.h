// The host side the special functions share (autograd/aten_special.cpp, autograd/special.cpp):
// elementwise formulas evaluated on a contiguous CPU copy in the dtype's own arithmetic (double for
// float64, float otherwise, as PyTorch's CPU kernels), returned on the input's device, with a
// gradient composed of differentiable ops. Internal: not part of Ember's API.
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <limits>
#include <numbers>
#include <vector>

#include "autograd/elementwise.h"
#include "autograd/fused.h"
#include "autograd/grad_mode.h"
#include "autograd/node.h"
#include "core/error.h"
#include "core/kernel.h"

namespace ember::special_host {

constexpr double kPi = std::numbers::pi;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kTwoOverSqrtPi = 2 * std::numbers::inv_sqrtpi;

// erf^-1(x) in double (aten_special.cpp).
double erfinv_scalar(double x);

// exp(-|x|) I_nu(x) for nu = 0 or 1, in double (special.cpp; also special_bessel.cpp's I_0 and I_1).
double scaled_bessel_i(int nu, double x);
// Hurwitz's zeta(x, q) = sum_{n >= 0} (q + n)^-x in double, with PyTorch 1.13's edges (special_bessel.cpp;
// also polygamma's, aten_special.cpp).
double hurwitz_zeta(double x, double q);

inline std::vector<double> host_doubles(const Tensor& t) {
  return t.detach().to(kCPU).to(kFloat64).contiguous().to_vector<double>();
}
inline std::vector<int64_t> host_longs(const Tensor& t) {
  return t.detach().to(kCPU).to(kInt64).contiguous().to_vector<int64_t>();
}

// f of each element of a floating x on the host (in double for float64, else in float), back in
// x's dtype and on x's device.
template <typename F>
Tensor map_values(const Tensor& x, F f) {
  std::vector<double> values = host_doubles(x);
  const bool in_double = x.dtype() == kFloat64;
  for (double& v : values) v = in_double ? f(v) : static_cast<double>(f(static_cast<float>(v)));
  return from_vector<double>(values, x.sizes()).to(x.dtype()).to(x.device());
}

// A unary special function of self (integers and bool as the default float dtype) with the
// backward dout * derivative(x), where derivative is composed of differentiable ops.
template <typename F>
Tensor special_unary(const char* node, const Tensor& self, F f, std::function<Tensor(const Tensor&)> derivative) {
  const Tensor x = autograd::elementwise::to_float(self);
  Tensor y;
  {
    NoGradGuard no_grad;
    y = map_values(x, f);
  }
  if (autograd::any_requires_grad({&x})) {
    autograd::record_fused(
        node, y, {x}, {x}, autograd::SaveOutput::kNo,
        {.composed = [derivative = std::move(derivative)](const Tensor& dout, const tensor_list& saved) -> tensor_list {
          return {dout * derivative(saved[0])};
        }});
  }
  return y;
}

// The device of a binary op's result: the first operand's, unless it is a CPU scalar beside a
// tensor elsewhere (as PyTorch lets a 0-dim CPU tensor join a CUDA one).
inline Device result_device(const Tensor& a, const Tensor& b, const char* op) {
  if (a.device() == b.device()) return a.device();
  if (a.dim() == 0 && a.device().is_cpu()) return b.device();
  if (b.dim() == 0 && b.device().is_cpu()) return a.device();
  EMBER_FAIL("{}: Expected all tensors to be on the same device, but found at least two devices, {} and {}!", op,
             a.device().str(), b.device().str());
}

// f(a, b) over the broadcast a and b in the floating `type`, computed in double (float32 rounded
// from it), on the device PyTorch would give the result; no graph.
inline Tensor binary_values(const char* name, const Tensor& a, const Tensor& b, ScalarType type,
                            double (*f)(double, double)) {
  const Device device = result_device(a, b, name);
  NoGradGuard no_grad;
  tensor_list both;
  try {
    both = broadcast_tensors({a.detach().to(kCPU), b.detach().to(kCPU)});
  } catch (const std::exception& e) {
    EMBER_FAIL("{}: {}", name, e.what());
  }
  const std::vector<double> as = host_doubles(both[0].to(type)), bs = host_doubles(both[1].to(type));
  std::vector<double> out(as.size());
  for (size_t i = 0; i < as.size(); ++i) {
    const double v = f(as[i], bs[i]);
    out[i] = type == kFloat64 ? v : static_cast<double>(static_cast<float>(v));
  }
  return from_vector<double>(out, both[0].sizes()).to(type).to(device);
}

// Records y = f(self, other) with PyTorch's gradient for these ops: dout * derivative(self, other)
// for other, and for self a backward that throws "not implemented" as PyTorch's does (here whenever
// backward reaches the node while self requires grad, as Ember's nodes do not know which inputs
// the caller asked for).
inline Tensor with_gradient_of_other(const char* node, const char* missing, const Tensor& y, const Tensor& self,
                                     const Tensor& other,
                                     std::function<Tensor(const Tensor&, const Tensor&)> derivative) {
  if (!autograd::any_requires_grad({&self, &other})) return y;
  const tensor_list both = broadcast_tensors({self.to(y.dtype()).to(y.device()), other.to(y.dtype()).to(y.device())});
  const bool self_needs_grad = self.requires_grad();
  autograd::record_fused(node, y, both, both, autograd::SaveOutput::kNo,
                         {.composed = [=, derivative = std::move(derivative)](const Tensor& dout,
                                                                              const tensor_list& saved) -> tensor_list {
                           EMBER_CHECK(!self_needs_grad, "the derivative for '{}' is not implemented.", missing);
                           return {Tensor(), dout * derivative(saved[0], saved[1])};
                         }});
  return y;
}

}  // namespace ember::special_host
