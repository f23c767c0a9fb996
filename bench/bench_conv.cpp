// Conv2d forward + backward in Ember on the shapes of bench_conv_common.h; torch_conv.cpp is the
// same loop in libtorch, and scripts/bench_conv.sh runs the two one after the other.
#include <ember/ember.h>

#include "bench_conv_common.h"

int main(int argc, char** argv) {
  const bench_conv::Args args = bench_conv::parse(argc, argv);
  ember::set_num_threads(args.threads);
  ember::manual_seed(0);
  for (const bench_conv::Shape& s : bench_conv::kShapes) {
    ember::nn::Conv2d conv(ember::nn::Conv2dOptions(s.C_in, s.C_out, s.k).stride(s.stride).padding(s.padding));
    ember::Tensor x = ember::randn({s.N, s.C_in, s.H, s.W}, ember::requires_grad());
    bench_conv::time_shape("ember", s, args, [&] {
      conv->zero_grad();
      x.mutable_grad() = ember::Tensor();
      conv(x).sum().backward();
    });
  }
}
