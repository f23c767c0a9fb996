// The CUDA backend: Backend's kernels on device memory, with cuBLAS for matmul.
//
// One class: runtime.cpp holds devices, streams, memory and host copies; backend.cpp turns
// Tensors into pointers and OffsetCalcs and calls the kernel launchers defined
// in elementwise.cu, reduce.cu, nn.cu, norm.cu, optim.cu and index.cu (named as core/cpu/'s
// files); matmul.cpp calls cuBLAS. Every kernel runs on the device's one stream, so kernels run
// in order and a copy to the host waits for the kernels before it. Every CUDA and cuBLAS call is
// checked with EMBER_CUDA_CHECK / EMBER_CUBLAS_CHECK, which throw ember::Error naming the call.
// Only cuda/ includes this header; everyone else reaches the backend through backend_for().
#pragma once

#include <cuda_runtime.h>

#include <cublas_v2.h>

#include "core/backend.h"
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

// Makes `device` current for this thread (throws a clear error when it does not exist) and
// returns its stream; every kernel of the backend is launched on it.
EMBER_CUDA_EXPORT cudaStream_t prepare(Device device);
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

  EMBER_BACKEND_KERNELS(EMBER_DECLARE_KERNEL)
  // The fused kernels it has (contracts in core/backend.h); the others the ops compose from the
  // kernels above (docs/GPU.md). LayerNorm: norm.cu.
  bool layer_norm(const Tensor& out, const Tensor& mean, const Tensor& rstd, const Tensor& in, const Tensor& weight,
                  const Tensor& bias, double eps) override;
  bool layer_norm_backward(const Tensor& din, const Tensor& dweight, const Tensor& dbias, const Tensor& dout,
                           const Tensor& in, const Tensor& mean, const Tensor& rstd, const Tensor& weight) override;
  // Cross-entropy of class indices, one pass per row each way (loss.cu).
  bool cross_entropy(const Tensor& losses, const Tensor& lse, const Tensor& status, const Tensor& logits,
                     const Tensor& target, int64_t ignore_index, double label_smoothing) override;
  bool cross_entropy_backward(const Tensor& dlogits, const Tensor& dlosses, const Tensor& logits, const Tensor& lse,
                              const Tensor& target, int64_t ignore_index, double label_smoothing) override;
  // addend + a @ b as one cuBLAS gemm with beta = 1 over the addend copied into out (matmul.cpp).
  bool matmul_add(const Tensor& out, const Tensor& addend, const Tensor& a, const Tensor& b) override;
  // Causal attention that keeps only out and a logsumexp per row (attention.cu, FlashAttention-2 style).
  EMBER_FLASH_KERNELS(EMBER_DECLARE_FUSED_KERNEL)
  // Dropout's mask from the Philox stream (random.cu).
  EMBER_PHILOX_KERNELS(EMBER_DECLARE_FUSED_KERNEL)
  // The optimizer kernels, multi-tensor: a few launches for all parameters (optim.cu).
  EMBER_OPTIMIZER_KERNELS(EMBER_DECLARE_FUSED_KERNEL)
};

}  // namespace ember::cuda
