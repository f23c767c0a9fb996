// A dtype Ember lacks stops the build with a message naming it.
// expect: torch::kHalf: Ember has kFloat32
#include <torch/torch.h>

int main() { return torch::ones({2}, torch::kHalf).numel() > 0 ? 0 : 1; }
