// Uses the installed library through its umbrella header; prints one gradient to check it links and runs.
#include <ember/ember.h>

int main() {
  auto x = ember::tensor({{0.43, 0.15}, {0.55, 0.87}});
  auto w = ember::ones({2, 3}, ember::requires_grad());
  x.matmul(w).relu().sum().backward();
  const float g = w.grad()[1][2].item<float>();  // 0.15 + 0.87
  std::cout << "consumer ok " << g << '\n';
  return g > 1.019f && g < 1.021f ? 0 : 1;
}
