// F::pad and the padding modules: PyTorch 1.13's checks, then one dim at a time.
//
// Constant padding crops (narrow) and then concatenates blocks of the fill value; the other modes
// pick, for each output position of a dim, the input position it copies (index_select), so their
// backward is index_select's: every output's gradient is added to the input it came from.
#include "nn/padding.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/trace.h"

namespace ember::nn {

namespace functional {

namespace {

const char* mode_name(const PadFuncOptions::mode_t& mode) {
  return std::visit(
      [](auto tag) -> const char* {
        using Tag = decltype(tag);
        if constexpr (std::is_same_v<Tag, enumtype::kConstant>) return "constant";
        if constexpr (std::is_same_v<Tag, enumtype::kReflect>) return "reflect";
        if constexpr (std::is_same_v<Tag, enumtype::kReplicate>) return "replicate";
        return "circular";
      },
      mode);
}

// Pads dim `d` of x with `left` and `right` copies of `value` (negative amounts crop).
Tensor constant_pad_dim(const Tensor& x, int64_t d, int64_t left, int64_t right, double value, const Tensor& input) {
  const int64_t size = x.size(d);
  const int64_t kept = size + std::min<int64_t>(left, 0) + std::min<int64_t>(right, 0);
  EMBER_CHECK(kept >= 0 && size + left + right >= 0,
              "pad: padding ({}, {}) of dim {} crops more than its {} elements (input shape {})", left, right, d, size,
              input.sizes());
  Tensor body = x.narrow(d, std::max<int64_t>(-left, 0), kept);
  if (left <= 0 && right <= 0) return body;
  tensor_list pieces;
  auto block = [&](int64_t n) {
    std::vector<int64_t> sizes = x.sizes().vec();
    sizes[d] = n;
    return full(sizes, value, TensorOptions(x.dtype()).device(x.device()));
  };
  if (left > 0) pieces.push_back(block(left));
  pieces.push_back(body);
  if (right > 0) pieces.push_back(block(right));
  return cat(pieces, d);
}

// The input position each output position of a dim of `size` elements copies, for one mode.
std::vector<int64_t> source_positions(const PadFuncOptions::mode_t& mode, int64_t size, int64_t left, int64_t right,
                                      int64_t d, const Tensor& input) {
  const int64_t out = size + left + right;
  const char* name = mode_name(mode);
  std::vector<int64_t> src(std::max<int64_t>(out, 0));
  if (std::holds_alternative<enumtype::kCircular>(mode)) {
    EMBER_CHECK(left <= size && right <= size,
                "pad: circular padding ({}, {}) of dim {} wraps around more than once (its size is {}; input shape {})",
                left, right, d, size, input.sizes());
    const int64_t start = std::max<int64_t>(-left, 0);
    const int64_t kept = size - start - std::max<int64_t>(-right, 0);
    EMBER_CHECK(out >= 0 && (kept > 0 || out == 0),
                "pad: circular padding ({}, {}) of dim {} leaves no elements to wrap (its size is {}; input shape {})",
                left, right, d, size, input.sizes());
    for (int64_t j = 0; j < out; ++j) {
      const int64_t offset = ((j - std::max<int64_t>(left, 0)) % kept + kept) % kept;
      src[j] = start + offset;
    }
    return src;
  }
  EMBER_CHECK(out >= 1, "pad: {} padding ({}, {}) of dim {} leaves {} elements of its {} (input shape {})", name, left,
              right, d, out, size, input.sizes());
  if (std::holds_alternative<enumtype::kReflect>(mode)) {
    EMBER_CHECK(left < size && right < size,
                "pad: reflect padding ({}, {}) of dim {} must be less than its size {} (input shape {})", left, right,
                d, size, input.sizes());
    for (int64_t j = 0; j < out; ++j) {
      const int64_t s = std::abs(j - left);        // mirror at the first element
      src[j] = s < size ? s : 2 * (size - 1) - s;  // and at the last
    }
  } else {
    for (int64_t j = 0; j < out; ++j) src[j] = std::clamp<int64_t>(j - left, 0, size - 1);
  }
  return src;
}

}  // namespace

Tensor pad(const Tensor& input, const PadFuncOptions& options) {
  EMBER_TRACE_OP();
  const std::vector<int64_t>& amounts = options.pad();
  const int64_t dims = static_cast<int64_t>(amounts.size()) / 2;
  EMBER_CHECK(amounts.size() % 2 == 0, "pad: the padding length must be divisible by 2, but got {} values {}",
              amounts.size(), IntArrayRef(amounts));
  EMBER_CHECK(dims <= input.dim(), "pad: padding {} pads {} dims, but the input has shape {}", IntArrayRef(amounts),
              dims, input.sizes());
  const auto& mode = options.mode();
  Tensor x = input;
  if (std::holds_alternative<enumtype::kConstant>(mode)) {
    for (int64_t i = 0; i < dims; ++i)
      x = constant_pad_dim(x, input.dim() - 1 - i, amounts[2 * i], amounts[2 * i + 1], options.value(), input);
    return x;
  }
  const char* name = mode_name(mode);
  EMBER_CHECK(options.value() == 0, "pad: padding mode \"{}\" doesn't take a value argument, but got value={}", name,
              options.value());
  const bool circular = std::holds_alternative<enumtype::kCircular>(mode);
  const bool batched_ok = input.dim() == dims + 2, unbatched_ok = !circular && input.dim() == dims + 1;
  EMBER_CHECK(dims >= 1 && dims <= 3 && (batched_ok || unbatched_ok),
              "pad: {} padding pads the last 1, 2 or 3 dims of a {} input, but got padding {} ({} dims) and input "
              "shape {}",
              name, circular ? "(N, C, ...)" : "(C, ...) or (N, C, ...)", IntArrayRef(amounts), dims, input.sizes());
  for (int64_t i = 0; i < dims; ++i) {
    const int64_t d = input.dim() - 1 - i;
    std::vector<int64_t> src = source_positions(mode, input.size(d), amounts[2 * i], amounts[2 * i + 1], d, input);
    const int64_t n = static_cast<int64_t>(src.size());
    x = x.index_select(d, from_vector(src, {n}, dtype(kInt64)).to(x.device()));
  }
  return x;
}

}  // namespace functional

namespace {

template <size_t N>
Tensor pad_with(const Tensor& input, const ExpandingArray<N>& padding, functional::PadFuncOptions::mode_t mode,
                double value = 0) {
  return functional::pad(input, functional::PadFuncOptions(padding.vec()).mode(mode).value(value));
}

}  // namespace

Tensor ReflectionPad1dImpl::forward(const Tensor& input) { return pad_with(input, options.padding(), kReflect); }
Tensor ReflectionPad2dImpl::forward(const Tensor& input) { return pad_with(input, options.padding(), kReflect); }
Tensor ReflectionPad3dImpl::forward(const Tensor& input) { return pad_with(input, options.padding(), kReflect); }
Tensor ReplicationPad1dImpl::forward(const Tensor& input) { return pad_with(input, options.padding(), kReplicate); }
Tensor ReplicationPad2dImpl::forward(const Tensor& input) { return pad_with(input, options.padding(), kReplicate); }
Tensor ReplicationPad3dImpl::forward(const Tensor& input) { return pad_with(input, options.padding(), kReplicate); }
Tensor ZeroPad2dImpl::forward(const Tensor& input) { return pad_with(input, options.padding(), kConstant); }
Tensor ConstantPad1dImpl::forward(const Tensor& input) {
  return pad_with(input, options.padding(), kConstant, options.value());
}
Tensor ConstantPad2dImpl::forward(const Tensor& input) {
  return pad_with(input, options.padding(), kConstant, options.value());
}
Tensor ConstantPad3dImpl::forward(const Tensor& input) {
  return pad_with(input, options.padding(), kConstant, options.value());
}

void ReflectionPad1dImpl::pretty_print(std::ostream& s) const {
  s << "ReflectionPad1d(padding=" << options.padding() << ")";
}
void ReflectionPad2dImpl::pretty_print(std::ostream& s) const {
  s << "ReflectionPad2d(padding=" << options.padding() << ")";
}
void ReflectionPad3dImpl::pretty_print(std::ostream& s) const {
  s << "ReflectionPad3d(padding=" << options.padding() << ")";
}
void ReplicationPad1dImpl::pretty_print(std::ostream& s) const {
  s << "ReplicationPad1d(padding=" << options.padding() << ")";
}
void ReplicationPad2dImpl::pretty_print(std::ostream& s) const {
  s << "ReplicationPad2d(padding=" << options.padding() << ")";
}
void ReplicationPad3dImpl::pretty_print(std::ostream& s) const {
  s << "ReplicationPad3d(padding=" << options.padding() << ")";
}
void ZeroPad2dImpl::pretty_print(std::ostream& s) const { s << "ZeroPad2d(padding=" << options.padding() << ")"; }
void ConstantPad1dImpl::pretty_print(std::ostream& s) const {
  s << "ConstantPad1d(padding=" << options.padding() << ", value=" << options.value() << ")";
}
void ConstantPad2dImpl::pretty_print(std::ostream& s) const {
  s << "ConstantPad2d(padding=" << options.padding() << ", value=" << options.value() << ")";
}
void ConstantPad3dImpl::pretty_print(std::ostream& s) const {
  s << "ConstantPad3d(padding=" << options.padding() << ", value=" << options.value() << ")";
}

// clone() of the modules above: a new one built from the same options, holding copies of the values.
EMBER_CLONE_WITH_OPTIONS(ReflectionPad1dImpl)
EMBER_CLONE_WITH_OPTIONS(ReflectionPad2dImpl)
EMBER_CLONE_WITH_OPTIONS(ReflectionPad3dImpl)
EMBER_CLONE_WITH_OPTIONS(ReplicationPad1dImpl)
EMBER_CLONE_WITH_OPTIONS(ReplicationPad2dImpl)
EMBER_CLONE_WITH_OPTIONS(ReplicationPad3dImpl)
EMBER_CLONE_WITH_OPTIONS(ZeroPad2dImpl)
EMBER_CLONE_WITH_OPTIONS(ConstantPad1dImpl)
EMBER_CLONE_WITH_OPTIONS(ConstantPad2dImpl)
EMBER_CLONE_WITH_OPTIONS(ConstantPad3dImpl)

}  // namespace ember::nn
