// The bookkeeping of a caching device allocator: size classes, free lists and memory statistics.
//
//   struct Fake : ember::DeviceMemory { ... };     // or cuda/allocator.cpp's cudaMalloc wrapper
//   ember::CachingAllocator alloc(fake);
//   void* p = alloc.allocate(1000);                // 1024 bytes come from the device
//   alloc.deallocate(p);                           // kept in the 1024-byte free list, not freed
//   void* q = alloc.allocate(900);                 // the same block again, no device call
//
// Device allocations are slow and synchronising, so freed blocks are kept and reused by rounded
// size, as PyTorch's CUDA caching allocator does. This file knows nothing of CUDA: the device is a
// DeviceMemory interface, so the logic is compiled into every build and unit tested on the host
// with a fake device (tests/cuda/test_cuda_host.cpp). It deliberately does not split or merge blocks.
// With CacheLimit::kPeakInUse (the CPU's) the cache never holds more bytes than tensors have held
// at once since the last empty_cache(): past that, the blocks freed longest ago go back first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/error.h"

namespace ember {

// Where the bytes really come from. raw_alloc returns nullptr when the device is out of memory.
class DeviceMemory {
 public:
  virtual ~DeviceMemory() = default;
  virtual void* raw_alloc(size_t nbytes) = 0;
  virtual void raw_free(void* ptr) = 0;
  // A line about the device's own view of its memory, added to out-of-memory errors.
  virtual std::string describe() { return {}; }
};

inline constexpr size_t kSmallBlockQuantum = 512;              // small requests round to 512 bytes
inline constexpr size_t kSmallBlockLimit = size_t(1) << 20;    // requests up to 1 MiB are "small"
inline constexpr size_t kLargeBlockQuantum = size_t(2) << 20;  // larger ones round to 2 MiB

// The size class a request of `nbytes` is served from (0 stays 0).
inline size_t round_block_size(size_t nbytes) {
  const size_t q = nbytes <= kSmallBlockLimit ? kSmallBlockQuantum : kLargeBlockQuantum;
  return (nbytes + q - 1) / q * q;
}

// Human-readable byte counts for error messages: "1.50 MiB".
inline std::string format_bytes(size_t n) {
  if (n < 1024) return fmt::format("{} bytes", n);
  if (n < (size_t(1) << 20)) return fmt::format("{:.2f} KiB", n / 1024.0);
  if (n < (size_t(1) << 30)) return fmt::format("{:.2f} MiB", n / double(size_t(1) << 20));
  if (n < (size_t(1) << 40)) return fmt::format("{:.2f} GiB", n / double(size_t(1) << 30));
  return fmt::format("{:.2f} TiB", n / double(size_t(1) << 40));
}

struct AllocatorStats {
  size_t allocated = 0;      // bytes in blocks handed out (rounded sizes)
  size_t max_allocated = 0;  // peak of `allocated` since the last reset
  size_t reserved = 0;       // bytes held from the device: allocated + cached
  size_t device_allocs = 0;  // calls that reached the device (a cache miss)
};

// How many freed bytes a CachingAllocator keeps for reuse.
enum class CacheLimit {
  kUnbounded,  // all of them, until the device runs out (PyTorch's CUDA allocator)
  kPeakInUse,  // at most the peak of bytes in use since the last empty_cache(), oldest freed go first
};

class CachingAllocator {
 public:
  // `device_name` starts its error messages ("CUDA out of memory: ...").
  explicit CachingAllocator(DeviceMemory& device, std::string device_name = "CUDA",
                            CacheLimit limit = CacheLimit::kUnbounded)
      : device_(device), name_(std::move(device_name)), limit_(limit) {}
  ~CachingAllocator() { empty_cache(); }
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  // A block of at least `nbytes`; reuses a cached block of the same size class when there is one.
  // On a device out-of-memory, frees the cache and tries once more, then throws OutOfMemoryError.
  void* allocate(size_t nbytes) {
    if (nbytes == 0) return nullptr;
    if (nbytes > SIZE_MAX - kLargeBlockQuantum)  // rounding up to a size class would wrap around
      throw OutOfMemoryError(fmt::format("{} out of memory: tried to allocate {} bytes", name_, nbytes));
    std::lock_guard<std::mutex> lock(mutex_);
    const size_t size = round_block_size(nbytes);
    void* p = nullptr;
    auto it = free_.find(size);
    if (it != free_.end()) {
      auto block = it->second.back();  // the most recently freed block of this class
      p = block->ptr;
      it->second.pop_back();
      if (it->second.empty()) free_.erase(it);
      freed_order_.erase(block);
    } else {
      p = device_.raw_alloc(size);
      if (p == nullptr) {
        release_cached();
        p = device_.raw_alloc(size);
      }
      if (p == nullptr) {
        std::string extra = device_.describe();
        throw OutOfMemoryError(fmt::format(
            "{} out of memory: tried to allocate {} (requested {} bytes); {} already allocated by tensors{}. "
            "Free tensors you no longer need, or use a smaller batch or model",
            name_, format_bytes(size), nbytes, format_bytes(stats_.allocated), extra.empty() ? "" : "; " + extra));
      }
      stats_.reserved += size;
      ++stats_.device_allocs;
    }
    live_[p] = size;
    stats_.allocated += size;
    if (stats_.allocated > stats_.max_allocated) stats_.max_allocated = stats_.allocated;
    if (stats_.allocated > peak_since_empty_) peak_since_empty_ = stats_.allocated;
    return p;
  }

  // Returns a block to its free list; the device memory stays reserved until empty_cache() or,
  // under CacheLimit::kPeakInUse, until the cache outgrows its limit.
  void deallocate(void* p) {
    if (p == nullptr) return;
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = live_.find(p);
    EMBER_CHECK(it != live_.end(), "{} allocator: freeing a pointer it did not allocate ({})", name_, p);
    const size_t size = it->second;
    stats_.allocated -= size;
    live_.erase(it);
    freed_order_.push_back({p, size});
    free_[size].push_back(std::prev(freed_order_.end()));
    if (limit_ == CacheLimit::kPeakInUse) {
      while (stats_.reserved - stats_.allocated > peak_since_empty_) release_oldest();
    }
  }

  // Gives every cached (free) block back to the device. Live blocks are untouched.
  void empty_cache() {
    std::lock_guard<std::mutex> lock(mutex_);
    release_cached();
  }

  AllocatorStats stats() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return stats_;
  }
  size_t cached_bytes() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return stats_.reserved - stats_.allocated;
  }
  void reset_peak() {
    std::lock_guard<std::mutex> lock(mutex_);
    stats_.max_allocated = stats_.allocated;
  }

 private:
  struct FreeBlock {
    void* ptr;
    size_t size;  // its size class
  };
  using FreeList = std::list<FreeBlock>;

  void release_cached() {
    for (const FreeBlock& b : freed_order_) {
      device_.raw_free(b.ptr);
      stats_.reserved -= b.size;
    }
    freed_order_.clear();
    free_.clear();
    peak_since_empty_ = stats_.allocated;
  }

  // Gives the block freed longest ago back to the device; it is the first of its size class.
  void release_oldest() {
    const FreeBlock oldest = freed_order_.front();
    auto it = free_.find(oldest.size);
    it->second.erase(it->second.begin());
    if (it->second.empty()) free_.erase(it);
    freed_order_.pop_front();
    device_.raw_free(oldest.ptr);
    stats_.reserved -= oldest.size;
  }

  DeviceMemory& device_;
  std::string name_;
  const CacheLimit limit_;
  mutable std::mutex mutex_;
  FreeList freed_order_;                                      // cached blocks, freed longest ago first
  std::map<size_t, std::vector<FreeList::iterator>> free_;  // size class -> its blocks in freed_order_
  std::unordered_map<void*, size_t> live_;                    // handed-out block -> its size class
  AllocatorStats stats_;
  size_t peak_since_empty_ = 0;  // most bytes handed out at once since the last empty_cache()
};

}  // namespace ember
