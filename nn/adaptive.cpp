// nn::AdaptiveLogSoftmaxWithLoss (nn/adaptive.h), following libtorch 1.13's: the same checks,
// submodules, draws and results. A row's log-probability of its target is the head's log-softmax at
// the target (shortlist) or at the target's cluster, plus, for a cluster, the cluster's log-softmax
// at the target's place in it.
#include "nn/adaptive.h"

#include <algorithm>
#include <cmath>
#include <ostream>

#include "autograd/grad_mode.h"
#include "core/trace.h"

namespace ember::nn {

AdaptiveLogSoftmaxWithLossImpl::AdaptiveLogSoftmaxWithLossImpl(int64_t in_features, int64_t n_classes,
                                                               std::vector<int64_t> cutoffs)
    : AdaptiveLogSoftmaxWithLossImpl(AdaptiveLogSoftmaxWithLossOptions(in_features, n_classes, std::move(cutoffs))) {}

AdaptiveLogSoftmaxWithLossImpl::AdaptiveLogSoftmaxWithLossImpl(AdaptiveLogSoftmaxWithLossOptions options_)
    : options(std::move(options_)), cutoffs(options.cutoffs()) {
  reset();
}

void AdaptiveLogSoftmaxWithLossImpl::reset() {
  const char* op = "AdaptiveLogSoftmaxWithLoss";
  cutoffs = options.cutoffs();
  const int64_t n_classes = options.n_classes();
  bool ok = !cutoffs.empty() && std::is_sorted(cutoffs.begin(), cutoffs.end()) &&
            std::adjacent_find(cutoffs.begin(), cutoffs.end()) == cutoffs.end() && cutoffs.front() > 0 &&
            cutoffs.back() <= n_classes - 1;
  EMBER_CHECK(ok,
              "{}: cutoffs should be a sequence of unique, positive integers sorted in an increasing order, where "
              "each value is between 1 and n_classes-1 (n_classes = {}, cutoffs = {})",
              op, n_classes, cutoffs);
  EMBER_CHECK(options.in_features() > 0, "{}: in_features must be positive, got {}", op, options.in_features());
  EMBER_CHECK(options.div_value() > 0, "{}: div_value must be positive, got {}", op, options.div_value());
  cutoffs.push_back(n_classes);
  shortlist_size = cutoffs[0];
  n_clusters = static_cast<int64_t>(cutoffs.size()) - 1;
  head_size = shortlist_size + n_clusters;
  head = register_module("head", Linear(LinearOptions(options.in_features(), head_size).bias(options.head_bias())));
  tail = register_module("tail", ModuleList());
  for (int64_t i = 0; i < n_clusters; ++i) {
    // libtorch's sizes: an integer division by the truncated power (Python's // of floats can differ).
    const int64_t hsz = options.in_features() / static_cast<int64_t>(std::pow(options.div_value(), i + 1));
    const int64_t osz = cutoffs[i + 1] - cutoffs[i];
    // libtorch builds Sequential(Linear(in, hsz), Linear(hsz, osz)) in one call, whose arguments its
    // build evaluates right to left: the second Linear draws first. So do we, explicitly (PyTorch's
    // Python class draws the first one first).
    Linear output(LinearOptions(hsz, osz).bias(false));
    Linear projection(LinearOptions(options.in_features(), hsz).bias(false));
    tail->push_back(Sequential(projection, output));
  }
}

void AdaptiveLogSoftmaxWithLossImpl::reset_parameters() {
  head->reset_parameters();
  for (const auto& projection : *tail) {
    for (const auto& layer : *std::dynamic_pointer_cast<SequentialImpl>(projection)) {
      layer.get<LinearImpl>().reset_parameters();
    }
  }
}

void AdaptiveLogSoftmaxWithLossImpl::pretty_print(std::ostream& stream) const {
  stream << "AdaptiveLogSoftmaxWithLoss";  // "torch::nn::" is added in a libtorch program
}

ASMoutput AdaptiveLogSoftmaxWithLossImpl::forward(const Tensor& input_, const Tensor& target_) {
  EMBER_TRACE_OP();
  const char* op = "AdaptiveLogSoftmaxWithLoss";
  const int64_t target_dim = target_.dim();
  EMBER_CHECK(target_dim <= 1, "{}: 0D or 1D target tensor expected, multi-target not supported (target {})", op,
              target_.sizes());
  if (target_dim == 1) {
    EMBER_CHECK(input_.dim() == 2, "{}: 1D target tensor expects 2D input tensors, but found inputs with size {}", op,
                input_.sizes());
  } else {
    EMBER_CHECK(input_.dim() == 1, "{}: 0D target tensor expects 1D input tensors, but found inputs with size {}", op,
                input_.sizes());
  }
  const bool is_batched = target_dim > 0;
  Tensor input = is_batched ? input_ : input_.unsqueeze(0);     // (N, in_features)
  Tensor target = is_batched ? target_ : target_.unsqueeze(0);  // (N)
  EMBER_CHECK(input.size(0) == target.size(0),
              "{}: Input and target should have the same size in the batch dimension (input {}, target {})", op,
              input_.sizes(), target_.sizes());
  EMBER_CHECK(input.size(1) == options.in_features(), "{}: input has {} features but in_features is {} (input {})", op,
              input.size(1), options.in_features(), input_.sizes());
  EMBER_CHECK(target.dtype() == kInt64, "{}: target must hold int64 class indices, got {}", op,
              dtype_name(target.dtype()));
  if (target.numel() > 0) {
    NoGradGuard guard;
    const int64_t lo = target.min().item<int64_t>(), hi = target.max().item<int64_t>();
    EMBER_CHECK(lo >= 0 && hi < options.n_classes(),
                "{}: Target values should be in [0, {}], but values in range [{}, {}] were found.", op,
                options.n_classes() - 1, lo, hi);
  }

  // Which head column each row reads (its class, or its cluster's column), and the in-cluster part.
  Tensor head_column = target;
  Tensor output = zeros({target.size(0)}, input.options());
  for (int64_t i = 1; i <= n_clusters; ++i) {
    const int64_t low = cutoffs[i - 1], high = cutoffs[i];
    Tensor in_cluster = target.ge(low).logical_and(target.lt(high));  // (N)
    if (!in_cluster.any().item<bool>()) continue;
    head_column = where(in_cluster, scalar_tensor(shortlist_size + i - 1, target.options()), head_column);
    Tensor cluster_logprob = tail->at<SequentialImpl>(i - 1).forward(input).log_softmax(1);  // (N, cluster size)
    Tensor relative =
        where(in_cluster, target - scalar_tensor(low, target.options()), scalar_tensor(0, target.options()))
            .unsqueeze(1);
    Tensor local_logprob = cluster_logprob.gather(1, relative).squeeze(1);
    output = where(in_cluster, local_logprob, output);
  }
  Tensor head_logprob = head(input).log_softmax(1);  // (N, head_size)
  output = output + head_logprob.gather(1, head_column.unsqueeze(1)).squeeze(1);
  const double loss = output.numel() == 0 ? std::nan("") : (-output).mean().item<double>();
  if (!is_batched) output = output.squeeze(0);
  return ASMoutput(output, loss);
}

Tensor AdaptiveLogSoftmaxWithLossImpl::_get_full_log_prob(const Tensor& input, const Tensor& head_output) {
  Tensor head_logprob = head_output.log_softmax(1);  // (N, head_size)
  tensor_list parts = {head_logprob.narrow(1, 0, shortlist_size)};
  for (int64_t i = 0; i < n_clusters; ++i) {
    Tensor cluster_logprob = tail->at<SequentialImpl>(i).forward(input).log_softmax(1);
    parts.push_back(cluster_logprob + head_logprob.narrow(1, shortlist_size + i, 1));
  }
  return cat(parts, 1);  // (N, n_classes)
}

Tensor AdaptiveLogSoftmaxWithLossImpl::log_prob(const Tensor& input) {
  EMBER_CHECK(input.dim() == 2 && input.size(1) == options.in_features(),
              "AdaptiveLogSoftmaxWithLoss::log_prob: input must be (N, {}), got {}", options.in_features(),
              input.sizes());
  return _get_full_log_prob(input, head(input));
}

Tensor AdaptiveLogSoftmaxWithLossImpl::predict(const Tensor& input) {
  EMBER_CHECK(input.dim() == 2 && input.size(1) == options.in_features(),
              "AdaptiveLogSoftmaxWithLoss::predict: input must be (N, {}), got {}", options.in_features(),
              input.sizes());
  Tensor head_output = head(input);
  Tensor output = head_output.argmax(1);
  Tensor not_in_shortlist = output.ge(shortlist_size);
  if (!not_in_shortlist.any().item<bool>()) return output;
  // Rows whose best head entry is a cluster take the best class over all classes.
  return where(not_in_shortlist, _get_full_log_prob(input, head_output).argmax(1), output);
}

}  // namespace ember::nn
