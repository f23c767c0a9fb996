// Pooling: PyTorch's checks and output sizes, then the plane kernels of autograd/pool.h.
//
// Every form is reshaped to (P, H, W) planes, P = N * C (or C without a batch): 1-d pooling is a
// plane of height 1 with a 1-wide, stride-1 kernel over it.
#include "nn/pooling.h"

#include <fmt/format.h>

#include "autograd/pool.h"
#include "core/trace.h"

namespace ember::nn {

namespace {

// Floor division that rounds towards -inf, as PyTorch's div_rtn.
int64_t div_floor(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// PyTorch's pooling_output_shape: the number of windows along one dim.
int64_t pooled_size(int64_t L, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
  int64_t out = div_floor(L + 2 * p - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0), s) + 1;
  if (ceil_mode && (out - 1) * s >= L + p) --out;  // the last window must start inside input or left padding
  return out;
}

// The sizes of the pooling options along both dims; 1-d gets a neutral first dim.
struct Window2d {
  int64_t kH, kW, sH, sW, pH, pW, dH, dW;
};

// input (N, C, *spatial) or (C, *spatial) with `spatial` dims -> (P, H, W) and the leading sizes.
struct Planes {
  Tensor x;                      // (P, H, W)
  std::vector<int64_t> leading;  // (N, C) or (C)
};
Planes as_planes(const Tensor& input, int64_t spatial, const char* op) {
  const int64_t dim = input.dim();
  if (spatial == 1)
    EMBER_CHECK(dim == 2 || dim == 3, "{}: expected a 2-d (C, L) or 3-d (N, C, L) input, but got shape {}", op,
                input.sizes());
  else
    EMBER_CHECK(dim == 3 || dim == 4, "{}: expected a 3-d (C, H, W) or 4-d (N, C, H, W) input, but got shape {}", op,
                input.sizes());
  for (int64_t i = 1; i < dim; ++i)
    EMBER_CHECK(input.size(i) > 0, "{}: expected an input with non-zero sizes except the batch dim, but got shape {}",
                op, input.sizes());
  EMBER_CHECK(input.is_floating_point(), "{}: expected a floating-point input, but got {}", op,
              dtype_name(input.dtype()));
  std::vector<int64_t> leading(input.sizes().begin(), input.sizes().end() - spatial);
  int64_t P = 1;
  for (int64_t s : leading) P *= s;
  const int64_t H = spatial == 1 ? 1 : input.size(dim - 2), W = input.size(dim - 1);
  return {input.reshape({P, H, W}), leading};
}

Tensor from_planes(const Tensor& out, const std::vector<int64_t>& leading, int64_t spatial) {
  std::vector<int64_t> sizes = leading;
  if (spatial == 2) sizes.push_back(out.size(1));
  sizes.push_back(out.size(2));
  return out.reshape(sizes);
}

// The geometry of a windowed pooling, after PyTorch's pool2d_shape_check.
PoolGeometry windowed(const char* op, const Tensor& planes, const Window2d& w, bool ceil_mode, int64_t spatial,
                      IntArrayRef input_shape) {
  const bool two = spatial == 2;
  EMBER_CHECK(w.kH > 0 && w.kW > 0, "{}: kernel size should be greater than zero, but got {}", op,
              two ? fmt::format("kH: {} kW: {}", w.kH, w.kW) : fmt::format("{}", w.kW));
  EMBER_CHECK(w.sH > 0 && w.sW > 0, "{}: stride should be greater than zero, but got {}", op,
              two ? fmt::format("dH: {} dW: {}", w.sH, w.sW) : fmt::format("{}", w.sW));
  EMBER_CHECK(w.dH > 0 && w.dW > 0, "{}: dilation should be greater than zero, but got {}", op,
              two ? fmt::format("dilationH: {} dilationW: {}", w.dH, w.dW) : fmt::format("{}", w.dW));
  EMBER_CHECK(w.pH >= 0 && w.pW >= 0, "{}: padding must be non-negative, but got {}", op,
              two ? fmt::format("padH = {}, padW = {}", w.pH, w.pW) : fmt::format("{}", w.pW));
  EMBER_CHECK(w.pH <= w.kH / 2 && w.pW <= w.kW / 2, "{}: pad should be at most half of kernel size, but got {}", op,
              two ? fmt::format("padH = {}, padW = {}, kH = {}, kW = {}", w.pH, w.pW, w.kH, w.kW)
                  : fmt::format("pad = {} and kernel_size = {}", w.pW, w.kW));
  PoolGeometry g;
  g.H = planes.size(1);
  g.W = planes.size(2);
  g.kH = w.kH, g.kW = w.kW, g.sH = w.sH, g.sW = w.sW, g.pH = w.pH, g.pW = w.pW, g.dH = w.dH, g.dW = w.dW;
  g.OH = pooled_size(g.H, g.kH, g.sH, g.pH, g.dH, ceil_mode);
  g.OW = pooled_size(g.W, g.kW, g.sW, g.pW, g.dW, ceil_mode);
  EMBER_CHECK(g.OH >= 1 && g.OW >= 1,
              "{}: input of shape {} is too small: the output would have {} (kernel_size {}, stride {}, padding {}, "
              "dilation {})",
              op, input_shape, two ? fmt::format("[{}, {}]", g.OH, g.OW) : fmt::format("[{}]", g.OW),
              two ? fmt::format("[{}, {}]", g.kH, g.kW) : fmt::format("{}", g.kW),
              two ? fmt::format("[{}, {}]", g.sH, g.sW) : fmt::format("{}", g.sW),
              two ? fmt::format("[{}, {}]", g.pH, g.pW) : fmt::format("{}", g.pW),
              two ? fmt::format("[{}, {}]", g.dH, g.dW) : fmt::format("{}", g.dW));
  return g;
}

template <size_t D>
std::tuple<Tensor, Tensor> max_pool(const Tensor& input, const MaxPoolOptions<D>& o, const char* op) {
  Planes p = as_planes(input, D, op);
  const auto& k = o.kernel_size();
  const auto& s = o.stride();
  const auto& pad = o.padding();
  const auto& d = o.dilation();
  const Window2d w = D == 1 ? Window2d{1, k[0], 1, s[0], 0, pad[0], 1, d[0]}
                            : Window2d{k[0], k[D - 1], s[0], s[D - 1], pad[0], pad[D - 1], d[0], d[D - 1]};
  auto [out, indices] = max_pool_planes(p.x, windowed(op, p.x, w, o.ceil_mode(), D, input.sizes()));
  return {from_planes(out, p.leading, D), from_planes(indices, p.leading, D)};
}

template <size_t D>
Tensor avg_pool(const Tensor& input, const AvgPoolOptions<D>& o, const char* op) {
  Planes p = as_planes(input, D, op);
  const auto& k = o.kernel_size();
  const auto& s = o.stride();
  const auto& pad = o.padding();
  const Window2d w = D == 1 ? Window2d{1, k[0], 1, s[0], 0, pad[0], 1, 1}
                            : Window2d{k[0], k[D - 1], s[0], s[D - 1], pad[0], pad[D - 1], 1, 1};
  PoolGeometry g = windowed(op, p.x, w, o.ceil_mode(), D, input.sizes());
  if (o.divisor_override()) {
    EMBER_CHECK(*o.divisor_override() != 0, "{}: divisor must be not zero", op);
    g.divisor_override = *o.divisor_override();
  }
  g.count_include_pad = o.count_include_pad();
  return from_planes(avg_pool_planes(p.x, g), p.leading, D);
}

PoolGeometry adaptive(const char* op, const Tensor& planes, const ExpandingArray<2>& output_size) {
  EMBER_CHECK(output_size[0] >= 0 && output_size[1] >= 0, "{}: output_size must be non-negative, but got {}", op,
              IntArrayRef(output_size));
  PoolGeometry g;
  g.H = planes.size(1);
  g.W = planes.size(2);
  g.OH = output_size[0];
  g.OW = output_size[1];
  g.adaptive = true;
  return g;
}

}  // namespace

namespace functional {

std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input, const MaxPool1dFuncOptions& options) {
  EMBER_TRACE_OP();
  return max_pool(input, options, "max_pool1d");
}
Tensor max_pool1d(const Tensor& input, const MaxPool1dFuncOptions& options) {
  EMBER_TRACE_OP();
  return std::get<0>(max_pool(input, options, "max_pool1d"));
}
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, const MaxPool2dFuncOptions& options) {
  EMBER_TRACE_OP();
  return max_pool(input, options, "max_pool2d");
}
Tensor max_pool2d(const Tensor& input, const MaxPool2dFuncOptions& options) {
  EMBER_TRACE_OP();
  return std::get<0>(max_pool(input, options, "max_pool2d"));
}
Tensor avg_pool1d(const Tensor& input, const AvgPool1dFuncOptions& options) {
  EMBER_TRACE_OP();
  return avg_pool(input, options, "avg_pool1d");
}
Tensor avg_pool2d(const Tensor& input, const AvgPool2dFuncOptions& options) {
  EMBER_TRACE_OP();
  return avg_pool(input, options, "avg_pool2d");
}

Tensor adaptive_avg_pool2d(const Tensor& input, const AdaptiveAvgPool2dFuncOptions& options) {
  EMBER_TRACE_OP();
  Planes p = as_planes(input, 2, "adaptive_avg_pool2d");
  return from_planes(avg_pool_planes(p.x, adaptive("adaptive_avg_pool2d", p.x, options.output_size())), p.leading, 2);
}

std::tuple<Tensor, Tensor> adaptive_max_pool2d_with_indices(const Tensor& input,
                                                            const AdaptiveMaxPool2dFuncOptions& options) {
  EMBER_TRACE_OP();
  Planes p = as_planes(input, 2, "adaptive_max_pool2d");
  auto [out, indices] = max_pool_planes(p.x, adaptive("adaptive_max_pool2d", p.x, options.output_size()));
  return {from_planes(out, p.leading, 2), from_planes(indices, p.leading, 2)};
}
Tensor adaptive_max_pool2d(const Tensor& input, const AdaptiveMaxPool2dFuncOptions& options) {
  EMBER_TRACE_OP();
  return std::get<0>(adaptive_max_pool2d_with_indices(input, options));
}

}  // namespace functional

// ---- modules ----

Tensor MaxPool1dImpl::forward(const Tensor& input) { return functional::max_pool1d(input, options); }
Tensor MaxPool2dImpl::forward(const Tensor& input) { return functional::max_pool2d(input, options); }
Tensor AdaptiveMaxPool2dImpl::forward(const Tensor& input) { return functional::adaptive_max_pool2d(input, options); }
Tensor AvgPool1dImpl::forward(const Tensor& input) { return functional::avg_pool1d(input, options); }
Tensor AvgPool2dImpl::forward(const Tensor& input) { return functional::avg_pool2d(input, options); }
Tensor AdaptiveAvgPool2dImpl::forward(const Tensor& input) { return functional::adaptive_avg_pool2d(input, options); }

std::tuple<Tensor, Tensor> MaxPool1dImpl::forward_with_indices(const Tensor& input) {
  return functional::max_pool1d_with_indices(input, options);
}
std::tuple<Tensor, Tensor> MaxPool2dImpl::forward_with_indices(const Tensor& input) {
  return functional::max_pool2d_with_indices(input, options);
}
std::tuple<Tensor, Tensor> AdaptiveMaxPool2dImpl::forward_with_indices(const Tensor& input) {
  return functional::adaptive_max_pool2d_with_indices(input, options);
}

// libtorch's printouts: "MaxPool2d(kernel_size=[3, 3], stride=[2, 2], padding=[1, 1], dilation=[1, 1],
// ceil_mode=false)", "AvgPool1d(kernel_size=2, stride=2, padding=0)", "AdaptiveAvgPool2d(output_size=[1, 1])".
template <size_t D>
void print_max_pool(std::ostream& stream, const char* name, const MaxPoolOptions<D>& o) {
  stream << std::boolalpha << name << "(kernel_size=" << o.kernel_size() << ", stride=" << o.stride()
         << ", padding=" << o.padding() << ", dilation=" << o.dilation() << ", ceil_mode=" << o.ceil_mode() << ")";
}
template <size_t D>
void print_avg_pool(std::ostream& stream, const char* name, const AvgPoolOptions<D>& o) {
  stream << name << "(kernel_size=" << o.kernel_size() << ", stride=" << o.stride() << ", padding=" << o.padding()
         << ")";
}
void MaxPool1dImpl::pretty_print(std::ostream& stream) const { print_max_pool(stream, "MaxPool1d", options); }
void MaxPool2dImpl::pretty_print(std::ostream& stream) const { print_max_pool(stream, "MaxPool2d", options); }
void AvgPool1dImpl::pretty_print(std::ostream& stream) const { print_avg_pool(stream, "AvgPool1d", options); }
void AvgPool2dImpl::pretty_print(std::ostream& stream) const { print_avg_pool(stream, "AvgPool2d", options); }
void AdaptiveMaxPool2dImpl::pretty_print(std::ostream& stream) const {
  stream << "AdaptiveMaxPool2d(output_size=" << options.output_size() << ")";
}
void AdaptiveAvgPool2dImpl::pretty_print(std::ostream& stream) const {
  stream << "AdaptiveAvgPool2d(output_size=" << options.output_size() << ")";
}

}  // namespace ember::nn
