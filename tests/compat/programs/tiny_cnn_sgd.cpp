// A tiny CNN (conv -> relu -> conv -> flatten -> linear) trained for 3 SGD steps on fixed data:
// nn::Conv2d with padding and stride, the conv functions (groups, "same", transposed, unfold / fold)
// and their gradients, as libtorch computes them.
#include <iomanip>
#include <iostream>

#include <torch/torch.h>

namespace F = torch::nn::functional;

int main() {
  torch::manual_seed(0);
  torch::Tensor x = torch::randn({4, 1, 8, 8});
  torch::Tensor labels = torch::tensor({0, 1, 2, 1}, torch::kLong);

  // One layer per statement: each draws its initial weights in this order.
  torch::nn::Conv2d conv1(torch::nn::Conv2dOptions(1, 4, 3).stride(1).padding(1));
  torch::nn::Conv2d conv2(torch::nn::Conv2dOptions(4, 6, 3).stride(2));
  torch::nn::Linear fc(6 * 3 * 3, 3);
  torch::nn::Sequential model(conv1, torch::nn::ReLU(), conv2, torch::nn::Flatten(), fc);
  std::cout << model << std::endl;

  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1));
  std::cout << std::fixed << std::setprecision(6);
  for (int step = 1; step <= 3; ++step) {
    optimizer.zero_grad();
    torch::Tensor loss = F::cross_entropy(model->forward(x), labels);
    loss.backward();
    std::cout << "step " << step << " loss " << loss.item<float>() << " conv1 grad sum "
              << conv1->weight.grad().sum().item<float>() << " conv2 bias grad sum "
              << conv2->bias.grad().sum().item<float>() << std::endl;
    optimizer.step();
  }
  std::cout << std::defaultfloat;

  // The functions: groups and "same" padding, transposed convolution, unfold / fold.
  torch::Tensor w = torch::randn({4, 2, 2, 3}, torch::requires_grad());
  torch::Tensor h = torch::randn({2, 4, 5, 5}, torch::requires_grad());
  torch::Tensor same = F::conv2d(h, w, F::Conv2dFuncOptions().padding(torch::kSame).groups(2));
  std::cout << same.sizes() << " " << same.sum().item<float>() << std::endl;
  torch::Tensor up = F::conv_transpose2d(h, torch::randn({4, 3, 3, 3}),
                                         F::ConvTranspose2dFuncOptions().stride(2).padding(1).output_padding(1));
  std::cout << up.sizes() << " " << up.sum().item<float>() << std::endl;
  (same.square().sum() + up.sum()).backward();
  std::cout << h.grad().sum().item<float>() << " " << w.grad().sum().item<float>() << std::endl;
  torch::Tensor cols = F::unfold(h, F::UnfoldFuncOptions({2, 3}).padding(1).stride(2));
  std::cout << cols.sizes() << std::endl;
  torch::Tensor back = F::fold(cols, F::FoldFuncOptions({5, 5}, {2, 3}).padding(1).stride(2));
  std::cout << back.slice(2, 0, 2).slice(3, 0, 3) << std::endl;
  std::cout << torch::nn::Conv1d(torch::nn::Conv1dOptions(2, 3, 4).padding(torch::kValid).bias(false)) << std::endl;
  std::cout << torch::nn::ConvTranspose2d(torch::nn::ConvTranspose2dOptions(4, 2, 3).stride(2).groups(2)) << std::endl;
}
