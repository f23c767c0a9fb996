// ModuleDict built from {name, module} pairs and from an OrderedDict, with user modules; keys,
// values, contains, [] and typed access, update, iteration and printing.
#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <torch/torch.h>

struct HeadImpl : torch::nn::Module {
  explicit HeadImpl(int64_t classes) { proj = register_module("proj", torch::nn::Linear(4, classes)); }
  torch::Tensor forward(torch::Tensor x) { return proj(x).log_softmax(-1); }
  torch::nn::Linear proj{nullptr};
};
TORCH_MODULE(Head);

int main() {
  torch::manual_seed(11);
  std::vector<std::pair<std::string, std::shared_ptr<torch::nn::Module>>> list = {
      {"sentiment", Head(2).ptr()}, {"topic", Head(5).ptr()}, {"act", torch::nn::ReLU().ptr()}};
  torch::nn::ModuleDict heads(list);
  std::cout << heads->size() << " " << heads->empty() << " " << heads->contains("topic") << " "
            << heads->contains("nope") << std::endl;
  for (const auto& key : heads->keys()) std::cout << key << " ";
  std::cout << std::endl;
  std::cout << heads->values().size() << std::endl;

  torch::Tensor x = torch::randn({3, 4});
  torch::Tensor sentiment = heads["sentiment"]->as<HeadImpl>()->forward(x);
  std::cout << sentiment.exp().sum(-1) << std::endl;
  std::cout << heads->at<HeadImpl>("topic").forward(x).sizes() << std::endl;
  std::cout << heads["topic"]->as<HeadImpl>()->proj->options.out_features() << std::endl;

  torch::OrderedDict<std::string, std::shared_ptr<torch::nn::Module>> more;
  more.insert("tag", Head(3).ptr());
  heads->update(more);
  for (const auto& item : *heads) std::cout << item.key() << ":" << item.value()->parameters().size() << " ";
  std::cout << std::endl;
  auto items = heads->items();
  std::cout << items.size() << " " << items[3].first << std::endl;
  std::cout << heads << std::endl;
  std::cout << heads->pop("tag")->name() << " " << heads->size() << std::endl;
}
