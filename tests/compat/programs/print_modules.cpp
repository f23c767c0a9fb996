// Printing modules as libtorch does: built-in modules with their options, nested containers
// indented, user modules by their (namespaced) type name, through operator<< and c10::str.
#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <torch/torch.h>

namespace test {
struct MyModule : torch::nn::Module {
  MyModule() {
    fc = register_module("fc", torch::nn::Linear(3, 4));
    no_bias = register_module("no_bias", torch::nn::Linear(torch::nn::LinearOptions(4, 2).bias(false)));
  }
  torch::nn::Linear fc{nullptr}, no_bias{nullptr};
};
}  // namespace test

struct BlockImpl : torch::nn::Module {
  BlockImpl() {
    attn = register_module("attn", std::make_shared<test::MyModule>());
    mlp = register_module("mlp", torch::nn::Sequential(torch::nn::Linear(4, 16), torch::nn::GELU(),
                                                       torch::nn::Linear(16, 4), torch::nn::Dropout(0.1)));
    norm = register_module("norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({4})));
  }
  std::shared_ptr<test::MyModule> attn;
  torch::nn::Sequential mlp{nullptr};
  torch::nn::LayerNorm norm{nullptr};
};
TORCH_MODULE(Block);

int main() {
  torch::nn::Linear linear(3, 4);
  std::cout << linear << std::endl;
  std::cout << c10::str(*linear) << std::endl;
  std::string text = c10::str("linear: ", linear, " / ", 42, " ", 1.5);
  std::cout << text << std::endl;
  std::cout << torch::nn::Embedding(10, 3) << std::endl;
  std::cout << torch::nn::ReLU() << std::endl;
  std::cout << torch::nn::Dropout(0.3) << std::endl;
  std::cout << torch::nn::Softmax(1) << std::endl;
  std::cout << torch::nn::LayerNorm(torch::nn::LayerNormOptions({2, 3}).eps(1e-6)) << std::endl;

  auto my = std::make_shared<test::MyModule>();
  std::cout << my->name() << std::endl;
  std::cout << *my << std::endl;

  Block block;
  std::cout << block->name() << std::endl;
  std::cout << block << std::endl;

  torch::nn::ModuleList outer(Block(), torch::nn::Sequential(torch::nn::Linear(4, 4), torch::nn::ReLU()));
  std::vector<std::pair<std::string, std::shared_ptr<torch::nn::Module>>> entries = {
      {"a", torch::nn::Linear(1, 1).ptr()}, {"b", torch::nn::ReLU().ptr()}};
  outer->push_back(torch::nn::ModuleDict(entries));
  std::cout << outer << std::endl;
  std::cout << torch::nn::Sequential() << std::endl;

  // Every loss module, as libtorch 1.13 prints it (a few with their options).
  using namespace torch::nn;
  std::cout << L1Loss() << '\n'
            << KLDivLoss() << '\n'
            << MSELoss() << '\n'
            << BCELoss() << '\n'
            << HingeEmbeddingLoss(HingeEmbeddingLossOptions().margin(0.5)) << '\n'
            << MultiMarginLoss() << '\n'
            << CosineEmbeddingLoss() << '\n'
            << SmoothL1Loss() << '\n'
            << HuberLoss() << '\n'
            << MultiLabelMarginLoss() << '\n'
            << SoftMarginLoss() << '\n'
            << MultiLabelSoftMarginLoss() << '\n'
            << TripletMarginLoss(TripletMarginLossOptions().swap(true)) << '\n'
            << TripletMarginWithDistanceLoss() << '\n'
            << CTCLoss() << '\n'
            << PoissonNLLLoss() << '\n'
            << MarginRankingLoss() << '\n'
            << NLLLoss() << '\n'
            << CrossEntropyLoss(CrossEntropyLossOptions().weight(torch::ones({3}))) << '\n'
            << BCEWithLogitsLoss() << '\n';
  std::cout << Sequential(Linear(2, 2), Functional(torch::relu)) << '\n';
}
