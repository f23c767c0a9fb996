// TorchScript is not part of Ember: torch::jit::load says so.
// expect: torch::jit::load: Ember has no TorchScript
#include <torch/torch.h>

int main() { torch::jit::load("model.pt"); }
