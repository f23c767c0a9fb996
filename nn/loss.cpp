// The losses of nn/loss.h beyond cross-entropy and MSE, composed of autograd primitives in the
// formulas PyTorch 1.13 uses (aten/src/ATen/native/Loss*.cpp and torch/nn/functional.py), so values
// and gradients agree with it; binary_cross_entropy alone has its own backward (see there why). The
// margin losses keep ATen's strict `z > 0` (no gradient at the hinge itself) through a mask.
#include "nn/loss.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <sstream>
#include <string>

#include "autograd/autocast.h"
#include "autograd/function.h"
#include "autograd/grad_mode.h"
#include "core/kernel.h"
#include "core/trace.h"
#include "nn/activation.h"

namespace ember::nn::functional {
namespace {

void check_same_shape(const Tensor& input, const Tensor& target, const char* op) {
  EMBER_CHECK(input.sizes() == target.sizes(), "{}: input {} and target {} must have the same shape", op, input.sizes(),
              target.sizes());
}

void check_reduction_input(const Tensor& t, const char* op, const char* what) {
  EMBER_CHECK(t.defined(), "{}: {} is an undefined tensor", op, what);
  EMBER_CHECK(t.is_floating_point(), "{}: {} must be floating point, got {}", op, what, dtype_name(t.dtype()));
}

// An elementwise loss's operands: both defined, floating, on one device, of one shape.
void check_input_and_target(const Tensor& input, const Tensor& target, const char* op) {
  check_reduction_input(input, op, "input");
  check_reduction_input(target, op, "target");
  kernel::check_same_device(op, {input, target});
  check_same_shape(input, target, op);
}

// `t` (a weight) broadcasts to input's shape without widening it.
void check_broadcasts_to_input(const Tensor& t, const Tensor& input, const char* op, const char* what) {
  bool ok = t.dim() <= input.dim();
  for (int64_t i = 1; ok && i <= t.dim(); ++i) ok = t.size(-i) == 1 || t.size(-i) == input.size(-i);
  EMBER_CHECK(ok, "{}: {} of shape {} must broadcast to the input's shape {}", op, what, t.sizes(), input.sizes());
}

Tensor scalar_like(const Tensor& x, double value) { return scalar_tensor(value, x.options()); }

// Values and masks computed without recording history (conditions for where()).
template <typename F>
Tensor no_grad(F f) {
  NoGradGuard guard;
  return f();
}

// PyTorch clamps each log of binary_cross_entropy to >= -100 (so log(0) gives a finite loss) and its
// backward divides by max(x (1 - x), 1e-12). Composed, the clamp would give 0 * inf = NaN gradients at
// x = 0 or 1, hence a function with PyTorch's backward:
//   d/dx = (x - t) / max(x (1 - x), eps)
struct BinaryCrossEntropy : autograd::Function<BinaryCrossEntropy> {
  static constexpr double kLogClamp = -100.0;
  static constexpr double kEps = 1e-12;
  static Tensor forward(autograd::AutogradContext* ctx, const Tensor& input, const Tensor& target) {
    ctx->save_for_backward({input, target});
    return (target - 1) * (-input).log1p().clamp_min(kLogClamp) - target * input.log().clamp_min(kLogClamp);
  }
  static autograd::variable_list backward(autograd::AutogradContext* ctx, autograd::variable_list grad_outputs) {
    const auto saved = ctx->get_saved_variables();
    const Tensor& x = saved[0];
    const Tensor& t = saved[1];
    return {grad_outputs[0] * (x - t) / ((1 - x) * x).clamp_min(kEps), Tensor()};
  }
};

// ||x1 - x2 + eps||_p over `dim`: p = inf takes the largest |v|, p = 1 the sum of |v|.
Tensor p_norm(const Tensor& v, double p, int64_t dim, bool keepdim) {
  if (std::isinf(p)) return v.abs().amax({dim}, keepdim);
  if (p == 1) return v.abs().sum({dim}, keepdim);
  if (p == 2) return v.square().sum({dim}, keepdim).sqrt();
  return v.abs().pow(p).sum({dim}, keepdim).pow(1.0 / p);
}

// Class indices: int64, each in [lo, C) (lo is -1 where -1 ends a list of targets).
void check_class_targets(const Tensor& target, int64_t lo, int64_t C, const char* op) {
  EMBER_CHECK(target.dtype() == kInt64, "{}: target must hold int64 class indices, got {}", op,
              dtype_name(target.dtype()));
  if (target.numel() == 0) return;
  const int64_t min = no_grad([&] { return target.min(); }).item<int64_t>();
  const int64_t max = no_grad([&] { return target.max(); }).item<int64_t>();
  EMBER_CHECK(min >= lo && max < C, "{}: target {} is out of bounds: classes are in [{}, {}) (input has C = {})", op,
              min < lo ? min : max, lo, C, C);
}

}  // namespace

Tensor l1_loss(const Tensor& input, const Tensor& target, const L1LossFuncOptions& options) {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::l1_loss, {input, target}})
    return l1_loss(cast[0], cast[1], options);
  kernel::check_same_device("l1_loss", {input, target});
  check_same_shape(input, target, "l1_loss");
  return apply_reduction((input - target).abs(), options.reduction());  // d/dd |d| = sign(d), 0 at 0
}

Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, const SmoothL1LossFuncOptions& options) {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::smooth_l1_loss, {input, target}})
    return smooth_l1_loss(cast[0], cast[1], options);
  check_same_shape(input, target, "smooth_l1_loss");
  const double beta = options.beta();
  EMBER_CHECK(beta >= 0, "smooth_l1_loss: beta must be >= 0, got {}", beta);
  if (beta == 0) return l1_loss(input, target, L1LossFuncOptions(options.reduction()));
  Tensor d = input - target;
  Tensor abs_d = d.abs();
  // d/dd: d / beta inside the quadratic zone, sign(d) outside (both pieces are differentiated by where).
  Tensor loss = where(abs_d < beta, d.square() * (0.5 / beta), abs_d - 0.5 * beta);
  return apply_reduction(loss, options.reduction());
}

Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const BinaryCrossEntropyFuncOptions& options) {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::binary_cross_entropy, {input, target, options.weight()}})
    return binary_cross_entropy(cast[0], cast[1], BinaryCrossEntropyFuncOptions(options).weight(cast[2]));
  const char* op = "binary_cross_entropy";
  check_reduction_input(input, op, "input");
  check_reduction_input(target, op, "target");
  kernel::check_same_device(op, {input, target});
  EMBER_CHECK(input.sizes() == target.sizes(),
              "{}: using a target size ({}) that is different to the input size ({}) is not supported; please ensure "
              "they have the same size",
              op, target.sizes(), input.sizes());
  EMBER_CHECK(no_grad([&] { return input.ge(0).logical_and(input.le(1)).all(); }).item<bool>(),
              "{}: all elements of input should be between 0 and 1 (apply sigmoid first, or use "
              "binary_cross_entropy_with_logits)",
              op);
  if (options.weight().defined()) check_broadcasts_to_input(options.weight(), input, op, "weight");
  Tensor loss = BinaryCrossEntropy::apply(input, target);
  if (options.weight().defined()) loss = loss * options.weight();
  return apply_reduction(loss, options.reduction());
}

Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const BinaryCrossEntropyWithLogitsFuncOptions& options) {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::binary_cross_entropy_with_logits,
                                  {input, target, options.weight(), options.pos_weight()}})
    return binary_cross_entropy_with_logits(
        cast[0], cast[1], BinaryCrossEntropyWithLogitsFuncOptions(options).weight(cast[2]).pos_weight(cast[3]));
  const char* op = "binary_cross_entropy_with_logits";
  check_reduction_input(input, op, "input");
  check_reduction_input(target, op, "target");
  kernel::check_same_device(op, {input, target});
  EMBER_CHECK(input.sizes() == target.sizes(), "{}: target size ({}) must be the same as input size ({})", op,
              target.sizes(), input.sizes());
  // log(1 + exp(-x)) = m + log(exp(-m) + exp(-x - m)), m = max(-x, 0): no exp of a positive number.
  // (Its derivative in m is 0, so the clamp's kink adds nothing to the gradient.)
  if (options.weight().defined()) check_broadcasts_to_input(options.weight(), input, op, "weight");
  Tensor max_val = (-input).clamp_min(0);
  Tensor log_one_plus_exp = ((-max_val).exp() + (-input - max_val).exp()).log() + max_val;
  Tensor loss;
  if (options.pos_weight().defined()) {
    const Tensor& pos_weight = options.pos_weight();
    check_broadcasts_to_input(pos_weight, input, op, "pos_weight (one weight per class, the last dim)");
    Tensor log_weight = (pos_weight - 1) * target + 1;
    loss = (1 - target) * input + log_weight * log_one_plus_exp;
  } else {
    loss = (1 - target) * input + log_one_plus_exp;
  }
  if (options.weight().defined()) loss = loss * options.weight();
  return apply_reduction(loss, options.reduction());
}

Tensor kl_div(const Tensor& input, const Tensor& target, const KLDivFuncOptions& options) {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::kl_div, {input, target}})
    return kl_div(cast[0], cast[1], options);
  const char* op = "kl_div";
  check_input_and_target(input, target, op);
  Tensor loss;
  if (options.log_target()) {
    loss = target.exp() * (target - input);
  } else {
    // xlogy(t, t) - t x: t log t is 0 where t is 0 (the log of a safe 1 there keeps NaN out).
    Tensor zero_target = no_grad([&] { return target.eq(0); });
    Tensor safe_target = where(zero_target, scalar_like(target, 1), target);
    loss = where(zero_target, scalar_like(target, 0), target * safe_target.log()) - target * input;
  }
  if (std::holds_alternative<BatchMeanReduction>(options.reduction())) {
    Tensor sum = loss.sum();
    return input.dim() == 0 ? sum : sum / static_cast<double>(input.size(0));
  }
  return apply_reduction(loss, std::get<Reduction>(options.reduction()));
}

Tensor huber_loss(const Tensor& input, const Tensor& target, const HuberLossFuncOptions& options) {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::huber_loss, {input, target}})
    return huber_loss(cast[0], cast[1], options);
  const char* op = "huber_loss";
  kernel::check_same_device(op, {input, target});
  check_same_shape(input, target, op);
  const double delta = options.delta();
  EMBER_CHECK(delta > 0, "{}: delta must be positive, got {}", op, delta);
  Tensor d = input - target;
  Tensor abs_d = d.abs();
  Tensor quadratic = no_grad([&] { return abs_d.lt(delta); });
  // d/dd: d inside the quadratic zone, delta sign(d) outside (both equal d at |d| = delta)
  return apply_reduction(where(quadratic, d.square() * 0.5, (abs_d - 0.5 * delta) * delta), options.reduction());
}

Tensor poisson_nll_loss(const Tensor& input, const Tensor& target, const PoissonNLLLossFuncOptions& options) {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::poisson_nll_loss, {input, target}})
    return poisson_nll_loss(cast[0], cast[1], options);
  const char* op = "poisson_nll_loss";
  check_input_and_target(input, target, op);
  Tensor loss = options.log_input() ? input.exp() - target * input : input - target * (input + options.eps()).log();
  if (options.full()) {
    // Stirling: log(t!) ~ t log t - t + 0.5 log(2 pi t), added only where t > 1
    Tensor small = no_grad([&] { return target.le(1); });
    Tensor safe_target = where(small, scalar_like(target, 2), target);
    Tensor stirling =
        safe_target * safe_target.log() - safe_target + (safe_target * (2 * std::numbers::pi)).log() * 0.5;
    loss = loss + stirling.masked_fill(small, 0);
  }
  return apply_reduction(loss, options.reduction());
}

Tensor gaussian_nll_loss(const Tensor& input, const Tensor& target, const Tensor& var,
                         const GaussianNLLLossFuncOptions& options) {
  EMBER_TRACE_OP();
  const char* op = "gaussian_nll_loss";
  check_reduction_input(input, op, "input");
  check_reduction_input(target, op, "target");
  check_reduction_input(var, op, "var");
  kernel::check_same_device(op, {input, target, var});
  check_same_shape(input, target, op);
  Tensor v = var;
  if (var.sizes() != input.sizes()) {
    const bool batch_match = input.dim() >= 1 && var.dim() == input.dim() - 1 &&
                             std::equal(var.sizes().begin(), var.sizes().end(), input.sizes().begin());
    const bool heteroscedastic = input.dim() >= 1 && var.dim() == input.dim() && var.size(-1) == 1 &&
                                 std::equal(var.sizes().begin(), var.sizes().end() - 1, input.sizes().begin());
    EMBER_CHECK(batch_match || heteroscedastic,
                "{}: var {} is of incorrect size for input {} (expected the input's shape, or it with the last dim "
                "1 or dropped)",
                op, var.sizes(), input.sizes());
    if (batch_match) v = var.unsqueeze(-1);
  }
  EMBER_CHECK(!no_grad([&] { return var.lt(0).any(); }).item<bool>(), "{}: var has negative entry/entries", op);
  // PyTorch clamps var to eps under no_grad: the value is clamped, the gradient passes as if it were not.
  Tensor clamped = v + no_grad([&] { return v.clamp_min(options.eps()) - v; });
  Tensor loss = (clamped.log() + (input - target).square() / clamped) * 0.5;
  if (options.full()) loss = loss + 0.5 * std::log(2 * std::numbers::pi);
  return apply_reduction(loss, options.reduction());
}

Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                           const MarginRankingLossFuncOptions& options) {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::margin_ranking_loss, {input1, input2, target}})
    return margin_ranking_loss(cast[0], cast[1], cast[2], options);
  const char* op = "margin_ranking_loss";
  kernel::check_same_device(op, {input1, input2, target});
  EMBER_CHECK(input1.dim() == input2.dim() && input1.dim() == target.dim(),
              "{}: all input tensors should have the same number of dimensions but got sizes: input1: {}, input2: "
              "{}, target: {}",
              op, input1.sizes(), input2.sizes(), target.sizes());
  // max(0, -y (x1 - x2) + margin); the clamp's gradient includes 0, as PyTorch's clamp_min_
  return apply_reduction((-target * (input1 - input2) + options.margin()).clamp_min(0), options.reduction());
}

Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target, const HingeEmbeddingLossFuncOptions& options) {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::hinge_embedding_loss, {input, target}})
    return hinge_embedding_loss(cast[0], cast[1], options);
  const char* op = "hinge_embedding_loss";
  check_reduction_input(input, op, "input");
  kernel::check_same_device(op, {input, target});
  Tensor zero = scalar_like(input, 0);
  Tensor not_positive = no_grad([&] { return target.ne(1); });
  Tensor not_negative = no_grad([&] { return target.ne(-1); });
  Tensor margin_clamp = (options.margin() - input).clamp_min(0);
  Tensor loss = where(not_positive, margin_clamp, zero) + where(not_negative, input, zero);
  return apply_reduction(loss, options.reduction());
}

Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                             const CosineEmbeddingLossFuncOptions& options) {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::cosine_embedding_loss, {input1, input2, target}})
    return cosine_embedding_loss(cast[0], cast[1], cast[2], options);
  const char* op = "cosine_embedding_loss";
  constexpr double kEpsilon = 1e-12;  // added to each squared norm, as PyTorch
  kernel::check_same_device(op, {input1, input2, target});
  const int64_t target_dim = target.dim();
  EMBER_CHECK(target_dim <= 1, "{}: 0-D or 1-D target tensor expected, multi-target not supported (target {})", op,
              target.sizes());
  EMBER_CHECK(input1.dim() == target_dim + 1 && input2.dim() == target_dim + 1,
              "{}: a {}-D target expects {}-D input tensors, but found inputs with sizes {} and {}", op, target_dim,
              target_dim + 1, input1.sizes(), input2.sizes());
  Tensor prod_sum = (input1 * input2).sum({target_dim});
  Tensor mag_square1 = (input1 * input1).sum({target_dim}) + kEpsilon;
  Tensor mag_square2 = (input2 * input2).sum({target_dim}) + kEpsilon;
  Tensor cos = prod_sum / (mag_square1 * mag_square2).sqrt();
  Tensor zero = scalar_like(cos, 0);
  Tensor positive = no_grad([&] { return target.eq(1); });
  Tensor negative = no_grad([&] { return target.eq(-1); });
  Tensor loss = where(positive, 1 - cos, zero) + where(negative, (cos - options.margin()).clamp_min(0), zero);
  return apply_reduction(loss, options.reduction());
}

Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, const PairwiseDistanceFuncOptions& options) {
  EMBER_TRACE_OP();
  const char* op = "pairwise_distance";
  kernel::check_same_device(op, {x1, x2});
  EMBER_CHECK(options.p() > 0, "{}: p must be positive, got {}", op, options.p());
  const int64_t dims = std::max(x1.dim(), x2.dim());
  EMBER_CHECK(dims >= 1, "{}: inputs must have at least one dimension, got {} and {}", op, x1.sizes(), x2.sizes());
  return p_norm(x1 - x2 + options.eps(), options.p(), dims - 1, options.keepdim());
}

Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                           const TripletMarginLossFuncOptions& options) {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::triplet_margin_loss, {anchor, positive, negative}})
    return triplet_margin_loss(cast[0], cast[1], cast[2], options);
  const char* op = "triplet_margin_loss";
  kernel::check_same_device(op, {anchor, positive, negative});
  EMBER_CHECK(anchor.dim() == positive.dim() && positive.dim() == negative.dim(),
              "{}: all inputs should have the same dimension but got {}-D, {}-D and {}-D inputs ({}, {}, {})", op,
              anchor.dim(), positive.dim(), negative.dim(), anchor.sizes(), positive.sizes(), negative.sizes());
  const auto distance = PairwiseDistanceFuncOptions().p(options.p()).eps(options.eps());
  Tensor dist_pos = pairwise_distance(anchor, positive, distance);
  Tensor dist_neg = pairwise_distance(anchor, negative, distance);
  if (options.swap()) dist_neg = minimum(dist_neg, pairwise_distance(positive, negative, distance));
  return apply_reduction((dist_pos - dist_neg + options.margin()).clamp_min(0), options.reduction());
}

Tensor multi_margin_loss(const Tensor& input, const Tensor& target, const MultiMarginLossFuncOptions& options) {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::multi_margin_loss, {input, options.weight()}})
    return multi_margin_loss(cast[0], target, MultiMarginLossFuncOptions(options).weight(cast[1]));
  const char* op = "multi_margin_loss";
  check_reduction_input(input, op, "input");
  EMBER_CHECK(options.p() == 1 || options.p() == 2, "{}: only p == 1 and p == 2 supported, got p = {}", op,
              options.p());
  EMBER_CHECK((input.dim() == 1 || input.dim() == 2) && input.numel() > 0,
              "{}: expected a non-empty (C) or (N, C) input, got {}", op, input.sizes());
  const int64_t N = input.dim() == 2 ? input.size(0) : 1;
  const int64_t C = input.size(-1);
  EMBER_CHECK(target.dim() <= 1 && target.numel() == N,
              "{}: inconsistent target size, expected {} but got {} (input {})", op, N, target.sizes(), input.sizes());
  const Tensor& weight = options.weight();
  kernel::check_same_device(op, {input, target});
  if (weight.defined()) {
    kernel::check_same_device(op, {input, weight});
    EMBER_CHECK(weight.dim() == 1 && weight.numel() == C,
                "{}: weight must be one-dimensional with C = {} values, got {}", op, C, weight.sizes());
  }
  check_class_targets(target, 0, C, op);
  Tensor x = input.reshape({N, C});
  Tensor y = target.reshape({N, 1});
  Tensor z = x - x.gather(1, y) + options.margin();  // (N, C): margin - x[y] + x[j]
  // Only classes j != y with z > 0 count (PyTorch's hinge has no gradient at z = 0).
  Tensor counted = no_grad([&] { return z.gt(0).logical_and(arange(C, target.options()).ne(y)); });
  Tensor h = options.p() == 1 ? z : z.square();
  if (weight.defined()) h = h * weight.detach().to(x.dtype()).index_select(0, y.view({N})).view({N, 1});
  Tensor loss = where(counted, h, scalar_like(h, 0)).sum({1}) / static_cast<double>(C);  // (N)
  if (options.reduction() == kNone) return loss.reshape(target.sizes());
  return apply_reduction(loss, options.reduction());
}

Tensor soft_margin_loss(const Tensor& input, const Tensor& target, const SoftMarginLossFuncOptions& options) {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::soft_margin_loss, {input, target}})
    return soft_margin_loss(cast[0], cast[1], options);
  const char* op = "soft_margin_loss";
  check_input_and_target(input, target, op);
  // d/dx log(1 + exp(-y x)) = -y exp(-y x) / (1 + exp(-y x)); the target gets no gradient (as in torch 1.13)
  return apply_reduction((-input * target.detach()).exp().log1p(), options.reduction());
}

Tensor multilabel_margin_loss(const Tensor& input, const Tensor& target,
                              const MultilabelMarginLossFuncOptions& options) {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::multilabel_margin_loss, {input}})
    return multilabel_margin_loss(cast[0], target, options);
  const char* op = "multilabel_margin_loss";
  check_reduction_input(input, op, "input");
  kernel::check_same_device(op, {input, target});
  EMBER_CHECK((input.dim() == 1 || input.dim() == 2) && input.numel() > 0,
              "{}: expected a non-empty (C) or (N, C) input, got {}", op, input.sizes());
  EMBER_CHECK(target.sizes() == input.sizes(),
              "{}: target {} must have the input's shape {} (a row of class indices per sample, ended by -1)", op,
              target.sizes(), input.sizes());
  const int64_t N = input.dim() == 2 ? input.size(0) : 1;
  const int64_t C = input.size(-1);
  check_class_targets(target, -1, C, op);
  Tensor x = input.reshape({N, C});
  Tensor t = target.reshape({N, C});
  // Which list positions hold targets (those before the row's first -1), and which classes are targets.
  Tensor listed, targets, is_target;
  {
    NoGradGuard guard;
    Tensor position = arange(C, t.options());
    Tensor end = where(t.eq(-1), position, scalar_tensor(C, t.options())).amin({1}, true);  // (N, 1)
    listed = position.lt(end);                                                              // (N, C)
    targets = where(listed, t, scalar_tensor(0, t.options()));
    is_target = zeros({N, C}, x.options()).scatter_add(1, targets, listed.to(x.dtype())).gt(0);
  }
  // z[n, j, k] = 1 - x[n, target j] + x[n, k], counted for listed j, non-target k and z > 0.
  Tensor z = x.gather(1, targets).neg().add(1).unsqueeze(2) + x.unsqueeze(1);  // (N, C, C)
  Tensor counted = no_grad(
      [&] { return listed.unsqueeze(2).logical_and(is_target.logical_not().unsqueeze(1)).logical_and(z.gt(0)); });
  Tensor loss = where(counted, z, scalar_like(z, 0)).sum({1, 2}) / static_cast<double>(C);  // (N)
  if (options.reduction() == kNone) return input.dim() == 1 ? loss.reshape({}) : loss;
  return apply_reduction(loss, options.reduction());
}

Tensor multilabel_soft_margin_loss(const Tensor& input, const Tensor& target,
                                   const MultilabelSoftMarginLossFuncOptions& options) {
  EMBER_TRACE_OP();
  const char* op = "multilabel_soft_margin_loss";
  check_reduction_input(input, op, "input");
  check_reduction_input(target, op, "target");
  kernel::check_same_device(op, {input, target});
  EMBER_CHECK(input.dim() >= 1, "{}: input must have a class dim ((C) or (N, C)), got a 0-d tensor", op);
  check_same_shape(input, target, op);
  Tensor loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input));
  if (options.weight().defined()) {
    check_broadcasts_to_input(options.weight(), input, op, "weight");
    loss = loss * options.weight();
  }
  const int64_t class_dim = input.dim() - 1;
  loss = loss.sum({class_dim}) / static_cast<double>(input.size(class_dim));  // one loss per sample
  return apply_reduction(loss, options.reduction());
}

Tensor triplet_margin_with_distance_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                                         const TripletMarginWithDistanceLossFuncOptions& options) {
  EMBER_TRACE_OP();
  const char* op = "triplet_margin_with_distance_loss";
  EMBER_CHECK(anchor.dim() == positive.dim() && positive.dim() == negative.dim(),
              "{}: the anchor, positive and negative tensors are expected to have the same number of dimensions, "
              "but got {}, {} and {}",
              op, anchor.sizes(), positive.sizes(), negative.sizes());
  auto distance = [&](const Tensor& a, const Tensor& b) {
    return options.distance_function() ? (*options.distance_function())(a, b) : pairwise_distance(a, b);
  };
  Tensor dist_pos = distance(anchor, positive);
  Tensor dist_neg = distance(anchor, negative);
  if (options.swap()) dist_neg = minimum(dist_neg, distance(positive, negative));
  return apply_reduction((dist_pos - dist_neg + options.margin()).clamp_min(0), options.reduction());
}

}  // namespace ember::nn::functional

namespace ember::nn::detail {

namespace {
// A number as libtorch prints an option: std::ostream's default format (1, 0.5, 1e-06).
std::string number(double value) {
  std::ostringstream text;
  text << value;
  return text.str();
}
const char* reduction_name(Reduction reduction) {
  return reduction == Reduction::Sum ? "kSum" : reduction == Reduction::None ? "kNone" : "kMean";
}
}  // namespace

void print_loss(std::ostream& stream, const Module& module, const std::string& arguments) {
  std::string name = module.name();
  name = name.substr(name.rfind(':') == std::string::npos ? 0 : name.rfind(':') + 1);
  if (name.ends_with("Impl")) name.resize(name.size() - 4);
  stream << name << arguments;
}

std::string loss_arguments(const functional::SmoothL1LossFuncOptions&) { return ""; }
std::string loss_arguments(const functional::HuberLossFuncOptions&) { return ""; }
std::string loss_arguments(const functional::HingeEmbeddingLossFuncOptions& options) {
  return "(margin=" + number(options.margin()) + ")";
}
std::string loss_arguments(const functional::CosineEmbeddingLossFuncOptions& options) {
  return "(margin=" + number(options.margin()) + ")";
}
std::string loss_arguments(const functional::TripletMarginLossFuncOptions& options) {
  return "(margin=" + number(options.margin()) + ", p=" + number(options.p()) + ", eps=" + number(options.eps()) +
         ", swap=" + (options.swap() ? "true" : "false") + ")";
}
std::string loss_arguments(const functional::TripletMarginWithDistanceLossFuncOptions& options) {
  return "(margin=" + number(options.margin()) + ", swap=" + (options.swap() ? "true" : "false") + ")";
}
std::string loss_arguments(const functional::MultiMarginLossFuncOptions& options) {
  std::ostringstream weight;
  weight << options.weight();
  return "(p=" + std::to_string(options.p()) + ", margin=" + number(options.margin()) + ", weight=" + weight.str() +
         ", reduction=" + reduction_name(options.reduction()) + ")";
}

}  // namespace ember::nn::detail
