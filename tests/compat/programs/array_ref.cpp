// at::IntArrayRef, at::ArrayRef<T> and at::TensorList where libtorch functions take them.
#include <iostream>
#include <vector>

#include <torch/torch.h>

int64_t product(at::IntArrayRef sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

torch::Tensor concat_rows(at::TensorList tensors) { return torch::cat(tensors, 0); }

double total(c10::ArrayRef<double> values) {
  double t = 0;
  for (double v : values) t += v;
  return t;
}

int main() {
  torch::Tensor x = torch::arange(24, torch::kFloat).reshape({2, 3, 4});
  at::IntArrayRef sizes = x.sizes();
  std::cout << sizes << ' ' << sizes.size() << ' ' << sizes[1] << ' ' << sizes.back() << ' ' << product(sizes) << '\n';
  std::vector<int64_t> shape = sizes.vec();
  shape.back() = 2;
  shape.push_back(2);
  std::cout << x.view(shape).sizes() << '\n';
  std::cout << product({5, 6}) << ' ' << product(shape) << '\n';
  std::cout << (x.sizes() == at::IntArrayRef({2, 3, 4})) << ' ' << x.strides() << '\n';
  at::IntArrayRef tail = sizes.slice(1);
  std::cout << tail << ' ' << sizes.slice(0, 2) << '\n';
  std::vector<torch::Tensor> parts = {torch::ones({1, 2}), torch::zeros({2, 2})};
  std::cout << concat_rows(parts) << '\n';
  std::cout << concat_rows({torch::full({1, 2}, 7.0), torch::full({1, 2}, 8.0)}) << '\n';
  std::vector<double> vals = {0.5, 1.5, 2.0};
  std::cout << total(vals) << ' ' << total({1.0, 2.0}) << '\n';
  std::cout << x.permute(at::IntArrayRef{2, 0, 1}).sizes() << ' ' << x.sum(at::IntArrayRef{0, 2}) << '\n';
}
