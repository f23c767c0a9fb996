// MNIST (data/mnist.h): the IDX file format. An IDX file starts with big-endian 32-bit integers:
// a magic number (0x00000803 = 2051 for a 3-d array of unsigned bytes, 0x00000801 = 2049 for 1-d),
// then each dimension's size; the unsigned bytes follow, row-major.
#include "data/mnist.h"

#include <filesystem>
#include <fstream>
#include <vector>

#include "core/error.h"

namespace ember::data::datasets {

namespace {

constexpr uint32_t kImageMagicNumber = 2051;
constexpr uint32_t kTargetMagicNumber = 2049;
constexpr int64_t kImageRows = 28;
constexpr int64_t kImageColumns = 28;
constexpr const char* kTrainImagesFile = "train-images-idx3-ubyte";
constexpr const char* kTrainTargetsFile = "train-labels-idx1-ubyte";
constexpr const char* kTestImagesFile = "t10k-images-idx3-ubyte";
constexpr const char* kTestTargetsFile = "t10k-labels-idx1-ubyte";

// An IDX file's header and bytes, read whole (MNIST's largest file is 47 MB).
struct IdxFile {
  std::string path;
  std::vector<unsigned char> bytes;

  // The i-th big-endian 32-bit integer of the header.
  uint32_t header(size_t i) const {
    const unsigned char* p = bytes.data() + 4 * i;
    return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | uint32_t(p[3]);
  }
};

IdxFile read_idx(const std::filesystem::path& path, uint32_t magic, size_t header_ints) {
  IdxFile f{path.string(), {}};
  std::ifstream in(path, std::ios::binary);
  EMBER_CHECK(in.good(), "MNIST: cannot open {} (expected the uncompressed MNIST files in this folder)", f.path);
  f.bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  EMBER_CHECK(f.bytes.size() >= 4 * header_ints, "MNIST: {} is truncated: {} bytes, shorter than its {}-byte header",
              f.path, f.bytes.size(), 4 * header_ints);
  EMBER_CHECK(f.header(0) == magic, "MNIST: {} has magic number {}, expected {} (not an MNIST {} file)", f.path,
              f.header(0), magic, magic == kImageMagicNumber ? "image" : "label");
  return f;
}

void check_length(const IdxFile& f, size_t header_ints, uint64_t payload) {
  const uint64_t expected = 4 * header_ints + payload;
  EMBER_CHECK(f.bytes.size() == expected, "MNIST: {} is {}: {} bytes, expected {} for the sizes in its header", f.path,
              f.bytes.size() < expected ? "truncated" : "longer than its header says", f.bytes.size(), expected);
}

Tensor read_images(const std::filesystem::path& path) {
  IdxFile f = read_idx(path, kImageMagicNumber, 4);
  const int64_t count = f.header(1), rows = f.header(2), columns = f.header(3);
  EMBER_CHECK(rows == kImageRows && columns == kImageColumns, "MNIST: {} holds {} x {} images, expected {} x {}",
              f.path, rows, columns, kImageRows, kImageColumns);
  check_length(f, 4, static_cast<uint64_t>(count) * rows * columns);
  std::vector<float> pixels(f.bytes.begin() + 16, f.bytes.end());
  for (float& v : pixels) v /= 255.0f;  // as libtorch: the bytes as float32, divided by 255
  return from_vector(pixels, {count, 1, rows, columns}, dtype(kFloat32));
}

Tensor read_targets(const std::filesystem::path& path) {
  IdxFile f = read_idx(path, kTargetMagicNumber, 2);
  const int64_t count = f.header(1);
  check_length(f, 2, static_cast<uint64_t>(count));
  std::vector<int64_t> labels(f.bytes.begin() + 8, f.bytes.end());
  return from_vector(labels, {count}, dtype(kInt64));
}

}  // namespace

MNIST::MNIST(const std::string& root, Mode mode) : is_train_(mode == Mode::kTrain) {
  const std::filesystem::path dir(root);
  const auto images_path = dir / (is_train_ ? kTrainImagesFile : kTestImagesFile);
  const auto targets_path = dir / (is_train_ ? kTrainTargetsFile : kTestTargetsFile);
  images_ = read_images(images_path);
  targets_ = read_targets(targets_path);
  EMBER_CHECK(images_.size(0) == targets_.size(0), "MNIST: {} holds {} images but {} holds {} labels",
              images_path.string(), images_.size(0), targets_path.string(), targets_.size(0));
}

Example<> MNIST::get(size_t index) {
  const int64_t i = static_cast<int64_t>(index);
  EMBER_CHECK(i < images_.size(0), "MNIST::get: index {} is out of range for {} examples", index, images_.size(0));
  return {images_[i], targets_[i]};
}

std::optional<size_t> MNIST::size() const { return static_cast<size_t>(images_.size(0)); }

}  // namespace ember::data::datasets
