// nn::Cloneable<T>: clone() deep-copies parameters, buffers and submodules; the copy trains
// independently of the original.
#include <iostream>

#include <torch/torch.h>

struct NetImpl : torch::nn::Cloneable<NetImpl> {
  explicit NetImpl(int64_t hidden = 4) : hidden(hidden) { reset(); }
  void reset() override {
    fc1 = register_module("fc1", torch::nn::Linear(2, hidden));
    fc2 = register_module("fc2", torch::nn::Linear(hidden, 1));
    offset = register_parameter("offset", torch::zeros({1}));
    register_buffer("seen", torch::zeros({1}));
  }
  torch::Tensor forward(torch::Tensor x) { return fc2(torch::tanh(fc1(x))) + offset; }
  int64_t hidden;
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
  torch::Tensor offset;
};
TORCH_MODULE(Net);

int main() {
  torch::manual_seed(4);
  Net net(3);
  net->named_buffers()["seen"].fill_(5);
  auto copy = std::dynamic_pointer_cast<NetImpl>(net->clone());
  std::cout << (copy != nullptr) << " " << copy->hidden << std::endl;
  std::cout << torch::equal(copy->fc1->weight, net->fc1->weight) << " " << copy->fc1->weight.is_same(net->fc1->weight)
            << std::endl;
  std::cout << (copy->fc1->weight.data_ptr<float>() != net->fc1->weight.data_ptr<float>()) << std::endl;
  // The clone's members point at the clone's registered submodules.
  std::cout << (copy->fc1.ptr().get() == copy->named_children()["fc1"].get()) << std::endl;
  std::cout << copy->named_buffers()["seen"] << std::endl;
  std::cout << copy->parameters().size() << " " << copy->fc1->weight.requires_grad() << std::endl;

  torch::Tensor x = torch::randn({5, 2});
  torch::optim::SGD optimizer(copy->parameters(), torch::optim::SGDOptions(0.5));
  torch::Tensor loss = copy->forward(x).pow(2).sum();
  loss.backward();
  optimizer.step();
  std::cout << net->fc2->weight << std::endl << copy->fc2->weight << std::endl;
  std::cout << net->offset << std::endl << copy->offset << std::endl;
  std::cout << (net->fc2->weight.grad().defined()) << std::endl;

  // Cloning a built-in module and a Sequential.
  torch::nn::Linear linear(2, 2);
  auto linear_copy = std::dynamic_pointer_cast<torch::nn::LinearImpl>(linear->clone());
  {
    torch::NoGradGuard no_grad;
    linear_copy->weight.add_(1);
  }
  std::cout << (linear_copy->weight - linear->weight).sum() << std::endl;
  torch::nn::Sequential seq(torch::nn::Linear(2, 2), torch::nn::ReLU(), Net(2));
  auto seq_copy = std::dynamic_pointer_cast<torch::nn::SequentialImpl>(seq->clone());
  std::cout << seq_copy->size() << " " << torch::allclose(seq_copy->forward(x), seq->forward(x)) << std::endl;
  std::cout << seq_copy->ptr<NetImpl>(2)->hidden << std::endl;
}
