// ATen's free functions that libtorch programs call as torch::kron, torch::cdist, torch::bucketize, ...,
// composed from Ember's ops (autograd/aten_functions.cpp), so the differentiable ones take their
// gradients from those ops and run on every device. The special and bit functions (lgamma, digamma,
// bitwise_and, gcd, ...) compute on the host (autograd/aten_special.cpp). The searching and counting ones (bucketize,
// searchsorted, histc, bincount, isin, and cummax's/cummin's indices) compute on the host and return
// on the input's device; they have no gradient, as in PyTorch (cummax's values do: a gather at the
// indices). Arguments, defaults and errors follow libtorch 1.13.
//
//   Tensor k = ember::kron(a, b);                         // (a0 * b0, a1 * b1, ...)
//   Tensor d = ember::cdist(x1, x2);                      // (B, P, M), (B, R, M) -> (B, P, R)
//   Tensor i = ember::bucketize(x, boundaries);           // int64 bucket of each element
//   auto [values, indices] = ember::cummax(x, 0);
//   Tensor g = ember::lgamma(x);                          // log|Gamma(x)|, d/dx = digamma(x)
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <tuple>

#include "core/tensor.h"

namespace ember {

// ---- products ----
// The Kronecker product; the shorter shape is padded with leading 1s.
Tensor kron(const Tensor& self, const Tensor& other);
// Contracts dims_a of a with dims_b of b (pairwise, equal sizes): the free dims of a, then of b.
Tensor tensordot(const Tensor& a, const Tensor& b, IntArrayRef dims_a, IntArrayRef dims_b);
// The p-norm distance between each row of x1 (..., P, M) and of x2 (..., R, M): (..., P, R), batch
// dims broadcast. compute_mode is accepted for libtorch's signature; the result is the direct one.
Tensor cdist(const Tensor& x1, const Tensor& x2, double p = 2.0, std::optional<int64_t> compute_mode = std::nullopt);
// The cross product of 3-vectors along dim (broadcast). cross without dim takes the first dim of
// size 3, as libtorch 1.13's deprecated default; linalg_cross's dim is -1.
Tensor cross(const Tensor& self, const Tensor& other, std::optional<int64_t> dim = std::nullopt);
Tensor linalg_cross(const Tensor& self, const Tensor& other, int64_t dim = -1);
// Every combination of the elements of 1-d tensors, as rows (n1 * n2 * ..., k); one tensor: itself.
Tensor cartesian_prod(const tensor_list& tensors);

// Einstein summation: "ij,jk->ik" multiplies matrices, "ii" is the trace, "...ij->...ji" transposes
// the last two dims. Subscripts [a-zA-Z], one "..." per operand; without "->" the output is the
// ellipsis dims then the subscripts seen once, in ASCII order. Size-1 dims broadcast. Contracted left
// to right with batched matrix products; path (libtorch's contraction order) is accepted and unused.
Tensor einsum(std::string_view equation, const tensor_list& tensors, std::optional<IntArrayRef> path = std::nullopt);
// beta * self + alpha * (the product), self broadcast to the product's shape; with beta 0, self is
// not read (a NaN in it does not propagate).
Tensor addmv(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta = 1, const Scalar& alpha = 1);
Tensor addr(const Tensor& self, const Tensor& vec1, const Tensor& vec2, const Scalar& beta = 1,
            const Scalar& alpha = 1);
Tensor baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta = 1,
               const Scalar& alpha = 1);
// The batched products summed over the batch: (n, p).
Tensor addbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta = 1,
              const Scalar& alpha = 1);
// Sums over the last dims of both: (..a, n) and (..b, n) give (..a, ..b); a 0-d operand multiplies.
Tensor inner(const Tensor& self, const Tensor& other);
// The dot product of two 1-d tensors (real: no conjugation to do).
Tensor vdot(const Tensor& self, const Tensor& other);
// The product of 2-d tensors left to right (libtorch 1.13 deprecates it for linalg_multi_dot).
Tensor chain_matmul(const tensor_list& matrices);

// ---- arranging ----
// Flipped left-right (dim 1, needs 2-d) and up-down (dim 0, needs 1-d).
Tensor fliplr(const Tensor& self);
Tensor flipud(const Tensor& self);
// tensor_split along dim 1 (dim 0 for 1-d), 0 and 2; a count of sections must divide the dim.
tensor_list hsplit(const Tensor& self, int64_t sections);
tensor_list hsplit(const Tensor& self, IntArrayRef indices);
tensor_list vsplit(const Tensor& self, int64_t sections);
tensor_list vsplit(const Tensor& self, IntArrayRef indices);
tensor_list dsplit(const Tensor& self, int64_t sections);
tensor_list dsplit(const Tensor& self, IntArrayRef indices);
// cat under its other names.
Tensor concat(const tensor_list& tensors, int64_t dim = 0);
Tensor concatenate(const tensor_list& tensors, int64_t dim = 0);
// Each tensor expanded (a view) to the shape they broadcast to.
tensor_list broadcast_tensors(const tensor_list& tensors);
// The flattened input on the offset diagonal of a square matrix.
Tensor diagflat(const Tensor& self, int64_t offset = 0);
// Sorted along dim 0 (the values of sort(0)).
Tensor msort(const Tensor& self);
// The elements at the given indices of the flattened input, in the indices' shape.
Tensor take(const Tensor& self, const Tensor& index);
// Each element (or slice along dim) repeated: repeats one count or one per element. Without dim the
// input is flattened. The Tensor-only form gives the indices: repeat_interleave([2, 1]) = [0, 0, 1].
Tensor repeat_interleave(const Tensor& self, int64_t repeats, std::optional<int64_t> dim = std::nullopt,
                         std::optional<int64_t> output_size = std::nullopt);
Tensor repeat_interleave(const Tensor& self, const Tensor& repeats, std::optional<int64_t> dim = std::nullopt,
                         std::optional<int64_t> output_size = std::nullopt);
Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> output_size = std::nullopt);
// gather with broadcasting of the dims other than dim; without dim, of the flattened tensors.
Tensor take_along_dim(const Tensor& self, const Tensor& indices, std::optional<int64_t> dim = std::nullopt);
// Rotated by 90 degrees k times in the plane of dims, from dims[0] towards dims[1].
Tensor rot90(const Tensor& self, int64_t k = 1, IntArrayRef dims = {0, 1});
// The last dim of self laid on the offset diagonal of the new dims dim1 and dim2 of the result.
Tensor diag_embed(const Tensor& self, int64_t offset = 0, int64_t dim1 = -2, int64_t dim2 = -1);
// The tensors (0-, 1- or 2-d) on the diagonal of one matrix, zeros elsewhere, in their promoted dtype.
Tensor block_diag(const tensor_list& tensors);
// The (2, N) row and column indices of a (row, col) matrix's lower (upper) triangle from `offset`.
Tensor tril_indices(int64_t row, int64_t col, int64_t offset = 0, const TensorOptions& options = dtype(kInt64));
Tensor triu_indices(int64_t row, int64_t col, int64_t offset = 0, const TensorOptions& options = dtype(kInt64));

// ---- cumulative extremes: values and the index where each was reached (the last of ties) ----
std::tuple<Tensor, Tensor> cummax(const Tensor& self, int64_t dim);
std::tuple<Tensor, Tensor> cummin(const Tensor& self, int64_t dim);

// ---- elementwise ----
// maximum/minimum that take the number where one side is NaN; the gradient goes to self on ties.
Tensor fmax(const Tensor& self, const Tensor& other);
Tensor fmin(const Tensor& self, const Tensor& other);
// 0 where x < 0, values where x == 0, 1 where x > 0 (same dtype; no gradient, as in PyTorch).
Tensor heaviside(const Tensor& self, const Tensor& values);
// +inf / -inf (false for integers); the sign bit (true for -0.0 and a NaN with its sign bit set).
Tensor isposinf(const Tensor& self);
Tensor isneginf(const Tensor& self);
Tensor signbit(const Tensor& self);
// self itself (unary +); refused for bool, as in PyTorch.
Tensor positive(const Tensor& self);
// other - alpha * self.
Tensor rsub(const Tensor& self, const Tensor& other, const Scalar& alpha = 1);
Tensor rsub(const Tensor& self, const Scalar& other, const Scalar& alpha = 1);
// The p-norm of self - other (broadcast).
Tensor dist(const Tensor& self, const Tensor& other, const Scalar& p = 2);
// log(cumsum(exp(self))) along dim, without overflow or underflow.
Tensor logcumsumexp(const Tensor& self, int64_t dim);

// ---- special functions (autograd/aten_special.cpp; integers and bool compute in the default float dtype) ----
// log|Gamma(x)| (inf at 0 and the negative integers); d/dx = digamma(x).
Tensor lgamma(const Tensor& self);
// psi(x) = d/dx lgamma(x): -inf at +0, +inf at -0, NaN at the negative integers; d/dx = polygamma(1, x).
Tensor digamma(const Tensor& self);
// The n-th derivative of digamma (n >= 0; n = 0 is digamma); d/dx = polygamma(n + 1, x).
Tensor polygamma(int64_t n, const Tensor& self);
// The inverse of erf on [-1, 1] (+-inf at +-1, NaN outside); d/dx = sqrt(pi)/2 exp(erfinv(x)^2).
Tensor erfinv(const Tensor& self);
// The multivariate log-gamma function of dimension p >= 1, elementwise (no domain check, as in
// PyTorch 1.13: below (p-1)/2 it sums lgamma of negative arguments).
Tensor mvlgamma(const Tensor& self, int64_t p);

// ---- bit functions (autograd/aten_special.cpp; no gradients but frexp's mantissa, ldexp, copysign) ----
// and, or, xor of bool or integer tensors in the dtype PyTorch promotes to; floating is an error.
Tensor bitwise_and(const Tensor& self, const Tensor& other);
Tensor bitwise_and(const Tensor& self, const Scalar& other);
Tensor bitwise_and(const Scalar& self, const Tensor& other);
Tensor bitwise_or(const Tensor& self, const Tensor& other);
Tensor bitwise_or(const Tensor& self, const Scalar& other);
Tensor bitwise_or(const Scalar& self, const Tensor& other);
Tensor bitwise_xor(const Tensor& self, const Tensor& other);
Tensor bitwise_xor(const Tensor& self, const Scalar& other);
Tensor bitwise_xor(const Scalar& self, const Tensor& other);
// ~x (logical not for bool).
Tensor bitwise_not(const Tensor& self);
// Shifts of integer tensors; a count outside [0, bits) is taken modulo 64 for int64 and modulo 32
// for the narrower types (PyTorch 1.13's plain C++ shift on x86).
Tensor bitwise_left_shift(const Tensor& self, const Tensor& other);
Tensor bitwise_left_shift(const Tensor& self, const Scalar& other);
Tensor bitwise_left_shift(const Scalar& self, const Tensor& other);
Tensor bitwise_right_shift(const Tensor& self, const Tensor& other);
Tensor bitwise_right_shift(const Tensor& self, const Scalar& other);
Tensor bitwise_right_shift(const Scalar& self, const Tensor& other);
// The greatest common divisor and least common multiple of integer tensors (non-negative).
Tensor gcd(const Tensor& self, const Tensor& other);
Tensor lcm(const Tensor& self, const Tensor& other);
Tensor& gcd_(Tensor& self, const Tensor& other);
Tensor& lcm_(Tensor& self, const Tensor& other);
// self = mantissa * 2^exponent with |mantissa| in [0.5, 1): (mantissa in self's dtype, int32 exponent).
std::tuple<Tensor, Tensor> frexp(const Tensor& self);
// self * 2^other.
Tensor ldexp(const Tensor& self, const Tensor& other);
Tensor& ldexp_(Tensor& self, const Tensor& other);
// The next float after self towards other (float32, float64).
Tensor nextafter(const Tensor& self, const Tensor& other);
// |self| with the sign of other (its sign bit: -0.0 counts), as a floating tensor.
Tensor copysign(const Tensor& self, const Tensor& other);
Tensor copysign(const Tensor& self, const Scalar& other);

// ---- numerical integration and statistics ----
// The trapezoid rule along dim, with sample points x (1-d, or broadcasting with y) or a spacing dx;
// trapz is the old name; cumulative_trapezoid keeps the running sums (one fewer along dim).
Tensor trapezoid(const Tensor& y, const Tensor& x, int64_t dim = -1);
Tensor trapezoid(const Tensor& y, const Scalar& dx = 1, int64_t dim = -1);
Tensor trapz(const Tensor& y, const Tensor& x, int64_t dim = -1);
Tensor trapz(const Tensor& y, double dx = 1, int64_t dim = -1);
Tensor cumulative_trapezoid(const Tensor& y, const Tensor& x, int64_t dim = -1);
Tensor cumulative_trapezoid(const Tensor& y, const Scalar& dx = 1, int64_t dim = -1);
// The covariance of the rows of self (variables, observations), or of a 1-d tensor's values; weights
// per observation (fweights integer counts, aweights importance); correction 1: Bessel's.
Tensor cov(const Tensor& self, int64_t correction = 1, const std::optional<Tensor>& fweights = {},
           const std::optional<Tensor>& aweights = {});
// Pearson's correlation coefficients of the rows, clipped to [-1, 1].
Tensor corrcoef(const Tensor& self);
// The Vandermonde matrix of a 1-d x: columns x^(N-1) ... x^0 (increasing: x^0 ... x^(N-1)).
Tensor vander(const Tensor& x, std::optional<int64_t> N = std::nullopt, bool increasing = false);

// ---- sequences and windows (the default dtype unless options say) ----
// base ** linspace(start, end, steps).
Tensor logspace(const Scalar& start, const Scalar& end, int64_t steps, double base = 10.0,
                const TensorOptions& options = {});
// start, start + step, ... up to end inclusive (deprecated in libtorch for arange).
Tensor range(const Scalar& start, const Scalar& end, const Scalar& step = 1, const TensorOptions& options = {});
Tensor range(const Scalar& start, const Scalar& end, const TensorOptions& options);
// Signal windows of window_length points; periodic (the default) drops the last point of the
// symmetric window of window_length + 1.
Tensor hann_window(int64_t window_length, const TensorOptions& options = {});
Tensor hann_window(int64_t window_length, bool periodic, const TensorOptions& options = {});
Tensor hamming_window(int64_t window_length, const TensorOptions& options = {});
Tensor hamming_window(int64_t window_length, bool periodic, const TensorOptions& options = {});
Tensor hamming_window(int64_t window_length, bool periodic, double alpha, const TensorOptions& options = {});
Tensor hamming_window(int64_t window_length, bool periodic, double alpha, double beta,
                      const TensorOptions& options = {});
Tensor blackman_window(int64_t window_length, const TensorOptions& options = {});
Tensor blackman_window(int64_t window_length, bool periodic, const TensorOptions& options = {});
Tensor bartlett_window(int64_t window_length, const TensorOptions& options = {});
Tensor bartlett_window(int64_t window_length, bool periodic, const TensorOptions& options = {});

// ---- searching and counting ----
// The bucket of each element: i with boundaries[i-1] < x <= boundaries[i] (right: <= x <).
Tensor bucketize(const Tensor& self, const Tensor& boundaries, bool out_int32 = false, bool right = false);
Tensor bucketize(const Scalar& self, const Tensor& boundaries, bool out_int32 = false, bool right = false);
// Where each value would be inserted into the innermost rows of sorted_sequence (1-d, or with the
// leading dims of self) to keep them sorted; side "left"/"right" or right; sorter sorts an unsorted
// sequence.
Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& self, bool out_int32 = false, bool right = false,
                    std::optional<std::string_view> side = std::nullopt, const std::optional<Tensor>& sorter = {});
Tensor searchsorted(const Tensor& sorted_sequence, const Scalar& self, bool out_int32 = false, bool right = false,
                    std::optional<std::string_view> side = std::nullopt, const std::optional<Tensor>& sorter = {});
// A histogram of a floating tensor's values in `bins` equal bins over [min, max] (both 0: the data's
// range); values outside are not counted.
Tensor histc(const Tensor& self, int64_t bins = 100, const Scalar& min = 0, const Scalar& max = 0);
// torch.histogram: counts (or summed weights) of a floating tensor's elements per bin, and the edges.
// An element lands in the last bin whose left edge it reaches (the last bin also holds the last edge);
// elements outside the edges are left out. density divides by the total and each bin's width.
// bins as a number: equal bins over range (default the data's min and max, widened by 0.5 each way
// when they are equal). Computed on the host; no gradient.
std::tuple<Tensor, Tensor> histogram(const Tensor& self, const Tensor& bins, const std::optional<Tensor>& weight = {},
                                     bool density = false);
std::tuple<Tensor, Tensor> histogram(const Tensor& self, int64_t bins = 100,
                                     std::optional<ArrayRef<double>> range = std::nullopt,
                                     const std::optional<Tensor>& weight = {}, bool density = false);
// index_reduce along dim: source's slices folded into self's at index ("prod", "mean", "amax",
// "amin"; include_self counts self's value), as scatter_reduce with index spread over source's shape.
Tensor index_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, std::string_view reduce,
                    bool include_self = true);
// How often each value of a 1-d non-negative integer tensor occurs (or the sum of its weights).
Tensor bincount(const Tensor& self, const std::optional<Tensor>& weights = {}, int64_t minlength = 0);
// Whether each element is in test_elements (invert: is not).
Tensor isin(const Tensor& elements, const Tensor& test_elements, bool assume_unique = false, bool invert = false);
Tensor isin(const Tensor& elements, const Scalar& test_element, bool assume_unique = false, bool invert = false);
Tensor isin(const Scalar& element, const Tensor& test_elements, bool assume_unique = false, bool invert = false);

}  // namespace ember
