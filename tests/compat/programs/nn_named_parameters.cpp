// named_parameters() and named_buffers() as libtorch's OrderedDict: items with key()/value() and
// ->, keys(), values(), contains(), size(), [] by key and by index, find, iteration.
#include <iostream>

#include <torch/torch.h>

struct BlockImpl : torch::nn::Module {
  BlockImpl() {
    fc = register_module("fc", torch::nn::Linear(3, 2));
    scale = register_parameter("scale", torch::ones({2}));
    register_buffer("steps", torch::zeros({1}));
  }
  torch::Tensor forward(torch::Tensor x) { return fc(x) * scale; }
  torch::nn::Linear fc{nullptr};
  torch::Tensor scale;
};
TORCH_MODULE(Block);

int main() {
  torch::manual_seed(1);
  Block block;
  auto params = block->named_parameters();
  std::cout << "size " << params.size() << std::endl;
  for (const auto& item : params) std::cout << item.key() << " " << item.value().sizes() << std::endl;
  for (auto it = params.begin(); it != params.end(); ++it) std::cout << it->key() << ":" << it->value().numel() << " ";
  std::cout << std::endl;
  for (const auto& key : params.keys()) std::cout << key << " ";
  std::cout << std::endl;
  double total = 0;
  for (const auto& value : params.values()) total += value.sum().item<double>();
  std::cout << "total " << total << std::endl;
  std::cout << params.contains("fc.weight") << " " << params.contains("weight") << std::endl;
  std::cout << params["fc.bias"] << std::endl;
  std::cout << params[0].key() << " " << params[2].value() << std::endl;
  std::cout << (params.find("scale") != nullptr) << " " << (params.find("nope") == nullptr) << std::endl;
  std::cout << params.is_empty() << " " << params.front().key() << " " << params.back().key() << std::endl;

  auto own = block->named_parameters(/*recurse=*/false);
  std::cout << "own " << own.size() << " " << own[0].key() << std::endl;
  auto buffers = block->named_buffers();
  for (const auto& b : buffers) std::cout << "buffer " << b.key() << " " << b->sizes() << std::endl;

  // The values share storage with the module: a change through the dict reaches the module.
  {
    torch::NoGradGuard no_grad;
    params["scale"].mul_(3);
  }
  std::cout << block->scale << std::endl;
  std::cout << block(torch::ones({1, 3})) << std::endl;
}
