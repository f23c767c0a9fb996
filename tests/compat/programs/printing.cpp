// libtorch's C++ print format in all its modes: integers, fixed with 4 decimals, a common scale
// factor, scientific, "Columns a to b" blocks of wide matrices, 3-d and 4-d tensors, bool, int64,
// float64, 0-dim, empty and non-finite values.
#include <cmath>
#include <iostream>

#include <torch/torch.h>

int main() {
  const double nan = NAN, inf = INFINITY;
  std::cout << torch::tensor({1.0, 2.0, 3.0}) << std::endl;
  std::cout << torch::tensor({0.5, -0.25}) << std::endl;
  std::cout << torch::tensor({123.456, -7.5}) << std::endl;
  std::cout << torch::tensor({123456.5, 7.25}) << std::endl;  // 10^5 * scale
  std::cout << torch::tensor({0.001, 0.0025}) << std::endl;   // 0.001 * scale
  std::cout << torch::tensor({1e-7, 1.0, 1e3}) << std::endl;  // scientific
  std::cout << torch::tensor({1e-120, 1.0}, torch::kDouble) << std::endl;
  std::cout << torch::tensor({-5.0, 0.5}) << std::endl;  // the signed comparison of libtorch
  std::cout << torch::tensor({3e10, 1.0}) << std::endl;  // large integers
  std::cout << torch::tensor({nan, 1.5, inf, -inf}) << std::endl;
  std::cout << torch::tensor({nan, inf}) << std::endl;
  std::cout << torch::tensor(2.5) << std::endl << torch::tensor(7, torch::kLong) << std::endl;
  std::cout << torch::zeros({0}) << std::endl << torch::zeros({2, 0}) << std::endl;
  std::cout << torch::tensor({true, false, true}) << std::endl;
  std::cout << torch::arange(6).view({2, 3}) << std::endl;
  std::cout << torch::arange(-3, 3, torch::kDouble).view({3, 2}) / 7 << std::endl;
  std::cout << torch::arange(24, torch::kFloat).view({2, 3, 4}) * 0.01 << std::endl;  // scale per matrix
  std::cout << torch::arange(16, torch::kFloat).view({2, 2, 2, 2}) - 8 << std::endl;
  std::cout << (torch::arange(30, torch::kFloat).view({2, 15}) - 10) / 3 << std::endl;  // two column blocks
  std::cout << torch::arange(40).view({2, 20}) << std::endl;
  std::cout << torch::arange(36, torch::kFloat).view({2, 18}) * 1e5 << std::endl;
  std::cout << torch::arange(6, torch::kFloat).view({1, 2, 3}) * 1e-3 << std::endl;
  std::cout << torch::tensor({{1e-9, 1.0}, {2.0, 1e9}}) << std::endl;
  std::cout << torch::tensor({{0.001, 0.002}, {0.003, 0.004}, {0.005, 0.006}}) << std::endl;
  std::cout << torch::arange(30, torch::kFloat).view({3, 10}) * 1e-3 << std::endl;
  std::cout << torch::tensor({{1e6, 2e6}, {3e6, 4.5e6}}) << std::endl;
  std::cout << torch::ones({2, 2}, torch::requires_grad()) * 3 << std::endl;
  torch::Tensor undefined;
  std::cout << undefined << std::endl;
  // Stream state set by the caller is kept: precision for 0-dim and integer values.
  std::cout.precision(3);
  std::cout << torch::tensor(3.14159) << std::endl << 2.718281 << std::endl;
}
