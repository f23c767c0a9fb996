// The optimizers' updates on the Rosenbrock function: SGD (plain, momentum with dampening,
// Nesterov, weight decay), Adam (with and without amsgrad and weight decay) and AdamW, parameter
// groups with their own options, and changing the learning rate between steps.
#include <iostream>

#include <torch/torch.h>

torch::Tensor rosenbrock(const torch::Tensor& p) {
  torch::Tensor x = p[0], y = p[1];
  return (1 - x).pow(2) + 100 * (y - x * x).pow(2);
}

template <typename Optimizer>
torch::Tensor minimise(Optimizer& optimizer, torch::Tensor& p, int steps) {
  for (int i = 0; i < steps; ++i) {
    optimizer.zero_grad();
    torch::Tensor loss = rosenbrock(p);
    loss.backward();
    optimizer.step();
  }
  return p.detach().clone();
}

int main() {
  auto start = [] { return torch::tensor({-1.5, 2.0}, torch::requires_grad()); };
  {
    torch::Tensor p = start();
    torch::optim::SGD opt({p}, torch::optim::SGDOptions(1e-4));
    std::cout << minimise(opt, p, 20) << std::endl;
  }
  {
    torch::Tensor p = start();
    torch::optim::SGD opt({p}, torch::optim::SGDOptions(1e-4).momentum(0.9).dampening(0.1));
    std::cout << minimise(opt, p, 20) << std::endl;
  }
  {
    torch::Tensor p = start();
    torch::optim::SGD opt({p}, torch::optim::SGDOptions(1e-4).momentum(0.8).nesterov(true).weight_decay(0.1));
    std::cout << minimise(opt, p, 20) << std::endl;
  }
  {
    torch::Tensor p = start();
    torch::optim::Adam opt({p}, torch::optim::AdamOptions(0.05));
    std::cout << minimise(opt, p, 25) << std::endl;
  }
  {
    torch::Tensor p = start();
    torch::optim::Adam opt({p}, torch::optim::AdamOptions(0.05).betas({0.8, 0.9}).amsgrad(true).weight_decay(0.01));
    std::cout << minimise(opt, p, 25) << std::endl;
  }
  {
    torch::Tensor p = start();
    torch::optim::AdamW opt({p}, torch::optim::AdamWOptions(0.05).eps(1e-6).weight_decay(0.5));
    std::cout << minimise(opt, p, 25) << std::endl;
  }
  {
    // Two groups: the second with its own learning rate; then every rate divided by 10.
    torch::Tensor a = torch::tensor({0.5, -0.5}, torch::requires_grad());
    torch::Tensor b = torch::tensor({2.0}, torch::requires_grad());
    std::vector<torch::optim::OptimizerParamGroup> groups;
    groups.emplace_back(std::vector<torch::Tensor>{a});
    groups.emplace_back(std::vector<torch::Tensor>{b}, std::make_unique<torch::optim::AdamOptions>(0.5));
    torch::optim::Adam opt(groups, torch::optim::AdamOptions(0.1));
    for (int i = 0; i < 6; ++i) {
      if (i == 3) {
        for (auto& group : opt.param_groups()) {
          auto& options = static_cast<torch::optim::AdamOptions&>(group.options());
          options.lr(options.lr() / 10);
        }
      }
      opt.zero_grad();
      torch::Tensor loss = (a * a).sum() + (b - 1).pow(2).sum() * 3;
      loss.backward();
      opt.step();
    }
    std::cout << a << std::endl << b << std::endl;
  }
}
