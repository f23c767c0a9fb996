// Elementwise math as libtorch programs call it: trigonometric and hyperbolic functions, rounding,
// division with a rounding mode, atan2, hypot, logaddexp, xlogy, lerp, addcmul/addcdiv, their
// in-place and out= forms, libtorch's other spellings, and gradients through them.
#include <iostream>
#include <limits>

#include <torch/torch.h>

int main() {
  torch::manual_seed(7);
  torch::Tensor x = torch::rand({2, 4}) * 1.8 - 0.9;  // (-0.9, 0.9)
  torch::Tensor y = torch::randn({2, 4}) * 3;
  std::cout << torch::tan(x) << '\n' << torch::asin(x) << '\n' << torch::arccos(x) << '\n';
  std::cout << torch::atan(y) << '\n' << torch::sinh(x) << '\n' << torch::cosh(x) << '\n';
  std::cout << torch::asinh(y) << '\n' << torch::acosh(y.abs() + 1) << '\n' << torch::atanh(x) << '\n';
  std::cout << torch::expm1(x) << '\n' << torch::exp2(y) << '\n' << torch::log2(y.abs()) << '\n';
  std::cout << torch::log10(y.abs()) << '\n' << torch::sinc(y) << '\n' << torch::deg2rad(y * 30) << '\n';
  std::cout << torch::logit(x.abs()) << '\n' << torch::logit(x, 0.25) << '\n';
  std::cout << torch::floor(y) << '\n' << torch::ceil(y) << '\n' << torch::round(y) << '\n';
  std::cout << torch::trunc(y) << '\n' << torch::frac(y) << '\n' << torch::round(y, 1) << '\n';
  std::cout << torch::div(y, x, "floor") << '\n' << torch::div(y, 0.7, "trunc") << '\n';
  std::cout << torch::floor_divide(y, 0.3) << '\n' << y.divide(x, "floor") << '\n';
  std::cout << torch::atan2(y, x) << '\n' << torch::hypot(x, y) << '\n';
  std::cout << torch::logaddexp(x, y) << '\n' << torch::logaddexp2(x, y) << '\n';
  std::cout << torch::xlogy(x, y.abs()) << '\n' << torch::float_power(y.abs(), x) << '\n';
  std::cout << torch::lerp(x, y, 0.25) << '\n' << torch::lerp(x, y, x.abs()) << '\n';
  std::cout << torch::addcmul(x, x, y, 0.5) << '\n' << torch::addcdiv(x, y, x.abs() + 1, -2) << '\n';
  std::cout << torch::clip(y, -1, 1) << '\n' << torch::fix(y) << '\n' << torch::negative(x) << '\n';
  std::cout << y.greater(x) << '\n' << y.less_equal(0) << '\n';

  // integers: rounding keeps them, floor division rounds toward -inf
  torch::Tensor n = torch::arange(-5, 5);
  std::cout << torch::floor(n) << '\n' << torch::div(n, 3, "floor") << '\n' << torch::div(n, 3, "trunc") << '\n';
  std::cout << torch::floor_divide(n, -4) << '\n' << torch::atan2(n, n + 6) << '\n';

  // special values
  const double kInf = std::numeric_limits<double>::infinity();
  torch::Tensor s = torch::tensor({0.5, 1.5, 2.5, -0.5, std::nan(""), kInf, -kInf});
  std::cout << torch::round(s) << '\n' << torch::nan_to_num(s) << '\n' << torch::nan_to_num(s, 0.0, 9.0, -9.0) << '\n';

  // in place and out=
  torch::Tensor z = x.clone();
  z.tan_().atan_();
  std::cout << z << '\n';
  torch::Tensor w = y.clone();
  w.floor_divide_(2).clamp_(-3, 3);
  std::cout << w << '\n';
  torch::Tensor out = torch::empty({2, 4});
  torch::floor_out(out, y);
  std::cout << out << '\n';
  torch::atan2_out(out, x, y);
  std::cout << out << '\n';

  // gradients
  torch::Tensor a = x.clone().requires_grad_(true), b = y.clone().requires_grad_(true);
  (torch::atan2(a, b) + torch::hypot(a, b) + torch::logaddexp(a, b) + a.tan() + a.asin() + b.sinc() +
   torch::lerp(a, b, 0.6) + torch::addcdiv(a, a, b.abs() + 1) + torch::xlogy(a, b.abs()) + b.floor())
      .sum()
      .backward();
  std::cout << a.grad() << '\n' << b.grad() << '\n';
}
