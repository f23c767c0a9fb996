// The shapes bench_conv (Ember) and torch_conv (libtorch) time, and the one timing loop both use:
// Conv2d forward + backward (input, weight and bias gradients) of a summed output.
//
//   bench_conv [--threads N] [--iters N]   -> one line per shape: "<name> ms <median> ..."
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace bench_conv {

struct Shape {
  const char* name;
  int64_t N, C_in, H, W, C_out, k, stride, padding;
};

// conv1 and conv2 of the usual MNIST CNN, and a strided 3x3 of a small ResNet stage.
inline const std::vector<Shape> kShapes = {
    {"mnist_conv1_1to32_3x3_64x28x28", 64, 1, 28, 28, 32, 3, 1, 0},
    {"mnist_conv2_32to64_3x3_64x26x26", 64, 32, 26, 26, 64, 3, 1, 0},
    {"resnet_64to128_3x3_s2_16x28x28", 16, 64, 28, 28, 128, 3, 2, 1},
};

struct Args {
  int threads = 2, iters = 10, warmup = 2;
};

inline Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--threads")) a.threads = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--iters")) a.iters = std::atoi(argv[i + 1]);
  }
  return a;
}

// Runs step() warmup + iters times; prints the median and the best in milliseconds, and the
// GFLOP/s of the median (forward 2*N*C_out*C_in*k*k*H_out*W_out multiply-adds, backward twice that).
template <typename Step>
void time_shape(const char* who, const Shape& s, const Args& a, Step step) {
  std::vector<double> ms;
  for (int i = 0; i < a.warmup + a.iters; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    step();
    auto t1 = std::chrono::steady_clock::now();
    if (i >= a.warmup) ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  const int64_t Ho = (s.H + 2 * s.padding - s.k) / s.stride + 1, Wo = (s.W + 2 * s.padding - s.k) / s.stride + 1;
  const double flops = 3.0 * 2.0 * s.N * s.C_out * s.C_in * s.k * s.k * Ho * Wo;
  const double median = ms[ms.size() / 2];
  std::printf("%-10s %-34s median_ms %8.2f best_ms %8.2f GFLOP/s %6.1f\n", who, s.name, median, ms.front(),
              flops / median / 1e6);
}

}  // namespace bench_conv
