// Convolution layers with padding_mode kReflect, kReplicate and kCircular (1-d, 2-d, 3-d; "same"
// with a square kernel; stride 2): printouts, outputs and gradients after manual_seed; then
// ConvTranspose2d's forward with an output_size (sizes, the extra row, through Sequential), and the
// errors PyTorch gives for a size out of range and for a transposed layer with kReflect.
#include <iostream>
#include <vector>

#include <torch/torch.h>

namespace {

// Output and gradients of one layer on x: sizes, sums and a few values.
void run(const char* name, torch::nn::AnyModule layer, torch::Tensor weight, const torch::Tensor& x) {
  torch::Tensor input = x.detach().requires_grad_(true);
  torch::Tensor out = layer.forward(input);
  (out * out).sum().backward();
  std::cout << name << " out " << out.sizes() << " sum " << out.sum().item<float>() << " first "
            << out.flatten().slice(0, 0, 4) << std::endl;
  std::cout << name << " input.grad sum " << input.grad().sum().item<float>() << " corner "
            << input.grad().flatten().slice(0, 0, 3) << std::endl;
  std::cout << name << " weight.grad sum " << weight.grad().sum().item<float>() << std::endl;
}

}  // namespace

int main() {
  torch::manual_seed(0);
  torch::nn::Conv2d reflect(torch::nn::Conv2dOptions(3, 4, 3).padding({1, 2}).padding_mode(torch::kReflect));
  torch::nn::Conv2d replicate(torch::nn::Conv2dOptions(3, 2, 3).padding(torch::kSame).padding_mode(torch::kReplicate));
  torch::nn::Conv2d circular(
      torch::nn::Conv2dOptions(3, 2, 3).stride(2).padding(1).bias(false).padding_mode(torch::kCircular));
  torch::nn::Conv1d reflect1(torch::nn::Conv1dOptions(3, 2, 3).padding(2).padding_mode(torch::kReflect));
  torch::nn::Conv3d replicate3(torch::nn::Conv3dOptions(2, 2, 3).padding(1).padding_mode(torch::kReplicate));
  std::cout << reflect << std::endl << replicate << std::endl << circular << std::endl;
  std::cout << reflect1 << std::endl << replicate3 << std::endl;

  torch::Tensor x = torch::randn({2, 3, 5, 6});
  run("reflect", torch::nn::AnyModule(reflect), reflect->weight, x);
  run("replicate same", torch::nn::AnyModule(replicate), replicate->weight, x);
  run("circular stride 2", torch::nn::AnyModule(circular), circular->weight, x);
  run("reflect 1d", torch::nn::AnyModule(reflect1), reflect1->weight, torch::randn({2, 3, 7}));
  run("replicate 3d", torch::nn::AnyModule(replicate3), replicate3->weight, torch::randn({1, 2, 3, 4, 3}));

  // ConvTranspose2d: sizes from (5 - 1) * 2 - 2 * 1 + 3 = 9 to 10 high, 11 to 12 wide.
  torch::nn::ConvTranspose2d up(torch::nn::ConvTranspose2dOptions(3, 2, 3).stride(2).padding(1));
  torch::Tensor small = up->forward(x);
  torch::Tensor large = up->forward(x, std::vector<int64_t>{10, 12});
  torch::Tensor full = up->forward(x, std::vector<int64_t>{2, 2, 10, 11});
  std::cout << "up " << small.sizes() << " " << large.sizes() << " " << full.sizes() << std::endl;
  // (libtorch's printing of bias=false leaves std::boolalpha set on the stream: print words, not bools)
  std::cout << "up same top-left: " << (large.slice(2, 0, 9).slice(3, 0, 11).equal(small) ? "yes" : "no")
            << std::endl;
  std::cout << "up last row sum " << large.select(2, 9).sum().item<float>() << std::endl;
  torch::nn::Sequential seq(up);
  std::cout << "through Sequential " << seq->forward(x).sizes() << std::endl;
  try {
    up->forward(x, std::vector<int64_t>{12, 12});
    std::cout << "no error" << std::endl;
  } catch (const c10::Error&) {
    std::cout << "output_size 12 x 12 refused" << std::endl;
  }
  try {
    torch::nn::ConvTranspose2d bad(torch::nn::ConvTranspose2dOptions(3, 2, 3).padding_mode(torch::kReflect));
    bad(x);
    std::cout << "no error" << std::endl;
  } catch (const c10::Error&) {
    std::cout << "ConvTranspose2d with kReflect refused" << std::endl;
  }
}
