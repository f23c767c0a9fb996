// Loss modules (MSELoss, L1Loss, SmoothL1Loss, CrossEntropyLoss, NLLLoss) and the functional l1 and
// smooth-L1 losses, as torch::nn's.
//
//   ember::nn::MSELoss mse;                                              // mean of (input - target)^2
//   ember::nn::SmoothL1Loss huber(ember::nn::SmoothL1LossOptions().beta(0.5));
//   ember::nn::CrossEntropyLoss ce(ember::nn::CrossEntropyLossOptions().label_smoothing(0.1));
//   ember::Tensor loss = mse(prediction, target) + ce(logits, classes);
//
// The modules hold no parameters: each forwards to its function in nn::functional, which is a
// composition of autograd primitives (the gradients follow from those).
#pragma once

#include "nn/functional.h"
#include "nn/module.h"
#include "nn/options.h"

namespace ember::nn {

namespace functional {

struct L1LossFuncOptions {
  L1LossFuncOptions(Reduction reduction = kMean) : reduction_(reduction) {}
  EMBER_ARG(Reduction, reduction);
};
// |input - target|, reduced.  input and target of the same shape.
Tensor l1_loss(const Tensor& input, const Tensor& target, const L1LossFuncOptions& options = {});

struct SmoothL1LossFuncOptions {
  SmoothL1LossFuncOptions(Reduction reduction = kMean) : reduction_(reduction) {}
  EMBER_ARG(Reduction, reduction);
  EMBER_ARG(double, beta) = 1.0;  // where the quadratic part meets the linear one; 0 gives l1_loss
};
// Huber-like: 0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta, with d = input - target, reduced.
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, const SmoothL1LossFuncOptions& options = {});

}  // namespace functional

using MSELossOptions = functional::MSELossFuncOptions;
using L1LossOptions = functional::L1LossFuncOptions;
using SmoothL1LossOptions = functional::SmoothL1LossFuncOptions;
using CrossEntropyLossOptions = functional::CrossEntropyFuncOptions;
using NLLLossOptions = functional::NLLLossFuncOptions;

// One module per loss: options stored, forward(input, target) calls the function.
template <typename Options, Tensor (*Loss)(const Tensor&, const Tensor&, const Options&)>
class LossImpl : public Module {
 public:
  explicit LossImpl(const Options& options = {}) : options(options) {}
  void reset_parameters() {}
  Tensor forward(const Tensor& input, const Tensor& target) { return Loss(input, target, options); }
  Options options;
};

class MSELossImpl : public LossImpl<MSELossOptions, functional::mse_loss> {
 public:
  using LossImpl::LossImpl;
};
class L1LossImpl : public LossImpl<L1LossOptions, functional::l1_loss> {
 public:
  using LossImpl::LossImpl;
};
class SmoothL1LossImpl : public LossImpl<SmoothL1LossOptions, functional::smooth_l1_loss> {
 public:
  using LossImpl::LossImpl;
};
class CrossEntropyLossImpl : public LossImpl<CrossEntropyLossOptions, functional::cross_entropy> {
 public:
  using LossImpl::LossImpl;
};
class NLLLossImpl : public LossImpl<NLLLossOptions, functional::nll_loss> {
 public:
  using LossImpl::LossImpl;
};
EMBER_MODULE(MSELoss);
EMBER_MODULE(L1Loss);
EMBER_MODULE(SmoothL1Loss);
EMBER_MODULE(CrossEntropyLoss);
EMBER_MODULE(NLLLoss);

}  // namespace ember::nn
