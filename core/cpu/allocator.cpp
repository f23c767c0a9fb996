// CPU allocation (see allocator.h). Each block carries a 64-byte header in front of the tensor's
// bytes saying where it came from, so deallocate needs no size and no lookup for small blocks.
#include "core/cpu/allocator.h"

#include <cstdint>
#include <cstdlib>

#include <sys/sysinfo.h>

#include "core/caching_allocator.h"
#include "core/error.h"

namespace ember {

size_t system_memory_bytes(bool with_swap) {
  struct sysinfo info {};
  if (::sysinfo(&info) != 0) return SIZE_MAX;
  const size_t units = static_cast<size_t>(info.totalram) + (with_swap ? static_cast<size_t>(info.totalswap) : 0);
  return units * info.mem_unit;
}

}  // namespace ember

namespace ember::cpu {

namespace {

struct SystemMemory final : DeviceMemory {
  void* raw_alloc(size_t nbytes) override { return std::aligned_alloc(kAlignment, nbytes); }
  void raw_free(void* ptr) override { std::free(ptr); }
};

// Never destroyed: tensors held in static objects may be freed after other statics are gone.
CachingAllocator& large_blocks() {
  static SystemMemory* memory = new SystemMemory();
  static CachingAllocator* cache = new CachingAllocator(*memory, "cpu", CacheLimit::kPeakInUse);
  return *cache;
}

enum Origin : uint64_t { kFromMalloc = 0x6d616c6c6f63ull, kFromCache = 0x6361636865ull };

}  // namespace

void* cpu_allocate(size_t nbytes) {
  // Refused here rather than left to malloc, so the answer does not depend on the kernel's
  // overcommit policy, and a sanitizer's allocator does not abort the process on it.
  static const size_t limit =
      system_memory_bytes(/*with_swap=*/true);  // read once: a system call per allocation would cost
  if (nbytes > limit)
    throw OutOfMemoryError(
        fmt::format("cpu out of memory: tried to allocate {} (requested {} bytes), more than the "
                    "{} of memory and swap this machine has",
                    format_bytes(nbytes), nbytes, format_bytes(limit)));
  const size_t total = (nbytes + kAlignment - 1) / kAlignment * kAlignment + kAlignment;
  const bool cached = total >= kCacheFrom;
  void* base = cached ? large_blocks().allocate(total) : std::aligned_alloc(kAlignment, total);
  if (base == nullptr)
    throw OutOfMemoryError(
        fmt::format("cpu out of memory: tried to allocate {} (requested {} bytes)", format_bytes(total), nbytes));
  *static_cast<uint64_t*>(base) = cached ? kFromCache : kFromMalloc;
  return static_cast<char*>(base) + kAlignment;
}

void cpu_deallocate(void* ptr) {
  if (ptr == nullptr) return;
  void* base = static_cast<char*>(ptr) - kAlignment;
  const uint64_t origin = *static_cast<uint64_t*>(base);
  EMBER_CHECK(origin == kFromCache || origin == kFromMalloc, "cpu allocator: freeing a block it did not allocate");
  if (origin == kFromCache) {
    large_blocks().deallocate(base);
  } else {
    std::free(base);
  }
}

size_t cpu_cached_bytes() { return large_blocks().cached_bytes(); }
AllocatorStats cpu_memory_stats() { return large_blocks().stats(); }
void cpu_reset_peak_memory_stats() { large_blocks().reset_peak(); }

size_t cpu_empty_cache() {
  const size_t before = large_blocks().cached_bytes();
  large_blocks().empty_cache();
  return before;
}

}  // namespace ember::cpu
