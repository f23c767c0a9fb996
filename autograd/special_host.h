// The host side the special functions share (autograd/aten_special.cpp, autograd/special.cpp):
// elementwise formulas evaluated on a contiguous CPU copy in the dtype's own arithmetic (double for
// float64, float otherwise, as PyTorch's CPU kernels), returned on the input's device, with a
// gradient composed of differentiable ops. Internal: not part of Ember's API.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <numbers>
#include <vector>

#include "autograd/elementwise.h"
#include "autograd/fused.h"
#include "autograd/grad_mode.h"
#include "autograd/node.h"
#include "core/error.h"

namespace ember::special_host {

constexpr double kPi = std::numbers::pi;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kTwoOverSqrtPi = 2 * std::numbers::inv_sqrtpi;

// erf^-1(x) in double (aten_special.cpp).
double erfinv_scalar(double x);

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

}  // namespace ember::special_host
