// ATen's functions for what torch::nn::functional has, called with ATen's argument lists as the
// classic examples do: torch::dropout(x, p, is_training()), torch::linear, torch::batch_norm,
// torch::group_norm, torch::pad, torch::constant_pad_nd, the pooling functions, distances, and the
// in-place activations, through torch:: and at::.
#include <iostream>

#include <torch/torch.h>

int main() {
  torch::manual_seed(5);
  torch::Tensor x = torch::randn({2, 3, 6});
  torch::Tensor w = torch::randn({4, 6}), b = torch::randn({4});
  std::cout << torch::linear(x, w, b) << '\n' << at::linear(x, w) << '\n';
  std::cout << torch::dropout(x, 0.5, /*train=*/false).equal(x) << '\n';
  std::cout << torch::dropout(x, 0.3, /*train=*/true) << '\n';
  std::cout << at::feature_dropout(x, 0.5, true) << '\n';
  torch::Tensor mean = torch::zeros({3}), var = torch::ones({3});
  std::cout << torch::batch_norm(x, torch::ones({3}) * 2, torch::zeros({3}), mean, var, /*training=*/true, 0.1, 1e-5,
                                 /*cudnn_enabled=*/true)
            << '\n'
            << mean << '\n'
            << var << '\n';
  std::cout << torch::instance_norm(x, {}, {}, {}, {}, true, 0.1, 1e-5, false) << '\n';
  std::cout << torch::group_norm(x, 3, torch::ones({3}), torch::zeros({3})) << '\n';
  std::cout << torch::pad(x, {1, 2}) << '\n' << torch::pad(x, {2, 1}, "reflect") << '\n';
  std::cout << torch::pad(x, {1, 1, 1, 0}, "replicate") << '\n' << torch::constant_pad_nd(x, {0, 2}, 7) << '\n';
  std::cout << torch::avg_pool1d(x, {2}) << '\n' << torch::adaptive_avg_pool1d(x, {4}) << '\n';
  auto [values, indices] = torch::adaptive_max_pool1d(x, {2});
  std::cout << values << '\n' << indices << '\n';
  auto [v2, i2] = at::max_pool1d_with_indices(x, {3}, {2});
  std::cout << v2 << '\n' << i2 << '\n';
  torch::Tensor img = torch::randn({1, 4, 3, 3});
  std::cout << torch::pixel_shuffle(img, 2) << '\n';
  auto [mv, mi] = torch::adaptive_max_pool2d(img, {2, 2});
  std::cout << mv << '\n' << mi << '\n';
  std::cout << torch::cosine_similarity(x[0], x[1]) << '\n' << torch::pairwise_distance(x[0], x[1], 3) << '\n';
  torch::Tensor y = x.clone();
  torch::elu_(y, 0.5);
  at::leaky_relu_(y, 0.2);
  torch::hardtanh_(y, -0.5, 0.5);
  std::cout << y << '\n';
  std::cout << at::mse_loss(x, y) << ' ' << at::l1_loss(x, y) << ' ' << at::smooth_l1_loss(x, y) << '\n';

  torch::Tensor a = x.clone().requires_grad_(true);
  (torch::linear(a, w, b).pow(2).sum() + torch::group_norm(a, 3).sum() * 0 + torch::pad(a, {1, 1}, "reflect").sum() +
   torch::avg_pool1d(a, {2}).sum())
      .backward();
  std::cout << a.grad() << '\n';
}
