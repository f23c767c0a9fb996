// The MNIST dataset, as libtorch's torch::data::datasets::MNIST: reads the four IDX files of the
// original distribution from `root` (train-images-idx3-ubyte, train-labels-idx1-ubyte,
// t10k-images-idx3-ubyte, t10k-labels-idx1-ubyte, uncompressed).
//
//   ember::data::datasets::MNIST train("data/mnist", ember::data::datasets::MNIST::Mode::kTrain);
//   ember::data::Example<> e = train.get(0);   // e.data: (1, 28, 28) float32 in [0, 1]; e.target: () int64
//
// Images are float32 (N, 1, 28, 28), pixel / 255; targets int64 (N). The big-endian headers are
// checked (magic numbers 2051 and 2049, 28 x 28 images, the same count in both files, the file
// sizes), and a bad file is an error naming it. Unlike libtorch, any number of images is accepted
// (libtorch insists on 60000 and 10000), so small files in the same format work too.
#pragma once

#include <optional>
#include <string>

#include "data/datasets.h"

namespace ember::data::datasets {

class MNIST : public Dataset<MNIST> {
 public:
  enum class Mode { kTrain, kTest };

  explicit MNIST(const std::string& root, Mode mode = Mode::kTrain);

  Example<> get(size_t index) override;  // {images[index], targets[index]}
  std::optional<size_t> size() const override;
  bool is_train() const noexcept { return is_train_; }
  const Tensor& images() const { return images_; }    // (N, 1, 28, 28) float32
  const Tensor& targets() const { return targets_; }  // (N) int64

 private:
  Tensor images_, targets_;
  bool is_train_;
};

}  // namespace ember::data::datasets
