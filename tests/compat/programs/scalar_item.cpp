// item() without a type returns a c10::Scalar: converting it and printing it.
#include <iostream>

#include <torch/torch.h>

int main() {
  torch::Tensor f = torch::tensor({2.5f});
  torch::Tensor d = torch::tensor({0.125}, torch::kDouble);
  torch::Tensor l = torch::tensor({7}, torch::kLong);
  torch::Tensor b = torch::tensor({true});
  std::cout << "float item: " << f.item() << '\n';
  std::cout << "double item: " << d.item() << '\n';
  std::cout << "long item: " << l.item() << '\n';
  std::cout << "bool item: " << b.item() << '\n';
  torch::Scalar s = f.sum().item();
  std::cout << "toFloat " << s.toFloat() << " toDouble " << s.toDouble() << " toLong " << s.toLong() << '\n';
  std::cout << "to<float> " << s.to<float>() << " to<int64_t> " << s.to<int64_t>() << '\n';
  std::cout << "isFloatingPoint " << s.isFloatingPoint() << " isIntegral " << l.item().isIntegral(false) << '\n';
  std::cout << "item<int> " << l.item<int>() << " item<double> " << f.item<double>() << '\n';
  torch::Tensor x = torch::arange(6, torch::kFloat).reshape({2, 3});
  float total = x.sum().item().toFloat();
  double mean = x.mean().item().toDouble();
  int64_t argmax = x.argmax().item().toLong();
  std::cout << "sum " << total << " mean " << mean << " argmax " << argmax << '\n';
  try {
    x.item();
  } catch (const c10::Error&) {
    std::cout << "item of a 6-element tensor throws c10::Error\n";
  }
}
