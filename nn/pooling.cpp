// Pooling: PyTorch's checks and output sizes, then the plane kernels of autograd/pool.h.
//
// Every form is reshaped to (P, H, W) planes, P = N * C (or C without a batch): 1-d pooling is a
// plane of height 1 with a 1-wide, stride-1 kernel over it; 3-d pooling pools the (H, W) planes of
// each depth slice, then (1, D) rows along the depth.
#include "nn/pooling.h"

#include <array>
#include <vector>

#include <fmt/format.h>

#include "autograd/pool.h"
#include "core/random.h"
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

// ---- adaptive 1-d, and 3-d pooling as a 2-d pooling of each depth slice, then a 1-d one along the depth ----

// The geometry of an adaptive pooling of (P, 1, L) rows to `out`.
PoolGeometry adaptive_1d(const char* op, int64_t L, int64_t out) {
  EMBER_CHECK(out >= 0, "{}: output_size must be non-negative, but got {}", op, out);
  PoolGeometry g;
  g.W = L;
  g.OW = out;
  g.adaptive = true;
  return g;
}

// input (N, C, D, H, W) or (C, D, H, W) -> (P, D, H, W) and the leading sizes.
Planes as_volumes(const Tensor& input, const char* op) {
  const int64_t dim = input.dim();
  EMBER_CHECK(dim == 4 || dim == 5, "{}: expected a 4-d (C, D, H, W) or 5-d (N, C, D, H, W) input, but got shape {}",
              op, input.sizes());
  for (int64_t i = 1; i < dim; ++i)
    EMBER_CHECK(input.size(i) > 0, "{}: expected an input with non-zero sizes except the batch dim, but got shape {}",
                op, input.sizes());
  EMBER_CHECK(input.is_floating_point(), "{}: expected a floating-point input, but got {}", op,
              dtype_name(input.dtype()));
  std::vector<int64_t> leading(input.sizes().begin(), input.sizes().end() - 3);
  int64_t P = 1;
  for (int64_t s : leading) P *= s;
  return {input.reshape({P, input.size(dim - 3), input.size(dim - 2), input.size(dim - 1)}), leading};
}

Tensor from_volumes(const Tensor& out, const std::vector<int64_t>& leading) {
  std::vector<int64_t> sizes = leading;
  for (int64_t d = 1; d < 4; ++d) sizes.push_back(out.size(d));
  return out.reshape(sizes);
}

// The two stages of a 3-d pooling: `hw` pools each depth slice (H, W) -> (OH, OW), `depth` pools each
// (1, D) row -> (1, OD).
struct Geometry3d {
  PoolGeometry hw, depth;
};

// PyTorch's checks of a 3-d windowed pooling (pool3d_shape_check) and the output sizes.
Geometry3d windowed_3d(const char* op, const Tensor& volumes, const ExpandingArray<3>& k, const ExpandingArray<3>& s,
                       const ExpandingArray<3>& p, const ExpandingArray<3>& d, bool ceil_mode,
                       IntArrayRef input_shape) {
  for (int i = 0; i < 3; ++i) {
    EMBER_CHECK(k[i] > 0, "{}: kernel size should be greater than zero, but got kernel_size={}", op, *k);
    EMBER_CHECK(s[i] > 0, "{}: stride should be greater than zero, but got stride={}", op, *s);
    EMBER_CHECK(d[i] > 0, "{}: dilation should be greater than zero, but got dilation={}", op, *d);
    EMBER_CHECK(p[i] >= 0 && p[i] <= k[i] / 2,
                "{}: pad should be non-negative and at most half of kernel size, but got padding={} and "
                "kernel_size={}",
                op, *p, *k);
  }
  int64_t out[3];
  for (int i = 0; i < 3; ++i) out[i] = pooled_size(volumes.size(1 + i), k[i], s[i], p[i], d[i], ceil_mode);
  EMBER_CHECK(out[0] >= 1 && out[1] >= 1 && out[2] >= 1,
              "{}: input of shape {} is too small: the output would have [{}, {}, {}] (kernel_size {}, stride {}, "
              "padding {}, dilation {})",
              op, input_shape, out[0], out[1], out[2], *k, *s, *p, *d);
  Geometry3d g;
  g.hw.H = volumes.size(2), g.hw.W = volumes.size(3), g.hw.OH = out[1], g.hw.OW = out[2];
  g.hw.kH = k[1], g.hw.kW = k[2], g.hw.sH = s[1], g.hw.sW = s[2], g.hw.pH = p[1], g.hw.pW = p[2];
  g.hw.dH = d[1], g.hw.dW = d[2];
  g.depth.W = volumes.size(1), g.depth.OW = out[0];
  g.depth.kW = k[0], g.depth.sW = s[0], g.depth.pW = p[0], g.depth.dW = d[0];
  return g;
}

Geometry3d adaptive_3d(const char* op, const Tensor& volumes, const ExpandingArray<3>& output_size) {
  EMBER_CHECK(output_size[0] >= 0 && output_size[1] >= 0 && output_size[2] >= 0,
              "{}: output_size must be non-negative, but got {}", op, IntArrayRef(output_size));
  Geometry3d g;
  g.hw = adaptive(op, volumes.reshape({-1, volumes.size(2), volumes.size(3)}), {output_size[1], output_size[2]});
  g.depth = adaptive_1d(op, volumes.size(1), output_size[0]);
  return g;
}

// (P, D, OH, OW) slice results -> (P*OH*OW, 1, D) rows along the depth, and (P*OH*OW, 1, OD) back to
// (P, OD, OH, OW).
Tensor depth_rows(const Tensor& slices, int64_t P, int64_t D, int64_t OH, int64_t OW) {
  return slices.view({P, D, OH, OW}).permute({0, 2, 3, 1}).reshape({P * OH * OW, 1, D});
}
Tensor from_depth_rows(const Tensor& rows, int64_t P, int64_t OH, int64_t OW) {
  return rows.view({P, OH, OW, rows.size(2)}).permute({0, 3, 1, 2}).contiguous();
}

// volumes (P, D, H, W) -> max (P, OD, OH, OW) and its index (d * H + h) * W + w. The first maximum in
// (d, h, w) order wins, as PyTorch's: the first of each slice's window, then the first slice among them.
std::tuple<Tensor, Tensor> max_pool_volumes(const Tensor& volumes, const Geometry3d& g) {
  const int64_t P = volumes.size(0), D = volumes.size(1), H = volumes.size(2), W = volumes.size(3);
  const int64_t OH = g.hw.OH, OW = g.hw.OW;
  auto [slice_max, slice_at] = max_pool_planes(volumes.reshape({P * D, H, W}), g.hw);    // (P*D, OH, OW)
  auto [max, depth_at] = max_pool_planes(depth_rows(slice_max, P, D, OH, OW), g.depth);  // (P*OH*OW, 1, OD)
  Tensor d = from_depth_rows(depth_at, P, OH, OW);                                       // (P, OD, OH, OW)
  Tensor index = d * (H * W) + slice_at.view({P, D, OH, OW}).gather(1, d);
  return {from_depth_rows(max, P, OH, OW), index};
}

// volumes (P, D, H, W) -> averages (P, OD, OH, OW); divisor_override (not 0) divides the window sums.
Tensor avg_pool_volumes(const Tensor& volumes, Geometry3d g, std::optional<int64_t> divisor_override) {
  const int64_t P = volumes.size(0), D = volumes.size(1), H = volumes.size(2), W = volumes.size(3);
  if (divisor_override) g.hw.divisor_override = g.depth.divisor_override = 1;  // sums
  Tensor slices = avg_pool_planes(volumes.reshape({P * D, H, W}), g.hw);
  Tensor out =
      from_depth_rows(avg_pool_planes(depth_rows(slices, P, D, g.hw.OH, g.hw.OW), g.depth), P, g.hw.OH, g.hw.OW);
  return divisor_override ? out / static_cast<double>(*divisor_override) : out;
}

// PyTorch's lp_pool: (sign(a) * relu(|a|)) * window size, to the power 1/p, a = avg_pool(x^p).
Tensor lp_from_average(const Tensor& average, double norm_type, int64_t window) {
  return (average.sign() * average.abs().relu()).mul(static_cast<double>(window)).pow(1.0 / norm_type);
}

// PyTorch's max_unpool: checks, the output size, then each plane's values added at their indices.
template <size_t D>
Tensor max_unpool(const char* op, const Tensor& input, const Tensor& indices,
                  const functional::MaxUnpoolFuncOptions<D>& o) {
  const int64_t dims = static_cast<int64_t>(D);
  EMBER_CHECK(input.dim() == dims + 1 || input.dim() == dims + 2,
              "{}: expected a {}-d (C, *spatial) or {}-d (N, C, *spatial) input, but got shape {}", op, dims + 1,
              dims + 2, input.sizes());
  EMBER_CHECK(input.is_floating_point(), "{}: expected a floating-point input, but got {}", op,
              dtype_name(input.dtype()));
  EMBER_CHECK(indices.dtype() == kInt64 && indices.sizes() == input.sizes(),
              "{}: expected int64 indices of the input's shape {}, but got {} indices of shape {}", op, input.sizes(),
              dtype_name(indices.dtype()), indices.sizes());
  const auto& k = o.kernel_size();
  const auto& s = o.stride();
  const auto& p = o.padding();
  const int64_t spatial_at = input.dim() - dims;
  std::vector<int64_t> out(D);
  for (size_t d = 0; d < D; ++d) {
    EMBER_CHECK(k[d] > 0 && s[d] > 0 && p[d] >= 0,
                "{}: kernel_size and stride must be positive and padding non-negative, but got kernel_size={}, "
                "stride={}, padding={}",
                op, *k, *s, *p);
    out[d] = (input.size(spatial_at + static_cast<int64_t>(d)) - 1) * s[d] + k[d] - 2 * p[d];
  }
  if (o.output_size()) {
    std::vector<int64_t> given = *o.output_size();
    if (given.size() == D + 2) given.erase(given.begin(), given.begin() + 2);
    EMBER_CHECK(given.size() == D,
                "{}: output_size should be a sequence containing {} or {} elements, but it has a length of '{}'", op, D,
                D + 2, o.output_size()->size());
    for (size_t d = 0; d < D; ++d)
      EMBER_CHECK(given[d] >= out[d] - s[d] && given[d] <= out[d] + s[d],
                  "{}: invalid output_size {} (dim {} must be between {} and {})", op, IntArrayRef(given), d,
                  out[d] - s[d], out[d] + s[d]);
    out = given;
  }
  int64_t plane = 1;
  for (int64_t size : out) {
    EMBER_CHECK(size > 0, "{}: the output size {} of input of shape {} must be positive", op, IntArrayRef(out),
                input.sizes());
    plane *= size;
  }
  std::vector<int64_t> leading(input.sizes().begin(), input.sizes().begin() + spatial_at);
  int64_t P = 1;
  for (int64_t size : leading) P *= size;
  Tensor flat_indices = indices.reshape({P, -1});
  // On the host: the range check, and which entries an index given twice (overlapping windows) keeps:
  // the last, as PyTorch's loop writes them in order.
  Tensor host = flat_indices.to(kCPU).contiguous();
  const int64_t* at = host.data_ptr<int64_t>();
  const int64_t per_plane = flat_indices.size(1);
  std::vector<double> kept(static_cast<size_t>(host.numel()), 1.0);
  bool repeated = false;
  std::vector<int64_t> last(static_cast<size_t>(plane));
  for (int64_t p = 0; p < P; ++p) {
    std::fill(last.begin(), last.end(), -1);
    for (int64_t j = 0; j < per_plane; ++j) {
      const int64_t index = at[p * per_plane + j];
      EMBER_CHECK(index >= 0 && index < plane, "{}: Found an invalid max index: {} (output volumes are of size {})", op,
                  index, fmt::format("{}", fmt::join(out, "x")));
      if (last[index] >= 0) {
        kept[static_cast<size_t>(p * per_plane + last[index])] = 0.0;
        repeated = true;
      }
      last[index] = j;
    }
  }
  const TensorOptions like = TensorOptions(input.dtype()).device(input.device());
  Tensor values = input.reshape({P, -1});
  Tensor y;
  if (!repeated) {
    y = zeros({P, plane}, like).scatter_add(1, flat_indices, values);
  } else {
    // The kept entries written; the others add (x - x) = 0 but still get the output gradient at their
    // index, as PyTorch's backward gathers it for every entry.
    Tensor keep = from_vector(kept, {P, per_plane}, dtype(kFloat64)).to(input.device()).to(input.dtype());
    Tensor dropped = values * (1.0 - keep);
    Tensor scattered_dropped = zeros({P, plane}, like).scatter_add(1, flat_indices, dropped);
    y = zeros({P, plane}, like).scatter_add(1, flat_indices, values * keep) +
        (scattered_dropped - scattered_dropped.detach());
  }
  std::vector<int64_t> sizes = leading;
  sizes.insert(sizes.end(), out.begin(), out.end());
  return y.reshape(sizes);
}

// ---- fractional max pooling ----

// PyTorch's generate_intervals, in the input's dtype T: the start of each of `out` windows of `pool`
// along a dim of `size`, from one sample u in [0, 1): floor((i + u) a) - floor(u a), a = (size - pool) /
// (out - 1), the last one at size - pool.
template <typename T>
std::vector<int64_t> fractional_starts(T sample, int64_t size, int64_t out, int64_t pool) {
  std::vector<int64_t> starts(static_cast<size_t>(out));
  if (out > 1) {
    const T alpha = static_cast<T>(size - pool) / static_cast<T>(out - 1);
    for (int64_t i = 0; i < out - 1; ++i)
      starts[i] = static_cast<int64_t>((static_cast<T>(i) + sample) * alpha) - static_cast<int64_t>(sample * alpha);
  }
  if (out > 0) starts[out - 1] = size - pool;
  return starts;
}

// input (N, C, *spatial) or (C, *spatial) with D spatial dims -> the max and its index of each window.
template <size_t D>
std::tuple<Tensor, Tensor> fractional_max_pool(const char* op, const Tensor& input,
                                               const FractionalMaxPoolOptions<D>& o) {
  const int64_t dims = static_cast<int64_t>(D);
  EMBER_CHECK(input.dim() == dims + 1 || input.dim() == dims + 2,
              "{}: expected a {}-d (C, *spatial) or {}-d (N, C, *spatial) input, but got shape {}", op, dims + 1,
              dims + 2, input.sizes());
  for (int64_t i = 1; i < input.dim(); ++i)
    EMBER_CHECK(input.size(i) > 0, "{}: expected an input with non-zero sizes except the batch dim, but got shape {}",
                op, input.sizes());
  EMBER_CHECK(input.is_floating_point(), "{}: expected a floating-point input, but got {}", op,
              dtype_name(input.dtype()));
  EMBER_CHECK(o.output_size() || o.output_ratio(), "{} requires specifying either an output_size or an output_ratio",
              op);
  const int64_t spatial_at = input.dim() - dims;
  const auto& k = o.kernel_size();
  std::array<int64_t, D> in{}, out{};
  for (size_t d = 0; d < D; ++d) {
    in[d] = input.size(spatial_at + static_cast<int64_t>(d));
    out[d] = o.output_size() ? (*o.output_size())[d]
                             : static_cast<int64_t>(static_cast<double>(in[d]) * (*o.output_ratio())[d]);
  }
  for (size_t d = 0; d < D; ++d) {
    EMBER_CHECK(k[d] > 0 && out[d] > 0, "{}: kernel_size and output size must be positive, but got {} and {}", op, *k,
                IntArrayRef(out.data(), D));
    EMBER_CHECK(out[d] + k[d] - 1 <= in[d],
                "{}: pool size {} too large relative to input size {} for output size {} (input of shape {})", op, *k,
                IntArrayRef(in.data(), D), IntArrayRef(out.data(), D), input.sizes());
  }
  const int64_t N = input.dim() == dims + 2 ? input.size(0) : 1, C = input.size(spatial_at - 1);
  Tensor samples = o._random_samples();
  if (!samples.defined()) samples = rand({N, C, dims}, TensorOptions(input.dtype()).device(input.device()));
  EMBER_CHECK(samples.dim() == 3 && samples.size(0) == N && samples.size(1) == C && samples.size(2) == dims,
              "{}: expect _random_samples to be of shape [{}, {}, {}], but got {}", op, N, C, dims, samples.sizes());
  // Each window's plane positions, in (window, kernel offset) order, the offsets row-major (PyTorch's scan).
  const int64_t P = N * C;
  int64_t windows = 1, taps = 1, plane = 1;
  for (size_t d = 0; d < D; ++d) windows *= out[d], taps *= k[d], plane *= in[d];
  // 2-d samples are (width, height); 3-d ones (depth, height, width).
  const auto sample_of = [](size_t d) -> size_t { return D == 2 ? 1 - d : d; };
  std::vector<int64_t> positions(static_cast<size_t>(P * windows * taps));
  Tensor host = samples.to(kCPU).to(kFloat64).contiguous();
  const double* u = host.data_ptr<double>();
  for (int64_t p = 0; p < P; ++p) {
    std::array<std::vector<int64_t>, D> starts;
    for (size_t d = 0; d < D; ++d) {
      const double sample = u[p * dims + static_cast<int64_t>(sample_of(d))];
      starts[d] = input.dtype() == kFloat64 ? fractional_starts<double>(sample, in[d], out[d], k[d])
                                            : fractional_starts<float>(static_cast<float>(sample), in[d], out[d], k[d]);
    }
    int64_t* at = positions.data() + p * windows * taps;
    for (int64_t w = 0; w < windows; ++w)
      for (int64_t t = 0; t < taps; ++t) {
        int64_t index = 0, wr = w, tr = t;
        std::array<int64_t, D> coord{};
        for (size_t d = D; d-- > 0;) {
          coord[d] = starts[d][wr % out[d]] + tr % k[d];
          wr /= out[d];
          tr /= k[d];
        }
        for (size_t d = 0; d < D; ++d) index = index * in[d] + coord[d];
        *at++ = index;
      }
  }
  Tensor index = from_vector(positions, {P, windows * taps}, dtype(kInt64)).to(input.device());
  Tensor values = input.reshape({P, plane}).gather(1, index).view({P, windows, taps});
  auto [max, tap] = values.max(2);                                                    // (P, windows)
  Tensor at = index.view({P, windows, taps}).gather(2, tap.unsqueeze(2)).squeeze(2);  // plane positions
  std::vector<int64_t> sizes(input.sizes().begin(), input.sizes().begin() + spatial_at);
  sizes.insert(sizes.end(), out.begin(), out.end());
  return {max.reshape(sizes), at.reshape(sizes)};
}

}  // namespace

namespace functional {

std::tuple<Tensor, Tensor> fractional_max_pool2d_with_indices(const Tensor& input,
                                                              const FractionalMaxPool2dFuncOptions& options) {
  EMBER_TRACE_OP();
  return fractional_max_pool<2>("fractional_max_pool2d", input, options);
}
Tensor fractional_max_pool2d(const Tensor& input, const FractionalMaxPool2dFuncOptions& options) {
  EMBER_TRACE_OP();
  return std::get<0>(fractional_max_pool<2>("fractional_max_pool2d", input, options));
}
std::tuple<Tensor, Tensor> fractional_max_pool3d_with_indices(const Tensor& input,
                                                              const FractionalMaxPool3dFuncOptions& options) {
  EMBER_TRACE_OP();
  return fractional_max_pool<3>("fractional_max_pool3d", input, options);
}
Tensor fractional_max_pool3d(const Tensor& input, const FractionalMaxPool3dFuncOptions& options) {
  EMBER_TRACE_OP();
  return std::get<0>(fractional_max_pool<3>("fractional_max_pool3d", input, options));
}

Tensor max_unpool1d(const Tensor& input, const Tensor& indices, const MaxUnpool1dFuncOptions& options) {
  EMBER_TRACE_OP();
  return max_unpool<1>("max_unpool1d", input, indices, options);
}
Tensor max_unpool2d(const Tensor& input, const Tensor& indices, const MaxUnpool2dFuncOptions& options) {
  EMBER_TRACE_OP();
  return max_unpool<2>("max_unpool2d", input, indices, options);
}
Tensor max_unpool3d(const Tensor& input, const Tensor& indices, const MaxUnpool3dFuncOptions& options) {
  EMBER_TRACE_OP();
  return max_unpool<3>("max_unpool3d", input, indices, options);
}

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
  return from_planes(
      avg_pool_planes(p.x, adaptive("adaptive_avg_pool2d", p.x, options.output_size().value_or(input.sizes()))),
      p.leading, 2);
}

std::tuple<Tensor, Tensor> adaptive_max_pool2d_with_indices(const Tensor& input,
                                                            const AdaptiveMaxPool2dFuncOptions& options) {
  EMBER_TRACE_OP();
  Planes p = as_planes(input, 2, "adaptive_max_pool2d");
  auto [out, indices] =
      max_pool_planes(p.x, adaptive("adaptive_max_pool2d", p.x, options.output_size().value_or(input.sizes())));
  return {from_planes(out, p.leading, 2), from_planes(indices, p.leading, 2)};
}
Tensor adaptive_max_pool2d(const Tensor& input, const AdaptiveMaxPool2dFuncOptions& options) {
  EMBER_TRACE_OP();
  return std::get<0>(adaptive_max_pool2d_with_indices(input, options));
}

Tensor adaptive_avg_pool1d(const Tensor& input, const AdaptiveAvgPool1dFuncOptions& options) {
  EMBER_TRACE_OP();
  Planes p = as_planes(input, 1, "adaptive_avg_pool1d");
  return from_planes(avg_pool_planes(p.x, adaptive_1d("adaptive_avg_pool1d", p.x.size(2), options.output_size()[0])),
                     p.leading, 1);
}

std::tuple<Tensor, Tensor> adaptive_max_pool1d_with_indices(const Tensor& input,
                                                            const AdaptiveMaxPool1dFuncOptions& options) {
  EMBER_TRACE_OP();
  Planes p = as_planes(input, 1, "adaptive_max_pool1d");
  auto [out, indices] = max_pool_planes(p.x, adaptive_1d("adaptive_max_pool1d", p.x.size(2), options.output_size()[0]));
  return {from_planes(out, p.leading, 1), from_planes(indices, p.leading, 1)};
}
Tensor adaptive_max_pool1d(const Tensor& input, const AdaptiveMaxPool1dFuncOptions& options) {
  EMBER_TRACE_OP();
  return std::get<0>(adaptive_max_pool1d_with_indices(input, options));
}

std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& input, const MaxPool3dFuncOptions& options) {
  EMBER_TRACE_OP();
  const char* op = "max_pool3d";
  Planes v = as_volumes(input, op);
  auto [out, indices] =
      max_pool_volumes(v.x, windowed_3d(op, v.x, options.kernel_size(), options.stride(), options.padding(),
                                        options.dilation(), options.ceil_mode(), input.sizes()));
  return {from_volumes(out, v.leading), from_volumes(indices, v.leading)};
}
Tensor max_pool3d(const Tensor& input, const MaxPool3dFuncOptions& options) {
  EMBER_TRACE_OP();
  return std::get<0>(max_pool3d_with_indices(input, options));
}

Tensor avg_pool3d(const Tensor& input, const AvgPool3dFuncOptions& options) {
  EMBER_TRACE_OP();
  const char* op = "avg_pool3d";
  Planes v = as_volumes(input, op);
  Geometry3d g = windowed_3d(op, v.x, options.kernel_size(), options.stride(), options.padding(), ExpandingArray<3>(1),
                             options.ceil_mode(), input.sizes());
  EMBER_CHECK(!options.divisor_override() || *options.divisor_override() != 0, "{}: divisor must be not zero", op);
  g.hw.count_include_pad = g.depth.count_include_pad = options.count_include_pad();
  return from_volumes(avg_pool_volumes(v.x, g, options.divisor_override()), v.leading);
}

Tensor adaptive_avg_pool3d(const Tensor& input, const AdaptiveAvgPool3dFuncOptions& options) {
  EMBER_TRACE_OP();
  const char* op = "adaptive_avg_pool3d";
  Planes v = as_volumes(input, op);
  return from_volumes(
      avg_pool_volumes(v.x, adaptive_3d(op, v.x, options.output_size().value_or(input.sizes())), std::nullopt),
      v.leading);
}

std::tuple<Tensor, Tensor> adaptive_max_pool3d_with_indices(const Tensor& input,
                                                            const AdaptiveMaxPool3dFuncOptions& options) {
  EMBER_TRACE_OP();
  const char* op = "adaptive_max_pool3d";
  Planes v = as_volumes(input, op);
  auto [out, indices] = max_pool_volumes(v.x, adaptive_3d(op, v.x, options.output_size().value_or(input.sizes())));
  return {from_volumes(out, v.leading), from_volumes(indices, v.leading)};
}
Tensor adaptive_max_pool3d(const Tensor& input, const AdaptiveMaxPool3dFuncOptions& options) {
  EMBER_TRACE_OP();
  return std::get<0>(adaptive_max_pool3d_with_indices(input, options));
}

Tensor lp_pool1d(const Tensor& input, const LPPool1dFuncOptions& options) {
  EMBER_TRACE_OP();
  Tensor average = avg_pool(
      input.pow(options.norm_type()),
      AvgPool1dOptions(options.kernel_size()).stride(options.stride()).ceil_mode(options.ceil_mode()), "lp_pool1d");
  return lp_from_average(average, options.norm_type(), options.kernel_size()[0]);
}

Tensor lp_pool2d(const Tensor& input, const LPPool2dFuncOptions& options) {
  EMBER_TRACE_OP();
  Tensor average = avg_pool(
      input.pow(options.norm_type()),
      AvgPool2dOptions(options.kernel_size()).stride(options.stride()).ceil_mode(options.ceil_mode()), "lp_pool2d");
  return lp_from_average(average, options.norm_type(), options.kernel_size()[0] * options.kernel_size()[1]);
}

}  // namespace functional

// ---- modules ----

Tensor MaxPool1dImpl::forward(const Tensor& input) { return functional::max_pool1d(input, options); }
Tensor MaxPool2dImpl::forward(const Tensor& input) { return functional::max_pool2d(input, options); }
Tensor AdaptiveMaxPool2dImpl::forward(const Tensor& input) { return functional::adaptive_max_pool2d(input, options); }
Tensor AvgPool1dImpl::forward(const Tensor& input) { return functional::avg_pool1d(input, options); }
Tensor AvgPool2dImpl::forward(const Tensor& input) { return functional::avg_pool2d(input, options); }
Tensor AdaptiveAvgPool2dImpl::forward(const Tensor& input) { return functional::adaptive_avg_pool2d(input, options); }

Tensor MaxPool3dImpl::forward(const Tensor& input) { return functional::max_pool3d(input, options); }
Tensor AvgPool3dImpl::forward(const Tensor& input) { return functional::avg_pool3d(input, options); }
Tensor AdaptiveMaxPool1dImpl::forward(const Tensor& input) { return functional::adaptive_max_pool1d(input, options); }
Tensor AdaptiveMaxPool3dImpl::forward(const Tensor& input) { return functional::adaptive_max_pool3d(input, options); }
Tensor AdaptiveAvgPool1dImpl::forward(const Tensor& input) { return functional::adaptive_avg_pool1d(input, options); }
Tensor AdaptiveAvgPool3dImpl::forward(const Tensor& input) { return functional::adaptive_avg_pool3d(input, options); }
Tensor LPPool1dImpl::forward(const Tensor& input) { return functional::lp_pool1d(input, options); }
Tensor LPPool2dImpl::forward(const Tensor& input) { return functional::lp_pool2d(input, options); }

std::tuple<Tensor, Tensor> MaxPool3dImpl::forward_with_indices(const Tensor& input) {
  return functional::max_pool3d_with_indices(input, options);
}
std::tuple<Tensor, Tensor> AdaptiveMaxPool1dImpl::forward_with_indices(const Tensor& input) {
  return functional::adaptive_max_pool1d_with_indices(input, options);
}
std::tuple<Tensor, Tensor> AdaptiveMaxPool3dImpl::forward_with_indices(const Tensor& input) {
  return functional::adaptive_max_pool3d_with_indices(input, options);
}
std::tuple<Tensor, Tensor> MaxPool1dImpl::forward_with_indices(const Tensor& input) {
  return functional::max_pool1d_with_indices(input, options);
}
std::tuple<Tensor, Tensor> MaxPool2dImpl::forward_with_indices(const Tensor& input) {
  return functional::max_pool2d_with_indices(input, options);
}
std::tuple<Tensor, Tensor> AdaptiveMaxPool2dImpl::forward_with_indices(const Tensor& input) {
  return functional::adaptive_max_pool2d_with_indices(input, options);
}

// libtorch's reset(): one of output_size and output_ratio, the ratio in (0, 1).
template <size_t D>
void check_fractional_options(const char* layer, const FractionalMaxPoolOptions<D>& o) {
  EMBER_CHECK(o.output_size() || o.output_ratio(), "{} requires specifying either an output size, or a pooling ratio",
              layer);
  EMBER_CHECK(!(o.output_size() && o.output_ratio()), "{}: only one of output_size and output_ratio may be specified",
              layer);
  if (o.output_ratio())
    for (size_t d = 0; d < D; ++d)
      EMBER_CHECK((*o.output_ratio())[d] > 0 && (*o.output_ratio())[d] < 1,
                  "{}: output_ratio must be between 0 and 1 (got {})", layer, fmt::join(*(*o.output_ratio()), ", "));
}

FractionalMaxPool2dImpl::FractionalMaxPool2dImpl(const FractionalMaxPool2dOptions& options_) : options(options_) {
  check_fractional_options("FractionalMaxPool2d", options);
}
FractionalMaxPool3dImpl::FractionalMaxPool3dImpl(const FractionalMaxPool3dOptions& options_) : options(options_) {
  check_fractional_options("FractionalMaxPool3d", options);
}
Tensor FractionalMaxPool2dImpl::forward(const Tensor& input) {
  return functional::fractional_max_pool2d(input, options);
}
Tensor FractionalMaxPool3dImpl::forward(const Tensor& input) {
  return functional::fractional_max_pool3d(input, options);
}
std::tuple<Tensor, Tensor> FractionalMaxPool2dImpl::forward_with_indices(const Tensor& input) {
  return functional::fractional_max_pool2d_with_indices(input, options);
}
std::tuple<Tensor, Tensor> FractionalMaxPool3dImpl::forward_with_indices(const Tensor& input) {
  return functional::fractional_max_pool3d_with_indices(input, options);
}
void FractionalMaxPool2dImpl::pretty_print(std::ostream& stream) const { stream << "FractionalMaxPool2d()"; }
void FractionalMaxPool3dImpl::pretty_print(std::ostream& stream) const { stream << "FractionalMaxPool3d()"; }

template <size_t D>
Tensor MaxUnpoolImpl<D>::forward(const Tensor& input, const Tensor& indices,
                                 const std::optional<std::vector<int64_t>>& output_size) {
  functional::MaxUnpoolFuncOptions<D> o(options.kernel_size());
  o.stride(options.stride()).padding(options.padding()).output_size(output_size);
  constexpr const char* kOps[] = {"max_unpool1d", "max_unpool2d", "max_unpool3d"};
  return max_unpool<D>(kOps[D - 1], input, indices, o);
}

// "MaxUnpool2d(kernel_size=[2, 2], stride=[2, 2], padding=[0, 0])"
template <size_t D>
void MaxUnpoolImpl<D>::pretty_print(std::ostream& stream) const {
  stream << "MaxUnpool" << D << "d(kernel_size=" << options.kernel_size() << ", stride=" << options.stride()
         << ", padding=" << options.padding() << ")";
}

template class MaxUnpoolImpl<1>;
template class MaxUnpoolImpl<2>;
template class MaxUnpoolImpl<3>;

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
void MaxPool3dImpl::pretty_print(std::ostream& stream) const { print_max_pool(stream, "MaxPool3d", options); }
void AvgPool3dImpl::pretty_print(std::ostream& stream) const { print_avg_pool(stream, "AvgPool3d", options); }
void AdaptiveMaxPool1dImpl::pretty_print(std::ostream& stream) const {
  stream << "AdaptiveMaxPool1d(output_size=" << options.output_size() << ")";
}
void AdaptiveMaxPool3dImpl::pretty_print(std::ostream& stream) const {
  stream << "AdaptiveMaxPool3d(output_size=" << options.output_size() << ")";
}
void AdaptiveAvgPool1dImpl::pretty_print(std::ostream& stream) const {
  stream << "AdaptiveAvgPool1d(output_size=" << options.output_size() << ")";
}
void AdaptiveAvgPool3dImpl::pretty_print(std::ostream& stream) const {
  stream << "AdaptiveAvgPool3d(output_size=" << options.output_size() << ")";
}
// "LPPool2d(norm_type=2, kernel_size=[3, 3], stride=[2, 2], ceil_mode=false)"
template <size_t D>
void print_lp_pool(std::ostream& stream, const LPPoolOptions<D>& o) {
  stream << std::boolalpha << "LPPool" << D << "d(norm_type=" << o.norm_type() << ", kernel_size=" << o.kernel_size()
         << ", stride=" << o.stride() << ", ceil_mode=" << o.ceil_mode() << ")";
}
void LPPool1dImpl::pretty_print(std::ostream& stream) const { print_lp_pool(stream, options); }
void LPPool2dImpl::pretty_print(std::ostream& stream) const { print_lp_pool(stream, options); }
void AdaptiveMaxPool2dImpl::pretty_print(std::ostream& stream) const {
  stream << "AdaptiveMaxPool2d(output_size=" << options.output_size() << ")";
}
void AdaptiveAvgPool2dImpl::pretty_print(std::ostream& stream) const {
  stream << "AdaptiveAvgPool2d(output_size=" << options.output_size() << ")";
}

// clone() of the modules above: a new one built from the same options, holding copies of the values.
EMBER_CLONE_WITH_OPTIONS(MaxPool1dImpl)
EMBER_CLONE_WITH_OPTIONS(MaxPool2dImpl)
EMBER_CLONE_WITH_OPTIONS(MaxPool3dImpl)
EMBER_CLONE_WITH_OPTIONS(AdaptiveMaxPool1dImpl)
EMBER_CLONE_WITH_OPTIONS(AdaptiveMaxPool2dImpl)
EMBER_CLONE_WITH_OPTIONS(AdaptiveMaxPool3dImpl)
EMBER_CLONE_WITH_OPTIONS(AvgPool1dImpl)
EMBER_CLONE_WITH_OPTIONS(AvgPool2dImpl)
EMBER_CLONE_WITH_OPTIONS(AvgPool3dImpl)
EMBER_CLONE_WITH_OPTIONS(AdaptiveAvgPool1dImpl)
EMBER_CLONE_WITH_OPTIONS(AdaptiveAvgPool2dImpl)
EMBER_CLONE_WITH_OPTIONS(AdaptiveAvgPool3dImpl)
EMBER_CLONE_WITH_OPTIONS(FractionalMaxPool2dImpl)
EMBER_CLONE_WITH_OPTIONS(FractionalMaxPool3dImpl)
EMBER_CLONE_WITH_OPTIONS(MaxUnpool1dImpl)
EMBER_CLONE_WITH_OPTIONS(MaxUnpool2dImpl)
EMBER_CLONE_WITH_OPTIONS(MaxUnpool3dImpl)
EMBER_CLONE_WITH_OPTIONS(LPPool1dImpl)
EMBER_CLONE_WITH_OPTIONS(LPPool2dImpl)

}  // namespace ember::nn
