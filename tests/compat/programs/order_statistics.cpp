// Order statistics as data-analysis code computes them: quantiles of a batch (percentile clipping,
// robust normalisation) with each interpolation, NaN-aware medians and quantiles of data with
// missing values, the mode of class votes, and the view scatters that write one row or diagonal.
#include <iomanip>
#include <iostream>
#include <limits>

#include <torch/torch.h>

int main() {
  std::cout << std::setprecision(8);
  torch::Tensor x = torch::tensor({{0.3, -1.2, 2.5, 0.0, 1.1}, {4.0, 3.5, -0.5, 0.25, 2.0}}, torch::kDouble);
  std::cout << x.quantile(0.25, 1) << std::endl;
  std::cout << torch::quantile(x, torch::tensor({0.05, 0.5, 0.95}, torch::kDouble), 1, true) << std::endl;
  for (const char* mode : {"linear", "lower", "higher", "midpoint", "nearest"})
    std::cout << mode << " " << x.quantile(0.375, c10::nullopt, false, mode) << std::endl;
  torch::Tensor lo = x.quantile(0.1), hi = x.quantile(0.9);
  std::cout << x.clamp(lo.item<double>(), hi.item<double>()) << std::endl;

  const double nan = std::numeric_limits<double>::quiet_NaN();
  torch::Tensor missing = torch::tensor({{1.0, nan, 3.0, 0.5}, {nan, 2.0, -1.0, 7.0}}, torch::kDouble);
  auto [med, med_index] = missing.nanmedian(1);
  std::cout << med << std::endl << med_index << std::endl << missing.nanmedian() << std::endl;
  std::cout << torch::nanquantile(missing, 0.5, 0) << std::endl << missing.quantile(0.5, 1) << std::endl;
  std::cout << at::nanmedian(missing.to(torch::kFloat)) << std::endl;

  torch::Tensor votes = torch::tensor({{2, 0, 2, 1, 0}, {1, 1, 3, 3, 3}, {4, 4, 2, 2, 1}});
  auto [winner, where] = votes.mode(1);
  std::cout << winner << std::endl << where << std::endl;
  auto [col_mode, col_index] = torch::mode(votes, 0, true);
  std::cout << col_mode << std::endl << col_index << std::endl;

  torch::Tensor grid = torch::zeros({3, 4});
  std::cout << grid.select_scatter(torch::ones({4}), 0, 1) << std::endl;
  std::cout << torch::diagonal_scatter(grid, torch::tensor({1.0f, 2.0f, 3.0f}), 1) << std::endl;
  std::cout << torch::slice_scatter(grid, torch::full({3, 2}, 5.0f), 1, 0, 4, 2) << std::endl;

  torch::Tensor w = torch::tensor({{0.3, -1.2, 2.5}, {4.0, 3.5, -0.5}}, torch::requires_grad());
  w.quantile(0.6, 1).sum().backward();
  std::cout << w.grad() << std::endl;
  torch::Tensor out = torch::empty({0});
  at::quantile_out(out, w.detach(), 0.5);
  std::cout << out << " " << at::is_same_size(w, out) << " " << w.is_pinned() << std::endl;
}
