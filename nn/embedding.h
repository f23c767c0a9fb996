// nn::Embedding: a lookup table of learned vectors, as torch::nn::Embedding.
//
//   ember::manual_seed(0);
//   ember::nn::Embedding wte(65, 32);                                   // weight ~ N(0, 1), as PyTorch
//   ember::nn::Embedding tok(ember::nn::EmbeddingOptions(10, 4).padding_idx(0));  // row 0 zero, no gradient
//   ember::Tensor x = wte(ember::tensor({{1, 2}, {3, 4}}, ember::dtype(ember::kInt64)));  // (2, 2, 32)
#pragma once

#include <optional>

#include "nn/module.h"
#include "nn/options.h"

namespace ember::nn {

struct EmbeddingOptions {
  EmbeddingOptions(int64_t num_embeddings, int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  EMBER_ARG(int64_t, num_embeddings);
  EMBER_ARG(int64_t, embedding_dim);
  // This row starts at zero and receives no gradient; negative values count from the end.
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
  // Use this (num_embeddings, embedding_dim) tensor as the weight instead of drawing one.
  EMBER_ARG(Tensor, _weight) = {};
};

class EmbeddingImpl : public Module {
 public:
  EmbeddingImpl(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingImpl(EmbeddingOptions(num_embeddings, embedding_dim)) {}
  explicit EmbeddingImpl(const EmbeddingOptions& options);

  // weight ~ N(0, 1), then the padding row set to zero (PyTorch's order).
  void reset_parameters();
  // input (*) int64 indices -> (*, embedding_dim)
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override {
    return detail::clone_with_options(*this, device);
  }

  EmbeddingOptions options;  // padding_idx stored non-negative
  Tensor weight;             // (num_embeddings, embedding_dim)
};
EMBER_MODULE(Embedding);

}  // namespace ember::nn
