// The CUDA runtime side of the backend: devices, streams, cuBLAS handles, memory and host copies,
// and the ember::cuda user API (cuda/cuda.h).
//
// Asking for a CUDA tensor on a machine without a usable GPU is an ember::Error that says why
// ("CUDA: no CUDA device available ..."), never an abort: the device count is read once, and a
// failed read counts as zero devices. Kernels live in the other cuda/*.cu files.
#include <array>
#include <atomic>
#include <mutex>

#include "core/generator.h"
#include "cuda/allocator.h"
#include "cuda/cuda.h"
#include "cuda/cuda_backend.h"
#include "cuda/kernels.h"

namespace ember {

Backend& cuda_backend() {
  static cuda::CudaBackend instance;
  return instance;
}

namespace cuda {

namespace {

constexpr int kMaxDevices = 64;

struct DeviceCount {
  int count = 0;
  std::string error;  // why there are none, when cudaGetDeviceCount failed
};

const DeviceCount& probe() {
  static const DeviceCount info = [] {
    DeviceCount d;
    cudaError_t err = cudaGetDeviceCount(&d.count);
    if (err != cudaSuccess) {
      d.count = 0;
      d.error = fmt::format("{}: {}", cudaGetErrorName(err), cudaGetErrorString(err));
      (void)cudaGetLastError();
    }
    return d;
  }();
  return info;
}

struct PerDevice {
  std::once_flag once;
  cudaStream_t stream = nullptr;
  cublasHandle_t cublas = nullptr;
};
std::array<PerDevice, kMaxDevices> g_devices;
std::atomic<bool> g_allow_tf32{false};

PerDevice& per_device(int index) {
  PerDevice& d = g_devices[index];
  std::call_once(d.once, [&] {
    EMBER_CUDA_CHECK(cudaStreamCreateWithFlags(&d.stream, cudaStreamNonBlocking));
    EMBER_CUBLAS_CHECK(cublasCreate(&d.cublas));
    EMBER_CUBLAS_CHECK(cublasSetStream(d.cublas, d.stream));
  });
  return d;
}

}  // namespace

cudaStream_t prepare(Device device) {
  const DeviceCount& info = probe();
  EMBER_CHECK(info.count > 0,
              "CUDA: no CUDA device available ({}); use device cpu, or check the GPU and driver with nvidia-smi",
              info.error.empty() ? "cudaGetDeviceCount found 0 devices" : info.error);
  EMBER_CHECK(device.index >= 0 && device.index < info.count && device.index < kMaxDevices,
              "CUDA: device {} requested but only {} CUDA device(s) are available", device.str(), info.count);
  EMBER_CUDA_CHECK(cudaSetDevice(device.index));
  return per_device(device.index).stream;
}

cudaStream_t stream(Device device) { return prepare(device); }

cublasHandle_t cublas_handle(Device device) {
  prepare(device);
  cublasHandle_t h = per_device(device.index).cublas;
  EMBER_CUBLAS_CHECK(cublasSetMathMode(h, g_allow_tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH));
  return h;
}

void check_launch(const char* name) {
  cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) [[likely]]
    return;
  EMBER_FAIL("CUDA error: kernel '{}' failed to launch: {} ({}){}", name, cudaGetErrorString(err),
             cudaGetErrorName(err),
             err == cudaErrorNoKernelImageForDevice
                 ? "; this GPU's architecture is not in the build's: reconfigure with "
                   "-DEMBER_CUDA_ARCHITECTURES=<its compute capability, e.g. 86-real> and rebuild"
                 : "");
}

void unsupported(const char* where, const char* what, int value) {
  EMBER_FAIL("CUDA backend: {} has no case for {} {} (a new dtype or op needs its CUDA kernel)", where, what, value);
}

// ---- ember::cuda user API ----

bool is_available() { return probe().count > 0; }
int device_count() { return probe().count; }

void synchronize() {
  if (!is_available()) return;
  int device = 0;
  EMBER_CUDA_CHECK(cudaGetDevice(&device));
  EMBER_CUDA_CHECK(cudaStreamSynchronize(prepare(Device(kCUDA, device))));
}

void manual_seed(uint64_t seed) { philox_manual_seed(seed); }

size_t memory_allocated(int device) { return device_allocator(device).stats().allocated; }
size_t max_memory_allocated(int device) { return device_allocator(device).stats().max_allocated; }
size_t memory_reserved(int device) { return device_allocator(device).stats().reserved; }
void reset_peak_memory_stats(int device) { device_allocator(device).reset_peak(); }
void empty_cache() {
  if (!is_available()) return;
  synchronize();
  empty_all_caches();
}

void set_allow_tf32(bool allow) { g_allow_tf32 = allow; }
bool allow_tf32() { return g_allow_tf32; }

}  // namespace cuda

// ---- memory and host copies ----

namespace cuda {

void* CudaBackend::allocate(size_t nbytes, Device device) {
  prepare(device);
  return device_allocator(device.index).allocate(nbytes);
}

void CudaBackend::deallocate(void* ptr, Device device) { device_allocator(device.index).deallocate(ptr); }

void CudaBackend::copy_to_host(void* dst, const void* src, size_t nbytes, Device device) {
  cudaStream_t s = prepare(device);
  if (nbytes == 0) return;
  EMBER_CUDA_CHECK(cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyDeviceToHost, s));
  EMBER_CUDA_CHECK(cudaStreamSynchronize(s));  // the caller reads dst next
}

void CudaBackend::copy_from_host(void* dst, const void* src, size_t nbytes, Device device) {
  cudaStream_t s = prepare(device);
  if (nbytes == 0) return;
  EMBER_CUDA_CHECK(cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyHostToDevice, s));
  EMBER_CUDA_CHECK(cudaStreamSynchronize(s));  // the caller may free or reuse src right after
}

}  // namespace cuda
}  // namespace ember
