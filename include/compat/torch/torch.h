// <torch/torch.h> for Ember (CMake target Ember::torch_compat): libtorch's C++ frontend names mapped
// onto Ember, so that a libtorch program builds against Ember unchanged where it uses what Ember has.
//
//   #include <torch/torch.h>
//   int main() {
//     torch::manual_seed(0);
//     torch::nn::Linear model(4, 3);
//     torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1));
//     torch::Tensor loss = torch::mse_loss(model(torch::randn({8, 4})), torch::zeros({8, 3}));
//     loss.backward();
//     optimizer.step();
//     std::cout << loss << '\n';   // "0.4103\n[ CPUFloatType{} ]", as libtorch prints it
//   }
//
// Ember's public names already mirror libtorch's, so torch:: *is* ember:: (one using-directive).
// This file adds only what a libtorch program expects and Ember spells differently: libtorch's print
// format, a few libtorch spellings (TORCH_MODULE, torch::mse_loss, at::), torch::save/load onto
// safetensors files, and compile-time errors that name what Ember does not support.
// It is not a second API: everything here forwards to Ember. docs/COMPAT.md lists what is covered.
//
// The parts, by topic (include/compat/ember_compat/):
//   aliases.h         torch::, at::, c10::, caffe2:: names; TORCH_MODULE, TORCH_ARG; InferenceMode
//   aten_functions.h  ATen's function forms of Tensor methods and their _out forms
//   errors.h          TORCH_CHECK, TORCH_WARN(_ONCE), TORCH_INTERNAL_ASSERT, AT_ASSERT, AT_ERROR
//   functional.h      torch:: losses, activations and pooling over nn::functional
//   aten_out.h        the out= forms (sort_out, cat_out, where_out...) of the functions above
//   aten_out_factories.h  the factories' and random draws' out= forms (zeros_out, arange_out, rand_out)
//   aten_nn.h         ATen's forms of nn calls: 3-d pools, upsample_*, convolution, lstm/gru, ctc_loss...
//   aten_composed.h   ATen functions composed of Ember's ops: gradient, histogram, unique_dim, for_blob...
//   serialization.h   torch::save / torch::load (safetensors files)
//   fft.h             torch::fft's frequencies and shifts (autograd/fft.h); the transforms need complex
//   linalg.h          torch::linalg and at::linalg_* (autograd/linalg.h)
//   special.h         torch::special and at::special_* (autograd/special.h)
//   unsupported.h     compile-time errors for what Ember lacks (complex dtypes, TorchScript)
#pragma once

// In this order: each part uses the names of the parts before it (the out= forms need the functions).
#include "ember_compat/aliases.h"
#include "ember_compat/errors.h"
#include "ember_compat/functional.h"

#include "ember_compat/aten_out.h"

#include "ember_compat/aten_nn.h"

#include "ember_compat/aten_composed.h"

#include "ember_compat/aten_draws.h"
#include "ember_compat/aten_out_factories.h"
#include "ember_compat/fft.h"
#include "ember_compat/linalg.h"
#include "ember_compat/pickle.h"
#include "ember_compat/serialization.h"
#include "ember_compat/special.h"
#include "ember_compat/unsupported.h"
