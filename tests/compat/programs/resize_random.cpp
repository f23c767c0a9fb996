// resize_, random_(from, to) / random_(to), data(), set_data, tensor_data, variable_data, make_variable.
#include <iostream>

#include <torch/torch.h>

int main() {
  torch::manual_seed(7);
  torch::Tensor t = torch::arange(6, torch::kFloat);
  t.resize_({2, 3});
  std::cout << t << '\n';
  t.resize_({4});
  std::cout << t << '\n';
  t.resize_({2, 4});
  std::cout << t.sizes() << ' ' << t.narrow(1, 0, 2).select(0, 0) << '\n';
  torch::Tensor e = torch::empty({0});
  e.resize_({3}).fill_(2);
  std::cout << e << '\n';

  torch::Tensor r = torch::empty({8}, torch::kLong);
  r.random_(10, 20);
  std::cout << r << '\n';
  r.random_(5);
  std::cout << r << '\n';
  torch::Tensor rf = torch::empty({6}, torch::kDouble);
  rf.random_(-3, 3);
  std::cout << rf << '\n';

  torch::Tensor w = torch::ones({3}, torch::requires_grad());
  torch::Tensor d = w.data();
  std::cout << d.requires_grad() << ' ' << w.requires_grad() << '\n';
  d.mul_(4);  // writes w's values without autograd
  std::cout << w << '\n';
  torch::Tensor td = w.tensor_data(), vd = w.variable_data();
  std::cout << td.requires_grad() << vd.requires_grad() << ' ' << td.data_ptr<float>()[0] << '\n';
  w.set_data(torch::tensor({1.0f, 2.0f, 3.0f, 4.0f}));
  std::cout << w << ' ' << w.requires_grad() << '\n';
  (w * w).sum().backward();
  std::cout << w.grad() << '\n';
  try {
    w.resize_({2});
  } catch (const c10::Error&) {
    std::cout << "resize_ of a tensor that requires grad throws c10::Error\n";
  }

  torch::Tensor v = torch::autograd::make_variable(torch::tensor({0.5, 1.5}), /*requires_grad=*/true);
  std::cout << v.requires_grad() << ' ' << v.is_leaf() << '\n';
  (v * 3).sum().backward();
  std::cout << v.grad() << '\n';
  std::cout << torch::autograd::make_variable(torch::ones({1})).requires_grad() << '\n';
}
