// torch::nn::Functional: a free function, a function with bound arguments and a lambda as modules,
// alone and inside a Sequential.
#include <iostream>

#include <torch/torch.h>

torch::Tensor square_plus_one(torch::Tensor x) { return x * x + 1; }
torch::Tensor shift(torch::Tensor x, double by) { return x + by; }

int main() {
  torch::manual_seed(2);
  torch::nn::Functional relu(torch::relu);
  torch::nn::Functional square(square_plus_one);
  torch::nn::Functional lambda([](torch::Tensor x) { return x.clamp(-0.5, 0.5); });
  torch::nn::Functional shifted(shift, /*by=*/0.25);
  torch::Tensor x = torch::randn({2, 3});
  std::cout << relu(x) << std::endl << square(x) << std::endl << lambda(x) << std::endl << shifted(x) << std::endl;

  // Built one statement at a time: the order of a call's arguments is unspecified (GCC builds the
  // last first, Clang the first), and each Linear draws its initial weights from the generator.
  torch::nn::Linear out(3, 1);
  torch::nn::Linear in(3, 3);
  torch::nn::Sequential seq(in, torch::nn::Functional(torch::tanh),
                            torch::nn::Functional([](torch::Tensor t) { return t * 2; }), out);
  std::cout << seq->forward(x) << std::endl;
  std::cout << seq->size() << " " << seq->parameters().size() << std::endl;
  std::cout << seq << std::endl;
  std::cout << relu->name() << std::endl;
}
