// torch::set_default_dtype / get_default_dtype: what factories and promotion produce.
#include <iostream>

#include <torch/torch.h>

void show(const char* what, const torch::Tensor& t) {
  std::cout << what << ": "
            << (t.dtype() == torch::kDouble  ? "double"
                : t.dtype() == torch::kFloat ? "float"
                                             : "other")
            << '\n';
}

int main() {
  std::cout << "default is float: " << (torch::get_default_dtype() == torch::kFloat) << '\n';
  torch::set_default_dtype(caffe2::TypeMeta::Make<double>());
  std::cout << "default is double: " << (torch::get_default_dtype() == torch::kDouble) << '\n';
  show("ones", torch::ones({2}));
  show("zeros", torch::zeros({2}));
  show("empty", torch::empty({2}));
  show("full 0.5", torch::full({2}, 0.5));
  show("rand", torch::rand({2}));
  show("randn", torch::randn({2}));
  show("linspace", torch::linspace(0, 1, 3));
  show("arange 0.5", torch::arange(0.5, 2.0, 0.5));
  show("tensor {1.5}", torch::tensor({1.5, 2.5}));
  show("long * 2.5", torch::tensor({1, 2}) * 2.5);
  show("long / 2", torch::tensor({1, 2}) / 2);
  show("exp(long)", torch::exp(torch::tensor({1, 2})));
  show("explicit float", torch::ones({2}, torch::kFloat));
  std::cout << "arange 5 stays long: " << (torch::arange(5).dtype() == torch::kLong) << '\n';
  torch::manual_seed(0);
  std::cout << torch::rand({3}) << '\n';
  torch::nn::Linear linear(2, 1);
  show("Linear weight", linear->weight);
  std::cout << torch::tensor({1.0, 2.0}) / 3 << '\n';

  torch::set_default_dtype(torch::scalarTypeToTypeMeta(torch::kFloat));
  std::cout << "back to float: " << (torch::get_default_dtype() == torch::kFloat) << '\n';
  show("ones", torch::ones({2}));
  show("long * 2.5", torch::tensor({1, 2}) * 2.5);
}
