// A TorchScript module held by a model (as programs that load a traced backbone do) stops the build
// with the same advice as torch::jit::load.
// expect: torch::jit::script::Module: Ember has no TorchScript
#include <torch/torch.h>

struct Encoder {
  torch::jit::script::Module backbone;
};

int main() { Encoder encoder; }
