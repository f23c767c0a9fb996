// nn::functional: layer functions composed from autograd primitives (their gradients come from the
// primitives). Shape checks happen here, once, with messages that name the function and the shapes.
#include "nn/functional.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "autograd/attention.h"
#include "autograd/autocast.h"
#include "autograd/grad_mode.h"
#include "core/kernel.h"
#include "core/random.h"
#include "core/shape.h"
#include "core/trace.h"

namespace ember::nn::functional {

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// softmax over `dim` with the slices flagged in `dead` (broadcastable to scores, keepdim-shaped) set to
// zero instead of NaN. Those slices are filled with 0 before the softmax, so neither the forward nor the
// backward ever computes exp(-inf + inf).
Tensor softmax_with_dead_rows(const Tensor& scores, const Tensor& dead, int64_t dim) {
  if (!dead.any().item<bool>()) return scores.softmax(dim);
  return scores.masked_fill(dead, 0).softmax(dim).masked_fill(dead, 0);
}

// softmax where a slice made only of -inf gives zeros (torch's safe softmax for attention).
Tensor safe_softmax(const Tensor& scores, int64_t dim) {
  Tensor dead;
  {
    NoGradGuard no_grad;
    dead = scores.eq(kNegInf).all(dim, /*keepdim=*/true);
  }
  return softmax_with_dead_rows(scores, dead, dim);
}

}  // namespace

Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  EMBER_TRACE_OP();
  // Under autocast the weight itself is cast (once per scope: autograd/autocast.h), not its transpose.
  if (autograd::AutocastCall cast{autograd::AutocastOp::linear, {input, weight, bias}})
    return linear(cast[0], cast[1], cast[2]);
  EMBER_CHECK(weight.dim() == 2, "linear: weight must be 2-D (out_features, in_features), got shape {}",
              weight.sizes());
  EMBER_CHECK(input.dim() >= 1, "linear: input must have at least 1 dimension, got a 0-d tensor");
  const int64_t in_features = weight.size(1), out_features = weight.size(0);
  EMBER_CHECK(input.size(-1) == in_features,
              "linear: input has {} features but weight expects {} (input {}, weight {})", input.size(-1), in_features,
              input.sizes(), weight.sizes());
  EMBER_CHECK(!bias.defined() || (bias.dim() == 1 && bias.size(0) == out_features),
              "linear: bias must have shape [{}] to match weight {}, got {}", out_features, weight.sizes(),
              bias.defined() ? bias.sizes() : IntArrayRef{});
  // A vector is a row times W^T; (*, in) is folded to (N, in), so the product is one matrix multiply
  // (and so is its backward), with the bias added in the product's buffer (addmm).
  if (input.dim() == 1) return bias.defined() ? input.matmul(weight.t()) + bias : input.matmul(weight.t());
  Tensor x2 = input.dim() == 2 ? input : input.reshape({-1, in_features});
  Tensor y = bias.defined() ? addmm(bias, x2, weight.t()) : x2.mm(weight.t());
  if (input.dim() == 2) return y;
  std::vector<int64_t> out_sizes = input.sizes().vec();
  out_sizes.back() = out_features;
  return y.view(out_sizes);
}

Tensor embedding(const Tensor& input, const Tensor& weight, const EmbeddingFuncOptions& options) {
  EMBER_TRACE_OP();
  std::optional<int64_t> padding_idx = options.padding_idx();
  if (padding_idx) {
    EMBER_CHECK(weight.dim() == 2, "embedding: weight must be 2-D (num_embeddings, embedding_dim), got shape {}",
                weight.sizes());
    const int64_t rows = weight.size(0);
    EMBER_CHECK(*padding_idx >= -rows && *padding_idx < rows,
                "embedding: padding_idx {} must be within num_embeddings ({})", *padding_idx, rows);
    if (*padding_idx < 0) padding_idx = *padding_idx + rows;
  }
  EMBER_CHECK(!options.sparse(), "embedding: sparse gradients are not supported by Ember");
  EMBER_CHECK(!options.scale_grad_by_freq(), "embedding: scale_grad_by_freq is not supported by Ember");
  if (options.max_norm()) embedding_renorm_(weight, input, *options.max_norm(), options.norm_type());
  return ember::embedding(weight, input, padding_idx);
}

void embedding_renorm_(const Tensor& weight, const Tensor& indices, double max_norm, double norm_type) {
  EMBER_TRACE_OP();
  EMBER_CHECK(weight.dim() == 2, "embedding_renorm_: weight must be 2-D (num_embeddings, embedding_dim), got shape {}",
              weight.sizes());
  EMBER_CHECK(indices.dtype() == kInt64, "embedding_renorm_: indices must be int64, got {}",
              dtype_name(indices.dtype()));
  NoGradGuard no_grad;
  std::vector<int64_t> ids = indices.cpu().contiguous().to_vector<int64_t>();
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  for (int64_t id : ids) {
    EMBER_CHECK(id >= 0 && id < weight.size(0), "embedding_renorm_: index {} is out of range for {} rows", id,
                weight.size(0));
    Tensor row = weight.select(0, id);
    const double norm = row.norm(norm_type).item().toDouble();
    if (norm > max_norm) row.mul_(max_norm / (norm + 1e-7));
  }
}

Tensor dropout(Tensor input, const DropoutFuncOptions& options) {
  EMBER_TRACE_OP();
  const double p = options.p();
  EMBER_CHECK(p >= 0 && p <= 1, "dropout: probability has to be between 0 and 1, but got {}", p);
  if (!options.training() || p == 0 || input.numel() == 0) return input;
  if (p == 1) {
    Tensor zero = zeros({}, input.options());
    return options.inplace() ? input.mul_(zero) : input * zero;
  }
  // PyTorch's CPU dropout: one bernoulli draw per element (keep with probability 1 - p), scaled;
  // on CUDA, one kernel from the Philox stream (core/random.h). The product keeps the mask for backward.
  Tensor noise = ember::dropout_noise(input.sizes(), input.options(), p);
  return options.inplace() ? input.mul_(noise) : input * noise;
}

Tensor dropout(const Tensor& input, double p, bool training) {
  EMBER_TRACE_OP();
  return dropout(input, DropoutFuncOptions().p(p).training(training));
}

Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const Tensor& weight, const Tensor& bias,
                  double eps) {
  EMBER_TRACE_OP();
  return ember::layer_norm(input, normalized_shape, weight, bias, eps);
}

Tensor layer_norm(const Tensor& input, const LayerNormFuncOptions& options) {
  EMBER_TRACE_OP();
  return ember::layer_norm(input, options.normalized_shape(), options.weight(), options.bias(), options.eps());
}

Tensor gelu(const Tensor& input, const GELUFuncOptions& options) { return input.gelu(options.approximate()); }
Tensor relu(const Tensor& input) { return input.relu(); }

Tensor softmax(const Tensor& input, const SoftmaxFuncOptions& options) {
  EMBER_TRACE_OP();
  return input.softmax(options.dim(), options.dtype());
}
Tensor log_softmax(const Tensor& input, const LogSoftmaxFuncOptions& options) {
  EMBER_TRACE_OP();
  return input.log_softmax(options.dim(), options.dtype());
}

Tensor masked_softmax(const Tensor& scores, const Tensor& mask, int64_t dim) {
  EMBER_TRACE_OP();
  EMBER_CHECK(mask.dtype() == kBool, "masked_softmax: expected a bool mask (true = masked out), got {}",
              dtype_name(mask.dtype()));
  EMBER_CHECK(mask.dim() <= scores.dim(), "masked_softmax: mask {} has more dims than scores {}", mask.sizes(),
              scores.sizes());
  const int64_t d = wrap_dim(dim, scores.dim(), "masked_softmax");
  // Fully masked slices are found on the mask, which is usually far smaller than the scores (a
  // (T, T) causal mask, a (B, 1, 1, S) padding mask). Where the mask is broadcast along `dim`, every
  // masked element is already a fully masked slice.
  const int64_t mask_dim = d - (scores.dim() - mask.dim());
  Tensor dead = (mask_dim < 0 || mask.size(mask_dim) == 1) ? mask : mask.all(mask_dim, /*keepdim=*/true);
  return softmax_with_dead_rows(scores.masked_fill(mask, kNegInf), dead, d);
}

Tensor cross_entropy(const Tensor& input_arg, const Tensor& target_arg, const CrossEntropyFuncOptions& options) {
  EMBER_TRACE_OP();
  // Under autocast the loss is computed in float32 (autograd/autocast.h). bfloat16 / float16 logits
  // of class indices go to the fused kernel as they are (read as float32 there) where it takes
  // them, rather than copied to float32 first: on CUDA, the GPT's (B * T, vocab) logits.
  const double smoothing_arg = options.label_smoothing();
  if (!options.weight().defined() && !target_arg.is_floating_point() && smoothing_arg >= 0 && smoothing_arg <= 1 &&
      target_arg.device() == input_arg.device() &&
      autograd::autocast_casts_to_float32(autograd::AutocastOp::cross_entropy, input_arg)) {
    autograd::AutocastExcluded off;  // as inside AutocastCall: the ops below keep their dtypes
    if (std::optional<Tensor> fused = ember::detail::fused_cross_entropy(input_arg, target_arg, options.reduction(),
                                                                         options.ignore_index(), smoothing_arg))
      return *fused;
  }
  if (autograd::AutocastCall cast{autograd::AutocastOp::cross_entropy, {input_arg, target_arg, options.weight()}}) {
    CrossEntropyFuncOptions cast_options = options;
    return cross_entropy(cast[0], cast[1], cast_options.weight(cast[2]));
  }
  const Tensor& input = input_arg;
  const Tensor& target = target_arg;
  const Tensor& weight = options.weight();
  kernel::check_same_device("cross_entropy", {input, target});
  EMBER_CHECK(input.dim() >= 1 && input.is_floating_point(),
              "cross_entropy: input must be floating-point logits of shape (C), (N, C) or (N, C, d1, ...), got {} {}",
              dtype_name(input.dtype()), input.sizes());
  const double smoothing = options.label_smoothing();
  EMBER_CHECK(smoothing >= 0 && smoothing <= 1, "cross_entropy: label_smoothing must be between 0.0 and 1.0, got {}",
              smoothing);
  const int64_t class_dim = input.dim() == 1 ? 0 : 1;
  const int64_t C = input.size(class_dim);
  ember::detail::check_class_weight(input, weight, "cross_entropy");
  // weight shaped to multiply the class dim of input: (C) as (1, C, 1, ...)
  const auto class_weights = [&] {
    std::vector<int64_t> shape(input.dim(), 1);
    shape[class_dim] = C;
    return weight.reshape(shape);
  };

  if (target.is_floating_point()) {  // class probabilities; the mean is over the samples, weighted or not
    EMBER_CHECK(target.sizes() == input.sizes(),
                "cross_entropy: probability target has shape {} but input has shape {}", target.sizes(), input.sizes());
    Tensor logp = input.log_softmax(class_dim);
    Tensor probs = smoothing > 0 ? target * (1 - smoothing) + smoothing / static_cast<double>(C) : target;
    Tensor terms = weight.defined() ? logp * probs * class_weights() : logp * probs;
    return apply_reduction(-terms.sum({class_dim}), options.reduction());
  }

  // class indices: PyTorch's nll_loss on the log-probabilities, plus the smoothing term
  const int64_t ignore = options.ignore_index();
  if (!weight.defined() && !is_reduced_floating_point(input.dtype())) {  // float16 / bfloat16: see above
    if (std::optional<Tensor> fused =
            ember::detail::fused_cross_entropy(input, target, options.reduction(), ignore, smoothing))
      return *fused;
  }
  ember::detail::check_nll_loss_target(input, target, ignore, "cross_entropy");
  Tensor logp = input.log_softmax(class_dim);
  Tensor loss = nll_loss(logp, target, weight, options.reduction(), ignore);
  if (smoothing == 0) return loss;
  // smooth_i = -sum_c w_c logp[i, c] over targets not ignored, reduced like the nll term: the mean
  // divides by the count of targets (unweighted) or their total weight, as PyTorch's.
  Tensor invalid = target.eq(ignore);
  Tensor smooth = -(weight.defined() ? logp * class_weights() : logp).sum({class_dim}).masked_fill(invalid, 0);
  if (options.reduction() == Reduction::Mean) {
    Tensor total = weight.defined() ? weight.index_select(0, target.masked_fill(invalid, 0).reshape({-1}))
                                          .masked_fill(invalid.reshape({-1}), 0)
                                          .sum()
                                    : invalid.logical_not().sum().to(smooth.dtype());
    smooth = smooth.sum() / total;
  } else {
    smooth = apply_reduction(smooth, options.reduction());
  }
  return loss * (1 - smoothing) + smooth * (smoothing / static_cast<double>(C));
}

Tensor nll_loss(const Tensor& input, const Tensor& target, const NLLLossFuncOptions& options) {
  EMBER_TRACE_OP();
  return ember::nll_loss(input, target, options.weight(), options.reduction(), options.ignore_index());
}

Tensor mse_loss(const Tensor& input_arg, const Tensor& target_arg, const MSELossFuncOptions& options) {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::mse_loss, {input_arg, target_arg}})
    return mse_loss(cast[0], cast[1], options);
  const Tensor& input = input_arg;
  const Tensor& target = target_arg;
  kernel::check_same_device("mse_loss", {input, target});
  EMBER_CHECK(input.sizes() == target.sizes(), "mse_loss: input {} and target {} must have the same shape",
              input.sizes(), target.sizes());
  return apply_reduction((input - target).square(), options.reduction());
}

Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const Tensor& attn_mask, double dropout_p, bool is_causal,
                                    std::optional<double> scale) {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::scaled_dot_product_attention, {query, key, value, attn_mask}})
    return scaled_dot_product_attention(cast[0], cast[1], cast[2], cast[3], dropout_p, is_causal, scale);
  const char* op = "scaled_dot_product_attention";
  EMBER_CHECK(query.dim() >= 2 && key.dim() >= 2 && value.dim() >= 2,
              "{}: query, key and value need at least 2 dims (..., L, E), got {}, {} and {}", op, query.sizes(),
              key.sizes(), value.sizes());
  EMBER_CHECK(query.size(-1) == key.size(-1), "{}: query {} and key {} must have the same embedding size (last dim)",
              op, query.sizes(), key.sizes());
  EMBER_CHECK(key.size(-2) == value.size(-2), "{}: key {} and value {} must have the same sequence length (dim -2)", op,
              key.sizes(), value.sizes());
  EMBER_CHECK(!(is_causal && attn_mask.defined()), "{}: attn_mask must not be given when is_causal is true", op);
  EMBER_CHECK(dropout_p >= 0 && dropout_p <= 1, "{}: dropout_p has to be between 0 and 1, but got {}", op, dropout_p);
  const double factor = scale.value_or(1.0 / std::sqrt(static_cast<double>(query.size(-1))));

  // Causal: one fused primitive where the backend has it, else the same composition. Its dropout
  // mask covers the weights' shape (..., L, S) and is drawn before the scores (nothing random happens
  // in between: these are the numbers dropout(weights) would draw), or inside the kernel on CUDA.
  if (is_causal && dropout_p < 1) return autograd::causal_attention(query, key, value, dropout_p, factor);

  Tensor weights;
  if (is_causal) {
    weights = autograd::causal_softmax(query, key, factor);  // (..., L, S)
  } else {
    Tensor scores = query.matmul(key.mT()) * factor;  // (..., L, S)
    if (attn_mask.defined() && attn_mask.dtype() == kBool)
      weights = masked_softmax(scores, attn_mask.logical_not());
    else if (attn_mask.defined())
      weights = safe_softmax(scores + attn_mask, -1);
    else
      weights = scores.softmax(-1);
  }
  if (dropout_p > 0) weights = dropout(weights, dropout_p, /*training=*/true);  // p = 1: all zero
  return weights.matmul(value);
}

}  // namespace ember::nn::functional
