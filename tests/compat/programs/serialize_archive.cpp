// torch::serialize archives as training programs write checkpoints: the model, the optimizer and a
// counter of the program's own in one archive (nested archives), saved, loaded into a fresh model
// and optimizer, and trained on; plus reads into existing tensors and a missing key.
#include <cstdio>
#include <iostream>
#include <string>

#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  NetImpl() {
    fc1 = register_module("fc1", torch::nn::Linear(3, 4));
    fc2 = register_module("fc2", torch::nn::Linear(4, 1));
  }
  torch::Tensor forward(torch::Tensor x) { return fc2(torch::tanh(fc1(x))); }
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
};
TORCH_MODULE(Net);

double train(Net& net, torch::optim::Adam& opt, const torch::Tensor& x, const torch::Tensor& y, int steps) {
  double loss_value = 0;
  for (int i = 0; i < steps; ++i) {
    opt.zero_grad();
    torch::Tensor loss = torch::mse_loss(net->forward(x), y);
    loss.backward();
    opt.step();
    loss_value = loss.item<double>();
  }
  return loss_value;
}

int main() {
  torch::manual_seed(0);
  torch::Tensor x = torch::randn({16, 3});
  torch::Tensor y = x.sum(1, true).sin();
  Net net;
  torch::optim::Adam opt(net->parameters(), torch::optim::AdamOptions(0.05));
  std::cout << train(net, opt, x, y, 20) << std::endl;

  const std::string path = "serialize_archive_checkpoint.pt";
  {
    torch::serialize::OutputArchive archive;
    net->save(archive);
    torch::serialize::OutputArchive optimizer_archive;
    opt.save(optimizer_archive);
    archive.write("optimizer", optimizer_archive);
    archive.write("epoch", torch::tensor({7}));
    archive.save_to(path);
  }

  torch::manual_seed(1);
  Net resumed;
  torch::optim::Adam resumed_opt(resumed->parameters(), torch::optim::AdamOptions(0.05));
  {
    torch::serialize::InputArchive archive;
    archive.load_from(path);
    resumed->load(archive);
    torch::serialize::InputArchive optimizer_archive;
    archive.read("optimizer", optimizer_archive);
    resumed_opt.load(optimizer_archive);
    torch::Tensor epoch;
    archive.read("epoch", epoch);
    std::cout << "epoch " << epoch.item<int64_t>() << std::endl;
    torch::Tensor existing = torch::zeros({2, 2});
    bool found = archive.try_read("fc1.bias", existing);
    std::cout << found << " " << existing.sizes() << std::endl;
    torch::Tensor missing;
    std::cout << archive.try_read("no_such_tensor", missing) << " " << missing.defined() << std::endl;
    try {
      archive.read("no_such_tensor", missing);
    } catch (const c10::Error& e) {
      std::cout << "caught: no such tensor" << std::endl;
    }
  }
  std::cout << torch::allclose(net->fc1->weight, resumed->fc1->weight) << std::endl;
  double a = train(net, opt, x, y, 5);
  double b = train(resumed, resumed_opt, x, y, 5);
  std::cout << a << " " << b << " " << (a == b) << std::endl;
  std::remove(path.c_str());
}
