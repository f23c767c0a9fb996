// The CUDA caching allocator: core/caching_allocator.h's bookkeeping over cudaMalloc/cudaFree.
//
//   void* p = ember::cuda::device_allocator(0).allocate(4096);
//   ember::cuda::device_allocator(0).deallocate(p);    // cached for the next 4096-byte request
//
// One allocator per device, created at first use and kept for the life of the process (never
// destroyed, so no cudaFree runs after the CUDA runtime has shut down at exit). Blocks are used on
// the device's one stream, so a freed block can be handed out again without synchronising.
#pragma once

#include "core/caching_allocator.h"

namespace ember::cuda {

CachingAllocator& device_allocator(int device);
// Frees the cached blocks of every device that has an allocator.
void empty_all_caches();

}  // namespace ember::cuda
