// The CUDA backend: Backend's kernels on device memory, with cuBLAS for matmul.
//
// One class: runtime.cpp holds devices, streams, memory and host copies; every kernel method is
// generated (backend.cpp) as a call of the launcher of the same name (cuda/launchers.h) with
// TensorViews for Tensors, defined in the .cu file of its family (named as core/cpu/'s files);
// matmul.cpp's launchers call cuBLAS. Every kernel runs on the device's one stream, so kernels run
// in order and a copy to the host waits for the kernels before it. Every CUDA and cuBLAS call is
// checked with EMBER_CUDA_CHECK / EMBER_CUBLAS_CHECK, which throw ember::Error naming the call.
// Only cuda/ includes this header; everyone else reaches the backend through backend_for().
#pragma once

#include <cuda_runtime.h>

#include <cublas_v2.h>

#include "core/backend.h"
#include "cuda/kernels.h"
#include "cuda/plugin.h"

// Throws ember::Error naming the failed call and CUDA's description of the error (and, for a
// kernel's fault, that an earlier kernel may have caused it: cuda::kernel_fault_hint).
#define EMBER_CUDA_CHECK(call)                                                                  \
  do {                                                                                          \
    cudaError_t ember_err_ = (call);                                                            \
    if (ember_err_ != cudaSuccess) [[unlikely]] {                                               \
      EMBER_FAIL("CUDA error: {} failed: {} ({}){}", #call, cudaGetErrorString(ember_err_),     \
                 cudaGetErrorName(ember_err_), ::ember::cuda::kernel_fault_hint(ember_err_));   \
    }                                                                                           \
  } while (0)

#define EMBER_CUBLAS_CHECK(call)                                                              \
  do {                                                                                        \
    cublasStatus_t ember_st_ = (call);                                                        \
    if (ember_st_ != CUBLAS_STATUS_SUCCESS) [[unlikely]] {                                    \
      EMBER_FAIL("cuBLAS error: {} failed: {} ({})", #call, cublasGetStatusString(ember_st_), \
                 cublasGetStatusName(ember_st_));                                             \
    }                                                                                         \
  } while (0)

namespace ember::cuda {

// prepare(device), which makes `device` current and returns its stream: cuda/kernels.h.
// The stream of `device` (created at first use).
cudaStream_t stream(Device device);
// The cuBLAS handle of `device`, bound to its stream, TF32 as set by set_allow_tf32().
cublasHandle_t cublas_handle(Device device);

// Whether check_launch waits for each kernel (EMBER_CUDA_SYNC=1 or CUDA_LAUNCH_BLOCKING=1, read at
// the first launch), so that a kernel's fault names that kernel; set_sync_launches overrides it.
bool sync_launches();
void set_sync_launches(bool sync);
// For an error a running kernel raises, when launches are not synchronised: text saying that an
// earlier kernel may be the one that failed and how to find it; "" otherwise.
EMBER_CUDA_EXPORT std::string kernel_fault_hint(cudaError_t err);

class CudaBackend final : public Backend {
 public:
  const char* name() const override { return "cuda"; }
  void* allocate(size_t nbytes, Device device) override;
  void deallocate(void* ptr, Device device) override;
  void copy_to_host(void* dst, const void* src, size_t nbytes, Device device) override;
  void copy_from_host(void* dst, const void* src, size_t nbytes, Device device) override;

  // Every kernel of every list (core/backend_kernels.h); the optional ones the CUDA side lacks
  // return false from their launchers, and the op composes them (docs/GPU.md).
  EMBER_BACKEND_KERNELS(EMBER_DECLARE_KERNEL)
  EMBER_FUSED_KERNELS(EMBER_DECLARE_FUSED_KERNEL)
  EMBER_FLASH_KERNELS(EMBER_DECLARE_FUSED_KERNEL)
  EMBER_PHILOX_KERNELS(EMBER_DECLARE_FUSED_KERNEL)
  EMBER_OPTIMIZER_KERNELS(EMBER_DECLARE_FUSED_KERNEL)
};

}  // namespace ember::cuda
