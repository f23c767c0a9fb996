// torch::save / torch::load of tensors, tensor lists, modules and optimizers: a model trained for a
// few steps is saved, reloaded into a fresh model, and both continue identically.
#include <iostream>

#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc1(3, 5), fc2(5, 2) {
    register_module("fc1", fc1);
    register_module("fc2", fc2);
    scale = register_parameter("scale", torch::ones({2}));
  }
  torch::Tensor forward(const torch::Tensor& x) { return fc2(torch::tanh(fc1(x))) * scale; }
  torch::nn::Linear fc1, fc2;
  torch::Tensor scale;
};
TORCH_MODULE(Net);

void train(Net& net, torch::optim::Adam& optimizer, const torch::Tensor& x, const torch::Tensor& y, int steps) {
  for (int i = 0; i < steps; ++i) {
    optimizer.zero_grad();
    torch::Tensor loss = torch::mse_loss(net(x), y);
    loss.backward();
    optimizer.step();
  }
}

int main() {
  torch::manual_seed(5);
  torch::Tensor t = torch::randn({2, 3});
  torch::save(t, "compat_tensor.pt");
  torch::Tensor t2;
  torch::load(t2, "compat_tensor.pt");
  std::cout << t2 << std::endl << torch::equal(t, t2) << std::endl;

  std::vector<torch::Tensor> list = {torch::arange(4), torch::eye(2, torch::kDouble)};
  torch::save(list, "compat_list.pt");
  std::vector<torch::Tensor> list2;
  torch::load(list2, "compat_list.pt");
  std::cout << list2.size() << std::endl << list2[0] << std::endl << list2[1] << std::endl;

  Net net;
  torch::optim::Adam optimizer(net->parameters(), torch::optim::AdamOptions(0.05));
  torch::Tensor x = torch::randn({6, 3});
  torch::Tensor y = torch::randn({6, 2});
  train(net, optimizer, x, y, 4);
  torch::save(net, "compat_net.pt");
  torch::save(optimizer, "compat_optimizer.pt");

  Net restored;  // fresh random weights, replaced by the saved ones
  torch::optim::Adam restored_optimizer(restored->parameters(), torch::optim::AdamOptions(0.05));
  torch::load(restored, "compat_net.pt");
  torch::load(restored_optimizer, "compat_optimizer.pt");
  std::cout << restored->fc1->weight << std::endl << restored->scale << std::endl;
  std::cout << torch::equal(net(x), restored(x)) << std::endl;

  train(net, optimizer, x, y, 3);
  train(restored, restored_optimizer, x, y, 3);
  std::cout << net(x) << std::endl << torch::allclose(net(x), restored(x)) << std::endl;
}
