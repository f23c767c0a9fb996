// CUDA matmul (and matmul_add, beta = 1) through cuBLAS: one strided-batched gemm per call, transposed
// views passed as flags.
//
// cuBLAS is column-major, Ember row-major. A row-major (M, N) matrix is the column-major (N, M)
// matrix with the same bytes, so out = a @ b is computed as out^T = b^T @ a^T with a and b swapped
// and nothing copied. An operand whose last dim has stride 1 is read as is (CUBLAS_OP_N); one whose
// second-to-last dim has stride 1 is a transposed matrix (CUBLAS_OP_T); only a strided slice with
// neither is first made contiguous. Batch strides may be 0 (a broadcast batch). float32 runs in
// full precision unless ember::cuda::set_allow_tf32(true), as in PyTorch. float16 and bfloat16 go
// through cublasGemmStridedBatchedEx: 16-bit inputs and output, products accumulated in float32
// (CUBLAS_COMPUTE_32F) and each output rounded once, as PyTorch's CUDA matmul does.
#include <climits>
#include <optional>
#include <vector>

#include "core/blas_layout.h"
#include "cuda/cuda_backend.h"
#include "cuda/launchers.h"

namespace ember::cuda {

namespace {

struct GemmOperand {
  cublasOperation_t op;
  int64_t ld;
};

// How cuBLAS can read a row-major (rows, cols) matrix with these strides, if it can (core/blas_layout.h).
std::optional<GemmOperand> gemm_layout(int64_t rows, int64_t cols, int64_t row_stride, int64_t col_stride) {
  const std::optional<BlasLayout> l = blas_layout(rows, cols, row_stride, col_stride);
  if (!l) return std::nullopt;
  return GemmOperand{l->transposed ? CUBLAS_OP_T : CUBLAS_OP_N, l->ld};
}

std::optional<GemmOperand> layout_of(const TensorView& t) {
  return gemm_layout(t.sizes[1], t.sizes[2], t.strides[1], t.strides[2]);
}

// An operand cuBLAS can read: `in` itself, or a contiguous copy of it in `scratch`.
struct Operand {
  TensorView view;
  std::vector<int64_t> strides;  // the copy's
  DeviceBuffer scratch;
};

Operand readable(const TensorView& in) {
  Operand o{in, {}, {}};
  if (layout_of(in)) return o;
  o.strides = {in.sizes[1] * in.sizes[2], in.sizes[2], 1};
  o.scratch = DeviceBuffer(in.device, in.nbytes());
  o.view.data = o.scratch.get();
  o.view.strides = {o.strides.data(), o.strides.size()};
  o.view.contiguous = true;
  launchers::copy(o.view, in);
  return o;
}

// out = a @ b + beta * out: beta 0 (out is written, never read) or 1 (the product is added to it).
void gemm(const TensorView& out, const TensorView& a_in, const TensorView& b_in, int beta) {
  const int64_t batch = out.sizes[0], M = out.sizes[1], N = out.sizes[2], K = a_in.sizes[2];
  prepare(out.device);
  if (out.numel == 0) return;
  if (K == 0) {
    if (beta == 0) launchers::fill(out, 0);
    return;
  }
  EMBER_CHECK(is_floating_point(out.dtype),
              "matmul: \"addmm_cuda\" not implemented for '{}' tensors on CUDA; convert to float32 or float64",
              dtype_name(out.dtype));
  EMBER_CHECK(a_in.dtype == out.dtype && b_in.dtype == out.dtype, "matmul: expected both operands to be {}, got {} and {}",
              dtype_name(out.dtype), dtype_name(a_in.dtype), dtype_name(b_in.dtype));
  for (int64_t v : {batch, M, N, K})
    EMBER_CHECK(v <= INT_MAX, "matmul: size {} is too large for cuBLAS (shapes {} and {})", v,
                IntArrayRef(a_in.sizes.vec()), IntArrayRef(b_in.sizes.vec()));
  const Operand a_op = readable(a_in), b_op = readable(b_in);
  const TensorView &a = a_op.view, &b = b_op.view;
  const GemmOperand la = *layout_of(a), lb = *layout_of(b);
  cublasHandle_t h = cublas_handle(out.device);
  const int m = static_cast<int>(N), n = static_cast<int>(M), k = static_cast<int>(K), count = static_cast<int>(batch);
  const long long sa = batch == 1 ? 0 : a.strides[0], sb = batch == 1 ? 0 : b.strides[0], sc = M * N;
  // Column-major: out^T (N, M) = b^T (N, K) @ a^T (K, M).
  if (is_reduced_floating_point(out.dtype)) {
    const cudaDataType_t type = out.dtype == kFloat16 ? CUDA_R_16F : CUDA_R_16BF;
    const float one = 1, c_scale = static_cast<float>(beta);
    EMBER_CUBLAS_CHECK(cublasGemmStridedBatchedEx(h, lb.op, la.op, m, n, k, &one, b.data, type, static_cast<int>(lb.ld),
                                                  sb, a.data, type, static_cast<int>(la.ld), sa, &c_scale, out.data,
                                                  type, m, sc, count, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  } else if (out.dtype == kFloat32) {
    const float one = 1, c_scale = static_cast<float>(beta);
    EMBER_CUBLAS_CHECK(cublasSgemmStridedBatched(h, lb.op, la.op, m, n, k, &one, b.ptr<float>(),
                                                 static_cast<int>(lb.ld), sb, a.ptr<float>(), static_cast<int>(la.ld),
                                                 sa, &c_scale, out.ptr<float>(), m, sc, count));
  } else if (out.dtype == kFloat64) {
    const double one = 1, c_scale = beta;
    EMBER_CUBLAS_CHECK(cublasDgemmStridedBatched(h, lb.op, la.op, m, n, k, &one, b.ptr<double>(),
                                                 static_cast<int>(lb.ld), sb, a.ptr<double>(), static_cast<int>(la.ld),
                                                 sa, &c_scale, out.ptr<double>(), m, sc, count));
  } else {
    EMBER_FAIL("matmul: not implemented for '{}' on CUDA", scalar_type_name(out.dtype));
  }
}

}  // namespace

void launchers::matmul(const TensorView& out, const TensorView& a, const TensorView& b) { gemm(out, a, b, 0); }

// The addend (a broadcast bias, any strides) is copied into out first, then cuBLAS adds the product
// to it (beta = 1): as on the CPU, the sum costs no pass of its own (the copy replaces the zeroed
// output's write), and Linear's forward is two kernels, not three.
bool launchers::matmul_add(const TensorView& out, const TensorView& addend, const TensorView& a, const TensorView& b) {
  if (!is_floating_point(out.dtype)) return false;
  launchers::copy(out, addend);
  gemm(out, a, b, 1);
  return true;
}

}  // namespace ember::cuda
