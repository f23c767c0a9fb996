// The host-side logic of the CUDA backend, tested without a GPU and in every build: the caching
// allocator's bookkeeping (over a fake device), launch shapes, strided index arithmetic, and what
// the public API does when no GPU can be used.
//
// The allocator and index arithmetic are plain C++ headers (core/caching_allocator.h,
// cuda/launch.h) that the CUDA backend compiles into its kernels unchanged, so these tests check
// the very code that runs on the device.
#include <map>
#include <numeric>

#include "core/caching_allocator.h"
#include "core/shape.h"
#include "cuda/launch.h"
#include "test_util.h"

using namespace ember;

namespace {

// A device with `capacity` bytes; hands out distinct fake addresses and counts calls.
class FakeDevice : public DeviceMemory {
 public:
  explicit FakeDevice(size_t capacity) : capacity_(capacity) {}
  void* raw_alloc(size_t n) override {
    if (used_ + n > capacity_) return nullptr;
    used_ += n;
    ++allocs;
    void* p = reinterpret_cast<void*>(next_);
    next_ += n + 4096;
    sizes_[p] = n;
    return p;
  }
  void raw_free(void* p) override {
    used_ -= sizes_.at(p);
    sizes_.erase(p);
    ++frees;
  }
  std::string describe() override { return fmt::format("fake device has {} of {} in use", used_, capacity_); }
  size_t used() const { return used_; }
  int allocs = 0, frees = 0;

 private:
  size_t capacity_, used_ = 0;
  uintptr_t next_ = 0x10000;
  std::map<void*, size_t> sizes_;
};

constexpr size_t kMiB = size_t(1) << 20;

}  // namespace

// ---- size classes ----

TEST(CudaAllocatorHost, RoundsSmallRequestsTo512BytesAndLargeOnesTo2MiB) {
  EXPECT_EQ(round_block_size(0), 0u);
  EXPECT_EQ(round_block_size(1), 512u);
  EXPECT_EQ(round_block_size(512), 512u);
  EXPECT_EQ(round_block_size(513), 1024u);
  EXPECT_EQ(round_block_size(kMiB), kMiB);          // the largest small request
  EXPECT_EQ(round_block_size(kMiB + 1), 2 * kMiB);  // the smallest large one
  EXPECT_EQ(round_block_size(3 * kMiB), 4 * kMiB);
  EXPECT_EQ(round_block_size(4 * kMiB), 4 * kMiB);
}

TEST(CudaAllocatorHost, FormatsByteCountsForMessages) {
  EXPECT_EQ(format_bytes(100), "100 bytes");
  EXPECT_EQ(format_bytes(1536), "1.50 KiB");
  EXPECT_EQ(format_bytes(3 * kMiB), "3.00 MiB");
  EXPECT_EQ(format_bytes(size_t(5) << 30), "5.00 GiB");
  EXPECT_EQ(format_bytes(size_t(16) << 40), "16.00 TiB");
}

// ---- reuse and statistics ----

TEST(CudaAllocatorHost, ReusesAFreedBlockOfTheSameSizeClass) {
  FakeDevice dev(64 * kMiB);
  CachingAllocator alloc(dev);
  void* a = alloc.allocate(1000);  // class 1024
  alloc.deallocate(a);
  void* b = alloc.allocate(900);  // class 1024 again: the cached block, no device call
  EXPECT_EQ(a, b);
  EXPECT_EQ(dev.allocs, 1);
  void* c = alloc.allocate(2000);  // class 2048: a new block
  EXPECT_NE(c, b);
  EXPECT_EQ(dev.allocs, 2);
  alloc.deallocate(b);
  alloc.deallocate(c);
  EXPECT_EQ(dev.frees, 0);  // freed blocks stay cached
}

TEST(CudaAllocatorHost, DoesNotHandOutOneBlockTwice) {
  FakeDevice dev(64 * kMiB);
  CachingAllocator alloc(dev);
  void* a = alloc.allocate(100);
  void* b = alloc.allocate(100);
  EXPECT_NE(a, b);
  alloc.deallocate(a);
  alloc.deallocate(b);
  void* c = alloc.allocate(100);
  void* d = alloc.allocate(100);
  EXPECT_NE(c, d);
  EXPECT_TRUE((c == a || c == b) && (d == a || d == b));
  EXPECT_EQ(dev.allocs, 2);
}

TEST(CudaAllocatorHost, CountsAllocatedPeakAndReservedBytes) {
  FakeDevice dev(64 * kMiB);
  CachingAllocator alloc(dev);
  void* a = alloc.allocate(1000);      // 1024
  void* b = alloc.allocate(3 * kMiB);  // 4 MiB
  EXPECT_EQ(alloc.stats().allocated, 1024 + 4 * kMiB);
  alloc.deallocate(b);
  AllocatorStats s = alloc.stats();
  EXPECT_EQ(s.allocated, 1024u);
  EXPECT_EQ(s.max_allocated, 1024 + 4 * kMiB);
  EXPECT_EQ(s.reserved, 1024 + 4 * kMiB);  // b is cached, still held from the device
  EXPECT_EQ(alloc.cached_bytes(), 4 * kMiB);
  alloc.reset_peak();
  EXPECT_EQ(alloc.stats().max_allocated, 1024u);
  alloc.deallocate(a);
  EXPECT_EQ(alloc.stats().allocated, 0u);
}

TEST(CudaAllocatorHost, EmptyCacheReturnsOnlyFreeBlocksToTheDevice) {
  FakeDevice dev(64 * kMiB);
  CachingAllocator alloc(dev);
  void* live = alloc.allocate(512);
  void* dead = alloc.allocate(5 * kMiB);
  alloc.deallocate(dead);
  alloc.empty_cache();
  EXPECT_EQ(dev.frees, 1);
  EXPECT_EQ(dev.used(), 512u);
  EXPECT_EQ(alloc.stats().reserved, 512u);
  alloc.deallocate(live);
  void* again = alloc.allocate(512);  // the live block went to the cache, not the device
  EXPECT_EQ(again, live);
  alloc.deallocate(again);
}

TEST(CudaAllocatorHost, ZeroBytesAndNullNeedNoDevice) {
  FakeDevice dev(kMiB);
  CachingAllocator alloc(dev);
  EXPECT_EQ(alloc.allocate(0), nullptr);
  alloc.deallocate(nullptr);
  EXPECT_EQ(dev.allocs, 0);
}

// ---- out of memory ----

TEST(CudaAllocatorHost, FreesTheCacheAndRetriesBeforeGivingUp) {
  FakeDevice dev(8 * kMiB);
  CachingAllocator alloc(dev);
  void* a = alloc.allocate(4 * kMiB);
  void* b = alloc.allocate(2 * kMiB);
  alloc.deallocate(a);
  alloc.deallocate(b);                 // 6 MiB cached, 2 MiB left on the device
  void* c = alloc.allocate(8 * kMiB);  // fits only once the cache is given back
  EXPECT_NE(c, nullptr);
  EXPECT_EQ(dev.frees, 2);
  EXPECT_EQ(alloc.stats().reserved, 8 * kMiB);
  alloc.deallocate(c);
}

TEST(CudaAllocatorHost, OutOfMemoryIsAnErrorWithTheSizes) {
  FakeDevice dev(4 * kMiB);
  CachingAllocator alloc(dev);
  void* a = alloc.allocate(3 * kMiB);  // 4 MiB held by a tensor
  EXPECT_THROWS_WITH(alloc.allocate(5 * kMiB),
                     "CUDA out of memory: tried to allocate 6.00 MiB (requested 5242880 bytes)");
  EXPECT_THROWS_WITH(alloc.allocate(5 * kMiB), "4.00 MiB already allocated by tensors");
  EXPECT_THROWS_WITH(alloc.allocate(5 * kMiB), "fake device has 4194304 of 4194304 in use");
  // The failure leaves the allocator usable and its statistics unchanged.
  EXPECT_EQ(alloc.stats().allocated, 4 * kMiB);
  alloc.deallocate(a);
  void* b = alloc.allocate(3 * kMiB);
  EXPECT_EQ(b, a);
  alloc.deallocate(b);
}

TEST(CudaAllocatorHost, FreeingAForeignPointerIsAnError) {
  FakeDevice dev(kMiB);
  CachingAllocator alloc(dev);
  int x = 0;
  EXPECT_THROWS_WITH(alloc.deallocate(&x), "CUDA allocator: freeing a pointer it did not allocate");
}

// ---- launch shapes ----

TEST(CudaLaunchHost, GridCoversEveryElementUpToTheCap) {
  using cuda::launch_1d;
  EXPECT_EQ(launch_1d(0).grid, 0);
  EXPECT_EQ(launch_1d(1).grid, 1);
  EXPECT_EQ(launch_1d(256).grid, 1);
  EXPECT_EQ(launch_1d(257).grid, 2);
  EXPECT_EQ(launch_1d(1000, 128).grid, 8);
  EXPECT_EQ(launch_1d(1000, 128).block, 128);
  EXPECT_EQ(launch_1d(int64_t(1) << 40).grid, cuda::kMaxGrid);  // the kernels grid-stride over the rest
}

TEST(CudaLaunchHost, RowBlocksAreAPowerOfTwoBetweenAWarpAnd1024) {
  using cuda::block_for_row;
  EXPECT_EQ(block_for_row(0), 32);
  EXPECT_EQ(block_for_row(1), 32);
  EXPECT_EQ(block_for_row(32), 32);
  EXPECT_EQ(block_for_row(33), 64);
  EXPECT_EQ(block_for_row(65), 128);
  EXPECT_EQ(block_for_row(1000), 1024);
  EXPECT_EQ(block_for_row(50257), 1024);
}

TEST(CudaLaunchHost, BlocksAroundADim) {
  cuda::Blocks3 b = cuda::blocks_around({2, 3, 4, 5}, 1);
  EXPECT_EQ(b.outer, 2);
  EXPECT_EQ(b.len, 3);
  EXPECT_EQ(b.inner, 20);
  b = cuda::blocks_around({7}, 0);
  EXPECT_EQ(b.outer * b.len * b.inner, 7);
}

// ---- strided offsets: OffsetCalc against the definition, on real views ----

namespace {

// The definition: unravel i in row-major `sizes`, dot with `strides`.
int64_t naive_offset(IntArrayRef sizes, IntArrayRef strides, int64_t i) {
  int64_t off = 0;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    off += (i % sizes[d]) * strides[d];
    i /= sizes[d];
  }
  return off;
}

// Checks every element's offsets for (out contiguous, view) pairs; returns the merged dim count.
int check_offsets(const Tensor& view) {
  const std::vector<int64_t> out_strides = contiguous_strides(view.sizes());
  const cuda::MergedDims<2> m = cuda::merge_dims<2>(view.sizes().vec(), {out_strides, view.strides().vec()});
  const cuda::OffsetCalc<2> calc = cuda::make_offset_calc<2>(m);
  for (int64_t i = 0; i < view.numel(); ++i) {
    const auto off = calc.offsets(i);
    EXPECT_EQ(off[0], i) << "element " << i;
    EXPECT_EQ(off[1], naive_offset(view.sizes(), view.strides(), i)) << "element " << i << " of shape " << view.sizes();
  }
  return calc.ndim;
}

}  // namespace

TEST(CudaLaunchHost, ContiguousTensorsMergeIntoOneDim) {
  EXPECT_EQ(check_offsets(zeros({2, 3, 4})), 1);
  EXPECT_EQ(check_offsets(zeros({1, 5, 1})), 1);
}

TEST(CudaLaunchHost, OffsetsOfTransposedSlicedAndBroadcastViews) {
  Tensor base = zeros({4, 6, 5});
  EXPECT_EQ(check_offsets(base.transpose(0, 2)), 3);
  EXPECT_EQ(check_offsets(base.permute({1, 2, 0})), 2);  // dims 1 and 2 stay adjacent: merged
  EXPECT_EQ(check_offsets(base.slice(1, 1, 6, 2)), 2);   // strides (30, 10, 1): dims 0 and 1 still merge
  EXPECT_EQ(check_offsets(base.narrow(2, 1, 3).transpose(0, 1)), 3);
  EXPECT_EQ(check_offsets(base.select(1, 2)), 2);
  EXPECT_EQ(check_offsets(zeros({1, 5}).expand({3, 5})), 2);  // stride 0 for the broadcast dim
  EXPECT_EQ(check_offsets(zeros({3, 1}).expand({3, 4})), 2);
  EXPECT_EQ(check_offsets(zeros({}).expand({2, 3})), 1);  // every element at offset 0
}

TEST(CudaLaunchHost, ScalarsAndEmptyTensors) {
  EXPECT_EQ(check_offsets(zeros({})), 0);  // no dims: the one element sits at offset 0
  const cuda::MergedDims<1> m = cuda::merge_dims<1>({3, 0, 2}, {std::vector<int64_t>{0, 2, 1}});
  EXPECT_EQ(cuda::make_offset_calc<1>(m).offsets(0)[0], 0);
}

TEST(CudaLaunchHost, ManyUnmergeableDimsAreReportedNotTruncatedSilently) {
  // A 13-d permuted tensor: no two neighbours merge, more than the kernels take.
  std::vector<int64_t> sizes(13, 2), perm(13);
  std::iota(perm.rbegin(), perm.rend(), 0);
  Tensor t = zeros(sizes).permute(perm);
  const cuda::MergedDims<1> m = cuda::merge_dims<1>(t.sizes().vec(), {t.strides().vec()});
  EXPECT_EQ(m.sizes.size(), 13u);
  EXPECT_GT(m.sizes.size(), static_cast<size_t>(cuda::kMaxDims));
}

// ---- the public API without a usable GPU ----

TEST(CudaApiHost, WithoutADeviceEverythingReportsNoneAndCudaTensorsAreAClearError) {
  if (cuda::is_available()) GTEST_SKIP() << "a CUDA device is present; this test covers machines without one";
  EXPECT_EQ(cuda::device_count(), 0);
  EXPECT_EQ(cuda::memory_allocated(), 0u);
  EXPECT_EQ(cuda::max_memory_allocated(), 0u);
  EXPECT_NO_THROW(cuda::synchronize());
  EXPECT_NO_THROW(cuda::empty_cache());
  EXPECT_FALSE(cuda::allow_tf32());
#ifdef EMBER_WITH_CUDA
  const char* why = "CUDA: no CUDA device available";
#else
  const char* why = "CUDA: Ember was built without CUDA support";
#endif
  EXPECT_THROWS_WITH(ones({2, 3}).to(kCUDA), why);
  EXPECT_THROWS_WITH(zeros({2}, device(kCUDA)), why);
  EXPECT_THROWS_WITH(zeros({0}, device(Device("cuda:1"))), why);
  EXPECT_THROWS_WITH(randn({4}).cuda(), why);
}
