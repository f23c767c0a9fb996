// The fused causal attention primitive (see attention.h).
//
// The output is allocated as (B, L, H, Ev) and returned as its (B, H, L, Ev) transpose, so the
// usual `y.transpose(1, 2).contiguous()` that puts heads side by side copies nothing. The
// gradients of q, k, v are laid out the same way. Saved for backward: q, k, v, the softmax
// weights and the dropout noise; or, where the backend has flash_attention (CUDA), q, k, v and one
// logsumexp per query row, from which its backward recomputes the weights, and, with dropout, the
// Philox seed and offset from which it redraws the mask (core/philox.h). Under create_graph, or on a
// backend without the fused backward, the backward recomputes the weights and applies the same
// formula with differentiable ops.
#include "autograd/attention.h"

#include <limits>

#include "autograd/autograd.h"
#include "autograd/fused.h"
#include "core/backend.h"
#include "core/kernel.h"
#include "core/random.h"
#include "core/shape.h"
#include "core/trace.h"

namespace ember::autograd {

namespace {

// A kernel reads a head in place when its rows are unit-stride and do not overlap (the backend's
// contract: last dim stride 1); otherwise the head is copied first.
Tensor rows_in_place(const Tensor& t) {
  const bool ok = t.stride(3) == 1 && (t.size(2) <= 1 || t.stride(2) >= t.size(3));
  return ok ? t : kernel::contiguous(t);
}

// A fresh (B, H, R, C) tensor stored as (B, R, H, C): heads interleaved, as a projection makes them.
Tensor heads_interleaved(IntArrayRef sizes, ScalarType dtype, Device device) {
  const int64_t B = sizes[0], H = sizes[1], R = sizes[2], C = sizes[3];
  Tensor buffer = raw_empty({B, R, H, C}, dtype, device);
  return raw_view(buffer, {B, H, R, C}, {R * H * C, C, H * C, 1}, 0);
}

// The dtype flash_attention's logsumexp and the redrawn dropout mask take for heads of `heads`:
// float32 for bfloat16 and float16 (PyTorch's opmath type), whose own precision would put percent
// errors into the weights the backward recomputes from the logsumexp.
ScalarType opmath_dtype(ScalarType heads) { return is_reduced_floating_point(heads) ? kFloat32 : heads; }

// The fused kernel's contract, checked before a kernel is asked.
bool fused_kernel_applies(const Tensor& query, const Tensor& key, const Tensor& value) {
  if (query.dim() != 4 || key.dim() != 4 || value.dim() != 4) return false;
  if (!query.is_floating_point() || key.dtype() != query.dtype() || value.dtype() != query.dtype()) return false;
  if (key.device() != query.device() || value.device() != query.device()) return false;
  if (key.size(0) != query.size(0) || value.size(0) != query.size(0) || key.size(1) != query.size(1) ||
      value.size(1) != query.size(1))
    return false;  // broadcast batch or head dims: the composed form handles them
  for (const Tensor* t : {&query, &key, &value})
    if (t->numel() == 0) return false;
  return true;
}

// With p = softmax(s), s = scale q k^T (causal), pd = p * noise: dv = pd^T g, dpd = g v^T,
// dp = dpd * noise, ds = p (dp - sum(dp p)) scale, dq = ds k, dk = ds^T q. From differentiable ops.
tensor_list composed_backward(const Tensor& g, const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& nz,
                              double scale) {
  // The weights are recomputed from differentiable ops: probs is a constant of q, k.
  Tensor future = ember::ones({q.size(2), k.size(2)}, ember::dtype(kBool).device(q.device())).triu(1);
  Tensor weights = (q.matmul(k.mT()) * scale).masked_fill(future, -std::numeric_limits<double>::infinity()).softmax(-1);
  Tensor dropped = nz.defined() ? weights * nz : weights;
  Tensor dv = dropped.mT().matmul(g);
  Tensor dp = g.matmul(v.mT());
  if (nz.defined()) dp = dp * nz;
  Tensor ds = weights * (dp - (dp * weights).sum({-1}, true)) * scale;
  return {ds.matmul(k), ds.mT().matmul(q), dv};
}

// The fused backward: saved holds q, k, v and the forward's (B, H, L, S) weights, or its (B, H, L)
// logsumexp from flash_attention (with `dropout` the mask flash_attention drew).
std::optional<tensor_list> fused_backward(const Tensor& g, const tensor_list& saved, const Tensor& nz,
                                          const PhiloxDropout& dropout, double scale) {
  Tensor q = rows_in_place(saved[0]), k = rows_in_place(saved[1]), v = rows_in_place(saved[2]);
  const Tensor& probs_or_lse = saved[3];
  Tensor go = rows_in_place(g);
  Tensor dq = heads_interleaved(q.sizes(), q.dtype(), q.device());
  Tensor dk = heads_interleaved(k.sizes(), k.dtype(), k.device());
  Tensor dv = heads_interleaved(v.sizes(), v.dtype(), v.device());
  Backend& backend = backend_for(go);
  const bool done = probs_or_lse.dim() == 3
                        ? backend.flash_attention_backward(dq, dk, dv, go, q, k, v, probs_or_lse, scale, dropout)
                        : backend.causal_attention_backward(dq, dk, dv, go, q, k, v, probs_or_lse, nz, scale);
  if (!done) return std::nullopt;
  return tensor_list{dq, dk, dv};
}

// Causal attention with dropout drawn inside flash_attention from `dropout`'s Philox words, one
// node; std::nullopt where the backend has no such kernel or declines these sizes.
std::optional<Tensor> flash_attention_with_dropout(const Tensor& query, const Tensor& key, const Tensor& value,
                                                   const PhiloxDropout& dropout, double scale) {
  if (!fused_kernel_applies(query, key, value)) return std::nullopt;
  const int64_t B = query.size(0), H = query.size(1), L = query.size(2), S = key.size(2);
  Tensor q = rows_in_place(query), k = rows_in_place(key), v = rows_in_place(value);
  Tensor out = heads_interleaved({B, H, L, value.size(3)}, q.dtype(), q.device());
  Tensor lse = raw_empty({B, H, L}, opmath_dtype(q.dtype()), q.device());
  if (!backend_for(q).flash_attention(out, lse, q, k, v, scale, dropout)) return std::nullopt;
  return apply_fused(
      {.name = "ScaledDotProductAttentionBackward0",
       .inputs = {query, key, value},
       .saved = {query, key, value},
       .forward = {.fused = [&]() -> std::optional<tensor_list> { return tensor_list{out, lse}; }},
       .backward = {.composed = [dropout, scale, B, H, L, S](const Tensor& g, const tensor_list& saved) -> tensor_list {
                      // The mask the kernel drew, redrawn from the same Philox words as a (B, H, L, S) tensor.
                      const Tensor& q = saved[0];
                      Tensor nz = raw_empty({B, H, L, S}, opmath_dtype(q.dtype()), q.device());
                      EMBER_CHECK(backend_for(nz).dropout_noise(nz, dropout),
                                  "scaled_dot_product_attention: the {} backend ran flash_attention with dropout but "
                                  "has no dropout_noise to redraw its mask",
                                  backend_for(nz).name());
                      return composed_backward(g, q, saved[1], saved[2], nz.to(q.dtype()), scale);
                    },
                    .fused = [dropout, scale](const Tensor& g, const tensor_list& saved) {
                      return fused_backward(g, saved, Tensor(), dropout, scale);
                    }}});
}

}  // namespace

Tensor causal_softmax(const Tensor& q, const Tensor& k, double scale) {
  EMBER_TRACE_OP();
  Tensor scores = q.matmul(k.mT()) * scale;  // (..., L, S)
  const int64_t L = q.size(-2), S = k.size(-2);
  TensorOptions index_options = TensorOptions(kInt64).device(q.device());
  Tensor future = arange(S, index_options).unsqueeze(0).gt(arange(L, index_options).unsqueeze(1));  // key j > query i
  return scores.masked_fill(future, -std::numeric_limits<double>::infinity()).softmax(-1);  // key 0 is never masked
}

Tensor causal_attention(const Tensor& query, const Tensor& key, const Tensor& value, const Tensor& noise,
                        double scale) {
  EMBER_TRACE_OP();
  Tensor nz = noise.defined() ? kernel::contiguous(noise) : Tensor();
  return apply_fused(
      {.name = "ScaledDotProductAttentionBackward0",
       .inputs = {query, key, value},
       .saved = {query, key, value},
       // one pass per (batch, head): the scores never leave the kernel; the weights are kept
       .forward = {.fused = [&]() -> std::optional<tensor_list> {
                     if (!fused_kernel_applies(query, key, value)) return std::nullopt;
                     const int64_t B = query.size(0), H = query.size(1), L = query.size(2), S = key.size(2);
                     Tensor q = rows_in_place(query), k = rows_in_place(key), v = rows_in_place(value);
                     Tensor out = heads_interleaved({B, H, L, value.size(3)}, q.dtype(), q.device());
                     if (!nz.defined()) {  // a GPU keeps a logsumexp per row instead of the weights
                       Tensor lse = raw_empty({B, H, L}, opmath_dtype(q.dtype()), q.device());
                       if (backend_for(q).flash_attention(out, lse, q, k, v, scale, PhiloxDropout{}))
                         return tensor_list{out, lse};
                     }
                     // bfloat16 heads (autocast) keep float32 weights: the softmax runs in float32 on the CPU
                     const ScalarType probs_dtype = q.dtype() == kBFloat16 ? kFloat32 : q.dtype();
                     Tensor probs = raw_empty({B, H, L, S}, probs_dtype, q.device());
                     if (!backend_for(q).causal_attention(out, probs, q, k, v, nz, scale)) return std::nullopt;
                     return tensor_list{out, probs};
                   },
                   .composed =
                       [&] {
                         Tensor weights = causal_softmax(query, key, scale);
                         return (noise.defined() ? weights * noise : weights).matmul(value);
                       }},
       .backward = {.composed = [nz, scale](const Tensor& g, const tensor_list& saved) -> tensor_list {
                      return composed_backward(g, saved[0], saved[1], saved[2], nz, scale);
                    },
                    .fused = [nz, scale](const Tensor& g, const tensor_list& saved) {
                      return fused_backward(g, saved, nz, PhiloxDropout{}, scale);
                    }}});
}

Tensor causal_attention(const Tensor& query, const Tensor& key, const Tensor& value, double dropout_p, double scale) {
  EMBER_TRACE_OP();
  EMBER_CHECK(dropout_p >= 0 && dropout_p < 1, "causal_attention: dropout_p must be in [0, 1), got {}", dropout_p);
  if (dropout_p == 0) return causal_attention(query, key, value, Tensor(), scale);
  // The mask covers the weights' shape (..., L, S): its Philox words are reserved whichever path draws it.
  std::vector<int64_t> shape = broadcast_shapes(query.sizes().slice(0, query.dim() - 2),
                                                key.sizes().slice(0, key.dim() - 2), "scaled_dot_product_attention");
  shape.insert(shape.end(), {query.size(-2), key.size(-2)});
  const PhiloxDropout dropout = reserve_dropout(dropout_p, numel_of(shape));
  if (std::optional<Tensor> out = flash_attention_with_dropout(query, key, value, dropout, scale)) return *out;
  return causal_attention(query, key, value, dropout_noise(shape, query.options(), dropout), scale);
}

}  // namespace ember::autograd
