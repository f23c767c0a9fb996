// L-BFGS (torch::optim::LBFGS) on the Rosenbrock function with the strong-Wolfe line search, and on
// a least-squares fit with a fixed step, a short history and max_eval: the loss each step() returns
// and the parameters after it, in float64.
#include <iomanip>
#include <iostream>

#include <torch/torch.h>

int main() {
  std::cout << std::setprecision(10);
  {
    torch::Tensor p = torch::tensor({-1.5, 2.0}, torch::dtype(torch::kDouble).requires_grad(true));
    torch::optim::LBFGS opt({p}, torch::optim::LBFGSOptions(1).line_search_fn("strong_wolfe"));
    auto closure = [&] {
      opt.zero_grad();
      torch::Tensor x = p[0], y = p[1];
      torch::Tensor loss = (1 - x).pow(2) + 100 * (y - x * x).pow(2);
      loss.backward();
      return loss;
    };
    for (int step = 0; step < 3; ++step) {
      double loss = opt.step(closure).item<double>();
      std::cout << "rosenbrock step " << step << " loss " << loss << std::endl;
      std::cout << p << std::endl;
    }
  }
  {
    torch::manual_seed(0);
    torch::Tensor x = torch::randn({10, 3}, torch::kDouble);
    torch::Tensor y = torch::randn({10, 2}, torch::kDouble);
    torch::Tensor w = torch::zeros({3, 2}, torch::kDouble).requires_grad_();
    torch::Tensor b = torch::zeros({2}, torch::kDouble).requires_grad_();
    torch::optim::LBFGS opt({w, b}, torch::optim::LBFGSOptions(0.5).max_iter(6).max_eval(5).history_size(2));
    auto closure = [&] {
      opt.zero_grad();
      torch::Tensor loss = (x.matmul(w) + b - y).pow(2).mean();
      loss.backward();
      return loss;
    };
    for (int step = 0; step < 4; ++step) {
      double loss = opt.step(closure).item<double>();
      std::cout << "least squares step " << step << " loss " << loss << std::endl;
    }
    std::cout << w << std::endl << b << std::endl;
  }
}
