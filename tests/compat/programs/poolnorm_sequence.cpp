// BatchNorm1d, GroupNorm and pooling over sequences: three SGD steps printing the loss and the
// running statistics, then eval; and the 2-d pooling functions, InstanceNorm2d and a BatchNorm2d
// with momentum None (a cumulative average) on a small batch of images.
#include <iostream>
#include <tuple>

#include <torch/torch.h>

namespace F = torch::nn::functional;

int main() {
  torch::manual_seed(0);
  torch::Tensor x = torch::randn({6, 4, 12});  // (N, C, L)
  torch::Tensor target = torch::randn({6, 3});

  // One module a statement: a call's argument order is unspecified, and the Linear draws its weights.
  torch::nn::Linear fc(4 * 3, 3);
  torch::nn::BatchNorm1d bn(4);
  torch::nn::MaxPool1d max_pool(torch::nn::MaxPool1dOptions(3).stride(2).padding(1));  // 12 -> 6
  torch::nn::GroupNorm gn(2, 4);
  torch::nn::AvgPool1d avg_pool(torch::nn::AvgPool1dOptions(2).ceil_mode(true).count_include_pad(false));  // 6 -> 3
  torch::nn::Sequential model;
  model->push_back(bn);
  model->push_back(max_pool);
  model->push_back(gn);
  model->push_back(avg_pool);
  model->push_back(torch::nn::Flatten());
  model->push_back(fc);
  std::cout << model << std::endl;

  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
  for (int step = 1; step <= 3; ++step) {
    optimizer.zero_grad();
    torch::Tensor loss = torch::mse_loss(model->forward(x), target);
    loss.backward();
    optimizer.step();
    std::cout << "step " << step << " loss " << loss.item<float>() << std::endl;
    std::cout << "running_mean " << bn->running_mean << std::endl;
    std::cout << "running_var " << bn->running_var << std::endl;
    std::cout << "num_batches_tracked " << bn->num_batches_tracked.item<int64_t>() << std::endl;
  }
  std::cout << "bn.weight " << bn->weight << std::endl;
  std::cout << "gn.bias " << gn->bias << std::endl;
  model->eval();
  {
    torch::NoGradGuard no_grad;
    std::cout << "eval " << model->forward(x.slice(0, 0, 2)) << std::endl;
    std::cout << "eval loss " << torch::mse_loss(model->forward(x), target).item<float>() << std::endl;
  }

  // ---- images ----
  torch::Tensor img = torch::randn({2, 3, 5, 7}, torch::requires_grad());
  torch::Tensor m, idx;
  std::tie(m, idx) =
      F::max_pool2d_with_indices(img, F::MaxPool2dFuncOptions({2, 3}).stride(2).padding(1).ceil_mode(true));
  std::cout << "max_pool2d " << m << std::endl << idx << std::endl;
  torch::Tensor a = F::avg_pool2d(img, F::AvgPool2dFuncOptions(3).stride({1, 2}).padding(1).divisor_override(7));
  torch::Tensor g = F::adaptive_avg_pool2d(img, F::AdaptiveAvgPool2dFuncOptions({2, 3}));
  torch::Tensor h = F::adaptive_max_pool2d(img, F::AdaptiveMaxPool2dFuncOptions(2));
  torch::Tensor t = torch::max_pool2d(img, {3, 3}, {2, 2}, {1, 1});
  std::cout << "avg_pool2d " << a << std::endl;
  std::cout << "adaptive " << g << std::endl << h << std::endl;
  (m.sum() + a.square().sum() + g.sum() * 2 + h.sum() + t.sum()).backward();
  std::cout << "img.grad " << img.grad() << std::endl;

  torch::nn::InstanceNorm2d instance(torch::nn::InstanceNorm2dOptions(3).affine(true));
  torch::nn::BatchNorm2d bn2(torch::nn::BatchNorm2dOptions(3).momentum(c10::nullopt));
  std::cout << instance << std::endl << bn2 << std::endl;
  torch::NoGradGuard no_grad;
  std::cout << "instance " << instance(img).select(0, 1).select(0, 2) << std::endl;
  for (int step = 0; step < 2; ++step) bn2(img * (step + 1));
  std::cout << "bn2 running_mean " << bn2->running_mean << std::endl;
  std::cout << "bn2 running_var " << bn2->running_var << std::endl;
  bn2->eval();
  std::cout << "bn2 eval " << bn2(img).select(0, 0).select(0, 1) << std::endl;
}
