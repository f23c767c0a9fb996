// libtorch's header for torch::autograd::UndefinedGrad (and other basic nodes): with Ember, all of
// it comes with <torch/torch.h> (UndefinedGrad is in autograd/function.h).
#pragma once

#include <torch/torch.h>
