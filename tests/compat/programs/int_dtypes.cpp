// The narrow integer dtypes as libtorch programs meet them: image bytes wrapped with from_blob as
// kUInt8 and scaled to float, labels as kInt32, arithmetic that wraps, PyTorch's promotion between
// them, reductions, comparisons, sorting, and conversions from float.
#include <cstdint>
#include <iostream>
#include <vector>

#include <torch/torch.h>

int main() {
  std::vector<uint8_t> pixels = {0, 51, 102, 255, 17, 34, 200, 9};
  torch::Tensor image = torch::from_blob(pixels.data(), {2, 4}, torch::kUInt8);
  std::cout << image << std::endl;
  torch::Tensor x = image.to(torch::kFloat).div(255);
  std::cout << x << std::endl;
  std::cout << static_cast<int>(image.data_ptr<uint8_t>()[3]) << " " << image.element_size() << std::endl;
  std::cout << image + image << std::endl << image * 2 << std::endl << -image << std::endl;
  std::cout << image.sum() << std::endl << image.max() << std::endl << image.argmax(1) << std::endl;
  std::cout << (image > 100) << std::endl << std::get<0>(image.sort(1, true)) << std::endl;

  torch::Tensor labels = torch::tensor({3, 1, 2}, torch::kInt32);
  std::cout << labels << std::endl << labels.to(torch::kLong) << std::endl;
  std::cout << ((labels + torch::tensor({1, 1, 1}, torch::kInt8)).scalar_type() == torch::kInt) << std::endl;
  std::cout << ((image.to(torch::kInt8) + image).scalar_type() == torch::kShort) << std::endl;
  std::cout << (labels * 1.5) << std::endl;
  torch::Tensor shorts = torch::arange(4, torch::kShort);
  std::cout << shorts * 10000 << std::endl;
  torch::Tensor f = torch::tensor({300.7, -1.5, 255.0, -129.9});
  std::cout << f.to(torch::kUInt8) << std::endl << f.to(torch::kInt8) << std::endl << f.to(torch::kInt32) << std::endl;
  std::cout << torch::ones({2, 2}, torch::kByte).cumsum(1) << std::endl;
  return 0;
}
