// Module::apply in its overloads (module, name and module, const, shared_ptr), used the way
// libtorch programs use it: re-initialising every Linear, counting modules, listing names.
#include <iostream>
#include <memory>
#include <string>

#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  NetImpl() {
    body = register_module("body",
                           torch::nn::Sequential(torch::nn::Linear(2, 3), torch::nn::ReLU(), torch::nn::Linear(3, 3)));
    head = register_module("head", torch::nn::Linear(3, 1));
  }
  torch::Tensor forward(torch::Tensor x) { return head(body->forward(x)); }
  torch::nn::Sequential body{nullptr};
  torch::nn::Linear head{nullptr};
};
TORCH_MODULE(Net);

void init_weights(torch::nn::Module& module) {
  torch::NoGradGuard no_grad;
  if (auto* linear = module.as<torch::nn::Linear>()) {
    torch::nn::init::constant_(linear->weight, 0.1);
    torch::nn::init::zeros_(linear->bias);
  }
}

int main() {
  Net net;
  net->apply(init_weights);
  std::cout << net(torch::ones({1, 2})) << std::endl;

  int count = 0;
  net->apply([&](torch::nn::Module&) { ++count; });
  std::cout << "modules " << count << std::endl;

  net->apply([](const std::string& name, torch::nn::Module& module) {
    std::cout << "[" << name << "] " << module.parameters(/*recurse=*/false).size() << std::endl;
  });
  net->apply([](const std::string& name, torch::nn::Module& module) { std::cout << name << " "; }, "net");
  std::cout << std::endl;

  const NetImpl& frozen = *net;
  int64_t numel = 0;
  frozen.apply([&](const torch::nn::Module& module) {
    for (const auto& p : module.parameters(false)) numel += p.numel();
  });
  std::cout << "numel " << numel << std::endl;
  frozen.apply([](const std::string& name, const torch::nn::Module& module) {
    if (!name.empty()) std::cout << name << "=" << module.is_training() << " ";
  });
  std::cout << std::endl;
  net->apply([](const std::shared_ptr<torch::nn::Module>& module) {
    if (module->as<torch::nn::ReLU>() != nullptr) std::cout << "found a ReLU" << std::endl;
  });
  net->apply([](const std::string& name, const std::shared_ptr<torch::nn::Module>& module) {
    if (module->as<torch::nn::Linear>()) std::cout << name << " is Linear" << std::endl;
  });
  net->eval();
  net->apply([](torch::nn::Module& module) { std::cout << module.is_training(); });
  std::cout << std::endl;
}
