// Tensor creation, views, broadcasting arithmetic, reductions, indexing and comparisons.
#include <iostream>

#include <torch/torch.h>

int main() {
  torch::Tensor a = torch::arange(12, torch::kFloat).reshape({3, 4});
  std::cout << a << std::endl << a.t() << std::endl << a.view({2, 6}) << std::endl;
  std::cout << a.permute({1, 0}).contiguous().view({-1}).slice(0, 0, 5) << std::endl;
  std::cout << a.narrow(1, 1, 2) << std::endl << a.select(1, 2) << std::endl;
  std::cout << a.slice(1, 0, 4, 2) << std::endl << a.unsqueeze(0).sizes() << std::endl;
  for (const auto& chunk : a.chunk(2, 1)) std::cout << chunk.sizes() << " ";
  std::cout << std::endl;
  for (const auto& piece : a.split(2, 0)) std::cout << piece.sizes() << " ";
  std::cout << std::endl;

  std::cout << torch::linspace(0, 1, 5) << std::endl << torch::eye(3) << std::endl;
  std::cout << torch::full({2, 3}, 7.5) << std::endl << torch::zeros_like(a).sum() << std::endl;
  std::cout << torch::arange(1, 10, 3) << std::endl;

  torch::Tensor col = torch::tensor({{1.0}, {-2.0}, {0.5}});
  torch::Tensor row = torch::tensor({0.5, 1.5, -1.0, 2.0});
  std::cout << col + row << std::endl << a * row - col / 2 << std::endl;
  std::cout << (a.pow(2) + 1).sqrt().log() << std::endl << a.exp().slice(1, 0, 2) << std::endl;
  std::cout << torch::sigmoid(row) << std::endl
            << torch::tanh(row) << std::endl
            << row.abs().clamp(0.75, 1.75) << std::endl;

  std::cout << a.sum() << std::endl << a.sum(0) << std::endl << a.mean({1}, true) << std::endl;
  std::cout << a.var() << std::endl << a.std({1}, true) << std::endl << a.logsumexp({1}) << std::endl;
  auto max = a.max(1);
  std::cout << std::get<0>(max) << std::endl << std::get<1>(max) << std::endl << a.argmin() << std::endl;
  std::cout << a.norm() << std::endl << a.max() << std::endl;

  torch::Tensor mask = a.gt(4).logical_and(a.lt(9));
  std::cout << mask << std::endl << a.masked_fill(mask, -1) << std::endl;
  std::cout << torch::where(mask, a, torch::zeros_like(a)) << std::endl;
  std::cout << torch::cat({a, a * 2}, 0).sizes() << " " << torch::stack({row, row}, 1).sizes() << std::endl;
  torch::Tensor index = torch::tensor({2, 0}, torch::kLong);
  std::cout << a.index_select(0, index) << std::endl
            << a.gather(1, torch::tensor({{0}, {3}, {1}}, torch::kLong)) << std::endl;

  torch::Tensor m = torch::tensor({{1.0, 2.0}, {3.0, 4.0}});
  std::cout << m.matmul(m) << std::endl << torch::mm(m, m.t()) << std::endl;
  torch::Tensor batch = torch::arange(8, torch::kDouble).view({2, 2, 2});
  std::cout << torch::bmm(batch, batch) << std::endl;
  std::cout << torch::tensor({1, 2, 3}) * 2 << std::endl << torch::tensor({true, false}).logical_not() << std::endl;
  std::cout << a.to(torch::kLong).sum() << std::endl << a.to(torch::kDouble).mean() << std::endl;
}
