// Reductions, selection, vector products and arranging as libtorch programs call them: prod, nansum,
// nanmean, count_nonzero, median, kthvalue, nonzero, argwhere, masked_select, outer, dot, mv, movedim,
// swapaxes, broadcast_to, tile, ravel, diagonal, diag, trace, tensor_split, diff, hstack, vstack,
// dstack, column_stack, atleast_2d, meshgrid, and gradients through them.
#include <iostream>

#include <torch/torch.h>

int main() {
  torch::manual_seed(11);
  torch::Tensor x = torch::randn({3, 4});
  torch::Tensor n = torch::tensor({{3, -1, 0, 2}, {0, 5, 1, -4}});
  std::cout << x.prod() << '\n' << torch::prod(x, 1) << '\n' << x.prod(0, /*keepdim=*/true) << '\n';
  std::cout << n.prod(1) << '\n' << torch::prod(n, 0, false, torch::kFloat64) << '\n';
  torch::Tensor holes = x.masked_fill(x > 1, NAN);
  std::cout << torch::nansum(holes) << '\n' << holes.nansum({1}) << '\n' << torch::nanmean(holes, {0}) << '\n';
  std::cout << torch::count_nonzero(n) << '\n' << n.count_nonzero(torch::IntArrayRef{0}) << '\n';
  std::cout << x.median() << '\n';
  auto [med, at] = torch::median(x, 1);
  std::cout << med << '\n' << at << '\n';
  auto [kth, kat] = x.kthvalue(2, 0, /*keepdim=*/true);
  std::cout << kth << '\n' << kat << '\n';
  std::cout << torch::nonzero(n) << '\n' << torch::argwhere(n > 1) << '\n';
  std::cout << torch::masked_select(x, x > 0) << '\n'
            << x.masked_select(torch::tensor({true, false, false, true})) << '\n';
  std::cout << torch::outer(x[0], x[1]) << '\n' << torch::dot(x[0], x[2]) << '\n' << torch::mv(x, x[1]) << '\n';
  std::cout << torch::ger(n[0], n[1]) << '\n';
  torch::Tensor c = torch::arange(24).reshape({2, 3, 4});
  std::cout << torch::movedim(c, 0, 2).sizes() << ' ' << c.movedim({0, 1}, {2, 0}).sizes() << ' '
            << torch::swapaxes(c, 0, 2).sizes() << ' ' << c.moveaxis(1, 0).sizes() << '\n';
  std::cout << torch::broadcast_to(x[0], {2, 4}) << '\n'
            << torch::tile(n, {2}) << '\n'
            << n.tile({2, 1, 2}).sizes() << '\n';
  std::cout << torch::ravel(n) << '\n' << c.diagonal(1, 1, 2) << '\n' << torch::diagonal(x, -1) << '\n';
  std::cout << torch::diag(n[0], -1) << '\n' << torch::diag(x) << '\n' << torch::trace(x) << ' ' << n.trace() << '\n';
  for (const auto& part : torch::tensor_split(c, 3, 2)) std::cout << part.sizes() << ' ';
  for (const auto& part : c.tensor_split({1, 2}, 1)) std::cout << part.sizes() << ' ';
  std::cout << '\n' << torch::diff(n) << '\n' << x.diff(2, 0) << '\n' << (n > 0).diff() << '\n';
  std::cout << torch::hstack({n, n}).sizes() << ' ' << torch::vstack({n[0], n[1]}).sizes() << ' '
            << torch::dstack({n, n}).sizes() << ' ' << torch::column_stack({n[0], n[1]}).sizes() << ' '
            << torch::atleast_2d(n[0]).sizes() << '\n';
  auto grids = torch::meshgrid({torch::arange(3), torch::arange(2)}, "xy");
  std::cout << grids[0] << '\n' << grids[1] << '\n';

  torch::Tensor a = x.clone().requires_grad_(true);
  (a.prod(1).sum() + a.median() + std::get<0>(a.median(0)).sum() + std::get<0>(a.kthvalue(3, 1)).sum() +
   a.masked_select(a > 0).sum() + torch::outer(a[0], a[1]).sum() + a.diagonal(1).sum() * 3 + a.trace() +
   a.diff().pow(2).sum() + torch::dot(a[0], a[1]))
      .backward();
  std::cout << a.grad() << '\n';
}
