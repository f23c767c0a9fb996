// Module::as<T>(), name() with namespaces, unregister_module, register_* errors, zero_grad with
// an explicit set_to_none (libtorch 1.13 and 2.x differ only in the default), train/eval.
#include <iostream>
#include <string>

#include <torch/torch.h>

namespace test {
struct MyModule : torch::nn::Module {
  MyModule() {
    fc = register_module("fc", torch::nn::Linear(2, 2));
    extra = register_module("extra", torch::nn::Linear(2, 2));
    w = register_parameter("w", torch::ones({2}));
  }
  torch::Tensor forward(torch::Tensor x) { return fc(x) * w; }
  torch::nn::Linear fc{nullptr}, extra{nullptr};
  torch::Tensor w;
};
}  // namespace test

struct PlainImpl : torch::nn::Module {};
TORCH_MODULE(Plain);

int main() {
  torch::manual_seed(9);
  auto module = std::make_shared<test::MyModule>();
  std::cout << module->name() << std::endl;
  std::cout << Plain()->name() << std::endl;
  torch::nn::Module& base = *module;
  std::cout << (base.as<test::MyModule>() == module.get()) << " " << (base.as<torch::nn::Linear>() == nullptr)
            << std::endl;
  std::cout << (module->fc->as<torch::nn::LinearImpl>() != nullptr) << " "
            << (module->fc->as<torch::nn::Linear>() != nullptr) << std::endl;

  std::cout << module->children().size() << std::endl;
  module->unregister_module("extra");
  std::cout << module->children().size() << " " << module->named_parameters().size() << std::endl;
  try {
    module->unregister_module("extra");
  } catch (const c10::Error& e) {
    std::cout << "unregister: "
              << (std::string(e.what()).find("No Module with name `extra` is registered") != std::string::npos)
              << std::endl;
  }
  try {
    module->register_parameter("w", torch::zeros({1}));
  } catch (const c10::Error& e) {
    std::cout << "duplicate parameter: "
              << (std::string(e.what()).find("Parameter 'w' already defined") != std::string::npos) << std::endl;
  }
  try {
    module->register_module("fc", torch::nn::Linear(1, 1));
  } catch (const c10::Error& e) {
    std::cout << "duplicate module: "
              << (std::string(e.what()).find("Submodule 'fc' already defined") != std::string::npos) << std::endl;
  }

  torch::Tensor loss = module->forward(torch::ones({3, 2})).sum();
  loss.backward();
  std::cout << module->fc->weight.grad() << std::endl;
  module->zero_grad(/*set_to_none=*/false);
  std::cout << module->fc->weight.grad().defined() << " " << module->fc->weight.grad().sum() << std::endl;
  module->forward(torch::ones({1, 2})).sum().backward();
  module->zero_grad(/*set_to_none=*/true);
  std::cout << module->fc->weight.grad().defined() << " " << module->w.grad().defined() << std::endl;

  module->eval();
  std::cout << module->is_training() << module->fc->is_training() << std::endl;
  module->train();
  std::cout << module->is_training() << module->fc->is_training() << std::endl;
}
