// MNIST (data/mnist.h): the IDX file format. An IDX file starts with big-endian 32-bit integers:
// a magic number (0x00000803 = 2051 for a 3-d array of unsigned bytes, 0x00000801 = 2049 for 1-d),
// then each dimension's size; the unsigned bytes follow, row-major. Only regular files are read
// (a FIFO would block, /dev/zero never ends), and the header's sizes are checked against the
// file's length before its data is read.
#include "data/mnist.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
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

// Reads up to n bytes at `offset`; fewer only if the file ends first.
size_t read_at(int fd, unsigned char* data, size_t n, off_t offset, const std::string& path) {
  size_t got = 0;
  while (got < n) {
    const ssize_t r = ::pread(fd, data + got, n - got, offset + static_cast<off_t>(got));
    if (r < 0 && errno == EINTR) continue;
    EMBER_CHECK(r >= 0, "MNIST: error while reading {}: {}", path, std::strerror(errno));
    if (r == 0) break;
    got += static_cast<size_t>(r);
  }
  return got;
}

// An IDX file's header, read and checked; `dims` header integers follow the magic number, and each
// element is one byte. The data is read only once the file's length matches the header.
IdxFile read_idx(const std::filesystem::path& path, uint32_t magic, size_t dims) {
  IdxFile f{path.string(), {}};
  struct stat st {};
  EMBER_CHECK(::stat(f.path.c_str(), &st) == 0,
              "MNIST: cannot open {} ({}); expected the uncompressed MNIST files in this folder", f.path,
              std::strerror(errno));
  EMBER_CHECK(S_ISREG(st.st_mode), "MNIST: {} is not a regular file (a directory, FIFO, device or socket)", f.path);
  // O_NONBLOCK: if the path was swapped for a FIFO since the stat, the open still returns.
  const int fd = ::open(f.path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  EMBER_CHECK(fd >= 0, "MNIST: cannot open {}: {}", f.path, std::strerror(errno));
  try {
    EMBER_CHECK(::fstat(fd, &st) == 0 && S_ISREG(st.st_mode), "MNIST: {} changed while opening it (no longer a "
                "regular file)", f.path);
    const uint64_t size = static_cast<uint64_t>(st.st_size);
    const size_t header_ints = 1 + dims;
    f.bytes.resize(4 * header_ints);
    EMBER_CHECK(size >= f.bytes.size() && read_at(fd, f.bytes.data(), f.bytes.size(), 0, f.path) == f.bytes.size(),
                "MNIST: {} is truncated: {} bytes, shorter than its {}-byte header", f.path, size, f.bytes.size());
    EMBER_CHECK(f.header(0) == magic, "MNIST: {} has magic number {}, expected {} (not an MNIST {} file)", f.path,
                f.header(0), magic, magic == kImageMagicNumber ? "image" : "label");
    uint64_t payload = 1;  // at most 2^32 per dimension, (2^32)^3 would overflow: checked as it grows
    for (size_t i = 1; i <= dims; ++i) {
      const uint64_t d = f.header(i);
      EMBER_CHECK(d == 0 || payload <= size / d, "MNIST: {} is truncated: its header's sizes need more than its {} "
                  "bytes", f.path, size);
      payload *= d;
    }
    const uint64_t expected = f.bytes.size() + payload;
    EMBER_CHECK(size == expected, "MNIST: {} is {}: {} bytes, expected {} for the sizes in its header", f.path,
                size < expected ? "truncated" : "longer than its header says", size, expected);
    f.bytes.resize(expected);
    const size_t got = read_at(fd, f.bytes.data() + 4 * header_ints, payload, static_cast<off_t>(4 * header_ints),
                               f.path);
    EMBER_CHECK(got == payload, "MNIST: {} is truncated: it shrank to {} bytes while being read", f.path,
                4 * header_ints + got);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  return f;
}

Tensor read_images(const std::filesystem::path& path) {
  IdxFile f = read_idx(path, kImageMagicNumber, 3);
  const int64_t count = f.header(1), rows = f.header(2), columns = f.header(3);
  EMBER_CHECK(rows == kImageRows && columns == kImageColumns, "MNIST: {} holds {} x {} images, expected {} x {}",
              f.path, rows, columns, kImageRows, kImageColumns);
  std::vector<float> pixels(f.bytes.begin() + 16, f.bytes.end());
  for (float& v : pixels) v /= 255.0f;  // as libtorch: the bytes as float32, divided by 255
  return from_vector(pixels, {count, 1, rows, columns}, dtype(kFloat32));
}

Tensor read_targets(const std::filesystem::path& path) {
  IdxFile f = read_idx(path, kTargetMagicNumber, 1);
  const int64_t count = f.header(1);
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
