// torch.linalg on Ember: the decompositions through LAPACK (OpenBLAS's, core/cpu/lapack.h) and the
// functions composed from them, with PyTorch 1.13's names, shapes, batching and error texts, plus
// ATen's older names for the same things (ember::det, inverse, cholesky, svd, ...).
//
//   Tensor d = ember::linalg::det(A);                        // (*, n, n) -> (*)
//   auto [sign, logabsdet] = ember::linalg::slogdet(A);
//   Tensor X = ember::linalg::solve(A, B);                   // A X = B, B (*, n) or (*, n, k)
//   auto [L, V] = ember::linalg::eigh(A);                    // ascending eigenvalues
//   auto [U, S, Vh] = ember::linalg::svd(A, false);
//
// Real float32 and float64 only (no complex dtypes in Ember). The LAPACK calls run on a contiguous
// host copy of each batch; a CUDA tensor makes the round trip (no cuSOLVER). Every differentiable
// function's backward is written with these same functions (solve, eigh, svd, ...), so it
// differentiates again; lu_factor, lu and lu_solve have no gradient, nor has qr for a wide matrix.
// lstsq, householder_product, the LDL factorization, geqrf/orgqr/ormqr, lu_unpack, symeig and
// nuclear_norm are in autograd/linalg_lapack.cpp (lu_unpack in linalg.cpp). Not here: eig/eigvals
// (complex results).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

#include "core/tensor.h"

namespace ember::linalg {

// An optional list of dims, as libtorch's OptionalIntArrayRef: {0, 1}, a vector, an IntArrayRef, or
// std::nullopt (all dims).
struct OptionalDims {
  std::optional<std::vector<int64_t>> dims;
  OptionalDims(std::nullopt_t = std::nullopt) {}                      // NOLINT: implicit, as in libtorch
  OptionalDims(std::initializer_list<int64_t> d) : dims(std::vector<int64_t>(d)) {}  // NOLINT
  OptionalDims(IntArrayRef d) : dims(d.vec()) {}                       // NOLINT
  OptionalDims(const std::vector<int64_t>& d) : dims(d) {}             // NOLINT
  OptionalDims(const std::optional<std::vector<int64_t>>& d) : dims(d) {}  // NOLINT
};

// ---- determinants and inverses (LU) ----
Tensor det(const Tensor& A);                                    // (*, n, n) -> (*)
std::tuple<Tensor, Tensor> slogdet(const Tensor& A);            // (sign, log|det|)
Tensor inv(const Tensor& A);                                    // throws on a singular matrix
std::tuple<Tensor, Tensor> inv_ex(const Tensor& A, bool check_errors = false);  // (inverse, int32 info)
// X with A X = B (left) or X A = B; B is (*, n) (a batch of vectors) or (*, n, k); batch dims broadcast.
Tensor solve(const Tensor& A, const Tensor& B, bool left = true);
std::tuple<Tensor, Tensor> solve_ex(const Tensor& A, const Tensor& B, bool left = true, bool check_errors = false);
// X with A X = B for a triangular A (only its `upper` or lower triangle is read).
Tensor solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left = true, bool unitriangular = false);
// LU with partial pivoting: (LU packed, int32 1-based pivots) and the unpacked (P, L, U).
std::tuple<Tensor, Tensor> lu_factor(const Tensor& A, bool pivot = true);
std::tuple<Tensor, Tensor, Tensor> lu_factor_ex(const Tensor& A, bool pivot = true, bool check_errors = false);
std::tuple<Tensor, Tensor, Tensor> lu(const Tensor& A, bool pivot = true);
Tensor lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left = true, bool adjoint = false);

// ---- least squares, Householder products, LDL (autograd/linalg_lapack.cpp) ----
// min ||A X - B|| for A (*, m, n), B (*, m, k) or (*, m) (one dim fewer than A); batch dims broadcast.
// (solution (*, n, k), residuals, rank (int64), singular_values) as PyTorch 1.13's CPU drivers
// 'gelsy' (default), 'gels', 'gelsd', 'gelss': residuals (*, k) only for m > n, a driver other than
// gelsy and full rank; rank except for gels; singular values for gelsd and gelss; the others empty.
// rcond defaults to eps * max(m, n). Only the solution has a gradient (through pinv(A), as 1.13).
std::tuple<Tensor, Tensor, Tensor, Tensor> lstsq(const Tensor& A, const Tensor& B,
                                                 std::optional<double> rcond = std::nullopt,
                                                 std::optional<std::string_view> driver = std::nullopt);
// The first n columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^T, v_i below the diagonal of A's
// column i (1 on it): A (*, m, n), m >= n >= k, tau (*, k). Differentiable in A and tau.
Tensor householder_product(const Tensor& A, const Tensor& tau);
// A = P L D L^T P^T (LAPACK sytrf, lower triangle): LD (*, n, n) packs L and the 1x1/2x2 blocks of
// D; pivots (*, n) int32 in LAPACK's 1-based convention (negative for a 2x2 block); info int32.
// No gradients, as PyTorch 1.13. `hermitian` is the same factorization for real matrices.
std::tuple<Tensor, Tensor> ldl_factor(const Tensor& A, bool hermitian = false);
std::tuple<Tensor, Tensor, Tensor> ldl_factor_ex(const Tensor& A, bool hermitian = false, bool check_errors = false);
Tensor ldl_solve(const Tensor& LD, const Tensor& pivots, const Tensor& B, bool hermitian = false);

// ---- decompositions ----
Tensor cholesky(const Tensor& A, bool upper = false);  // reads A's lower triangle; L with A = L L^T
std::tuple<Tensor, Tensor> cholesky_ex(const Tensor& A, bool upper = false, bool check_errors = false);
// mode "reduced": Q (*, m, k), R (*, k, n); "complete": Q (*, m, m), R (*, m, n); "r": Q empty.
std::tuple<Tensor, Tensor> qr(const Tensor& A, std::string_view mode = "reduced");
// Ascending eigenvalues (*, n) and eigenvectors (*, n, n) of the symmetric matrix in A's UPLO triangle.
std::tuple<Tensor, Tensor> eigh(const Tensor& A, std::string_view UPLO = "L");
Tensor eigvalsh(const Tensor& A, std::string_view UPLO = "L");
// A = U diag(S) Vh, S descending; full_matrices: U (*, m, m), Vh (*, n, n), else k = min(m, n) of them.
// `driver` is accepted for libtorch's signature (CUDA's choice); the CPU has one.
std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& A, bool full_matrices = true,
                                       std::optional<std::string_view> driver = std::nullopt);
Tensor svdvals(const Tensor& A, std::optional<std::string_view> driver = std::nullopt);

// ---- composed ----
Tensor matrix_power(const Tensor& A, int64_t n);  // repeated squaring; n < 0 through inv
Tensor matrix_exp(const Tensor& A);               // scaling and squaring with a [13/13] Pade approximant
Tensor pinv(const Tensor& A, double rcond = 1e-15, bool hermitian = false);
Tensor pinv(const Tensor& A, std::optional<double> atol, std::optional<double> rtol, bool hermitian = false);
Tensor matrix_rank(const Tensor& A, std::optional<double> atol = std::nullopt, std::optional<double> rtol = std::nullopt,
                   bool hermitian = false);
Tensor matrix_rank(const Tensor& A, double tol, bool hermitian = false);
// ord 'fro' or 'nuc' (string), or 1, -1, 2, -2, inf, -inf (number), over the two dims `dim`.
Tensor matrix_norm(const Tensor& A, const Scalar& ord, std::vector<int64_t> dim = {-2, -1}, bool keepdim = false,
                   std::optional<ScalarType> dtype = std::nullopt);
Tensor matrix_norm(const Tensor& A, std::string_view ord = "fro", std::vector<int64_t> dim = {-2, -1},
                   bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
// sum(|x|^ord)^(1/ord) over `dim` (all dims when none); ord inf / -inf / 0 as max, min, count.
Tensor vector_norm(const Tensor& x, const Scalar& ord = 2, OptionalDims dim = std::nullopt,
                   bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
// A vector norm for 1 dim (or 1-d input with no ord), a matrix norm for 2 dims, as torch.linalg.norm.
Tensor norm(const Tensor& x, const std::optional<Scalar>& ord = std::nullopt,
            OptionalDims dim = std::nullopt, bool keepdim = false,
            std::optional<ScalarType> dtype = std::nullopt);
Tensor norm(const Tensor& x, std::string_view ord, OptionalDims dim = std::nullopt,
            bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
// The condition number in the given norm (2 by default: the ratio of extreme singular values).
Tensor cond(const Tensor& A, const std::optional<Scalar>& p = std::nullopt);
Tensor cond(const Tensor& A, std::string_view p);
Tensor multi_dot(const tensor_list& tensors);  // first/last may be 1-d, as torch.linalg.multi_dot
Tensor vecdot(const Tensor& x, const Tensor& y, int64_t dim = -1);
Tensor matmul(const Tensor& a, const Tensor& b);
Tensor diagonal(const Tensor& A, int64_t offset = 0, int64_t dim1 = -2, int64_t dim2 = -1);
Tensor vander(const Tensor& x, std::optional<int64_t> N = std::nullopt);  // x^0, x^1, ..., x^(N-1)
Tensor cross(const Tensor& a, const Tensor& b, int64_t dim = -1);
// The inverse of A read as a matrix (prod(shape[:ind]), prod(shape[ind:])), shaped shape[ind:] + shape[:ind].
Tensor tensorinv(const Tensor& A, int64_t ind = 2);
// X with tensordot(A, X, X.dim()) = B; `dims` of A are moved to the end first.
Tensor tensorsolve(const Tensor& A, const Tensor& B, OptionalDims dims = std::nullopt);

// libtorch's spellings in torch::linalg (linalg_det, linalg_norm).
inline Tensor linalg_det(const Tensor& A) { return det(A); }
inline Tensor linalg_norm(const Tensor& x, const std::optional<Scalar>& ord,
                          OptionalDims dim = std::nullopt, bool keepdim = false,
                          std::optional<ScalarType> dtype = std::nullopt) {
  return norm(x, ord, dim, keepdim, dtype);
}
inline Tensor linalg_norm(const Tensor& x, std::string_view ord, OptionalDims dim = std::nullopt,
                          bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt) {
  return norm(x, ord, dim, keepdim, dtype);
}

}  // namespace ember::linalg

namespace ember {

// ATen's older names (torch.det, torch.inverse, ...): same values, PyTorch 1.13's conventions.
Tensor det(const Tensor& A);
Tensor logdet(const Tensor& A);  // NaN for a negative determinant, -inf for a singular matrix
std::tuple<Tensor, Tensor> slogdet(const Tensor& A);
Tensor inverse(const Tensor& A);
Tensor cholesky(const Tensor& A, bool upper = false);
Tensor cholesky_solve(const Tensor& B, const Tensor& L, bool upper = false);  // A X = B for A = L L^T
Tensor cholesky_inverse(const Tensor& L, bool upper = false);
std::tuple<Tensor, Tensor> qr(const Tensor& A, bool some = true);
// (U, S, V) with V, not V^T, as the old torch.svd; compute_uv false: zero U and V of full size.
std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& A, bool some = true, bool compute_uv = true);
Tensor pinverse(const Tensor& A, double rcond = 1e-15);
Tensor matrix_power(const Tensor& A, int64_t n);
Tensor matrix_exp(const Tensor& A);
// (solution, a copy of A), as torch.triangular_solve(b, A).
std::tuple<Tensor, Tensor> triangular_solve(const Tensor& b, const Tensor& A, bool upper = true, bool transpose = false,
                                            bool unitriangular = false);
// (P, L, U) from lu_factor's (LU (*, m, n), int32 pivots (*, k)); L and U differentiable in LU_data.
// unpack_data false: L and U empty; unpack_pivots false: P empty.
std::tuple<Tensor, Tensor, Tensor> lu_unpack(const Tensor& LU_data, const Tensor& LU_pivots, bool unpack_data = true,
                                             bool unpack_pivots = true);
// QR in LAPACK's packed form: (a (*, m, n) with R above and the reflectors below the diagonal,
// tau (*, min(m, n))). No gradient, as PyTorch 1.13.
std::tuple<Tensor, Tensor> geqrf(const Tensor& A);
Tensor orgqr(const Tensor& A, const Tensor& tau);  // linalg::householder_product
// Q C, Q^T C (left) or C Q, C Q^T with Q = H_1 ... H_k from geqrf's (A, tau), without forming Q.
Tensor ormqr(const Tensor& A, const Tensor& tau, const Tensor& C, bool left = true, bool transpose = false);
// The sum of singular values of a 2-d A, or over the two dims `dim`.
Tensor nuclear_norm(const Tensor& A, bool keepdim = false);
Tensor nuclear_norm(const Tensor& A, IntArrayRef dim, bool keepdim = false);
// Deprecated torch.symeig: ascending eigenvalues from the `upper` (default) or lower triangle;
// eigenvectors false gives an empty V (and eigenvalues with no gradient).
std::tuple<Tensor, Tensor> symeig(const Tensor& A, bool eigenvectors = false, bool upper = true);

}  // namespace ember
