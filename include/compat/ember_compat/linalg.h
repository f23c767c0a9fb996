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
// checked, no autograd). The multi-result ones (slogdet_out, qr_out, eigh_out, ...) are missing.
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
#undef EMBER_LINALG_OUT
EMBER_ATEN_OUT_OF(inverse)
EMBER_ATEN_OUT_OF(cholesky)
EMBER_ATEN_OUT_OF(cholesky_solve)
EMBER_ATEN_OUT_OF(cholesky_inverse)
EMBER_ATEN_OUT_OF(matrix_power)

}  // namespace ember::compat_aten
