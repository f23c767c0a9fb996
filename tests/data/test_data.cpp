// ember::data against libtorch's torch::data behaviour: MNIST's IDX files (written here, small),
// transforms, samplers and the data loader with and without worker threads.
#include <filesystem>
#include <fstream>
#include <set>

#include <gtest/gtest.h>

#include "mnist_files.h"
#include "test_util.h"

namespace ember {
namespace {

namespace fs = std::filesystem;
using data::Example;

// ---- MNIST ----

// n images with pixel (i, r, c) = (i + r + c + 7) % 256 and labels (i + 3) % 10 in the train files;
// offsets 0 and 0 in the test files.
struct MnistDir : test::MnistDir {
  explicit MnistDir(const std::string& name, int64_t n = 12)
      : test::MnistDir(
            name, n, n, [](int64_t i, int64_t r, int64_t c) { return (i + r + c + 7) % 256; },
            [](int64_t i) { return (i + 3) % 10; }, [](int64_t i, int64_t r, int64_t c) { return (i + r + c) % 256; },
            [](int64_t i) { return i % 10; }) {}
  static void write_images(const fs::path& path, int64_t n, int offset, uint32_t magic = 2051, uint32_t rows = 28) {
    test::write_idx_images(
        path, n, [offset](int64_t i, int64_t r, int64_t c) { return (i + r + c + offset) % 256; }, magic, rows);
  }
  static void write_labels(const fs::path& path, int64_t n, int offset, uint32_t magic = 2049) {
    test::write_idx_labels(
        path, n, [offset](int64_t i) { return (i + offset) % 10; }, magic);
  }
};

TEST(DataMnist, ReadsImagesAsFloatOver255AndLabelsAsInt64) {
  MnistDir d("read");
  data::datasets::MNIST train(d.dir.string());
  EXPECT_TRUE(train.is_train());
  EXPECT_EQ(train.size().value(), 12u);
  EXPECT_EQ(train.images().sizes(), (std::vector<int64_t>{12, 1, 28, 28}));
  EXPECT_EQ(train.images().dtype(), kFloat32);
  EXPECT_EQ(train.targets().dtype(), kInt64);
  // image 5, row 2, column 3 of the train file: (5 + 2 + 3 + 7) / 255
  EXPECT_EQ(train.images()[5][0][2][3].item<float>(), 17.0f / 255.0f);
  Example<> e = train.get(4);
  EXPECT_EQ(e.data.sizes(), (std::vector<int64_t>{1, 28, 28}));
  EXPECT_EQ(e.target.item<int64_t>(), 7);
  data::datasets::MNIST test(d.dir.string(), data::datasets::MNIST::Mode::kTest);
  EXPECT_FALSE(test.is_train());
  EXPECT_EQ(test.get(4).target.item<int64_t>(), 4);
  EXPECT_EQ(test.images()[1][0][27][27].item<float>(), 55.0f / 255.0f);
  EXPECT_THROWS_WITH(train.get(12), "out of range");
}

TEST(DataMnist, BadFilesAreErrorsNamingTheFile) {
  MnistDir d("bad");
  const fs::path images = d.dir / "train-images-idx3-ubyte", labels = d.dir / "train-labels-idx1-ubyte";
  auto load = [&] { data::datasets::MNIST m(d.dir.string()); };
  fs::remove(labels);
  EXPECT_THROWS_WITH(load(), "cannot open " + labels.string());
  MnistDir::write_labels(labels, 11, 0);
  EXPECT_THROWS_WITH(load(), "holds 12 images but " + labels.string() + " holds 11 labels");
  MnistDir::write_labels(labels, 12, 0, /*magic=*/2051);
  EXPECT_THROWS_WITH(load(), labels.string() + " has magic number 2051, expected 2049");
  MnistDir::write_labels(labels, 12, 0);
  MnistDir::write_images(images, 12, 0, /*magic=*/2049);
  EXPECT_THROWS_WITH(load(), images.string() + " has magic number 2049, expected 2051");
  MnistDir::write_images(images, 12, 0, 2051, /*rows=*/27);
  EXPECT_THROWS_WITH(load(), "holds 27 x 28 images, expected 28 x 28");
  MnistDir::write_images(images, 12, 0);
  fs::resize_file(images, fs::file_size(images) - 100);
  EXPECT_THROWS_WITH(load(), images.string() + " is truncated");
  fs::resize_file(images, 10);
  EXPECT_THROWS_WITH(load(), "shorter than its 16-byte header");
  MnistDir::write_images(images, 12, 0);
  std::ofstream(labels, std::ios::app).put('x');
  EXPECT_THROWS_WITH(load(), "longer than its header says");
}

// ---- transforms ----

TEST(DataTransforms, NormalizeThenStackAsLibtorch) {
  MnistDir d("transforms", 5);
  auto dataset = data::datasets::MNIST(d.dir.string())
                     .map(data::transforms::Normalize<>(0.1307, 0.3081))
                     .map(data::transforms::Stack<>());
  EXPECT_EQ(dataset.size().value(), 5u);
  std::vector<size_t> indices = {3, 1};
  Example<> batch = dataset.get_batch(indices);
  EXPECT_EQ(batch.data.sizes(), (std::vector<int64_t>{2, 1, 28, 28}));
  EXPECT_TENSOR_CLOSE(batch.target, tensor({6, 4}), 0, 0);
  // (x - mean) / std in float32: image 3, pixel (0, 0) = (3 + 7) / 255
  const float x = 10.0f / 255.0f;
  EXPECT_EQ(batch.data[0][0][0][0].item<float>(), (x - 0.1307f) / 0.3081f);
  // Per channel: a (2, 1, 1) input normalised with two means and two deviations.
  data::transforms::Normalize<> two({1.0, 2.0}, {2.0, 4.0});
  EXPECT_TENSOR_CLOSE(two(full({2, 1, 1}, 3.0)), tensor({{{1.0}}, {{0.25}}}), 0, 0);
}

TEST(DataTransforms, LambdasAndTensorDataset) {
  auto dataset = data::datasets::TensorDataset(arange(12, dtype(kFloat32)).reshape({6, 2}))
                     .map(data::transforms::Lambda<data::TensorExample>(
                         [](data::TensorExample e) { return data::TensorExample(e.data * 10); }))
                     .map(data::transforms::Stack<data::TensorExample>());
  std::vector<size_t> indices = {5, 0};
  Tensor batch = dataset.get_batch(indices);
  EXPECT_TENSOR_CLOSE(batch, tensor({{100.0, 110.0}, {0.0, 10.0}}), 0, 0);
}

// ---- samplers and the loader ----

// Example i: data [i, i] (float32), target i; get() throws for `poison`.
class Counting : public data::datasets::Dataset<Counting> {
 public:
  explicit Counting(size_t n, std::optional<size_t> poison = std::nullopt) : n_(n), poison_(poison) {}
  Example<> get(size_t i) override {
    EMBER_CHECK(!poison_ || i != *poison_, "Counting: example {} is poisoned", i);
    return {full({2}, static_cast<double>(i)), tensor(static_cast<int64_t>(i))};
  }
  std::optional<size_t> size() const override { return n_; }

 private:
  size_t n_;
  std::optional<size_t> poison_;
};

// Every batch's targets, one pass.
template <typename Loader>
std::vector<std::vector<int64_t>> pass(Loader& loader) {
  std::vector<std::vector<int64_t>> out;
  for (auto& batch : loader) {
    EXPECT_TENSOR_CLOSE(batch.data.select(1, 0), batch.target.to(kFloat32), 0, 0);
    Tensor t = batch.target.contiguous();
    out.emplace_back(t.template data_ptr<int64_t>(), t.template data_ptr<int64_t>() + t.numel());
  }
  return out;
}

using Batches = std::vector<std::vector<int64_t>>;

TEST(DataLoader, SequentialBatchesWithAndWithoutDropLast) {
  auto loader = data::make_data_loader<data::samplers::SequentialSampler>(Counting(10).map(data::transforms::Stack<>()),
                                                                          data::DataLoaderOptions().batch_size(4));
  EXPECT_EQ(pass(*loader), (Batches{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9}}));
  EXPECT_EQ(pass(*loader), (Batches{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9}}));  // a second epoch
  auto dropping = data::make_data_loader<data::samplers::SequentialSampler>(
      Counting(10).map(data::transforms::Stack<>()), data::DataLoaderOptions(4).drop_last(true));
  EXPECT_EQ(pass(*dropping), (Batches{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  auto exact = data::make_data_loader<data::samplers::SequentialSampler>(Counting(8).map(data::transforms::Stack<>()),
                                                                         data::DataLoaderOptions(4).drop_last(true));
  EXPECT_EQ(pass(*exact).size(), 2u);
  // Without Stack a batch is the vector of examples.
  auto unstacked = data::make_data_loader<data::samplers::SequentialSampler>(Counting(5), 2);
  std::vector<size_t> sizes;
  for (auto& batch : *unstacked) sizes.push_back(batch.size());
  EXPECT_EQ(sizes, (std::vector<size_t>{2, 2, 1}));
}

TEST(DataLoader, RandomSamplerShufflesEachEpochAsRandpermDoes) {
  auto make = [] {
    return data::make_data_loader(Counting(10).map(data::transforms::Stack<>()), data::DataLoaderOptions(3));
  };
  manual_seed(7);
  auto loader = make();
  Batches first = pass(*loader), second = pass(*loader);
  for (const Batches& epoch : {first, second}) {
    std::multiset<int64_t> seen;
    for (const auto& b : epoch) seen.insert(b.begin(), b.end());
    EXPECT_EQ(seen, (std::multiset<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));  // a permutation
    EXPECT_EQ(epoch.size(), 4u);
  }
  EXPECT_NE(first, second);
  // As libtorch: the sampler draws a permutation when built and a new one at each begin().
  manual_seed(7);
  randperm(10);
  Tensor expected = randperm(10);
  EXPECT_EQ(first[0], (std::vector<int64_t>{expected[0].item<int64_t>(), expected[1].item<int64_t>(),
                                            expected[2].item<int64_t>()}));
  manual_seed(7);
  auto again = make();
  EXPECT_EQ(pass(*again), first);  // seeded: reproducible
}

TEST(DataLoader, WorkersKeepTheSamplersOrder) {
  auto serial = data::make_data_loader<data::samplers::SequentialSampler>(Counting(23).map(data::transforms::Stack<>()),
                                                                          data::DataLoaderOptions(4));
  const Batches expected = pass(*serial);
  for (size_t workers : {1, 3}) {
    SCOPED_TRACE(workers);
    auto loader = data::make_data_loader<data::samplers::SequentialSampler>(
        Counting(23).map(data::transforms::Stack<>()), data::DataLoaderOptions(4).workers(workers));
    EXPECT_EQ(pass(*loader), expected);
    EXPECT_EQ(pass(*loader), expected);
    // An unfinished pass, then a new one: the new pass starts from the beginning.
    auto it = loader->begin();
    ++it;
    EXPECT_EQ(pass(*loader), expected);
  }
  manual_seed(3);
  auto shuffled = data::make_data_loader(Counting(23).map(data::transforms::Stack<>()), data::DataLoaderOptions(4));
  manual_seed(3);
  auto shuffled_workers =
      data::make_data_loader(Counting(23).map(data::transforms::Stack<>()), data::DataLoaderOptions(4).workers(2));
  manual_seed(5);
  const Batches a = pass(*shuffled);
  manual_seed(5);
  EXPECT_EQ(pass(*shuffled_workers), a);
}

TEST(DataLoader, AWorkersExceptionReachesTheCaller) {
  for (size_t workers : {0, 2}) {
    auto loader = data::make_data_loader<data::samplers::SequentialSampler>(
        Counting(12, /*poison=*/9).map(data::transforms::Stack<>()), data::DataLoaderOptions(4).workers(workers));
    size_t batches = 0;
    EXPECT_THROWS_WITH(
        {
          for (auto& batch : *loader) {
            (void)batch;
            ++batches;
          }
        },
        "example 9 is poisoned");  // with workers, inside a WorkerException's message
    EXPECT_EQ(batches, 2u);
  }
  EXPECT_THROWS_WITH(data::make_data_loader(Counting(3), data::DataLoaderOptions(0)), "batch_size must be positive");
}

}  // namespace
}  // namespace ember
