// F::interpolate and Upsample: PyTorch 1.13's checks and output sizes, then one spatial dim at a time.
//
// For a dim of `in` positions resized to `out`, the nearest modes compute the source position of each
// output (PyTorch's nearest_idx / nearest_exact_idx, in float32 as there) and index_select it. The
// other modes build the (out, in) matrix M whose row o holds the weights output o gives the inputs, with
// PyTorch's formulas in the input's precision (ATen/native/UpSample.h), and multiply: y = x M^T along
// the dim. Its backward, dx = dy M, is the scatter of weighted gradients PyTorch's backward kernels do.
// Dims are resized last first, the order of PyTorch's nested loops.
#include "nn/upsampling.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include "core/trace.h"
#include "nn/cubic.h"

namespace ember::nn {

namespace {

using Mode = functional::InterpolateFuncOptions::mode_t;

std::string mode_name(const Mode& mode) {
  return std::visit(
      [](auto tag) -> std::string {
        using Tag = decltype(tag);
        if constexpr (std::is_same_v<Tag, enumtype::kNearest>) return "kNearest";
        if constexpr (std::is_same_v<Tag, enumtype::kLinear>) return "kLinear";
        if constexpr (std::is_same_v<Tag, enumtype::kBilinear>) return "kBilinear";
        if constexpr (std::is_same_v<Tag, enumtype::kBicubic>) return "kBicubic";
        if constexpr (std::is_same_v<Tag, enumtype::kTrilinear>) return "kTrilinear";
        if constexpr (std::is_same_v<Tag, enumtype::kArea>) return "kArea";
        return "kNearestExact";
      },
      mode);
}

// "[2, 1.5]", as libtorch prints a list of doubles.
std::string list_str(const std::vector<double>& values) {
  std::ostringstream s;
  s << '[';
  for (size_t i = 0; i < values.size(); ++i) s << (i ? ", " : "") << values[i];
  return s.str() + "]";
}

// The number of spatial dims a linear or cubic mode works on (0 for modes that take any).
int64_t spatial_dims_of(const Mode& mode) {
  if (std::holds_alternative<enumtype::kLinear>(mode)) return 1;
  if (std::holds_alternative<enumtype::kBilinear>(mode) || std::holds_alternative<enumtype::kBicubic>(mode)) return 2;
  if (std::holds_alternative<enumtype::kTrilinear>(mode)) return 3;
  return 0;
}

// PyTorch's compute_scales_value: 1 / scale_factor when one is given, else in / out.
template <typename T>
T scale_value(std::optional<double> scale, int64_t in, int64_t out) {
  return scale.has_value() && *scale > 0 ? static_cast<T>(1.0 / *scale) : static_cast<T>(in) / out;
}

// PyTorch's area_pixel_compute_scale.
template <typename T>
T pixel_scale(int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  if (align_corners) return out > 1 ? static_cast<T>(in - 1) / (out - 1) : static_cast<T>(0);
  return scale_value<T>(scale, in, out);
}

// PyTorch's area_pixel_compute_source_index: where output o samples the input, in input positions.
template <typename T>
T source_position(T scale, int64_t o, bool align_corners, bool cubic) {
  if (align_corners) return scale * o;
  const T src = scale * (o + static_cast<T>(0.5)) - static_cast<T>(0.5);
  return !cubic && src < 0 ? T(0) : src;
}

// The input position each output copies (nearest_idx; nearest_exact_idx when `exact`).
std::vector<int64_t> nearest_sources(int64_t in, int64_t out, std::optional<double> scale, bool exact) {
  std::vector<int64_t> src(out);
  const float s = scale_value<float>(scale, in, out);
  for (int64_t o = 0; o < out; ++o) {
    if (exact) {
      src[o] = std::min(static_cast<int64_t>(std::floor(static_cast<float>((o + 0.5) * s))), in - 1);
    } else if (out == in) {
      src[o] = o;
    } else if (out == 2 * in) {
      src[o] = o >> 1;
    } else {
      src[o] = std::min(static_cast<int64_t>(std::floor(static_cast<float>(o) * s)), in - 1);
    }
  }
  return src;
}

// The (out, in) weights of an antialiased bilinear or bicubic resize (PyTorch's _upsample_*_aa): when
// shrinking, the filter is stretched by in / out so that every input contributes, then each row is
// normalised to sum 1. Bicubic's filter here has A = -0.5 (PIL's), not the -0.75 of the plain mode.
template <typename T>
std::vector<T> antialias_matrix(bool cubic, int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  std::vector<T> m(static_cast<size_t>(out * in), T(0));
  const T s = pixel_scale<T>(in, out, align_corners, scale);
  const T half_width = cubic ? T(2) : T(1);
  const T support = s >= T(1) ? half_width * s : half_width;
  const T inverse_scale = s >= T(1) ? T(1) / s : T(1);
  auto filter = [cubic](T x) -> T {
    x = std::abs(x);
    if (!cubic) return x < T(1) ? T(1) - x : T(0);
    constexpr T A = T(-0.5);
    if (x < T(1)) return ((A + 2) * x - (A + 3)) * x * x + 1;
    if (x < T(2)) return (((x - 5) * x + 8) * x - 4) * A;
    return T(0);
  };
  std::vector<T> w;
  for (int64_t o = 0; o < out; ++o) {
    const T center = s * (static_cast<T>(o) + T(0.5));
    const int64_t first = std::max<int64_t>(static_cast<int64_t>(center - support + T(0.5)), 0);
    const int64_t count = std::min<int64_t>(static_cast<int64_t>(center + support + T(0.5)), in) - first;
    w.assign(static_cast<size_t>(std::max<int64_t>(count, 0)), T(0));
    T total = T(0);
    for (int64_t j = 0; j < count; ++j)
      total += w[j] = filter((static_cast<T>(j + first) - center + T(0.5)) * inverse_scale);
    for (int64_t j = 0; j < count; ++j) m[o * in + first + j] = total != T(0) ? w[j] / total : w[j];
  }
  return m;
}

// Row o of the (out, in) weight matrix, for linear, cubic and area modes; T is the input's precision.
template <typename T>
std::vector<T> weight_matrix(const Mode& mode, int64_t in, int64_t out, bool align_corners,
                             std::optional<double> scale) {
  std::vector<T> m(static_cast<size_t>(out * in), T(0));
  auto add = [&](int64_t o, int64_t i, T w) { m[o * in + i] += w; };
  if (std::holds_alternative<enumtype::kArea>(mode)) {
    // Adaptive average pooling: output o averages [floor(o in / out), ceil((o + 1) in / out)).
    for (int64_t o = 0; o < out; ++o) {
      const int64_t start = o * in / out, end = ((o + 1) * in + out - 1) / out;
      for (int64_t i = start; i < end; ++i) add(o, i, T(1) / static_cast<T>(end - start));
    }
  } else if (std::holds_alternative<enumtype::kBicubic>(mode)) {
    // Four taps at floor(x) - 1 .. floor(x) + 2, clamped to the border (upsample_get_value_bounded).
    const T s = pixel_scale<T>(in, out, align_corners, scale);
    for (int64_t o = 0; o < out; ++o) {
      const T x = source_position<T>(s, o, align_corners, /*cubic=*/true);
      const int64_t i0 = static_cast<int64_t>(std::floor(x));
      const T t = x - static_cast<T>(i0);
      const std::array<T, 4> w = detail::cubic_weights(t, static_cast<T>(detail::kCubicA));
      for (int64_t j = 0; j < 4; ++j) add(o, std::clamp<int64_t>(i0 - 1 + j, 0, in - 1), w[j]);
    }
  } else {
    // Two taps (compute_source_index_and_lambda); the position in double, as PyTorch's CPU acc type.
    const T s = pixel_scale<T>(in, out, align_corners, scale);
    for (int64_t o = 0; o < out; ++o) {
      if (out == in) {
        add(o, o, T(1));
        continue;
      }
      const double x = source_position<double>(s, o, align_corners, /*cubic=*/false);
      const int64_t i0 = static_cast<int64_t>(x);
      const int64_t i1 = i0 + (i0 < in - 1 ? 1 : 0);
      const T lambda1 = static_cast<T>(x - static_cast<double>(i0));
      add(o, i0, T(1) - lambda1);
      add(o, i1, lambda1);
    }
  }
  return m;
}

// Resizes dim d of x from in to out positions.
Tensor resize_dim(const Tensor& x, int64_t d, int64_t out, const Mode& mode, bool align_corners,
                  std::optional<double> scale, bool antialias) {
  const int64_t in = x.size(d);
  const bool exact = std::holds_alternative<enumtype::kNearestExact>(mode);
  if (exact || std::holds_alternative<enumtype::kNearest>(mode)) {
    std::vector<int64_t> src = nearest_sources(in, out, scale, exact);
    return x.index_select(d, from_vector(src, {out}, dtype(kInt64)).to(x.device()));
  }
  const bool cubic = std::holds_alternative<enumtype::kBicubic>(mode);
  Tensor m = x.dtype() == kFloat64
                 ? from_vector(antialias ? antialias_matrix<double>(cubic, in, out, align_corners, scale)
                                         : weight_matrix<double>(mode, in, out, align_corners, scale),
                               {out, in}, dtype(kFloat64))
                 : from_vector(antialias ? antialias_matrix<float>(cubic, in, out, align_corners, scale)
                                         : weight_matrix<float>(mode, in, out, align_corners, scale),
                               {out, in}, dtype(kFloat32))
                       .to(x.dtype());
  m = m.to(x.device());
  const int64_t last = x.dim() - 1;
  if (d == last) return x.matmul(m.t());
  return x.transpose(d, last).matmul(m.t()).transpose(d, last);
}

// PyTorch's _interp_output_size: the size given, or floor(in * scale_factor) per spatial dim.
std::vector<int64_t> output_sizes(const Tensor& input, int64_t spatial, const functional::InterpolateFuncOptions& o) {
  const auto& size = o.size();
  const auto& scale = o.scale_factor();
  EMBER_CHECK(size.has_value() || scale.has_value(), "interpolate: either size or scale_factor should be defined");
  EMBER_CHECK(!(size.has_value() && scale.has_value()),
              "interpolate: only one of size or scale_factor should be defined");
  if (size.has_value()) {
    EMBER_CHECK(static_cast<int64_t>(size->size()) == spatial,
                "interpolate: size {} must have one value per spatial dim of the input shape {} ({} values)",
                IntArrayRef(*size), input.sizes(), spatial);
    return *size;
  }
  EMBER_CHECK(static_cast<int64_t>(scale->size()) == spatial,
              "interpolate: scale_factor shape must match input shape. Input is {}D, scale_factor size is {}", spatial,
              list_str(*scale));
  if (!o.recompute_scale_factor().has_value()) {
    for (double s : *scale) {
      if (std::floor(s) != s) {
        EMBER_WARN(
            "The default behavior for interpolate/upsample with float scale_factor changed in 1.6.0 to align with "
            "other frameworks/libraries, and uses scale_factor directly, instead of relying on the computed output "
            "size. If you wish to keep the old behavior, please set recompute_scale_factor=True. See the "
            "documentation of nn.Upsample for details. ");
        break;
      }
    }
  }
  std::vector<int64_t> out;
  for (int64_t i = 0; i < spatial; ++i)
    out.push_back(static_cast<int64_t>(std::floor(static_cast<double>(input.size(i + 2)) * (*scale)[i])));
  return out;
}

}  // namespace

namespace functional {

Tensor interpolate(const Tensor& input, const InterpolateFuncOptions& options) {
  EMBER_TRACE_OP();
  const Mode& mode = options.mode();
  const std::string name = mode_name(mode);
  const int64_t mode_dims = spatial_dims_of(mode);
  std::optional<bool> align_corners = options.align_corners();
  if (mode_dims == 0) {
    EMBER_CHECK(!align_corners.has_value(),
                "interpolate: align_corners option can only be set with the interpolating modes: linear | bilinear | "
                "bicubic | trilinear (got mode {})",
                name);
  } else if (!align_corners.has_value()) {
    EMBER_WARN(
        "Default upsampling behavior when mode={} is changed to align_corners=False since 0.4.0. Please specify "
        "align_corners=True if the old behavior is desired. See the documentation of nn.Upsample for details.",
        name);
    align_corners = false;
  }
  const bool antialias = options.antialias();
  EMBER_CHECK(!antialias || std::holds_alternative<enumtype::kBilinear>(mode) ||
                  std::holds_alternative<enumtype::kBicubic>(mode),
              "interpolate: anti-alias option is only supported for bilinear and bicubic modes (got mode {})", name);
  const int64_t dim = input.dim();
  EMBER_CHECK(dim >= 3 && dim <= 5,
              "interpolate: only 3D, 4D and 5D (N, C, ...) inputs are supported (got {}D input of shape {}, mode {})",
              dim, input.sizes(), name);
  const int64_t spatial = dim - 2;
  EMBER_CHECK(mode_dims == 0 || mode_dims == spatial,
              "interpolate: got {}D input (shape {}), but mode {} needs {}D input", dim, input.sizes(), name,
              mode_dims + 2);
  const bool nearest =
      std::holds_alternative<enumtype::kNearest>(mode) || std::holds_alternative<enumtype::kNearestExact>(mode);
  EMBER_CHECK(nearest || input.is_floating_point(), "interpolate: mode {} needs a floating-point input, but got {}",
              name, dtype_name(input.dtype()));
  std::vector<int64_t> out = output_sizes(input, spatial, options);
  for (int64_t i = 0; i < spatial; ++i)
    EMBER_CHECK(input.size(i + 2) > 0 && out[i] > 0,
                "interpolate: input and output sizes should be greater than 0, but got input shape {} and output "
                "size {}",
                input.sizes(), IntArrayRef(out));
  // The scale factors reach the kernels unless the output size is to be the only guide.
  const bool pass_scales = options.scale_factor().has_value() && !options.recompute_scale_factor().value_or(false);
  Tensor x = input;
  for (int64_t i = spatial - 1; i >= 0; --i) {
    std::optional<double> scale;
    if (pass_scales) scale = (*options.scale_factor())[i];
    x = resize_dim(x, i + 2, out[i], mode, align_corners.value_or(false), scale, antialias);
  }
  return x.contiguous();
}

}  // namespace functional

Tensor UpsampleImpl::forward(const Tensor& input) {
  functional::InterpolateFuncOptions o;
  std::visit([&](auto tag) { o.mode(tag); }, options.mode());
  o.size(options.size()).scale_factor(options.scale_factor()).align_corners(options.align_corners());
  return functional::interpolate(input, o);
}

void UpsampleImpl::pretty_print(std::ostream& stream) const {
  stream << "Upsample(";
  if (options.scale_factor().has_value()) {
    stream << "scale_factor=" << list_str(*options.scale_factor());
  } else if (options.size().has_value()) {
    stream << "size=" << IntArrayRef(*options.size());
  }
  functional::InterpolateFuncOptions::mode_t mode;
  std::visit([&](auto tag) { mode = tag; }, options.mode());
  stream << ", mode=" << mode_name(mode) << ")";
}

// clone() of the modules above: a new one built from the same options, holding copies of the values.
EMBER_CLONE_WITH_OPTIONS(UpsampleImpl)

}  // namespace ember::nn
