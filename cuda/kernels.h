// The device side of the CUDA backend: kernel launchers on plain pointers, sizes and OffsetCalcs.
//
//   launch_unary(stream, UnaryOp::Exp, kFloat32, n, calc, out_ptr, in_ptr);
//
// The .cu files define these; cuda/backend.cpp calls them after it has turned Tensors into
// pointers and OffsetCalcs and checked everything a user could get wrong. This header and the .cu
// files stay free of Tensor and fmt, so nvcc compiles only kernels (quickly) and never parses
// the rest of Ember. Every launcher checks its launch; `name` is how errors name the op.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "core/dtype.h"
#include "core/functors.h"
#include "cuda/launch.h"

namespace ember::cuda {

// Throws ember::Error if the last kernel launch failed (defined in cuda/runtime.cpp).
void check_launch(const char* name);
// Throws ember::Error: `what` (a dtype or op, by number) reached a switch of `where` with no case for it.
[[noreturn]] void unsupported(const char* where, const char* what, int value);

// ---- elementwise.cu: operands share out's shape; OffsetCalc gives each one's element offset ----
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
// Unary ops built for int64 too; the others need floating-point math (exp, log, tanh, ...).
constexpr bool unary_on_integers(UnaryOp op) {
  return op == UnaryOp::Neg || op == UnaryOp::Abs || op == UnaryOp::Sign || op == UnaryOp::Square ||
         op == UnaryOp::Relu;
}

// ---- reduce.cu ----
// How a reduction is laid out on the device. columns: the reduced dims lead and the outputs are
// neighbours in memory (a sum over the batch of (B, C)), so a block takes 32 outputs and reads rows
// coalesced. splits > 1: few outputs with long reductions (x.sum()) are split across that many
// blocks each, whose partial results a second launch folds; `partial` must then hold
// n_out * splits values of 8 bytes.
struct ReduceStrategy {
  bool columns = false;
  int64_t splits = 1;
};
// leading_dims: in's innermost kept dim has stride 1 and its innermost reduced dim does not.
ReduceStrategy reduce_strategy(int64_t n_out, int64_t n_red, bool leading_dims);
// out[o] = fold of in over n_red elements: `outer` maps o to (out offset, in base offset), `inner`
// maps r in [0, n_red) to an in offset from that base. All/Any read any dtype and write bool.
void launch_reduce(cudaStream_t s, ReduceOp op, ScalarType type, ReduceStrategy how, int64_t n_out, int64_t n_red,
                   const OffsetCalc<2>& outer, const OffsetCalc<1>& inner, void* out, void* partial, const void* in);
// For each of n positions (values, indices, in start): the first max/min of `len` elements `step`
// apart (the first NaN, if any), each position's elements folded by one block or, for few long
// rows, by arg_reduce_splits(n, len) blocks and a second pass; `partial` then holds
// n * splits values of 16 bytes.
int64_t arg_reduce_splits(int64_t n, int64_t len);
void launch_arg_reduce(cudaStream_t s, bool is_max, ScalarType type, int64_t n, const OffsetCalc<3>& calc,
                       int64_t len, int64_t step, void* values, int64_t* indices, void* partial, const void* in);

// ---- nn.cu: contiguous rows ----
void launch_softmax(cudaStream_t s, ScalarType type, int64_t rows, int64_t cols, void* out, const void* in, bool log);
void launch_softmax_backward(cudaStream_t s, ScalarType type, int64_t rows, int64_t cols, void* din, const void* dout,
                             const void* out, bool log);
// mats matrices of (R, C), contiguous.
void launch_triangle(cudaStream_t s, ScalarType type, int64_t mats, int64_t R, int64_t C, int64_t k, bool lower,
                     void* out, const void* in);

// ---- norm.cu: LayerNorm over the last dim of contiguous (N, D) rows; weight, bias may be null ----
void launch_layer_norm(cudaStream_t s, ScalarType type, int64_t N, int64_t D, void* out, void* mean, void* rstd,
                       const void* in, const void* weight, const void* bias, double eps);
// How many bands of rows the backward's dweight / dbias pass splits N rows into; with more than
// one, `partial` must hold 2 * bands * D values of the dtype (else it may be null).
int64_t layer_norm_param_bands(int64_t N);
// din, dweight, dbias may each be null (not wanted); weight may be null (no affine weight).
void launch_layer_norm_backward(cudaStream_t s, ScalarType type, int64_t N, int64_t D, void* din, void* dweight,
                                void* dbias, void* partial, const void* dout, const void* in, const void* mean,
                                const void* rstd, const void* weight);

// ---- optim.cu: multi-tensor updates; one list entry per tensor, all contiguous and of `type` ----
inline constexpr int64_t kMultiTensorChunk = 16384;  // elements one block of a multi-tensor launch takes
// Blocks (chunks) a multi-tensor launch gives a tensor of n elements; a sum_of_squares call's
// `partial` holds one double per chunk of all its tensors, `starts` (n + 1) where each tensor's begin.
int64_t multi_tensor_chunks(int64_t n);
// A tensor of n elements and its optimizer state; max_exp_avg_sq / momentum_buffer null where unused.
struct AdamTensors {
  void* param;
  const void* grad;
  void* exp_avg;
  void* exp_avg_sq;
  void* max_exp_avg_sq;
  int64_t n;
};
struct SgdTensors {
  void* param;
  const void* grad;
  void* momentum_buffer;
  int64_t n;
};
// core/backend.h's AdamStep and SgdStep, restated here so that nvcc never parses Tensor.
struct AdamHyper {
  double lr, beta1, beta2, eps, weight_decay, step_size, bias_correction2_sqrt;
  bool amsgrad, maximize, decoupled;
};
struct SgdHyper {
  double lr, momentum, dampening, weight_decay;
  bool nesterov, maximize, first_step;
};
void launch_adam_update(cudaStream_t s, ScalarType type, const std::vector<AdamTensors>& tensors,
                        const std::vector<AdamHyper>& hyper);
void launch_sgd_update(cudaStream_t s, ScalarType type, const std::vector<SgdTensors>& tensors,
                       const std::vector<SgdHyper>& hyper);
// out (tensors.size()) doubles: each tensor's sum of squares, squares in `type`, summed in double.
void launch_sum_of_squares(cudaStream_t s, ScalarType type, const std::vector<void*>& tensors,
                           const std::vector<int64_t>& sizes, double* out, double* partial, const int64_t* starts);
// tensors[i] *= factor, rounded to `type`.
void launch_scale(cudaStream_t s, ScalarType type, const std::vector<void*>& tensors, const std::vector<int64_t>& sizes,
                  double factor);

// ---- index.cu; indices are in range (the op checked) ----
// out (outer, n_index, inner) = in (outer, in_len, inner) rows picked by idx; both contiguous.
void launch_index_select(cudaStream_t s, ScalarType type, Blocks3 in_blocks, int64_t n_index, const int64_t* idx,
                         void* out, const void* in);
// out (outer, out_len, inner) rows idx[i] += src (outer, n_index, inner); atomics, so repeated indices add up.
void launch_index_add(cudaStream_t s, ScalarType type, Blocks3 out_blocks, int64_t n_index, const int64_t* idx,
                      void* out, const void* src);
// For each of n index positions: `calc` gives the offset into the strided tensor with `dim` held at 0.
// gather: out[i] = in[off + idx[i] * dim_stride]; scatter_add: out[off + idx[i] * dim_stride] += src[i].
void launch_gather(cudaStream_t s, ScalarType type, int64_t n, const OffsetCalc<1>& calc, int64_t dim_stride,
                   const int64_t* idx, void* out, const void* in);
void launch_scatter_add(cudaStream_t s, ScalarType type, int64_t n, const OffsetCalc<1>& calc, int64_t dim_stride,
                        const int64_t* idx, void* out, const void* src);

// Calls f.template operator()<T>() with T the C++ type of `type` (fmt-free twin of backend.h's dispatch).
template <typename F>
void dispatch_type(ScalarType type, F&& f) {
  switch (type) {
    case kFloat32: return f.template operator()<float>();
    case kFloat64: return f.template operator()<double>();
    case kInt64: return f.template operator()<int64_t>();
    case kBool: return f.template operator()<bool>();
    default: unsupported("dispatch_type", "dtype", static_cast<int>(type));
  }
}

}  // namespace ember::cuda
