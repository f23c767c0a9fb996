// CosineSimilarity and PairwiseDistance: F::cosine_similarity composed of norms, a clamp and a sum;
// the modules call the functions.
#include "nn/distance.h"

#include <fmt/format.h>

#include "core/shape.h"
#include "core/trace.h"

namespace ember::nn {

namespace functional {

Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, const CosineSimilarityFuncOptions& options) {
  EMBER_TRACE_OP();
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

}  // namespace ember::nn
