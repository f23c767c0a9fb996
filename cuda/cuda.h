// ember::cuda: what a user asks of the CUDA runtime, mirroring torch::cuda.
//
//   if (ember::cuda::is_available()) model->to(ember::kCUDA);
//   ember::Tensor x = ember::randn({64, 64}).to(ember::kCUDA);
//   std::cout << ember::cuda::memory_allocated() << " bytes held by CUDA tensors\n";
//
// In a build without CUDA, or on a machine without a usable GPU, these report no devices
// (is_available() is false, statistics are 0) instead of failing; asking for a CUDA tensor there
// throws ember::Error saying why.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ember::cuda {

bool is_available();
int device_count();
// Waits until every kernel queued on the current device has finished.
void synchronize();
// Seeds the Philox stream of CUDA's dropout kernels (core/generator.h's philox_manual_seed), as
// ember::manual_seed also does. Other random fills of CUDA tensors (rand, randn, bernoulli_) come
// from Ember's CPU generator on the host (core/random.cpp): seed those with ember::manual_seed.
void manual_seed(uint64_t seed);
// Bytes held by live tensors / the most ever held / held from the driver including the cache,
// on device `device` (rounded to the allocator's size classes, as PyTorch reports them).
size_t memory_allocated(int device = 0);
size_t max_memory_allocated(int device = 0);
size_t memory_reserved(int device = 0);
void reset_peak_memory_stats(int device = 0);
// Returns cached, unused blocks to the driver.
void empty_cache();
// torch.backends.cuda.matmul.allow_tf32: off by default, so float32 matmul is full precision.
void set_allow_tf32(bool allow);
bool allow_tf32();

}  // namespace ember::cuda
