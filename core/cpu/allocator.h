// CPU memory for tensors: 64-byte aligned blocks, with large blocks cached for reuse.
//
// A training step frees and allocates the same large activations every step. Handed back to the
// system, each one comes back as fresh pages the kernel must fault in and zero: a third of a
// video-preset GPT step went to that. Blocks of kCacheFrom bytes and more are therefore kept in a
// CachingAllocator (core/caching_allocator.h, the CUDA backend's bookkeeping) and reused by size
// class; smaller ones go straight to malloc, which already reuses them. The cache holds at most as
// many bytes as tensors have held at once since the last cpu_empty_cache() (CacheLimit::kPeakInUse),
// so a run of ever-new sizes cannot pile up freed memory. Under AddressSanitizer
// nothing is cached, so every use after free is still caught.
#pragma once

#include <cstddef>

#include "core/caching_allocator.h"
#include "core/sanitizers.h"

namespace ember {

// This machine's memory in bytes: its RAM, or with_swap its RAM and swap together (no single block
// larger than that can ever be backed); SIZE_MAX when the system does not say.
size_t system_memory_bytes(bool with_swap = false);

}  // namespace ember

namespace ember::cpu {

inline constexpr size_t kAlignment = 64;  // one cache line, and room for AVX-512 loads
// Under ASan freed blocks go back to ASan at once, so that it sees any later use of them.
#ifdef EMBER_ASAN
inline constexpr size_t kCacheFrom = ~size_t(0);
#else
inline constexpr size_t kCacheFrom = size_t(256) << 10;  // glibc hands blocks this big to mmap
#endif

void* cpu_allocate(size_t nbytes);
void cpu_deallocate(void* ptr);
// Bytes held in freed blocks kept for reuse.
size_t cpu_cached_bytes();
// The statistics of blocks of kCacheFrom bytes and more (smaller ones are malloc's), as
// torch.cuda.memory_stats; the reset restarts max_allocated from the bytes in use now.
AllocatorStats cpu_memory_stats();
void cpu_reset_peak_memory_stats();
// Gives every cached block back to the system (live tensors are untouched); returns the bytes freed.
size_t cpu_empty_cache();

}  // namespace ember::cpu
