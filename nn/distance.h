// Distances between two batches of vectors, as torch::nn::CosineSimilarity and PairwiseDistance with
// F::cosine_similarity (F::pairwise_distance itself is in nn/loss.h, beside the triplet loss using it),
// and between the rows of one matrix, as F::pdist.
//
//   namespace F = ember::nn::functional;
//   ember::Tensor c = F::cosine_similarity(a, b, F::CosineSimilarityFuncOptions().dim(1));  // (N, D) -> (N)
//   ember::nn::PairwiseDistance dist(ember::nn::PairwiseDistanceOptions().p(1));
//   std::cout << *dist;   // PairwiseDistance(p=1, eps=1e-06, keepdim=false)
//   ember::Tensor d = F::pdist(x, 1);   // x (N, M) -> (N (N - 1) / 2): |x_0 - x_1|_1, |x_0 - x_2|_1, ...
//
// cosine_similarity is PyTorch 1.13's: each input divided by its 2-norm clamped to at least eps, then
// the dot product. Below eps PyTorch's gradient differs from this composition's (the clamp there is
// done in place without grad); elsewhere they agree.
#pragma once

#include <cstdint>
#include <ostream>

#include "nn/loss.h"
#include "nn/module.h"
#include "nn/options.h"

namespace ember::nn {

struct CosineSimilarityOptions {
  EMBER_ARG(int64_t, dim) = 1;
  EMBER_ARG(double, eps) = 1e-8;
};
using PairwiseDistanceOptions = functional::PairwiseDistanceFuncOptions;

namespace functional {

using CosineSimilarityFuncOptions = CosineSimilarityOptions;
// sum(x1 / max(|x1|, eps) * x2 / max(|x2|, eps)) over dim.  x1, x2 broadcastable -> the shape without dim
Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, const CosineSimilarityFuncOptions& options = {});

// ||x_i - x_j||_p for every pair of rows i < j, row-major over the upper triangle; p >= 0 (p = 0 counts
// the entries that differ, p = inf takes the largest), with PyTorch's gradient (0 where a distance is 0).
// input (N, M) -> (N (N - 1) / 2)
Tensor pdist(const Tensor& input, double p = 2.0);

}  // namespace functional

class CosineSimilarityImpl : public Module {
 public:
  explicit CosineSimilarityImpl(const CosineSimilarityOptions& options_ = {}) : options(options_) {}
  Tensor forward(const Tensor& input1, const Tensor& input2);
  void pretty_print(std::ostream& stream) const override;
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;
  CosineSimilarityOptions options;
};
EMBER_MODULE(CosineSimilarity);

class PairwiseDistanceImpl : public Module {
 public:
  explicit PairwiseDistanceImpl(const PairwiseDistanceOptions& options_ = {}) : options(options_) {}
  Tensor forward(const Tensor& input1, const Tensor& input2);
  void pretty_print(std::ostream& stream) const override;
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;
  PairwiseDistanceOptions options;
};
EMBER_MODULE(PairwiseDistance);

}  // namespace ember::nn
