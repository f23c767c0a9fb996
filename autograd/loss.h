// Loss primitives with their own backward: nll_loss, as torch::nll_loss.
//
//   ember::Tensor logp = logits.log_softmax(1);                 // (N, C)
//   ember::Tensor loss = ember::nll_loss(logp, targets);         // mean of -logp[i, targets[i]]
//   std::cout << loss;                                           // tensor(1.2345, grad_fn=<NllLossBackward0>)
//
// Also the loss reduction enum (ember::kMean, kSum, kNone, as torch::kMean). Losses composed of
// several ops (cross_entropy, mse_loss) live in nn/functional.h.
#pragma once

#include <cstdint>
#include <optional>

#include "core/tensor.h"

namespace ember {

// How a loss reduces its per-element values: none (keep them), their mean, or their sum.
enum class Reduction { None, Mean, Sum };
inline constexpr Reduction kNone = Reduction::None;
inline constexpr Reduction kMean = Reduction::Mean;
inline constexpr Reduction kSum = Reduction::Sum;

// Per-element losses reduced as asked: as they are, their mean, or their sum.
inline Tensor apply_reduction(const Tensor& loss, Reduction reduction) {
  switch (reduction) {
    case Reduction::None:
      return loss;
    case Reduction::Sum:
      return loss.sum();
    case Reduction::Mean:
      return loss.mean();
  }
  return loss;
}

// Negative log-likelihood of class indices: loss_i = -input[i, target_i].
//   input (N, C), (C) or (N, C, d1, ...) log-probabilities; target int64 of input's shape without
//   the class dim, each in [0, C) or equal to ignore_index (no loss, no gradient, not counted).
//   kMean divides by the number of targets not ignored (NaN when there are none, as in PyTorch).
Tensor nll_loss(const Tensor& input, const Tensor& target, Reduction reduction = kMean, int64_t ignore_index = -100);
// With class weights (ATen's argument order): loss_i = -weight[t_i] input[i, t_i], and kMean divides
// by the sum of weight[t_i] over the targets not ignored. weight is (C), of input's dtype and device,
// or undefined (every class weighs 1); it takes no gradient, and PyTorch's error if it requires one.
Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight, Reduction reduction = kMean,
                int64_t ignore_index = -100);

namespace detail {
// nll_loss's checks of input and target, with errors that name `op` (cross_entropy's are its own).
void check_nll_loss_target(const Tensor& input, const Tensor& target, int64_t ignore_index, const char* op);
// Its checks of dtype and shape only: the caller finds targets out of range itself.
void check_nll_loss_target_shape(const Tensor& input, const Tensor& target, const char* op);
// The class weights' checks (shape (C), input's dtype and device, no gradient), as PyTorch's texts.
void check_class_weight(const Tensor& input, const Tensor& weight, const char* op);

// cross_entropy of class indices through the backend's fused kernel (Backend::cross_entropy), for (C) or (N, C)
// contiguous float32 / float64 logits, or bfloat16 / float16 ones read as float32 (a float32 loss, the gradient in
// their dtype): log-softmax, loss and gradient each one pass per row, one node ("NllLossBackward0", or "AddBackward0"
// with label smoothing, as PyTorch's grad_fn of the loss). std::nullopt where it does not apply (other shapes or
// dtypes, a backend without the kernel): nn::functional::cross_entropy then composes log_softmax and nll_loss.
// Targets out of range throw, naming cross_entropy and the target.
std::optional<Tensor> fused_cross_entropy(const Tensor& input, const Tensor& target, Reduction reduction,
                                          int64_t ignore_index, double label_smoothing);
}  // namespace detail

}  // namespace ember
