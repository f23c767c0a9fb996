// The backend interface: the one table of kernels each device implements.
//
// autograd/, nn/ and optim/ never ask which device a tensor is on; they call ops, ops call
// backend_for(device).kernel(...). The CPU backend is core/cpu/, the CUDA backend cuda/; a build
// without CUDA registers a stub whose every call throws "built without CUDA support".
//
// Conventions for every kernel: outputs first, then inputs, then sizes. Outputs are allocated by
// the caller with the right shape and dtype; inputs are on the output's device. Inputs may be any
// strided view (stride 0 for broadcast dims) unless a kernel says "contiguous". Kernels check
// nothing a caller already checked: argument validation with user-facing messages happens in
// the op (autograd/), once, for every device.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/functors.h"
#include "core/tensor.h"

namespace ember {

class Generator;

class Backend {
 public:
  virtual ~Backend() = default;
  virtual const char* name() const = 0;

  // ---- memory ----
  virtual void* allocate(size_t nbytes, Device device) = 0;
  virtual void deallocate(void* ptr, Device device) = 0;
  // Copies between this device and host memory; `dst`/`src` are contiguous byte ranges.
  virtual void copy_to_host(void* dst, const void* src, size_t nbytes, Device device) = 0;
  virtual void copy_from_host(void* dst, const void* src, size_t nbytes, Device device) = 0;

  // ---- layout ----
  // dst[i] = src[i] over dst's shape; any strides, any dtypes (converts), same device.
  virtual void copy(const Tensor& dst, const Tensor& src) = 0;
  virtual void fill(const Tensor& dst, const Scalar& value) = 0;

  // ---- elementwise ----
  // out and in have the same shape and dtype.
  virtual void unary(UnaryOp op, const Tensor& out, const Tensor& in) = 0;
  // a and b have out's shape (broadcast as stride-0 views) and one dtype; out has that dtype,
  // or bool for comparisons and logical ops.
  virtual void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b) = 0;
  // out = cond ? a : b; cond is bool, a and b have out's dtype; all of out's shape.
  virtual void where(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) = 0;

  // ---- reductions ----
  // out has in's shape with the reduced dims set to 1 (keepdim); `dims` are sorted, non-negative.
  // Sum/Prod/Max/Min keep in's dtype (the caller converts first); All/Any write bool.
  virtual void reduce(ReduceOp op, const Tensor& out, const Tensor& in, IntArrayRef dims) = 0;
  // Max or min along `dim` with the index of the first extreme element (NaN counts as extreme).
  // values and indices (int64) have in's shape with size 1 at `dim`.
  virtual void arg_reduce(bool is_max, const Tensor& values, const Tensor& indices, const Tensor& in,
                          int64_t dim) = 0;

  // ---- linear algebra ----
  // out (B, M, N) contiguous = a (B, M, K) @ b (B, K, N); a and b any strides (0 for broadcast batch).
  virtual void matmul(const Tensor& out, const Tensor& a, const Tensor& b) = 0;

  // ---- nn ----
  // Softmax (or log-softmax) over the last dim; out and in contiguous, same shape.
  virtual void softmax(const Tensor& out, const Tensor& in, bool log) = 0;
  // din = softmax backward given dout and the forward's output; all contiguous.
  virtual void softmax_backward(const Tensor& din, const Tensor& dout, const Tensor& out, bool log) = 0;
  // out = in with elements above (lower=true) or below the k-th diagonal of the last two dims zeroed.
  virtual void triangle(const Tensor& out, const Tensor& in, int64_t k, bool lower) = 0;

  // ---- indexing; `index` is int64 and already range-checked by the caller ----
  // out.select(dim, i) = in.select(dim, index[i])
  virtual void index_select(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) = 0;
  // out.select(dim, index[i]) += src.select(dim, i)
  virtual void index_add(const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src) = 0;
  // out[..i..] = in[..index[..i..]..] along dim; index has out's shape
  virtual void gather(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) = 0;
  // out[..index[..i..]..] += src[..i..] along dim; index has src's shape
  virtual void scatter_add(const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src) = 0;

  // ---- fused kernels: optional ----
  // One pass where the composed ops would make several. A backend without one returns false and
  // the op composes the same result from the kernels above, so a new device works before it is
  // fast. The composed form stays the reference the fused kernels are tested against.

  // out (B, M, N) contiguous = addend + a @ b, addend any strides (a broadcast bias): the sum made
  // in the product's buffer, as BLAS's beta = 1 does, instead of a second pass over out.
  virtual bool matmul_add(const Tensor& out, const Tensor& addend, const Tensor& a, const Tensor& b) { return false; }

  // LayerNorm over the last dim of a contiguous (N, D) `in`: out (N, D), mean and rstd (N) =
  // 1 / sqrt(biased var + eps), all of in's dtype; weight and bias (D) may be undefined.
  virtual bool layer_norm(const Tensor& out, const Tensor& mean, const Tensor& rstd, const Tensor& in,
                          const Tensor& weight, const Tensor& bias, double eps) {
    return false;
  }
  // Its backward given dout (N, D) contiguous: din (N, D); dweight and dbias (D) are written when
  // defined (the caller leaves undefined what needs no gradient).
  virtual bool layer_norm_backward(const Tensor& din, const Tensor& dweight, const Tensor& dbias, const Tensor& dout,
                                   const Tensor& in, const Tensor& mean, const Tensor& rstd, const Tensor& weight) {
    return false;
  }

  // Causal attention (query i sees keys j <= i) over (B, H) matrices: q (B, H, L, E), k (B, H, S, E),
  // v (B, H, S, Ev) and out (B, H, L, Ev) are strided views whose last dim has stride 1; probs
  // (B, H, L, S) contiguous receives the softmax weights (zero above the diagonal), kept for the
  // backward. noise (B, H, L, S) contiguous, or undefined without dropout, is dropout's scaled keep
  // mask: out = (probs * noise) @ v. scores are scale * q @ k^T.
  virtual bool causal_attention(const Tensor& out, const Tensor& probs, const Tensor& q, const Tensor& k,
                                const Tensor& v, const Tensor& noise, double scale) {
    return false;
  }
  // Its backward given dout (strided like out): dq, dk, dv strided like q, k, v (last dim stride 1).
  virtual bool causal_attention_backward(const Tensor& dq, const Tensor& dk, const Tensor& dv, const Tensor& dout,
                                         const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& probs,
                                         const Tensor& noise, double scale) {
    return false;
  }
};

// The backend that runs kernels for `device`: the one place device choice happens.
Backend& backend_for(Device device);
inline Backend& backend_for(const Tensor& t) { return backend_for(t.device()); }

// Runs `f.template operator()<T>()` with T the C++ type of `dtype`:
//   dispatch(t.dtype(), "sum", [&]<typename T>() { ... });
template <typename F>
decltype(auto) dispatch(ScalarType dtype, const char* op, F&& f) {
  switch (dtype) {
    case kFloat32: return f.template operator()<float>();
    case kFloat64: return f.template operator()<double>();
    case kInt64: return f.template operator()<int64_t>();
    case kBool: return f.template operator()<bool>();
  }
  EMBER_FAIL("{}: unsupported dtype", op);
}

// Like dispatch, for kernels that exist only for float32 and float64.
template <typename F>
decltype(auto) dispatch_floating(ScalarType dtype, const char* op, F&& f) {
  switch (dtype) {
    case kFloat32: return f.template operator()<float>();
    case kFloat64: return f.template operator()<double>();
    default: EMBER_FAIL("{}: expected a floating-point tensor (float32 or float64), got {}", op, dtype_name(dtype));
  }
}

}  // namespace ember

namespace ember {
// The CUDA backend: defined in cuda/runtime.cpp when built with CUDA, else by cuda/stub.cpp,
// whose every kernel throws "built without CUDA support". The linker picks exactly one.
Backend& cuda_backend();
}  // namespace ember
