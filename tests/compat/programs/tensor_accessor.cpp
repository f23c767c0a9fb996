// Accessors as libtorch programs use them: a hand-written loop over an image batch (normalising
// per channel), a confusion matrix filled through an int64 accessor, a strided (transposed) view,
// a uint8 image read through a byte accessor, and packed accessors passed by value.
#include <cstdint>
#include <iostream>

#include <torch/torch.h>

// A function taking an accessor by value, as CPU kernels written against libtorch do.
float trace(torch::PackedTensorAccessor64<float, 2> m) {
  float sum = 0;
  for (int64_t i = 0; i < m.size(0); ++i) sum += m[i][i];
  return sum;
}

int main() {
  torch::Tensor images = torch::arange(24, torch::kFloat).reshape({2, 3, 2, 2});
  auto a = images.accessor<float, 4>();
  for (int64_t c = 0; c < a.size(1); ++c) {
    float mean = 0;
    for (int64_t n = 0; n < a.size(0); ++n)
      for (int64_t h = 0; h < a.size(2); ++h)
        for (int64_t w = 0; w < a.size(3); ++w) mean += a[n][c][h][w];
    mean /= a.size(0) * a.size(2) * a.size(3);
    for (int64_t n = 0; n < a.size(0); ++n)
      for (int64_t h = 0; h < a.size(2); ++h)
        for (int64_t w = 0; w < a.size(3); ++w) a[n][c][h][w] -= mean;
  }
  std::cout << images.sum({0, 2, 3}) << std::endl << images[1][2] << std::endl;

  torch::Tensor predicted = torch::tensor({0, 2, 1, 1, 0, 2, 2});
  torch::Tensor target = torch::tensor({0, 1, 1, 1, 2, 2, 0});
  torch::Tensor confusion = torch::zeros({3, 3}, torch::kLong);
  auto p = predicted.accessor<int64_t, 1>();
  auto t = target.accessor<int64_t, 1>();
  auto cm = confusion.accessor<int64_t, 2>();
  for (int64_t i = 0; i < p.size(0); ++i) cm[t[i]][p[i]] += 1;
  std::cout << confusion << std::endl;

  torch::Tensor m = torch::arange(12, torch::kFloat).reshape({3, 4});
  torch::Tensor mt = m.t();
  auto v = mt.accessor<float, 2>();
  std::cout << v.size(0) << " " << v.size(1) << " " << v.stride(0) << " " << v.stride(1) << " " << v[3][1] << std::endl;
  torch::Tensor scaled = torch::eye(4).mul(2.5);
  std::cout << trace(scaled.packed_accessor64<float, 2>()) << " " << m.packed_accessor32<float, 2>()[2][3] << std::endl;

  torch::Tensor pixels = torch::tensor({0, 127, 255, 64}, torch::kByte);
  auto px = pixels.accessor<uint8_t, 1>();
  int total = 0;
  for (int64_t i = 0; i < px.size(0); ++i) total += px[i];
  px[0] = 200;
  std::cout << total << " " << pixels << std::endl;

  try {
    auto bad = m.accessor<float, 3>();
    (void)bad;
  } catch (const c10::Error& e) {
    std::cout << "caught: wrong number of dims" << std::endl;
  }
}
