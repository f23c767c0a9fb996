// <torch/torch.h>, part 7: torch::linalg and ATen's linalg_* functions, over Ember's
// autograd/linalg.h (which says what is computed how, and what is missing):
//
//   torch::Tensor d = torch::linalg::det(A);
//   auto [Q, R] = torch::linalg::qr(A, "reduced");
//   torch::Tensor n = at::linalg_matrix_norm(A, "fro");
//
// torch::linalg is ember::linalg itself (torch:: sees ember:: whole), whose defaults make it a
// superset of libtorch 1.13's overloads; its spellings linalg_det and linalg_norm are there too.
// ATen's old names (at::det, at::inverse, at::cholesky, at::svd, ...) are Ember's own functions.
#pragma once

#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "autograd/linalg.h"
#include "ember_compat/aliases.h"
#include "ember_compat/aten_out.h"

namespace ember::compat_aten {

// at::linalg_name(args...) is torch::linalg::name(args...), overloads and defaults included.
#define EMBER_ATEN_LINALG(name)                                                                    \
  template <typename... Args>                                                                      \
  auto linalg_##name(Args&&... args)->decltype(ember::linalg::name(std::forward<Args>(args)...)) { \
    return ember::linalg::name(std::forward<Args>(args)...);                                       \
  }
EMBER_ATEN_LINALG(det)
EMBER_ATEN_LINALG(slogdet)
EMBER_ATEN_LINALG(inv)
EMBER_ATEN_LINALG(inv_ex)
EMBER_ATEN_LINALG(solve)
EMBER_ATEN_LINALG(solve_ex)
EMBER_ATEN_LINALG(solve_triangular)
EMBER_ATEN_LINALG(lu_factor)
EMBER_ATEN_LINALG(lu_factor_ex)
EMBER_ATEN_LINALG(lu)
EMBER_ATEN_LINALG(lu_solve)
EMBER_ATEN_LINALG(cholesky)
EMBER_ATEN_LINALG(cholesky_ex)
EMBER_ATEN_LINALG(qr)
EMBER_ATEN_LINALG(eigh)
EMBER_ATEN_LINALG(eigvalsh)
EMBER_ATEN_LINALG(svd)
EMBER_ATEN_LINALG(svdvals)
EMBER_ATEN_LINALG(matrix_power)
EMBER_ATEN_LINALG(matrix_exp)
EMBER_ATEN_LINALG(pinv)
EMBER_ATEN_LINALG(matrix_rank)
EMBER_ATEN_LINALG(cond)
EMBER_ATEN_LINALG(vecdot)
EMBER_ATEN_LINALG(matmul)
EMBER_ATEN_LINALG(diagonal)
EMBER_ATEN_LINALG(vander)
EMBER_ATEN_LINALG(tensorinv)
EMBER_ATEN_LINALG(tensorsolve)
EMBER_ATEN_LINALG(lstsq)
EMBER_ATEN_LINALG(householder_product)
EMBER_ATEN_LINALG(ldl_factor)
EMBER_ATEN_LINALG(ldl_factor_ex)
EMBER_ATEN_LINALG(ldl_solve)
#undef EMBER_ATEN_LINALG

// The ones with a dims argument, written out so that a braced list ({0, 1}) still converts.
inline Tensor linalg_multi_dot(const tensor_list& tensors) { return ember::linalg::multi_dot(tensors); }
inline Tensor linalg_vector_norm(const Tensor& self, const Scalar& ord = 2,
                                 ember::linalg::OptionalDims dim = std::nullopt, bool keepdim = false,
                                 std::optional<ScalarType> dtype = std::nullopt) {
  return ember::linalg::vector_norm(self, ord, dim, keepdim, dtype);
}
inline Tensor linalg_matrix_norm(const Tensor& self, const Scalar& ord, std::vector<int64_t> dim = {-2, -1},
                                 bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt) {
  return ember::linalg::matrix_norm(self, ord, dim, keepdim, dtype);
}
inline Tensor linalg_matrix_norm(const Tensor& self, std::string_view ord = "fro", std::vector<int64_t> dim = {-2, -1},
                                 bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt) {
  return ember::linalg::matrix_norm(self, ord, dim, keepdim, dtype);
}
inline Tensor linalg_norm(const Tensor& self, const std::optional<Scalar>& ord = std::nullopt,
                          ember::linalg::OptionalDims dim = std::nullopt, bool keepdim = false,
                          std::optional<ScalarType> dtype = std::nullopt) {
  return ember::linalg::norm(self, ord, dim, keepdim, dtype);
}
inline Tensor linalg_norm(const Tensor& self, std::string_view ord, ember::linalg::OptionalDims dim = std::nullopt,
                          bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt) {
  return ember::linalg::norm(self, ord, dim, keepdim, dtype);
}

// The out= forms of the single-result functions (aten_out.h's rules: out resized, its dtype
// checked, no autograd); the multi-result ones follow.
#define EMBER_LINALG_OUT(name) EMBER_ATEN_OUT_OF(linalg_##name)
EMBER_LINALG_OUT(det)
EMBER_LINALG_OUT(inv)
EMBER_LINALG_OUT(solve)
EMBER_LINALG_OUT(solve_triangular)
EMBER_LINALG_OUT(lu_solve)
EMBER_LINALG_OUT(cholesky)
EMBER_LINALG_OUT(eigvalsh)
EMBER_LINALG_OUT(svdvals)
EMBER_LINALG_OUT(matrix_power)
EMBER_LINALG_OUT(matrix_exp)
EMBER_LINALG_OUT(pinv)
EMBER_LINALG_OUT(matrix_rank)
EMBER_LINALG_OUT(cond)
EMBER_LINALG_OUT(vecdot)
EMBER_LINALG_OUT(matmul)
EMBER_LINALG_OUT(tensorinv)
EMBER_LINALG_OUT(tensorsolve)
EMBER_LINALG_OUT(vector_norm)
EMBER_LINALG_OUT(matrix_norm)
EMBER_LINALG_OUT(norm)
EMBER_LINALG_OUT(multi_dot)
EMBER_LINALG_OUT(cross)
EMBER_LINALG_OUT(householder_product)
EMBER_LINALG_OUT(ldl_solve)
#undef EMBER_LINALG_OUT
EMBER_ATEN_OUT_OF(inverse)
EMBER_ATEN_OUT_OF(cholesky)
EMBER_ATEN_OUT_OF(cholesky_solve)
EMBER_ATEN_OUT_OF(cholesky_inverse)
EMBER_ATEN_OUT_OF(matrix_power)
EMBER_ATEN_OUT_OF(lu_solve)
EMBER_ATEN_OUT_OF(orgqr)
EMBER_ATEN_OUT_OF(ormqr)
EMBER_ATEN_OUT_OF(nuclear_norm)

// ---- multi-result out= forms: outs first (_out) or last (_outf), in ATen/ops/<name>.h's order ----
using OutPair2 = std::tuple<Tensor&, Tensor&>;
using OutTriple = std::tuple<Tensor&, Tensor&, Tensor&>;
using OutQuad = std::tuple<Tensor&, Tensor&, Tensor&, Tensor&>;

inline OutPair2 linalg_slogdet_out(Tensor& sign, Tensor& logabsdet, const Tensor& A) {
  detail::refuse_grad("linalg_slogdet_out", A);
  return detail::assign_outs("linalg_slogdet_out", ember::linalg::slogdet(A), sign, logabsdet);
}
inline OutPair2 linalg_slogdet_outf(const Tensor& A, Tensor& sign, Tensor& logabsdet) {
  return linalg_slogdet_out(sign, logabsdet, A);
}
inline OutPair2 slogdet_out(Tensor& sign, Tensor& logabsdet, const Tensor& self) {
  detail::refuse_grad("slogdet_out", self);
  return detail::assign_outs("slogdet_out", ember::slogdet(self), sign, logabsdet);
}
inline OutPair2 slogdet_outf(const Tensor& self, Tensor& sign, Tensor& logabsdet) {
  return slogdet_out(sign, logabsdet, self);
}
inline OutPair2 linalg_qr_out(Tensor& Q, Tensor& R, const Tensor& A, std::string_view mode = "reduced") {
  detail::refuse_grad("linalg_qr_out", A);
  return detail::assign_outs("linalg_qr_out", ember::linalg::qr(A, mode), Q, R);
}
inline OutPair2 linalg_qr_outf(const Tensor& A, std::string_view mode, Tensor& Q, Tensor& R) {
  return linalg_qr_out(Q, R, A, mode);
}
inline OutPair2 qr_out(Tensor& Q, Tensor& R, const Tensor& self, bool some = true) {
  detail::refuse_grad("qr_out", self);
  return detail::assign_outs("qr_out", ember::qr(self, some), Q, R);
}
inline OutPair2 qr_outf(const Tensor& self, bool some, Tensor& Q, Tensor& R) { return qr_out(Q, R, self, some); }
inline OutTriple linalg_svd_out(Tensor& U, Tensor& S, Tensor& Vh, const Tensor& A, bool full_matrices = true,
                                std::optional<std::string_view> driver = std::nullopt) {
  detail::refuse_grad("linalg_svd_out", A);
  return detail::assign_outs("linalg_svd_out", ember::linalg::svd(A, full_matrices, driver), U, S, Vh);
}
inline OutTriple linalg_svd_outf(const Tensor& A, bool full_matrices, std::optional<std::string_view> driver, Tensor& U,
                                 Tensor& S, Tensor& Vh) {
  return linalg_svd_out(U, S, Vh, A, full_matrices, driver);
}
inline OutTriple svd_out(Tensor& U, Tensor& S, Tensor& V, const Tensor& self, bool some = true,
                         bool compute_uv = true) {
  detail::refuse_grad("svd_out", self);
  return detail::assign_outs("svd_out", ember::svd(self, some, compute_uv), U, S, V);
}
inline OutTriple svd_outf(const Tensor& self, bool some, bool compute_uv, Tensor& U, Tensor& S, Tensor& V) {
  return svd_out(U, S, V, self, some, compute_uv);
}
inline OutPair2 linalg_eigh_out(Tensor& eigvals, Tensor& eigvecs, const Tensor& self, std::string_view UPLO = "L") {
  detail::refuse_grad("linalg_eigh_out", self);
  return detail::assign_outs("linalg_eigh_out", ember::linalg::eigh(self, UPLO), eigvals, eigvecs);
}
inline OutPair2 linalg_eigh_outf(const Tensor& self, std::string_view UPLO, Tensor& eigvals, Tensor& eigvecs) {
  return linalg_eigh_out(eigvals, eigvecs, self, UPLO);
}
inline OutPair2 linalg_inv_ex_out(Tensor& inverse, Tensor& info, const Tensor& A, bool check_errors = false) {
  detail::refuse_grad("linalg_inv_ex_out", A);
  return detail::assign_outs("linalg_inv_ex_out", ember::linalg::inv_ex(A, check_errors), inverse, info);
}
inline OutPair2 linalg_inv_ex_outf(const Tensor& A, bool check_errors, Tensor& inverse, Tensor& info) {
  return linalg_inv_ex_out(inverse, info, A, check_errors);
}
inline OutPair2 linalg_cholesky_ex_out(Tensor& L, Tensor& info, const Tensor& self, bool upper = false,
                                       bool check_errors = false) {
  detail::refuse_grad("linalg_cholesky_ex_out", self);
  return detail::assign_outs("linalg_cholesky_ex_out", ember::linalg::cholesky_ex(self, upper, check_errors), L, info);
}
inline OutPair2 linalg_cholesky_ex_outf(const Tensor& self, bool upper, bool check_errors, Tensor& L, Tensor& info) {
  return linalg_cholesky_ex_out(L, info, self, upper, check_errors);
}
inline OutPair2 linalg_lu_factor_out(Tensor& LU, Tensor& pivots, const Tensor& A, bool pivot = true) {
  detail::refuse_grad("linalg_lu_factor_out", A);
  return detail::assign_outs("linalg_lu_factor_out", ember::linalg::lu_factor(A, pivot), LU, pivots);
}
inline OutPair2 linalg_lu_factor_outf(const Tensor& A, bool pivot, Tensor& LU, Tensor& pivots) {
  return linalg_lu_factor_out(LU, pivots, A, pivot);
}
inline OutTriple linalg_lu_factor_ex_out(Tensor& LU, Tensor& pivots, Tensor& info, const Tensor& A, bool pivot = true,
                                         bool check_errors = false) {
  detail::refuse_grad("linalg_lu_factor_ex_out", A);
  return detail::assign_outs("linalg_lu_factor_ex_out", ember::linalg::lu_factor_ex(A, pivot, check_errors), LU, pivots,
                             info);
}
inline OutTriple linalg_lu_factor_ex_outf(const Tensor& A, bool pivot, bool check_errors, Tensor& LU, Tensor& pivots,
                                          Tensor& info) {
  return linalg_lu_factor_ex_out(LU, pivots, info, A, pivot, check_errors);
}
inline OutTriple linalg_lu_out(Tensor& P, Tensor& L, Tensor& U, const Tensor& A, bool pivot = true) {
  detail::refuse_grad("linalg_lu_out", A);
  return detail::assign_outs("linalg_lu_out", ember::linalg::lu(A, pivot), P, L, U);
}
inline OutTriple linalg_lu_outf(const Tensor& A, bool pivot, Tensor& P, Tensor& L, Tensor& U) {
  return linalg_lu_out(P, L, U, A, pivot);
}
inline OutPair2 linalg_solve_ex_out(Tensor& result, Tensor& info, const Tensor& A, const Tensor& B, bool left = true,
                                    bool check_errors = false) {
  detail::refuse_grad("linalg_solve_ex_out", A, B);
  return detail::assign_outs("linalg_solve_ex_out", ember::linalg::solve_ex(A, B, left, check_errors), result, info);
}
inline OutPair2 linalg_solve_ex_outf(const Tensor& A, const Tensor& B, bool left, bool check_errors, Tensor& result,
                                     Tensor& info) {
  return linalg_solve_ex_out(result, info, A, B, left, check_errors);
}
inline OutQuad linalg_lstsq_out(Tensor& solution, Tensor& residuals, Tensor& rank, Tensor& singular_values,
                                const Tensor& self, const Tensor& b, std::optional<double> rcond = std::nullopt,
                                std::optional<std::string_view> driver = std::nullopt) {
  detail::refuse_grad("linalg_lstsq_out", self, b);
  return detail::assign_outs("linalg_lstsq_out", ember::linalg::lstsq(self, b, rcond, driver), solution, residuals,
                             rank, singular_values);
}
inline OutQuad linalg_lstsq_outf(const Tensor& self, const Tensor& b, std::optional<double> rcond,
                                 std::optional<std::string_view> driver, Tensor& solution, Tensor& residuals,
                                 Tensor& rank, Tensor& singular_values) {
  return linalg_lstsq_out(solution, residuals, rank, singular_values, self, b, rcond, driver);
}
inline OutPair2 linalg_ldl_factor_out(Tensor& LD, Tensor& pivots, const Tensor& self, bool hermitian = false) {
  detail::refuse_grad("linalg_ldl_factor_out", self);
  return detail::assign_outs("linalg_ldl_factor_out", ember::linalg::ldl_factor(self, hermitian), LD, pivots);
}
inline OutPair2 linalg_ldl_factor_outf(const Tensor& self, bool hermitian, Tensor& LD, Tensor& pivots) {
  return linalg_ldl_factor_out(LD, pivots, self, hermitian);
}
inline OutTriple linalg_ldl_factor_ex_out(Tensor& LD, Tensor& pivots, Tensor& info, const Tensor& self,
                                          bool hermitian = false, bool check_errors = false) {
  detail::refuse_grad("linalg_ldl_factor_ex_out", self);
  return detail::assign_outs("linalg_ldl_factor_ex_out", ember::linalg::ldl_factor_ex(self, hermitian, check_errors),
                             LD, pivots, info);
}
inline OutTriple linalg_ldl_factor_ex_outf(const Tensor& self, bool hermitian, bool check_errors, Tensor& LD,
                                           Tensor& pivots, Tensor& info) {
  return linalg_ldl_factor_ex_out(LD, pivots, info, self, hermitian, check_errors);
}
inline OutPair2 triangular_solve_out(Tensor& X, Tensor& M, const Tensor& self, const Tensor& A, bool upper = true,
                                     bool transpose = false, bool unitriangular = false) {
  detail::refuse_grad("triangular_solve_out", self, A);
  return detail::assign_outs("triangular_solve_out", ember::triangular_solve(self, A, upper, transpose, unitriangular),
                             X, M);
}
inline OutPair2 triangular_solve_outf(const Tensor& self, const Tensor& A, bool upper, bool transpose,
                                      bool unitriangular, Tensor& X, Tensor& M) {
  return triangular_solve_out(X, M, self, A, upper, transpose, unitriangular);
}
inline OutTriple lu_unpack_out(Tensor& P, Tensor& L, Tensor& U, const Tensor& LU_data, const Tensor& LU_pivots,
                               bool unpack_data = true, bool unpack_pivots = true) {
  detail::refuse_grad("lu_unpack_out", LU_data);
  return detail::assign_outs("lu_unpack_out", ember::lu_unpack(LU_data, LU_pivots, unpack_data, unpack_pivots), P, L,
                             U);
}
inline OutTriple lu_unpack_outf(const Tensor& LU_data, const Tensor& LU_pivots, bool unpack_data, bool unpack_pivots,
                                Tensor& P, Tensor& L, Tensor& U) {
  return lu_unpack_out(P, L, U, LU_data, LU_pivots, unpack_data, unpack_pivots);
}
inline OutPair2 geqrf_out(Tensor& a, Tensor& tau, const Tensor& self) {
  detail::refuse_grad("geqrf_out", self);
  return detail::assign_outs("geqrf_out", ember::geqrf(self), a, tau);
}
inline OutPair2 geqrf_outf(const Tensor& self, Tensor& a, Tensor& tau) { return geqrf_out(a, tau, self); }
inline OutPair2 symeig_out(Tensor& e, Tensor& V, const Tensor& self, bool eigenvectors = false, bool upper = true) {
  detail::refuse_grad("symeig_out", self);
  return detail::assign_outs("symeig_out", ember::symeig(self, eigenvectors, upper), e, V);
}
inline OutPair2 symeig_outf(const Tensor& self, bool eigenvectors, bool upper, Tensor& e, Tensor& V) {
  return symeig_out(e, V, self, eigenvectors, upper);
}

}  // namespace ember::compat_aten
