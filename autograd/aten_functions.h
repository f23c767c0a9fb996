// ATen's free functions that libtorch programs call as torch::kron, torch::cdist, torch::bucketize, ...,
// composed from Ember's ops (autograd/aten_functions.cpp), so the differentiable ones take their
// gradients from those ops and run on every device. The searching and counting ones (bucketize,
// searchsorted, histc, bincount, isin, and cummax's/cummin's indices) compute on the host and return
// on the input's device; they have no gradient, as in PyTorch (cummax's values do: a gather at the
// indices). Arguments, defaults and errors follow libtorch 1.13.
//
//   Tensor k = ember::kron(a, b);                         // (a0 * b0, a1 * b1, ...)
//   Tensor d = ember::cdist(x1, x2);                      // (B, P, M), (B, R, M) -> (B, P, R)
//   Tensor i = ember::bucketize(x, boundaries);           // int64 bucket of each element
//   auto [values, indices] = ember::cummax(x, 0);
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

// ---- arranging ----
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
// How often each value of a 1-d non-negative integer tensor occurs (or the sum of its weights).
Tensor bincount(const Tensor& self, const std::optional<Tensor>& weights = {}, int64_t minlength = 0);
// Whether each element is in test_elements (invert: is not).
Tensor isin(const Tensor& elements, const Tensor& test_elements, bool assume_unique = false, bool invert = false);
Tensor isin(const Tensor& elements, const Scalar& test_element, bool assume_unique = false, bool invert = false);
Tensor isin(const Scalar& element, const Tensor& test_elements, bool assume_unique = false, bool invert = false);

}  // namespace ember
