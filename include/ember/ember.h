// Ember's whole public API in one include.
//
//   #include <ember/ember.h>
//   int main() {
//     auto x = ember::tensor({{0.43, 0.15}, {0.55, 0.87}});
//     auto w = ember::ones({2, 3}, ember::requires_grad());
//     auto y = x.matmul(w).relu().sum();
//     y.backward();
//     std::cout << w.grad() << '\n';
//   }
#pragma once

#include <iostream>

#include "autograd/aten_functions.h"
#include "autograd/autocast.h"
#include "autograd/autograd.h"
#include "autograd/explain.h"
#include "autograd/fft.h"
#include "autograd/function.h"
#include "autograd/gradcheck.h"
#include "autograd/graphviz.h"
#include "autograd/loss.h"
#include "core/generator.h"
#include "core/print.h"
#include "core/random.h"
#include "core/tensor.h"
#include "core/threads.h"
#include "cuda/cuda.h"
#include "data/data.h"
#include "nn/archive.h"
#include "nn/attention.h"
#include "nn/gpt.h"
#include "nn/init.h"
#include "nn/nn.h"
#include "nn/serialize.h"
#include "nn/transformer.h"
#include "optim/optim.h"
