// Convolution from im2col, batched matmul and col2im, with every check PyTorch makes, once, here.
//
// conv2d:           cols = im2col(x)                  (N, C_in*kh*kw, L)
//                   y    = W (G, C_out/G, C_in/G*kh*kw) @ cols (N, G, C_in/G*kh*kw, L)
// conv_transpose2d: cols = W^T (G, C_out/G*kh*kw, C_in/G) @ x (N, G, C_in/G, H*W)
//                   y    = col2im(cols)
// conv1d is conv2d over a height of 1; conv3d is one conv2d over depth-gathered planes (below). im2col's backward is
// col2im and col2im's is im2col (each is the other's adjoint), so the gradients of input, weight and bias are those of
// the ops above: dW = sum over the batch of g @ cols^T, dx = col2im(W^T @ g), db = sum of g over (N, H, W).
// Every floating dtype, bfloat16 and float16 included (the products and col2im sum those in float32). Under autocast
// each convolution follows its row of EMBER_AUTOCAST_OPS: the autocast dtype, but float32 for the transposed ones on
// the CPU, as torch 1.13.
#include "autograd/conv.h"

#include <algorithm>
#include <array>

#include "autograd/autocast.h"
#include "autograd/autograd.h"
#include "core/backend.h"
#include "core/kernel.h"
#include "core/trace.h"

namespace ember {

using autograd::any_requires_grad;
using autograd::record;

namespace {

using Pair = std::array<int64_t, 2>;  // (height, width)

// One argument of a convolution, one value per spatial dim: a single value is used for every dim.
std::vector<int64_t> expand_param(const char* op, const char* name, IntArrayRef value, int64_t dims) {
  EMBER_CHECK(value.size() == 1 || static_cast<int64_t>(value.size()) == dims,
              "{}: expected {} to be a single integer value or a list of {} values to match the convolution "
              "dimensions, but got {}={}",
              op, name, dims, name, value);
  return value.size() == 1 ? std::vector<int64_t>(dims, value[0]) : value.vec();
}

// A 1-d argument as a 2-d one over a height of 1 (`fill` for the height), a 2-d one as is.
Pair as_pair(const std::vector<int64_t>& v, int64_t fill) {
  return v.size() == 1 ? Pair{fill, v[0]} : Pair{v[0], v[1]};
}

// The blocks of one convolution, in 2-d (a 1-d convolution has a height of 1).
struct ConvParams {
  Pair stride, pad_begin, pad_end, dilation, output_padding;
  int64_t groups;
};

// The same for a 3-d convolution: (depth, height, width).
using Triple = std::array<int64_t, 3>;
struct ConvParams3 {
  Triple stride, pad_begin, pad_end, dilation, output_padding;
  int64_t groups;
};

// The checks of PyTorch's convolution, with its messages, naming `op` and the shapes as given.
// input is (N, C, *spatial) or (C, *spatial); weight (C_out, C_in / groups, *kernel) or, transposed,
// (C_in, C_out / groups, *kernel).
void check_conv(const char* op, int64_t dims, const Tensor& input, const Tensor& weight, const Tensor& bias,
                const std::vector<int64_t>& stride, const std::vector<int64_t>& pad_begin,
                const std::vector<int64_t>& pad_end, const std::vector<int64_t>& dilation, int64_t groups,
                bool transposed, const std::vector<int64_t>& output_padding) {
  EMBER_CHECK(input.defined() && weight.defined(), "{}: input and weight must be defined tensors", op);
  kernel::check_same_device(op, {input, weight, bias});
  EMBER_CHECK(input.dim() == dims + 1 || input.dim() == dims + 2,
              "{}: Expected {}D (unbatched) or {}D (batched) input to {}, but got input of size: {}", op, dims + 1,
              dims + 2, op, input.sizes());
  EMBER_CHECK(weight.dim() == dims + 2,
              "{}: expected a {}-D weight (out_channels, in_channels / groups, kernel), got "
              "weight of size {}",
              op, dims + 2, weight.sizes());
  EMBER_CHECK(input.is_floating_point(), "{}: expected a floating-point input, got {}", op, dtype_name(input.dtype()));
  EMBER_CHECK(input.dtype() == weight.dtype() && (!bias.defined() || bias.dtype() == input.dtype()),
              "{}: expected input, weight and bias of one dtype, got input {}, weight {}{}", op,
              dtype_name(input.dtype()), dtype_name(weight.dtype()),
              bias.defined() ? std::string(", bias ") + std::string(dtype_name(bias.dtype())) : std::string());
  EMBER_CHECK(groups > 0, "{}: non-positive groups is not supported, got groups={}", op, groups);
  for (int64_t d = 0; d < dims; ++d) {
    EMBER_CHECK(stride[d] > 0, "{}: non-positive stride is not supported, got stride={}", op, IntArrayRef(stride));
    EMBER_CHECK(dilation[d] > 0, "{}: dilation should be greater than zero, got dilation={}", op,
                IntArrayRef(dilation));
    EMBER_CHECK(pad_begin[d] >= 0 && pad_end[d] >= 0, "{}: negative padding is not supported, got padding={}", op,
                IntArrayRef(pad_begin));
  }
  const int64_t batch_dims = input.dim() - dims;  // 1 (unbatched) or 2
  const int64_t channels = input.size(batch_dims - 1);
  std::vector<int64_t> batched = input.sizes().vec();
  if (batch_dims == 1) batched.insert(batched.begin(), 1);
  const std::vector<int64_t> kernel_size(weight.sizes().begin() + 2, weight.sizes().end());
  EMBER_CHECK(std::all_of(kernel_size.begin(), kernel_size.end(), [](int64_t k) { return k > 0; }),
              "{}: kernel size should be greater than zero, but got kernel size ({}) (weight of size {})", op,
              fmt::join(kernel_size, " x "), weight.sizes());
  EMBER_CHECK(weight.size(0) >= groups,
              "{}: Given groups={}, expected weight to be at least {} at dimension 0, but got weight of size {} "
              "instead",
              op, groups, groups, weight.sizes());
  EMBER_CHECK(weight.size(0) % groups == 0,
              "{}: Given groups={}, expected weight to be divisible by {} at dimension 0, but got weight of size {} "
              "instead",
              op, groups, groups, weight.sizes());
  if (!transposed) {
    EMBER_CHECK(channels == weight.size(1) * groups,
                "{}: Given groups={}, weight of size {}, expected input{} to have {} channels, but got {} channels "
                "instead",
                op, groups, weight.sizes(), IntArrayRef(batched), weight.size(1) * groups, channels);
  } else {
    EMBER_CHECK(weight.size(0) == channels,
                "{}: Given transposed=1, weight of size {}, expected input{} to have {} channels, but got {} channels "
                "instead",
                op, weight.sizes(), IntArrayRef(batched), weight.size(0), channels);
    for (int64_t d = 0; d < dims; ++d)
      EMBER_CHECK(output_padding[d] >= 0 && (output_padding[d] < stride[d] || output_padding[d] < dilation[d]),
                  "{}: output padding must be smaller than either stride or dilation, but got output_padding={}, "
                  "stride={}, dilation={}",
                  op, IntArrayRef(output_padding), IntArrayRef(stride), IntArrayRef(dilation));
  }
  const int64_t out_channels = transposed ? weight.size(1) * groups : weight.size(0);
  EMBER_CHECK(
      !bias.defined() || (bias.dim() == 1 && bias.size(0) == out_channels),
      "{}: Given weight of size {}, expected bias to be 1-dimensional with {} elements, but got bias of size {} "
      "instead",
      op, weight.sizes(), out_channels, bias.sizes());
  // The dilated kernel, the padded input and (transposed) the output, in overflow-checked arithmetic:
  // wrapped around, a huge dilation or padding would pass the checks and make a negative size.
  std::vector<int64_t> padded(dims), kernel(dims);
  bool fits = true;
  for (int64_t d = 0; d < dims; ++d) {
    const int64_t size = input.size(batch_dims + d);
    int64_t extent = 0, out = 0;
    bool overflow = __builtin_mul_overflow(dilation[d], kernel_size[d] - 1, &extent) ||
                    __builtin_add_overflow(extent, 1, &kernel[d]) ||
                    __builtin_add_overflow(size, pad_begin[d], &padded[d]) ||
                    __builtin_add_overflow(padded[d], pad_end[d], &padded[d]);
    if (transposed)  // (size - 1) * stride - pad_begin - pad_end + dilation * (k - 1) + output_padding + 1
      overflow = overflow || __builtin_mul_overflow(size - 1, stride[d], &out) ||
                 __builtin_add_overflow(out, kernel[d], &out) || __builtin_add_overflow(out, output_padding[d], &out) ||
                 __builtin_sub_overflow(out, pad_begin[d], &out) || __builtin_sub_overflow(out, pad_end[d], &out);
    EMBER_CHECK(!overflow,
                "{}: the sizes overflow 64 bits: input of size {}, weight of size {}, stride={}, padding={}, "
                "dilation={}",
                op, input.sizes(), weight.sizes(), IntArrayRef(stride), IntArrayRef(pad_begin), IntArrayRef(dilation));
    fits = fits && kernel[d] <= padded[d];
  }
  if (transposed) return;
  EMBER_CHECK(fits,
              "{}: Calculated padded input size per channel: ({}). Kernel size: ({}). Kernel size can't be greater "
              "than actual input size (input of size {}, weight of size {})",
              op, fmt::join(padded, " x "), fmt::join(kernel, " x "), input.sizes(), weight.sizes());
}

// The number of blocks along one dim: (size + padding - dilation*(k-1) - 1) / stride + 1.
int64_t blocks_along(int64_t size, int64_t pad_total, int64_t k, int64_t stride, int64_t dilation) {
  return (size + pad_total - dilation * (k - 1) - 1) / stride + 1;
}

// ---- im2col and col2im, each the other's backward ----

Tensor col2im_op(const Tensor& cols, const Im2colShape& shape);

// (N, C, H, W) -> (N, C*kh*kw, out_h*out_w)
Tensor im2col_op(const Tensor& input, const Im2colShape& shape) {
  Tensor x = kernel::contiguous(input);
  const int64_t N = x.size(0);
  Tensor cols = raw_empty({N, shape.C * shape.kernel_h * shape.kernel_w, shape.out_h * shape.out_w}, x.dtype(),
                          x.device(), "im2col");
  backend_for(x).im2col(cols, x, shape);
  if (any_requires_grad({&input}))
    record("Im2ColBackward0", cols, {input}, [shape](const Tensor& g) -> tensor_list { return {col2im_op(g, shape)}; });
  return cols;
}

// (N, C*kh*kw, out_h*out_w) -> (N, C, H, W)
Tensor col2im_op(const Tensor& cols, const Im2colShape& shape) {
  Tensor c = kernel::contiguous(cols);
  Tensor out = raw_empty({c.size(0), shape.C, shape.H, shape.W}, c.dtype(), c.device(), "col2im");
  backend_for(c).col2im(out, c, shape);
  if (any_requires_grad({&cols}))
    record("Col2ImBackward0", out, {cols}, [shape](const Tensor& g) -> tensor_list { return {im2col_op(g, shape)}; });
  return out;
}

// The sliding blocks over a (C, H, W) image: kernel, padding (each side), stride and dilation as
// (height, width), and how many blocks fit.
Im2colShape im2col_shape(int64_t C, int64_t H, int64_t W, Pair kernel, Pair pad, Pair stride, Pair dilation,
                         Pair blocks) {
  return {.C = C,
          .H = H,
          .W = W,
          .kernel_h = kernel[0],
          .kernel_w = kernel[1],
          .pad_h = pad[0],
          .pad_w = pad[1],
          .stride_h = stride[0],
          .stride_w = stride[1],
          .dilation_h = dilation[0],
          .dilation_w = dilation[1],
          .out_h = blocks[0],
          .out_w = blocks[1]};
}

Im2colShape conv_shape(int64_t C, int64_t H, int64_t W, const Tensor& weight, const ConvParams& p, int64_t out_h,
                       int64_t out_w) {
  return im2col_shape(C, H, W, {weight.size(2), weight.size(3)}, p.pad_begin, p.stride, p.dilation, {out_h, out_w});
}

// unfold's and fold's block arguments, expanded to (height, width).
struct BlockArgs {
  Pair kernel, dilation, pad, stride;

  BlockArgs(const char* op, IntArrayRef kernel_size, IntArrayRef dilation_in, IntArrayRef padding,
            IntArrayRef stride_in)
      : kernel(as_pair(expand_param(op, "kernel_size", kernel_size, 2), 1)),
        dilation(as_pair(expand_param(op, "dilation", dilation_in, 2), 1)),
        pad(as_pair(expand_param(op, "padding", padding, 2), 0)),
        stride(as_pair(expand_param(op, "stride", stride_in, 2), 1)) {}

  // kernel_size, dilation and stride positive, padding non-negative.
  bool valid() const {
    return kernel[0] > 0 && kernel[1] > 0 && dilation[0] > 0 && dilation[1] > 0 && stride[0] > 0 && stride[1] > 0 &&
           pad[0] >= 0 && pad[1] >= 0;
  }

  // How many blocks fit along the height and the width of an (H, W) image.
  Pair blocks(int64_t H, int64_t W) const {
    return {blocks_along(H, 2 * pad[0], kernel[0], stride[0], dilation[0]),
            blocks_along(W, 2 * pad[1], kernel[1], stride[1], dilation[1])};
  }

  Im2colShape shape(int64_t C, int64_t H, int64_t W, Pair blocks) const {
    return im2col_shape(C, H, W, kernel, pad, stride, dilation, blocks);
  }
};

Tensor add_bias(const Tensor& y, const Tensor& bias) {
  return bias.defined() ? y + bias.view({1, bias.size(0), 1, 1}) : y;
}

// x (N, C_in, H, W), weight (C_out, C_in/G, kh, kw), checked -> (N, C_out, H_out, W_out)
Tensor conv2d_checked(const Tensor& x, const Tensor& weight, const Tensor& bias, const ConvParams& p) {
  const int64_t N = x.size(0), C = x.size(1), H = x.size(2), W = x.size(3);
  const int64_t G = p.groups, C_out = weight.size(0), kh = weight.size(2), kw = weight.size(3);
  const int64_t out_h = blocks_along(H, p.pad_begin[0] + p.pad_end[0], kh, p.stride[0], p.dilation[0]);
  const int64_t out_w = blocks_along(W, p.pad_begin[1] + p.pad_end[1], kw, p.stride[1], p.dilation[1]);
  Tensor cols = im2col_op(x, conv_shape(C, H, W, weight, p, out_h, out_w));  // (N, C*kh*kw, L)
  Tensor grouped = cols.view({N, G, C / G * kh * kw, out_h * out_w});        // (N, G, C/G*kh*kw, L)
  Tensor w = weight.reshape({G, C_out / G, C / G * kh * kw});                // (G, C_out/G, C/G*kh*kw)
  Tensor y = w.matmul(grouped).view({N, C_out, out_h, out_w});               // (N, G, C_out/G, L)
  return add_bias(y, bias);
}

// x (N, C_in, H, W), weight (C_in, C_out/G, kh, kw), checked -> (N, C_out, H_out, W_out)
Tensor conv_transpose2d_checked(const char* op, const Tensor& x, const Tensor& weight, const Tensor& bias,
                                const ConvParams& p) {
  const int64_t N = x.size(0), C_in = x.size(1), H = x.size(2), W = x.size(3);
  const int64_t G = p.groups, C_out = weight.size(1) * G, kh = weight.size(2), kw = weight.size(3);
  // In the order check_conv proved free of overflow.
  const int64_t out_h =
      (H - 1) * p.stride[0] + (p.dilation[0] * (kh - 1) + 1) + p.output_padding[0] - p.pad_begin[0] - p.pad_end[0];
  const int64_t out_w =
      (W - 1) * p.stride[1] + (p.dilation[1] * (kw - 1) + 1) + p.output_padding[1] - p.pad_begin[1] - p.pad_end[1];
  EMBER_CHECK(out_h > 0 && out_w > 0,
              "{}: the output size ({} x {}) is too small for input of size {} and weight of size {}", op, out_h, out_w,
              x.sizes(), weight.sizes());
  Tensor w = weight.reshape({G, C_in / G, C_out / G * kh * kw}).transpose(1, 2);  // (G, C_out/G*kh*kw, C_in/G)
  Tensor grouped = x.reshape({N, G, C_in / G, H * W});                            // (N, G, C_in/G, H*W)
  Tensor cols = w.matmul(grouped).reshape({N, C_out * kh * kw, H * W});           // (N, C_out*kh*kw, H*W)
  return add_bias(col2im_op(cols, conv_shape(C_out, out_h, out_w, weight, p, H, W)), bias);
}

// ---- 3-d convolution as one 2-d convolution over depth-gathered planes ----
//
// conv3d: each output depth od reads input depths od*stride - pad + kd*dilation (kd < KD). Gathering
// those (zero where they fall in the padding) stacks the kernel's depth taps beside the channels:
//   x (N, C, D, H, W) -> (N*OD, C*KD, H, W), channel c*KD + kd
// and the weight (C_out, C/G, KD, kh, kw) read as (C_out, C/G*KD, kh, kw) has the same layout within
// each group, so conv2d with the same groups gives every (n, od) plane. conv_transpose3d is the adjoint:
// conv_transpose2d of each input plane gives the (C_out, KD) taps, which index_add sums into depth
// d*stride - pad + kd*dilation. index_select and index_add are each other's backward.

// The depth of each (kd, o) tap, kd-major: o*stride - pad + kd*dilation, or `outside` where it leaves
// [0, size). As an int64 index tensor on `device`.
Tensor depth_taps(int64_t KD, int64_t count, int64_t stride, int64_t pad, int64_t dilation, int64_t size,
                  int64_t outside, Device device) {
  std::vector<int64_t> taps;
  taps.reserve(static_cast<size_t>(KD * count));
  for (int64_t kd = 0; kd < KD; ++kd)
    for (int64_t o = 0; o < count; ++o) {
      const int64_t depth = o * stride - pad + kd * dilation;
      taps.push_back(depth >= 0 && depth < size ? depth : outside);
    }
  return from_vector(taps, {KD * count}, dtype(kInt64)).to(device);
}

// The height and width parts of 3-d parameters, for the 2-d convolution of each plane.
ConvParams plane_params(const ConvParams3& p) {
  return {.stride = {p.stride[1], p.stride[2]},
          .pad_begin = {p.pad_begin[1], p.pad_begin[2]},
          .pad_end = {p.pad_end[1], p.pad_end[2]},
          .dilation = {p.dilation[1], p.dilation[2]},
          .output_padding = {p.output_padding[1], p.output_padding[2]},
          .groups = p.groups};
}

// x (N, C_in, D, H, W), weight (C_out, C_in/G, KD, kh, kw), checked -> (N, C_out, OD, OH, OW)
Tensor conv3d_checked(const Tensor& x, const Tensor& weight, const Tensor& bias, const ConvParams3& p) {
  const int64_t N = x.size(0), C = x.size(1), D = x.size(2), H = x.size(3), W = x.size(4);
  const int64_t C_out = weight.size(0), KD = weight.size(2);
  const int64_t OD = blocks_along(D, p.pad_begin[0] + p.pad_end[0], KD, p.stride[0], p.dilation[0]);
  // One zero plane at depth D stands for the padding.
  Tensor padded = cat({x, zeros({N, C, 1, H, W}, TensorOptions(x.dtype()).device(x.device()))}, 2);
  // index_select's backward is index_add, which takes no bfloat16 / float16: those gather through
  // float32, so the gradient's taps are summed in float32 and rounded once.
  const ScalarType gather_dtype = is_reduced_floating_point(x.dtype()) ? kFloat32 : x.dtype();
  Tensor taps = padded.to(gather_dtype)
                    .index_select(2, depth_taps(KD, OD, p.stride[0], p.pad_begin[0], p.dilation[0], D, D, x.device()))
                    .to(x.dtype());
  Tensor planes = taps.view({N, C, KD, OD, H, W}).permute({0, 3, 1, 2, 4, 5}).reshape({N * OD, C * KD, H, W});
  Tensor w = weight.reshape({C_out, weight.size(1) * KD, weight.size(3), weight.size(4)});
  Tensor y = conv2d_checked(planes, w, {}, plane_params(p));  // (N*OD, C_out, OH, OW)
  y = y.view({N, OD, C_out, y.size(2), y.size(3)}).permute({0, 2, 1, 3, 4});
  return bias.defined() ? y + bias.view({1, C_out, 1, 1, 1}) : y.contiguous();
}

// x (N, C_in, D, H, W), weight (C_in, C_out/G, KD, kh, kw), checked -> (N, C_out, OD, OH, OW)
Tensor conv_transpose3d_checked(const char* op, const Tensor& x, const Tensor& weight, const Tensor& bias,
                                const ConvParams3& p) {
  const int64_t N = x.size(0), C_in = x.size(1), D = x.size(2), H = x.size(3), W = x.size(4);
  const int64_t G = p.groups, C_out = weight.size(1) * G, KD = weight.size(2);
  const int64_t OD =
      (D - 1) * p.stride[0] + p.dilation[0] * (KD - 1) + 1 + p.output_padding[0] - p.pad_begin[0] - p.pad_end[0];
  EMBER_CHECK(OD > 0, "{}: the output depth ({}) is too small for input of size {} and weight of size {}", op, OD,
              x.sizes(), weight.sizes());
  Tensor planes = x.permute({0, 2, 1, 3, 4}).reshape({N * D, C_in, H, W});
  Tensor w = weight.reshape({C_in, weight.size(1) * KD, weight.size(3), weight.size(4)});
  Tensor y = conv_transpose2d_checked(op, planes, w, {}, plane_params(p));  // (N*D, C_out*KD, OH, OW)
  const int64_t OH = y.size(2), OW = y.size(3);
  Tensor by_tap = y.view({N, D, C_out, KD, OH, OW}).permute({0, 2, 3, 1, 4, 5}).reshape({N, C_out, KD * D, OH, OW});
  // Taps that land in the cropped padding go to a spare plane at depth OD, dropped after.
  Tensor index = depth_taps(KD, D, p.stride[0], p.pad_begin[0], p.dilation[0], OD, OD, x.device());
  // index_add takes no bfloat16 / float16: their taps are summed in float32 and rounded once.
  const ScalarType sum_dtype = is_reduced_floating_point(x.dtype()) ? kFloat32 : x.dtype();
  Tensor out = zeros({N, C_out, OD + 1, OH, OW}, TensorOptions(sum_dtype).device(x.device()))
                   .index_add(2, index, by_tap.to(sum_dtype))
                   .narrow(2, 0, OD)
                   .to(x.dtype());
  return bias.defined() ? out + bias.view({1, C_out, 1, 1, 1}) : out.contiguous();
}

// Runs `f` on the input with a batch dim, and removes it again for an unbatched input.
template <typename F>
Tensor batched(const Tensor& input, int64_t dims, F f) {
  if (input.dim() == dims + 2) return f(input);
  return f(input.unsqueeze(0)).squeeze(0);
}

// The 1-d, 2-d or 3-d convolution (transposed or not) from checked, expanded arguments.
Tensor convolution(const char* op, int64_t dims, const Tensor& input, const Tensor& weight, const Tensor& bias,
                   const std::vector<int64_t>& stride, const std::vector<int64_t>& pad_begin,
                   const std::vector<int64_t>& pad_end, const std::vector<int64_t>& dilation, int64_t groups,
                   bool transposed, const std::vector<int64_t>& output_padding) {
  check_conv(op, dims, input, weight, bias, stride, pad_begin, pad_end, dilation, groups, transposed, output_padding);
  if (dims == 3) {
    const auto triple = [](const std::vector<int64_t>& v) { return Triple{v[0], v[1], v[2]}; };
    const ConvParams3 p{.stride = triple(stride),
                        .pad_begin = triple(pad_begin),
                        .pad_end = triple(pad_end),
                        .dilation = triple(dilation),
                        .output_padding = triple(output_padding),
                        .groups = groups};
    return batched(input, dims, [&](const Tensor& x) {
      return transposed ? conv_transpose3d_checked(op, x, weight, bias, p) : conv3d_checked(x, weight, bias, p);
    });
  }
  const ConvParams p{.stride = as_pair(stride, 1),
                     .pad_begin = as_pair(pad_begin, 0),
                     .pad_end = as_pair(pad_end, 0),
                     .dilation = as_pair(dilation, 1),
                     .output_padding = as_pair(output_padding, 0),
                     .groups = groups};
  const Tensor w = dims == 1 ? weight.unsqueeze(2) : weight;  // (.., .., 1, k) for 1-d
  return batched(input, dims, [&](const Tensor& x) {
    const Tensor x2 = dims == 1 ? x.unsqueeze(2) : x;
    Tensor y = transposed ? conv_transpose2d_checked(op, x2, w, bias, p) : conv2d_checked(x2, w, bias, p);
    return dims == 1 ? y.squeeze(2) : y;
  });
}

}  // namespace

Tensor im2col(const Tensor& input, IntArrayRef kernel_size, IntArrayRef dilation, IntArrayRef padding,
              IntArrayRef stride) {
  EMBER_TRACE_OP();
  const char* op = "unfold";
  EMBER_CHECK(input.dim() == 4, "{}: Input Error: Only 4D input Tensors are supported (got {}D, input of size {})", op,
              input.dim(), input.sizes());
  EMBER_CHECK(input.is_floating_point(), "{}: expected a floating-point input, got {}", op, dtype_name(input.dtype()));
  const BlockArgs b(op, kernel_size, dilation, padding, stride);
  EMBER_CHECK(b.valid(),
              "{}: kernel_size, dilation and stride must be positive and padding non-negative, got kernel_size={}, "
              "dilation={}, padding={}, stride={}",
              op, kernel_size, dilation, padding, stride);
  const int64_t H = input.size(2), W = input.size(3);
  const Pair blocks = b.blocks(H, W);
  EMBER_CHECK(blocks[0] >= 1 && blocks[1] >= 1,
              "{}: Given input with spatial size ({}, {}), kernel_size=({}, {}), dilation=({}, {}), padding=({}, {}), "
              "calculated shape of the array of sliding blocks as ({}, {}), but its components must be at least one.",
              op, H, W, b.kernel[0], b.kernel[1], b.dilation[0], b.dilation[1], b.pad[0], b.pad[1], blocks[0],
              blocks[1]);
  return im2col_op(input, b.shape(input.size(1), H, W, blocks));
}

Tensor col2im(const Tensor& input, IntArrayRef output_size, IntArrayRef kernel_size, IntArrayRef dilation,
              IntArrayRef padding, IntArrayRef stride) {
  EMBER_TRACE_OP();
  const char* op = "fold";
  EMBER_CHECK(input.dim() == 3, "{}: Input Error: Only 3D input Tensors are supported (got {}D, input of size {})", op,
              input.dim(), input.sizes());
  EMBER_CHECK(input.is_floating_point(), "{}: expected a floating-point input, got {}", op, dtype_name(input.dtype()));
  const Pair out = as_pair(expand_param(op, "output_size", output_size, 2), 1);
  const BlockArgs b(op, kernel_size, dilation, padding, stride);
  EMBER_CHECK(out[0] > 0 && out[1] > 0 && b.valid(),
              "{}: output_size, kernel_size, dilation and stride must be positive and padding non-negative, got "
              "output_size={}, kernel_size={}, dilation={}, padding={}, stride={}",
              op, output_size, kernel_size, dilation, padding, stride);
  const Pair k = b.kernel;
  EMBER_CHECK(input.size(1) % (k[0] * k[1]) == 0,
              "{}: Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got "
              "input.size(1)={} and kernel_size=({}, {})",
              op, input.size(1), k[0], k[1]);
  const Pair blocks = b.blocks(out[0], out[1]);
  EMBER_CHECK(blocks[0] >= 1 && blocks[1] >= 1 && input.size(2) == blocks[0] * blocks[1],
              "{}: Given output_size=({}, {}), kernel_size=({}, {}), dilation=({}, {}), padding=({}, {}), "
              "stride=({}, {}), expected size of input's dimension 2 to match the calculated number of sliding "
              "blocks {} * {} = {}, but got input.size(2)={} (input of size {})",
              op, out[0], out[1], k[0], k[1], b.dilation[0], b.dilation[1], b.pad[0], b.pad[1], b.stride[0],
              b.stride[1], blocks[0], blocks[1], blocks[0] * blocks[1], input.size(2), input.sizes());
  return col2im_op(input, b.shape(input.size(1) / (k[0] * k[1]), out[0], out[1], blocks));
}

Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride, IntArrayRef padding,
              IntArrayRef dilation, int64_t groups) {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::conv1d, {input, weight, bias}})
    return conv1d(cast[0], cast[1], cast[2], stride, padding, dilation, groups);
  const char* op = "conv1d";
  const auto pad = expand_param(op, "padding", padding, 1);
  return convolution(op, 1, input, weight, bias, expand_param(op, "stride", stride, 1), pad, pad,
                     expand_param(op, "dilation", dilation, 1), groups, false, {0});
}

Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride, IntArrayRef padding,
              IntArrayRef dilation, int64_t groups) {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::conv2d, {input, weight, bias}})
    return conv2d(cast[0], cast[1], cast[2], stride, padding, dilation, groups);
  const char* op = "conv2d";
  const auto pad = expand_param(op, "padding", padding, 2);
  return convolution(op, 2, input, weight, bias, expand_param(op, "stride", stride, 2), pad, pad,
                     expand_param(op, "dilation", dilation, 2), groups, false, {0, 0});
}

Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
                        IntArrayRef padding, IntArrayRef output_padding, int64_t groups, IntArrayRef dilation) {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::conv_transpose2d, {input, weight, bias}})
    return conv_transpose2d(cast[0], cast[1], cast[2], stride, padding, output_padding, groups, dilation);
  const char* op = "conv_transpose2d";
  const auto pad = expand_param(op, "padding", padding, 2);
  return convolution(op, 2, input, weight, bias, expand_param(op, "stride", stride, 2), pad, pad,
                     expand_param(op, "dilation", dilation, 2), groups, true,
                     expand_param(op, "output_padding", output_padding, 2));
}

Tensor conv3d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride, IntArrayRef padding,
              IntArrayRef dilation, int64_t groups) {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::conv3d, {input, weight, bias}})
    return conv3d(cast[0], cast[1], cast[2], stride, padding, dilation, groups);
  const char* op = "conv3d";
  const auto pad = expand_param(op, "padding", padding, 3);
  return convolution(op, 3, input, weight, bias, expand_param(op, "stride", stride, 3), pad, pad,
                     expand_param(op, "dilation", dilation, 3), groups, false, {0, 0, 0});
}

Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
                        IntArrayRef padding, IntArrayRef output_padding, int64_t groups, IntArrayRef dilation) {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::conv_transpose1d, {input, weight, bias}})
    return conv_transpose1d(cast[0], cast[1], cast[2], stride, padding, output_padding, groups, dilation);
  const char* op = "conv_transpose1d";
  const auto pad = expand_param(op, "padding", padding, 1);
  return convolution(op, 1, input, weight, bias, expand_param(op, "stride", stride, 1), pad, pad,
                     expand_param(op, "dilation", dilation, 1), groups, true,
                     expand_param(op, "output_padding", output_padding, 1));
}

Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
                        IntArrayRef padding, IntArrayRef output_padding, int64_t groups, IntArrayRef dilation) {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::conv_transpose3d, {input, weight, bias}})
    return conv_transpose3d(cast[0], cast[1], cast[2], stride, padding, output_padding, groups, dilation);
  const char* op = "conv_transpose3d";
  const auto pad = expand_param(op, "padding", padding, 3);
  return convolution(op, 3, input, weight, bias, expand_param(op, "stride", stride, 3), pad, pad,
                     expand_param(op, "dilation", dilation, 3), groups, true,
                     expand_param(op, "output_padding", output_padding, 3));
}

Tensor detail::conv_same(const char* op, int64_t dims, const Tensor& input, const Tensor& weight, const Tensor& bias,
                         IntArrayRef dilation_in, int64_t groups) {
  // padding "same": on the lists as the convolution of the same dims.
  const autograd::AutocastOp listed = dims == 1   ? autograd::AutocastOp::conv1d
                                      : dims == 2 ? autograd::AutocastOp::conv2d
                                                  : autograd::AutocastOp::conv3d;
  if (autograd::AutocastCall cast{listed, {input, weight, bias}})
    return detail::conv_same(op, dims, cast[0], cast[1], cast[2], dilation_in, groups);
  const auto dilation = expand_param(op, "dilation", dilation_in, dims);
  EMBER_CHECK(weight.defined() && weight.dim() == dims + 2,
              "{}: expected a {}-D weight (out_channels, in_channels / groups, kernel), got weight of size {}", op,
              dims + 2, weight.defined() ? weight.sizes() : IntArrayRef());
  std::vector<int64_t> begin(dims), end(dims);
  for (int64_t d = 0; d < dims; ++d) {
    int64_t total = 0;  // a kernel size of 0 is left to convolution's checks
    EMBER_CHECK(weight.size(2 + d) <= 0 || !__builtin_mul_overflow(dilation[d], weight.size(2 + d) - 1, &total),
                "{}: the sizes overflow 64 bits: weight of size {}, dilation={}", op, weight.sizes(),
                IntArrayRef(dilation));
    begin[d] = total / 2;
    end[d] = total - begin[d];
  }
  return convolution(op, dims, input, weight, bias, std::vector<int64_t>(dims, 1), begin, end, dilation, groups, false,
                     std::vector<int64_t>(dims, 0));
}

}  // namespace ember
