// The CUDA runtime side of the backend: devices, streams, cuBLAS handles, memory and host copies,
// and the ember::cuda user API (cuda/cuda.h).
//
// Asking for a CUDA tensor on a machine without a usable GPU is an ember::Error that says why
// ("CUDA: no CUDA device available ..."), never an abort: the device count is read once, and a
// failed read counts as zero devices. Kernels live in the other cuda/*.cu files.
//
// A kernel's fault is reported by whatever CUDA call comes next, so by default an error names a
// later kernel or copy; EMBER_CUDA_SYNC=1 (or CUDA_LAUNCH_BLOCKING=1) waits for every kernel right
// after its launch, so that check_launch names the one that failed. At exit the allocators' cached
// blocks, the cuBLAS handles and the streams are released, so that a leak checker sees real leaks only.
#include <array>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string_view>
#include <utility>

#include "core/generator.h"
#include "cuda/allocator.h"
#include "cuda/cuda.h"
#include "cuda/cuda_backend.h"
#include "cuda/kernels.h"
#include "cuda/plugin.h"

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

// The errors CUDA raises while a kernel runs (sticky: every later call returns them): illegal
// address, launch timeout, device assert, hardware stack error, illegal instruction, misaligned
// address, invalid address space, invalid PC, launch failure.
constexpr int kKernelFaults[] = {700, 702, 710, 714, 715, 716, 717, 718, 719};

bool is_kernel_fault(cudaError_t err) {
  for (int code : kKernelFaults)
    if (static_cast<int>(err) == code) return true;
  return false;
}

bool env_is_one(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && std::string_view(v) == "1";
}

std::atomic<int> g_sync_launches{-1};  // -1: not yet read from the environment

void release_at_exit();

PerDevice& per_device(int index) {
  PerDevice& d = g_devices[index];
  std::call_once(d.once, [&] {
    EMBER_CUDA_CHECK(cudaStreamCreateWithFlags(&d.stream, cudaStreamNonBlocking));
    EMBER_CUBLAS_CHECK(cublasCreate(&d.cublas));
    EMBER_CUBLAS_CHECK(cublasSetStream(d.cublas, d.stream));
    // Registered after the CUDA runtime has started, so it runs before the runtime's own teardown.
    static const bool registered = std::atexit(release_at_exit) == 0;
    (void)registered;
  });
  return d;
}

// Frees the cached device memory of every allocator, then each device's cuBLAS handle (and its
// workspace) and stream. Errors are ignored: at exit nobody can act on them. Memory that tensors
// still hold stays allocated (a real leak, if a checker reports it).
void release_at_exit() {
  try {
    empty_all_caches();
  } catch (const std::exception&) {
  }
  for (int i = 0; i < kMaxDevices; ++i) {
    PerDevice& d = g_devices[i];
    if (d.stream == nullptr) continue;
    (void)cudaSetDevice(i);
    (void)cudaStreamSynchronize(d.stream);
    if (d.cublas != nullptr) (void)cublasDestroy(d.cublas);
    (void)cudaStreamDestroy(d.stream);
    d.cublas = nullptr;
    d.stream = nullptr;
  }
  (void)cudaGetLastError();
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

bool sync_launches() {
  int sync = g_sync_launches.load(std::memory_order_relaxed);
  if (sync < 0) {
    sync = env_is_one("EMBER_CUDA_SYNC") || env_is_one("CUDA_LAUNCH_BLOCKING");
    g_sync_launches.store(sync, std::memory_order_relaxed);
  }
  return sync != 0;
}

void set_sync_launches(bool sync) { g_sync_launches.store(sync, std::memory_order_relaxed); }

std::string kernel_fault_hint(cudaError_t err) {
  if (!is_kernel_fault(err) || sync_launches()) return {};
  return "; a kernel launched earlier may have failed (CUDA reports a kernel's fault at a later call): "
         "rerun with EMBER_CUDA_SYNC=1 to wait for each kernel after its launch and name the one that failed";
}

void check_launch(const char* name) {
  cudaError_t err = cudaGetLastError();
  const bool sync = err == cudaSuccess && sync_launches();
  if (sync) err = cudaDeviceSynchronize();
  if (err == cudaSuccess) [[likely]]
    return;
  if (sync)
    EMBER_FAIL("CUDA error: kernel '{}' failed: {} ({}) (EMBER_CUDA_SYNC: the device was synchronised right after "
               "this kernel's launch, so this kernel is the one that failed)",
               name, cudaGetErrorString(err), cudaGetErrorName(err));
  if (is_kernel_fault(err))
    EMBER_FAIL("CUDA error at the launch of kernel '{}': {} ({}){}", name, cudaGetErrorString(err),
               cudaGetErrorName(err), kernel_fault_hint(err));
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

void unsupported_dtype(const char* op, ScalarType dtype) {
  EMBER_FAIL("{}: not implemented for '{}' on CUDA ({} tensors); convert to {} first (the CPU has it)", op,
             scalar_type_name(dtype), dtype_name(dtype), is_floating_point(dtype) ? "float32" : "int64");
}

void fail(const std::string& message) { EMBER_FAIL("{}", message); }

void check_cuda(cudaError_t err, const char* call) {
  if (err != cudaSuccess) [[unlikely]]
    EMBER_FAIL("CUDA error: {} failed: {} ({}){}", call, cudaGetErrorString(err), cudaGetErrorName(err),
               kernel_fault_hint(err));
}

void require_floating(ScalarType dtype, const char* op) {
  if (is_reduced_floating_point(dtype)) unsupported_dtype(op, dtype);
  dispatch_floating(dtype, op, []<typename T>() {});
}

void fail_too_many_dims(const char* op, const std::vector<int64_t>& sizes) {
  EMBER_FAIL(
      "{}: CUDA kernels take at most {} dims after merging contiguous ones, got shape {}; make the tensor "
      "contiguous first",
      op, kMaxDims, IntArrayRef(sizes));
}

// ---- launchers' scratch memory and host copies (cuda/kernels.h) ----

DeviceBuffer::DeviceBuffer(Device device, size_t nbytes)
    : device_(device), ptr_(cuda_backend().allocate(nbytes, device)) {}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_) cuda_backend().deallocate(ptr_, device_);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept : device_(other.device_), ptr_(other.ptr_) {
  other.ptr_ = nullptr;
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  std::swap(device_, other.device_);
  std::swap(ptr_, other.ptr_);  // other frees what this held
  return *this;
}

DeviceBuffer upload(Device device, const void* host, size_t nbytes) {
  DeviceBuffer buffer(device, nbytes);
  cuda_backend().copy_from_host(buffer.get(), host, nbytes, device);
  return buffer;
}

void download(void* host, const void* src, size_t nbytes, Device device) {
  cuda_backend().copy_to_host(host, src, nbytes, device);
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
#ifdef EMBER_CUDA_PLUGIN_BUILD
// libember_cuda.so's one entry point (cuda/plugin.h): the backend and the ember::cuda API above.
extern "C" EMBER_CUDA_EXPORT const void* ember_cuda_plugin() {
  static const cuda::PluginTable table = [] {
    cuda::PluginTable t;
    t.backend = &cuda_backend();
    t.is_available = cuda::is_available;
    t.device_count = cuda::device_count;
    t.synchronize = cuda::synchronize;
    t.memory_allocated = cuda::memory_allocated;
    t.max_memory_allocated = cuda::max_memory_allocated;
    t.memory_reserved = cuda::memory_reserved;
    t.reset_peak_memory_stats = cuda::reset_peak_memory_stats;
    t.empty_cache = cuda::empty_cache;
    t.set_allow_tf32 = cuda::set_allow_tf32;
    t.allow_tf32 = cuda::allow_tf32;
    return t;
  }();
  return &table;
}
#endif

}  // namespace ember
