// EmbeddingBag and Embedding: the first draws after manual_seed (padding_idx included), the printouts,
// every mode with offsets and per-sample weights, from_pretrained, max_norm, and the gradients.
#include <iomanip>
#include <iostream>

#include <torch/torch.h>

namespace F = torch::nn::functional;

int main() {
  std::cout << std::setprecision(6);
  torch::manual_seed(0);
  torch::nn::EmbeddingBag plain(5, 3);
  torch::nn::EmbeddingBag padded(torch::nn::EmbeddingBagOptions(4, 2).padding_idx(1).mode(torch::kSum));
  torch::nn::Embedding embedding(torch::nn::EmbeddingOptions(4, 2).padding_idx(-1).max_norm(1.5).norm_type(1));
  std::cout << plain->weight << std::endl << padded->weight << std::endl << embedding->weight << std::endl;
  std::cout << plain << std::endl << padded << std::endl << embedding << std::endl;
  std::cout << torch::nn::EmbeddingBag(torch::nn::EmbeddingBagOptions(3, 2).mode(torch::kMax).include_last_offset(true))
            << std::endl;

  torch::Tensor input = torch::tensor({1, 2, 4, 0, 4, 3, 2}, torch::kLong);
  torch::Tensor offsets = torch::tensor({0, 3, 3}, torch::kLong);
  std::cout << plain(input, offsets) << std::endl;
  std::cout << F::embedding_bag(input, plain->weight, F::EmbeddingBagFuncOptions().offsets(offsets).mode(torch::kMax))
            << std::endl;
  torch::Tensor weights = torch::linspace(0.5, 2.0, 7);
  std::cout << F::embedding_bag(
                   input, plain->weight,
                   F::EmbeddingBagFuncOptions().offsets(offsets).mode(torch::kSum).per_sample_weights(weights))
            << std::endl;
  std::cout << padded(torch::tensor({{1, 2}, {1, 1}, {3, 0}}, torch::kLong)) << std::endl;

  torch::Tensor loss = plain(input, offsets).pow(2).sum() + padded(torch::tensor({{1, 2}, {3, 0}}, torch::kLong)).sum();
  loss.backward();
  std::cout << plain->weight.grad() << std::endl << padded->weight.grad() << std::endl;

  std::cout << embedding(torch::tensor({0, 3, 2}, torch::kLong)) << std::endl;
  std::cout << embedding->weight << std::endl;

  torch::Tensor table = torch::arange(8, torch::kFloat32).reshape({4, 2}).clone();
  auto frozen = torch::nn::Embedding::from_pretrained(table);
  auto bag = torch::nn::EmbeddingBag::from_pretrained(
      table, torch::nn::EmbeddingBagFromPretrainedOptions().mode(torch::kMax).freeze(false));
  std::cout << std::noboolalpha << frozen->weight.requires_grad() << " " << bag->weight.requires_grad() << std::endl;
  std::cout << frozen(torch::tensor({3, 1}, torch::kLong)) << std::endl;
  std::cout << bag(torch::tensor({{3, 1}, {0, 2}}, torch::kLong)) << std::endl;
}
