// F::grid_sample and F::affine_grid, composed of tensor ops with PyTorch 1.13's arithmetic
// (ATen/native/GridSampler.h).
//
// grid_sample, for k = 2 or 3 spatial dims, takes each grid coordinate to a source position in input
// pixels (unnormalise, then the padding mode's clip or reflection), picks the taps around it along each
// dim (2 for bilinear, 1 for nearest, 4 for bicubic) with their weights, and gathers the input at every
// combination of taps (4, 8 or 16 corners) in one gather over the flattened spatial dims; corners
// outside the input get weight 0. The input's gradient is the gather's (a scatter_add of the weighted
// output gradient); the grid's flows through the weights only.
//
// Positions are computed without history and attached to the grid as value + slope * (g - g.detach())
// (exactly the value, with derivative `slope`). That is how PyTorch differentiates them: the slope of
// the unnormalisation times +-1 for each reflection and 0 where a clip holds the position at or beyond
// a border (clamp's own gradient would pass at the border itself). A point whose position is NaN or
// infinite (a NaN grid value; an infinite one unless a border clips it) samples NaN, as PyTorch 1.13's
// bilinear and bicubic modes give (its nearest mode gives 0 there, its border mode is undefined).
#include "nn/grid_sample.h"

#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "autograd/grad_mode.h"
#include "core/kernel.h"
#include "core/trace.h"
#include "nn/cubic.h"

namespace ember::nn::functional {

namespace {

enum class Padding { kZeros, kBorder, kReflection };

// Values and masks computed without recording history.
template <typename F>
auto no_grad(F f) {
  NoGradGuard guard;
  return f();
}

// A source position along one dim, in input pixels: its value (no history) and d value / d grid.
struct Position {
  Tensor value;  // (N, L)
  Tensor slope;  // (N, L)
};

// Clip to [0, size - 1]; the slope survives only strictly inside (clip_coordinates_set_grad).
Position clip(const Position& p, int64_t size) {
  const Tensor inside = p.value.gt(0).logical_and(p.value.lt(size - 1));
  return {p.value.clamp(0, size - 1), p.slope * inside.to(p.slope.dtype())};
}

// Reflect about the borders at twice_low / 2 and twice_high / 2 until inside (reflect_coordinates):
// each reflection flips the slope.
Position reflect(const Position& p, int64_t twice_low, int64_t twice_high) {
  if (twice_low == twice_high) return {zeros_like(p.value), zeros_like(p.slope)};
  const double low = static_cast<double>(twice_low) / 2;
  const double span = static_cast<double>(twice_high - twice_low) / 2;
  const Tensor shifted = p.value - low;
  const Tensor distance = shifted.abs();
  const Tensor extra = distance.fmod(span);
  const Tensor odd = (distance / span).floor().fmod(2).eq(1);  // an odd number of flips
  const Tensor value = where(odd, (span - extra) + low, extra + low);
  const Tensor flip = shifted.lt(0).logical_xor(odd);
  return {value, where(flip, -p.slope, p.slope)};
}

// The padding mode applied to a position along a dim of `size` pixels (compute_coordinates).
Position pad(Position p, int64_t size, Padding padding, bool align_corners) {
  if (padding == Padding::kBorder) return clip(p, size);
  if (padding == Padding::kReflection) {
    p = align_corners ? reflect(p, 0, 2 * (size - 1)) : reflect(p, -1, 2 * size - 1);
    return clip(p, size);
  }
  return p;
}

// From [-1, 1] to input pixels: -1 and 1 are the corner pixels' centres with align_corners, their
// outer edges without (grid_sampler_unnormalize).
Position unnormalize(const Tensor& g, int64_t size, bool align_corners) {
  if (align_corners) return {((g + 1) / 2) * (size - 1), full_like(g, static_cast<double>(size - 1) / 2)};
  return {((g + 1) * size - 1) / 2, full_like(g, static_cast<double>(size) / 2)};
}

// One tap along one dim: the input position it reads and its weight.
struct Tap {
  Tensor index;   // (N, L) whole numbers (or NaN, inf), anywhere: checked against the size when gathering
  Tensor weight;  // (N, L), with history
};

// The taps along one dim for grid coordinates g (N, L) (grid values, with history).
std::vector<Tap> taps_along(const Tensor& g, int64_t size, const GridSampleFuncOptions::mode_t& mode, Padding padding,
                            bool align_corners) {
  const bool bicubic = std::holds_alternative<enumtype::kBicubic>(mode);
  const Position p = no_grad([&] {
    const Position u = unnormalize(g.detach(), size, align_corners);
    return bicubic ? u : pad(u, size, padding, align_corners);  // bicubic pads each tap instead (below)
  });
  // The position with the grid's history: p.value exactly, derivative p.slope. A non-finite grid
  // value enters as 0 so that g - g.detach() stays 0.
  const Tensor finite_g = g.where(no_grad([&] { return g.isfinite(); }), zeros_like(g));
  const Tensor x = p.value + p.slope * (finite_g - finite_g.detach());
  const Tensor base = no_grad([&] { return p.value.floor(); });
  if (std::holds_alternative<enumtype::kNearest>(mode)) {
    // Round half to even, as nearbyint. The weight 1 keeps the grid in the graph with a zero gradient,
    // as PyTorch gives it.
    return {{no_grad([&] { return p.value.round(); }), x * 0 + 1}};
  }
  const Tensor t = x - base;
  if (!bicubic) return {{base, 1 - t}, {base + 1, t}};
  const std::array<Tensor, 4> w = detail::cubic_weights(t, detail::kCubicA);  // at base - 1 .. base + 2
  std::vector<Tap> taps;
  for (int64_t i = 0; i < 4; ++i) {
    Tensor index = no_grad([&] {
      Position tap{base + static_cast<double>(i - 1), zeros_like(base)};
      return pad(tap, size, padding, align_corners).value.trunc();
    });
    taps.push_back({index, w[i]});
  }
  return taps;
}

Padding padding_of(const GridSampleFuncOptions::padding_mode_t& mode) {
  if (std::holds_alternative<enumtype::kBorder>(mode)) return Padding::kBorder;
  if (std::holds_alternative<enumtype::kReflection>(mode)) return Padding::kReflection;
  return Padding::kZeros;
}

void check_grid_sample(const Tensor& input, const Tensor& grid, const GridSampleFuncOptions& options) {
  EMBER_CHECK(input.defined() && grid.defined(), "grid_sampler(): expected input and grid to not be undefined");
  kernel::check_same_device("grid_sampler", {input, grid});
  EMBER_CHECK(input.dim() == 4 || input.dim() == 5,
              "grid_sampler(): expected 4D or 5D input, but got input with sizes {} (grid sizes {})", input.sizes(),
              grid.sizes());
  EMBER_CHECK(input.dim() == grid.dim(),
              "grid_sampler(): expected {}D input and grid with same number of dimensions, but got input with sizes "
              "{} and grid with sizes {}",
              input.dim(), input.sizes(), grid.sizes());
  EMBER_CHECK(input.size(0) == grid.size(0),
              "grid_sampler(): expected grid and input to have same batch size, but got input with sizes {} and grid "
              "with sizes {}",
              input.sizes(), grid.sizes());
  EMBER_CHECK(grid.size(-1) == input.dim() - 2,
              "grid_sampler(): expected grid to have size {} in last dimension, but got grid with sizes {}",
              input.dim() - 2, grid.sizes());
  for (int64_t d = 2; d < input.dim(); ++d)
    EMBER_CHECK(input.size(d) > 0,
                "grid_sampler(): expected input to have non-empty spatial dimensions, but input has sizes {} with "
                "dimension {} being empty",
                input.sizes(), d);
  EMBER_CHECK(input.is_floating_point() && input.dtype() == grid.dtype(),
              "grid_sampler(): expected input and grid of the same floating-point dtype, but got input {} and grid {}",
              dtype_name(input.dtype()), dtype_name(grid.dtype()));
  EMBER_CHECK(!(input.dim() == 5 && std::holds_alternative<enumtype::kBicubic>(options.mode())),
              "grid_sampler(): bicubic interpolation only supports 4D input (got input with sizes {})", input.sizes());
}

}  // namespace

Tensor grid_sample(const Tensor& input, const Tensor& grid, const GridSampleFuncOptions& options) {
  EMBER_TRACE_OP();
  check_grid_sample(input, grid, options);
  std::optional<bool> align = options.align_corners();
  if (!align.has_value()) {
    EMBER_WARN(
        "Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. Please specify "
        "align_corners=True if the old behavior is desired. See the documentation of grid_sample for details.");
    align = false;
  }
  const int64_t k = input.dim() - 2;  // spatial dims, in input order (D,) H, W
  const int64_t N = input.size(0), C = input.size(1);
  std::vector<int64_t> out_shape = {N, C};
  int64_t L = 1;  // output points per batch element
  for (int64_t d = 0; d < k; ++d) {
    out_shape.push_back(grid.size(d + 1));
    L *= grid.size(d + 1);
  }
  const Tensor g = grid.reshape({N, L, k});

  // Corners: every combination of one tap per dim, as flat indices into the spatial dims, whether the
  // corner lies inside the input, and its weight (the product of the taps').
  std::vector<Tensor> flat = {zeros({N, L}, input.options().dtype(kInt64))};
  std::vector<Tensor> inside = {ones({N, L}, input.options().dtype(kBool))};
  std::vector<Tensor> weight = {Tensor()};
  int64_t stride = 1;
  for (int64_t d = k - 1; d >= 0; --d) {  // grid coordinate k - 1 - d (x first) is along input dim d
    const int64_t size = input.size(d + 2);
    std::vector<Tap> taps =
        taps_along(g.select(2, k - 1 - d), size, options.mode(), padding_of(options.padding_mode()), *align);
    std::vector<Tensor> next_flat, next_inside, next_weight;
    for (size_t c = 0; c < flat.size(); ++c) {
      for (const Tap& tap : taps) {
        {
          NoGradGuard guard;
          const Tensor in_range = tap.index.ge(0).logical_and(tap.index.lt(size));  // false for NaN
          next_inside.push_back(inside[c].logical_and(in_range));
          next_flat.push_back(flat[c] + tap.index.where(in_range, zeros_like(tap.index)).to(kInt64) * stride);
        }
        next_weight.push_back(weight[c].defined() ? weight[c] * tap.weight : tap.weight);
      }
    }
    flat = std::move(next_flat);
    inside = std::move(next_inside);
    weight = std::move(next_weight);
    stride *= size;
  }
  const int64_t K = static_cast<int64_t>(flat.size());
  const Tensor index = no_grad([&] { return stack(flat, 1).reshape({N, 1, K * L}).expand({N, C, K * L}); });
  const Tensor mask = no_grad([&] { return stack(inside, 1).to(input.dtype()); });
  const Tensor w = (stack(weight, 1) * mask).unsqueeze(1);                                     // (N, 1, K, L)
  const Tensor values = input.reshape({N, C, stride}).gather(2, index).reshape({N, C, K, L});  // (N, C, K, L)
  return (values * w).sum({2}).reshape(out_shape);
}

// PyTorch's linspace_from_neg_one: the normalised centres of `steps` pixels.
static Tensor linspace_from_neg_one(const Tensor& theta, int64_t steps, bool align_corners) {
  if (steps <= 1) return zeros({1}, theta.options());
  Tensor range = linspace(-1, 1, steps, theta.options());
  if (!align_corners) range = range * (steps - 1) / steps;
  return range;
}

Tensor affine_grid(const Tensor& theta, IntArrayRef size, bool align_corners) {
  EMBER_TRACE_OP();
  EMBER_CHECK(theta.is_floating_point(), "affine_grid: Expected theta to have floating point type, but got {}",
              dtype_name(theta.dtype()));
  const int64_t k = static_cast<int64_t>(size.size()) - 2;
  EMBER_CHECK(k == 2 || k == 3,
              "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, respectively. Got size {}",
              size);
  EMBER_CHECK(theta.dim() == 3 && theta.size(1) == k && theta.size(2) == k + 1,
              "affine_grid: Expected a batch of {}D affine matrices of shape Nx{}x{} for size {}. Got {}.", k, k, k + 1,
              size, theta.sizes());
  for (int64_t s : size) EMBER_CHECK(s > 0, "affine_grid: Expected non-zero, positive output size. Got {}", size);
  EMBER_CHECK(theta.size(0) == size[0], "affine_grid: theta's batch of {} does not match size {}", theta.size(0), size);
  // base (P, k + 1): for every output pixel (in (D,) H, W order) its x, y(, z) and 1
  std::vector<int64_t> spatial(size.begin() + 2, size.end());
  int64_t P = 1;
  for (int64_t s : spatial) P *= s;
  tensor_list columns;
  for (int64_t j = 0; j < k; ++j) {  // coordinate j runs along spatial dim k - 1 - j
    const int64_t d = k - 1 - j;
    std::vector<int64_t> shape(k, 1);
    shape[d] = spatial[d];
    columns.push_back(linspace_from_neg_one(theta, spatial[d], align_corners).reshape(shape).expand(spatial));
  }
  columns.push_back(ones(spatial, theta.options()));
  const Tensor base = stack(columns, -1).reshape({1, P, k + 1});
  // grid = base theta^T, per batch element: (N, P, k + 1) x (N, k + 1, k)
  std::vector<int64_t> out_shape = {size[0]};
  out_shape.insert(out_shape.end(), spatial.begin(), spatial.end());
  out_shape.push_back(k);
  return base.expand({size[0], P, k + 1}).matmul(theta.transpose(1, 2)).reshape(out_shape);
}

}  // namespace ember::nn::functional
