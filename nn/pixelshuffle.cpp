// PixelShuffle / PixelUnshuffle: PyTorch 1.13's checks, then reshape, permute, reshape.
#include "nn/pixelshuffle.h"

#include <fmt/format.h>

#include "core/trace.h"

namespace ember::nn {

namespace functional {

namespace {

// The leading (batch) sizes of an input (*, C, H, W).
std::vector<int64_t> leading_sizes(const Tensor& input) {
  return std::vector<int64_t>(input.sizes().begin(), input.sizes().end() - 3);
}

// The permutation that keeps the leading dims and orders the last `tail` dims as `order`.
std::vector<int64_t> permutation(size_t leading, std::initializer_list<int64_t> order) {
  std::vector<int64_t> perm;
  for (size_t i = 0; i < leading; ++i) perm.push_back(static_cast<int64_t>(i));
  for (int64_t o : order) perm.push_back(static_cast<int64_t>(leading) + o);
  return perm;
}

}  // namespace

Tensor pixel_shuffle(const Tensor& input, const PixelShuffleFuncOptions& options) {
  EMBER_TRACE_OP();
  const int64_t r = options.upscale_factor();
  EMBER_CHECK(input.dim() >= 3,
              "pixel_shuffle: expects input to have at least 3 dimensions, but got input with shape {}", input.sizes());
  EMBER_CHECK(r > 0, "pixel_shuffle: expects a positive upscale_factor, but got {}", r);
  const int64_t c = input.size(-3), h = input.size(-2), w = input.size(-1);
  EMBER_CHECK(c % (r * r) == 0,
              "pixel_shuffle: expects its input's 'channel' dimension to be divisible by the square of "
              "upscale_factor, but input.size(-3)={} is not divisible by {} (input shape {})",
              c, r * r, input.sizes());
  std::vector<int64_t> lead = leading_sizes(input);
  std::vector<int64_t> split = lead, out = lead;
  split.insert(split.end(), {c / (r * r), r, r, h, w});
  out.insert(out.end(), {c / (r * r), h * r, w * r});
  // (*, C, r, r, H, W) -> (*, C, H, r, W, r)
  return input.reshape(split).permute(permutation(lead.size(), {0, 3, 1, 4, 2})).reshape(out);
}

Tensor pixel_unshuffle(const Tensor& input, const PixelUnshuffleFuncOptions& options) {
  EMBER_TRACE_OP();
  const int64_t r = options.downscale_factor();
  EMBER_CHECK(input.dim() >= 3,
              "pixel_unshuffle: expects input to have at least 3 dimensions, but got input with shape {}",
              input.sizes());
  EMBER_CHECK(r > 0, "pixel_unshuffle: expects a positive downscale_factor, but got {}", r);
  const int64_t c = input.size(-3), h = input.size(-2), w = input.size(-1);
  EMBER_CHECK(h % r == 0 && w % r == 0,
              "pixel_unshuffle: expects height and width to be divisible by downscale_factor {}, but got input shape "
              "{}",
              r, input.sizes());
  std::vector<int64_t> lead = leading_sizes(input);
  std::vector<int64_t> split = lead, out = lead;
  split.insert(split.end(), {c, h / r, r, w / r, r});
  out.insert(out.end(), {c * r * r, h / r, w / r});
  // (*, C, H, r, W, r) -> (*, C, r, r, H, W)
  return input.reshape(split).permute(permutation(lead.size(), {0, 2, 4, 1, 3})).reshape(out);
}

}  // namespace functional

Tensor PixelShuffleImpl::forward(const Tensor& input) { return functional::pixel_shuffle(input, options); }
Tensor PixelUnshuffleImpl::forward(const Tensor& input) { return functional::pixel_unshuffle(input, options); }

void PixelShuffleImpl::pretty_print(std::ostream& stream) const {
  stream << "PixelShuffle(upscale_factor=" << options.upscale_factor() << ")";
}
void PixelUnshuffleImpl::pretty_print(std::ostream& stream) const {
  stream << "PixelUnshuffle(downscale_factor=" << options.downscale_factor() << ")";
}

// clone() of the modules above: a new one built from the same options, holding copies of the values.
EMBER_CLONE_WITH_OPTIONS(PixelShuffleImpl)
EMBER_CLONE_WITH_OPTIONS(PixelUnshuffleImpl)

}  // namespace ember::nn
