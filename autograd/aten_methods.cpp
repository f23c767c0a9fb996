// The method forms of ATen's functions (core/tensor.h, "method forms"): each is its function with
// this tensor first (autograd/aten_functions.h says what it does). In-place forms run the function
// and commit its result as every in-place op does (autograd/elementwise.h's inplace_unary: the
// version counter, autograd's checks, and libtorch's error where the result's dtype cannot be cast
// to this tensor's). Names are qualified: inside Tensor, an unqualified name is the method.
// Then the in-place forms of existing ops (eq_, logical_and_, tril_, fmod_, ...) and libtorch's small
// methods without a function of their own here (sum_to_size, fill_diagonal_, aminmax, hardshrink,
// prelu, whose nn::functional forms call them).
#include "autograd/autocast.h"
#include "autograd/aten_functions.h"
#include "autograd/elementwise.h"
#include "autograd/grad_mode.h"
#include "autograd/linalg.h"
#include "autograd/special.h"
#include "core/random.h"
#include "core/shape.h"
#include "core/tensor.h"
#include "core/trace.h"

namespace ember {

namespace {
using autograd::elementwise::inplace_unary;
}  // namespace

// ---- products with an added term ----

Tensor Tensor::addmm(const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha) const {
  return ember::addmm(*this, mat1, mat2, beta, alpha);
}
Tensor Tensor::addmv(const Tensor& mat, const Tensor& vec, const Scalar& beta, const Scalar& alpha) const {
  return ember::addmv(*this, mat, vec, beta, alpha);
}
Tensor Tensor::addr(const Tensor& vec1, const Tensor& vec2, const Scalar& beta, const Scalar& alpha) const {
  return ember::addr(*this, vec1, vec2, beta, alpha);
}
Tensor Tensor::addbmm(const Tensor& batch1, const Tensor& batch2, const Scalar& beta, const Scalar& alpha) const {
  return ember::addbmm(*this, batch1, batch2, beta, alpha);
}
Tensor Tensor::baddbmm(const Tensor& batch1, const Tensor& batch2, const Scalar& beta, const Scalar& alpha) const {
  return ember::baddbmm(*this, batch1, batch2, beta, alpha);
}
Tensor& Tensor::addmm_(const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha) {
  return inplace_unary(*this, "addmm_", [&](const Tensor& s) { return ember::addmm(s, mat1, mat2, beta, alpha); });
}
Tensor& Tensor::addmv_(const Tensor& mat, const Tensor& vec, const Scalar& beta, const Scalar& alpha) {
  return inplace_unary(*this, "addmv_", [&](const Tensor& s) { return ember::addmv(s, mat, vec, beta, alpha); });
}
Tensor& Tensor::addr_(const Tensor& vec1, const Tensor& vec2, const Scalar& beta, const Scalar& alpha) {
  return inplace_unary(*this, "addr_", [&](const Tensor& s) { return ember::addr(s, vec1, vec2, beta, alpha); });
}
Tensor& Tensor::addbmm_(const Tensor& batch1, const Tensor& batch2, const Scalar& beta, const Scalar& alpha) {
  return inplace_unary(*this, "addbmm_",
                       [&](const Tensor& s) { return ember::addbmm(s, batch1, batch2, beta, alpha); });
}
Tensor& Tensor::baddbmm_(const Tensor& batch1, const Tensor& batch2, const Scalar& beta, const Scalar& alpha) {
  return inplace_unary(*this, "baddbmm_",
                       [&](const Tensor& s) { return ember::baddbmm(s, batch1, batch2, beta, alpha); });
}

// ---- products, distances ----

Tensor Tensor::inner(const Tensor& other) const { return ember::inner(*this, other); }
Tensor Tensor::vdot(const Tensor& other) const { return ember::vdot(*this, other); }
Tensor Tensor::kron(const Tensor& other) const { return ember::kron(*this, other); }
Tensor Tensor::cross(const Tensor& other, std::optional<int64_t> dim) const { return ember::cross(*this, other, dim); }
Tensor Tensor::dist(const Tensor& other, const Scalar& p) const { return ember::dist(*this, other, p); }

// ---- arranging, splitting, picking ----

Tensor Tensor::fliplr() const { return ember::fliplr(*this); }
Tensor Tensor::flipud() const { return ember::flipud(*this); }
tensor_list Tensor::hsplit(int64_t sections) const { return ember::hsplit(*this, sections); }
tensor_list Tensor::hsplit(IntArrayRef indices) const { return ember::hsplit(*this, indices); }
tensor_list Tensor::vsplit(int64_t sections) const { return ember::vsplit(*this, sections); }
tensor_list Tensor::vsplit(IntArrayRef indices) const { return ember::vsplit(*this, indices); }
tensor_list Tensor::dsplit(int64_t sections) const { return ember::dsplit(*this, sections); }
tensor_list Tensor::dsplit(IntArrayRef indices) const { return ember::dsplit(*this, indices); }
Tensor Tensor::diagflat(int64_t offset) const { return ember::diagflat(*this, offset); }
Tensor Tensor::diag_embed(int64_t offset, int64_t dim1, int64_t dim2) const {
  return ember::diag_embed(*this, offset, dim1, dim2);
}
Tensor Tensor::rot90(int64_t k, IntArrayRef dims) const { return ember::rot90(*this, k, dims); }
Tensor Tensor::msort() const { return ember::msort(*this); }
Tensor Tensor::take(const Tensor& index) const { return ember::take(*this, index); }
Tensor Tensor::take_along_dim(const Tensor& indices, std::optional<int64_t> dim) const {
  return ember::take_along_dim(*this, indices, dim);
}
Tensor Tensor::repeat_interleave(int64_t repeats, std::optional<int64_t> dim,
                                 std::optional<int64_t> output_size) const {
  return ember::repeat_interleave(*this, repeats, dim, output_size);
}
Tensor Tensor::repeat_interleave(const Tensor& repeats, std::optional<int64_t> dim,
                                 std::optional<int64_t> output_size) const {
  return ember::repeat_interleave(*this, repeats, dim, output_size);
}

// ---- scans, statistics, counting ----

std::tuple<Tensor, Tensor> Tensor::cummax(int64_t dim) const { return ember::cummax(*this, dim); }
std::tuple<Tensor, Tensor> Tensor::cummin(int64_t dim) const { return ember::cummin(*this, dim); }
Tensor Tensor::logcumsumexp(int64_t dim) const { return ember::logcumsumexp(*this, dim); }
Tensor Tensor::cov(int64_t correction, const std::optional<Tensor>& fweights,
                   const std::optional<Tensor>& aweights) const {
  return ember::cov(*this, correction, fweights, aweights);
}
Tensor Tensor::corrcoef() const { return ember::corrcoef(*this); }
Tensor Tensor::histc(int64_t bins, const Scalar& min, const Scalar& max) const {
  return ember::histc(*this, bins, min, max);
}
Tensor Tensor::bincount(const std::optional<Tensor>& weights, int64_t minlength) const {
  return ember::bincount(*this, weights, minlength);
}

// ---- elementwise ----

Tensor Tensor::fmax(const Tensor& other) const { return ember::fmax(*this, other); }
Tensor Tensor::fmin(const Tensor& other) const { return ember::fmin(*this, other); }
Tensor Tensor::heaviside(const Tensor& values) const { return ember::heaviside(*this, values); }
Tensor& Tensor::heaviside_(const Tensor& values) {
  return inplace_unary(*this, "heaviside_", [&](const Tensor& s) { return ember::heaviside(s, values); });
}
Tensor Tensor::isposinf() const { return ember::isposinf(*this); }
Tensor Tensor::isneginf() const { return ember::isneginf(*this); }
Tensor Tensor::signbit() const { return ember::signbit(*this); }
Tensor Tensor::positive() const { return ember::positive(*this); }

// ---- special functions ----

Tensor Tensor::lgamma() const { return ember::lgamma(*this); }
Tensor Tensor::digamma() const { return ember::digamma(*this); }
Tensor Tensor::polygamma(int64_t n) const { return ember::polygamma(n, *this); }
Tensor Tensor::erfinv() const { return ember::erfinv(*this); }
Tensor Tensor::mvlgamma(int64_t p) const { return ember::mvlgamma(*this, p); }
Tensor& Tensor::lgamma_() {
  return inplace_unary(*this, "lgamma_", [](const Tensor& s) { return ember::lgamma(s); });
}
Tensor& Tensor::digamma_() {
  return inplace_unary(*this, "digamma_", [](const Tensor& s) { return ember::digamma(s); });
}
Tensor& Tensor::polygamma_(int64_t n) {
  return inplace_unary(*this, "polygamma_", [n](const Tensor& s) { return ember::polygamma(n, s); });
}
Tensor& Tensor::erfinv_() {
  return inplace_unary(*this, "erfinv_", [](const Tensor& s) { return ember::erfinv(s); });
}
Tensor& Tensor::mvlgamma_(int64_t p) {
  return inplace_unary(*this, "mvlgamma_", [p](const Tensor& s) { return ember::mvlgamma(s, p); });
}

// ---- bit functions ----

Tensor Tensor::bitwise_and(const Tensor& other) const { return ember::bitwise_and(*this, other); }
Tensor Tensor::bitwise_and(const Scalar& other) const { return ember::bitwise_and(*this, other); }
Tensor Tensor::bitwise_or(const Tensor& other) const { return ember::bitwise_or(*this, other); }
Tensor Tensor::bitwise_or(const Scalar& other) const { return ember::bitwise_or(*this, other); }
Tensor Tensor::bitwise_xor(const Tensor& other) const { return ember::bitwise_xor(*this, other); }
Tensor Tensor::bitwise_xor(const Scalar& other) const { return ember::bitwise_xor(*this, other); }
Tensor Tensor::bitwise_not() const { return ember::bitwise_not(*this); }
Tensor Tensor::bitwise_left_shift(const Tensor& other) const { return ember::bitwise_left_shift(*this, other); }
Tensor Tensor::bitwise_left_shift(const Scalar& other) const { return ember::bitwise_left_shift(*this, other); }
Tensor Tensor::bitwise_right_shift(const Tensor& other) const { return ember::bitwise_right_shift(*this, other); }
Tensor Tensor::bitwise_right_shift(const Scalar& other) const { return ember::bitwise_right_shift(*this, other); }

namespace {
// One in-place bit function: self = f(self, other), for a Tensor or a Scalar other.
template <typename Other, typename F>
Tensor& bitwise_inplace(Tensor& self, const char* name, const Other& other, F f) {
  return inplace_unary(self, name, [&](const Tensor& s) { return f(s, other); });
}
}  // namespace

#define EMBER_BITWISE_INPLACE(name)                                                             \
  Tensor& Tensor::name##_(const Tensor& other) {                                                \
    return bitwise_inplace(*this, #name "_", other,                                             \
                           [](const Tensor& s, const Tensor& o) { return ember::name(s, o); }); \
  }                                                                                             \
  Tensor& Tensor::name##_(const Scalar& other) {                                                \
    return bitwise_inplace(*this, #name "_", other,                                             \
                           [](const Tensor& s, const Scalar& o) { return ember::name(s, o); }); \
  }
EMBER_BITWISE_INPLACE(bitwise_and)
EMBER_BITWISE_INPLACE(bitwise_or)
EMBER_BITWISE_INPLACE(bitwise_xor)
EMBER_BITWISE_INPLACE(bitwise_left_shift)
EMBER_BITWISE_INPLACE(bitwise_right_shift)
#undef EMBER_BITWISE_INPLACE

Tensor& Tensor::bitwise_not_() {
  return inplace_unary(*this, "bitwise_not_", [](const Tensor& s) { return ember::bitwise_not(s); });
}
Tensor Tensor::gcd(const Tensor& other) const { return ember::gcd(*this, other); }
Tensor Tensor::lcm(const Tensor& other) const { return ember::lcm(*this, other); }
Tensor& Tensor::gcd_(const Tensor& other) { return ember::gcd_(*this, other); }
Tensor& Tensor::lcm_(const Tensor& other) { return ember::lcm_(*this, other); }
std::tuple<Tensor, Tensor> Tensor::frexp() const { return ember::frexp(*this); }
Tensor Tensor::ldexp(const Tensor& other) const { return ember::ldexp(*this, other); }
Tensor& Tensor::ldexp_(const Tensor& other) { return ember::ldexp_(*this, other); }
Tensor Tensor::nextafter(const Tensor& other) const { return ember::nextafter(*this, other); }
Tensor& Tensor::nextafter_(const Tensor& other) {
  return inplace_unary(*this, "nextafter_", [&](const Tensor& s) { return ember::nextafter(s, other); });
}
Tensor Tensor::copysign(const Tensor& other) const { return ember::copysign(*this, other); }
Tensor Tensor::copysign(const Scalar& other) const { return ember::copysign(*this, other); }
Tensor& Tensor::copysign_(const Tensor& other) {
  return inplace_unary(*this, "copysign_", [&](const Tensor& s) { return ember::copysign(s, other); });
}
Tensor& Tensor::copysign_(const Scalar& other) {
  return inplace_unary(*this, "copysign_", [&](const Tensor& s) { return ember::copysign(s, other); });
}

// ---- in-place comparisons and logicals: the bool result in self's dtype ----

#define EMBER_INPLACE_COMPARISON(name)                                                                  \
  Tensor& Tensor::name##_(const Tensor& other) {                                                       \
    return inplace_unary(*this, #name "_", [&](const Tensor& s) { return s.name(other).to(s.dtype()); }); \
  }                                                                                                    \
  Tensor& Tensor::name##_(const Scalar& other) {                                                       \
    return inplace_unary(*this, #name "_", [&](const Tensor& s) { return s.name(other).to(s.dtype()); }); \
  }
EMBER_INPLACE_COMPARISON(eq)
EMBER_INPLACE_COMPARISON(ne)
EMBER_INPLACE_COMPARISON(lt)
EMBER_INPLACE_COMPARISON(le)
EMBER_INPLACE_COMPARISON(gt)
EMBER_INPLACE_COMPARISON(ge)
#undef EMBER_INPLACE_COMPARISON

Tensor& Tensor::logical_and_(const Tensor& other) {
  return inplace_unary(*this, "logical_and_", [&](const Tensor& s) { return s.logical_and(other).to(s.dtype()); });
}
Tensor& Tensor::logical_or_(const Tensor& other) {
  return inplace_unary(*this, "logical_or_", [&](const Tensor& s) { return s.logical_or(other).to(s.dtype()); });
}
Tensor& Tensor::logical_xor_(const Tensor& other) {
  return inplace_unary(*this, "logical_xor_", [&](const Tensor& s) { return s.logical_xor(other).to(s.dtype()); });
}
Tensor& Tensor::logical_not_() {
  return inplace_unary(*this, "logical_not_", [](const Tensor& s) { return s.logical_not().to(s.dtype()); });
}

// ---- other in-place forms of existing ops ----

Tensor& Tensor::tril_(int64_t diagonal) {
  return inplace_unary(*this, "tril_", [&](const Tensor& s) { return s.tril(diagonal); });
}
Tensor& Tensor::triu_(int64_t diagonal) {
  return inplace_unary(*this, "triu_", [&](const Tensor& s) { return s.triu(diagonal); });
}
Tensor& Tensor::fmod_(const Tensor& other) {
  return inplace_unary(*this, "fmod_", [&](const Tensor& s) { return s.fmod(other); });
}
Tensor& Tensor::fmod_(const Scalar& other) {
  return inplace_unary(*this, "fmod_", [&](const Tensor& s) { return s.fmod(other); });
}
Tensor& Tensor::remainder_(const Tensor& other) {
  return inplace_unary(*this, "remainder_", [&](const Tensor& s) { return s.remainder(other); });
}
Tensor& Tensor::remainder_(const Scalar& other) {
  return inplace_unary(*this, "remainder_", [&](const Tensor& s) { return s.remainder(other); });
}

// ---- small ops and queries ----

Tensor Tensor::multinomial(int64_t num_samples, bool replacement, std::optional<Generator> generator) const {
  return ember::multinomial(*this, num_samples, replacement, generator);
}

// c10's isSignedType: every dtype but bool and uint8.
bool Tensor::is_signed() const { return dtype() != kBool && dtype() != kUInt8; }

// ATen's sum_to: the leading dims beyond size's, and the dims where size has 1 and self does not.
Tensor Tensor::sum_to_size(IntArrayRef size) const {
  EMBER_TRACE_OP();
  const auto lead = dim() - static_cast<int64_t>(size.size());
  bool expandable = lead >= 0;
  for (size_t i = 0; expandable && i < size.size(); ++i)
    expandable = size[i] == sizes()[lead + i] || size[i] == 1;
  EMBER_CHECK(expandable, "sum_to_size: size {} is not expandable to size {}", size, sizes());
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < dim(); ++d)
    if (d < lead || (size[d - lead] == 1 && sizes()[d] != 1)) dims.push_back(d);
  if (dims.empty()) return view(size);
  return sum(dims, /*keepdim=*/true).view(size);
}

// Storage for the furthest element the strides reach, viewed with them.
Tensor Tensor::new_empty_strided(IntArrayRef size, IntArrayRef stride, const TensorOptions& options) const {
  EMBER_CHECK(size.size() == stride.size(), "new_empty_strided: got {} sizes and {} strides", size.size(),
              stride.size());
  int64_t extent = 1;
  for (size_t i = 0; i < size.size(); ++i) {
    EMBER_CHECK(size[i] >= 0 && stride[i] >= 0, "new_empty_strided: negative size or stride in {} / {}", size,
                stride);
    if (size[i] == 0) extent = 0;
  }
  if (extent) {
    for (size_t i = 0; i < size.size(); ++i) extent += (size[i] - 1) * stride[i];
  }
  return new_empty({extent}, options).as_strided(size, stride, 0);
}

// c10's fill_diagonal_: element i of the diagonal sits i * (sum of the dense strides) into the
// tensor; with wrap, a matrix taller than cols + 1 continues that step to its end.
Tensor& Tensor::fill_diagonal_(const Scalar& fill_value, bool wrap) {
  EMBER_TRACE_OP();
  EMBER_CHECK(dim() >= 2, "fill_diagonal_: dimensions must larger than 1, got shape {}", sizes());
  for (int64_t d = 2; d < dim(); ++d)
    EMBER_CHECK(size(d) == size(0), "fill_diagonal_: all dimensions of input must be of equal length, got shape {}",
                sizes());
  const std::vector<int64_t> dense = contiguous_strides(sizes());
  int64_t step = 0;
  for (int64_t s : dense) step += s;
  int64_t count = std::min(size(0), size(1));
  if (wrap && dim() == 2 && size(0) > size(1) + 1) count = (numel() + step - 1) / step;
  std::vector<int64_t> at(count);
  for (int64_t i = 0; i < count; ++i) at[i] = i * step;
  const TensorOptions here = TensorOptions().device(device());
  Tensor mask = zeros({numel()}, here.dtype(kBool));
  if (count > 0) mask = mask.index_fill(0, from_vector(at, {count}, here.dtype(kInt64)), true);
  return masked_fill_(mask.view(sizes()), fill_value);
}

std::tuple<Tensor, Tensor> Tensor::aminmax(std::optional<int64_t> dim, bool keepdim) const {
  EMBER_TRACE_OP();
  if (dim) return {amin({*dim}, keepdim), amax({*dim}, keepdim)};
  return {amin({}, keepdim), amax({}, keepdim)};
}

// d/dx = 1 where |x| > lambd, else 0
Tensor Tensor::hardshrink(const Scalar& lambd) const {
  EMBER_TRACE_OP();
  const double lambda = lambd.toDouble();
  Tensor inside;
  {
    NoGradGuard no_grad;
    inside = ge(-lambda).logical_and(le(lambda));
  }
  return ember::where(inside, scalar_tensor(0, options().requires_grad(false)), *this);
}

// d/dx = x > 0 ? 1 : w;  d/dw = x > 0 ? 0 : x (summed over everything but the channel)
Tensor Tensor::prelu(const Tensor& weight) const {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::prelu, {*this, weight}}) return cast[0].prelu(cast[1]);
  EMBER_CHECK(weight.defined() && weight.dim() <= 1, "prelu: weight must be a 1-D tensor, got {}",
              weight.defined() ? weight.sizes() : IntArrayRef{});
  EMBER_CHECK(is_floating_point() && weight.dtype() == dtype(),
              "prelu: input ({}) and weight ({}) must be floating point of the same dtype", dtype_name(dtype()),
              dtype_name(weight.dtype()));
  const int64_t num_parameters = weight.numel();
  Tensor w = weight.reshape({-1});
  if (num_parameters != 1) {
    const int64_t channels = dim() >= 2 ? size(1) : 1;
    EMBER_CHECK(num_parameters == channels,
                "prelu: mismatch of parameter numbers and input channel size. Found parameter numbers = {} and "
                "channel size = {} (input {})",
                num_parameters, channels, sizes());
    std::vector<int64_t> shape(static_cast<size_t>(dim() - 1), 1);
    shape[0] = num_parameters;  // (C, 1, ..., 1): broadcasts along dim 1
    w = w.reshape(shape);
  }
  Tensor positive;
  {
    NoGradGuard no_grad;
    positive = gt(0);
  }
  return ember::where(positive, *this, *this * w);
}

// ---- libtorch's remaining small methods ----

bool Tensor::is_set_to(const Tensor& other) const {
  return defined() && other.defined() && storage() == other.storage() && storage_offset() == other.storage_offset() &&
         sizes() == other.sizes() && strides() == other.strides();
}

Tensor& Tensor::set_(const Tensor& source) {
  EMBER_CHECK(source.defined(), "set_: the source is an undefined tensor");
  EMBER_CHECK(!(GradMode::is_enabled() && requires_grad()),
              "set_: a tensor that requires grad cannot take another's storage in grad mode; use "
              "torch::NoGradGuard, or set_data");
  EMBER_CHECK(source.device() == device(), "set_: the source is on {} but this tensor is on {}", source.device().str(),
              device().str());
  set_data(source);
  bump_version();
  return *this;
}

Tensor Tensor::isreal() const { return ones_like(*this, TensorOptions().dtype(kBool)); }

Tensor Tensor::numpy_T() const {
  std::vector<int64_t> reversed(static_cast<size_t>(dim()));
  for (int64_t d = 0; d < dim(); ++d) reversed[static_cast<size_t>(d)] = dim() - 1 - d;
  return permute(reversed);
}

// As ATen's renorm: factor = maxnorm / (norm + 1e-7) where norm > maxnorm, else 1, with norm the
// p-norm of each slice along dim; composed, so the gradient is renorm_backward's.
Tensor Tensor::renorm(const Scalar& p, int64_t dim_, const Scalar& maxnorm) const {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::renorm, {*this}}) return cast[0].renorm(p, dim_, maxnorm);
  EMBER_CHECK(is_floating_point(), "renorm: expected a floating-point tensor, got {}", dtype_name(dtype()));
  EMBER_CHECK(p.toDouble() > 0, "renorm: non-positive-norm not supported");
  EMBER_CHECK(maxnorm.toDouble() >= 0, "renorm: expected maxnorm to be >= 0 but got {}", maxnorm.toDouble());
  EMBER_CHECK(this->dim() > 1, "renorm: input needs at least 2 dimensions, got {} dimensions", this->dim());
  const int64_t d = wrap_dim(dim_, this->dim(), "renorm");
  std::vector<int64_t> others;
  for (int64_t k = 0; k < this->dim(); ++k) {
    if (k != d) others.push_back(k);
  }
  const Tensor norm = linalg::vector_norm(*this, p, others, /*keepdim=*/true);
  const Tensor factor = ember::where(norm.gt(maxnorm), (norm + 1e-7).reciprocal() * maxnorm, ones_like(norm));
  return *this * factor;
}

Tensor& Tensor::renorm_(const Scalar& p, int64_t dim_, const Scalar& maxnorm) {
  return inplace_unary(*this, "renorm_", [&](const Tensor& x) { return x.renorm(p, dim_, maxnorm); });
}

tensor_list Tensor::nonzero_numpy() const {
  const Tensor indices = (dim() == 0 ? reshape({1}) : *this).nonzero();
  return indices.unbind(1);
}

Tensor Tensor::igamma(const Tensor& other) const { return special::gammainc(*this, other); }
Tensor& Tensor::igamma_(const Tensor& other) {
  return inplace_unary(*this, "igamma_", [&](const Tensor& s) { return special::gammainc(s, other); });
}
Tensor Tensor::igammac(const Tensor& other) const { return special::gammaincc(*this, other); }
Tensor& Tensor::igammac_(const Tensor& other) {
  return inplace_unary(*this, "igammac_", [&](const Tensor& s) { return special::gammaincc(s, other); });
}
std::tuple<Tensor, Tensor> Tensor::geqrf() const { return ember::geqrf(*this); }
Tensor Tensor::orgqr(const Tensor& input2) const { return ember::orgqr(*this, input2); }
Tensor Tensor::ormqr(const Tensor& input2, const Tensor& input3, bool left, bool transpose) const {
  return ember::ormqr(*this, input2, input3, left, transpose);
}
std::tuple<Tensor, Tensor> Tensor::symeig(bool eigenvectors, bool upper) const {
  return ember::symeig(*this, eigenvectors, upper);
}
std::tuple<Tensor, Tensor> Tensor::histogram(const Tensor& bins, const std::optional<Tensor>& weight,
                                             bool density) const {
  return ember::histogram(*this, bins, weight, density);
}
std::tuple<Tensor, Tensor> Tensor::histogram(int64_t bins, std::optional<ArrayRef<double>> range,
                                             const std::optional<Tensor>& weight, bool density) const {
  return ember::histogram(*this, bins, range, weight, density);
}
Tensor Tensor::index_reduce(int64_t dim, const Tensor& index, const Tensor& source, std::string_view reduce,
                            bool include_self) const {
  return ember::index_reduce(*this, dim, index, source, reduce, include_self);
}
Tensor& Tensor::index_reduce_(int64_t dim, const Tensor& index, const Tensor& source, std::string_view reduce,
                              bool include_self) {
  return inplace_unary(*this, "index_reduce_", [&](const Tensor& s) {
    return ember::index_reduce(s, dim, index, source, reduce, include_self);
  });
}
Tensor Tensor::i0() const { return special::i0(*this); }
Tensor& Tensor::i0_() {
  return inplace_unary(*this, "i0_", [](const Tensor& x) { return special::i0(x); });
}

Tensor Tensor::lu_solve(const Tensor& LU_data, const Tensor& LU_pivots) const {
  return linalg::lu_solve(LU_data, LU_pivots, *this);
}

// ---- operators ----

Tensor operator&(const Tensor& a, const Tensor& b) { return bitwise_and(a, b); }
Tensor operator&(const Tensor& a, const Scalar& b) { return bitwise_and(a, b); }
Tensor operator&(const Scalar& a, const Tensor& b) { return bitwise_and(b, a); }
Tensor operator|(const Tensor& a, const Tensor& b) { return bitwise_or(a, b); }
Tensor operator|(const Tensor& a, const Scalar& b) { return bitwise_or(a, b); }
Tensor operator|(const Scalar& a, const Tensor& b) { return bitwise_or(b, a); }
Tensor operator^(const Tensor& a, const Tensor& b) { return bitwise_xor(a, b); }
Tensor operator^(const Tensor& a, const Scalar& b) { return bitwise_xor(a, b); }
Tensor operator^(const Scalar& a, const Tensor& b) { return bitwise_xor(b, a); }
Tensor operator~(const Tensor& a) { return bitwise_not(a); }
Tensor& operator&=(Tensor& a, const Tensor& b) { return a.bitwise_and_(b); }
Tensor& operator|=(Tensor& a, const Tensor& b) { return a.bitwise_or_(b); }
Tensor& operator^=(Tensor& a, const Tensor& b) { return a.bitwise_xor_(b); }

}  // namespace ember
