// cudaMalloc and cudaFree behind the DeviceMemory interface, one caching allocator per device.
//
// Only this file calls cudaMalloc; the rounding, free lists and statistics it feeds are in
// core/caching_allocator.h, where the host tests can reach them without a GPU.
#include "cuda/allocator.h"

#include <array>
#include <mutex>

#include "cuda/cuda_backend.h"

namespace ember::cuda {

namespace {

constexpr int kMaxDevices = 64;

class CudaMemory final : public DeviceMemory {
 public:
  explicit CudaMemory(int device) : device_(device) {}

  void* raw_alloc(size_t nbytes) override {
    prepare(Device(kCUDA, device_));
    void* p = nullptr;
    cudaError_t err = cudaMalloc(&p, nbytes);
    if (err == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();  // clear the error so the next launch check does not report it
      return nullptr;
    }
    EMBER_CUDA_CHECK(err);
    return p;
  }

  void raw_free(void* p) override { EMBER_CUDA_CHECK(cudaFree(p)); }  // cudaFree finds the device itself

  std::string describe() override {
    size_t free = 0, total = 0;
    if (cudaMemGetInfo(&free, &total) != cudaSuccess) return {};
    return fmt::format("device {} has {} free of {} total", device_, format_bytes(free), format_bytes(total));
  }

 private:
  int device_;
};

std::mutex g_mutex;
std::array<CachingAllocator*, kMaxDevices> g_allocators{};

}  // namespace

CachingAllocator& device_allocator(int device) {
  EMBER_CHECK(device >= 0 && device < kMaxDevices, "CUDA: device index {} out of range", device);
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_allocators[device] == nullptr) {
    // Deliberately leaked: see the header.
    g_allocators[device] = new CachingAllocator(*new CudaMemory(device));
  }
  return *g_allocators[device];
}

void empty_all_caches() {
  std::array<CachingAllocator*, kMaxDevices> all;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    all = g_allocators;
  }
  for (CachingAllocator* a : all)
    if (a) a->empty_cache();
}

}  // namespace ember::cuda
