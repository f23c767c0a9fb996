// The backend's kernels, listed once, as X-macros (core/backend.h states the conventions all
// kernels share). A new kernel is one entry here plus its implementations (docs/ARCHITECTURE.md).
//
// Everything else is expanded from these lists: Backend's virtual methods (core/backend.h),
// the CPU backend's declarations (core/cpu/cpu_backend.h), the tracing wrapper (core/trace.cpp),
// the stub of a build without CUDA (cuda/loader.cpp), and the whole glue of the CUDA backend: its
// methods and the declarations of the launchers its .cu files define (cuda/launchers.h), which
// take plain-data views instead of Tensors. This header includes nothing, so that the CUDA side
// can expand the lists without seeing Tensor: the types a list names are those in scope where it
// is expanded.
#pragma once

// Each entry of the main list is
//
//   X(name, (parameters), (arguments), traced name, traced output, (traced inputs))
//
// The last three say what EMBER_DEBUG prints for a call: "[ember] <name> out <output> <- <inputs>".
// Each kernel's contract is the comment above its line.
#define EMBER_BACKEND_KERNELS(X)                                                                                       \
  /* ---- layout ---- */                                                                                               \
  /* dst[i] = src[i] over dst's shape; any strides, any dtypes (converts), same device. */                             \
  X(copy, (const Tensor& dst, const Tensor& src), (dst, src), "copy", dst, (&src))                                     \
  X(fill, (const Tensor& dst, const Scalar& value), (dst, value), "fill", dst, ())                                     \
  /* ---- elementwise ---- */                                                                                          \
  /* out and in have the same shape and dtype. */                                                                      \
  X(unary, (UnaryOp op, const Tensor& out, const Tensor& in), (op, out, in), op_name(op), out, (&in))                  \
  /* a and b have out's shape (broadcast as stride-0 views) and one dtype; out has that dtype, or bool for */          \
  /* comparisons and logical ops. */                                                                                   \
  X(binary, (BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b), (op, out, a, b), op_name(op), out,     \
    (&a, &b))                                                                                                          \
  /* out = cond ? a : b; cond is bool, a and b have out's dtype; all of out's shape. */                                \
  X(where, (const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b), (out, cond, a, b), "where", out, \
    (&cond, &a, &b))                                                                                                   \
  /* ---- reductions ---- */                                                                                           \
  /* out has in's shape with the reduced dims set to 1 (keepdim); `dims` are sorted, non-negative. */                  \
  /* Sum/Prod/Max/Min keep in's dtype (the caller converts first); All/Any write bool. */                              \
  X(reduce, (ReduceOp op, const Tensor& out, const Tensor& in, IntArrayRef dims), (op, out, in, dims), op_name(op),    \
    out, (&in))                                                                                                        \
  /* Max or min along `dim` with the index of the first extreme element (NaN counts as extreme). */                    \
  /* values and indices (int64) have in's shape with size 1 at `dim`. */                                               \
  X(arg_reduce, (bool is_max, const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim),             \
    (is_max, values, indices, in, dim), is_max ? "max(dim)" : "min(dim)", values, (&in))                               \
  /* ---- along the last dim of contiguous rows (in (R, n), the caller moves the dim last) ---- */                     \
  /* values and indices (int64) of in's shape: each row sorted ascending or descending, NaN above every */             \
  /* number, equal elements in their original order (a stable sort); indices[r, j] is where values[r, j] was. */       \
  X(sort, (const Tensor& values, const Tensor& indices, const Tensor& in, bool descending),                            \
    (values, indices, in, descending), "sort", values, (&in))                                                          \
  /* out[r, j] = the sum (prod = false) or product of in[r, 0..j]; floating types accumulate in double on */           \
  /* the CPU (as PyTorch's CPU kernel does) and in their own type's accumulator on CUDA. */                            \
  X(cumulative, (const Tensor& out, const Tensor& in, bool prod), (out, in, prod), prod ? "cumprod" : "cumsum", out,   \
    (&in))                                                                                                             \
  /* out[r, j] = log(sum_{i <= j} exp(in[r, i])), a running logaddexp (LogAddExpFold: no overflow, NaN */              \
  /* propagates); floating types, accumulated in double on the CPU and in their own type on CUDA, as PyTorch. */       \
  X(logcumsumexp, (const Tensor& out, const Tensor& in), (out, in), "logcumsumexp", out, (&in))                        \
  /* ---- linear algebra ---- */                                                                                       \
  /* out (B, M, N) contiguous = a (B, M, K) @ b (B, K, N); a and b any strides (0 for broadcast batch). */             \
  X(matmul, (const Tensor& out, const Tensor& a, const Tensor& b), (out, a, b), "matmul", out, (&a, &b))               \
  /* ---- convolution: unfold / fold of sliding blocks (shape in Im2colShape) ---- */                                  \
  /* cols (N, C*kh*kw, out_h*out_w) = the blocks of in (N, C, H, W), zero outside; both contiguous. */                 \
  X(im2col, (const Tensor& cols, const Tensor& in, const Im2colShape& shape), (cols, in, shape), "im2col", cols,       \
    (&in))                                                                                                             \
  /* out (N, C, H, W) = the sum of cols (N, C*kh*kw, out_h*out_w) over the blocks; both contiguous. */                 \
  X(col2im, (const Tensor& out, const Tensor& cols, const Im2colShape& shape), (out, cols, shape), "col2im", out,      \
    (&cols))                                                                                                           \
  /* ---- nn ---- */                                                                                                   \
  /* Softmax (or log-softmax) over the last dim; out and in contiguous, same shape. */                                 \
  X(softmax, (const Tensor& out, const Tensor& in, bool log), (out, in, log), log ? "log_softmax" : "softmax", out,    \
    (&in))                                                                                                             \
  /* din = softmax backward given dout and the forward's output; all contiguous. */                                    \
  X(softmax_backward, (const Tensor& din, const Tensor& dout, const Tensor& out, bool log), (din, dout, out, log),     \
    log ? "log_softmax_backward" : "softmax_backward", din, (&dout, &out))                                             \
  /* out = in with elements above (lower=true) or below the k-th diagonal of the last two dims zeroed. */              \
  X(triangle, (const Tensor& out, const Tensor& in, int64_t k, bool lower), (out, in, k, lower),                       \
    lower ? "tril" : "triu", out, (&in))                                                                               \
  /* ---- indexing; `index` is int64 and already range-checked by the caller ---- */                                   \
  /* out.select(dim, i) = in.select(dim, index[i]) */                                                                  \
  X(index_select, (const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index), (out, in, dim, index),      \
    "index_select", out, (&in, &index))                                                                                \
  /* out.select(dim, index[i]) += src.select(dim, i) */                                                                \
  X(index_add, (const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src), (out, dim, index, src),       \
    "index_add", out, (&index, &src))                                                                                  \
  /* out[..i..] = in[..index[..i..]..] along dim; index has out's shape */                                             \
  X(gather, (const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index), (out, in, dim, index), "gather",  \
    out, (&in, &index))                                                                                                \
  /* out[..index[..i..]..] += src[..i..] along dim; index has src's shape */                                           \
  X(scatter_add, (const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src), (out, dim, index, src),     \
    "scatter_add", out, (&index, &src))                                                                                \
  /* ---- pooling over contiguous planes (core/pool.h): in (P, H, W), out (P, OH, OW), floating ---- */                \
  /* The max of each window (the first one; NaN counts as the max); indices (int64) hold its h * W + w. */             \
  X(max_pool2d, (const Tensor& out, const Tensor& indices, const Tensor& in, const PoolGeometry& g),                   \
    (out, indices, in, g), "max_pool2d", out, (&in))                                                                   \
  /* The mean of each window, divided by pool_divisor. */                                                              \
  X(avg_pool2d, (const Tensor& out, const Tensor& in, const PoolGeometry& g), (out, in, g), "avg_pool2d", out, (&in))  \
  /* din (P, H, W) = its backward given dout (P, OH, OW): each input gets dout / divisor of the windows holding it. */ \
  X(avg_pool2d_backward, (const Tensor& din, const Tensor& dout, const PoolGeometry& g), (din, dout, g),               \
    "avg_pool2d_backward", din, (&dout))

// Fused kernels: optional. One pass where the composed ops would make several. A backend without
// one returns false (Backend's default) and the op composes the same result from the kernels
// above, so a new device works before it is fast; autograd/fused.h holds that contract. The
// composed form stays the reference the fused kernels are tested against. A backend declares the
// fused kernels it has with EMBER_DECLARE_FUSED_KERNEL.
#define EMBER_FUSED_KERNELS(X)                                                                                         \
  /* out (B, M, N) contiguous = addend + a @ b, addend any strides (a broadcast bias): the sum made in the */          \
  /* product's buffer, as BLAS's beta = 1 does, instead of a second pass over out. */                                  \
  X(matmul_add, (const Tensor& out, const Tensor& addend, const Tensor& a, const Tensor& b), (out, addend, a, b),      \
    "addmm", out, (&addend, &a, &b))                                                                                   \
  /* LayerNorm over the last dim of a contiguous (N, D) `in`: out (N, D), mean and rstd (N) = */                       \
  /* 1 / sqrt(biased var + eps), all of in's dtype; weight and bias (D) may be undefined. */                           \
  X(layer_norm,                                                                                                        \
    (const Tensor& out, const Tensor& mean, const Tensor& rstd, const Tensor& in, const Tensor& weight,                \
     const Tensor& bias, double eps),                                                                                  \
    (out, mean, rstd, in, weight, bias, eps), "layer_norm", out, (&in))                                                \
  /* Its backward given dout (N, D) contiguous: din (N, D); dweight and dbias (D) are written when defined */          \
  /* (the caller leaves undefined what needs no gradient). */                                                          \
  X(layer_norm_backward,                                                                                               \
    (const Tensor& din, const Tensor& dweight, const Tensor& dbias, const Tensor& dout, const Tensor& in,              \
     const Tensor& mean, const Tensor& rstd, const Tensor& weight),                                                    \
    (din, dweight, dbias, dout, in, mean, rstd, weight), "layer_norm_backward", din.defined() ? din : dout,            \
    (&dout, &in))                                                                                                      \
  /* Cross-entropy of class indices over contiguous logits (N, C), label smoothing s, in one pass per row: */          \
  /* losses (N) = lse_i - (1 - s) x[i, t_i] - (s / C) sum_c x[i, c], 0 where t_i == ignore_index; lse (N) */           \
  /* receives each row's logsumexp, kept for the backward. target (N) int64 contiguous. status (2) int64, */           \
  /* set by the caller to {ignore_index, 0}: a target outside [0, C) that is not ignore_index is written to */         \
  /* status[0] (its row's loss is then undefined), and status[1] += the number of rows not ignored. */                 \
  X(cross_entropy,                                                                                                     \
    (const Tensor& losses, const Tensor& lse, const Tensor& status, const Tensor& logits, const Tensor& target,        \
     int64_t ignore_index, double label_smoothing),                                                                    \
    (losses, lse, status, logits, target, ignore_index, label_smoothing), "cross_entropy", losses, (&logits, &target)) \
  /* Its backward, one pass per row: dlogits (N, C) = dlosses_i (softmax(x_i) - (1 - s) onehot(t_i) - s / C), */       \
  /* rows of zeros where t_i == ignore_index; dlosses (N) any stride (0: one gradient for every row). */               \
  X(cross_entropy_backward,                                                                                            \
    (const Tensor& dlogits, const Tensor& dlosses, const Tensor& logits, const Tensor& lse, const Tensor& target,      \
     int64_t ignore_index, double label_smoothing),                                                                    \
    (dlogits, dlosses, logits, lse, target, ignore_index, label_smoothing), "cross_entropy_backward", dlogits,         \
    (&dlosses, &logits))                                                                                               \
  /* Causal attention (query i sees keys j <= i) over (B, H) matrices: q (B, H, L, E), k (B, H, S, E), */              \
  /* v (B, H, S, Ev) and out (B, H, L, Ev) are strided views whose last dim has stride 1; probs */                     \
  /* (B, H, L, S) contiguous receives the softmax weights (zero above the diagonal), kept for the */                   \
  /* backward. noise (B, H, L, S) contiguous, or undefined without dropout, is dropout's scaled keep */                \
  /* mask: out = (probs * noise) @ v. scores are scale * q @ k^T. */                                                   \
  X(causal_attention,                                                                                                  \
    (const Tensor& out, const Tensor& probs, const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& noise,   \
     double scale),                                                                                                    \
    (out, probs, q, k, v, noise, scale), "causal_attention", out, (&q, &k, &v))                                        \
  /* Its backward given dout (strided like out): dq, dk, dv strided like q, k, v (last dim stride 1). */               \
  X(causal_attention_backward,                                                                                         \
    (const Tensor& dq, const Tensor& dk, const Tensor& dv, const Tensor& dout, const Tensor& q, const Tensor& k,       \
     const Tensor& v, const Tensor& probs, const Tensor& noise, double scale),                                         \
    (dq, dk, dv, dout, q, k, v, probs, noise, scale), "causal_attention_backward", dq, (&dout, &q, &k, &v))            \
  /* One direction of one LSTM layer over packed rows (nn/rnn.cpp): step t has batch_sizes[t] rows */                  \
  /* (non-increasing), stored after the previous steps' rows; steps run first to last, or last to first when */        \
  /* reverse. xw (N, 4H) = x W_ih^T + b_ih, gate order i, f, g, o; w_hh (4H, H); b_hh (4H) or undefined; h0, */        \
  /* c0 (B, H), B = batch_sizes[0]. Writes out (N, H), each row's h; h_n, c_n (B, H), each sequence's */               \
  /* final state; gates (N, 4H), the activated gates, and cells (N, H), each row's c, kept for the */                  \
  /* backward. All contiguous, one dtype. */                                                                           \
  X(lstm_layer,                                                                                                        \
    (const Tensor& out, const Tensor& h_n, const Tensor& c_n, const Tensor& gates, const Tensor& cells,                \
     const Tensor& xw, const Tensor& h0, const Tensor& c0, const Tensor& w_hh, const Tensor& b_hh,                     \
     IntArrayRef batch_sizes, bool reverse),                                                                           \
    (out, h_n, c_n, gates, cells, xw, h0, c0, w_hh, b_hh, batch_sizes, reverse), "lstm_layer", out, (&xw, &w_hh))      \
  /* Its backward: dxw (N, 4H), dw_hh (4H, H), db_hh (4H, or undefined: not wanted), dh0 and dc0 (B, H), */            \
  /* written; dout (N, H), dh_n and dc_n (B, H) may each be undefined (no gradient flowed: zeros). */                  \
  X(lstm_layer_backward,                                                                                               \
    (const Tensor& dxw, const Tensor& dw_hh, const Tensor& db_hh, const Tensor& dh0, const Tensor& dc0,                \
     const Tensor& dout, const Tensor& dh_n, const Tensor& dc_n, const Tensor& out, const Tensor& gates,               \
     const Tensor& cells, const Tensor& h0, const Tensor& c0, const Tensor& w_hh, IntArrayRef batch_sizes,             \
     bool reverse),                                                                                                    \
    (dxw, dw_hh, db_hh, dh0, dc0, dout, dh_n, dc_n, out, gates, cells, h0, c0, w_hh, batch_sizes, reverse),            \
    "lstm_layer_backward", dxw, (&out, &gates))

// Memory-efficient fused kernels: optional, like the list above, for backends whose saved state
// differs from the CPU's (the CPU keeps attention's weights, which its backward reads; a GPU keeps
// only one logsumexp per row and recomputes the weights tile by tile, as FlashAttention-2
// does). An op tries these first, then the list above, then composes.
#define EMBER_FLASH_KERNELS(X)                                                                                   \
  /* Causal attention (query i sees keys j <= i), q (B, H, L, E), k (B, H, S, E), v (B, H, S, Ev), */            \
  /* out (B, H, L, Ev) strided views whose last dim has stride 1; lse (B, H, L) contiguous receives each */      \
  /* row's logsumexp of its scores scale * q k^T over the keys it sees. With dropout.active(), weight */         \
  /* (b, h, i, j) is kept when dropout.keeps(((b * H + h) * L + i) * S + j) and scaled by dropout.scale(): */    \
  /* the mask dropout_noise would write over (B, H, L, S), never stored. */                                      \
  X(flash_attention,                                                                                             \
    (const Tensor& out, const Tensor& lse, const Tensor& q, const Tensor& k, const Tensor& v, double scale,      \
     const PhiloxDropout& dropout),                                                                              \
    (out, lse, q, k, v, scale, dropout), "flash_attention", out, (&q, &k, &v))                                   \
  /* Its backward given dout (strided like out), the forward's lse and dropout: dq, dk, dv strided like q, */    \
  /* k, v. */                                                                                                    \
  X(flash_attention_backward,                                                                                    \
    (const Tensor& dq, const Tensor& dk, const Tensor& dv, const Tensor& dout, const Tensor& q, const Tensor& k, \
     const Tensor& v, const Tensor& lse, double scale, const PhiloxDropout& dropout),                            \
    (dq, dk, dv, dout, q, k, v, lse, scale, dropout), "flash_attention_backward", dq, (&dout, &q, &k, &v))

// Counter-based random kernels: optional. A backend that has them draws from the Philox stream
// (core/philox.h: a pure function of seed, offset and element); one without returns false and the op
// draws from the default generator instead (PyTorch's CPU stream), so the CPU keeps torch's numbers.
#define EMBER_PHILOX_KERNELS(X)                                                                          \
  /* noise contiguous, floating: noise[i] = dropout.keeps(i) ? dropout.scale() : 0, dropout.active(). */ \
  X(dropout_noise, (const Tensor& noise, const PhiloxDropout& dropout), (noise, dropout), "dropout", noise, ())

// The optimizer kernels' scalars (AdamStep, SgdStep, RmspropStep, AdagradStep) and update rules are in
// core/optim_rules.h.

// Optimizer kernels: optional, and, as optimizer steps are not ops of a model, not traced by
// EMBER_DEBUG. Each takes many tensors at once (lists of one length, one entry per parameter) and
// writes in place; the optimizer composes the same update from tensor ops where one returns false.
//   X(name, (parameters), (arguments))
#define EMBER_OPTIMIZER_KERNELS(X)                                                                                     \
  /* Adam / AdamW (torch 1.13's _single_tensor_adam(w)): params, exp_avgs, exp_avg_sqs and, with amsgrad, */           \
  /* max_exp_avg_sqs (else undefined) updated from grads with steps[i]. */                                             \
  X(adam_update,                                                                                                       \
    (const tensor_list& params, const tensor_list& grads, const tensor_list& exp_avgs, const tensor_list& exp_avg_sqs, \
     const tensor_list& max_exp_avg_sqs, const std::vector<AdamStep>& steps),                                          \
    (params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps))                                                    \
  /* SGD (torch 1.13's _single_tensor_sgd): params and, with momentum, momentum_buffers (else undefined) */            \
  /* updated from grads with steps[i]. */                                                                              \
  X(sgd_update,                                                                                                        \
    (const tensor_list& params, const tensor_list& grads, const tensor_list& momentum_buffers,                         \
     const std::vector<SgdStep>& steps),                                                                               \
    (params, grads, momentum_buffers, steps))                                                                          \
  /* out (n) float64 contiguous: out[i] = sum of tensors[i]'s squares, each square in the tensors' dtype, */           \
  /* summed in double (the 2-norms of gradient clipping). */                                                           \
  X(sum_of_squares, (const Tensor& out, const tensor_list& tensors), (out, tensors))                                   \
  /* tensors[i] *= factor (rounded to their dtype), in place. */                                                       \
  X(scale_, (const tensor_list& tensors, double factor), (tensors, factor))                                            \
  /* RMSprop (torch 1.13's _single_tensor_rmsprop): params, square_avgs and, when used, grad_avgs (centered) */        \
  /* and momentum_buffers (momentum > 0; else undefined) updated from grads with steps[i]. */                          \
  X(rmsprop_update,                                                                                                    \
    (const tensor_list& params, const tensor_list& grads, const tensor_list& square_avgs,                              \
     const tensor_list& grad_avgs, const tensor_list& momentum_buffers, const std::vector<RmspropStep>& steps),        \
    (params, grads, square_avgs, grad_avgs, momentum_buffers, steps))                                                  \
  /* Adagrad (torch 1.13's _single_tensor_adagrad, dense): params and sums updated from grads with steps[i]. */        \
  X(adagrad_update,                                                                                                    \
    (const tensor_list& params, const tensor_list& grads, const tensor_list& sums,                                     \
     const std::vector<AdagradStep>& steps),                                                                           \
    (params, grads, sums, steps))
