// bfloat16 tensors and CPU autocast with libtorch 1.13's C++ spellings: at::autocast::set_cpu_enabled,
// set_autocast_cpu_dtype, is_cpu_enabled, clear_cache; conversion and printing of kBFloat16.
#include <iostream>

#include <ATen/autocast_mode.h>
#include <torch/torch.h>

int main() {
  torch::Tensor x = torch::tensor({1.0f, 1.00390625f, 1.01171875f, 3.14159f, -0.001f, 1e10f});
  torch::Tensor h = x.to(torch::kBFloat16);
  std::cout << h << '\n';
  std::cout << h.to(torch::kFloat) << '\n';
  std::cout << "sum " << h.sum().item<float>() << " bf16 " << (h.sum().scalar_type() == torch::kBFloat16) << '\n';
  std::cout << "promoted to float " << ((h + x).scalar_type() == torch::kFloat) << '\n';

  torch::manual_seed(0);
  torch::nn::Linear lin(4, 3);
  torch::Tensor in = torch::tensor({{0.5f, -1.0f, 2.0f, 0.25f}, {1.0f, 0.0f, -0.5f, 3.0f}});
  at::autocast::set_cpu_enabled(true);
  at::autocast::set_autocast_cpu_dtype(at::kBFloat16);
  std::cout << "enabled " << at::autocast::is_cpu_enabled() << " dtype bf16 "
            << (at::autocast::get_autocast_cpu_dtype() == at::kBFloat16) << '\n';
  torch::Tensor y = lin(in);
  torch::Tensor loss = torch::nn::functional::cross_entropy(y, torch::tensor({0, 2}));
  std::cout << "linear bf16 " << (y.scalar_type() == torch::kBFloat16) << " loss float32 "
            << (loss.scalar_type() == torch::kFloat) << '\n';
  at::autocast::set_cpu_enabled(false);
  at::autocast::clear_cache();
  loss.backward();
  std::cout << "weight grad float32 " << (lin->weight.grad().scalar_type() == torch::kFloat) << '\n';
  std::cout << "enabled " << at::autocast::is_cpu_enabled() << '\n';
}
