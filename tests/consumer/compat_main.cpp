// A libtorch program built against the installed package's Ember::torch_compat: only <torch/torch.h>
// and torch:: names. Prints one gradient and returns non-zero if it is wrong.
#include <torch/torch.h>

int main() {
  torch::Tensor x = torch::tensor({{0.43, 0.15}, {0.55, 0.87}});
  torch::Tensor w = torch::ones({2, 3}, torch::requires_grad());
  x.matmul(w).relu().sum().backward();
  const float g = w.grad()[1][2].item<float>();  // 0.15 + 0.87
  std::cout << "compat consumer ok " << g << '\n';
  return g > 1.019f && g < 1.021f ? 0 : 1;
}
