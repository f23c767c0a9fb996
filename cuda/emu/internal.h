// What the emulator's two halves share: runtime.cpp (device memory, streams, copies, errors) and
// scheduler.cpp (kernel launches: blocks, fibers, barriers). Not for kernels or Ember's backend;
// those see cuda_runtime.h and emu.h only.
//
// Device memory is closed (PROT_NONE) whenever the host runs, and a kernel, an emulated copy or a
// cuBLAS call opens only the allocations it was given, so host code that reads a device pointer,
// or a kernel that reads outside its arguments' allocations, faults at once and the fault handler
// names the allocation. DeviceAccess is the one way to open it.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "core/sanitizers.h"
// Under ASan the fiber switches are announced to it (runtime.cpp, scheduler.cpp).
#ifdef EMBER_ASAN
#define EMBER_EMU_ASAN 1
#endif

namespace ember::cuda::emu {

// ---- limits of the emulated device (an H100's): reported by runtime.cpp, enforced by scheduler.cpp ----
inline constexpr unsigned kMaxThreadsPerBlock = 1024;
inline constexpr unsigned kMaxBlockDim[3] = {1024, 1024, 64};
inline constexpr unsigned kMaxGridX = 2147483647u, kMaxGridYZ = 65535;
inline constexpr size_t kSharedDefault = 48 * 1024;  // dynamic shared memory per block, without opting in
inline constexpr size_t kSharedOptin = 227 * 1024;   // with cudaFuncAttributeMaxDynamicSharedMemorySize
inline constexpr unsigned char kPoisonByte = 0xFF;   // fresh and freed device memory: NaN as float and double

// ---- errors (runtime.cpp) ----
// A non-sticky error: the call returns it, and cudaGetLastError returns it once.
cudaError_t fail(cudaError_t err, const std::string& detail);
// An error of a running kernel: sticky, surfacing at the next synchronizing call.
void fail_sticky(cudaError_t err, const std::string& detail);
// What a call returns before doing anything: the sticky error once it has been reported.
cudaError_t dead_context();
bool valid_stream(cudaStream_t s);

// ---- device memory (runtime.cpp) ----
// "" when [p, p + n) lies inside one live allocation, else what is wrong with it.
std::string check_device_range(const void* p, size_t n);

// Opens device allocations until it is destroyed: each kernel, copy and cuBLAS call opens those its
// pointers point into, and nothing else (to page granularity: allocations are 256-byte aligned).
class DeviceAccess {
 public:
  DeviceAccess() = default;
  ~DeviceAccess();
  DeviceAccess(const DeviceAccess&) = delete;
  DeviceAccess& operator=(const DeviceAccess&) = delete;
  void open(const void* p);  // the live allocation p points into; nothing when there is none

 private:
  std::vector<std::pair<unsigned char*, size_t>> opened_;  // pages
};

// The kernel whose blocks are running on this thread (for the fault handler's message), or null.
extern thread_local const char* t_running_kernel;

// ---- small helpers ----
std::string hex(const void* p);
size_t env_size(const char* name, size_t fallback);
void poison(void* p, size_t n);  // ASan: p[0, n) must not be touched
void unpoison(void* p, size_t n);

}  // namespace ember::cuda::emu
