// libtorch's autograd checks: backward's `inputs` (empty, non-leaf, not requiring grad) and grad's allow_unused.
#include <iostream>
#include <string>

#include <torch/torch.h>

std::string first_line(const char* what) {
  std::string s(what);
  return s.substr(0, s.find('\n'));
}

int main() {
  torch::Tensor x = torch::tensor({1.0, 2.0}, torch::requires_grad());
  torch::Tensor y = torch::tensor({3.0, 4.0}, torch::requires_grad());
  torch::Tensor unused = torch::tensor({5.0}, torch::requires_grad());

  // An explicitly empty `inputs` list is an error.
  try {
    (x * y).sum().backward({}, c10::nullopt, false, std::vector<torch::Tensor>{});
  } catch (const c10::Error& e) {
    std::cout << "empty inputs: " << first_line(e.what()) << '\n';
  }
  // `inputs` limits accumulation to those tensors.
  (x * y).sum().backward({}, c10::nullopt, false, std::vector<torch::Tensor>{x});
  std::cout << x.grad() << ' ' << y.grad().defined() << '\n';
  // A non-leaf in `inputs` retains its gradient.
  torch::Tensor h = x * 2;
  (h * y).sum().backward({}, c10::nullopt, false, std::vector<torch::Tensor>{h, y});
  std::cout << h.grad() << ' ' << h.retains_grad() << '\n' << y.grad() << '\n';
  std::cout << x.grad() << '\n';
  // An input that does not require grad.
  try {
    (x * 2).sum().backward({}, c10::nullopt, false, std::vector<torch::Tensor>{torch::ones({2})});
  } catch (const c10::Error& e) {
    const std::string m = first_line(e.what());
    std::cout << "input without grad: " << (m.find("requires_grad=False") != std::string::npos) << '\n';
  }

  // grad(): an input the outputs do not depend on.
  torch::Tensor out = (x * y).sum();
  try {
    torch::autograd::grad({out}, {x, unused}, {}, /*retain_graph=*/true);
  } catch (const c10::Error& e) {
    std::cout << "allow_unused=false: " << first_line(e.what()) << '\n';
  }
  auto grads = torch::autograd::grad({out}, {x, unused}, {}, /*retain_graph=*/true, false, /*allow_unused=*/true);
  std::cout << grads[0] << ' ' << grads[1].defined() << '\n';
  try {
    torch::autograd::grad({out}, {torch::ones({1})}, {}, true);
  } catch (const c10::Error& e) {
    std::cout << "grad of a tensor without grad: " << first_line(e.what()) << '\n';
  }
  try {
    torch::ones({2}).sum().backward();
  } catch (const c10::Error& e) {
    std::cout << "backward of a constant: " << first_line(e.what()) << '\n';
  }
  try {
    out.backward();
    out.backward();
  } catch (const c10::Error& e) {
    std::cout << "second backward: c10::Error\n";
  }
}
