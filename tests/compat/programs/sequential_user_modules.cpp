// Sequential holding user modules beside built-in ones: constructors, push_back, named entries,
// forward, ptr<T>() / at<T>() / [] access, size, iteration and printing.
#include <iostream>

#include <torch/torch.h>

struct ScaleImpl : torch::nn::Module {
  explicit ScaleImpl(double factor) : factor(factor) {}
  torch::Tensor forward(torch::Tensor x) { return x * factor; }
  double factor;
};
TORCH_MODULE(Scale);

struct ResidualImpl : torch::nn::Module {
  explicit ResidualImpl(int64_t width) { fc = register_module("fc", torch::nn::Linear(width, width)); }
  torch::Tensor forward(const torch::Tensor& x) { return x + torch::tanh(fc(x)); }
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(Residual);

int main() {
  torch::manual_seed(3);
  // Built one statement at a time: the order of a call's arguments is unspecified (GCC builds the
  // last first, Clang the first), and each Linear draws its initial weights from the generator.
  Residual residual(4);
  torch::nn::Linear first(3, 4);
  torch::nn::Sequential seq(first, Scale(0.5), residual, torch::nn::GELU());
  seq->push_back(torch::nn::Linear(4, 2));
  seq->push_back("out_scale", Scale(2.0));
  std::cout << seq->size() << " " << seq->is_empty() << std::endl;
  torch::Tensor x = torch::randn({2, 3});
  std::cout << seq->forward(x) << std::endl;
  std::cout << seq->forward<torch::Tensor>(x).sum() << std::endl;
  std::cout << seq->ptr<ScaleImpl>(1)->factor << " " << seq->at<ScaleImpl>(5).factor << std::endl;
  std::cout << seq->ptr<torch::nn::LinearImpl>(0)->options.out_features() << std::endl;
  std::cout << seq[2]->name() << " " << seq->ptr(3)->name() << std::endl;
  for (const auto& p : seq->named_parameters()) std::cout << p.key() << " ";
  std::cout << std::endl;
  std::cout << *seq << std::endl;

  // Named constructor: {name, module} pairs.
  torch::nn::Sequential named({{"first", torch::nn::Linear(2, 2)}, {"act", torch::nn::ReLU()}, {"half", Scale(0.5)}});
  for (const auto& child : named->named_children()) std::cout << child.key() << " ";
  std::cout << std::endl;
  std::cout << named->forward(torch::ones({1, 2})) << std::endl;
  std::cout << named << std::endl;

  torch::nn::Sequential empty;
  std::cout << empty->is_empty() << " " << empty->size() << std::endl;
  int visited = 0;
  for (const auto& module : *seq) visited += module.ptr() != nullptr;
  std::cout << "visited " << visited << std::endl;
}
