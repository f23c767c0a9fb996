// RReLU, CrossMapLRN2d, F::gumbel_softmax and nn::init's dirac_, eye_ and orthogonal_ as a libtorch
// program uses them: the modules (printing, train/eval, in place), the functional and ATen forms
// (rrelu, rrelu_, rrelu_with_noise), gradients, and seeded draws that must follow libtorch's stream.
#include <iostream>

#include <torch/torch.h>

namespace F = torch::nn::functional;

int main() {
  torch::manual_seed(41);
  torch::nn::RReLU rrelu;
  torch::nn::RReLU rrelu_inplace(torch::nn::RReLUOptions().lower(0.1).upper(0.3).inplace(true));
  torch::nn::CrossMapLRN2d lrn(3);
  torch::nn::CrossMapLRN2d lrn5(torch::nn::CrossMapLRN2dOptions(5).alpha(0.5).beta(0.9).k(2));
  std::cout << rrelu << '\n' << rrelu_inplace << '\n' << lrn << '\n' << lrn5 << '\n';
  torch::nn::Sequential net(torch::nn::Linear(4, 6), torch::nn::RReLU());
  std::cout << net << '\n';

  // RReLU: random slopes while training (one draw per element <= 0), their mean in eval mode.
  torch::Tensor x = torch::randn({3, 5}) * 2;
  std::cout << rrelu(x) << '\n';
  rrelu->eval();
  std::cout << rrelu(x) << '\n';
  torch::Tensor y = x.clone();
  rrelu_inplace(y);
  std::cout << y << '\n';
  std::cout << F::rrelu(x, F::RReLUFuncOptions().lower(0.2).upper(0.6).training(true)) << '\n';
  std::cout << F::rrelu(x, F::RReLUFuncOptions().lower(0.2).upper(0.6)) << '\n';
  std::cout << torch::rrelu(x, 0.05, 0.5, true) << '\n';
  torch::Tensor noise = torch::empty_like(x);
  std::cout << torch::rrelu_with_noise(x, noise, 0.1, 0.2, true) << '\n' << noise << '\n';
  torch::Tensor z = x.clone();
  at::rrelu_(z, 0.3, 0.35, true);
  std::cout << z << '\n';
  std::cout << net->forward(x.narrow(1, 0, 4)) << '\n';

  torch::Tensor a = x.clone().requires_grad_(true);
  F::rrelu(a, F::RReLUFuncOptions().training(true)).pow(2).sum().backward();
  std::cout << a.grad() << '\n';

  // CrossMapLRN2d: forward and libtorch's backward.
  torch::Tensor v = torch::randn({2, 6, 2, 3}) * 3;
  torch::Tensor b = v.clone().requires_grad_(true);
  torch::Tensor out = lrn(b);
  std::cout << out << '\n';
  (out * torch::arange(72).reshape({2, 6, 2, 3}).sin()).sum().backward();
  std::cout << b.grad() << '\n';
  torch::Tensor c = v.clone().requires_grad_(true);
  torch::Tensor out5 = lrn5(c);
  out5.pow(2).sum().backward();
  std::cout << out5 << '\n' << c.grad() << '\n';
  torch::nn::CrossMapLRN2d lrn4(torch::nn::CrossMapLRN2dOptions(4).alpha(0.3).beta(0.6));  // an even window
  torch::Tensor e = v.clone().requires_grad_(true);
  (lrn4(e) * torch::arange(72).reshape({2, 6, 2, 3}).cos()).sum().backward();
  std::cout << e.grad() << '\n';

  // gumbel_softmax: exponential_ draws; the hard sample's gradient is the soft one's.
  torch::Tensor logits = torch::randn({3, 4});
  std::cout << F::gumbel_softmax(logits) << '\n';
  std::cout << F::gumbel_softmax(logits, F::GumbelSoftmaxFuncOptions().tau(0.5).dim(0)) << '\n';
  torch::Tensor l = logits.clone().requires_grad_(true);
  torch::Tensor hard = F::gumbel_softmax(l, F::GumbelSoftmaxFuncOptions().hard(true));
  (hard * torch::arange(12).reshape({3, 4})).sum().backward();
  std::cout << hard << '\n' << l.grad() << '\n';

  // init: dirac_, eye_ and orthogonal_ (float32 draws, then QR).
  torch::Tensor conv = torch::empty({3, 2, 3, 3});
  torch::nn::init::dirac_(conv);
  std::cout << conv.sum() << ' ' << conv[1][1] << '\n';
  torch::Tensor square = torch::empty({3, 4});
  std::cout << torch::nn::init::eye_(square) << '\n';
  torch::Tensor wide = torch::empty({3, 5});
  torch::nn::init::orthogonal_(wide);
  std::cout << wide << '\n'
            << std::boolalpha << ((wide.matmul(wide.t()) - torch::eye(3)).abs().max().item<float>() < 1e-5) << '\n';
  torch::Tensor tall = torch::empty({6, 2});
  torch::nn::init::orthogonal_(tall, 0.5);
  std::cout << tall << '\n';
  torch::Tensor weight = torch::empty({4, 2, 2, 2});
  torch::nn::init::orthogonal_(weight, 2.0);
  std::cout << weight.reshape({4, 8}) << '\n';
  std::cout << torch::randn({2, 3}) << '\n';  // the stream after every draw above

  try {
    torch::nn::init::eye_(torch::empty({2, 2, 2}));
  } catch (const c10::Error&) {
    std::cout << "eye_ refuses a 3-d tensor\n";
  }
  try {
    torch::nn::init::orthogonal_(torch::empty({4}));
  } catch (const c10::Error&) {
    std::cout << "orthogonal_ refuses a 1-d tensor\n";
  }
  try {
    torch::nn::init::dirac_(torch::empty({4, 4}));
  } catch (const c10::Error&) {
    std::cout << "dirac_ refuses a 2-d tensor\n";
  }
}
