// float16 (torch::kHalf) as libtorch programs meet it: weights converted to half to halve their
// memory and back to float to compute, at::Half elements through data_ptr, printing, the values
// float32 rounds to (ties, the largest half, overflow to infinity), PyTorch's promotion, and the
// ops libtorch 1.13's CPU has for half (add, mul, div, sums, max/argmax, sort, comparisons, where).
#include <iostream>
#include <vector>

#include <torch/torch.h>

int main() {
  torch::Tensor w = torch::tensor({{1.5, -2.25, 0.1}, {65504.0, 65520.0, 1e-8}});
  torch::Tensor h = w.to(torch::kHalf);
  std::cout << h << std::endl;
  std::cout << (h.scalar_type() == torch::kFloat16) << " " << h.element_size() << std::endl;
  std::cout << h.to(torch::kFloat) << std::endl;
  const at::Half* p = h.data_ptr<at::Half>();
  std::cout << static_cast<float>(p[2]) << " " << static_cast<float>(p[4]) << std::endl;
  at::Half one = 1.0f;
  std::cout << static_cast<float>(one) << " " << h[0][1].item<float>() << std::endl;

  torch::Tensor x = torch::tensor({1.5, 2.25, -3.0, 0.1}).to(torch::kHalf);
  torch::Tensor y = torch::tensor({0.5, 1.0, 2.0, -0.2}, torch::kHalf);
  std::cout << x + y << std::endl << x * y << std::endl << x / y << std::endl << x - 1.5 << std::endl;
  std::cout << -x << std::endl << x.abs() << std::endl;
  std::cout << x.sum() << std::endl << y.mean() << std::endl << x.max() << std::endl << x.argmax() << std::endl;
  std::cout << (x < y) << std::endl << std::get<0>(y.sort()) << std::endl;
  std::cout << torch::where(x > 0, x, y) << std::endl;
  std::cout << torch::cat({x, y}) << std::endl << x.index_select(0, torch::tensor({3, 0})) << std::endl;

  // Promotion: half with float32 is float32, with an integer tensor half, with bfloat16 float32.
  std::cout << ((x + torch::ones({4})).scalar_type() == torch::kFloat) << " "
            << ((x + torch::arange(4)).scalar_type() == torch::kHalf) << " "
            << ((x + torch::ones({4}, torch::kBFloat16)).scalar_type() == torch::kFloat) << " "
            << ((x * 2.5).scalar_type() == torch::kHalf) << std::endl;
  std::cout << torch::ones({2, 2}, torch::kHalf) << std::endl << torch::zeros({3}, torch::dtype(torch::kHalf)) << std::endl;
  return 0;
}
