// The cuBLAS calls of cuda/matmul.cpp and cuda/runtime.cpp for Ember's CPU emulator.
//
// A reference column-major strided-batched gemm with cuBLAS's argument rules: bad sizes, leading
// dimensions or operations return CUBLAS_STATUS_INVALID_VALUE as cuBLAS does, and a matrix that is
// not device memory is an illegal address at the next synchronizing call, as on a GPU. Products
// accumulate in the element type; with CUBLAS_TF32_TENSOR_OP_MATH float inputs are first rounded
// to TF32 (10 mantissa bits), so the tolerance tests of allow_tf32 see what tensor cores do. The Ex
// gemms of float16 and bfloat16 accumulate in float and round C once, as cuBLAS's
// CUBLAS_COMPUTE_32F does (its order of additions is its own: only the rounding is the same).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include <cublas_v2.h>

#include "core/bfloat16.h"
#include "core/half.h"
#include "cuda/emu/emu.h"
#include "cuda/emu/internal.h"

struct cublasContext {
  cudaStream_t stream = nullptr;
  cublasMath_t math = CUBLAS_DEFAULT_MATH;
};

namespace {

float round_to_tf32(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  if ((bits & 0x7f800000u) == 0x7f800000u) return x;  // inf and NaN stay
  bits = (bits + 0x1000u) & ~0x1fffu;                 // round half away from zero at mantissa bit 10
  std::memcpy(&x, &bits, sizeof bits);
  return x;
}

// Matrices of T, accumulated in Acc (T itself, or float for the 16-bit types); alpha and beta are Acc.
template <typename T, typename Acc = T>
cublasStatus_t gemm_strided_batched(const char* name, cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb,
                                    int m, int n, int k, const Acc* alpha, const T* A, int lda, long long sa,
                                    const T* B, int ldb, long long sb, const Acc* beta, T* C, int ldc, long long sc,
                                    int batch) {
  if (h == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  auto valid_op = [](cublasOperation_t op) { return op == CUBLAS_OP_N || op == CUBLAS_OP_T || op == CUBLAS_OP_C; };
  if (!valid_op(ta) || !valid_op(tb) || m < 0 || n < 0 || k < 0 || batch < 0) return CUBLAS_STATUS_INVALID_VALUE;
  // Leading dimensions are at least the rows of each matrix as stored.
  const int a_rows = ta == CUBLAS_OP_N ? m : k, b_rows = tb == CUBLAS_OP_N ? k : n;
  if (lda < std::max(1, a_rows) || ldb < std::max(1, b_rows) || ldc < std::max(1, m))
    return CUBLAS_STATUS_INVALID_VALUE;
  if (alpha == nullptr || beta == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  if (m == 0 || n == 0 || batch == 0) return CUBLAS_STATUS_SUCCESS;
  const bool reads_ab = k > 0 && *alpha != Acc(0);
  for (auto [what, p] : {std::pair<const char*, const void*>{"A", A}, {"B", B}, {"C", C}}) {
    if (!reads_ab && what[0] != 'C') continue;
    if (!ember::cuda::emu::is_device_pointer(p)) {
      ember::cuda::emu::report_illegal_address(std::string(name) + ": matrix " + what + " (" +
                                               std::to_string(reinterpret_cast<uintptr_t>(p)) +
                                               ") is a host pointer, not device memory");
      return CUBLAS_STATUS_SUCCESS;  // cuBLAS launches; the kernel faults
    }
  }
  ember::cuda::emu::DeviceAccess access;  // the gemm "kernel" runs: its matrices are readable
  for (const void* p : {static_cast<const void*>(A), static_cast<const void*>(B), static_cast<const void*>(C)})
    access.open(p);
  // h->math first: `false && ...` would make tf32 a constant for double, and Clang warn of its capture.
  const bool tf32 = h->math == CUBLAS_TF32_TENSOR_OP_MATH && std::is_same_v<T, float>;
  auto load = [tf32](T x) { return tf32 ? Acc(round_to_tf32(float(x))) : Acc(x); };
  for (int b = 0; b < batch; ++b) {
    const T* a = A + b * sa;
    const T* bm = B + b * sb;
    T* c = C + b * sc;
    for (int j = 0; j < n; ++j) {
      for (int i = 0; i < m; ++i) {
        Acc acc = 0;
        if (reads_ab) {
          for (int l = 0; l < k; ++l) {
            const T av = ta == CUBLAS_OP_N ? a[i + int64_t(l) * lda] : a[l + int64_t(i) * lda];
            const T bv = tb == CUBLAS_OP_N ? bm[l + int64_t(j) * ldb] : bm[j + int64_t(l) * ldb];
            acc += load(av) * load(bv);
          }
        }
        T& out = c[i + int64_t(j) * ldc];
        // beta == 0: C is written, never read (it may hold NaN), as cuBLAS documents.
        out = T(*beta == Acc(0) ? *alpha * acc : *alpha * acc + *beta * Acc(out));
      }
    }
  }
  return CUBLAS_STATUS_SUCCESS;
}

}  // namespace

cublasStatus_t cublasCreate(cublasHandle_t* handle) {
  if (handle == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  *handle = new cublasContext;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasDestroy(cublasHandle_t handle) {
  if (handle == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  delete handle;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetStream(cublasHandle_t handle, cudaStream_t stream) {
  if (handle == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  handle->stream = stream;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode) {
  if (handle == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (mode != CUBLAS_DEFAULT_MATH && mode != CUBLAS_TENSOR_OP_MATH && mode != CUBLAS_PEDANTIC_MATH &&
      mode != CUBLAS_TF32_TENSOR_OP_MATH)
    return CUBLAS_STATUS_INVALID_VALUE;
  handle->math = mode;
  return CUBLAS_STATUS_SUCCESS;
}

const char* cublasGetStatusName(cublasStatus_t status) {
  switch (status) {
    case CUBLAS_STATUS_SUCCESS:
      return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED:
      return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED:
      return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE:
      return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH:
      return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR:
      return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED:
      return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR:
      return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED:
      return "CUBLAS_STATUS_NOT_SUPPORTED";
  }
  return "CUBLAS_STATUS_UNKNOWN";
}

const char* cublasGetStatusString(cublasStatus_t status) {
  switch (status) {
    case CUBLAS_STATUS_SUCCESS:
      return "success";
    case CUBLAS_STATUS_NOT_INITIALIZED:
      return "the library was not initialized";
    case CUBLAS_STATUS_ALLOC_FAILED:
      return "the resource allocation failed";
    case CUBLAS_STATUS_INVALID_VALUE:
      return "an invalid numeric value was used as an argument";
    case CUBLAS_STATUS_ARCH_MISMATCH:
      return "an absent device architectural feature is required";
    case CUBLAS_STATUS_MAPPING_ERROR:
      return "an access to GPU memory space failed";
    case CUBLAS_STATUS_EXECUTION_FAILED:
      return "the GPU program failed to execute";
    case CUBLAS_STATUS_INTERNAL_ERROR:
      return "an internal operation failed";
    case CUBLAS_STATUS_NOT_SUPPORTED:
      return "the functionality requested is not supported";
  }
  return "unknown cuBLAS status";
}

cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                                         int m, int n, int k, const float* alpha, const float* A, int lda,
                                         long long strideA, const float* B, int ldb, long long strideB,
                                         const float* beta, float* C, int ldc, long long strideC, int batchCount) {
  return gemm_strided_batched("cublasSgemmStridedBatched", handle, transa, transb, m, n, k, alpha, A, lda, strideA, B,
                              ldb, strideB, beta, C, ldc, strideC, batchCount);
}

cublasStatus_t cublasDgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                                         int m, int n, int k, const double* alpha, const double* A, int lda,
                                         long long strideA, const double* B, int ldb, long long strideB,
                                         const double* beta, double* C, int ldc, long long strideC, int batchCount) {
  return gemm_strided_batched("cublasDgemmStridedBatched", handle, transa, transb, m, n, k, alpha, A, lda, strideA, B,
                              ldb, strideB, beta, C, ldc, strideC, batchCount);
}

cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                                          int m, int n, int k, const void* alpha, const void* A, cudaDataType_t Atype,
                                          int lda, long long strideA, const void* B, cudaDataType_t Btype, int ldb,
                                          long long strideB, const void* beta, void* C, cudaDataType_t Ctype, int ldc,
                                          long long strideC, int batchCount, cublasComputeType_t computeType,
                                          cublasGemmAlgo_t) {
  if (handle == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (Atype != Btype || Atype != Ctype || computeType != CUBLAS_COMPUTE_32F) return CUBLAS_STATUS_NOT_SUPPORTED;
  const auto run = [&]<typename T>() {
    return gemm_strided_batched<T, float>("cublasGemmStridedBatchedEx", handle, transa, transb, m, n, k,
                                          static_cast<const float*>(alpha), static_cast<const T*>(A), lda, strideA,
                                          static_cast<const T*>(B), ldb, strideB, static_cast<const float*>(beta),
                                          static_cast<T*>(C), ldc, strideC, batchCount);
  };
  switch (Ctype) {
    case CUDA_R_16F:
      return run.operator()<ember::Half>();
    case CUDA_R_16BF:
      return run.operator()<ember::BFloat16>();
    case CUDA_R_32F:
      return run.operator()<float>();
    default:
      return CUBLAS_STATUS_NOT_SUPPORTED;
  }
}

cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,
                            int k, const void* alpha, const void* A, cudaDataType_t Atype, int lda, const void* B,
                            cudaDataType_t Btype, int ldb, const void* beta, void* C, cudaDataType_t Ctype, int ldc,
                            cublasComputeType_t computeType, cublasGemmAlgo_t algo) {
  return cublasGemmStridedBatchedEx(handle, transa, transb, m, n, k, alpha, A, Atype, lda, 0, B, Btype, ldb, 0, beta,
                                    C, Ctype, ldc, 0, 1, computeType, algo);
}
