// Resources the library takes from the system, on hostile or careless input: the CPU cache of freed
// blocks stays bounded, a DataLoader that cannot start its workers stops the ones it started, MNIST
// reads only regular files of the size their header gives, and saving writes through a symlink to
// the file it names and refuses FIFOs and devices. Files live in a fresh temporary directory.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include <gtest/gtest.h>

#include "core/cpu/allocator.h"
#include "data/data.h"
#include "nn/serialize.h"
#include "mnist_files.h"
#include "test_util.h"

namespace ember {
namespace {

namespace fs = std::filesystem;
constexpr size_t kKiB = size_t(1) << 10;
constexpr size_t kMiB = size_t(1) << 20;

// A device with distinct fake addresses that records what it was given back.
class CountingDevice : public DeviceMemory {
 public:
  void* raw_alloc(size_t n) override {
    void* p = reinterpret_cast<void*>(next_);
    next_ += n + 4096;
    held_[p] = n;
    return p;
  }
  void raw_free(void* p) override {
    freed.push_back(p);
    held_.erase(p);
  }
  size_t held() const {
    size_t total = 0;
    for (const auto& [p, n] : held_) total += n;
    return total;
  }
  std::vector<void*> freed;

 private:
  uintptr_t next_ = 0x10000;
  std::map<void*, size_t> held_;
};

// ---- the caching allocator ----

// The pattern: one tensor at a time, 256 KiB to 1.75 MiB in 512-byte steps, each a new size
// class. Unbounded, the cache ends up holding every one of them (about 1.1 GB).
TEST(CacheLimit, FreedBlocksOfEverNewSizesStayBoundedByThePeakInUse) {
  CountingDevice dev;
  CachingAllocator alloc(dev, "test", CacheLimit::kPeakInUse);
  for (size_t n = 256 * kKiB; n <= 1792 * kKiB; n += 512) alloc.deallocate(alloc.allocate(n));
  EXPECT_EQ(alloc.stats().max_allocated, 2 * kMiB);  // 1.75 MiB rounds to the 2 MiB class
  EXPECT_LE(alloc.cached_bytes(), 2 * kMiB);
  EXPECT_EQ(dev.held(), alloc.stats().reserved);
  // The same pattern without a limit, as the CUDA allocator keeps it.
  CountingDevice dev2;
  CachingAllocator unbounded(dev2, "test");
  for (size_t n = 256 * kKiB; n <= 1792 * kKiB; n += 512) unbounded.deallocate(unbounded.allocate(n));
  EXPECT_GT(unbounded.cached_bytes(), size_t(900) * kMiB);
  EXPECT_TRUE(dev2.freed.empty());
}

TEST(CacheLimit, TheBlocksFreedLongestAgoGoBackFirst) {
  CountingDevice dev;
  CachingAllocator alloc(dev, "test", CacheLimit::kPeakInUse);
  void* a = alloc.allocate(512 * kKiB);
  void* b = alloc.allocate(512 * kKiB - 512);
  void* c = alloc.allocate(512 * kKiB - 1024);  // the peak: 1.5 MiB - 1536 bytes in use
  alloc.deallocate(b);
  alloc.deallocate(a);
  alloc.deallocate(c);
  EXPECT_TRUE(dev.freed.empty());  // all three cached: no more than the peak
  void* d = alloc.allocate(768 * kKiB);
  alloc.deallocate(d);  // 2.25 MiB cached: b, then a, go back; c and d (1.25 MiB) fit
  EXPECT_EQ(dev.freed, (std::vector<void*>{b, a}));
  EXPECT_EQ(alloc.cached_bytes(), 1280 * kKiB - 1024);
  EXPECT_EQ(alloc.allocate(512 * kKiB - 1024), c);  // the recent ones stay reusable
  EXPECT_EQ(alloc.allocate(768 * kKiB), d);
  EXPECT_EQ(dev.freed.size(), 2u);
}

TEST(CacheLimit, EmptyCacheRestartsThePeak) {
  CountingDevice dev;
  CachingAllocator alloc(dev, "test", CacheLimit::kPeakInUse);
  void* big = alloc.allocate(64 * kMiB);
  alloc.deallocate(big);
  EXPECT_EQ(alloc.cached_bytes(), 64 * kMiB);  // reused by the next step of the same size
  alloc.empty_cache();
  alloc.deallocate(alloc.allocate(kMiB));
  alloc.deallocate(alloc.allocate(4 * kMiB));  // 5 MiB cached > the 4 MiB peak since empty_cache
  EXPECT_EQ(alloc.cached_bytes(), 4 * kMiB);   // the 1 MiB block went back
  EXPECT_EQ(dev.held(), 4 * kMiB);
}

// The same pattern through real tensors and the CPU allocator's own counter.
TEST(CacheLimit, TheCpuCacheStaysBoundedAfterTensorsOfEverNewSizes) {
  if (cpu::kCacheFrom == ~size_t(0)) GTEST_SKIP() << "nothing is cached under AddressSanitizer";
  cpu::cpu_empty_cache();
  const size_t in_use = cpu::cpu_memory_stats().allocated;
  for (size_t n = 256 * kKiB; n <= 1792 * kKiB; n += 512) {
    Tensor t = empty({static_cast<int64_t>(n)}, dtype(kBool));
    t[0].fill_(true);
  }
  EXPECT_LE(cpu::cpu_cached_bytes(), in_use + 2 * kMiB);
  // A training step's blocks are still reused: the same sizes again need no new memory.
  cpu::cpu_empty_cache();
  auto step = [] {
    Tensor a = ones({512, 1024}), b = a * 2, c = b + a;
    return c.sum().item<float>();
  };
  EXPECT_EQ(step(), 3.0f * 512 * 1024);
  const size_t reserved = cpu::cpu_memory_stats().reserved;
  for (int i = 0; i < 3; ++i) step();
  EXPECT_EQ(cpu::cpu_memory_stats().reserved, reserved);
}

// ---- DataLoader workers ----

// Example i: [i]; copying the dataset fails after `copies_allowed` copies, as starting a thread
// fails when the system has no more.
class FailsToCopy : public data::datasets::Dataset<FailsToCopy> {
 public:
  FailsToCopy(int copies_allowed, std::shared_ptr<int> copies) : allowed_(copies_allowed), copies_(copies) {}
  FailsToCopy(const FailsToCopy& other) : Dataset(other), allowed_(other.allowed_), copies_(other.copies_) {
    if (++*copies_ > allowed_) throw std::system_error(EAGAIN, std::generic_category(), "Resource unavailable");
  }
  FailsToCopy(FailsToCopy&&) = default;
  data::Example<> get(size_t i) override { return {full({1}, static_cast<double>(i)), tensor(static_cast<int64_t>(i))}; }
  std::optional<size_t> size() const override { return 8; }

 private:
  int allowed_;
  std::shared_ptr<int> copies_;
};

TEST(DataLoaderWorkers, AWorkerThatCannotStartStopsTheOthersAndNamesTheCount) {
  auto copies = std::make_shared<int>(0);
  // Each worker gets its own copy of the dataset: the third copy fails.
  EXPECT_THROWS_WITH(data::make_data_loader(FailsToCopy(2, copies), data::DataLoaderOptions(2).workers(5)),
                     "DataLoader: could not start worker 3 of 5: Resource unavailable");
  // The loader's workers were joined: a loader made afterwards works.
  auto ok = std::make_shared<int>(0);
  auto loader = data::make_data_loader(FailsToCopy(100, ok).map(data::transforms::Stack<>()),
                                       data::DataLoaderOptions(4).workers(2));
  int64_t batches = 0;
  for (auto& batch : *loader) batches += batch.target.size(0) == 4;
  EXPECT_EQ(batches, 2);
}

TEST(DataLoaderWorkers, AbsurdWorkerCountsAreRefusedBeforeAnyThreadStarts) {
  auto copies = std::make_shared<int>(0);
  EXPECT_THROWS_WITH(data::make_data_loader(FailsToCopy(1000000, copies), data::DataLoaderOptions(2).workers(40000)),
                     "DataLoaderOptions: workers must be at most 1024, got 40000");
  EXPECT_EQ(*copies, 0);
}

// ---- MNIST files ----

TEST(MnistFiles, OnlyRegularFilesAreRead) {
  test::MnistDir d("special", 4, 2, [](int64_t, int64_t, int64_t) { return 0; }, [](int64_t) { return 1; },
                   [](int64_t, int64_t, int64_t) { return 0; }, [](int64_t) { return 1; });
  const fs::path images = d.dir / "train-images-idx3-ubyte";
  fs::remove(images);
  ASSERT_EQ(::mkfifo(images.c_str(), 0600), 0);  // opening it for reading would wait for a writer
  EXPECT_THROWS_WITH(data::datasets::MNIST(d.dir.string()),
                     "MNIST: " + images.string() + " is not a regular file (a directory, FIFO, device or socket)");
  fs::remove(images);
  fs::create_symlink("/dev/zero", images);  // would never end
  EXPECT_THROWS_WITH(data::datasets::MNIST(d.dir.string()), images.string() + " is not a regular file");
  fs::remove(images);
  fs::create_directory(images);
  EXPECT_THROWS_WITH(data::datasets::MNIST(d.dir.string()), images.string() + " is not a regular file");
}

TEST(MnistFiles, HeaderSizesAreCheckedAgainstTheFileBeforeReading) {
  test::MnistDir d("sizes", 4, 2, [](int64_t, int64_t, int64_t) { return 0; }, [](int64_t) { return 1; },
                   [](int64_t, int64_t, int64_t) { return 0; }, [](int64_t) { return 1; });
  const fs::path images = d.dir / "train-images-idx3-ubyte";
  // A header claiming 2^32 - 1 images of 28 x 28 in a 16-byte file.
  test::write_idx_images(images, 0, [](int64_t, int64_t, int64_t) { return 0; });
  {
    std::fstream f(images, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(4);
    f.write("\xff\xff\xff\xff", 4);
  }
  EXPECT_THROWS_WITH(data::datasets::MNIST(d.dir.string()),
                     images.string() + " is truncated: its header's sizes need more than its 16 bytes");
  // Rows and columns of 2^32 - 1: their product with the count would overflow 64 bits.
  {
    std::fstream f(images, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(8);
    f.write("\xff\xff\xff\xff\xff\xff\xff\xff", 8);
  }
  EXPECT_THROWS_WITH(data::datasets::MNIST(d.dir.string()),
                     images.string() + " is truncated: its header's sizes need more than its 16 bytes");
}

// ---- saving through links ----

class SaveTargets : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / fmt::format("ember_save_targets_{}_{}", ::getpid(),
                                                   ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

TEST_F(SaveTargets, ASymlinkIsWrittenThroughAndStaysALink) {
  fs::create_directory(dir_ / "real");
  const std::string real = path("real/w.safetensors"), link = path("w.safetensors");
  save_safetensors(real, {{"t", ones({2})}});
  ::chmod(real.c_str(), 0640);
  fs::create_symlink("real/w.safetensors", link);  // relative, as ln -s makes them
  save_safetensors(link, {{"t", full({3}, 7.0)}});
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(fs::read_symlink(link), "real/w.safetensors");
  EXPECT_TENSOR_CLOSE(load_safetensors(real).at("t"), full({3}, 7.0), 0, 0);
  struct stat st {};
  ASSERT_EQ(::stat(real.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);  // the file keeps its mode
  // A chain of links, and a dangling link: the file it names is created.
  fs::create_symlink("w.safetensors", path("chain"));
  save_safetensors(path("chain"), {{"t", full({1}, 2.0)}});
  EXPECT_TENSOR_CLOSE(load_safetensors(real).at("t"), full({1}, 2.0), 0, 0);
  fs::create_symlink(path("real/new.safetensors"), path("dangling"));
  save_safetensors(path("dangling"), {{"t", full({1}, 3.0)}});
  EXPECT_TRUE(fs::is_symlink(path("dangling")));
  EXPECT_TENSOR_CLOSE(load_safetensors(path("real/new.safetensors")).at("t"), full({1}, 3.0), 0, 0);
  // No temporary file is left beside either.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_ / "real"), fs::directory_iterator()), 2);
}

TEST_F(SaveTargets, AnythingButARegularFileIsRefusedAndLeftAlone) {
  const std::string fifo = path("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_THROWS_WITH(save_safetensors(fifo, {{"t", ones({2})}}), "save_safetensors: " + fifo +
                                                " is not a regular file (a directory, FIFO, device or socket); "
                                                "refusing to replace it");
  EXPECT_TRUE(fs::is_fifo(fifo));
  fs::create_symlink("fifo", path("to_fifo"));
  EXPECT_THROWS_WITH(save_safetensors(path("to_fifo"), {{"t", ones({2})}}), path("to_fifo") + " -> " + fifo + " is not a regular file");
  EXPECT_TRUE(fs::is_fifo(fifo));
  fs::create_directory(path("sub"));
  EXPECT_THROWS_WITH(save_safetensors(path("sub"), {{"t", ones({2})}}), "is not a regular file");
  fs::create_symlink("loop_b", path("loop_a"));
  fs::create_symlink("loop_a", path("loop_b"));
  EXPECT_THROWS_WITH(save_safetensors(path("loop_a"), {{"t", ones({2})}}), "more than 40 levels of symbolic links");
  // Only what was there: no temporary files.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 5);
}

}  // namespace
}  // namespace ember
