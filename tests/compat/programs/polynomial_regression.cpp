// Polynomial regression with SGD, after PyTorch's examples/regression: fit a random cubic
// y = w . (x, x^2, x^3) + b with a Linear layer and the smooth L1 loss.
#include <iomanip>
#include <iostream>

#include <torch/torch.h>

constexpr int64_t kDegree = 3;

// (x, x^2, x^3) for a batch of x: (N) -> (N, 3)
torch::Tensor make_features(const torch::Tensor& x) {
  torch::Tensor column = x.unsqueeze(1);
  std::vector<torch::Tensor> powers;
  for (int64_t i = 1; i <= kDegree; ++i) powers.push_back(column.pow(i));
  return torch::cat(powers, 1);
}

int main() {
  torch::manual_seed(42);
  torch::Tensor w_target = torch::randn({kDegree, 1}) * 5;
  torch::Tensor b_target = torch::randn({1}) * 5;
  std::cout << w_target << std::endl << b_target << std::endl;

  torch::nn::Linear fc(kDegree, 1);
  torch::optim::SGD optimizer(fc->parameters(), torch::optim::SGDOptions(0.1));
  std::cout << std::fixed << std::setprecision(6);
  for (int step = 1; step <= 30; ++step) {
    torch::Tensor x = make_features(torch::randn({32}));
    torch::Tensor y = x.mm(w_target) + b_target.item<float>();
    optimizer.zero_grad();
    torch::Tensor loss = torch::smooth_l1_loss(fc(x), y);
    loss.backward();
    optimizer.step();
    if (step % 5 == 0) std::cout << "step " << step << " loss " << loss.item<float>() << std::endl;
  }
  std::cout << std::defaultfloat;
  std::cout << fc->weight << std::endl << fc->bias << std::endl;

  // The other losses on the final fit, and SGD with momentum, Nesterov and weight decay.
  torch::Tensor x = make_features(torch::randn({8}));
  torch::Tensor y = x.mm(w_target) + b_target.item<float>();
  std::cout << torch::mse_loss(fc(x), y) << std::endl << torch::l1_loss(fc(x), y) << std::endl;
  std::cout << torch::smooth_l1_loss(fc(x), y, torch::Reduction::Sum, 0.5) << std::endl;
  torch::optim::SGD momentum(fc->parameters(),
                             torch::optim::SGDOptions(0.01).momentum(0.9).nesterov(true).weight_decay(1e-3));
  for (int step = 0; step < 5; ++step) {
    momentum.zero_grad();
    torch::Tensor loss = torch::nn::functional::mse_loss(fc(x), y);
    loss.backward();
    momentum.step();
  }
  std::cout << fc->weight << std::endl << fc->bias << std::endl;
}
