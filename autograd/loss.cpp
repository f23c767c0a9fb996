// nll_loss: forward and backward side by side.
//
// The class dim is moved last and the rest flattened, so the work is on a (N, C) table:
//   forward  loss_i = -x[i, t_i]  (0 where t_i == ignore_index), then reduced
//   backward dx[i, t_i] = -g_i (g_i = g, or g / count for the mean), every other entry 0
#include "autograd/loss.h"

#include "autograd/autograd.h"
#include "core/kernel.h"

namespace ember {

using autograd::any_requires_grad;
using autograd::record;

namespace {}  // namespace

void detail::check_nll_loss_target(const Tensor& input, const Tensor& target, int64_t ignore_index, const char* op) {
  kernel::check_same_device(op, {input, target});
  EMBER_CHECK(input.dim() >= 1 && input.is_floating_point(),
              "{}: input must be floating point of shape (C), (N, C) or (N, C, d1, ...), got {} {}", op,
              dtype_name(input.dtype()), input.sizes());
  const int64_t class_dim = input.dim() == 1 ? 0 : 1;
  const int64_t C = input.size(class_dim);
  std::vector<int64_t> expected = input.sizes().vec();
  expected.erase(expected.begin() + class_dim);
  EMBER_CHECK(target.dtype() == kInt64, "{}: expected int64 class indices as target, got {}", op,
              dtype_name(target.dtype()));
  EMBER_CHECK(target.sizes() == IntArrayRef(expected), "{}: expected target of shape {} for input {}, got {}", op,
              IntArrayRef(expected), input.sizes(), target.sizes());
  if (target.numel() == 0) return;
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

Tensor nll_loss(const Tensor& input, const Tensor& target, Reduction reduction, int64_t ignore_index) {
  detail::check_nll_loss_target(input, target, ignore_index, "nll_loss");
  Tensor valid, index, out, count;
  {
    NoGradGuard no_grad;
    Tensor table = as_table(input);
    valid = target.reshape({-1}).ne(ignore_index);
    index = target.reshape({-1}).masked_fill(valid.logical_not(), 0).unsqueeze(1);  // (N, 1)
    Tensor losses = table.gather(1, index).squeeze(1).neg().masked_fill(valid.logical_not(), 0);
    switch (reduction) {
      case Reduction::None:
        out = losses.reshape(target.sizes());
        break;
      case Reduction::Sum:
        out = losses.sum();
        break;
      case Reduction::Mean:
        count = valid.sum().to(input.dtype());
        out = losses.sum() / count;
        break;
    }
  }
  if (any_requires_grad({&input})) {
    record("NllLossBackward0", out, {input},
           [valid, index, count, reduction, sizes = input.sizes().vec(),
            C = input.size(input.dim() == 1 ? 0 : 1)](const Tensor& g) -> tensor_list {
             const int64_t N = index.size(0);
             Tensor per_row = reduction == Reduction::None   ? g.reshape({N})
                              : reduction == Reduction::Mean ? (g / count).expand({N})
                                                             : g.expand({N});
             Tensor dvals = per_row.neg().masked_fill(valid.logical_not(), 0).unsqueeze(1);  // (N, 1)
             return {from_table(zeros({N, C}, g.options()).scatter_add(1, index, dvals), sizes)};
           });
  }
  return out;
}

}  // namespace ember
