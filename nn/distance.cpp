// CosineSimilarity and PairwiseDistance: F::cosine_similarity composed of norms, a clamp and a sum;
// the modules call the functions. F::pdist: the rows of each pair picked by index_select, then a
// p-norm of their difference whose backward is PyTorch's (_pdist_backward).
#include "nn/distance.h"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "autograd/autocast.h"
#include "autograd/function.h"
#include "core/shape.h"
#include "core/trace.h"

namespace ember::nn {

namespace {

// ||d||_p of each row of d (P, M) -> (P). Its backward is PyTorch's pdist backward, which the
// composition of abs, pow and sum would not give where a distance is 0 (NaN there, PyTorch's 0), at
// ties of p = inf (each tie gets the whole gradient there, not a share) or at p = 0 (a zero gradient):
//   d/dd ||d||_p = sign(d) |d|^(p-1) / ||d||_p^(p-1), 0 where ||d||_p = 0 (and where d = 0 for p < 1)
//   p = inf: sign(d) where |d| is the largest;  p = 0: 0
struct RowNorm : autograd::Function<RowNorm> {
  static Tensor forward(autograd::AutogradContext* ctx, const Tensor& d, double p) {
    Tensor a = d.abs();
    Tensor dist;
    if (d.numel() == 0) {
      dist = zeros({d.size(0)}, d.options());  // no pairs, or rows of no entries
    } else if (p == 0) {
      dist = a.ne(0).to(d.dtype()).sum({1});
    } else if (p == 1) {
      dist = a.sum({1});
    } else if (p == 2) {
      dist = d.square().sum({1}).sqrt();
    } else if (std::isinf(p)) {
      dist = a.amax({1});
    } else {
      dist = a.pow(p).sum({1}).pow(1.0 / p);
    }
    ctx->save_for_backward({d, dist});
    ctx->saved_data["p"] = p;
    return dist;
  }

  static autograd::variable_list backward(autograd::AutogradContext* ctx, autograd::variable_list grad_outputs) {
    const auto saved = ctx->get_saved_variables();
    const Tensor& d = saved[0];
    const double p = ctx->saved_data["p"].toDouble();
    const Tensor dist = saved[1].unsqueeze(1);  // (P, 1)
    const Tensor g = grad_outputs[0].unsqueeze(1);
    const Tensor zero = zeros_like(d);
    if (p == 0) return {zero, Tensor()};
    if (p == 1) return {g * d.sign(), Tensor()};
    if (std::isinf(p)) return {g * d.sign() * d.abs().eq(dist).to(d.dtype()), Tensor()};
    Tensor none = dist.eq(0).expand(d.sizes());
    if (p < 1) none = none.logical_or(d.eq(0));
    const Tensor safe_dist = dist.masked_fill(dist.eq(0), 1);
    Tensor grad = p == 2 ? d * g / safe_dist : d.sign() * d.abs().pow(p - 1) * g / safe_dist.pow(p - 1);
    return {where(none, zero, grad), Tensor()};
  }
};

}  // namespace

namespace functional {

Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, const CosineSimilarityFuncOptions& options) {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::cosine_similarity, {x1, x2}})
    return cosine_similarity(cast[0], cast[1], options);
  const int64_t ndim = std::max(x1.dim(), x2.dim());
  const int64_t dim = options.dim();
  EMBER_CHECK(dim >= -ndim && dim < ndim && ndim > 0,
              "cosine_similarity: dim {} is out of range for inputs of shapes {} and {}", dim, x1.sizes(), x2.sizes());
  EMBER_CHECK(x1.is_floating_point() && x2.is_floating_point(),
              "cosine_similarity: expected floating-point inputs, but got {} and {}", dtype_name(x1.dtype()),
              dtype_name(x2.dtype()));
  const std::vector<int64_t> shape = broadcast_shapes(x1.sizes(), x2.sizes(), "cosine_similarity");
  const Tensor a = x1.expand(shape), b = x2.expand(shape);
  // Each side over its norm, the norm kept at least eps so that a zero vector gives 0, not NaN:
  // max(|x|, eps) = sqrt(max(sum(x^2), eps^2)), clamped before the sqrt so that its derivative stays finite.
  const double eps2 = options.eps() * options.eps();
  const Tensor na = a.square().sum({dim}, /*keepdim=*/true).clamp_min(eps2).sqrt();
  const Tensor nb = b.square().sum({dim}, /*keepdim=*/true).clamp_min(eps2).sqrt();
  return ((a / na) * (b / nb)).sum({dim});
}

Tensor pdist(const Tensor& input, double p) {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::pdist, {input}}) return pdist(cast[0], p);
  EMBER_CHECK(input.dim() == 2, "pdist only supports 2D tensors, got: {}D (input of shape {})", input.dim(),
              input.sizes());
  EMBER_CHECK(input.is_floating_point(), "pdist only supports floating-point dtypes, got {}",
              dtype_name(input.dtype()));
  EMBER_CHECK(p >= 0, "pdist only supports non-negative p values, got p = {}", p);
  const int64_t N = input.size(0);
  // Row-major over the upper triangle: (0, 1), (0, 2), ..., (0, N - 1), (1, 2), ...
  std::vector<int64_t> first, second;
  for (int64_t i = 0; i < N; ++i) {
    for (int64_t j = i + 1; j < N; ++j) {
      first.push_back(i);
      second.push_back(j);
    }
  }
  const int64_t P = static_cast<int64_t>(first.size());
  const Tensor i = from_vector(first, {P}, dtype(kInt64)).to(input.device());
  const Tensor j = from_vector(second, {P}, dtype(kInt64)).to(input.device());
  return RowNorm::apply(input.index_select(0, i) - input.index_select(0, j), p);
}

}  // namespace functional

Tensor CosineSimilarityImpl::forward(const Tensor& input1, const Tensor& input2) {
  return functional::cosine_similarity(input1, input2, options);
}

Tensor PairwiseDistanceImpl::forward(const Tensor& input1, const Tensor& input2) {
  return functional::pairwise_distance(input1, input2, options);
}

void CosineSimilarityImpl::pretty_print(std::ostream& stream) const {
  stream << "CosineSimilarity(dim=" << options.dim() << ", eps=" << options.eps() << ")";
}

void PairwiseDistanceImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "PairwiseDistance(p=" << options.p() << ", eps=" << options.eps()
         << ", keepdim=" << options.keepdim() << ")";
}

// clone() of the modules above: a new one built from the same options, holding copies of the values.
EMBER_CLONE_WITH_OPTIONS(CosineSimilarityImpl)
EMBER_CLONE_WITH_OPTIONS(PairwiseDistanceImpl)

}  // namespace ember::nn
