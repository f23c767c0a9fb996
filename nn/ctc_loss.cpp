// nn::functional::ctc_loss (nn/loss.h): the connectionist temporal classification loss of Graves et
// al., composed of autograd primitives over the forward (alpha) recursion in log space, so its
// gradient comes from the composition, plus the exp(log_probs) term PyTorch's backward adds.
//
// Sizes: T time steps, N batch, C classes, S the longest target, L = 2 S + 1 the extended target
// (blank, l1, blank, l2, ..., blank). alpha_t(s) is the log-probability of all alignments of the
// first t + 1 steps that end in extended position s:
//   alpha_t(s) = logsumexp(alpha_{t-1}(s), alpha_{t-1}(s-1), [alpha_{t-1}(s-2) if l'_s != blank, l'_{s-2}])
//                + log_probs[t, l'_s]
// and the loss is -logsumexp(alpha_{T_n - 1}(L_n - 1), alpha_{T_n - 1}(L_n - 2)), L_n = 2 S_n + 1.
// An unbatched call (log_probs (T, C), targets (S), 0-d lengths) is the batched one with N = 1, as
// PyTorch's; its unreduced loss is 0-d. Not here: a fused kernel (the recursion is T small steps of
// tensor ops).
#include <algorithm>
#include <limits>
#include <vector>

#include "autograd/grad_mode.h"
#include "core/kernel.h"
#include "core/trace.h"
#include "nn/loss.h"

namespace ember::nn::functional {
namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// The lengths as host integers: an int64 tensor of N values.
std::vector<int64_t> lengths_of(const Tensor& lengths, int64_t N, const char* what) {
  EMBER_CHECK(lengths.dtype() == kInt64 && lengths.dim() <= 1 && lengths.numel() == N,
              "ctc_loss: {} must hold one int64 length per sample (N = {}), got {} of shape {}", what, N,
              dtype_name(lengths.dtype()), lengths.sizes());
  Tensor host = lengths.to(kCPU).contiguous();
  return std::vector<int64_t>(host.data_ptr<int64_t>(), host.data_ptr<int64_t>() + N);
}

// log(exp(a) + exp(b) + exp(c)) elementwise, -inf where all three are -inf, and no NaN in the
// gradient there (the log of a safe 1 is taken, and where() passes it nothing).
Tensor log_add_exp3(const Tensor& a, const Tensor& b, const Tensor& c) {
  Tensor m, none;
  {
    NoGradGuard guard;
    m = maximum(maximum(a, b), c);
    none = m.eq(kNegInf);
    m = m.masked_fill(none, 0);
  }
  Tensor sum = (a - m).exp() + (b - m).exp() + (c - m).exp();
  Tensor safe = where(none, scalar_tensor(1.0, sum.options()), sum);
  return where(none, scalar_tensor(kNegInf, sum.options()), safe.log() + m);
}

// x shifted right by `by` along dim 1, -inf filling the first positions.
Tensor shift_right(const Tensor& x, int64_t by) {
  const int64_t L = x.size(1);
  if (by >= L) return full(x.sizes(), kNegInf, x.options());
  return cat({full({x.size(0), by}, kNegInf, x.options()), x.narrow(1, 0, L - by)}, 1);
}

}  // namespace

Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                const Tensor& target_lengths, const CTCLossFuncOptions& options) {
  EMBER_TRACE_OP();
  const char* op = "ctc_loss";
  EMBER_CHECK(log_probs.defined() && log_probs.is_floating_point() && (log_probs.dim() == 3 || log_probs.dim() == 2),
              "{}: log_probs must be a floating (T, N, C) or unbatched (T, C) tensor, got {}", op, log_probs.sizes());
  if (log_probs.dim() == 2) {
    EMBER_CHECK(targets.dim() == 1, "{}: unbatched log_probs {} take 1-d targets (S), got {}", op, log_probs.sizes(),
                targets.sizes());
    Tensor loss =
        ctc_loss(log_probs.unsqueeze(1), targets, input_lengths.reshape({-1}), target_lengths.reshape({-1}), options);
    return options.reduction() == kNone ? loss.squeeze(0) : loss;
  }
  kernel::check_same_device(op, {log_probs, targets});
  const int64_t T = log_probs.size(0), N = log_probs.size(1), C = log_probs.size(2);
  const int64_t blank = options.blank();
  EMBER_CHECK(blank >= 0 && blank < C, "{}: blank must be in label range [0, {}), got {}", op, C, blank);
  EMBER_CHECK(targets.dtype() == kInt64, "{}: targets must be int64 class indices, got {}", op,
              dtype_name(targets.dtype()));
  const std::vector<int64_t> input_len = lengths_of(input_lengths, N, "input_lengths");
  const std::vector<int64_t> target_len = lengths_of(target_lengths, N, "target_lengths");

  // The targets of each sample, from padded (N, S) or concatenated targets.
  Tensor host_targets = targets.to(kCPU).contiguous();
  const int64_t* tp = host_targets.data_ptr<int64_t>();
  const bool padded = targets.dim() == 2;
  EMBER_CHECK(targets.dim() == 1 || (padded && targets.size(0) == N),
              "{}: targets must be padded (N = {}, S) or concatenated 1-d, got {}", op, N, targets.sizes());
  int64_t S = 0, total = 0;
  for (int64_t n = 0; n < N; ++n) {
    EMBER_CHECK(input_len[n] >= 0 && input_len[n] <= T,
                "{}: input_lengths must be in [0, T = {}] (log_probs {}), but got {} for sample {}", op, T,
                log_probs.sizes(), input_len[n], n);
    EMBER_CHECK(target_len[n] >= 0, "{}: target_lengths must not be negative, got {} for sample {}", op, target_len[n],
                n);
    S = std::max(S, target_len[n]);
    total += target_len[n];
  }
  if (padded) {
    EMBER_CHECK(S <= targets.size(1), "{}: a target length of {} exceeds the padded targets' size {} (targets {})", op,
                S, targets.size(1), targets.sizes());
  } else {
    EMBER_CHECK(total <= targets.numel(), "{}: the target lengths add up to {} but targets has {} values", op, total,
                targets.numel());
  }
  const int64_t L = 2 * S + 1;
  // Extended targets l' (N, L), whether position s may be reached from s - 2 (N, L), and each
  // sample's extended length.
  std::vector<int64_t> extended(N * L, blank), skip(N * L, 0), end(N), before_end_position(N);
  for (int64_t n = 0, offset = 0; n < N; ++n) {
    const int64_t* row = padded ? tp + n * targets.size(1) : tp + offset;
    for (int64_t i = 0; i < target_len[n]; ++i) {
      const int64_t label = row[i];
      EMBER_CHECK(label >= 0 && label < C, "{}: target {} of sample {} is out of range [0, {})", op, label, n, C);
      extended[n * L + 2 * i + 1] = label;
      skip[n * L + 2 * i + 1] = i > 0 && label != row[i - 1];
    }
    end[n] = 2 * target_len[n];
    before_end_position[n] = std::max<int64_t>(end[n] - 1, 0);
    offset += target_len[n];
  }
  const Device device = log_probs.device();
  auto on_device = [&](const std::vector<int64_t>& v, IntArrayRef sizes) {
    return from_vector(v, sizes, dtype(kInt64)).to(device);
  };
  Tensor labels = on_device(extended, {N, L});
  Tensor can_skip = on_device(skip, {N, L}).to(kBool);
  Tensor active = on_device(input_len, {N, 1});  // steps t < input_length update alpha
  Tensor last = on_device(end, {N, 1});

  // log_probs of the extended labels at every step: (T, N, L)
  Tensor lp = log_probs.gather(2, labels.unsqueeze(0).expand({T, N, L}));
  Tensor neg_inf = scalar_tensor(kNegInf, log_probs.options());
  Tensor position = arange(L, dtype(kInt64).device(device));
  Tensor alpha = where(position.lt(2).unsqueeze(0), lp[0], neg_inf);  // t = 0: blank or the first label
  for (int64_t t = 1; t < T; ++t) {
    Tensor next = log_add_exp3(alpha, shift_right(alpha, 1), where(can_skip, shift_right(alpha, 2), neg_inf)) + lp[t];
    alpha = where(active.gt(t), next, alpha);
  }
  // End in the last label or the blank after it (only the blank for an empty target).
  Tensor at_end = alpha.gather(1, last);
  Tensor before_end = where(last.gt(0), alpha.gather(1, on_device(before_end_position, {N, 1})), neg_inf);
  Tensor nll = -log_add_exp3(at_end, before_end, neg_inf.expand_as(at_end)).squeeze(1);  // (N)
  // A sample with input_length 0 has no alignment at all.
  nll = where(active.squeeze(1).gt(0), nll, scalar_tensor(std::numeric_limits<double>::infinity(), nll.options()));

  // PyTorch's backward adds exp(log_probs) at the steps t < input_length (see loss.h): a term of value 0.
  Tensor probs = log_probs.exp();
  Tensor steps = arange(T, dtype(kInt64).device(device)).view({T, 1}).lt(active.view({1, N}));   // (T, N)
  Tensor zero = (probs - probs.detach()).sum({2}).masked_fill(steps.logical_not(), 0).sum({0});  // (N)
  Tensor loss = nll + zero;
  if (options.zero_infinity()) {
    Tensor infinite = nll.detach().eq(std::numeric_limits<double>::infinity());
    loss = where(infinite, scalar_tensor(0.0, loss.options()), loss);
  }
  if (options.reduction() == kMean) {
    Tensor divisor = on_device(target_len, {N}).to(loss.dtype()).clamp_min(1);
    return (loss / divisor).mean();
  }
  return apply_reduction(loss, options.reduction());
}

}  // namespace ember::nn::functional
