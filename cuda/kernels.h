// What the device side of the CUDA backend shares: launch checks, dtype dispatch, and the layout
// helpers and plain structs that a .cu file's launcher and cuda/backend.cpp both use.
//
// Each .cu file defines kernel launchers on plain pointers, sizes and OffsetCalcs
// (`launch_unary(stream, UnaryOp::Exp, kFloat32, n, calc, out_ptr, in_ptr)`), declared in
// cuda/backend.cpp, their one caller, after it has turned Tensors into pointers and checked
// everything a user could get wrong. This header and the .cu files stay free of Tensor and fmt, so
// nvcc compiles only kernels (quickly) and never parses the rest of Ember. Every launcher checks
// its launch; `name` is how errors name the op.
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <cstdint>
#include <vector>

#include "core/dispatch.h"
#include "core/dtype.h"
#include "core/functors.h"
#include "core/optim_rules.h"
#include "cuda/launch.h"

namespace ember::cuda {

// Throws ember::Error if the last kernel launch failed (defined in cuda/runtime.cpp).
void check_launch(const char* name);
// Throws ember::Error: `what` (a dtype or op, by number) reached a switch of `where` with no case for it.
[[noreturn]] void unsupported(const char* where, const char* what, int value);

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
// One parameter's arrays for a multi-tensor update, in the order of its rule's update(...) in
// core/optim_rules.h (param, grad, then the state; null where the rule does not use one), and its
// element count.
template <int kArrays>
struct UpdateArrays {
  std::array<void*, kArrays> ptrs;
  int64_t n;
};

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
// core/backend.h's dispatch): float32, float64, int64, bool.
template <typename F>
void dispatch_type(ScalarType type, F&& f) {
  dispatch_among<float, double, int64_t, bool>(type, f,
                                               [&] { unsupported("dispatch_type", "dtype", static_cast<int>(type)); });
}

// The same for the kernels that exist for floating types only (the caller checked the dtype);
// `name` is the op an unexpected dtype names.
template <typename F>
void dispatch_floating_type(const char* name, ScalarType type, F&& f) {
  dispatch_among<float, double>(type, f, [&] { unsupported(name, "dtype", static_cast<int>(type)); });
}

}  // namespace ember::cuda
