// Sampling grids and pairwise distances: F::affine_grid in 2-d and 3-d, F::grid_sample in its modes
// and padding modes (bicubic through ATen's grid_sampler, mode 2), the ATen spellings grid_sampler_2d /
// _3d and affine_grid_generator, F::pdist and torch::pdist, and the gradients that flow back to the
// input, the grid, theta and pdist's rows.
#include <iomanip>
#include <iostream>
#include <limits>

#include <torch/torch.h>

namespace F = torch::nn::functional;

int main() {
  std::cout << std::setprecision(6);
  torch::Tensor x = torch::arange(24, torch::kFloat32).reshape({1, 2, 3, 4}).sin();
  torch::Tensor theta = torch::tensor({0.9, -0.3, 0.1, 0.25, 1.1, -0.2}, torch::kFloat32).reshape({1, 2, 3});

  torch::Tensor grid = F::affine_grid(theta, {1, 2, 2, 3}, /*align_corners=*/false);
  std::cout << grid << std::endl;
  std::cout << F::affine_grid(theta, {1, 2, 3, 2}, true) << std::endl;
  std::cout << torch::affine_grid_generator(theta, {1, 1, 2, 2}, false) << std::endl;

  torch::Tensor wide = grid * 1.7;  // points outside [-1, 1]
  std::cout << F::grid_sample(x, wide, F::GridSampleFuncOptions().align_corners(false)) << std::endl;
  std::cout << F::grid_sample(
                   x, wide,
                   F::GridSampleFuncOptions().mode(torch::kNearest).padding_mode(torch::kBorder).align_corners(true))
            << std::endl;
  std::cout << F::grid_sample(x, wide, F::GridSampleFuncOptions().padding_mode(torch::kReflection).align_corners(false))
            << std::endl;
  std::cout << torch::grid_sampler(x, wide, /*bicubic*/ 2, /*reflection*/ 2, false) << std::endl;
  std::cout << at::grid_sampler_2d(x, wide * 2, /*bilinear*/ 0, /*reflection*/ 2, true) << std::endl;

  torch::Tensor cube = torch::arange(24, torch::kFloat32).reshape({1, 1, 2, 3, 4}).cos();
  torch::Tensor theta3 =
      torch::tensor({0.9, -0.3, 0.1, 0.2, 0.25, 1.1, -0.2, 0.0, 0.1, 0.3, 0.7, -0.1}, torch::kFloat32)
          .reshape({1, 3, 4});
  torch::Tensor grid3 = F::affine_grid(theta3, {1, 1, 2, 2, 3}, false) * 1.3;
  std::cout << grid3.sizes() << std::endl;
  std::cout << F::grid_sample(cube, grid3, F::GridSampleFuncOptions().padding_mode(torch::kBorder).align_corners(false))
            << std::endl;
  std::cout << at::grid_sampler_3d(cube, grid3, /*nearest*/ 1, /*zeros*/ 0, true) << std::endl;
  try {
    torch::grid_sampler(cube, grid3, 2, 0, false);
  } catch (const c10::Error&) {
    std::cout << "bicubic on a 5-d input: error" << std::endl;
  }
  try {
    F::affine_grid(theta, {1, 1, 2, 2, 2});
  } catch (const c10::Error&) {
    std::cout << "2-d theta for a 5-d size: error" << std::endl;
  }

  torch::Tensor rows = torch::arange(12, torch::kFloat32).reshape({4, 3}).sin();
  std::cout << F::pdist(rows) << std::endl;
  std::cout << F::pdist(rows, 1) << std::endl;
  std::cout << torch::pdist(rows, std::numeric_limits<double>::infinity()) << std::endl;
  std::cout << at::pdist(rows, 0) << std::endl;

  // A spatial transformer's gradients: input, theta, and pdist's rows.
  torch::Tensor leaf = x.clone().requires_grad_(true);
  torch::Tensor t = theta.clone().requires_grad_(true);
  torch::Tensor y = F::grid_sample(leaf, F::affine_grid(t, {1, 2, 3, 3}, false) * 1.2,
                                   F::GridSampleFuncOptions().padding_mode(torch::kReflection).align_corners(false));
  (y * y).sum().backward();
  std::cout << leaf.grad() << std::endl;
  std::cout << t.grad() << std::endl;

  torch::Tensor r = rows.clone().requires_grad_(true);
  torch::Tensor g = torch::grid_sampler(leaf.detach(), F::affine_grid(t, {1, 2, 2, 2}, true), 2, 1, true);
  (F::pdist(r, 3).sum() + g.sum()).backward();
  std::cout << r.grad() << std::endl;
  std::cout << t.grad() << std::endl;
}
