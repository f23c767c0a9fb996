// The rest of torch::nn's activations and dropouts as a libtorch program uses them: ReLU6,
// Hardshrink, Softshrink, Tanhshrink, GLU, Softmax2d, F::normalize, Dropout3d, AlphaDropout and
// FeatureAlphaDropout (modules, printing, train/eval), and their ATen functions.
#include <iostream>

#include <torch/torch.h>

namespace F = torch::nn::functional;

int main() {
  torch::manual_seed(23);
  torch::nn::Sequential net(torch::nn::Linear(4, 6), torch::nn::ReLU6(), torch::nn::Hardshrink(0.2),
                            torch::nn::Softshrink(torch::nn::SoftshrinkOptions(0.1)), torch::nn::Tanhshrink(),
                            torch::nn::GLU(), torch::nn::AlphaDropout(0.2), torch::nn::FeatureAlphaDropout(0.1));
  std::cout << net << '\n';
  torch::Tensor x = torch::randn({5, 4}) * 3;
  net->eval();
  std::cout << net->forward(x) << '\n';
  net->train();
  std::cout << net->forward(x) << '\n';

  torch::nn::Dropout3d d3(torch::nn::Dropout3dOptions(0.4).inplace(false));
  torch::nn::Softmax2d sm;
  torch::nn::ReLU6 r6(true);
  std::cout << d3 << '\n' << sm << '\n' << r6 << '\n' << torch::nn::GLU(0) << '\n';
  torch::Tensor v = torch::randn({2, 3, 2, 2, 2});
  std::cout << d3(v) << '\n' << sm(v[0]) << '\n';
  std::cout << F::normalize(x, F::NormalizeFuncOptions().p(1).dim(0)) << '\n';
  std::cout << F::glu(x, F::GLUFuncOptions(1)) << '\n'
            << F::hardshrink(x, F::HardshrinkFuncOptions().lambda(1.5)) << '\n';
  std::cout << torch::relu6(x) << '\n' << torch::softshrink(x, 2) << '\n' << torch::glu(x.narrow(0, 0, 4), 0) << '\n';
  std::cout << F::alpha_dropout(x, F::AlphaDropoutFuncOptions().p(0.5).training(true)) << '\n';
  std::cout << F::dropout3d(v, F::Dropout3dFuncOptions().p(0.5)).sum() << '\n';

  torch::Tensor a = x.clone().requires_grad_(true);
  (F::relu6(a * 2).sum() + F::hardshrink(a).pow(2).sum() + F::softshrink(a).sum() + F::tanhshrink(a).sum() +
   F::glu(a).sum() + F::normalize(a).pow(3).sum())
      .backward();
  std::cout << a.grad() << '\n';
}
