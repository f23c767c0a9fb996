// Neural-network primitives: softmax / log_softmax, layer_norm, tril / triu, index_select,
// embedding, one_hot (gather, scatter and index_add: autograd/scatter.cpp).
//
// Softmax runs over the last dim in the kernel; another dim is moved there with a transpose
// (and moved back after). Indices are range-checked here, once, for every device, so kernels
// never read out of bounds.
#include <limits>

#include "autograd/autocast.h"
#include "autograd/autograd.h"
#include "autograd/fused.h"
#include "core/kernel.h"
#include "core/trace.h"

namespace ember {

using autograd::any_requires_grad;
using autograd::record;
using autograd::SaveOutput;
using kernel::check_index;

namespace {

// softmax of x over `dim` (forward only), in x's floating dtype.
Tensor softmax_forward(const Tensor& x, int64_t d, bool log) {
  const int64_t last = x.dim() - 1;
  // The reduced floats over another dim: PyTorch's kernel for those dims runs in float32 and rounds
  // once, while the backend's rows follow its last-dim kernel (core/cpu/nn.cpp).
  if (is_reduced_floating_point(x.dtype()) && x.dim() > 0 && d != last)
    return kernel::cast(softmax_forward(kernel::cast(x, kFloat32), d, log), x.dtype());
  Tensor moved = (x.dim() == 0 || d == last) ? x : x.transpose(d, last);
  Tensor in = kernel::contiguous(moved);
  Tensor out = raw_empty(in.sizes(), in.dtype(), in.device());
  backend_for(in).softmax(out, in, log);
  return (x.dim() == 0 || d == last) ? out
                                     : raw_view(out, out.sizes().vec(), out.strides().vec(), 0).transpose(d, last);
}

Tensor softmax_impl(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype, bool log) {
  const char* name = log ? "log_softmax" : "softmax";
  Tensor x = dtype ? self.to(*dtype) : (self.is_floating_point() ? self : self.to(get_default_dtype()));
  int64_t d = wrap_dim(dim, x.dim(), name);
  // softmax:     dx = y (g - sum(g y))
  // log_softmax: dx = g - exp(y) sum(g)
  return autograd::apply_fused(
      {.name = log ? "LogSoftmaxBackward0" : "SoftmaxBackward0",
       .inputs = {x},
       .save_output = SaveOutput::kYes,
       .forward = {.fused = [&]() -> std::optional<tensor_list> { return tensor_list{softmax_forward(x, d, log)}; }},
       .backward = {.composed = [d, log](const Tensor& g, const tensor_list& saved) -> tensor_list {
                      const Tensor& out = saved[0];
                      if (log) return {g - out.exp() * g.sum({d}, true)};
                      return {out * (g - (g * out).sum({d}, true))};
                    },
                    .fused = [d, log](const Tensor& g, const tensor_list& saved) -> std::optional<tensor_list> {
                      const Tensor& out = saved[0];
                      const int64_t last = out.dim() - 1;
                      auto to_last = [&](const Tensor& t) {
                        return kernel::contiguous(out.dim() == 0 || d == last ? t : t.transpose(d, last));
                      };
                      Tensor go = to_last(g), yo = to_last(out);
                      Tensor din = raw_empty(go.sizes(), go.dtype(), go.device());
                      backend_for(go).softmax_backward(din, go, yo, log);
                      return tensor_list{out.dim() == 0 || d == last ? din : din.transpose(d, last)};
                    }}});
}

// From differentiable ops, over the normalized (last) dims: rstd = 1 / sqrt(var + eps) with var
// biased (divided by the count), and xhat = (x - mean) * rstd.
struct Normalized {
  Tensor xhat, rstd;
};
Normalized normalize_composed(const Tensor& x, IntArrayRef dims, double eps) {
  Tensor centered = x - x.mean(dims, /*keepdim=*/true);
  Tensor rstd = (centered.square().mean(dims, /*keepdim=*/true) + eps).rsqrt();
  return {centered * rstd, rstd};
}

// LayerNorm from primitive ops, y = xhat * weight + bias: the reference the fused kernel is tested
// against, and the path for a backend without one.
Tensor layer_norm_composed(const Tensor& input, IntArrayRef dims, const Tensor& weight, const Tensor& bias,
                           double eps) {
  Tensor y = normalize_composed(input, dims, eps).xhat;
  if (weight.defined()) y = y * weight;
  if (bias.defined()) y = y + bias;
  return y;
}

// LayerNorm as one primitive (NativeLayerNormBackward0, as PyTorch records it) where the backend
// has the fused kernels: one pass forward saving each row's mean and rstd, one pass backward.
// Under create_graph the backward is the same formula from differentiable ops. `compute` is the
// dtype of the output, mean, rstd, weight and bias: input's own, or float32 for a bfloat16 /
// float16 input that the kernel reads as float32 (CUDA autocast); the composed forms then cast
// the input first, and din comes back in input's dtype either way.
Tensor layer_norm_of(const Tensor& input, IntArrayRef normalized_shape, const Tensor& weight, const Tensor& bias,
                     double eps, ScalarType compute) {
  const int64_t k = static_cast<int64_t>(normalized_shape.size());
  EMBER_CHECK(k >= 1, "layer_norm: normalized_shape must have at least one dimension");
  bool matches = input.dim() >= k;
  for (int64_t i = 0; matches && i < k; ++i) matches = input.size(input.dim() - k + i) == normalized_shape[i];
  EMBER_CHECK(matches,
              "layer_norm: input of shape {} does not end with normalized_shape {} (expected input of shape "
              "[*, {}])",
              input.sizes(), normalized_shape, fmt::join(normalized_shape, ", "));
  for (const Tensor* t : {&weight, &bias}) {
    if (!t->defined()) continue;
    EMBER_CHECK(t->sizes() == normalized_shape, "layer_norm: {} has shape {} but normalized_shape is {}",
                t == &weight ? "weight" : "bias", t->sizes(), normalized_shape);
  }
  kernel::check_same_device("layer_norm", {input, weight, bias});
  EMBER_CHECK(input.is_floating_point(), "layer_norm: expected a floating-point input, got {}",
              dtype_name(input.dtype()));
  std::vector<int64_t> dims;
  for (int64_t d = input.dim() - k; d < input.dim(); ++d) dims.push_back(d);

  const bool same_dtype =
      (!weight.defined() || weight.dtype() == compute) && (!bias.defined() || bias.dtype() == compute);
  const int64_t D = numel_of(normalized_shape), N = D ? input.numel() / D : 0;
  const bool need_x = input.requires_grad(), need_w = weight.defined() && weight.requires_grad(),
             need_b = bias.defined() && bias.requires_grad();
  return autograd::apply_fused(
      {.name = "NativeLayerNormBackward0",
       .inputs = {input, weight, bias},
       .saved = {input, weight},
       // one pass over each row: y, and the row's mean and rstd for the backward
       .forward = {
           .fused = [&]() -> std::optional<tensor_list> {
             Backend& be = backend_for(input);
             Tensor x = kernel::contiguous(input);
             Tensor x2 = raw_view(x, {N, D}, {D, 1}, x.storage_offset());
             Tensor y = raw_empty({N, D}, compute, x.device());
             Tensor mean = raw_empty({N}, compute, x.device()), rstd = raw_empty({N}, compute, x.device());
             auto plain = [](const Tensor& t) { return t.defined() ? kernel::contiguous(t) : Tensor(); };
             if (!same_dtype || N * D == 0 || !be.layer_norm(y, mean, rstd, x2, plain(weight), plain(bias), eps))
               return std::nullopt;
             return tensor_list{raw_view(y, input.sizes().vec(), contiguous_strides(input.sizes()), 0), mean, rstd};
           },
           .composed = [&] { return layer_norm_composed(input.to(compute), dims, weight, bias, eps); }},
       // dx = rstd (gw - mean(gw) - xhat mean(gw xhat)) with gw = g weight; dweight = sum(g xhat), dbias = sum(g)
       .backward = {
           .composed = [dims, eps, need_x, need_w, need_b](const Tensor& g, const tensor_list& saved) -> tensor_list {
             const Tensor x = saved[0].to(g.dtype()), &w = saved[1];  // in g's (compute) dtype
             auto [xhat, rs] = normalize_composed(x, dims, eps);
             Tensor gw = w.defined() ? g * w : g;
             Tensor dx = rs * (gw - gw.mean(dims, true) - xhat * (gw * xhat).mean(dims, true));
             std::vector<int64_t> rows;  // the leading dims, summed over for weight and bias
             for (int64_t d = 0; d < dims.front(); ++d) rows.push_back(d);
             auto over_rows = [&](const Tensor& t) { return rows.empty() ? t : t.sum(rows); };
             return {need_x ? dx.to(saved[0].dtype()) : Tensor(), need_w ? over_rows(g * xhat) : Tensor(),
                     need_b ? over_rows(g) : Tensor()};
           },
           .fused = [need_x, need_w, need_b, wshape = normalized_shape.vec()](
                        const Tensor& g, const tensor_list& saved) -> std::optional<tensor_list> {
             const Tensor &x = saved[0], &w = saved[1], &mean = saved[2], &rstd = saved[3];
             const int64_t N = mean.size(0), D = N ? x.numel() / N : 0;
             Tensor xc = kernel::contiguous(x);
             Tensor x2 = raw_view(xc, {N, D}, {D, 1}, xc.storage_offset());
             Tensor g2 = raw_view(kernel::contiguous(g), {N, D}, {D, 1}, 0);
             Tensor dx = need_x ? raw_empty({N, D}, x.dtype(), g.device()) : Tensor();
             Tensor dw = need_w ? raw_empty(wshape, g.dtype(), g.device()) : Tensor();
             Tensor db = need_b ? raw_empty(wshape, g.dtype(), g.device()) : Tensor();
             if (!backend_for(g).layer_norm_backward(dx, dw, db, g2, x2, mean, rstd,
                                                     w.defined() ? kernel::contiguous(w) : Tensor()))
               return std::nullopt;
             if (dx.defined()) dx = raw_view(dx, x.sizes().vec(), contiguous_strides(x.sizes()), 0);
             return tensor_list{dx, dw, db};
           }}});
}

}  // namespace

Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const Tensor& weight, const Tensor& bias,
                  double eps) {
  EMBER_TRACE_OP();
  // Under CUDA autocast a bfloat16 / float16 input goes to the kernel as it is (read as float32
  // there) rather than copied to float32 first; weight and bias take the float32 policy's casts.
  if (autograd::autocast_casts_to_float32(autograd::AutocastOp::layer_norm, input)) {
    autograd::AutocastExcluded off;  // as inside AutocastCall: the ops below keep their dtypes
    const auto up = [](const Tensor& t) {
      return t.defined() && is_reduced_floating_point(t.dtype()) ? t.to(kFloat32) : t;
    };
    return layer_norm_of(input, normalized_shape, up(weight), up(bias), eps, kFloat32);
  }
  if (autograd::AutocastCall cast{autograd::AutocastOp::layer_norm, {input, weight, bias}})
    return layer_norm(cast[0], normalized_shape, cast[1], cast[2], eps);
  return layer_norm_of(input, normalized_shape, weight, bias, eps, input.dtype());
}

namespace {

Tensor triangle(const Tensor& x, int64_t k, bool lower) {
  const char* name = lower ? "tril" : "triu";
  EMBER_CHECK(x.dim() >= 2, "{}: input tensor must have at least 2 dimensions, got shape {}", name, x.sizes());
  Tensor in = kernel::contiguous(x);
  Tensor out = raw_empty(in.sizes(), in.dtype(), in.device());
  backend_for(in).triangle(out, in, k, lower);
  if (any_requires_grad({&x}))
    record(lower ? "TrilBackward0" : "TriuBackward0", out, {x},
           [k, lower](const Tensor& g) -> tensor_list { return {lower ? g.tril(k) : g.triu(k)}; });
  return out;
}

}  // namespace

Tensor Tensor::softmax(int64_t dim, std::optional<ScalarType> dtype) const {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::softmax, {*this}, !dtype}) return cast[0].softmax(dim);
  return softmax_impl(*this, dim, dtype, false);
}
Tensor Tensor::log_softmax(int64_t dim, std::optional<ScalarType> dtype) const {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::log_softmax, {*this}, !dtype}) return cast[0].log_softmax(dim);
  return softmax_impl(*this, dim, dtype, true);
}
Tensor softmax(const Tensor& x, int64_t dim) { return x.softmax(dim); }
Tensor log_softmax(const Tensor& x, int64_t dim) { return x.log_softmax(dim); }

Tensor Tensor::tril(int64_t diagonal) const { return triangle(*this, diagonal, true); }
Tensor Tensor::triu(int64_t diagonal) const { return triangle(*this, diagonal, false); }
Tensor tril(const Tensor& x, int64_t diagonal) { return x.tril(diagonal); }
Tensor triu(const Tensor& x, int64_t diagonal) { return x.triu(diagonal); }

// d index_select = index_add of g into zeros
Tensor Tensor::index_select(int64_t dim_, const Tensor& index) const {
  EMBER_TRACE_OP();
  kernel::check_same_device("index_select", {*this, index});
  EMBER_CHECK(index.dim() <= 1, "index_select: index should have at most one dimension, got shape {}", index.sizes());
  Tensor src = dim() == 0 ? reshape({1}) : *this;
  int64_t d = wrap_dim(dim_, src.dim(), "index_select");
  check_index(index, src.sizes()[d], "index_select", src.sizes(), d);
  Tensor in = kernel::contiguous(src), idx = kernel::contiguous(index.reshape({-1}));
  std::vector<int64_t> sz = in.sizes().vec();
  sz[d] = idx.numel();
  Tensor out = raw_empty(sz, dtype(), device());
  backend_for(in).index_select(out, in, d, idx);
  if (dim() == 0) out = raw_view(out, {}, {}, 0);
  if (any_requires_grad({this}))
    record("IndexSelectBackward0", out, {*this}, [in_sz = sizes().vec(), d, idx](const Tensor& g) -> tensor_list {
      return {zeros(in_sz, g.options()).index_add(d, idx, g)};
    });
  return out;
}

// embedding(W, idx) = W[idx]; d W = index_add of g's rows (none for padding_idx)
Tensor embedding(const Tensor& weight, const Tensor& indices, std::optional<int64_t> padding_idx) {
  EMBER_TRACE_OP();
  kernel::check_same_device("embedding", {weight, indices});
  EMBER_CHECK(weight.dim() == 2, "embedding: weight must be 2-D (num_embeddings, embedding_dim), got shape {}",
              weight.sizes());
  EMBER_CHECK(indices.dtype() == kInt64, "embedding: expected indices of dtype int64, got {}",
              dtype_name(indices.dtype()));
  check_index(indices, weight.size(0), "embedding", weight.sizes(), 0);
  if (padding_idx) {  // negative counts from the end, as in functional::embedding
    const int64_t rows = weight.size(0);
    EMBER_CHECK(*padding_idx >= -rows && *padding_idx < rows,
                "embedding: padding_idx {} must be within num_embeddings ({})", *padding_idx, rows);
    if (*padding_idx < 0) padding_idx = *padding_idx + rows;
  }
  Tensor flat = kernel::contiguous(indices.reshape({-1}));
  Tensor rows;
  {
    NoGradGuard no_grad;
    rows = weight.index_select(0, flat);
  }
  std::vector<int64_t> sz = indices.sizes().vec();
  sz.push_back(weight.size(1));
  Tensor out = raw_view(rows, sz, contiguous_strides(sz), 0);
  if (any_requires_grad({&weight}))
    record("EmbeddingBackward0", out, {weight},
           [flat, padding_idx, V = weight.size(0), C = weight.size(1)](const Tensor& g) -> tensor_list {
             Tensor g2 = g.reshape({-1, C});
             if (padding_idx) g2 = g2.masked_fill(flat.eq(*padding_idx).unsqueeze(1), 0);
             return {zeros({V, C}, g.options()).index_add(0, flat, g2)};
           });
  return out;
}

Tensor one_hot(const Tensor& indices, int64_t num_classes) {
  EMBER_TRACE_OP();
  EMBER_CHECK(indices.dtype() == kInt64, "one_hot: is only applicable to index tensor (int64), got {}",
              dtype_name(indices.dtype()));
  EMBER_CHECK(num_classes >= -1, "one_hot: num_classes must be -1 (inferred) or non-negative, got {}", num_classes);
  if (num_classes == -1) {
    EMBER_CHECK(indices.numel() > 0, "one_hot: can not infer total number of classes from empty tensor");
    const int64_t hi = indices.max().item<int64_t>();
    EMBER_CHECK(hi < std::numeric_limits<int64_t>::max(), "one_hot: cannot infer num_classes from the index {}", hi);
    num_classes = hi + 1;
  }
  check_index(indices, num_classes, "one_hot");
  Tensor classes = arange(num_classes, TensorOptions(kInt64).device(indices.device()));
  return indices.unsqueeze(-1).eq(classes).to(kInt64);
}

}  // namespace ember
