// torch::nn::AnyModule: type erasure over any module with a forward, user modules with several
// arguments included; forward returning AnyValue or the type asked for, ptr, get<T>, clone.
#include <iostream>

#include <torch/torch.h>

struct AddImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor a, torch::Tensor b) { return a + b; }
};
TORCH_MODULE(Add);

struct CountImpl : torch::nn::Module {
  int64_t forward(torch::Tensor x) { return x.numel(); }
};
TORCH_MODULE(Count);

int main() {
  torch::manual_seed(6);
  torch::nn::AnyModule linear(torch::nn::Linear(3, 2));
  torch::nn::AnyModule add(Add{});
  torch::nn::AnyModule count(std::make_shared<CountImpl>());
  torch::Tensor x = torch::randn({2, 3});
  std::cout << linear.forward(x) << std::endl;
  std::cout << add.forward(x, x) << std::endl;
  std::cout << count.forward<int64_t>(x) << std::endl;
  torch::nn::AnyValue value = linear.any_forward(x);
  std::cout << value.get<torch::Tensor>().sizes() << std::endl;
  std::cout << linear.ptr()->name() << " " << linear.get<torch::nn::Linear>()->options.in_features() << std::endl;
  std::cout << (linear.get<torch::nn::Linear>()->weight.is_same(linear.ptr<torch::nn::LinearImpl>()->weight))
            << std::endl;
  std::cout << linear.is_empty() << " " << torch::nn::AnyModule().is_empty() << std::endl;
  try {
    add.forward(x);
  } catch (const c10::Error& e) {
    std::cout << "arguments: "
              << (std::string(e.what()).find("Add") != std::string::npos &&
                  std::string(e.what()).find("2 argument(s), but received 1") != std::string::npos)
              << std::endl;
  }
  torch::nn::Sequential seq;
  seq->push_back(add);
  seq->push_back("relu", torch::nn::AnyModule(torch::nn::ReLU()));
  std::cout << seq->forward(x, -x * 2) << std::endl;
}
