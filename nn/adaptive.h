// nn::AdaptiveLogSoftmaxWithLoss: the adaptive softmax of Grave et al. ("Efficient softmax
// approximation for GPUs"), as torch::nn's in libtorch 1.13. Frequent classes [0, cutoffs[0]) sit in
// the head with one extra logit per cluster; each rarer cluster [cutoffs[i], cutoffs[i+1]) has its
// own two-layer projection (in_features -> in_features / div_value^(i+1) -> cluster size).
//
//   ember::nn::AdaptiveLogSoftmaxWithLoss asm_(ember::nn::AdaptiveLogSoftmaxWithLossOptions(16, 100, {10, 40}));
//   ember::nn::ASMoutput out = asm_(hidden, targets);   // hidden (N, 16), targets int64 (N)
//   (-out.output).mean().backward();                    // out.output: log p(target) (N); out.loss: a double
//   ember::Tensor logp = asm_->log_prob(hidden);        // (N, 100), every class
//
// Parameters: head.weight (and head.bias with head_bias), tail.<i>.0.weight, tail.<i>.1.weight.
// Not here: the cluster rows are selected with where() over all rows rather than gathered, so each
// cluster's projection runs on the whole batch (same values and gradients, more arithmetic).
#pragma once

#include <cstdint>
#include <vector>

#include "nn/cloneable.h"
#include "nn/container.h"
#include "nn/linear.h"
#include "nn/module.h"
#include "nn/options.h"

namespace ember::nn {

// forward's result: the log-probability of each target (N) (or () for one sample) and, as libtorch
// 1.13, the loss mean(-output) as a plain number (differentiate output for a gradient).
struct ASMoutput {
  ASMoutput(Tensor output_, double loss_) : output(std::move(output_)), loss(loss_) {}
  Tensor output;
  double loss;
};

struct AdaptiveLogSoftmaxWithLossOptions {
  AdaptiveLogSoftmaxWithLossOptions(int64_t in_features, int64_t n_classes, std::vector<int64_t> cutoffs)
      : in_features_(in_features), n_classes_(n_classes), cutoffs_(std::move(cutoffs)) {}
  EMBER_ARG(int64_t, in_features);
  EMBER_ARG(int64_t, n_classes);
  EMBER_ARG(std::vector<int64_t>, cutoffs);  // increasing, each in [1, n_classes - 1]
  EMBER_ARG(double, div_value) = 4.;         // cluster i's hidden size: in_features / int(div_value^(i+1))
  EMBER_ARG(bool, head_bias) = false;
};

class AdaptiveLogSoftmaxWithLossImpl : public Cloneable<AdaptiveLogSoftmaxWithLossImpl> {
 public:
  AdaptiveLogSoftmaxWithLossImpl(int64_t in_features, int64_t n_classes, std::vector<int64_t> cutoffs);
  explicit AdaptiveLogSoftmaxWithLossImpl(AdaptiveLogSoftmaxWithLossOptions options);

  // input (N, in_features) with target int64 (N), or (in_features) with a 0-d target.
  ASMoutput forward(const Tensor& input, const Tensor& target);
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  // log-probabilities of every class (N, n_classes), from the head's output for input.
  Tensor _get_full_log_prob(const Tensor& input, const Tensor& head_output);
  Tensor log_prob(const Tensor& input);  // (N, in_features) -> (N, n_classes)
  Tensor predict(const Tensor& input);   // (N, in_features) -> the most likely class (N), int64

  AdaptiveLogSoftmaxWithLossOptions options;
  std::vector<int64_t> cutoffs;  // options' cutoffs followed by n_classes
  int64_t shortlist_size = 0;    // cutoffs[0]: the classes the head predicts directly
  int64_t n_clusters = 0;
  int64_t head_size = 0;  // shortlist_size + n_clusters
  Linear head = nullptr;
  ModuleList tail = nullptr;  // n_clusters Sequential(Linear, Linear), without bias
};
EMBER_MODULE(AdaptiveLogSoftmaxWithLoss);

}  // namespace ember::nn
