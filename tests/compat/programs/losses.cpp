// Losses and their gradients: MSE, L1, smooth L1 (with beta), cross entropy (class indices, label
// smoothing, ignore_index, reductions), NLL on log_softmax, as modules and as functions.
#include <iostream>

#include <torch/torch.h>

namespace F = torch::nn::functional;

int main() {
  torch::manual_seed(11);
  torch::Tensor input = torch::randn({4, 3}, torch::requires_grad());
  torch::Tensor target = torch::randn({4, 3});

  torch::nn::MSELoss mse;
  torch::Tensor l = mse(input, target);
  l.backward();
  std::cout << l << std::endl << input.grad() << std::endl;
  input.mutable_grad().zero_();

  torch::nn::L1Loss l1(torch::nn::L1LossOptions().reduction(torch::kSum));
  std::cout << l1(input, target) << std::endl;
  torch::nn::SmoothL1Loss huber(torch::nn::SmoothL1LossOptions().beta(0.5));
  l = huber(input * 2, target);
  l.backward();
  std::cout << l << std::endl << input.grad() << std::endl;
  input.mutable_grad().zero_();
  std::cout << F::mse_loss(input, target, F::MSELossFuncOptions(torch::kNone)) << std::endl;

  torch::Tensor logits = torch::randn({5, 4}, torch::requires_grad());
  torch::Tensor classes = torch::tensor({0, 3, 1, 1, 2}, torch::kLong);
  torch::nn::CrossEntropyLoss ce;
  l = ce(logits, classes);
  l.backward();
  std::cout << l << std::endl << logits.grad() << std::endl;
  logits.mutable_grad().zero_();

  l = F::cross_entropy(logits, classes, F::CrossEntropyFuncOptions().label_smoothing(0.2).reduction(torch::kSum));
  l.backward();
  std::cout << l << std::endl << logits.grad() << std::endl;
  logits.mutable_grad().zero_();

  torch::Tensor ignored = torch::tensor({0, -100, 1, -100, 2}, torch::kLong);
  std::cout << F::cross_entropy(logits, ignored) << std::endl;
  std::cout << F::cross_entropy(logits, classes, F::CrossEntropyFuncOptions().reduction(torch::kNone)) << std::endl;

  torch::nn::NLLLoss nll;
  torch::Tensor logp = torch::log_softmax(logits, 1);
  l = nll(logp, classes);
  l.backward();
  std::cout << l << std::endl << logits.grad() << std::endl;
  std::cout << F::nll_loss(logp, classes, F::NLLLossFuncOptions().reduction(torch::kSum)) << std::endl;

  // Multi-dimensional cross entropy: (N, C, d) logits, (N, d) targets.
  torch::Tensor seq = torch::randn({2, 4, 3});
  torch::Tensor seq_targets = torch::tensor({{1, 0, 3}, {2, 2, 0}}, torch::kLong);
  std::cout << F::cross_entropy(seq, seq_targets) << std::endl;
}
