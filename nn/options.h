// Option classes in libtorch's style: chainable setters, one getter per field.
//
//   struct MyOptions {
//     EMBER_ARG(int64_t, width) = 16;
//     EMBER_ARG(bool, bias) = true;
//   };
//   auto o = MyOptions().width(32).bias(false);   // o.width() == 32
//
// The loss reduction (ember::kMean, kSum, kNone) comes from autograd/loss.h.
#pragma once

#include <utility>

#include "autograd/loss.h"
#include "core/arg.h"  // EMBER_ARG
