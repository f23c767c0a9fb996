// Padding, interpolation and pixel shuffling: F::pad in every mode (negative amounts too), the padding
// modules and Upsample as printed, F::interpolate in every mode, PixelShuffle / PixelUnshuffle, and
// the gradients that flow back through a pad and a resize.
#include <iomanip>
#include <iostream>

#include <torch/torch.h>

namespace F = torch::nn::functional;

int main() {
  std::cout << std::setprecision(6);
  torch::Tensor x = torch::arange(24, torch::kFloat32).reshape({1, 2, 3, 4}).sin();

  std::cout << F::pad(x[0], F::PadFuncOptions({1, 2}).mode(torch::kReflect)) << std::endl;
  try {
    F::pad(x, F::PadFuncOptions({1, 2}).mode(torch::kReflect));
  } catch (const c10::Error&) {
    std::cout << "reflect padding of the last dim of a 4-d input: error" << std::endl;
  }
  std::cout << F::pad(x, F::PadFuncOptions({2, 0, 1, 1}).mode(torch::kReplicate)) << std::endl;
  std::cout << F::pad(x, F::PadFuncOptions({1, -1, 2, 1}).mode(torch::kCircular)) << std::endl;
  std::cout << F::pad(x, F::PadFuncOptions({-1, 2, 0, -2}).value(0.5)) << std::endl;

  torch::nn::ReflectionPad2d reflect(torch::nn::ReflectionPad2dOptions({1, 0, 2, 1}));
  torch::nn::ReplicationPad1d replicate(2);
  torch::nn::ZeroPad2d zero(1);
  torch::nn::ConstantPad3d constant(torch::nn::ConstantPad3dOptions({1, 0, 0, 1, 1, 0}, 2.5));
  std::cout << reflect << std::endl << replicate << std::endl << zero << std::endl << constant << std::endl;
  std::cout << reflect(x).sizes() << " " << replicate(x[0]).sizes() << " " << zero(x).sizes() << " "
            << constant(x).sizes() << std::endl;
  std::cout << constant(x).sum() << std::endl;

  torch::Tensor line = torch::arange(5, torch::kFloat32).reshape({1, 1, 5}).cos();
  std::cout << F::interpolate(line, F::InterpolateFuncOptions().scale_factor(std::vector<double>{1.7})) << std::endl;
  std::cout << F::interpolate(
                   line,
                   F::InterpolateFuncOptions().size(std::vector<int64_t>{8}).mode(torch::kLinear).align_corners(true))
            << std::endl;
  std::cout << F::interpolate(line, F::InterpolateFuncOptions().size(std::vector<int64_t>{2}).mode(torch::kArea))
            << std::endl;
  std::cout << F::interpolate(x, F::InterpolateFuncOptions()
                                     .scale_factor(std::vector<double>{1.5, 0.75})
                                     .mode(torch::kBilinear)
                                     .align_corners(false))
            << std::endl;
  std::cout
      << F::interpolate(
             x, F::InterpolateFuncOptions().size(std::vector<int64_t>{4, 6}).mode(torch::kBicubic).align_corners(false))
      << std::endl;
  torch::Tensor cube = torch::arange(12, torch::kFloat32).reshape({1, 1, 2, 3, 2}).cos();
  std::cout << F::interpolate(cube, F::InterpolateFuncOptions()
                                        .size(std::vector<int64_t>{3, 2, 3})
                                        .mode(torch::kTrilinear)
                                        .align_corners(true))
            << std::endl;

  torch::nn::Upsample up(
      torch::nn::UpsampleOptions().scale_factor(std::vector<double>{2, 2}).mode(torch::kBilinear).align_corners(true));
  torch::nn::Upsample up_size(torch::nn::UpsampleOptions().size(std::vector<int64_t>{5, 5}));
  std::cout << up << std::endl << up_size << std::endl;
  std::cout << up(x).sizes() << " " << up_size(x).sum() << std::endl;

  torch::nn::PixelShuffle shuffle(2);
  torch::nn::PixelUnshuffle unshuffle(2);
  std::cout << shuffle << std::endl << unshuffle << std::endl;
  torch::Tensor channels = torch::arange(16, torch::kFloat32).reshape({1, 4, 2, 2});
  std::cout << shuffle(channels) << std::endl;
  std::cout << torch::equal(unshuffle(shuffle(channels)), channels) << std::endl;

  torch::Tensor leaf = x.clone().requires_grad_(true);
  torch::Tensor y = F::interpolate(
      F::pad(leaf, F::PadFuncOptions({1, 1, 1, 0}).mode(torch::kReflect)),
      F::InterpolateFuncOptions().size(std::vector<int64_t>{5, 7}).mode(torch::kBicubic).align_corners(true));
  (y * y).sum().backward();
  std::cout << leaf.grad() << std::endl;
}
