// torch::nn::init::calculate_gain with every nonlinearity tag, and the initialisers that take
// nonlinearity and fan-mode tags.
#include <iomanip>
#include <iostream>

#include <torch/torch.h>

int main() {
  std::cout << std::setprecision(10);
  std::cout << torch::nn::init::calculate_gain(torch::kLinear) << std::endl;
  std::cout << torch::nn::init::calculate_gain(torch::kConv1D) << std::endl;
  std::cout << torch::nn::init::calculate_gain(torch::kConv2D) << std::endl;
  std::cout << torch::nn::init::calculate_gain(torch::kConv3D) << std::endl;
  std::cout << torch::nn::init::calculate_gain(torch::kConvTranspose1D) << std::endl;
  std::cout << torch::nn::init::calculate_gain(torch::kConvTranspose2D) << std::endl;
  std::cout << torch::nn::init::calculate_gain(torch::kConvTranspose3D) << std::endl;
  std::cout << torch::nn::init::calculate_gain(torch::kSigmoid) << std::endl;
  std::cout << torch::nn::init::calculate_gain(torch::kTanh) << std::endl;
  std::cout << torch::nn::init::calculate_gain(torch::kReLU) << std::endl;
  std::cout << torch::nn::init::calculate_gain(torch::kLeakyReLU) << std::endl;
  std::cout << torch::nn::init::calculate_gain(torch::kLeakyReLU, 0.2) << std::endl;
  torch::nn::init::NonlinearityType chosen = torch::kTanh;
  std::cout << torch::nn::init::calculate_gain(chosen) << std::endl;

  torch::manual_seed(0);
  torch::Tensor w = torch::empty({3, 4});
  torch::nn::init::xavier_uniform_(w, torch::nn::init::calculate_gain(torch::kTanh));
  std::cout << w << std::endl;
  torch::nn::init::kaiming_normal_(w, 0, torch::kFanOut, torch::kReLU);
  std::cout << w << std::endl;
  torch::nn::init::kaiming_uniform_(w, 0.1, torch::kFanIn, torch::kLeakyReLU);
  std::cout << w << std::endl;
}
