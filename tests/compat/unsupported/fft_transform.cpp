// The FFTs return complex tensors, which Ember lacks: torch::fft::rfft says so at compile time.
// expect: torch::fft::rfft: the transforms take or return complex tensors, which Ember lacks
#include <torch/torch.h>

int main() { auto spectrum = torch::fft::rfft(torch::randn({16})); }
