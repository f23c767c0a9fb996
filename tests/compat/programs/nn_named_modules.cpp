// named_modules() and named_children() on a nested model, as libtorch's OrderedDict.
#include <iostream>

#include <torch/torch.h>

namespace test {
struct EncoderImpl : torch::nn::Module {
  EncoderImpl() {
    embed = register_module("embed", torch::nn::Embedding(10, 4));
    proj = register_module("proj", torch::nn::Linear(4, 4));
    norm = register_module("norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({4})));
  }
  torch::nn::Embedding embed{nullptr};
  torch::nn::Linear proj{nullptr};
  torch::nn::LayerNorm norm{nullptr};
};
TORCH_MODULE(Encoder);

struct ModelImpl : torch::nn::Module {
  ModelImpl() {
    encoder = register_module("encoder", Encoder());
    head = register_module("head",
                           torch::nn::Sequential(torch::nn::Linear(4, 8), torch::nn::ReLU(), torch::nn::Linear(8, 2)));
  }
  Encoder encoder{nullptr};
  torch::nn::Sequential head{nullptr};
};
TORCH_MODULE(Model);
}  // namespace test

int main() {
  test::Model model;
  auto modules = model->named_modules();
  std::cout << modules.size() << std::endl;
  for (const auto& item : modules) std::cout << "[" << item.key() << "] " << item.value()->name() << std::endl;
  auto prefixed = model->named_modules("model", /*include_self=*/false);
  for (const auto& item : prefixed) std::cout << item.key() << std::endl;
  auto children = model->named_children();
  std::cout << children.size() << " " << children.keys()[0] << " " << children.keys()[1] << std::endl;
  std::cout << children["head"]->name() << " " << children[0].value()->name() << std::endl;
  std::cout << model->modules().size() << " " << model->modules(false).size() << " " << model->children().size()
            << std::endl;
  int64_t count = 0;
  for (const auto& item : model->named_modules()) {
    if (auto* linear = item.value()->as<torch::nn::Linear>()) {
      std::cout << item.key() << " in=" << linear->options.in_features() << std::endl;
      ++count;
    }
  }
  std::cout << "linears " << count << std::endl;
  std::cout << model->named_parameters().size() << " " << model->encoder->named_parameters().size() << std::endl;
}
