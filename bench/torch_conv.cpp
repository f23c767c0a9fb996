// The libtorch peer of bench_conv.cpp: the same shapes and loop (bench_conv_common.h).
#include <torch/torch.h>

#include "bench_conv_common.h"

int main(int argc, char** argv) {
  const bench_conv::Args args = bench_conv::parse(argc, argv);
  torch::set_num_threads(args.threads);
  torch::manual_seed(0);
  for (const bench_conv::Shape& s : bench_conv::kShapes) {
    torch::nn::Conv2d conv(torch::nn::Conv2dOptions(s.C_in, s.C_out, s.k).stride(s.stride).padding(s.padding));
    torch::Tensor x = torch::randn({s.N, s.C_in, s.H, s.W}, torch::requires_grad());
    bench_conv::time_shape("libtorch", s, args, [&] {
      conv->zero_grad();
      x.mutable_grad() = torch::Tensor();
      conv(x).sum().backward();
    });
  }
}
