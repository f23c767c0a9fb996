// Loss modules (MSELoss, L1Loss, SmoothL1Loss, CrossEntropyLoss, NLLLoss, and the losses of binary
// classification, divergence, ranking and embeddings: BCELoss, BCEWithLogitsLoss, KLDivLoss,
// HuberLoss, MarginRankingLoss, HingeEmbeddingLoss, CosineEmbeddingLoss, TripletMarginLoss,
// TripletMarginWithDistanceLoss, PoissonNLLLoss, GaussianNLLLoss, and the margin losses of
// classification: MultiMarginLoss, SoftMarginLoss, MultiLabelMarginLoss, MultiLabelSoftMarginLoss;
// CTCLoss) and their functions, as torch::nn's.
//
//   ember::nn::MSELoss mse;                                              // mean of (input - target)^2
//   ember::nn::SmoothL1Loss huber(ember::nn::SmoothL1LossOptions().beta(0.5));
//   ember::nn::CrossEntropyLoss ce(ember::nn::CrossEntropyLossOptions().label_smoothing(0.1));
//   ember::Tensor loss = mse(prediction, target) + ce(logits, classes);
//
// The modules hold no parameters: each forwards to its function in nn::functional, which is a
// composition of autograd primitives (the gradients follow from those).
#pragma once

#include <functional>
#include <optional>
#include <variant>

#include "nn/functional.h"
#include "nn/module.h"
#include "nn/options.h"

namespace ember {
// KLDivLoss's reduction adds "batchmean" (the sum divided by the batch size, the true KL divergence),
// as torch::kBatchMean.
struct BatchMeanReduction {};
inline constexpr BatchMeanReduction kBatchMean{};
}  // namespace ember

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

// ---- binary classification ----

struct BinaryCrossEntropyFuncOptions {
  EMBER_ARG(Reduction, reduction) = kMean;
  EMBER_ARG(Tensor, weight) = {};  // rescales each element's loss; broadcastable to input
};
// -w (t log(x) + (1 - t) log(1 - x)) for probabilities x in [0, 1], each log clamped to >= -100 as
// PyTorch does. input and target of the same shape; target gets no gradient (as in torch 1.13).
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target,
                            const BinaryCrossEntropyFuncOptions& options = {});

struct BinaryCrossEntropyWithLogitsFuncOptions {
  EMBER_ARG(Reduction, reduction) = kMean;
  EMBER_ARG(Tensor, weight) = {};      // per element, broadcastable to input
  EMBER_ARG(Tensor, pos_weight) = {};  // per class (the last dim), weights the positive term
};
// binary_cross_entropy(sigmoid(x), t) computed from the logits x without overflow:
//   (1 - t) x + l (log(exp(-m) + exp(-x - m)) + m),  m = max(-x, 0),  l = 1 + (pos_weight - 1) t
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const BinaryCrossEntropyWithLogitsFuncOptions& options = {});

// ---- divergence and regression ----

struct KLDivFuncOptions {
  using reduction_t = std::variant<Reduction, BatchMeanReduction>;
  KLDivFuncOptions(reduction_t reduction = kMean) : reduction_(reduction) {}
  EMBER_ARG(reduction_t, reduction);
  EMBER_ARG(bool, log_target) = false;  // target holds log-probabilities
};
// target (log target - input) for log-probabilities input; 0 where target is 0. Same shapes.
Tensor kl_div(const Tensor& input, const Tensor& target, const KLDivFuncOptions& options = {});

struct HuberLossFuncOptions {
  HuberLossFuncOptions(Reduction reduction = kMean) : reduction_(reduction) {}
  EMBER_ARG(Reduction, reduction);
  EMBER_ARG(double, delta) = 1.0;  // > 0
};
// 0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta), d = input - target. Same shapes.
Tensor huber_loss(const Tensor& input, const Tensor& target, const HuberLossFuncOptions& options = {});

struct PoissonNLLLossFuncOptions {
  EMBER_ARG(bool, log_input) = true;  // input is log(rate)
  EMBER_ARG(bool, full) = false;      // add Stirling's approximation of log(target!) where target > 1
  EMBER_ARG(double, eps) = 1e-8;      // log(input + eps) when log_input is false
  EMBER_ARG(Reduction, reduction) = kMean;
};
// exp(input) - target input (log_input), else input - target log(input + eps). Same shapes.
Tensor poisson_nll_loss(const Tensor& input, const Tensor& target, const PoissonNLLLossFuncOptions& options = {});

struct GaussianNLLLossFuncOptions {
  EMBER_ARG(bool, full) = false;  // add the constant 0.5 log(2 pi)
  EMBER_ARG(double, eps) = 1e-6;  // var is clamped to >= eps (the clamp passes the gradient through)
  EMBER_ARG(Reduction, reduction) = kMean;
};
// 0.5 (log(var) + (input - target)^2 / var). var has input's shape, or input's shape with the last
// dim 1 or missing (one variance shared by the last dim); it must not be negative.
Tensor gaussian_nll_loss(const Tensor& input, const Tensor& target, const Tensor& var,
                         const GaussianNLLLossFuncOptions& options = {});

// ---- ranking and embeddings: y in {1, -1} says whether a pair should be close / ordered ----

struct MarginRankingLossFuncOptions {
  EMBER_ARG(double, margin) = 0.0;
  EMBER_ARG(Reduction, reduction) = kMean;
};
// max(0, -y (x1 - x2) + margin); x1, x2, y broadcast, and must have the same number of dims.
Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                           const MarginRankingLossFuncOptions& options = {});

struct HingeEmbeddingLossFuncOptions {
  EMBER_ARG(double, margin) = 1.0;
  EMBER_ARG(Reduction, reduction) = kMean;
};
// x where y == 1, max(0, margin - x) where y == -1.
Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target,
                            const HingeEmbeddingLossFuncOptions& options = {});

struct CosineEmbeddingLossFuncOptions {
  EMBER_ARG(double, margin) = 0.0;
  EMBER_ARG(Reduction, reduction) = kMean;
};
// 1 - cos(x1, x2) where y == 1, max(0, cos(x1, x2) - margin) where y == -1.
//   input1, input2 (N, D) with target (N), or (D) with a 0-d target
Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                             const CosineEmbeddingLossFuncOptions& options = {});

struct TripletMarginLossFuncOptions {
  EMBER_ARG(double, margin) = 1.0;
  EMBER_ARG(double, p) = 2.0;     // the norm of the distances
  EMBER_ARG(double, eps) = 1e-6;  // added to the differences before the norm
  EMBER_ARG(bool, swap) = false;  // use min(d(a, n), d(p, n)) as the negative distance
  EMBER_ARG(Reduction, reduction) = kMean;
};
// max(0, margin + d(anchor, positive) - d(anchor, negative)), d = pairwise_distance over the last dim.
//   anchor, positive, negative (N, D) or (D), all with the same number of dims
Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                           const TripletMarginLossFuncOptions& options = {});

struct PairwiseDistanceFuncOptions {
  EMBER_ARG(double, p) = 2.0;
  EMBER_ARG(double, eps) = 1e-6;
  EMBER_ARG(bool, keepdim) = false;
};
// ||x1 - x2 + eps||_p over the last dim (x1, x2 broadcast).
Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, const PairwiseDistanceFuncOptions& options = {});

// ---- multi-class and multi-label margins ----

struct MultiMarginLossFuncOptions {
  EMBER_ARG(int64_t, p) = 1;  // 1 (hinge) or 2 (squared hinge)
  EMBER_ARG(double, margin) = 1.0;
  EMBER_ARG(Tensor, weight) = {};  // (C), one weight per class (of the target class); gets no gradient
  EMBER_ARG(Reduction, reduction) = kMean;
};
// Per sample: sum over classes j != y of w[y] max(0, margin - x[y] + x[j])^p, divided by C.
//   input (N, C) or (C); target int64 class indices (N), or () / (1) for a (C) input
Tensor multi_margin_loss(const Tensor& input, const Tensor& target, const MultiMarginLossFuncOptions& options = {});

struct SoftMarginLossFuncOptions {
  SoftMarginLossFuncOptions(Reduction reduction = kMean) : reduction_(reduction) {}
  EMBER_ARG(Reduction, reduction);
};
// log(1 + exp(-y x)) for labels y in {1, -1}. input and target of the same shape.
Tensor soft_margin_loss(const Tensor& input, const Tensor& target, const SoftMarginLossFuncOptions& options = {});

struct MultilabelMarginLossFuncOptions {
  MultilabelMarginLossFuncOptions(Reduction reduction = kMean) : reduction_(reduction) {}
  EMBER_ARG(Reduction, reduction);
};
// Per sample: sum over target classes j and non-target classes k of max(0, 1 - (x[j] - x[k])), over C.
//   input (N, C) or (C); target int64 of input's shape: each row lists its target classes, ended by
//   the first -1 (the rest of the row is ignored)
Tensor multilabel_margin_loss(const Tensor& input, const Tensor& target,
                              const MultilabelMarginLossFuncOptions& options = {});

struct MultilabelSoftMarginLossFuncOptions {
  EMBER_ARG(Tensor, weight) = {};  // (C), per class
  EMBER_ARG(Reduction, reduction) = kMean;
};
// Per sample: the mean over the C classes (the last dim) of
//   -w (y log(sigmoid(x)) + (1 - y) log(sigmoid(-x))),  input (N, C) or (C), target of the same shape
Tensor multilabel_soft_margin_loss(const Tensor& input, const Tensor& target,
                                   const MultilabelSoftMarginLossFuncOptions& options = {});

struct TripletMarginWithDistanceLossFuncOptions {
  using distance_function_t = std::function<Tensor(const Tensor&, const Tensor&)>;
  // d(x1, x2) -> one distance per sample; pairwise_distance when not given
  EMBER_ARG(std::optional<distance_function_t>, distance_function) = std::nullopt;
  EMBER_ARG(double, margin) = 1.0;
  EMBER_ARG(bool, swap) = false;  // use min(d(a, n), d(p, n)) as the negative distance
  EMBER_ARG(Reduction, reduction) = kMean;
};
// max(0, margin + d(anchor, positive) - d(anchor, negative)); the inputs have the same number of dims.
Tensor triplet_margin_with_distance_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                                         const TripletMarginWithDistanceLossFuncOptions& options = {});

// ---- connectionist temporal classification (nn/ctc_loss.cpp) ----

struct CTCLossFuncOptions {
  EMBER_ARG(int64_t, blank) = 0;            // the blank label, in [0, C)
  EMBER_ARG(Reduction, reduction) = kMean;  // kMean: each loss divided by its target length, then the mean
  EMBER_ARG(bool, zero_infinity) = false;   // impossible alignments (loss inf) give 0 and no gradient
};
// -log p(target | log_probs), summed over all alignments (the alpha recursion, in log space).
//   log_probs (T, N, C), log_softmax over C; targets int64, padded (N, S) or concatenated (sum of
//   target_lengths); input_lengths, target_lengths int64 (N), input_lengths <= T.
// The gradient of log_probs is PyTorch's: that of the loss plus exp(log_probs) for t < input_length,
// a term that log_softmax's backward cancels (it assumes log_probs come from log_softmax).
Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                const Tensor& target_lengths, const CTCLossFuncOptions& options = {});

}  // namespace functional

using MSELossOptions = functional::MSELossFuncOptions;
using L1LossOptions = functional::L1LossFuncOptions;
using SmoothL1LossOptions = functional::SmoothL1LossFuncOptions;
using CrossEntropyLossOptions = functional::CrossEntropyFuncOptions;
using NLLLossOptions = functional::NLLLossFuncOptions;

namespace detail {
// A loss whose options carry per-class or per-element weights keeps them as buffers, as libtorch's
// modules do: `loss->weight` (and `pos_weight`) is the options' tensor itself, so `loss->to(kCUDA)`
// moves what forward uses, and the weights are saved with the module's state.
template <typename Options>
struct LossWeight {
  void register_weights(Module&, Options&) {}
};
template <typename Options>
requires requires(Options& o) { o.weight(); }
struct LossWeight<Options> {
  Tensor weight;
  void register_weights(Module& m, Options& o) { weight = m.register_buffer("weight", o.weight()); }
};
template <typename Options>
struct LossPosWeight {
  void register_weights(Module&, Options&) {}
};
template <typename Options>
requires requires(Options& o) { o.pos_weight(); }
struct LossPosWeight<Options> {
  Tensor pos_weight;
  void register_weights(Module& m, Options& o) { pos_weight = m.register_buffer("pos_weight", o.pos_weight()); }
};
}  // namespace detail

namespace detail {
// How a loss module prints, as libtorch's: its name (no "Impl"), then what loss_arguments gives for
// its options: "()" for most, the options for a few ("HingeEmbeddingLoss(margin=1)"), nothing for
// SmoothL1Loss and HuberLoss. The "torch::nn::" prefix comes from Module's printing in a libtorch program.
void print_loss(std::ostream& stream, const Module& module, const std::string& arguments);
template <typename Options>
std::string loss_arguments(const Options&) {
  return "()";
}
std::string loss_arguments(const functional::SmoothL1LossFuncOptions& options);
std::string loss_arguments(const functional::HuberLossFuncOptions& options);
std::string loss_arguments(const functional::HingeEmbeddingLossFuncOptions& options);
std::string loss_arguments(const functional::CosineEmbeddingLossFuncOptions& options);
std::string loss_arguments(const functional::TripletMarginLossFuncOptions& options);
std::string loss_arguments(const functional::TripletMarginWithDistanceLossFuncOptions& options);
std::string loss_arguments(const functional::MultiMarginLossFuncOptions& options);
}  // namespace detail

// One module per loss: options stored, forward(input, target) calls the function.
template <typename Options, Tensor (*Loss)(const Tensor&, const Tensor&, const Options&)>
class LossImpl : public Module, public detail::LossWeight<Options>, public detail::LossPosWeight<Options> {
 public:
  explicit LossImpl(const Options& options = {}) : options(options) {
    detail::LossWeight<Options>::register_weights(*this, this->options);
    detail::LossPosWeight<Options>::register_weights(*this, this->options);
  }
  void reset_parameters() {}
  Tensor forward(const Tensor& input, const Tensor& target) { return Loss(input, target, options); }
  void pretty_print(std::ostream& stream) const override {
    detail::print_loss(stream, *this, detail::loss_arguments(options));
  }
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

// ---- the losses above as modules ----

using BCELossOptions = functional::BinaryCrossEntropyFuncOptions;
using BCEWithLogitsLossOptions = functional::BinaryCrossEntropyWithLogitsFuncOptions;
using KLDivLossOptions = functional::KLDivFuncOptions;
using HuberLossOptions = functional::HuberLossFuncOptions;
using PoissonNLLLossOptions = functional::PoissonNLLLossFuncOptions;
using MarginRankingLossOptions = functional::MarginRankingLossFuncOptions;
using HingeEmbeddingLossOptions = functional::HingeEmbeddingLossFuncOptions;
using CosineEmbeddingLossOptions = functional::CosineEmbeddingLossFuncOptions;
using TripletMarginLossOptions = functional::TripletMarginLossFuncOptions;
using GaussianNLLLossOptions = functional::GaussianNLLLossFuncOptions;

class BCELossImpl : public LossImpl<BCELossOptions, functional::binary_cross_entropy> {
 public:
  using LossImpl::LossImpl;
};
class BCEWithLogitsLossImpl : public LossImpl<BCEWithLogitsLossOptions, functional::binary_cross_entropy_with_logits> {
 public:
  using LossImpl::LossImpl;
};
class KLDivLossImpl : public LossImpl<KLDivLossOptions, functional::kl_div> {
 public:
  using LossImpl::LossImpl;
};
class HuberLossImpl : public LossImpl<HuberLossOptions, functional::huber_loss> {
 public:
  using LossImpl::LossImpl;
};
class PoissonNLLLossImpl : public LossImpl<PoissonNLLLossOptions, functional::poisson_nll_loss> {
 public:
  using LossImpl::LossImpl;
};
class HingeEmbeddingLossImpl : public LossImpl<HingeEmbeddingLossOptions, functional::hinge_embedding_loss> {
 public:
  using LossImpl::LossImpl;
};
EMBER_MODULE(BCELoss);
EMBER_MODULE(BCEWithLogitsLoss);
EMBER_MODULE(KLDivLoss);
EMBER_MODULE(HuberLoss);
EMBER_MODULE(PoissonNLLLoss);
EMBER_MODULE(HingeEmbeddingLoss);

// Losses of three tensors: forward(a, b, c).
template <typename Options, Tensor (*Loss)(const Tensor&, const Tensor&, const Tensor&, const Options&)>
class TernaryLossImpl : public Module {
 public:
  explicit TernaryLossImpl(const Options& options = {}) : options(options) {}
  void reset_parameters() {}
  Tensor forward(const Tensor& a, const Tensor& b, const Tensor& c) { return Loss(a, b, c, options); }
  void pretty_print(std::ostream& stream) const override {
    detail::print_loss(stream, *this, detail::loss_arguments(options));
  }
  Options options;
};

// forward(input1, input2, target)
class MarginRankingLossImpl : public TernaryLossImpl<MarginRankingLossOptions, functional::margin_ranking_loss> {
 public:
  using TernaryLossImpl::TernaryLossImpl;
};
// forward(input1, input2, target)
class CosineEmbeddingLossImpl : public TernaryLossImpl<CosineEmbeddingLossOptions, functional::cosine_embedding_loss> {
 public:
  using TernaryLossImpl::TernaryLossImpl;
};
// forward(anchor, positive, negative)
class TripletMarginLossImpl : public TernaryLossImpl<TripletMarginLossOptions, functional::triplet_margin_loss> {
 public:
  using TernaryLossImpl::TernaryLossImpl;
};
// forward(input, target, var)
class GaussianNLLLossImpl : public TernaryLossImpl<GaussianNLLLossOptions, functional::gaussian_nll_loss> {
 public:
  using TernaryLossImpl::TernaryLossImpl;
};
EMBER_MODULE(MarginRankingLoss);
EMBER_MODULE(CosineEmbeddingLoss);
EMBER_MODULE(TripletMarginLoss);
EMBER_MODULE(GaussianNLLLoss);

// ---- margin losses ----

using MultiMarginLossOptions = functional::MultiMarginLossFuncOptions;
using SoftMarginLossOptions = functional::SoftMarginLossFuncOptions;
using MultiLabelMarginLossOptions = functional::MultilabelMarginLossFuncOptions;
using MultiLabelSoftMarginLossOptions = functional::MultilabelSoftMarginLossFuncOptions;
using TripletMarginWithDistanceLossOptions = functional::TripletMarginWithDistanceLossFuncOptions;

class MultiMarginLossImpl : public LossImpl<MultiMarginLossOptions, functional::multi_margin_loss> {
 public:
  using LossImpl::LossImpl;
};
class SoftMarginLossImpl : public LossImpl<SoftMarginLossOptions, functional::soft_margin_loss> {
 public:
  using LossImpl::LossImpl;
};
class MultiLabelMarginLossImpl : public LossImpl<MultiLabelMarginLossOptions, functional::multilabel_margin_loss> {
 public:
  using LossImpl::LossImpl;
};
class MultiLabelSoftMarginLossImpl
    : public LossImpl<MultiLabelSoftMarginLossOptions, functional::multilabel_soft_margin_loss> {
 public:
  using LossImpl::LossImpl;
};
// forward(anchor, positive, negative)
class TripletMarginWithDistanceLossImpl
    : public TernaryLossImpl<TripletMarginWithDistanceLossOptions, functional::triplet_margin_with_distance_loss> {
 public:
  using TernaryLossImpl::TernaryLossImpl;
};
EMBER_MODULE(MultiMarginLoss);
EMBER_MODULE(SoftMarginLoss);
EMBER_MODULE(MultiLabelMarginLoss);
EMBER_MODULE(MultiLabelSoftMarginLoss);
EMBER_MODULE(TripletMarginWithDistanceLoss);

using CTCLossOptions = functional::CTCLossFuncOptions;

// forward(log_probs, targets, input_lengths, target_lengths)
class CTCLossImpl : public Module {
 public:
  explicit CTCLossImpl(const CTCLossOptions& options = {}) : options(options) {}
  void reset_parameters() {}
  Tensor forward(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                 const Tensor& target_lengths) {
    return functional::ctc_loss(log_probs, targets, input_lengths, target_lengths, options);
  }
  void pretty_print(std::ostream& stream) const override { detail::print_loss(stream, *this, "()"); }
  CTCLossOptions options;
};
EMBER_MODULE(CTCLoss);

}  // namespace ember::nn
