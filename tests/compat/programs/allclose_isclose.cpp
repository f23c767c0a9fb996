// torch::allclose / Tensor::allclose / torch::isclose with rtol, atol and equal_nan; torch::equal.
#include <cmath>
#include <iostream>
#include <limits>

#include <torch/torch.h>

int main() {
  std::cout << std::boolalpha;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  torch::Tensor a = torch::tensor({1.0, 2.0, 3.0});
  torch::Tensor b = torch::tensor({1.0, 2.00001, 3.0001});
  std::cout << torch::allclose(a, b) << ' ' << a.allclose(b, 1e-4) << ' ' << a.allclose(b, 0, 2e-4) << '\n';
  std::cout << torch::isclose(a, b) << '\n';
  std::cout << torch::isclose(a, b, /*rtol=*/0, /*atol=*/1e-5) << '\n';
  torch::Tensor p = torch::tensor({nan, inf, -inf, 1.0});
  torch::Tensor q = torch::tensor({nan, inf, inf, 1.0});
  std::cout << torch::isclose(p, q) << '\n';
  std::cout << torch::isclose(p, q, 1e-5, 1e-8, /*equal_nan=*/true) << '\n';
  std::cout << torch::allclose(p, p) << ' ' << torch::allclose(p, p, 1e-5, 1e-8, true) << '\n';
  // Broadcasting, and integers.
  std::cout << torch::allclose(torch::ones({2, 3}), torch::ones({3})) << '\n';
  torch::Tensor i = torch::tensor({100, 200}), j = torch::tensor({101, 200});
  std::cout << torch::isclose(i, j, 0.01, 0) << ' ' << torch::allclose(i, j, 0.001, 0) << '\n';
  std::cout << torch::equal(a, a.clone()) << ' ' << torch::equal(a, b) << ' ' << a.equal(torch::ones({2})) << '\n';
  try {
    torch::allclose(a, a.to(torch::kDouble));
    std::cout << "mixed dtypes accepted\n";
  } catch (const c10::Error&) {
    std::cout << "allclose of float and double throws c10::Error\n";
  }
  // A training check as tests write it.
  torch::manual_seed(0);
  torch::Tensor w = torch::randn({4, 4});
  torch::Tensor inv = w.t().t().contiguous();
  TORCH_CHECK(torch::allclose(w, inv), "transpose twice changed the values");
  std::cout << "check passed\n";
}
