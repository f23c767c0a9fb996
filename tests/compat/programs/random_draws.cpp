// Seeded random numbers: the same seed gives libtorch's numbers for every distribution and layout
// (randn's batched path for 16 or more elements, its scalar path below), and generator state.
#include <iostream>

#include <torch/torch.h>

int main() {
  torch::manual_seed(2024);
  std::cout << torch::rand({2, 3}) << std::endl;
  std::cout << torch::randn({5}) << std::endl;
  std::cout << torch::randn({4, 5}) << std::endl;  // 20 elements: the 16-wide path
  std::cout << torch::randint(0, 10, {8}) << std::endl;
  std::cout << torch::randint(-5, 5, {2, 4}) << std::endl;
  std::cout << torch::randperm(7) << std::endl;
  std::cout << torch::rand({3}, torch::kDouble) << std::endl;
  std::cout << torch::randn({17}, torch::kDouble) << std::endl;

  torch::Tensor probs = torch::tensor({0.1, 0.2, 0.3, 0.4});
  std::cout << torch::multinomial(probs, 6, true) << std::endl;
  std::cout << torch::multinomial(probs, 3, false) << std::endl;
  std::cout << torch::bernoulli(torch::full({8}, 0.3)) << std::endl;

  torch::Tensor t = torch::empty({6});
  std::cout << t.uniform_(-2, 2) << std::endl << t.normal_(1, 0.1) << std::endl;
  std::cout << t.bernoulli_(0.5) << std::endl;
  std::cout << torch::randn_like(t) << std::endl << torch::rand_like(t) << std::endl;

  // Reseeding replays the same stream.
  torch::manual_seed(7);
  torch::Tensor first = torch::randn({3, 3});
  torch::manual_seed(7);
  std::cout << torch::equal(first, torch::randn({3, 3})) << std::endl;
  std::cout << torch::nn::functional::dropout(torch::ones({10}), torch::nn::functional::DropoutFuncOptions().p(0.4))
            << std::endl;
}
