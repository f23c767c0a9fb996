// ATen's function forms of Tensor methods (torch::transpose(x, 0, 1)) and their out= forms
// (torch::add_out(out, a, b), torch::mul_outf(a, b, out)), as libtorch programs call them.
#include <iostream>

#include <string>
#include <vector>

#include <torch/torch.h>

struct CaptureWarnings : public c10::WarningHandler {
  std::vector<std::string> messages;
  void process(const c10::SourceLocation&, const std::string& msg, const bool) override { messages.push_back(msg); }
};

int main() {
  torch::Tensor a = torch::arange(12, torch::kFloat).reshape({3, 4}).sub(5).div(4);
  torch::Tensor b = torch::linspace(-1, 2, 4);
  std::cout << torch::transpose(a, 0, 1) << std::endl << torch::t(a) << std::endl;
  std::cout << torch::reshape(a, {2, -1}) << std::endl << torch::permute(a, {1, 0}).sizes() << std::endl;
  std::cout << torch::flatten(a) << std::endl << torch::unsqueeze(b, 0).sizes() << " "
            << torch::squeeze(torch::unsqueeze(b, 1)).sizes() << std::endl;
  std::cout << torch::add(a, b) << std::endl << torch::add(a, b, 2) << std::endl << torch::sub(a, 1.5) << std::endl;
  std::cout << torch::mul(a, b) << std::endl << torch::div(a, b.add(3)) << std::endl;
  std::cout << torch::gt(a, 0) << std::endl << torch::logical_and(torch::gt(a, -1), torch::lt(a, 1)) << std::endl;
  std::cout << torch::narrow(a, 1, 1, 2) << std::endl << torch::select(a, 0, 2) << std::endl;
  std::cout << torch::index_select(a, 1, torch::tensor({3, 0}, torch::kLong)) << std::endl;
  std::cout << torch::var(a) << std::endl << torch::std(a, {1}, true) << std::endl;
  for (const auto& piece : torch::split(a, 2, 1)) std::cout << piece.sizes() << " ";
  for (const auto& piece : torch::chunk(a, 3, 0)) std::cout << piece.sizes() << " ";
  std::cout << torch::size(a, 1) << " " << torch::stride(a, 0) << std::endl;
  torch::Tensor c = a.clone();
  torch::zero_(c);
  torch::fill_(c, 2.5);
  torch::clamp_(c, 0, 1);
  std::cout << c << std::endl;

  torch::Tensor out = torch::empty({0});
  torch::add_out(out, a, b);
  std::cout << out << std::endl;
  torch::mul_outf(a, b, out);
  std::cout << out << std::endl;
  torch::Tensor sum = torch::zeros({4});
  torch::sum_out(sum, a, {0});
  std::cout << sum << std::endl;
  torch::Tensor mm = torch::empty({3, 3});
  torch::mm_out(mm, a, torch::t(a));
  std::cout << mm << std::endl;
  torch::Tensor wide = torch::zeros({3, 4}, torch::kDouble);
  torch::exp_out(wide, a);
  std::cout << wide << std::endl;
  torch::Tensor mask = torch::zeros({3, 4}, torch::kBool);
  torch::ge_out(mask, a, 0.25);
  std::cout << mask << std::endl;

  // A non-empty out of the wrong shape is resized, with libtorch's deprecation warning.
  CaptureWarnings warnings;
  {
    c10::Warning::WarningHandlerGuard guard(&warnings);
    torch::Tensor small = torch::zeros({2});
    torch::sub_out(small, a, b);
    std::cout << small.sizes() << std::endl;
  }
  for (const auto& message : warnings.messages) std::cout << message << std::endl;

  torch::Tensor integer = torch::zeros({3, 4}, torch::kLong);
  try {
    torch::add_out(integer, a, b);
    std::cout << "no error" << std::endl;
  } catch (const c10::Error&) {
    std::cout << "float into long: refused" << std::endl;
  }
  torch::Tensor w = torch::ones({4}, torch::requires_grad());
  try {
    torch::mul_out(out, a, w);
    std::cout << "no error" << std::endl;
  } catch (const c10::Error&) {
    std::cout << "requires grad: refused" << std::endl;
  }
  {
    torch::NoGradGuard no_grad;
    torch::mul_out(out, a, w);
    std::cout << out.requires_grad() << " " << out.sum().item<float>() << std::endl;
  }

  // The MNIST example's idioms.
  torch::Tensor logits = torch::log_softmax(a, 1);
  torch::Tensor targets = torch::tensor({3, 0, 1}, torch::kLong);
  std::cout << torch::nll_loss(logits, targets, /*weight=*/{}, at::Reduction::Sum).item<float>() << " "
            << torch::nll_loss(logits, targets).item<float>() << std::endl;
  AT_ASSERT(logits.dim() == 2);
  try {
    AT_ASSERT(logits.dim() == 3);
  } catch (const c10::Error&) {
    std::cout << "AT_ASSERT threw" << std::endl;
  }
  {
    torch::InferenceMode guard;
    std::cout << torch::InferenceMode::is_enabled() << " " << (w * 2).requires_grad() << std::endl;
  }
  std::cout << torch::InferenceMode::is_enabled() << " " << (w * 2).requires_grad() << std::endl;
  std::cout << torch::str("sizes ", a.sizes(), " dim ", a.dim()) << std::endl;
}
