// Higher-order gradients with torch::autograd::grad: second derivatives, a Hessian-vector product
// and a gradient penalty that is itself differentiated.
#include <iostream>

#include <torch/torch.h>

int main() {
  torch::Tensor x = torch::tensor({0.5, -1.25, 2.0}, torch::requires_grad());
  torch::Tensor y = (x.pow(3) + x.tanh() * 2).sum();
  // dy/dx with a graph, so it can be differentiated again.
  torch::Tensor dx = torch::autograd::grad({y}, {x}, {}, /*retain_graph=*/true, /*create_graph=*/true)[0];
  std::cout << dx << std::endl;  // 3 x^2 + 2 (1 - tanh^2 x)
  torch::Tensor d2x = torch::autograd::grad({dx.sum()}, {x}, {}, true, true)[0];
  std::cout << d2x << std::endl;  // 6 x - 4 tanh x (1 - tanh^2 x)
  torch::Tensor d3x = torch::autograd::grad({d2x.sum()}, {x})[0];
  std::cout << d3x << std::endl;

  // Hessian-vector product of f(w) = sum(sigmoid(A w)^2).
  torch::manual_seed(3);
  torch::Tensor A = torch::randn({4, 3});
  torch::Tensor w = torch::randn({3}, torch::requires_grad());
  torch::Tensor f = A.matmul(w).sigmoid().pow(2).sum();
  torch::Tensor g = torch::autograd::grad({f}, {w}, {}, true, true)[0];
  torch::Tensor vec = torch::tensor({1.0, 0.5, -1.0});
  torch::Tensor hvp = torch::autograd::grad({(g * vec).sum()}, {w})[0];
  std::cout << f << std::endl << g << std::endl << hvp << std::endl;

  // A gradient penalty: the norm of d(out)/d(input) enters the loss, and backward goes through it.
  torch::nn::Linear layer(3, 2);
  torch::Tensor input = torch::randn({5, 3}, torch::requires_grad());
  torch::Tensor out = layer(input).tanh().sum();
  torch::Tensor din = torch::autograd::grad({out}, {input}, {}, true, true)[0];
  torch::Tensor penalty = (din.norm() - 1).pow(2);
  torch::Tensor loss = out * 0.1 + penalty;
  loss.backward();
  std::cout << penalty << std::endl << layer->weight.grad() << std::endl << layer->bias.grad() << std::endl;

  // grad_outputs weight the outputs; allow_unused returns an undefined gradient.
  torch::Tensor u = torch::tensor({1.0, 2.0}, torch::requires_grad());
  torch::Tensor unused = torch::tensor({3.0}, torch::requires_grad());
  torch::Tensor z = u * u;
  auto grads = torch::autograd::grad({z}, {u, unused}, {torch::tensor({1.0, -1.0})}, false, false, true);
  std::cout << grads[0] << std::endl << grads[1].defined() << std::endl;
}
