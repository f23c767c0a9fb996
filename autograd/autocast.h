// Mixed precision as PyTorch's CPU autocast: inside an `ember::autocast` scope the matrix products
// run in bfloat16 (float32 sums), while the ops PyTorch keeps in float32 convert their inputs up.
//
//   ember::nn::GPT model(config);                // float32 parameters: the master weights
//   {
//     ember::autocast guard;                     // CPU, bfloat16
//     auto [logits, loss] = model->forward(x, y);  // the Linears in bf16, the loss in float32
//   }
//   loss.backward();                             // parameter gradients come back in float32
//
// The lists are torch 1.13's for the CPU (aten/src/ATen/autocast_mode.cpp), for the ops Ember has:
//   to bfloat16 ("lower_precision_fp"): matmul, mm, bmm, addmm, linear;
//   to float32 ("fp32"): cross_entropy, nll_loss, mse_loss;
//   every other op runs in the dtype of its inputs (softmax and layer_norm of a bf16 tensor stay bf16,
//   and float32 + bfloat16 promotes to float32), as in torch 1.13.
// The casts are the differentiable Tensor::to, so gradients flow back in each input's dtype. The
// state is per thread, as PyTorch's. Only the CPU with bfloat16 is supported; CUDA autocast is not
// (bfloat16 tensors are CPU-only in Ember), and asking for it throws. As in PyTorch, the bf16 copy of
// a weight (a float32 leaf that requires grad) is made once and reused by every op in the scope; the
// cache empties when the outermost scope exits (or on clear_cache()), and an entry whose weight was
// modified in place since (its version counter moved, e.g. by an optimizer step) is made again.
#pragma once

#include <cstddef>

#include "core/device.h"
#include "core/tensor.h"

namespace ember {

class autocast {
 public:
  // Enters autocast for `device` (kCPU only) in `dtype` (kBFloat16 only); the previous state comes
  // back when the guard is destroyed. `enabled = false` turns it off inside an enclosing scope.
  explicit autocast(DeviceType device = kCPU, ScalarType dtype = kBFloat16, bool enabled = true);
  ~autocast();
  autocast(const autocast&) = delete;
  autocast& operator=(const autocast&) = delete;

  // libtorch 1.13's at::autocast functions for the CPU.
  static bool is_cpu_enabled();
  static void set_cpu_enabled(bool enabled);
  static ScalarType get_autocast_cpu_dtype();
  static void set_autocast_cpu_dtype(ScalarType dtype);
  static int increment_nesting();
  static int decrement_nesting();
  static void clear_cache();  // this thread's cached weight casts
  static size_t cache_size();

 private:
  bool previous_enabled_;
  ScalarType previous_dtype_;
};

namespace autograd {
// For ops in the lists above: x converted to the autocast dtype (or to float32), when autocast is
// on and x is a float32 or bfloat16 CPU tensor of another dtype (float64 is left alone, as in torch
// 1.13); otherwise x itself.
Tensor autocast_to_lower(const Tensor& x);
Tensor autocast_to_float32(const Tensor& x);
}  // namespace autograd

}  // namespace ember
