// What seeded module construction draws: Linear, Embedding, LayerNorm, a ModuleList, nn::init,
// train/eval, buffers, to(kDouble) and parameters of nested modules.
#include <iostream>

#include <torch/torch.h>

struct TwoLayerImpl : torch::nn::Module {
  TwoLayerImpl() {
    layers = register_module("layers", torch::nn::ModuleList(torch::nn::Linear(2, 3), torch::nn::Linear(3, 1)));
    register_buffer("running", torch::zeros({3}));
  }
  torch::nn::ModuleList layers;
};
TORCH_MODULE(TwoLayer);

int main() {
  torch::manual_seed(0);
  torch::nn::Linear linear(3, 2);
  std::cout << linear->weight << std::endl << linear->bias << std::endl;
  torch::nn::Linear no_bias(torch::nn::LinearOptions(2, 2).bias(false));
  std::cout << no_bias->weight << std::endl << no_bias->bias.defined() << std::endl;
  torch::nn::Embedding embedding(5, 3);
  std::cout << embedding->weight << std::endl;
  torch::nn::Embedding padded(torch::nn::EmbeddingOptions(4, 2).padding_idx(1));
  std::cout << padded->weight << std::endl;
  torch::nn::LayerNorm norm(torch::nn::LayerNormOptions({3}).eps(1e-6));
  std::cout << norm(torch::tensor({{1.0, 2.0, 4.0}, {-1.0, 0.0, 3.0}})) << std::endl;

  torch::Tensor w = torch::empty({3, 4});
  torch::nn::init::xavier_uniform_(w);
  std::cout << w << std::endl;
  torch::nn::init::normal_(w, 1.0, 0.5);
  std::cout << w << std::endl;
  torch::nn::init::constant_(w, 0.25);
  std::cout << w.sum() << std::endl;

  TwoLayer net;
  std::cout << net->parameters().size() << " " << net->buffers().size() << std::endl;
  for (const auto& p : net->parameters()) std::cout << p.sizes() << " ";
  std::cout << std::endl;
  net->eval();
  std::cout << net->is_training() << " " << net->layers[0]->is_training() << std::endl;
  net->to(torch::kDouble);
  std::cout << (net->parameters()[0].scalar_type() == torch::kDouble) << std::endl;
  torch::nn::Dropout dropout(0.5);
  torch::Tensor ones = torch::ones({2, 6});
  std::cout << dropout(ones) << std::endl;
  dropout->eval();
  std::cout << dropout(ones).sum() << std::endl;
}
