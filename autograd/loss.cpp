// nll_loss and the fused cross_entropy: forward and backward side by side.
//
// The class dim is moved last and the rest flattened, so the work is on a (N, C) table:
//   forward  loss_i = -x[i, t_i]  (0 where t_i == ignore_index), then reduced
//   backward dx[i, t_i] = -g_i (g_i = g, or g / count for the mean), every other entry 0
#include "autograd/loss.h"

#include "autograd/autocast.h"
#include "autograd/autograd.h"
#include "autograd/fused.h"
#include "core/backend.h"
#include "core/kernel.h"

namespace ember {

using autograd::any_requires_grad;
using autograd::record;

namespace {}  // namespace

void detail::check_nll_loss_target_shape(const Tensor& input, const Tensor& target, const char* op) {
  kernel::check_same_device(op, {input, target});
  EMBER_CHECK(input.dim() >= 1 && input.is_floating_point(),
              "{}: input must be floating point of shape (C), (N, C) or (N, C, d1, ...), got {} {}", op,
              dtype_name(input.dtype()), input.sizes());
  const int64_t class_dim = input.dim() == 1 ? 0 : 1;
  std::vector<int64_t> expected = input.sizes().vec();
  expected.erase(expected.begin() + class_dim);
  EMBER_CHECK(target.dtype() == kInt64, "{}: expected int64 class indices as target, got {}", op,
              dtype_name(target.dtype()));
  EMBER_CHECK(target.sizes() == IntArrayRef(expected), "{}: expected target of shape {} for input {}, got {}", op,
              IntArrayRef(expected), input.sizes(), target.sizes());
}

void detail::check_nll_loss_target(const Tensor& input, const Tensor& target, int64_t ignore_index, const char* op) {
  check_nll_loss_target_shape(input, target, op);
  if (target.numel() == 0) return;
  const int64_t C = input.size(input.dim() == 1 ? 0 : 1);
  NoGradGuard no_grad;
  Tensor checked = target.masked_fill(target.eq(ignore_index), 0);
  const int64_t lo = checked.min().item<int64_t>(), hi = checked.max().item<int64_t>();
  EMBER_CHECK(lo >= 0 && hi < C, "{}: target {} is out of bounds for {} classes (input {}, target {})", op,
              lo < 0 ? lo : hi, C, input.sizes(), target.sizes());
}

namespace {

// input as a (N, C) table with classes last (a view for 1-D and 2-D input, a copy otherwise).
std::vector<int64_t> classes_last_order(int64_t dim) {
  std::vector<int64_t> order{0};
  for (int64_t d = 2; d < dim; ++d) order.push_back(d);
  order.push_back(1);
  return order;
}

Tensor as_table(const Tensor& x) {
  if (x.dim() == 1) return x.unsqueeze(0);
  if (x.dim() == 2) return x;
  return x.permute(classes_last_order(x.dim())).reshape({-1, x.size(1)});
}

// The inverse of as_table for a gradient: (N, C) back to input's shape.
Tensor from_table(const Tensor& table, IntArrayRef input_sizes) {
  const int64_t dim = static_cast<int64_t>(input_sizes.size());
  if (dim == 1) return table.squeeze(0);
  if (dim == 2) return table;
  std::vector<int64_t> order = classes_last_order(dim);
  std::vector<int64_t> permuted_sizes, inverse(dim);
  for (int64_t d : order) permuted_sizes.push_back(input_sizes[d]);
  for (int64_t i = 0; i < dim; ++i) inverse[order[i]] = i;
  return table.reshape(permuted_sizes).permute(inverse);
}

}  // namespace

void detail::check_class_weight(const Tensor& input, const Tensor& weight, const char* op) {
  if (!weight.defined()) return;
  const int64_t C = input.size(input.dim() == 1 ? 0 : 1);
  kernel::check_same_device(op, {input, weight});
  EMBER_CHECK(weight.dim() == 1 && weight.numel() == C,
              "{}: weight tensor should be defined either for all {} classes or no classes but got weight tensor of "
              "shape: {}",
              op, C, weight.sizes());
  EMBER_CHECK(weight.dtype() == input.dtype(), "{}: expected scalar type {} but found {} (weight {}, input {})", op,
              dtype_name(input.dtype()), dtype_name(weight.dtype()), weight.sizes(), input.sizes());
  EMBER_CHECK(!(weight.requires_grad() && GradMode::is_enabled()),
              "The function '{}_forward' is not differentiable with respect to argument 'weight'. This input cannot "
              "have requires_grad True.",
              op);
}

Tensor nll_loss(const Tensor& input, const Tensor& target, Reduction reduction, int64_t ignore_index) {
  return nll_loss(input, target, Tensor(), reduction, ignore_index);
}

Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight, Reduction reduction,
                int64_t ignore_index) {
  if (autograd::AutocastCall cast{autograd::AutocastOp::nll_loss, {input, weight}})
    return nll_loss(cast[0], target, cast[1], reduction, ignore_index);
  detail::check_nll_loss_target(input, target, ignore_index, "nll_loss");
  detail::check_class_weight(input, weight, "nll_loss");
  // scale (N): each row's class weight, 0 where its target is ignored; undefined without weights,
  // where a row counts 1 (the common case keeps its cheaper pass).
  Tensor valid, index, scale, out, total;
  {
    NoGradGuard no_grad;
    Tensor table = as_table(input);
    valid = target.reshape({-1}).ne(ignore_index);
    index = target.reshape({-1}).masked_fill(valid.logical_not(), 0).unsqueeze(1);  // (N, 1)
    Tensor losses = table.gather(1, index).squeeze(1).neg();
    if (weight.defined()) {
      scale = weight.index_select(0, index.squeeze(1)).masked_fill(valid.logical_not(), 0);
      losses = losses * scale;
    } else {
      losses = losses.masked_fill(valid.logical_not(), 0);
    }
    switch (reduction) {
      case Reduction::None:
        out = losses.reshape(target.sizes());
        break;
      case Reduction::Sum:
        out = losses.sum();
        break;
      case Reduction::Mean:
        total = scale.defined() ? scale.sum() : valid.sum().to(input.dtype());
        out = losses.sum() / total;
        break;
    }
  }
  if (any_requires_grad({&input})) {
    record("NllLossBackward0", out, {input},
           [valid, index, scale, total, reduction, sizes = input.sizes().vec(),
            C = input.size(input.dim() == 1 ? 0 : 1)](const Tensor& g) -> tensor_list {
             const int64_t N = index.size(0);
             Tensor per_row = reduction == Reduction::None   ? g.reshape({N})
                              : reduction == Reduction::Mean ? (g / total).expand({N})
                                                             : g.expand({N});
             Tensor dvals = scale.defined() ? per_row.neg() * scale : per_row.neg().masked_fill(valid.logical_not(), 0);
             return {from_table(zeros({N, C}, g.options()).scatter_add(1, index, dvals.unsqueeze(1)), sizes)};
           });
  }
  return out;
}

// cross_entropy in one kernel per direction, on the (N, C) table of logits:
//   forward  loss_i = lse_i - (1 - s) x[i, t_i] - (s / C) sum_c x[i, c]   (0 where t_i is ignored)
//   backward dx[i, c] = g_i (softmax(x_i)[c] - (1 - s) [c == t_i] - s / C)
// g_i is the loss's gradient per row: g, or g / count for the mean over the targets not ignored.
// bfloat16 / float16 logits (from CUDA autocast, nn/functional.cpp) are read as float32 by the
// kernel: the loss is float32, as autocast's float32 policy gives, and dx comes back in their dtype.
std::optional<Tensor> detail::fused_cross_entropy(const Tensor& input, const Tensor& target, Reduction reduction,
                                                  int64_t ignore_index, double label_smoothing) {
  const char* op = "cross_entropy";
  check_nll_loss_target_shape(input, target, op);
  const ScalarType dtype = input.dtype();
  if (input.dim() > 2 || !input.is_contiguous() ||
      (dtype != kFloat32 && dtype != kFloat64 && !is_reduced_floating_point(dtype)) || input.size(-1) == 0)
    return std::nullopt;
  const ScalarType compute = is_reduced_floating_point(dtype) ? kFloat32 : dtype;  // of the loss and lse
  const Tensor logits = input.dim() == 1 ? input.unsqueeze(0) : input;  // (N, C)
  const Tensor rows_target = target.reshape({-1}).contiguous();         // (N)
  const int64_t N = logits.size(0), C = logits.size(1);
  const double s = label_smoothing;
  const auto per_row = [reduction, N](const Tensor& g, double count) {  // (N) gradient of each row's loss
    switch (reduction) {
      case Reduction::None:
        return g.reshape({N}).contiguous();
      case Reduction::Sum:
        return g.expand({N});
      case Reduction::Mean:
        break;
    }
    return (g / count).expand({N});
  };
  Tensor out, lse;   // lse (N): each row's logsumexp, for the backward
  double count = 0;  // targets not ignored, read back with the bad-target check
  {
    NoGradGuard no_grad;  // kernels only: the node is recorded below
    Tensor losses = empty({N}, logits.options().dtype(compute));
    lse = empty({N}, logits.options().dtype(compute));
    Tensor status = from_vector<int64_t>({ignore_index, 0}, {2}).to(logits.device());
    if (!backend_for(logits).cross_entropy(losses, lse, status, logits, rows_target, ignore_index, s))
      return std::nullopt;
    const Tensor host = status.to(kCPU);  // one read back: the check and the count together
    const int64_t bad = host.data_ptr<int64_t>()[0];
    EMBER_CHECK(bad == ignore_index, "{}: target {} is out of bounds for {} classes (input {}, target {})", op, bad, C,
                input.sizes(), target.sizes());
    count = static_cast<double>(host.data_ptr<int64_t>()[1]);
    out = reduction == Reduction::None  ? losses.reshape(target.sizes())
          : reduction == Reduction::Sum ? losses.sum()
                                        : losses.sum() / count;
  }
  if (!any_requires_grad({&input})) return out;
  const bool vector_input = input.dim() == 1;
  autograd::FusedBackward backward{
      // From differentiable ops (create_graph): softmax(x) minus the smoothed one-hot, scaled per row.
      .composed = [=](const Tensor& g, const tensor_list& saved) -> tensor_list {
        const Tensor x = saved[0].to(compute), &t = saved[1];
        Tensor valid = t.ne(ignore_index);
        Tensor index = t.masked_fill(valid.logical_not(), 0).unsqueeze(1);  // (N, 1)
        Tensor goal = zeros({N, C}, x.options())
                          .scatter_add(1, index, full({N, 1}, 1 - s, x.options()))
                          .add(s / static_cast<double>(C));  // (N, C) smoothed one-hot
        Tensor scale = per_row(g, count) * valid.to(x.dtype());
        Tensor dx = (x.softmax(1) - goal) * scale.unsqueeze(1);
        dx = dx.to(dtype);
        return {vector_input ? dx.squeeze(0) : dx};
      },
      .fused = [=](const Tensor& g, const tensor_list& saved) -> std::optional<tensor_list> {
        const Tensor &x = saved[0], &t = saved[1], &row_lse = saved[2];
        Tensor dx = empty(x.sizes(), x.options());
        if (!backend_for(x).cross_entropy_backward(dx, per_row(g, count), x, row_lse, t, ignore_index, s))
          return std::nullopt;
        return tensor_list{vector_input ? dx.squeeze(0) : dx};
      }};
  autograd::record_fused(s > 0 ? "AddBackward0" : "NllLossBackward0", out, {input}, {logits, rows_target, lse},
                         autograd::SaveOutput::kNo, std::move(backward));
  return out;
}
}  // namespace ember
