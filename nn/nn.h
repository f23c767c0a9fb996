// ember::nn: modules, containers, layers, initialisation and layer functions, as torch::nn.
//
//   #include <ember/ember.h>
//   namespace nn = ember::nn;
//   namespace F = ember::nn::functional;
//   nn::Sequential mlp(nn::Linear(4, 16), nn::GELU(), nn::Dropout(0.1), nn::Linear(16, 3));
//   ember::Tensor loss = F::cross_entropy(mlp(x), targets);
#pragma once

#include "nn/activation.h"
#include "nn/adaptive.h"
#include "nn/any_module.h"
#include "nn/batchnorm.h"
#include "nn/cloneable.h"
#include "nn/container.h"
#include "nn/conv.h"
#include "nn/distance.h"
#include "nn/dropout.h"
#include "nn/embedding.h"
#include "nn/fold.h"
#include "nn/functional.h"
#include "nn/grid_sample.h"
#include "nn/init.h"
#include "nn/linear.h"
#include "nn/loss.h"
#include "nn/module.h"
#include "nn/normalization.h"
#include "nn/options.h"
#include "nn/ordered_dict.h"
#include "nn/padding.h"
#include "nn/parameter_container.h"
#include "nn/pimpl.h"
#include "nn/pixelshuffle.h"
#include "nn/pooling.h"
#include "nn/rnn.h"
#include "nn/rnn_cell.h"
#include "nn/rnn_utils.h"
#include "nn/upsampling.h"
