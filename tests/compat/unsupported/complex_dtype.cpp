// torch::kComplexFloat passed where libtorch takes a ScalarType: the build stops naming the dtype.
// expect: torch::kComplexFloat: Ember has kFloat32
#include <torch/torch.h>

int main() {
  torch::Tensor t = torch::zeros({2}, torch::dtype(torch::kComplexFloat));
  return static_cast<int>(t.numel());
}
