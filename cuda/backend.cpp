// The CUDA backend's kernels at the Tensor level: from Tensors to pointers, sizes and OffsetCalcs.
//
// Each method checks what only the CUDA side can reject (a dtype with no CUDA kernel, too many
// dims), picks the device's stream and calls one launcher of a .cu file (declared below). The Backend contract
// (core/backend.h) says which operands are contiguous; everything else may be any strided view.
#include <algorithm>

#include "core/shape.h"
#include "cuda/cuda_backend.h"
#include "cuda/kernels.h"

namespace ember::cuda {

// The launchers this file calls, defined in the .cu file each group names. They live here, beside
// their one caller, so that a new kernel is its entry in core/backend.h, its CPU body, its .cu
// file and this file (docs/ARCHITECTURE.md); cuda/kernels.h keeps what the .cu files share.

// ---- elementwise.cu ----
void launch_copy(cudaStream_t s, ScalarType dst_type, ScalarType src_type, int64_t n, const OffsetCalc<2>& calc,
                 void* dst, const void* src);
// value is given as double and int64 so that every dtype gets it exactly.
void launch_fill(cudaStream_t s, ScalarType type, int64_t n, const OffsetCalc<1>& calc, void* dst, double fvalue,
                 int64_t ivalue);
void launch_unary(cudaStream_t s, UnaryOp op, ScalarType type, int64_t n, const OffsetCalc<2>& calc, void* out,
                  const void* in);
void launch_binary(cudaStream_t s, BinaryOp op, ScalarType type, int64_t n, const OffsetCalc<3>& calc, void* out,
                   const void* a, const void* b);
void launch_where(cudaStream_t s, ScalarType type, int64_t n, const OffsetCalc<4>& calc, void* out, const bool* cond,
                  const void* a, const void* b);

// ---- reduce.cu ----
// out[o] = fold of in over n_red elements: `outer` maps o to (out offset, in base offset), `inner`
// maps r in [0, n_red) to an in offset from that base. All/Any read any dtype and write bool.
void launch_reduce(cudaStream_t s, ReduceOp op, ScalarType type, ReduceStrategy how, int64_t n_out, int64_t n_red,
                   const OffsetCalc<2>& outer, const OffsetCalc<1>& inner, void* out, void* partial, const void* in);
void launch_arg_reduce(cudaStream_t s, bool is_max, ScalarType type, int64_t n, const OffsetCalc<3>& calc, int64_t len,
                       int64_t step, void* values, int64_t* indices, void* partial, const void* in);

// ---- nn.cu ----
void launch_softmax(cudaStream_t s, ScalarType type, int64_t rows, int64_t cols, void* out, const void* in, bool log);
void launch_softmax_backward(cudaStream_t s, ScalarType type, int64_t rows, int64_t cols, void* din, const void* dout,
                             const void* out, bool log);
// mats matrices of (R, C), contiguous.
void launch_triangle(cudaStream_t s, ScalarType type, int64_t mats, int64_t R, int64_t C, int64_t k, bool lower,
                     void* out, const void* in);

// ---- sort.cu; rows of n contiguous elements ----
void launch_sort(cudaStream_t s, ScalarType type, int64_t rows, int64_t n, bool descending, void* values,
                 int64_t* indices, const void* in);
void launch_cumulative(cudaStream_t s, ScalarType type, int64_t rows, int64_t n, bool prod, void* out,
                       const void* in);

// ---- norm.cu ----
void launch_layer_norm(cudaStream_t s, ScalarType type, int64_t N, int64_t D, void* out, void* mean, void* rstd,
                       const void* in, const void* weight, const void* bias, double eps);
// din, dweight, dbias may each be null (not wanted); weight may be null (no affine weight).
void launch_layer_norm_backward(cudaStream_t s, ScalarType type, int64_t N, int64_t D, void* din, void* dweight,
                                void* dbias, void* partial, const void* dout, const void* in, const void* mean,
                                const void* rstd, const void* weight);

// ---- attention.cu ----
// out, lse (B * H * L) and the heads as core/backend.h's flash_attention says; flash_attention_fits() holds.
void launch_flash_attention(cudaStream_t s, ScalarType type, int64_t B, int64_t H, int64_t L, int64_t S, int64_t E,
                            int64_t Ev, const AttentionHeads& out, void* lse, const AttentionHeads& q,
                            const AttentionHeads& k, const AttentionHeads& v, double scale,
                            const PhiloxDropout& dropout);
// delta: scratch of B * H * L values of the dtype.
void launch_flash_attention_backward(cudaStream_t s, ScalarType type, int64_t B, int64_t H, int64_t L, int64_t S,
                                     int64_t E, int64_t Ev, const AttentionHeads& dq, const AttentionHeads& dk,
                                     const AttentionHeads& dv, void* delta, const AttentionHeads& dout,
                                     const AttentionHeads& q, const AttentionHeads& k, const AttentionHeads& v,
                                     const void* lse, double scale, const PhiloxDropout& dropout);

// ---- random.cu ----
// noise (n) contiguous, float32 or float64: dropout's scaled keep mask (core/backend.h's dropout_noise).
void launch_dropout_noise(cudaStream_t s, ScalarType type, int64_t n, void* noise, const PhiloxDropout& dropout);

// ---- loss.cu ----
// status: the two int64 of Backend::cross_entropy's contract.
void launch_cross_entropy(cudaStream_t s, ScalarType type, int64_t N, int64_t V, void* losses, void* lse,
                          int64_t* status, const void* logits, const int64_t* target, int64_t ignore_index,
                          double label_smoothing);
// dlosses[i * g_stride] is row i's gradient.
void launch_cross_entropy_backward(cudaStream_t s, ScalarType type, int64_t N, int64_t V, void* dlogits,
                                   const void* dlosses, int64_t g_stride, const void* logits, const void* lse,
                                   const int64_t* target, int64_t ignore_index, double label_smoothing);

// ---- optim.cu ----
// Multi-tensor updates by the rules of core/optim_rules.h: tensors[i] the arrays of parameter i
// (null where unused), updated with steps[i].
void launch_adam_update(cudaStream_t s, ScalarType type, const std::vector<UpdateArrays<5>>& tensors,
                        const std::vector<AdamStep>& steps);
void launch_sgd_update(cudaStream_t s, ScalarType type, const std::vector<UpdateArrays<3>>& tensors,
                       const std::vector<SgdStep>& steps);
void launch_rmsprop_update(cudaStream_t s, ScalarType type, const std::vector<UpdateArrays<5>>& tensors,
                           const std::vector<RmspropStep>& steps);
void launch_adagrad_update(cudaStream_t s, ScalarType type, const std::vector<UpdateArrays<3>>& tensors,
                           const std::vector<AdagradStep>& steps);
// out (tensors.size()) doubles: each tensor's sum of squares, squares in `type`, summed in double.
void launch_sum_of_squares(cudaStream_t s, ScalarType type, const std::vector<void*>& tensors,
                           const std::vector<int64_t>& sizes, double* out, double* partial, const int64_t* starts);
// tensors[i] *= factor, rounded to `type`.
void launch_scale(cudaStream_t s, ScalarType type, const std::vector<void*>& tensors, const std::vector<int64_t>& sizes,
                  double factor);

// ---- conv.cu ----
// cols (N, C*kh*kw, out_h*out_w) from in (N, C, H, W), and back (summed); all contiguous.
void launch_im2col(cudaStream_t s, ScalarType type, int64_t N, const Im2colShape& g, void* cols, const void* in);
void launch_col2im(cudaStream_t s, ScalarType type, int64_t N, const Im2colShape& g, void* out, const void* cols);

// ---- index.cu ----
// out (outer, n_index, inner) = in (outer, in_len, inner) rows picked by idx; both contiguous.
void launch_index_select(cudaStream_t s, ScalarType type, Blocks3 in_blocks, int64_t n_index, const int64_t* idx,
                         void* out, const void* in);
// out (outer, out_len, inner) rows idx[i] += src (outer, n_index, inner); atomics, so repeated indices add up.
void launch_index_add(cudaStream_t s, ScalarType type, Blocks3 out_blocks, int64_t n_index, const int64_t* idx,
                      void* out, const void* src);
// The same without atomics, deterministic, for floating types: `seg` sorts the n_index positions by
// value; partial holds outer * seg.chunks * inner values of the dtype.
void launch_index_add_sorted(cudaStream_t s, ScalarType type, Blocks3 out_blocks, int64_t n_index,
                             const IndexSegments& seg, void* partial, void* out, const void* src);
// For each of n index positions: `calc` gives the offset into the strided tensor with `dim` held at 0.
// gather: out[i] = in[off + idx[i] * dim_stride]; scatter_add: out[off + idx[i] * dim_stride] += src[i].
void launch_gather(cudaStream_t s, ScalarType type, int64_t n, const OffsetCalc<1>& calc, int64_t dim_stride,
                   const int64_t* idx, void* out, const void* in);
void launch_scatter_add(cudaStream_t s, ScalarType type, int64_t n, const OffsetCalc<1>& calc, int64_t dim_stride,
                        const int64_t* idx, void* out, const void* src);
// pool.cu: n outputs (n inputs for the backward) of contiguous (P, H, W) planes
void launch_max_pool2d(cudaStream_t s, ScalarType type, int64_t n, const PoolGeometry& g, void* out, int64_t* indices,
                       const void* in);
void launch_avg_pool2d(cudaStream_t s, ScalarType type, int64_t n, const PoolGeometry& g, void* out, const void* in);
void launch_avg_pool2d_backward(cudaStream_t s, ScalarType type, int64_t n, const PoolGeometry& g, void* din,
                                const void* dout);

namespace {

// An OffsetCalc over `sizes` for operands with these strides, with a clear error past kMaxDims.
template <int N>
OffsetCalc<N> offset_calc(const char* op, IntArrayRef sizes, const std::array<IntArrayRef, N>& strides) {
  std::array<std::vector<int64_t>, N> st;
  for (int k = 0; k < N; ++k) st[k] = strides[k].vec();
  const MergedDims<N> m = merge_dims<N>(sizes.vec(), st);
  EMBER_CHECK(m.sizes.size() <= static_cast<size_t>(kMaxDims),
              "{}: CUDA kernels take at most {} dims after merging contiguous ones, got shape {}; make the tensor "
              "contiguous first",
              op, kMaxDims, sizes);
  return make_offset_calc<N>(m);
}

std::vector<int64_t> with_zero_at(IntArrayRef strides, int64_t dim) {
  std::vector<int64_t> s = strides.vec();
  s[dim] = 0;
  return s;
}

void check_atomic_dtype(const Tensor& t, const char* op) {
  EMBER_CHECK(t.dtype() != kBool, "{}: not implemented for bool tensors on CUDA (no atomic add)", op);
}

}  // namespace

// ---- layout and elementwise (kernels in elementwise.cu) ----

void CudaBackend::copy(const Tensor& dst, const Tensor& src) {
  cudaStream_t s = prepare(dst.device());
  if (dst.numel() == 0) return;
  if (dst.dtype() == src.dtype() && dst.is_contiguous() && src.is_contiguous()) {
    EMBER_CUDA_CHECK(
        cudaMemcpyAsync(dst.raw_data_ptr(), src.raw_data_ptr(), dst.nbytes(), cudaMemcpyDeviceToDevice, s));
    return;
  }
  launch_copy(s, dst.dtype(), src.dtype(), dst.numel(),
              offset_calc<2>("copy", dst.sizes(), {dst.strides(), src.strides()}), dst.raw_data_ptr(),
              src.raw_data_ptr());
}

void CudaBackend::fill(const Tensor& dst, const Scalar& value) {
  cudaStream_t s = prepare(dst.device());
  const int64_t ivalue = dst.dtype() == kBool ? int64_t{value.to<bool>()} : value.to<int64_t>();
  launch_fill(s, dst.dtype(), dst.numel(), offset_calc<1>("fill", dst.sizes(), {dst.strides()}), dst.raw_data_ptr(),
              value.to<double>(), ivalue);
}

void CudaBackend::unary(UnaryOp op, const Tensor& out, const Tensor& in) {
  cudaStream_t s = prepare(out.device());
  EMBER_CHECK(in.dtype() != kInt64 || unary_on_integers(op),
              "{}: not implemented on CUDA for int64 tensors; convert to a floating dtype first", op_name(op));
  launch_unary(s, op, in.dtype(), out.numel(), offset_calc<2>(op_name(op), out.sizes(), {out.strides(), in.strides()}),
               out.raw_data_ptr(), in.raw_data_ptr());
}

void CudaBackend::binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b) {
  cudaStream_t s = prepare(out.device());
  launch_binary(s, op, a.dtype(), out.numel(),
                offset_calc<3>(op_name(op), out.sizes(), {out.strides(), a.strides(), b.strides()}), out.raw_data_ptr(),
                a.raw_data_ptr(), b.raw_data_ptr());
}

void CudaBackend::where(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) {
  cudaStream_t s = prepare(out.device());
  launch_where(s, out.dtype(), out.numel(),
               offset_calc<4>("where", out.sizes(), {out.strides(), cond.strides(), a.strides(), b.strides()}),
               out.raw_data_ptr(), static_cast<const bool*>(cond.raw_data_ptr()), a.raw_data_ptr(), b.raw_data_ptr());
}

// ---- reductions (reduce.cu) ----

void CudaBackend::reduce(ReduceOp op, const Tensor& out, const Tensor& in, IntArrayRef dims) {
  cudaStream_t s = prepare(out.device());
  // Split in's dims into kept ones (one output each) and reduced ones (folded into it).
  std::vector<int64_t> kept_sizes, kept_out, kept_in, red_sizes, red_in;
  for (int64_t d = 0; d < in.dim(); ++d) {
    const bool reduced = std::find(dims.begin(), dims.end(), d) != dims.end();
    if (reduced) {
      red_sizes.push_back(in.sizes()[d]);
      red_in.push_back(in.strides()[d]);
    } else {
      kept_sizes.push_back(in.sizes()[d]);
      kept_out.push_back(out.strides()[d]);
      kept_in.push_back(in.strides()[d]);
    }
  }
  const OffsetCalc<2> outer = offset_calc<2>(op_name(op), kept_sizes, {kept_out, kept_in});
  const OffsetCalc<1> inner = offset_calc<1>(op_name(op), red_sizes, {red_in});
  // Reads are coalesced across outputs when the kept dims are innermost: the columns kernel.
  const auto innermost_non_unit = [](const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
    for (size_t d = sizes.size(); d-- > 0;)
      if (sizes[d] != 1) return strides[d];
    return int64_t{0};
  };
  const bool leading_dims = innermost_non_unit(kept_sizes, kept_in) == 1 && innermost_non_unit(red_sizes, red_in) != 1;
  const ReduceStrategy how = reduce_strategy(out.numel(), numel_of(red_sizes), leading_dims);
  Tensor partial;  // (n_out, splits) 8-byte partial results of a split reduction
  if (how.splits > 1) partial = empty({out.numel() * how.splits}, out.options().dtype(kFloat64));
  launch_reduce(s, op, in.dtype(), how, out.numel(), numel_of(red_sizes), outer, inner, out.raw_data_ptr(),
                partial.defined() ? partial.raw_data_ptr() : nullptr, in.raw_data_ptr());
}

void CudaBackend::arg_reduce(bool is_max, const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim) {
  cudaStream_t s = prepare(values.device());
  const OffsetCalc<3> calc =
      offset_calc<3>(is_max ? "max" : "min", values.sizes(), {values.strides(), indices.strides(), in.strides()});
  const int64_t splits = arg_reduce_splits(values.numel(), in.sizes()[dim]);
  Tensor partial;  // (n, splits) pairs of a value and an int64 index, 16 bytes each
  if (splits > 1) partial = empty({values.numel() * splits * 2}, values.options().dtype(kFloat64));
  launch_arg_reduce(s, is_max, in.dtype(), values.numel(), calc, in.sizes()[dim], in.strides()[dim],
                    values.raw_data_ptr(), static_cast<int64_t*>(indices.raw_data_ptr()),
                    partial.defined() ? partial.raw_data_ptr() : nullptr, in.raw_data_ptr());
}

// ---- nn (nn.cu); rows are contiguous ----

void CudaBackend::softmax(const Tensor& out, const Tensor& in, bool log) {
  cudaStream_t s = prepare(out.device());
  dispatch_floating(in.dtype(), log ? "log_softmax" : "softmax", []<typename T>() {});
  const int64_t C = in.dim() ? in.sizes().back() : 1, rows = C ? in.numel() / C : 0;
  launch_softmax(s, in.dtype(), rows, C, out.raw_data_ptr(), in.raw_data_ptr(), log);
}

void CudaBackend::softmax_backward(const Tensor& din, const Tensor& dout, const Tensor& out, bool log) {
  cudaStream_t s = prepare(din.device());
  dispatch_floating(out.dtype(), "softmax_backward", []<typename T>() {});
  const int64_t C = out.dim() ? out.sizes().back() : 1, rows = C ? out.numel() / C : 0;
  launch_softmax_backward(s, out.dtype(), rows, C, din.raw_data_ptr(), dout.raw_data_ptr(), out.raw_data_ptr(), log);
}

void CudaBackend::sort(const Tensor& values, const Tensor& indices, const Tensor& in, bool descending) {
  cudaStream_t s = prepare(in.device());
  const int64_t n = in.dim() ? in.sizes().back() : 1, rows = n ? in.numel() / n : 0;
  launch_sort(s, in.dtype(), rows, n, descending, values.raw_data_ptr(), indices.data_ptr<int64_t>(),
              in.raw_data_ptr());
}

void CudaBackend::cumulative(const Tensor& out, const Tensor& in, bool prod) {
  cudaStream_t s = prepare(in.device());
  const int64_t n = in.dim() ? in.sizes().back() : 1, rows = n ? in.numel() / n : 0;
  launch_cumulative(s, in.dtype(), rows, n, prod, out.raw_data_ptr(), in.raw_data_ptr());
}

void CudaBackend::triangle(const Tensor& out, const Tensor& in, int64_t k, bool lower) {
  cudaStream_t s = prepare(out.device());
  const int64_t R = in.sizes()[in.dim() - 2], C = in.sizes()[in.dim() - 1];
  const int64_t mats = R * C != 0 ? in.numel() / (R * C) : 0;
  launch_triangle(s, in.dtype(), mats, R, C, k, lower, out.raw_data_ptr(), in.raw_data_ptr());
}

// ---- convolution (conv.cu); cols and images contiguous ----

void CudaBackend::im2col(const Tensor& cols, const Tensor& in, const Im2colShape& shape) {
  cudaStream_t s = prepare(cols.device());
  launch_im2col(s, in.dtype(), in.sizes()[0], shape, cols.raw_data_ptr(), in.raw_data_ptr());
}

void CudaBackend::col2im(const Tensor& out, const Tensor& cols, const Im2colShape& shape) {
  cudaStream_t s = prepare(out.device());
  launch_col2im(s, out.dtype(), out.sizes()[0], shape, out.raw_data_ptr(), cols.raw_data_ptr());
}

// ---- fused: LayerNorm (norm.cu); in, dout (N, D) contiguous, weight and bias (D) or undefined ----

namespace {
const void* ptr_or_null(const Tensor& t) { return t.defined() ? t.raw_data_ptr() : nullptr; }
void* mutable_ptr_or_null(const Tensor& t) { return t.defined() ? t.raw_data_ptr() : nullptr; }
}  // namespace

bool CudaBackend::layer_norm(const Tensor& out, const Tensor& mean, const Tensor& rstd, const Tensor& in,
                             const Tensor& weight, const Tensor& bias, double eps) {
  cudaStream_t s = prepare(out.device());
  dispatch_floating(in.dtype(), "layer_norm", []<typename T>() {});
  launch_layer_norm(s, in.dtype(), in.sizes()[0], in.sizes()[1], out.raw_data_ptr(), mean.raw_data_ptr(),
                    rstd.raw_data_ptr(), in.raw_data_ptr(), ptr_or_null(weight), ptr_or_null(bias), eps);
  return true;
}

bool CudaBackend::layer_norm_backward(const Tensor& din, const Tensor& dweight, const Tensor& dbias, const Tensor& dout,
                                      const Tensor& in, const Tensor& mean, const Tensor& rstd, const Tensor& weight) {
  cudaStream_t s = prepare(in.device());
  dispatch_floating(in.dtype(), "layer_norm_backward", []<typename T>() {});
  const int64_t N = in.sizes()[0], D = in.sizes()[1];
  const int64_t bands = layer_norm_param_bands(N);
  Tensor partial;  // (2, bands, D): the bands' partial dweight and dbias, where there are several bands
  if ((dweight.defined() || dbias.defined()) && bands > 1) partial = empty({2, bands, D}, in.options());
  launch_layer_norm_backward(s, in.dtype(), N, D, mutable_ptr_or_null(din), mutable_ptr_or_null(dweight),
                             mutable_ptr_or_null(dbias), mutable_ptr_or_null(partial), dout.raw_data_ptr(),
                             in.raw_data_ptr(), mean.raw_data_ptr(), rstd.raw_data_ptr(), ptr_or_null(weight));
  return true;
}

// ---- fused: cross-entropy (loss.cu); logits, dlogits (N, V) and target (N) contiguous ----

bool CudaBackend::cross_entropy(const Tensor& losses, const Tensor& lse, const Tensor& status, const Tensor& logits,
                                const Tensor& target, int64_t ignore_index, double label_smoothing) {
  if (logits.dtype() != kFloat32 && logits.dtype() != kFloat64) return false;
  cudaStream_t s = prepare(logits.device());
  launch_cross_entropy(s, logits.dtype(), logits.sizes()[0], logits.sizes()[1], losses.raw_data_ptr(),
                       lse.raw_data_ptr(), status.data_ptr<int64_t>(), logits.raw_data_ptr(),
                       target.data_ptr<int64_t>(), ignore_index, label_smoothing);
  return true;
}

bool CudaBackend::cross_entropy_backward(const Tensor& dlogits, const Tensor& dlosses, const Tensor& logits,
                                         const Tensor& lse, const Tensor& target, int64_t ignore_index,
                                         double label_smoothing) {
  if (logits.dtype() != kFloat32 && logits.dtype() != kFloat64) return false;
  cudaStream_t s = prepare(logits.device());
  launch_cross_entropy_backward(s, logits.dtype(), logits.sizes()[0], logits.sizes()[1], dlogits.raw_data_ptr(),
                                dlosses.raw_data_ptr(), dlosses.strides()[0], logits.raw_data_ptr(),
                                lse.raw_data_ptr(), target.data_ptr<int64_t>(), ignore_index, label_smoothing);
  return true;
}

// ---- attention (attention.cu) ----

namespace {
AttentionHeads heads_of(const Tensor& t) { return {t.raw_data_ptr(), t.strides()[0], t.strides()[1], t.strides()[2]}; }
}  // namespace

bool CudaBackend::flash_attention(const Tensor& out, const Tensor& lse, const Tensor& q, const Tensor& k,
                                  const Tensor& v, double scale, const PhiloxDropout& dropout) {
  const int64_t B = q.sizes()[0], H = q.sizes()[1], L = q.sizes()[2], S = k.sizes()[2];
  const int64_t E = q.sizes()[3], Ev = v.sizes()[3];
  if (!flash_attention_fits(B * H, L, S, E, Ev)) return false;  // the op composes instead
  cudaStream_t s = prepare(out.device());
  dispatch_floating(q.dtype(), "flash_attention", []<typename T>() {});
  launch_flash_attention(s, q.dtype(), B, H, L, S, E, Ev, heads_of(out), lse.raw_data_ptr(), heads_of(q), heads_of(k),
                         heads_of(v), scale, dropout);
  return true;
}

bool CudaBackend::flash_attention_backward(const Tensor& dq, const Tensor& dk, const Tensor& dv, const Tensor& dout,
                                           const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& lse,
                                           double scale, const PhiloxDropout& dropout) {
  const int64_t B = q.sizes()[0], H = q.sizes()[1], L = q.sizes()[2], S = k.sizes()[2];
  const int64_t E = q.sizes()[3], Ev = v.sizes()[3];
  if (!flash_attention_fits(B * H, L, S, E, Ev)) return false;
  cudaStream_t s = prepare(q.device());
  dispatch_floating(q.dtype(), "flash_attention_backward", []<typename T>() {});
  Tensor delta = empty({B, H, L}, q.options());  // rowsum(dP * P), written by the dq pass
  launch_flash_attention_backward(s, q.dtype(), B, H, L, S, E, Ev, heads_of(dq), heads_of(dk), heads_of(dv),
                                  delta.raw_data_ptr(), heads_of(dout), heads_of(q), heads_of(k), heads_of(v),
                                  lse.raw_data_ptr(), scale, dropout);
  return true;
}

// ---- random (random.cu) ----

bool CudaBackend::dropout_noise(const Tensor& noise, const PhiloxDropout& dropout) {
  if (noise.dtype() != kFloat32 && noise.dtype() != kFloat64) return false;  // bfloat16: the CPU generator's mask
  launch_dropout_noise(prepare(noise.device()), noise.dtype(), noise.numel(), noise.raw_data_ptr(), dropout);
  return true;
}

// ---- optimizers (optim.cu): multi-tensor; a list the kernels cannot take as plain arrays composes ----

namespace {
// True when every defined tensor is contiguous and of `dtype`, a floating type: the kernels read
// them as plain arrays.
bool plain(const tensor_list& tensors, ScalarType dtype) {
  if (dtype != kFloat32 && dtype != kFloat64) return false;
  for (const Tensor& t : tensors)
    if (t.defined() && (!t.is_contiguous() || t.dtype() != dtype)) return false;
  return true;
}

// One optimizer kernel's lists (params, grads, then the state: one entry per parameter, undefined where
// the rule does not use it) as arrays, and the launch; false where a list is not plain arrays.
template <size_t kArrays, typename Step, typename Launch>
bool run_update(const std::array<const tensor_list*, kArrays>& lists, const std::vector<Step>& steps, Launch launch) {
  const tensor_list& params = *lists[0];
  if (params.empty()) return true;
  const ScalarType dtype = params[0].dtype();
  for (const tensor_list* ts : lists)
    if (!plain(*ts, dtype)) return false;
  cudaStream_t s = prepare(params[0].device());
  std::vector<UpdateArrays<kArrays>> arrays(params.size());
  for (size_t i = 0; i < params.size(); ++i) {
    for (size_t k = 0; k < kArrays; ++k) arrays[i].ptrs[k] = mutable_ptr_or_null((*lists[k])[i]);
    arrays[i].n = params[i].numel();
  }
  launch(s, dtype, arrays, steps);
  return true;
}
}  // namespace

bool CudaBackend::adam_update(const tensor_list& params, const tensor_list& grads, const tensor_list& exp_avgs,
                              const tensor_list& exp_avg_sqs, const tensor_list& max_exp_avg_sqs,
                              const std::vector<AdamStep>& steps) {
  return run_update<5>({&params, &grads, &exp_avgs, &exp_avg_sqs, &max_exp_avg_sqs}, steps, launch_adam_update);
}

bool CudaBackend::sgd_update(const tensor_list& params, const tensor_list& grads, const tensor_list& momentum_buffers,
                             const std::vector<SgdStep>& steps) {
  return run_update<3>({&params, &grads, &momentum_buffers}, steps, launch_sgd_update);
}

bool CudaBackend::rmsprop_update(const tensor_list& params, const tensor_list& grads, const tensor_list& square_avgs,
                                 const tensor_list& grad_avgs, const tensor_list& momentum_buffers,
                                 const std::vector<RmspropStep>& steps) {
  return run_update<5>({&params, &grads, &square_avgs, &grad_avgs, &momentum_buffers}, steps, launch_rmsprop_update);
}

bool CudaBackend::adagrad_update(const tensor_list& params, const tensor_list& grads, const tensor_list& sums,
                                 const std::vector<AdagradStep>& steps) {
  return run_update<3>({&params, &grads, &sums}, steps, launch_adagrad_update);
}

bool CudaBackend::sum_of_squares(const Tensor& out, const tensor_list& tensors) {
  if (tensors.empty() || !plain(tensors, tensors[0].dtype())) return false;
  cudaStream_t s = prepare(out.device());
  std::vector<void*> ptrs;
  std::vector<int64_t> sizes, starts = {0};
  for (const Tensor& t : tensors) {
    ptrs.push_back(t.raw_data_ptr());
    sizes.push_back(t.numel());
    starts.push_back(starts.back() + multi_tensor_chunks(t.numel()));
  }
  // (chunks) one partial sum per block, then (n + 1) where each tensor's partials begin
  Tensor partial = empty({std::max<int64_t>(starts.back(), 1)}, out.options());
  Tensor device_starts = from_vector<int64_t>(starts, {static_cast<int64_t>(starts.size())}).to(out.device());
  launch_sum_of_squares(s, tensors[0].dtype(), ptrs, sizes, static_cast<double*>(out.raw_data_ptr()),
                        static_cast<double*>(partial.raw_data_ptr()),
                        static_cast<const int64_t*>(device_starts.raw_data_ptr()));
  return true;
}

bool CudaBackend::scale_(const tensor_list& tensors, double factor) {
  if (tensors.empty()) return true;
  if (!plain(tensors, tensors[0].dtype())) return false;
  cudaStream_t s = prepare(tensors[0].device());
  std::vector<void*> ptrs;
  std::vector<int64_t> sizes;
  for (const Tensor& t : tensors) {
    ptrs.push_back(t.raw_data_ptr());
    sizes.push_back(t.numel());
  }
  launch_scale(s, tensors[0].dtype(), ptrs, sizes, factor);
  return true;
}

// ---- indexing (index.cu); index is int64, contiguous and in range ----

void CudaBackend::index_select(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) {
  cudaStream_t s = prepare(out.device());
  launch_index_select(s, in.dtype(), blocks_around(in.sizes().vec(), dim), index.numel(),
                      static_cast<const int64_t*>(index.raw_data_ptr()), out.raw_data_ptr(), in.raw_data_ptr());
}

namespace {

// IndexSegments (cuda/kernels.h) of n indices in [0, len), made on the host: one int64 buffer on
// `device` holding order, chunk_begin, rows and seg_begin, and the two counts.
struct SortedIndex {
  Tensor buffer;
  int64_t chunks = 0, segments = 0;
};

SortedIndex sort_index(const int64_t* idx, int64_t n, int64_t len, Device device) {
  std::vector<int64_t> order(n);
  if (len <= 2 * n + 1024) {  // a counting sort by value; stable: positions stay in order
    std::vector<int64_t> next(len + 1, 0);
    for (int64_t i = 0; i < n; ++i) ++next[idx[i] + 1];
    for (int64_t v = 0; v < len; ++v) next[v + 1] += next[v];
    for (int64_t i = 0; i < n; ++i) order[next[idx[i]]++] = i;
  } else {  // few indices into a long dim
    for (int64_t i = 0; i < n; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return idx[a] < idx[b]; });
  }
  std::vector<int64_t> chunk_begin, rows, seg_begin;
  for (int64_t p = 0; p < n;) {
    const int64_t value = idx[order[p]];
    rows.push_back(value);
    seg_begin.push_back(static_cast<int64_t>(chunk_begin.size()));
    int64_t end = p;
    while (end < n && idx[order[end]] == value) ++end;
    for (; p < end; p += kIndexAddChunk) chunk_begin.push_back(p);
    p = end;
  }
  SortedIndex sorted{Tensor(), static_cast<int64_t>(chunk_begin.size()), static_cast<int64_t>(rows.size())};
  chunk_begin.push_back(n);
  seg_begin.push_back(sorted.chunks);
  std::vector<int64_t> all = order;
  for (const std::vector<int64_t>* part : {&chunk_begin, &rows, &seg_begin})
    all.insert(all.end(), part->begin(), part->end());
  sorted.buffer = from_vector<int64_t>(all, {static_cast<int64_t>(all.size())}).to(device);
  return sorted;
}

}  // namespace

// Floating types: deterministic, sorted on the host (one read back of the index, which the op
// read already to check its range); int64 adds exactly in any order, so it keeps the atomics.
void CudaBackend::index_add(const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src) {
  cudaStream_t s = prepare(out.device());
  check_atomic_dtype(out, "index_add");
  const Blocks3 blocks = blocks_around(out.sizes().vec(), dim);
  const int64_t n = index.numel();
  if (!is_floating_point(out.dtype()) || n == 0 || src.numel() == 0) {
    launch_index_add(s, out.dtype(), blocks, n, static_cast<const int64_t*>(index.raw_data_ptr()), out.raw_data_ptr(),
                     src.raw_data_ptr());
    return;
  }
  dispatch_floating(out.dtype(), "index_add", []<typename T>() {});
  const Tensor host = index.to(kCPU).contiguous();
  const SortedIndex sorted = sort_index(host.data_ptr<int64_t>(), n, blocks.len, out.device());
  const int64_t* base = sorted.buffer.data_ptr<int64_t>();
  const IndexSegments seg{base, base + n, base + n + sorted.chunks + 1, base + n + sorted.chunks + 1 + sorted.segments,
                          sorted.chunks, sorted.segments};
  Tensor partial = empty({blocks.outer * sorted.chunks * blocks.inner}, out.options());  // the chunks' sums
  launch_index_add_sorted(s, out.dtype(), blocks, n, seg, partial.raw_data_ptr(), out.raw_data_ptr(),
                          src.raw_data_ptr());
}

void CudaBackend::gather(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) {
  cudaStream_t s = prepare(out.device());
  const std::vector<int64_t> st = with_zero_at(in.strides(), dim);
  launch_gather(s, in.dtype(), index.numel(), offset_calc<1>("gather", index.sizes(), {st}), in.strides()[dim],
                static_cast<const int64_t*>(index.raw_data_ptr()), out.raw_data_ptr(), in.raw_data_ptr());
}

void CudaBackend::scatter_add(const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src) {
  cudaStream_t s = prepare(out.device());
  check_atomic_dtype(out, "scatter_add");
  const std::vector<int64_t> st = with_zero_at(out.strides(), dim);
  launch_scatter_add(s, out.dtype(), index.numel(), offset_calc<1>("scatter_add", index.sizes(), {st}),
                     out.strides()[dim], static_cast<const int64_t*>(index.raw_data_ptr()), out.raw_data_ptr(),
                     src.raw_data_ptr());
}

// ---- pooling (pool.cu); planes are contiguous ----

void CudaBackend::max_pool2d(const Tensor& out, const Tensor& indices, const Tensor& in, const PoolGeometry& g) {
  cudaStream_t s = prepare(out.device());
  launch_max_pool2d(s, in.dtype(), out.numel(), g, out.raw_data_ptr(), indices.data_ptr<int64_t>(), in.raw_data_ptr());
}

void CudaBackend::avg_pool2d(const Tensor& out, const Tensor& in, const PoolGeometry& g) {
  cudaStream_t s = prepare(out.device());
  launch_avg_pool2d(s, in.dtype(), out.numel(), g, out.raw_data_ptr(), in.raw_data_ptr());
}

void CudaBackend::avg_pool2d_backward(const Tensor& din, const Tensor& dout, const PoolGeometry& g) {
  cudaStream_t s = prepare(din.device());
  launch_avg_pool2d_backward(s, din.dtype(), din.numel(), g, din.raw_data_ptr(), dout.raw_data_ptr());
}

}  // namespace ember::cuda
