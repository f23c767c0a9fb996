// torch::nn::functional and the activation modules: linear, gelu (exact and tanh), relu, softmax and
// log_softmax, layer_norm, embedding, one_hot, dropout in eval, with gradients.
#include <iostream>

#include <torch/torch.h>

namespace F = torch::nn::functional;

int main() {
  torch::manual_seed(99);
  torch::Tensor x = torch::randn({3, 4}, torch::requires_grad());
  torch::Tensor w = torch::randn({2, 4});
  torch::Tensor b = torch::randn({2});
  std::cout << F::linear(x, w, b) << std::endl;
  std::cout << F::gelu(x) << std::endl << F::gelu(x, F::GELUFuncOptions().approximate("tanh")) << std::endl;
  std::cout << F::relu(x) << std::endl << torch::nn::ReLU()(x).sum() << std::endl;
  std::cout << F::softmax(x, F::SoftmaxFuncOptions(1)) << std::endl << F::log_softmax(x, 0) << std::endl;
  std::cout << torch::nn::Softmax(0)(x) << std::endl << torch::nn::GELU()(x).sum() << std::endl;

  torch::Tensor gamma = torch::tensor({1.0, 0.5, 2.0, -1.0});
  torch::Tensor beta = torch::tensor({0.0, 0.1, 0.2, 0.3});
  torch::Tensor ln = F::layer_norm(x, F::LayerNormFuncOptions({4}).weight(gamma).bias(beta).eps(1e-5));
  std::cout << ln << std::endl;
  (ln * ln.detach()).sum().backward();
  std::cout << x.grad() << std::endl;

  torch::Tensor table = torch::randn({5, 2}, torch::requires_grad());
  torch::Tensor ids = torch::tensor({{0, 4}, {4, 2}}, torch::kLong);
  torch::Tensor looked_up = F::embedding(ids, table);
  std::cout << looked_up << std::endl;
  looked_up.sum().backward();
  std::cout << table.grad() << std::endl;
  std::cout << F::one_hot(torch::tensor({2, 0, 1}, torch::kLong), 4) << std::endl;
  std::cout << torch::equal(F::dropout(x, F::DropoutFuncOptions().p(0.3).training(false)), x) << std::endl;
}
