// ModuleList of user modules: push_back, extend, iteration, index access, typed access, forward
// through a loop, parameters and printing.
#include <iostream>

#include <torch/torch.h>

struct LayerImpl : torch::nn::Module {
  LayerImpl(int64_t in, int64_t out) {
    fc = register_module("fc", torch::nn::Linear(in, out));
    gain = register_parameter("gain", torch::full({out}, 0.5));
  }
  torch::Tensor forward(torch::Tensor x) { return torch::relu(fc(x)) * gain; }
  torch::nn::Linear fc{nullptr};
  torch::Tensor gain;
};
TORCH_MODULE(Layer);

int main() {
  torch::manual_seed(5);
  // Built one statement at a time: the order of a call's arguments is unspecified (GCC builds the
  // last first, Clang the first), and each Linear draws its initial weights from the generator.
  Layer second(4, 4);
  Layer first(3, 4);
  torch::nn::ModuleList layers(first, second);
  layers->push_back(Layer(4, 2));
  torch::nn::ModuleList extra;
  std::cout << extra->is_empty() << std::endl;
  extra->push_back(torch::nn::Linear(2, 2));
  extra->push_back(torch::nn::Dropout(0.25));
  layers->extend(*extra);
  std::cout << layers->size() << " " << layers->is_empty() << std::endl;

  torch::Tensor x = torch::randn({2, 3});
  for (size_t i = 0; i < 3; ++i) x = layers->ptr<LayerImpl>(i)->forward(x);
  x = layers[3]->as<torch::nn::Linear>()->forward(x);
  std::cout << x << std::endl;
  std::cout << layers->at<LayerImpl>(1).gain.sizes() << std::endl;

  int64_t numel = 0;
  for (const auto& module : *layers) {
    for (const auto& p : module->parameters()) numel += p.numel();
  }
  std::cout << "numel " << numel << " " << layers->parameters().size() << std::endl;
  for (const auto& p : layers->named_parameters()) std::cout << p.key() << " ";
  std::cout << std::endl;
  std::cout << layers << std::endl;
}
