// ATen's special and bit functions as a libtorch program calls them: lgamma, digamma, polygamma,
// erfinv and mvlgamma (values, poles, integer inputs, gradients and a second derivative),
// bitwise_and/or/xor/not and the shifts on bool and integer tensors (promotion, scalars), gcd, lcm,
// frexp, ldexp, nextafter and copysign, and the errors for floating bitwise input and bad p.
#include <iomanip>
#include <iostream>
#include <string>

#include <torch/torch.h>

namespace {

std::string first_line(const char* what) {
  std::string s(what);
  return s.substr(0, s.find('\n'));
}

}  // namespace

int main() {
  std::cout << std::setprecision(6);
  auto x = torch::tensor({0.5, 1.0, 2.5, 7.0, -1.5}, torch::kFloat64).requires_grad_();
  auto lg = torch::lgamma(x);
  lg.sum().backward();
  std::cout << "lgamma\n" << lg << "\ngrad (digamma)\n" << x.grad() << "\n";
  std::cout << "digamma\n" << torch::digamma(x.detach()) << "\n";
  for (int64_t n = 1; n <= 3; ++n) std::cout << "polygamma " << n << "\n" << torch::polygamma(n, x.detach()) << "\n";
  auto y = torch::tensor({1.5f, 3.0f}).requires_grad_();
  auto dy = torch::autograd::grad({torch::digamma(y).sum()}, {y}, {}, true, true)[0];
  auto d2y = torch::autograd::grad({dy.sum()}, {y})[0];
  std::cout << "digamma' (trigamma)\n" << dy << "\ndigamma'' (polygamma 2)\n" << d2y << "\n";
  auto poles = torch::tensor({0.0f, -1.0f, -2.5f, 1e-3f});
  std::cout << "poles lgamma\n"
            << torch::lgamma(poles) << "\npoles digamma\n"
            << torch::digamma(poles) << "\npoles polygamma 2\n"
            << torch::polygamma(2, poles) << "\n";
  std::cout << "integer lgamma\n" << torch::lgamma(torch::arange(1, 6)) << "\n";
  auto u = torch::tensor({-0.9f, -0.5f, 0.0f, 0.25f, 0.99f}).requires_grad_();
  auto e = torch::erfinv(u);
  e.sum().backward();
  std::cout << "erfinv\n"
            << e << "\ngrad\n"
            << u.grad() << "\nerfinv edges\n"
            << torch::erfinv(torch::tensor({1.0f, -1.0f, 1.5f})) << "\n";
  auto m = torch::tensor({{2.0, 3.5}, {1.25, 10.0}}, torch::kFloat64).requires_grad_();
  auto mv = torch::mvlgamma(m, 3);
  mv.sum().backward();
  std::cout << "mvlgamma p=3\n" << mv << "\ngrad\n" << m.grad() << "\n";

  auto a = torch::tensor({12, -7, 255, 0}, torch::kInt64);
  auto b = torch::tensor({10, 3, 15, -1}, torch::kInt64);
  std::cout << "bitwise_and\n"
            << torch::bitwise_and(a, b) << "\nbitwise_or\n"
            << torch::bitwise_or(a, b) << "\nbitwise_xor\n"
            << torch::bitwise_xor(a, b) << "\nbitwise_not\n"
            << torch::bitwise_not(a) << "\n";
  auto bytes = torch::tensor({3, 200, 255}, torch::kUInt8);
  std::cout << "uint8 and int8 -> int16\n"
            << torch::bitwise_xor(bytes, torch::tensor({-1, 5, 7}, torch::kInt8)) << "\n";
  std::cout << "uint8 & 0x0f\n" << torch::bitwise_and(bytes, 0x0f) << "\n";
  auto m1 = torch::tensor({true, false, true});
  auto m2 = torch::tensor({true, true, false});
  std::cout << "bool and/or/xor/not\n"
            << torch::bitwise_and(m1, m2) << "\n"
            << torch::bitwise_or(m1, m2) << "\n"
            << torch::bitwise_xor(m1, m2) << "\n"
            << torch::bitwise_not(m1) << "\n";
  std::cout << "shifts\n"
            << torch::bitwise_left_shift(a, 2) << "\n"
            << torch::bitwise_right_shift(a, torch::tensor({1, 2, 4, 0})) << "\n"
            << torch::bitwise_left_shift(1, torch::arange(5)) << "\n";
  std::cout << "gcd\n"
            << torch::gcd(a, b) << "\nlcm\n"
            << torch::lcm(torch::tensor({4, 6, 0, 21}), torch::tensor({6, 4, 5, 6})) << "\n";
  auto g = torch::tensor({12, 18, 7});
  torch::gcd_(g, torch::tensor({8, 12, 0}));
  std::cout << "gcd_\n" << g << "\n";

  auto [mantissa, exponent] = torch::frexp(torch::tensor({8.0f, 0.3f, -5.0f, 0.0f}));
  std::cout << "frexp\n" << mantissa << "\n" << exponent << "\n";
  std::cout << "ldexp\n" << torch::ldexp(torch::tensor({1.0f, -0.75f, 3.0f}), torch::tensor({3, -2, 0})) << "\n";
  std::cout << "nextafter\n"
            << (torch::nextafter(torch::tensor({1.0}, torch::kFloat64), torch::tensor({2.0}, torch::kFloat64)) - 1.0)
            << "\n";
  auto s = torch::tensor({1.5f, -2.0f, 0.0f}).requires_grad_();
  auto c = torch::copysign(s, torch::tensor({-1.0f, 1.0f, -1.0f}));
  c.sum().backward();
  std::cout << "copysign\n"
            << c << "\ngrad\n"
            << s.grad() << "\ncopysign scalar\n"
            << torch::copysign(torch::tensor({1, -2}), -1) << "\n";

  try {
    torch::bitwise_and(torch::ones({2}), torch::ones({2}));
  } catch (const c10::Error& err) {
    std::cout << "error: " << first_line(err.what()) << "\n";
  }
  try {
    torch::gcd(torch::tensor({true}), torch::tensor({false}));
  } catch (const c10::Error& err) {
    std::cout << "error: " << first_line(err.what()) << "\n";
  }
  try {
    torch::mvlgamma(torch::ones({2}), 0);
  } catch (const c10::Error& err) {
    std::cout << "error: " << first_line(err.what()) << "\n";
  }
  return 0;
}
