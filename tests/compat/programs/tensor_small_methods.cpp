// libtorch's remaining small Tensor methods as programs call them: the seeded random fills
// log_normal_, cauchy_, geometric_ and their functional forms (the same numbers as libtorch),
// bernoulli as a method, renorm (max-norm constraints on embedding rows), set_ and is_set_to,
// nonzero_numpy, numpy_T, mH, isreal, the unsafe_ splits and the older lu_solve.
#include <iomanip>
#include <iostream>

#include <torch/torch.h>

int main() {
  std::cout << std::setprecision(10);
  torch::manual_seed(11);
  std::cout << torch::empty({4}, torch::kDouble).log_normal_(0.2, 0.5) << std::endl;
  std::cout << torch::empty({2, 3}).cauchy_() << std::endl;
  std::cout << torch::empty({5}, torch::kLong).geometric_(0.25) << std::endl;
  std::cout << at::log_normal(torch::zeros({3})) << std::endl;
  std::cout << at::cauchy(torch::zeros({3}, torch::kDouble), 2.0, 0.5) << std::endl;
  std::cout << at::geometric(torch::zeros({4}), 0.6) << std::endl;
  std::cout << torch::full({6}, 0.5).bernoulli() << std::endl;

  torch::Tensor embedding = torch::tensor({{3.0, 4.0}, {0.3, 0.4}, {-6.0, 8.0}}, torch::requires_grad());
  torch::Tensor limited = embedding.renorm(2, 0, 1.0);
  std::cout << limited << std::endl;
  (limited * torch::tensor({{1.0, 2.0}, {3.0, 4.0}, {5.0, 6.0}})).sum().backward();
  std::cout << embedding.grad() << std::endl;
  torch::Tensor rows = torch::tensor({{1.0, -2.0, 2.0}, {0.1, 0.2, 0.3}});
  rows.renorm_(1, 0, 2.5);
  std::cout << rows << std::endl;

  torch::Tensor a = torch::zeros({2, 3});
  torch::Tensor b = torch::arange(4, torch::kFloat);
  a.set_(b);
  std::cout << a.sizes() << " " << a.is_set_to(b) << " " << a.is_set_to(b.view({2, 2})) << " " << a.has_storage()
            << std::endl;

  torch::Tensor m = torch::tensor({{0, 3, 0}, {7, 0, 1}});
  for (const auto& idx : m.nonzero_numpy()) std::cout << idx << std::endl;
  torch::Tensor cube = torch::arange(24).reshape({2, 3, 4});
  std::cout << cube.numpy_T().sizes() << " " << cube.numpy_T()[3][1][0].item<int64_t>() << " "
            << cube.mH().sizes() << " " << cube.isreal().all().item<bool>() << std::endl;
  std::cout << cube.unsafe_chunk(3, 2).size() << " " << cube.unsafe_split(2, 2)[1].sizes() << std::endl;

  torch::Tensor A = torch::tensor({{4.0, 1.0, 0.0}, {2.0, 3.0, 1.0}, {0.0, 1.0, 5.0}}, torch::kDouble);
  auto [LU, pivots] = torch::linalg::lu_factor(A);
  torch::Tensor rhs = torch::tensor({{1.0, 0.0}, {2.0, 1.0}, {3.0, -1.0}}, torch::kDouble);
  std::cout << rhs.lu_solve(LU, pivots) << std::endl << at::lu_solve(rhs, LU, pivots).sum() << std::endl;
}
