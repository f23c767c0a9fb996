// A two-layer MLP trained with Adam on a synthetic 3-class problem: nn::Sequential, ReLU,
// cross_entropy, argmax accuracy, eval mode.
#include <iomanip>
#include <iostream>

#include <torch/torch.h>

int main() {
  torch::manual_seed(0);
  const int64_t n = 64;
  torch::Tensor x = torch::randn({n, 4});
  // Class = which of three fixed directions x points to most.
  torch::Tensor directions = torch::randn({4, 3});
  torch::Tensor labels = x.matmul(directions).argmax(1);
  std::cout << labels.slice(0, 0, 16) << std::endl;

  // The layers are built before the call, last first: each draws its initial weights, and the order a
  // call evaluates its arguments in is unspecified (GCC, which wrote expected/, goes right to left).
  torch::nn::Linear fc2(16, 3);
  torch::nn::Linear fc1(4, 16);
  torch::nn::Sequential model(fc1, torch::nn::ReLU(), fc2);
  torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(1e-2));
  std::cout << std::fixed << std::setprecision(5);
  for (int epoch = 1; epoch <= 40; ++epoch) {
    optimizer.zero_grad();
    torch::Tensor logits = model->forward(x);
    torch::Tensor loss = torch::nn::functional::cross_entropy(logits, labels);
    loss.backward();
    optimizer.step();
    if (epoch % 10 == 0) {
      double accuracy = logits.argmax(1).eq(labels).to(torch::kFloat).mean().item<double>();
      std::cout << "epoch " << epoch << " loss " << loss.item<float>() << " accuracy " << accuracy << std::endl;
    }
  }
  std::cout << std::defaultfloat;
  model->eval();
  torch::NoGradGuard no_grad;
  torch::Tensor probs = torch::softmax(model->forward(x.slice(0, 0, 4)), 1);
  std::cout << probs << std::endl;
  int64_t count = 0;
  for (const auto& p : model->parameters()) count += p.numel();
  std::cout << "parameters: " << count << std::endl;
}
