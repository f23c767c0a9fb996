// nn::Embedding: the weight table, PyTorch's initialisation, forward through functional::embedding.
#include "nn/embedding.h"

#include <ostream>

#include "autograd/grad_mode.h"
#include "nn/functional.h"
#include "nn/init.h"

namespace ember::nn {

EmbeddingImpl::EmbeddingImpl(const EmbeddingOptions& options_) : options(options_) {
  const int64_t rows = options.num_embeddings(), dim = options.embedding_dim();
  EMBER_CHECK(rows >= 0 && dim >= 0, "Embedding: num_embeddings and embedding_dim must be non-negative, got {} and {}",
              rows, dim);
  if (auto idx = options.padding_idx()) {
    EMBER_CHECK(*idx >= -rows && *idx < rows, "Embedding: padding_idx {} must be within num_embeddings ({})", *idx,
                rows);
    if (*idx < 0) options.padding_idx(*idx + rows);
  }
  if (options._weight().defined()) {
    EMBER_CHECK(options._weight().sizes() == IntArrayRef({rows, dim}),
                "Embedding: _weight has shape {} but num_embeddings and embedding_dim give [{}, {}]",
                options._weight().sizes(), rows, dim);
    weight = register_parameter("weight", options._weight());
  } else {
    weight = register_parameter("weight", empty({rows, dim}));
    reset_parameters();
  }
}

void EmbeddingImpl::reset_parameters() {
  init::normal_(weight);
  if (auto idx = options.padding_idx()) {
    NoGradGuard no_grad;
    weight[*idx].fill_(0);
  }
}

Tensor EmbeddingImpl::forward(const Tensor& input) {
  return functional::embedding(input, weight, functional::EmbeddingFuncOptions().padding_idx(options.padding_idx()));
}

void EmbeddingImpl::pretty_print(std::ostream& stream) const {
  stream << "Embedding(num_embeddings=" << options.num_embeddings() << ", embedding_dim=" << options.embedding_dim();
  if (auto idx = options.padding_idx()) stream << ", padding_idx=" << *idx;
  stream << ")";
}

}  // namespace ember::nn
