// ember::cuda: what a user asks of the CUDA runtime, mirroring torch::cuda.
//
//   if (ember::cuda::is_available()) model->to(ember::kCUDA);
//
// In a build without CUDA these report no devices (is_available() is false) instead of failing.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ember::cuda {

bool is_available();
int device_count();
void synchronize();
void manual_seed(uint64_t seed);
// Bytes held by live tensors / the most ever held, on device `device`.
size_t memory_allocated(int device = 0);
size_t max_memory_allocated(int device = 0);
void reset_peak_memory_stats(int device = 0);
// Returns cached, unused blocks to the driver.
void empty_cache();

}  // namespace ember::cuda
