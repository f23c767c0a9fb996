// ATen's composite functions as a libtorch program calls them: products (kron, tensordot, cdist,
// cross), arranging (cartesian_prod, repeat_interleave, take_along_dim, rot90, diag_embed,
// block_diag, tril/triu_indices), running extremes (cummax, cummin) and searching and counting
// (bucketize, searchsorted, histc, bincount, isin), with a gradient through cdist and cummax.
#include <iomanip>
#include <iostream>

#include <torch/torch.h>

int main() {
  std::cout << std::setprecision(6);
  auto a = torch::arange(6, torch::kFloat32).reshape({2, 3}).sub(2.5);
  auto b = torch::tensor({{1.0f, -2.0f}, {0.5f, 3.0f}});
  std::cout << "kron\n" << torch::kron(a, b) << "\n";
  std::cout << "tensordot\n" << torch::tensordot(a, a.t(), {1}, {0}) << "\n";
  auto x1 = torch::tensor({{0.0f, 1.0f}, {2.0f, -1.0f}, {1.5f, 0.5f}}).requires_grad_();
  auto x2 = torch::tensor({{1.0f, 1.0f}, {0.0f, 1.0f}});
  auto d = torch::cdist(x1, x2);
  d.sum().backward();
  std::cout << "cdist\n" << d << "\ncdist p=1\n" << torch::cdist(x1, x2, 1.0) << "\ngrad\n" << x1.grad() << "\n";
  std::cout << "cross\n"
            << torch::cross(torch::tensor({{1.0f, 0.0f, 0.0f}}), torch::tensor({{0.0f, 1.0f, 0.0f}}), 1) << "\n";
  std::cout << "cartesian_prod\n" << torch::cartesian_prod({torch::tensor({1, 2}), torch::tensor({3, 4, 5})}) << "\n";
  std::cout << "repeat_interleave\n"
            << torch::repeat_interleave(torch::tensor({1, 2, 3}), torch::tensor({1, 0, 2})) << "\n"
            << torch::repeat_interleave(a, 2, 0) << "\n"
            << torch::repeat_interleave(torch::tensor({2, 1})) << "\n";
  std::cout << "take_along_dim\n" << torch::take_along_dim(a, torch::tensor({{2}, {0}}), 1) << "\n";
  std::cout << "rot90\n" << torch::rot90(a, 1, {0, 1}) << "\n" << torch::rot90(a, -1, {0, 1}) << "\n";
  std::cout << "diag_embed\n" << torch::diag_embed(torch::tensor({1.0f, 2.0f}), 1) << "\n";
  std::cout << "block_diag\n" << torch::block_diag({torch::tensor({{1, 2}}), torch::tensor({{3}, {4}})}) << "\n";
  std::cout << "tril_indices\n"
            << torch::tril_indices(3, 3) << "\ntriu_indices\n"
            << torch::triu_indices(2, 4, 1) << "\n";
  auto r = torch::tensor({1.0f, 3.0f, 2.0f, 3.0f, 0.5f}).requires_grad_();
  auto [values, indices] = torch::cummax(r, 0);
  values.sum().backward();
  std::cout << "cummax\n" << values << "\n" << indices << "\n" << r.grad() << "\n";
  auto mins = torch::cummin(r.detach(), 0);
  std::cout << "cummin\n" << std::get<0>(mins) << "\n" << std::get<1>(mins) << "\n";
  auto bounds = torch::tensor({1, 3, 5, 7, 9});
  auto v = torch::tensor({{3, 6, 9}, {0, 10, 5}});
  std::cout << "bucketize\n" << torch::bucketize(v, bounds) << "\n" << torch::bucketize(v, bounds, true, true) << "\n";
  std::cout << "searchsorted\n"
            << torch::searchsorted(bounds, v) << "\n"
            << torch::searchsorted(bounds, v, false, true) << "\n";
  std::cout << "histc\n" << torch::histc(torch::tensor({1.0f, 2.0f, 1.0f, 4.0f}), 4, 0, 3) << "\n";
  std::cout << "bincount\n"
            << torch::bincount(torch::tensor({0, 1, 1, 3})) << "\n"
            << torch::bincount(torch::tensor({0, 1, 1, 3}), torch::tensor({0.5f, 1.0f, 2.0f, -1.0f}), 5) << "\n";
  std::cout << "isin\n"
            << torch::isin(torch::tensor({{1, 2}, {3, 4}}), torch::tensor({2, 3})) << "\n"
            << torch::isin(torch::tensor({1, 2, 3}), torch::tensor({2}), false, true) << "\n";
  try {
    torch::tensordot(a, b, {1}, {0});
  } catch (const c10::Error& e) {
    std::cout << "tensordot error caught\n";
  }
  try {
    torch::bincount(torch::tensor({-1, 2}));
  } catch (const c10::Error& e) {
    std::cout << "bincount error caught\n";
  }
}
