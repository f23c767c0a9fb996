// Small MNIST-format folders for the tests (tests/data/test_data.cpp, tests/examples/test_examples_mnist.cpp):
// the four IDX files, with big-endian headers, written into a temporary folder removed afterwards.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include <fmt/format.h>

namespace ember::test {

// pixel(image, row, column) -> byte; label(image) -> byte.
using PixelFn = std::function<int(int64_t, int64_t, int64_t)>;
using LabelFn = std::function<int(int64_t)>;

inline void put_u32(std::ofstream& out, uint32_t v) {
  const unsigned char b[4] = {static_cast<unsigned char>(v >> 24), static_cast<unsigned char>(v >> 16),
                              static_cast<unsigned char>(v >> 8), static_cast<unsigned char>(v)};
  out.write(reinterpret_cast<const char*>(b), 4);
}

inline void write_idx_images(const std::filesystem::path& path, int64_t n, const PixelFn& pixel, uint32_t magic = 2051,
                             uint32_t rows = 28) {
  std::ofstream out(path, std::ios::binary);
  put_u32(out, magic);
  put_u32(out, static_cast<uint32_t>(n));
  put_u32(out, rows);
  put_u32(out, 28);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < 28; ++c) out.put(static_cast<char>(pixel(i, r, c)));
}

inline void write_idx_labels(const std::filesystem::path& path, int64_t n, const LabelFn& label,
                             uint32_t magic = 2049) {
  std::ofstream out(path, std::ios::binary);
  put_u32(out, magic);
  put_u32(out, static_cast<uint32_t>(n));
  for (int64_t i = 0; i < n; ++i) out.put(static_cast<char>(label(i)));
}

// A folder with train-* and t10k-* files of n_train and n_test images.
struct MnistDir {
  std::filesystem::path dir;
  MnistDir(const std::string& name, int64_t n_train, int64_t n_test, const PixelFn& train_pixel,
           const LabelFn& train_label, const PixelFn& test_pixel, const LabelFn& test_label) {
    dir = std::filesystem::temp_directory_path() / fmt::format("ember_mnist_{}_{}", name, getpid());
    std::filesystem::create_directories(dir);
    write_idx_images(dir / "train-images-idx3-ubyte", n_train, train_pixel);
    write_idx_labels(dir / "train-labels-idx1-ubyte", n_train, train_label);
    write_idx_images(dir / "t10k-images-idx3-ubyte", n_test, test_pixel);
    write_idx_labels(dir / "t10k-labels-idx1-ubyte", n_test, test_label);
  }
  MnistDir(const MnistDir&) = delete;
  ~MnistDir() { std::filesystem::remove_all(dir); }
};

}  // namespace ember::test
