// torch::fft's real-valued functions as signal-processing code uses them: the frequency axis of a
// spectrum (fftfreq, rfftfreq) and the shifts that centre it (fftshift, ifftshift), in float and
// double, over chosen dims, with the ATen spellings and out= forms.
#include <iomanip>
#include <iostream>

#include <torch/torch.h>

int main() {
  std::cout << std::setprecision(10);
  std::cout << torch::fft::fftfreq(8, 0.1) << std::endl;
  std::cout << torch::fft::fftfreq(7, torch::kDouble) << std::endl;
  std::cout << torch::fft::rfftfreq(9, 1.0 / 3, torch::kFloat) << std::endl;
  std::cout << torch::fft::rfftfreq(10, torch::kDouble) << std::endl;
  std::cout << at::fft_fftfreq(5) << std::endl;

  torch::Tensor x = torch::arange(12).reshape({3, 4});
  std::cout << torch::fft::fftshift(x) << std::endl;
  std::cout << torch::fft::ifftshift(x) << std::endl;
  std::cout << torch::fft::fftshift(x, {1}) << std::endl;
  std::cout << at::fft_ifftshift(x, {0}) << std::endl;
  std::cout << torch::fft::fftshift(torch::fft::fftfreq(6)) << std::endl;

  torch::Tensor out = torch::empty({0}, torch::kDouble);
  at::fft_fftfreq_out(out, 6, 0.5);
  std::cout << out << std::endl;
  torch::Tensor rout = torch::empty({0}, torch::kFloat);
  at::fft_rfftfreq_outf(6, 0.5, rout);
  std::cout << rout << std::endl;

  torch::Tensor w = torch::randn({4, 5}, torch::requires_grad());
  torch::fft::fftshift(w).select(1, 0).sum().backward();
  std::cout << w.grad() << std::endl;
}
