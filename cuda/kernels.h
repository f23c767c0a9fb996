// What the .cu files of the CUDA backend share: the stream, scratch memory, errors, launch checks,
// dtype dispatch, and the layout helpers and plain structs of their host sides.
//
// Each .cu file defines the launchers of its family (cuda/launchers.h): host code that takes
// TensorViews, checks what only the CUDA side can reject (a dtype without a CUDA kernel, too many
// dims), picks the device's stream, allocates scratch memory and launches the kernels on plain
// pointers, sizes and OffsetCalcs. The op (autograd/) has already checked everything a user could
// get wrong. This header and the .cu files stay free of Tensor and fmt, so nvcc compiles only
// kernels and their launch code (quickly) and never parses the rest of Ember; what needs
// formatting is a function of cuda/runtime.cpp. Every launch is checked; `name` is how errors
// name the op.
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "core/device.h"
#include "core/dispatch.h"
#include "core/dtype.h"
#include "core/functors.h"
#include "core/optim_rules.h"
#include "core/tensor_view.h"
#include "cuda/launch.h"
#include "cuda/plugin.h"
#include "cuda/reduced_float.h"

namespace ember {
struct PhiloxDropout;  // core/philox.h
}  // namespace ember

namespace ember::cuda {

// Makes `device` current for this thread (throws a clear error when it does not exist) and
// returns its stream; every kernel of the backend is launched on it.
EMBER_CUDA_EXPORT cudaStream_t prepare(Device device);

// ---- defined in cuda/runtime.cpp ----
// Throws ember::Error if the last kernel launch failed.
void check_launch(const char* name);
// Throws ember::Error: `what` (a dtype or op, by number) reached a switch of `where` with no case for it.
[[noreturn]] void unsupported(const char* where, const char* what, int value);
// Throws ember::Error: "<op>: not implemented for '<dtype>' on CUDA", what an op says for a dtype it
// has no CUDA kernel for.
[[noreturn]] void unsupported_dtype(const char* op, ScalarType dtype);
// Throws ember::Error with this message.
[[noreturn]] void fail(const std::string& message);
// Throws ember::Error naming `call` unless err is cudaSuccess (EMBER_CUDA_CHECK's message).
void check_cuda(cudaError_t err, const char* call);
// Throws, unless dtype is float32 or float64, the error core/backend.h's dispatch_floating gives
// (unsupported_dtype's for float16 and bfloat16).
void require_floating(ScalarType dtype, const char* op);

// Device memory for one launcher's scratch (partial results, an uploaded table), from the
// device's caching allocator, returned to it when the buffer goes out of scope. Every kernel runs
// on the device's one stream, so the kernels queued before the return finish before any later
// user of the memory starts.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(Device device, size_t nbytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* get() const { return ptr_; }
  template <typename T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }

 private:
  Device device_;
  void* ptr_ = nullptr;
};

// A DeviceBuffer holding a copy of host memory.
DeviceBuffer upload(Device device, const void* host, size_t nbytes);
template <typename T>
DeviceBuffer upload(Device device, const std::vector<T>& host) {
  return upload(device, host.data(), host.size() * sizeof(T));
}
// Copies device memory to the host, once the kernels queued before have run.
void download(void* host, const void* src, size_t nbytes, Device device);

// A contiguous copy of a view in compute_dtype(view.dtype) (int64 for the narrow integers, float32
// for the reduced floats), for kernels that have no case of their own for those dtypes: run the
// kernel on `view`, then narrow_back(). The CUDA side of core/cpu/narrow_int.h.
struct WideCopy {
  DeviceBuffer buffer;
  std::vector<int64_t> sizes, strides;
  TensorView view;
};
WideCopy widen(const TensorView& t);
// The same buffer left unwritten, for an output the kernel only writes.
WideCopy wide_buffer(const TensorView& t);
// Writes `wide` back into `out` (rounding or keeping the low bits, as a copy does).
void narrow_back(const TensorView& out, const WideCopy& wide);

// An OffsetCalc over `sizes` for operands with these strides (after merging dims); past kMaxDims
// after merging, the error names the op and the shape.
[[noreturn]] void fail_too_many_dims(const char* op, const std::vector<int64_t>& sizes);
template <int N>
OffsetCalc<N> offset_calc(const char* op, const std::vector<int64_t>& sizes,
                          const std::array<std::vector<int64_t>, N>& strides) {
  const MergedDims<N> m = merge_dims<N>(sizes, strides);
  if (m.sizes.size() > static_cast<size_t>(kMaxDims)) fail_too_many_dims(op, sizes);
  return make_offset_calc<N>(m);
}
// The same over views of one shape (sizes[0]'s): operand k's strides are views[k]'s.
template <int N>
OffsetCalc<N> offset_calc(const char* op, const std::array<const TensorView*, N>& views) {
  std::array<std::vector<int64_t>, N> strides;
  for (int k = 0; k < N; ++k) strides[k] = views[k]->strides.vec();
  return offset_calc<N>(op, views[0]->sizes.vec(), strides);
}

// A contiguous view as rows of its last dim (cols 1 for a 0-dim view, rows 0 when it is empty):
// what the row kernels (softmax, sort, cumsum) take.
struct Rows {
  int64_t rows, cols;
};
inline Rows rows_of(const TensorView& t) {
  const int64_t cols = t.dim() ? t.sizes[t.dim() - 1] : 1;
  return {cols ? t.numel / cols : 0, cols};
}

// ---- elementwise.cu ----
// Unary ops built for int64 too; the others need floating-point math (exp, log, tanh, ...).
constexpr bool unary_on_integers(UnaryOp op) {
  return op == UnaryOp::Neg || op == UnaryOp::Abs || op == UnaryOp::Sign || op == UnaryOp::Square ||
         op == UnaryOp::Relu;
}

// ---- reduce.cu ----
// How a reduction is laid out on the device. columns: the reduced dims lead and the outputs are
// neighbours in memory (a sum over the batch of (B, C)), so a block takes 32 outputs and reads rows
// coalesced. splits > 1: few outputs with long reductions (x.sum()), or few column blocks over
// many rows, are split across that many blocks each, whose partial results a second launch folds;
// `partial` must then hold n_out * splits values of 8 bytes.
struct ReduceStrategy {
  bool columns = false;
  int64_t splits = 1;
};
// leading_dims: in's innermost kept dim has stride 1 and its innermost reduced dim does not.
ReduceStrategy reduce_strategy(int64_t n_out, int64_t n_red, bool leading_dims);
// For each of n positions (values, indices, in start): the first max/min of `len` elements `step`
// apart (the first NaN, if any), each position's elements folded by one block or, for few long
// rows, by arg_reduce_splits(n, len) blocks and a second pass; `partial` then holds
// n * splits values of 16 bytes.
int64_t arg_reduce_splits(int64_t n, int64_t len);

// ---- norm.cu: LayerNorm over the last dim of contiguous (N, D) rows; weight, bias may be null ----
// How many bands of rows the backward's dweight / dbias pass splits N rows into; with more than
// one, `partial` must hold 2 * bands * D values of the dtype (else it may be null).
int64_t layer_norm_param_bands(int64_t N);

// ---- optim.cu: multi-tensor updates; one list entry per tensor, all contiguous and of `type` ----
inline constexpr int64_t kMultiTensorChunk = 16384;  // elements one block of a multi-tensor launch takes
// Blocks (chunks) a multi-tensor launch gives a tensor of n elements; a sum_of_squares call's
// `partial` holds one double per chunk of all its tensors, `starts` (n + 1) where each tensor's begin.
int64_t multi_tensor_chunks(int64_t n);

// ---- attention.cu: causal attention, FlashAttention-2 style ----
inline constexpr int64_t kMaxHeadDim = 128;  // the largest head dim (of q and k, and of v) the kernels take
// A (B, H, rows, cols) strided view with unit-stride rows: the matrix of (b, h) starts at
// data + b * batch_stride + h * head_stride, its rows row_stride apart (in elements).
struct AttentionHeads {
  void* data;
  int64_t batch_stride, head_stride, row_stride;
};
// Whether the launches take these sizes (head dims within kMaxHeadDim, grids within CUDA's limits).
bool flash_attention_fits(int64_t BH, int64_t L, int64_t S, int64_t E, int64_t Ev);
// attention_mma.cu: the forward on tensor cores for bfloat16 and float16 heads (`dtype`), with a
// float32 logsumexp; false (nothing launched) unless E == Ev is 32, 64 or 128.
bool flash_attention_tensor_cores(ScalarType dtype, const AttentionHeads& out, float* lse, const AttentionHeads& q,
                                  const AttentionHeads& k, const AttentionHeads& v, int64_t B, int64_t H, int64_t L,
                                  int64_t S, int64_t E, int64_t Ev, double scale, const PhiloxDropout& dropout,
                                  cudaStream_t stream);
// Its backward: dq, dk, dv from the float32 logsumexp, `delta` (B * H * L floats) its scratch; false
// (nothing launched) unless E == Ev is 32 or 64.
bool flash_attention_backward_tensor_cores(ScalarType dtype, const AttentionHeads& dq, const AttentionHeads& dk,
                                           const AttentionHeads& dv, const AttentionHeads& dout,
                                           const AttentionHeads& q, const AttentionHeads& k, const AttentionHeads& v,
                                           const float* lse, float* delta, int64_t B, int64_t H, int64_t L, int64_t S,
                                           int64_t E, int64_t Ev, double scale, const PhiloxDropout& dropout,
                                           cudaStream_t stream);

// ---- index.cu; indices are in range (the op checked) ----
// The positions of an index sorted by value, for index_add without atomics (device pointers):
// order (n) the positions, stable; chunk_begin (chunks + 1) where each chunk of at most
// kIndexAddChunk positions of one value begins in order; rows (segments) the distinct values,
// ascending; seg_begin (segments + 1) where each value's chunks begin.
inline constexpr int64_t kIndexAddChunk = 32;
struct IndexSegments {
  const int64_t *order, *chunk_begin, *rows, *seg_begin;
  int64_t chunks, segments;
};

// Calls f.template operator()<T>() with T the C++ type of `type` (core/dispatch.h's switch, as
// core/backend.h's dispatch): float32, float64, int64, bool. Any other dtype is refused with an
// error naming `name` (the op) and the dtype.
template <typename F>
void dispatch_type(const char* name, ScalarType type, F&& f) {
  dispatch_among<float, double, int64_t, bool>(type, f, [&] { unsupported_dtype(name, type); });
}

// Every dtype: for the kernels that only move values (copy, fill, where, gathers) and for those
// that compute in opmath_t<T> (the elementwise families). float16 and bfloat16 are
// cuda/reduced_float.h's device types.
template <typename F>
void dispatch_all_types(const char* name, ScalarType type, F&& f) {
  dispatch_among<float, double, int64_t, bool, DeviceBFloat16, uint8_t, int8_t, int16_t, int32_t, DeviceHalf>(
      type, f, [&] { unsupported_dtype(name, type); });
}

// The same for the kernels that exist for floating types only (the caller checked the dtype);
// `name` is the op an unexpected dtype names.
template <typename F>
void dispatch_floating_type(const char* name, ScalarType type, F&& f) {
  dispatch_among<float, double>(type, f, [&] { unsupported_dtype(name, type); });
}

// The type a kernel computes values of T in, as the CPU backend does: bfloat16 and float16 in
// float32, rounded once when stored (core/cpu/bfloat16_float.h); the narrow integers in int64,
// their low bits kept when stored (core/cpu/narrow_int.h); every other type in itself.
template <typename T>
inline constexpr bool kIsReducedFloat = std::is_same_v<T, DeviceBFloat16> || std::is_same_v<T, DeviceHalf>;
template <typename T>
inline constexpr bool kIsNarrowInteger =
    std::is_same_v<T, uint8_t> || std::is_same_v<T, int8_t> || std::is_same_v<T, int16_t> || std::is_same_v<T, int32_t>;
template <typename T>
using opmath_t = std::conditional_t<kIsReducedFloat<T>, float, std::conditional_t<kIsNarrowInteger<T>, int64_t, T>>;

// The dtype of opmath_t: float32 for the reduced floats, int64 for the narrow integers.
constexpr ScalarType compute_dtype(ScalarType t) {
  return is_reduced_floating_point(t) ? kFloat32 : is_narrow_integer(t) ? kInt64 : t;
}

}  // namespace ember::cuda
