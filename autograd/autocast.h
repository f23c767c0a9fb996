// Mixed precision as PyTorch's autocast, on the CPU (bfloat16) and on CUDA (bfloat16 or float16):
// inside an `ember::autocast` scope the ops on PyTorch's lists cast their inputs, the matrix
// products, convolutions and attention down to the autocast dtype (float32 sums), the ops PyTorch
// keeps in float32 up.
//
//   ember::nn::GPT model(config);                   // float32 parameters: the master weights
//   model->to(ember::kCUDA);
//   {
//     ember::autocast guard(ember::kCUDA, ember::kBFloat16);
//     auto [logits, loss] = model->forward(x, y);   // the Linears in bf16, LayerNorm and the loss in float32
//   }
//   loss.backward();                                // parameter gradients come back in float32
//
// Each device has its own switch and dtype (torch's is_enabled / is_cpu_enabled); an op follows the
// list of its inputs' device. The lists are EMBER_AUTOCAST_OPS below: the CPU's are torch 1.13's
// CPU lists, CUDA's are PyTorch's CUDA lists (AT_FORALL_* in ATen/autocast_mode.h), for the ops
// Ember has; every other op runs in the dtypes of its inputs (float32 + bfloat16 promotes to
// float32). An op on a list runs with autocast off inside it, so the ops it is composed of keep the
// dtypes it chose, and the backward pass never casts. The casts are the differentiable Tensor::to,
// so gradients flow back in each input's dtype. As in PyTorch, the low-precision copy of a weight
// (a float32 leaf that requires grad) is made once and reused by every op in the scope; the cache
// empties when the outermost scope exits (or on clear_cache()), and an entry whose weight was
// modified in place since (its version counter moved, e.g. by an optimizer step) is made again.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <vector>

#include "core/device.h"
#include "core/tensor.h"

namespace ember {

class autocast {
 public:
  // Enters autocast for `device` (kCPU or kCUDA) in `dtype` (by default the device's autocast
  // dtype: bfloat16 on the CPU, float16 on CUDA, as PyTorch); the previous state comes back when the
  // guard is destroyed. `enabled = false` turns it off inside an enclosing scope.
  explicit autocast(DeviceType device = kCPU, std::optional<ScalarType> dtype = std::nullopt, bool enabled = true);
  ~autocast();
  autocast(const autocast&) = delete;
  autocast& operator=(const autocast&) = delete;

  // libtorch's at::autocast functions: is_enabled / set_enabled and the gpu dtype are CUDA's.
  static bool is_enabled();
  static void set_enabled(bool enabled);
  static bool is_cpu_enabled();
  static void set_cpu_enabled(bool enabled);
  static bool is_enabled(DeviceType device);
  static ScalarType get_autocast_gpu_dtype();
  static void set_autocast_gpu_dtype(ScalarType dtype);
  static ScalarType get_autocast_cpu_dtype();
  static void set_autocast_cpu_dtype(ScalarType dtype);
  static int increment_nesting();
  static int decrement_nesting();
  static void clear_cache();  // this thread's cached weight casts
  static size_t cache_size();

 private:
  DeviceType device_;
  bool previous_enabled_;
  ScalarType previous_dtype_;
};

namespace autograd {

// PyTorch's cast policies (aten/src/ATen/autocast_mode.h).
enum class CastPolicy : uint8_t {
  none,                // the op runs in its inputs' dtypes
  lower_precision_fp,  // floating inputs (float64 excepted) to the autocast dtype
  fp32,                // float16 and bfloat16 inputs to float32; fp32_set_opt_dtype's ops (softmax,
                       // sum, ...) too, which gives the float32 result their dtype argument asks for
  promote,             // floating inputs to the widest floating dtype among them
  banned,              // refused under autocast (binary_cross_entropy on CUDA)
};

// One row per op: its policy on the CPU and on CUDA. Two rows go beyond torch 1.13's registrations
// (tests/autograd/test_autocast.cpp checks the rest against them): scaled_dot_product_attention is on
// PyTorch 2.x's CUDA list, and cross_entropy, a composite of log_softmax and nll_loss on CUDA, gets
// the float32 its two parts give it before Ember's fused kernel runs. torch 1.13's CPU list keeps the
// transposed convolutions in float32 (fp32) while its CUDA list casts them down with the others.
// clang-format off
#define EMBER_AUTOCAST_OPS(X)                                              \
  /*  op                                CPU                 CUDA          */ \
  X(conv1d,                           lower_precision_fp, lower_precision_fp) \
  X(conv2d,                           lower_precision_fp, lower_precision_fp) \
  X(conv3d,                           lower_precision_fp, lower_precision_fp) \
  X(conv_tbc,                         lower_precision_fp, lower_precision_fp) \
  X(conv_transpose1d,                 fp32,               lower_precision_fp) \
  X(conv_transpose2d,                 fp32,               lower_precision_fp) \
  X(conv_transpose3d,                 fp32,               lower_precision_fp) \
  X(linear,                           lower_precision_fp, lower_precision_fp) \
  X(matmul,                           lower_precision_fp, lower_precision_fp) \
  X(addmm,                            lower_precision_fp, lower_precision_fp) \
  X(mm,                               lower_precision_fp, lower_precision_fp) \
  X(bmm,                              lower_precision_fp, lower_precision_fp) \
  X(baddbmm,                          lower_precision_fp, lower_precision_fp) \
  X(addbmm,                           lower_precision_fp, lower_precision_fp) \
  X(addmv,                            none,               lower_precision_fp) \
  X(addr,                             none,               lower_precision_fp) \
  X(mv,                               none,               lower_precision_fp) \
  X(einsum,                           none,               lower_precision_fp) \
  X(chain_matmul,                     none,               lower_precision_fp) \
  X(multi_dot,                        none,               lower_precision_fp) \
  X(prelu,                            none,               lower_precision_fp) \
  X(lstm_cell,                        none,               lower_precision_fp) \
  X(gru_cell,                         none,               lower_precision_fp) \
  X(rnn_tanh_cell,                    none,               lower_precision_fp) \
  X(rnn_relu_cell,                    none,               lower_precision_fp) \
  X(scaled_dot_product_attention,     none,               lower_precision_fp) \
  X(cross_entropy,                    fp32,               fp32)               \
  X(nll_loss,                         fp32,               fp32)               \
  X(mse_loss,                         fp32,               fp32)               \
  X(l1_loss,                          fp32,               fp32)               \
  X(smooth_l1_loss,                   fp32,               fp32)               \
  X(huber_loss,                       fp32,               fp32)               \
  X(kl_div,                           fp32,               fp32)               \
  X(poisson_nll_loss,                 fp32,               fp32)               \
  X(margin_ranking_loss,              fp32,               fp32)               \
  X(hinge_embedding_loss,             fp32,               fp32)               \
  X(cosine_embedding_loss,            fp32,               fp32)               \
  X(soft_margin_loss,                 fp32,               fp32)               \
  X(multi_margin_loss,                fp32,               fp32)               \
  X(multilabel_margin_loss,           fp32,               fp32)               \
  X(triplet_margin_loss,              fp32,               fp32)               \
  X(binary_cross_entropy_with_logits, fp32,               fp32)               \
  X(binary_cross_entropy,             fp32,               banned)             \
  X(cdist,                            fp32,               fp32)               \
  X(layer_norm,                       none,               fp32)               \
  X(group_norm,                       none,               fp32)               \
  X(softmax,                          none,               fp32)               \
  X(log_softmax,                      none,               fp32)               \
  X(sum,                              none,               fp32)               \
  X(prod,                             fp32,               fp32)               \
  X(cumsum,                           none,               fp32)               \
  X(cumprod,                          none,               fp32)               \
  X(logsumexp,                        none,               fp32)               \
  X(exp,                              none,               fp32)               \
  X(expm1,                            none,               fp32)               \
  X(log,                              none,               fp32)               \
  X(log2,                             none,               fp32)               \
  X(log10,                            none,               fp32)               \
  X(log1p,                            none,               fp32)               \
  X(reciprocal,                       none,               fp32)               \
  X(rsqrt,                            none,               fp32)               \
  X(pow,                              none,               fp32)               \
  X(tan,                              none,               fp32)               \
  X(asin,                             none,               fp32)               \
  X(acos,                             none,               fp32)               \
  X(sinh,                             none,               fp32)               \
  X(cosh,                             none,               fp32)               \
  X(erfinv,                           none,               fp32)               \
  X(renorm,                           none,               fp32)               \
  X(softplus,                         none,               fp32)               \
  X(cosine_similarity,                none,               fp32)               \
  X(dist,                             none,               fp32)               \
  X(pdist,                            none,               fp32)               \
  X(addcmul,                          none,               promote)            \
  X(addcdiv,                          none,               promote)            \
  X(atan2,                            none,               promote)
// clang-format on

enum class AutocastOp : uint8_t {
#define EMBER_AUTOCAST_ENUM(op, cpu, cuda) op,
  EMBER_AUTOCAST_OPS(EMBER_AUTOCAST_ENUM)
#undef EMBER_AUTOCAST_ENUM
};

CastPolicy autocast_policy(AutocastOp op, DeviceType device);
const char* autocast_op_name(AutocastOp op);

// The casts of one call of an op. When autocast is on for the inputs' device and the op is on that
// device's list, it holds the cast inputs, converts to true, and keeps autocast off until it is
// destroyed, so the op is called again inside the `if`:
//
//   Tensor Tensor::exp() const {
//     if (autograd::AutocastCall cast{AutocastOp::exp, {*this}}) return cast[0].exp();
//     ...                              // the op itself, in its inputs' dtypes
class AutocastCall {
 public:
  // `on_list = false` leaves the call alone: the fp32_set_opt_dtype ops given a dtype.
  AutocastCall(AutocastOp op, std::initializer_list<std::reference_wrapper<const Tensor>> inputs, bool on_list = true);
  // An op that takes a list (einsum, chain_matmul, multi_dot): tensors() is the cast list.
  AutocastCall(AutocastOp op, const tensor_list& inputs);
  ~AutocastCall();
  AutocastCall(const AutocastCall&) = delete;
  AutocastCall& operator=(const AutocastCall&) = delete;

  explicit operator bool() const { return applied_; }
  const Tensor& operator[](size_t i) const { return cast_[i]; }
  const tensor_list& tensors() const { return cast_; }

 private:
  void apply(AutocastOp op, const std::vector<std::reference_wrapper<const Tensor>>& inputs);

  bool applied_ = false;
  std::vector<Tensor> cast_;
};

// Autocast off on this thread while it lives (the autograd engine holds one during backward).
class AutocastExcluded {
 public:
  AutocastExcluded();
  ~AutocastExcluded();
  AutocastExcluded(const AutocastExcluded&) = delete;
  AutocastExcluded& operator=(const AutocastExcluded&) = delete;

 private:
  bool previous_;
};

// x converted as a lower_precision_fp op converts it (through the weight cache), or x itself.
Tensor autocast_to_lower(const Tensor& x);
// Whether AutocastCall{op, {x, ...}} would copy x, the op's first input, up to float32 (x float16 or
// bfloat16 under the fp32 policy). cross_entropy and layer_norm ask first: their fused CUDA kernels
// read float16 / bfloat16 themselves, with float32 sums and a float32 result, so no copy is made.
bool autocast_casts_to_float32(AutocastOp op, const Tensor& x);

}  // namespace autograd

}  // namespace ember
