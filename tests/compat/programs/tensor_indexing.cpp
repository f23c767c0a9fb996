// Tensor indexing as libtorch writes it: index({...}) with ints, Slice, None, Ellipsis, bools and
// tensors, index_put_, assignment through t[i] and index(...), and the gradients that flow back.
#include <iostream>

#include <torch/torch.h>

using namespace torch::indexing;

int main() {
  torch::manual_seed(0);
  torch::Tensor x = torch::randn({3, 4, 5});
  std::cout << x.index({0}) << '\n';
  std::cout << x.index({-1, Slice(1, None, 2)}) << '\n';
  std::cout << x.index({"...", 2}) << '\n';
  std::cout << x.index({Slice(), None, 1, Slice(None, -2)}) << '\n';
  std::cout << x.index({Ellipsis, Slice(1, 3), Slice(None, None, 3)}) << '\n';
  std::cout << x.index({1, true}).sizes() << ' ' << x.index({false}).sizes() << '\n';
  std::cout << x[2][1] << '\n';
  std::cout << x[torch::tensor(1)].sizes() << '\n';

  // Advanced indexing: integer and bool tensors, adjacent or separated.
  torch::Tensor rows = torch::tensor({2, 0, 2});
  torch::Tensor cols = torch::tensor({{1}, {3}});
  std::cout << x.index({rows}) .sizes() << '\n';
  std::cout << x.index({Slice(), rows, cols}) << '\n';
  std::cout << x.index({rows, Slice(), torch::tensor({4, 0, 1})}) << '\n';
  std::cout << x.index({x.select(2, 0) > 0}) << '\n';
  std::cout << x.index({Slice(), torch::tensor({true, false, true, false}), 1}) << '\n';
  std::cout << x.index({torch::tensor({-1}), Slice(None, 2), torch::tensor({-5, 4})}) << '\n';

  // Views share storage: a write through one shows in the base.
  torch::Tensor y = torch::zeros({3, 4});
  torch::Tensor row = y.index({1});
  row.fill_(7);
  y[0][2] = 5;
  y[2] = torch::tensor({1.0, 2.0, 3.0, 4.0});
  y.index({Slice(), 0}) = -1;
  y.index({Slice(1, None), Slice(2, None)}) = torch::tensor({10.0, 20.0});
  std::cout << y << '\n';

  torch::Tensor z = torch::arange(12, torch::kFloat).view({3, 4});
  z.index_put_({torch::tensor({0, 2}), torch::tensor({1, 3})}, torch::tensor({-1.0, -2.0}));
  z.index_put_({z > 9}, 0);
  z.index_put_({Slice(), torch::tensor({0})}, torch::tensor({{100.0}, {200.0}, {300.0}}));
  std::cout << z << '\n';
  torch::Tensor acc = torch::zeros({4});
  acc.index_put_({torch::tensor({0, 1, 1, 3, 1})}, torch::ones({5}), /*accumulate=*/true);
  std::cout << acc << '\n';

  // Gradients: advanced indexing scatters back (duplicates add up); index_put_ zeroes what it overwrote.
  torch::Tensor w = torch::randn({4, 3}, torch::requires_grad());
  torch::Tensor picked = w.index({torch::tensor({0, 3, 0}), Slice(1)});
  (picked * picked).sum().backward();
  std::cout << w.grad() << '\n';

  torch::Tensor a = torch::randn({3, 3}, torch::requires_grad());
  torch::Tensor v = torch::randn({2}, torch::requires_grad());
  torch::Tensor b = a * 2;
  b.index_put_({torch::tensor({0, 2}), torch::tensor({1, 1})}, v);
  b.index({1}) = 0;
  (b * torch::arange(9, torch::kFloat).view({3, 3})).sum().backward();
  std::cout << a.grad() << '\n' << v.grad() << '\n';

  try {
    x.index({3});
  } catch (const c10::Error&) {
    std::cout << "index out of range\n";
  }
  try {
    x.index({0, 0, 0, 0});
  } catch (const c10::Error&) {
    std::cout << "too many indices\n";
  }
}
