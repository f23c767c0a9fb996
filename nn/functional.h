// nn::functional: the stateless layer functions, as torch::nn::functional (torch.nn.functional).
//
//   namespace F = ember::nn::functional;
//   Tensor h = F::gelu(F::linear(x, w, b));                          // x (B, T, C), w (4C, C)
//   Tensor p = F::softmax(scores, -1);
//   Tensor att = F::scaled_dot_product_attention(q, k, v, {}, 0.0, /*is_causal=*/true);
//   Tensor loss = F::cross_entropy(logits, targets, F::CrossEntropyFuncOptions().label_smoothing(0.1));
//
// Each one is a composition of autograd primitives (core/tensor.h), so gradients come for free and
// the composition is the reference a fused kernel would be tested against. Functions that draw
// random numbers (dropout) use the default generator, in PyTorch's order of draws.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "nn/options.h"

namespace ember::nn::functional {

// y = x W^T + b.  input (*, in), weight (out, in), bias (out) or undefined -> (*, out)
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = {});

struct EmbeddingFuncOptions {
  // Rows looked up with this index get no gradient (may be negative: counts from the end).
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
  // The rows looked up are first rescaled in place (without grad) to a norm_type-norm of at most
  // max_norm, as PyTorch's embedding_renorm_.
  EMBER_ARG(std::optional<double>, max_norm) = std::nullopt;
  EMBER_ARG(double, norm_type) = 2.;
  EMBER_ARG(bool, scale_grad_by_freq) = false;  // not supported: an error
  EMBER_ARG(bool, sparse) = false;              // not supported: an error
};
// Rows of weight picked by integer indices.  input (*) int64, weight (V, C) -> (*, C)
Tensor embedding(const Tensor& input, const Tensor& weight, const EmbeddingFuncOptions& options = {});
// PyTorch's embedding_renorm_: each row of weight (V, C) that `indices` name, with a norm_type-norm
// over max_norm, scaled in place by max_norm / (norm + 1e-7). No gradient is recorded.
void embedding_renorm_(const Tensor& weight, const Tensor& indices, double max_norm, double norm_type);

struct DropoutFuncOptions {
  EMBER_ARG(double, p) = 0.5;
  EMBER_ARG(bool, training) = true;
  EMBER_ARG(bool, inplace) = false;
};
// Zeroes each element with probability p and scales the rest by 1/(1-p); identity when not training.
Tensor dropout(Tensor input, const DropoutFuncOptions& options = {});
Tensor dropout(const Tensor& input, double p, bool training);

struct LayerNormFuncOptions {
  LayerNormFuncOptions(std::vector<int64_t> normalized_shape) : normalized_shape_(std::move(normalized_shape)) {}
  EMBER_ARG(std::vector<int64_t>, normalized_shape);
  EMBER_ARG(Tensor, weight) = {};
  EMBER_ARG(Tensor, bias) = {};
  EMBER_ARG(double, eps) = 1e-5;
};
// Normalises over the last len(normalized_shape) dims (biased variance), then scales and shifts.
Tensor layer_norm(const Tensor& input, const LayerNormFuncOptions& options);
Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const Tensor& weight = {}, const Tensor& bias = {},
                  double eps = 1e-5);

struct GELUFuncOptions {
  // "none": x Phi(x) with the exact erf; "tanh": the tanh approximation (GPT-2's).
  EMBER_ARG(std::string, approximate) = "none";
};
Tensor gelu(const Tensor& input, const GELUFuncOptions& options = {});
Tensor relu(const Tensor& input);

struct SoftmaxFuncOptions {
  SoftmaxFuncOptions(int64_t dim) : dim_(dim) {}
  EMBER_ARG(int64_t, dim);
  EMBER_ARG(std::optional<ScalarType>, dtype) = std::nullopt;
};
Tensor softmax(const Tensor& input, const SoftmaxFuncOptions& options);
using LogSoftmaxFuncOptions = SoftmaxFuncOptions;
Tensor log_softmax(const Tensor& input, const LogSoftmaxFuncOptions& options);

// softmax(scores.masked_fill(mask, -inf)) over `dim`; mask (broadcastable to scores) is true where a
// score must be ignored. A row with every score masked gets probabilities 0 (not NaN) and a zero
// gradient, so one empty row cannot poison a batch.
Tensor masked_softmax(const Tensor& scores, const Tensor& mask, int64_t dim = -1);

struct CrossEntropyFuncOptions {
  // (C): each class's weight, as nll_loss's (the mean divides by the targets' total weight).
  EMBER_ARG(Tensor, weight) = {};
  EMBER_ARG(Reduction, reduction) = kMean;
  // Targets equal to this are skipped (no loss, no gradient, not counted by the mean).
  EMBER_ARG(int64_t, ignore_index) = -100;
  // Mixes the target with the uniform distribution: (1 - s) * one_hot + s / C.
  EMBER_ARG(double, label_smoothing) = 0.0;
};
// log_softmax over the class dim, then the negative log-likelihood of the target.
//   input (N, C), (C) or (N, C, d1, ...) logits; target int64 class indices (N), () or (N, d1, ...),
//   or float class probabilities shaped like input.
Tensor cross_entropy(const Tensor& input, const Tensor& target, const CrossEntropyFuncOptions& options = {});

struct NLLLossFuncOptions {
  EMBER_ARG(Tensor, weight) = {};  // (C): each class's weight (autograd/loss.h)
  EMBER_ARG(Reduction, reduction) = kMean;
  EMBER_ARG(int64_t, ignore_index) = -100;
};
// -input[i, target_i] for log-probabilities (ember::nll_loss, autograd/loss.h).
Tensor nll_loss(const Tensor& input, const Tensor& target, const NLLLossFuncOptions& options = {});

struct MSELossFuncOptions {
  MSELossFuncOptions(Reduction reduction = kMean) : reduction_(reduction) {}
  EMBER_ARG(Reduction, reduction);
};
// (input - target)^2, reduced.  input and target of the same shape.
Tensor mse_loss(const Tensor& input, const Tensor& target, const MSELossFuncOptions& options = {});

// softmax(q k^T * scale + mask) v, as torch.nn.functional.scaled_dot_product_attention (torch 2.x).
//   query (..., L, E), key (..., S, E), value (..., S, Ev) -> (..., L, Ev)
//   attn_mask (broadcastable to (..., L, S)): bool (true = may attend) or float (added to the scores).
//   is_causal: query i attends to keys 0..i (attn_mask must then be undefined).
//   scale: defaults to 1/sqrt(E). Dropout on the weights is always applied when dropout_p > 0.
// A query whose keys are all masked gets an output of zeros.
Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const Tensor& attn_mask = {}, double dropout_p = 0.0, bool is_causal = false,
                                    std::optional<double> scale = std::nullopt);

}  // namespace ember::nn::functional
