// torch.linalg's LAPACK-backed functions (autograd/linalg.h): det, slogdet, inv, solve, lu_factor,
// cholesky, qr, eigh, svd and solve_triangular, each with its backward. Each runs LAPACK on a
// column-major host copy of every matrix of the batch (CUDA tensors round-trip through the host:
// Ember has no cuSOLVER path) and returns on the input's device. Each backward is PyTorch 1.13's
// formula (FunctionsManual.cpp) written with these same functions, so it differentiates again.
// Not here: the compositions (matrix_power, norms, pinv, ...: autograd/linalg_compose.cpp).
#include "autograd/linalg.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "autograd/grad_mode.h"
#include "autograd/linalg_host.h"
#include "autograd/node.h"
#include "core/cpu/lapack.h"
#include "core/error.h"
#include "core/shape.h"
#include "core/trace.h"

namespace ember::linalg {

namespace {

using namespace host;  // NOLINT: the host copies shared with the other linalg file (autograd/linalg_host.h)

// ---- checks, with PyTorch's texts ----

void check_matrix(const Tensor& A, const char* op, const char* name = "A") {
  EMBER_CHECK(A.dim() >= 2, "{}: The input tensor {} must have at least 2 dimensions.", op, name);
}
void check_floating(const Tensor& A, const char* op) {
  EMBER_CHECK(A.dtype() == kFloat32 || A.dtype() == kFloat64,
              "{}: Expected a floating point or complex tensor as input. Got {}", op, scalar_type_name(A.dtype()));
}
void check_square(const Tensor& A, const char* op) {
  EMBER_CHECK(A.size(-1) == A.size(-2), "{}: A must be batches of square matrices, but they are {} by {} matrices",
              op, A.size(-2), A.size(-1));
}
// A batch of square floating matrices, checked in PyTorch's order.
void check_square_floating(const Tensor& A, const char* op) {
  check_matrix(A, op);
  check_floating(A, op);
  check_square(A, op);
}

// Throws "op: (Batch element b): <body(info)>" for the first matrix whose LAPACK info is not 0.
void throw_on_info(const Tensor& A, const Tensor& info, const char* op, std::string (*body)(int64_t)) {
  const std::vector<int64_t> infos = info.to(kCPU).to(kInt64).contiguous().to_vector<int64_t>();
  for (size_t b = 0; b < infos.size(); ++b) {
    if (infos[b] != 0) EMBER_FAIL("{}: {}{}", op, batch_prefix(A, static_cast<int64_t>(b)), body(infos[b]));
  }
}
std::string singular_inverse(int64_t i) {
  return fmt::format(
      "The diagonal element {} is zero, the inversion could not be completed because the input matrix is singular.", i);
}
std::string not_positive_definite(int64_t i) {
  return fmt::format(
      "The factorization could not be completed because the input is not positive-definite (the leading minor of "
      "order {} is not positive-definite).",
      i);
}

// ---- LU ----

// LU of every matrix of A (*, n, n) in place (column-major), 1-based pivots and infos.
template <typename T>
void lu_in_place(std::vector<T>& a, int64_t batches, int64_t m, int64_t n, std::vector<int>& pivots,
                 std::vector<int>& infos) {
  const int64_t k = std::min(m, n);
  pivots.assign(static_cast<size_t>(batches * k), 0);
  infos.assign(static_cast<size_t>(batches), 0);
  if (m == 0 || n == 0) return;
  for (int64_t b = 0; b < batches; ++b) {
    lapack::getrf(as_int(m), as_int(n), a.data() + b * m * n, as_int(std::max<int64_t>(m, 1)), pivots.data() + b * k,
                  &infos[b]);
  }
}

// (sign, log|det|) per matrix from its LU; det itself too.
template <typename T>
void lu_determinants(const Tensor& A, std::vector<T>* det, std::vector<T>* sign, std::vector<T>* logabs) {
  const int64_t n = A.size(-1), batches = batch_count(A);
  std::vector<T> a = column_major<T>(A);
  std::vector<int> pivots, infos;
  lu_in_place(a, batches, n, n, pivots, infos);
  for (int64_t b = 0; b < batches; ++b) {
    T d = 1, s = 1, l = 0;
    for (int64_t i = 0; i < n; ++i) {
      const T u = a[b * n * n + i * n + i];
      d *= u;
      s *= u > 0 ? 1 : (u < 0 ? -1 : 0);
      l += std::log(std::abs(u));
      if (pivots[b * n + i] != i + 1) {
        d = -d;
        s = -s;
      }
    }
    if (s == 0) l = -std::numeric_limits<T>::infinity();
    if (det) det->push_back(d);
    if (sign) sign->push_back(s);
    if (logabs) logabs->push_back(l);
  }
}

// The gradient of (sign, log|det|) or det: d log|det A| = A^{-T}, d det A = det(A) A^{-T}.
Tensor inverse_transpose_times(const Tensor& A, const Tensor& scale) {
  return linalg::inv(A).mT() * scale.unsqueeze(-1).unsqueeze(-1);
}

// The inverse per matrix and getrf's info (0, or the 1-based index of the zero pivot).
template <typename T>
std::tuple<Tensor, Tensor> inverse_host(const Tensor& A) {
  const int64_t n = A.size(-1), batches = batch_count(A);
  std::vector<T> a = column_major<T>(A);
  std::vector<int> pivots, infos;
  lu_in_place(a, batches, n, n, pivots, infos);
  if (n > 0) {
    std::vector<T> work(static_cast<size_t>(std::max<int64_t>(n * 64, 1)));
    for (int64_t b = 0; b < batches; ++b) {
      if (infos[b] != 0) continue;
      int info = 0;
      lapack::getri(as_int(n), a.data() + b * n * n, as_int(n), pivots.data() + b * n, work.data(),
                    as_int(static_cast<int64_t>(work.size())), &info);
    }
  }
  return {from_column_major(a, batch_shape(A), n, n, A.device()),
          from_values(infos, batch_shape(A), A.device()).to(kInt32)};
}

// X with A X = B for A (*, n, n) and B (*, n, k) of the same batch shape; getrf's infos.
template <typename T>
std::tuple<Tensor, Tensor> solve_host(const Tensor& A, const Tensor& B) {
  const int64_t n = A.size(-1), k = B.size(-1), batches = batch_count(A);
  std::vector<T> a = column_major<T>(A), x = column_major<T>(B);
  std::vector<int> pivots, infos;
  lu_in_place(a, batches, n, n, pivots, infos);
  if (n > 0 && k > 0) {
    for (int64_t b = 0; b < batches; ++b) {
      if (infos[b] != 0) continue;
      int info = 0;
      lapack::getrs('N', as_int(n), as_int(k), a.data() + b * n * n, as_int(n), pivots.data() + b * n,
                    x.data() + b * n * k, as_int(n), &info);
    }
  }
  return {from_column_major(x, batch_shape(A), n, k, A.device()),
          from_values(infos, batch_shape(A), A.device()).to(kInt32)};
}

// solve's core: A (*, n, n), B (*, n, k) with equal batch shapes, recorded as one node.
std::tuple<Tensor, Tensor> solve_matrices(const Tensor& A, const Tensor& B) {
  auto [X, info] = by_dtype(A.dtype(), [&](auto t) { return solve_host<decltype(t)>(A, B); });
  if (autograd::any_requires_grad({&A, &B})) {
    // gB = A^{-T} gX, gA = -gB X^T
    autograd::record("LinalgSolveExBackward0", X, {A, B}, [A, B](const Tensor& g) -> tensor_list {
      const Tensor gB = solve(A.mT(), g);
      return {-gB.matmul(solve(A, B).mT()), gB};
    });
  }
  return {X, info};
}

// ---- triangular solves (BLAS trsm, row-major, so no copies into column order) ----

template <typename T>
Tensor triangular_host(const Tensor& A, const Tensor& B, bool upper, bool unitriangular) {
  const int64_t n = A.size(-1), k = B.size(-1), batches = batch_count(A);
  NoGradGuard no_grad;
  const std::vector<T> a = A.detach().to(kCPU).contiguous().template to_vector<T>();
  std::vector<T> x = B.detach().to(kCPU).contiguous().template to_vector<T>();
  const CBLAS_UPLO uplo = upper ? CblasUpper : CblasLower;
  const CBLAS_DIAG diag = unitriangular ? CblasUnit : CblasNonUnit;
  if (n > 0 && k > 0) {
    for (int64_t b = 0; b < batches; ++b) {
      if constexpr (std::is_same_v<T, double>) {
        cblas_dtrsm(CblasRowMajor, CblasLeft, uplo, CblasNoTrans, diag, as_int(n), as_int(k), 1.0, a.data() + b * n * n,
                    as_int(n), x.data() + b * n * k, as_int(k));
      } else {
        cblas_strsm(CblasRowMajor, CblasLeft, uplo, CblasNoTrans, diag, as_int(n), as_int(k), 1.0f,
                    a.data() + b * n * n, as_int(n), x.data() + b * n * k, as_int(k));
      }
    }
  }
  return from_values(x, B.sizes().vec(), B.device());
}

// A X = B for triangular A, batch shapes equal; gB = A^{-T} gX, gA = -(gB X^T) on A's triangle.
Tensor solve_triangular_left(const Tensor& A, const Tensor& B, bool upper, bool unitriangular) {
  Tensor X = by_dtype(A.dtype(), [&](auto t) { return triangular_host<decltype(t)>(A, B, upper, unitriangular); });
  if (autograd::any_requires_grad({&A, &B})) {
    autograd::record("LinalgSolveTriangularBackward0", X, {A, B},
                     [A, B, upper, unitriangular](const Tensor& g) -> tensor_list {
                       const Tensor gB = solve_triangular(A.mT(), g, !upper, true, unitriangular);
                       const Tensor gA = -gB.matmul(solve_triangular(A, B, upper, true, unitriangular).mT());
                       const int64_t off = unitriangular ? 1 : 0;
                       return {upper ? gA.triu(off) : gA.tril(-off), gB};
                     });
  }
  return X;
}

// A and B expanded to their broadcast batch shape (B's last two dims kept).
std::tuple<Tensor, Tensor> broadcast_batches(const Tensor& A, const Tensor& B, const char* op) {
  const std::vector<int64_t> batch = broadcast_shapes(batch_shape(A), batch_shape(B), op);
  return {A.expand(with_matrix(batch, A.size(-2), A.size(-1))), B.expand(with_matrix(batch, B.size(-2), B.size(-1)))};
}

}  // namespace

// ---- determinants ----

Tensor det(const Tensor& A) {
  EMBER_TRACE_OP();
  check_square_floating(A, "linalg.det");
  Tensor d = by_dtype(A.dtype(), [&](auto t) {
    using T = decltype(t);
    std::vector<T> values;
    lu_determinants<T>(A, &values, nullptr, nullptr);
    return from_values(values, batch_shape(A), A.device());
  });
  if (autograd::any_requires_grad({&A})) {
    // d det(A) = det(A) A^{-T}
    autograd::record("LinalgDetBackward0", d, {A},
                     [A](const Tensor& g) -> tensor_list { return {inverse_transpose_times(A, g * linalg::det(A))}; });
  }
  return d;
}

std::tuple<Tensor, Tensor> slogdet(const Tensor& A) {
  EMBER_TRACE_OP();
  check_square_floating(A, "linalg.slogdet");
  auto [sign, logabs] = by_dtype(A.dtype(), [&](auto t) {
    using T = decltype(t);
    std::vector<T> signs, logs;
    lu_determinants<T>(A, nullptr, &signs, &logs);
    return std::make_tuple(from_values(signs, batch_shape(A), A.device()),
                           from_values(logs, batch_shape(A), A.device()));
  });
  if (autograd::any_requires_grad({&A})) {
    // d log|det A| = A^{-T}; the sign is piecewise constant
    autograd::record("LinalgSlogdetBackward0", {sign, logabs}, {A}, [A](const tensor_list& grads) -> tensor_list {
      if (!grads[1].defined()) return {Tensor()};
      return {inverse_transpose_times(A, grads[1])};
    });
  }
  return {sign, logabs};
}

// ---- inverses and solves ----

std::tuple<Tensor, Tensor> inv_ex(const Tensor& A, bool check_errors) {
  EMBER_TRACE_OP();
  check_square_floating(A, "linalg.inv");
  auto [Ainv, info] = by_dtype(A.dtype(), [&](auto t) { return inverse_host<decltype(t)>(A); });
  if (check_errors) throw_on_info(A, info, "linalg.inv", singular_inverse);
  if (autograd::any_requires_grad({&A})) {
    // d inv(A) = -A^{-1} dA A^{-1}, so gA = -A^{-T} g A^{-T}
    autograd::record("LinalgInvExBackward0", {Ainv, info}, {A}, [A](const tensor_list& grads) -> tensor_list {
      if (!grads[0].defined()) return {Tensor()};
      const Tensor At = linalg::inv(A).mT();
      return {-At.matmul(grads[0]).matmul(At)};
    });
  }
  return {Ainv, info};
}

Tensor inv(const Tensor& A) { return std::get<0>(inv_ex(A, true)); }

std::tuple<Tensor, Tensor> solve_ex(const Tensor& A, const Tensor& B, bool left, bool check_errors) {
  EMBER_TRACE_OP();
  check_square_floating(A, "linalg.solve");
  EMBER_CHECK(A.dtype() == B.dtype(),
              "linalg.solve: Expected A and B to have the same dtype, but found A of type {} and B of type {} instead",
              scalar_type_name(A.dtype()), scalar_type_name(B.dtype()));
  // B is a batch of vectors when 1-d or when its shape is A's without the last dim (PyTorch's rule).
  const bool vector_case = B.dim() == 1 || (B.dim() == A.dim() - 1 && B.sizes() == A.sizes().slice(0, A.dim() - 1));
  const Tensor B_matrix = vector_case ? B.unsqueeze(-1) : B;
  const int64_t n = A.size(-1);
  const int64_t rows = left ? B_matrix.size(-2) : B_matrix.size(-1);
  EMBER_CHECK(B_matrix.dim() >= 2 && rows == n,
              "linalg.solve: Incompatible shapes of A and B for the equation {} ({}x{} and {}x{})",
              left ? "AX = B" : "XA = B", n, n, B_matrix.size(-2), B_matrix.size(-1));
  // X A = B is A^T X^T = B^T.
  const Tensor A_left = left ? A : A.mT();
  const Tensor B_left = left ? B_matrix : B_matrix.mT();
  auto [A_b, B_b] = broadcast_batches(A_left, B_left, "linalg.solve");
  auto [X, info] = solve_matrices(A_b, B_b);
  if (check_errors && info.numel() > 0) {
    EMBER_CHECK(info.max().item<int64_t>() == 0,
                "torch.linalg.solve: The solver failed because the input matrix is singular.");
  }
  if (!left) X = X.mT();
  return {vector_case ? X.squeeze(-1) : X, info};
}

Tensor solve(const Tensor& A, const Tensor& B, bool left) { return std::get<0>(solve_ex(A, B, left, true)); }

Tensor solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left, bool unitriangular) {
  EMBER_TRACE_OP();
  check_matrix(A, "linalg.solve_triangular");
  check_matrix(B, "linalg.solve_triangular", "B");
  check_floating(A, "linalg.solve_triangular");
  check_square(A, "linalg.solve_triangular");
  EMBER_CHECK(A.dtype() == B.dtype(),
              "linalg.solve_triangular: Expected A and B to have the same dtype, but found A of type {} and B of type "
              "{} instead",
              scalar_type_name(A.dtype()), scalar_type_name(B.dtype()));
  const int64_t rows = left ? B.size(-2) : B.size(-1);
  EMBER_CHECK(rows == A.size(-1), "linalg.solve_triangular: Incompatible shapes of A and B for the equation {} ({}x{} and {}x{})",
              left ? "AX = B" : "XA = B", A.size(-2), A.size(-1), B.size(-2), B.size(-1));
  if (!left) return solve_triangular(A.mT(), B.mT(), !upper, true, unitriangular).mT();
  auto [A_b, B_b] = broadcast_batches(A, B, "linalg.solve_triangular");
  return solve_triangular_left(A_b, B_b, upper, unitriangular);
}

// ---- LU ----

std::tuple<Tensor, Tensor, Tensor> lu_factor_ex(const Tensor& A, bool pivot, bool check_errors) {
  EMBER_TRACE_OP();
  check_matrix(A, "torch.lu_factor");
  check_floating(A, "torch.lu_factor");
  EMBER_CHECK(pivot, "linalg.lu_factor: LU without pivoting is not implemented on the CPU");
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n), batches = batch_count(A);
  auto result = by_dtype(A.dtype(), [&](auto t) {
    using T = decltype(t);
    std::vector<T> a = column_major<T>(A);
    std::vector<int> pivots, infos;
    lu_in_place(a, batches, m, n, pivots, infos);
    std::vector<int64_t> pivot_shape = batch_shape(A);
    pivot_shape.push_back(k);
    return std::make_tuple(from_column_major(a, batch_shape(A), m, n, A.device()),
                           from_values(pivots, pivot_shape, A.device()).to(kInt32),
                           from_values(infos, batch_shape(A), A.device()).to(kInt32));
  });
  if (check_errors) throw_on_info(A, std::get<2>(result), "torch.linalg.lu_factor_ex", singular_inverse);
  return result;
}

// A singular matrix factors (U has a zero on its diagonal); lu_factor reports it as PyTorch does.
std::tuple<Tensor, Tensor> lu_factor(const Tensor& A, bool pivot) {
  auto [LU, pivots, info] = lu_factor_ex(A, pivot, false);
  return {LU, pivots};
}

namespace {

// (P, L, U) with A = P L U from lu_factor's packed LU (*, m, n) and 1-based pivots (*, k).
std::tuple<Tensor, Tensor, Tensor> lu_unpack_from(const Tensor& LU, const Tensor& pivots) {
  const int64_t m = LU.size(-2), n = LU.size(-1), k = std::min(m, n);
  const TensorOptions options = LU.options();
  // L: unit lower (m, k); U: upper (k, n); P: the row swaps applied to the identity.
  const Tensor L = LU.narrow(-1, 0, k).tril(-1) + eye(m, k, options);
  const Tensor U = LU.narrow(-2, 0, k).triu();
  const std::vector<int64_t> swaps = pivots.to(kCPU).to(kInt64).contiguous().to_vector<int64_t>();
  // Checked before indexing with them: pivots are user input to lu_unpack and lu_solve.
  for (int64_t s : swaps) {
    EMBER_CHECK(s >= 1 && s <= m,
                "pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive.Did you properly pass the "
                "result of lu_factor?");
  }
  const int64_t batches = batch_count(LU);
  std::vector<double> perm(static_cast<size_t>(batches * m * m), 0.0);
  for (int64_t b = 0; b < batches; ++b) {
    std::vector<int64_t> rows(static_cast<size_t>(m));
    for (int64_t i = 0; i < m; ++i) rows[i] = i;
    for (int64_t i = 0; i < k; ++i) std::swap(rows[i], rows[swaps[b * k + i] - 1]);
    // A = P L U: row i of L U is row rows[i] of A, so P[rows[i], i] = 1.
    for (int64_t i = 0; i < m; ++i) perm[b * m * m + rows[i] * m + i] = 1.0;
  }
  const Tensor P = from_values(perm, with_matrix(batch_shape(LU), m, m), LU.device()).to(LU.dtype());
  return {P, L, U};
}

}  // namespace

}  // namespace ember::linalg

namespace ember {

std::tuple<Tensor, Tensor, Tensor> lu_unpack(const Tensor& LU_data, const Tensor& LU_pivots, bool unpack_data,
                                             bool unpack_pivots) {
  EMBER_TRACE_OP();
  EMBER_CHECK(LU_data.dim() >= 2, "torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: {} instead",
              shape_str(LU_data.sizes()));
  EMBER_CHECK(LU_pivots.dtype() == kInt32,
              "torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype.");
  std::vector<int64_t> pivot_shape = linalg::batch_shape(LU_data);
  pivot_shape.push_back(std::min(LU_data.size(-2), LU_data.size(-1)));
  EMBER_CHECK(LU_pivots.sizes() == IntArrayRef(pivot_shape),
              "torch.lu_unpack: Expected LU_pivots of shape {} for LU_data of shape {}, but got {}",
              shape_str(pivot_shape), shape_str(LU_data.sizes()), shape_str(LU_pivots.sizes()));
  // L and U are narrow/tril/triu of LU_data, so their gradient is PyTorch's lu_unpack_backward:
  // tril(gL, -1) on the first k columns plus triu(gU) on the first k rows. P has none.
  auto [P, L, U] = linalg::lu_unpack_from(LU_data, LU_pivots);
  const Tensor none = empty({0}, LU_data.options());
  return {unpack_pivots ? P : none, unpack_data ? L : none, unpack_data ? U : none};
}

}  // namespace ember

namespace ember::linalg {

std::tuple<Tensor, Tensor, Tensor> lu(const Tensor& A, bool pivot) {
  auto [LU, pivots] = lu_factor(A, pivot);
  return lu_unpack_from(LU, pivots);
}
Tensor lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left, bool adjoint) {
  EMBER_TRACE_OP();
  // A = P L U; A X = B gives X = U^{-1} L^{-1} P^T B; the adjoint and right forms by transposition.
  auto [P, L, U] = lu_unpack_from(LU, pivots);
  if (!left) return lu_solve(LU, pivots, B.mT(), true, !adjoint).mT();
  if (adjoint) {
    // A^T X = B: U^T L^T P^T X = B
    const Tensor y = solve_triangular(L.mT(), solve_triangular(U.mT(), B, false), true, true, true);
    return P.matmul(y);
  }
  const Tensor y = solve_triangular(L, P.mT().matmul(B), false, true, true);
  return solve_triangular(U, y, true);
}

// ---- Cholesky ----

namespace {

// L with A = L L^T from A's lower triangle; potrf's infos.
template <typename T>
std::tuple<Tensor, Tensor> cholesky_host(const Tensor& A) {
  const int64_t n = A.size(-1), batches = batch_count(A);
  std::vector<T> a = column_major<T>(A);
  std::vector<int> infos(static_cast<size_t>(batches), 0);
  for (int64_t b = 0; b < batches && n > 0; ++b) {
    T* m = a.data() + b * n * n;
    lapack::potrf('L', as_int(n), m, as_int(n), &infos[b]);
    for (int64_t j = 1; j < n; ++j) {
      for (int64_t i = 0; i < j; ++i) m[i + j * n] = 0;  // the upper triangle, untouched by potrf
    }
  }
  return {from_column_major(a, batch_shape(A), n, n, A.device()),
          from_values(infos, batch_shape(A), A.device()).to(kInt32)};
}

// gA = L^{-T} Phi(L^T gL) L^{-1}, symmetrized as PyTorch's cholesky_backward (Murray, 2016).
Tensor cholesky_backward(const Tensor& gL, const Tensor& L) {
  Tensor gA = L.mT().matmul(gL).tril();
  gA = 0.5 * (gA + gA.tril(-1).mT());
  gA = solve_triangular(L.mT(), gA, /*upper=*/true, /*left=*/true);
  return solve_triangular(L, gA, /*upper=*/false, /*left=*/false);
}

}  // namespace

std::tuple<Tensor, Tensor> cholesky_ex(const Tensor& A, bool upper, bool check_errors) {
  EMBER_TRACE_OP();
  check_square_floating(A, "linalg.cholesky");
  auto [L, info] = by_dtype(A.dtype(), [&](auto t) { return cholesky_host<decltype(t)>(A); });
  if (check_errors) throw_on_info(A, info, "linalg.cholesky", not_positive_definite);
  if (autograd::any_requires_grad({&A})) {
    autograd::record("LinalgCholeskyExBackward0", {L, info}, {A}, [A](const tensor_list& grads) -> tensor_list {
      if (!grads[0].defined()) return {Tensor()};
      return {cholesky_backward(grads[0], linalg::cholesky(A))};
    });
  }
  return {upper ? L.mT() : L, info};
}

Tensor cholesky(const Tensor& A, bool upper) { return std::get<0>(cholesky_ex(A, upper, true)); }

// ---- QR ----

namespace {

template <typename T>
std::tuple<Tensor, Tensor> qr_host(const Tensor& A, bool complete, bool compute_q) {
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n), batches = batch_count(A);
  const int64_t q_cols = complete ? m : k, r_rows = complete ? m : k;
  std::vector<T> a = column_major<T>(A);
  std::vector<T> q(static_cast<size_t>(batches * m * q_cols), 0), r(static_cast<size_t>(batches * r_rows * n), 0);
  std::vector<T> tau(static_cast<size_t>(std::max<int64_t>(k, 1)));
  std::vector<T> work(static_cast<size_t>(std::max<int64_t>({m, n, 1}) * 64));
  const int lwork = as_int(static_cast<int64_t>(work.size()));
  for (int64_t b = 0; b < batches; ++b) {
    T* ab = a.data() + b * m * n;
    int info = 0;
    if (k > 0) lapack::geqrf(as_int(m), as_int(n), ab, as_int(m), tau.data(), work.data(), lwork, &info);
    // R: the upper triangle (trapezoid) of the factored matrix.
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t i = 0; i <= std::min(j, r_rows - 1); ++i) r[b * r_rows * n + i + j * r_rows] = ab[i + j * m];
    }
    if (!compute_q || m == 0) continue;
    // Q: the reflectors in the first k columns, expanded to q_cols columns.
    T* qb = q.data() + b * m * q_cols;
    for (int64_t j = 0; j < std::min(n, q_cols); ++j) {
      for (int64_t i = 0; i < m; ++i) qb[i + j * m] = ab[i + j * m];
    }
    lapack::orgqr(as_int(m), as_int(q_cols), as_int(k), qb, as_int(m), tau.data(), work.data(), lwork, &info);
  }
  Tensor Q = compute_q ? from_column_major(q, batch_shape(A), m, q_cols, A.device())
                       : Tensor(empty({0}, A.options()));
  return {Q, from_column_major(r, batch_shape(A), r_rows, n, A.device())};
}

}  // namespace

std::tuple<Tensor, Tensor> qr(const Tensor& A, std::string_view mode) {
  EMBER_TRACE_OP();
  check_matrix(A, "linalg.qr");
  check_floating(A, "linalg.qr");
  EMBER_CHECK(mode == "reduced" || mode == "complete" || mode == "r",
              "qr received unrecognized mode '{}' but expected one of 'reduced' (default), 'r', or 'complete'", mode);
  const bool complete = mode == "complete", compute_q = mode != "r";
  auto [Q, R] = by_dtype(A.dtype(), [&](auto t) { return qr_host<decltype(t)>(A, complete, compute_q); });
  if (autograd::any_requires_grad({&A})) {
    const std::string mode_s(mode);
    autograd::record("LinalgQrBackward0", {Q, R}, {A}, [A, mode_s](const tensor_list& grads) -> tensor_list {
      EMBER_CHECK(mode_s != "r",
                  "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use "
                  "linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.");
      const int64_t m = A.size(-2), n = A.size(-1);
      EMBER_CHECK(!(mode_s == "complete" && m > n),
                  "The QR decomposition is not differentiable when mode='complete' and nrows > ncols.");
      EMBER_CHECK(m >= n, "linalg.qr: the gradient for a wide matrix (nrows < ncols) is not implemented in Ember");
      auto [Q, R] = linalg::qr(A, mode_s);
      const Tensor gQ = grads[0].defined() ? grads[0] : zeros_like(Q);
      const Tensor gR = grads[1].defined() ? grads[1] : zeros_like(R);
      // gA = (gQ + Q copyltu(M)) R^{-T}, M = R gR^T - gQ^T Q, copyltu(M) = tril(M) + tril(M, -1)^T
      const Tensor M = R.matmul(gR.mT()) - gQ.mT().matmul(Q);
      const Tensor sym = M.tril() + M.tril(-1).mT();
      return {solve_triangular(R.mT(), gQ + Q.matmul(sym), /*upper=*/false, /*left=*/false)};
    });
  }
  return {Q, R};
}

// ---- symmetric eigendecomposition ----

namespace {

template <typename T>
std::tuple<Tensor, Tensor> eigh_host(const Tensor& A, char uplo, bool vectors) {
  const int64_t n = A.size(-1), batches = batch_count(A);
  std::vector<T> a = column_major<T>(A), w(static_cast<size_t>(batches * n));
  const char jobz = vectors ? 'V' : 'N';
  for (int64_t b = 0; b < batches && n > 0; ++b) {
    int info = 0, liwork = -1, iwork_size = 0;
    T work_size = 0;
    lapack::syevd(jobz, uplo, as_int(n), a.data() + b * n * n, as_int(n), w.data() + b * n, &work_size, -1,
                  &iwork_size, liwork, &info);
    std::vector<T> work(static_cast<size_t>(work_size) + 1);
    std::vector<int> iwork(static_cast<size_t>(std::max(iwork_size, 1)));
    lapack::syevd(jobz, uplo, as_int(n), a.data() + b * n * n, as_int(n), w.data() + b * n, work.data(),
                  as_int(static_cast<int64_t>(work.size())), iwork.data(), as_int(static_cast<int64_t>(iwork.size())),
                  &info);
    EMBER_CHECK(info == 0,
                "linalg.eigh: {}The algorithm failed to converge because the input matrix is ill-conditioned or has "
                "too many repeated eigenvalues (error code: {}).",
                batch_prefix(A, b), info);
  }
  std::vector<int64_t> values_shape = batch_shape(A);
  values_shape.push_back(n);
  Tensor V = vectors ? from_column_major(a, batch_shape(A), n, n, A.device()) : Tensor();
  return {from_values(w, values_shape, A.device()), V};
}

char checked_uplo(std::string_view UPLO) {
  EMBER_CHECK(UPLO == "L" || UPLO == "l" || UPLO == "U" || UPLO == "u",
              "Expected UPLO argument to be 'L' or 'U', but got {}", UPLO);
  return static_cast<char>(std::toupper(static_cast<unsigned char>(UPLO[0])));
}

// gA = V (diag(gL) + skew(V^T gV) / 2 / E) V^T, E_ij = L_j - L_i (PyTorch's linalg_eig_backward).
Tensor eigh_backward(const Tensor& gL, const Tensor& gV, const Tensor& L, const Tensor& V) {
  Tensor inner = zeros_like(V);
  if (gV.defined()) {
    const Tensor VtgV = V.mT().matmul(gV);
    const Tensor skew = 0.5 * (VtgV - VtgV.mT());
    const Tensor E = L.unsqueeze(-2) - L.unsqueeze(-1) + eye(L.size(-1), L.options());
    inner = skew / E;  // its diagonal is 0
  }
  if (gL.defined()) inner = inner + gL.diag_embed();
  return V.matmul(inner).matmul(V.mT());
}

}  // namespace

std::tuple<Tensor, Tensor> eigh(const Tensor& A, std::string_view UPLO) {
  EMBER_TRACE_OP();
  check_square_floating(A, "linalg.eigh");
  const char uplo = checked_uplo(UPLO);
  auto [L, V] = by_dtype(A.dtype(), [&](auto t) { return eigh_host<decltype(t)>(A, uplo, true); });
  if (autograd::any_requires_grad({&A})) {
    const std::string uplo_s(1, uplo);
    autograd::record("LinalgEighBackward0", {L, V}, {A}, [A, uplo_s](const tensor_list& grads) -> tensor_list {
      auto [L, V] = eigh(A, uplo_s);
      return {eigh_backward(grads[0], grads[1], L, V)};
    });
  }
  return {L, V};
}

Tensor eigvalsh(const Tensor& A, std::string_view UPLO) {
  EMBER_TRACE_OP();
  check_square_floating(A, "linalg.eigh");
  const char uplo = checked_uplo(UPLO);
  Tensor L = std::get<0>(by_dtype(A.dtype(), [&](auto t) { return eigh_host<decltype(t)>(A, uplo, false); }));
  if (autograd::any_requires_grad({&A})) {
    const std::string uplo_s(1, uplo);
    // gA = V diag(gL) V^T
    autograd::record("LinalgEighBackward0", L, {A}, [A, uplo_s](const Tensor& g) -> tensor_list {
      const Tensor V = std::get<1>(eigh(A, uplo_s));
      return {(V * g.unsqueeze(-2)).matmul(V.mT())};
    });
  }
  return L;
}

// ---- SVD ----

namespace {

// jobz 'A' (full), 'S' (reduced) or 'N' (values only).
template <typename T>
std::tuple<Tensor, Tensor, Tensor> svd_host(const Tensor& A, char jobz) {
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n), batches = batch_count(A);
  const int64_t u_cols = jobz == 'A' ? m : k, vt_rows = jobz == 'A' ? n : k;
  const bool vectors = jobz != 'N';
  std::vector<T> a = column_major<T>(A), s(static_cast<size_t>(batches * k));
  std::vector<T> u(vectors ? static_cast<size_t>(batches * m * u_cols) : 0);
  std::vector<T> vt(vectors ? static_cast<size_t>(batches * vt_rows * n) : 0);
  std::vector<int> iwork(static_cast<size_t>(std::max<int64_t>(8 * k, 1)));
  T dummy = 0;
  for (int64_t b = 0; b < batches && k > 0; ++b) {
    T* ub = vectors ? u.data() + b * m * u_cols : &dummy;
    T* vtb = vectors ? vt.data() + b * vt_rows * n : &dummy;
    const int ldu = as_int(std::max<int64_t>(m, 1)), ldvt = as_int(std::max<int64_t>(vt_rows, 1));
    int info = 0;
    T work_size = 0;
    lapack::gesdd(jobz, as_int(m), as_int(n), a.data() + b * m * n, as_int(m), s.data() + b * k, ub, ldu, vtb, ldvt,
                  &work_size, -1, iwork.data(), &info);
    std::vector<T> work(static_cast<size_t>(work_size) + 1);
    lapack::gesdd(jobz, as_int(m), as_int(n), a.data() + b * m * n, as_int(m), s.data() + b * k, ub, ldu, vtb, ldvt,
                  work.data(), as_int(static_cast<int64_t>(work.size())), iwork.data(), &info);
    EMBER_CHECK(info == 0,
                "linalg.svd: {}The algorithm failed to converge because the input matrix is ill-conditioned or has "
                "too many repeated singular values (error code: {}).",
                batch_prefix(A, b), info);
  }
  std::vector<int64_t> s_shape = batch_shape(A);
  s_shape.push_back(k);
  if (!vectors) return {Tensor(), from_values(s, s_shape, A.device()), Tensor()};
  return {from_column_major(u, batch_shape(A), m, u_cols, A.device()), from_values(s, s_shape, A.device()),
          from_column_major(vt, batch_shape(A), vt_rows, n, A.device())};
}

Tensor skew(const Tensor& X) { return X - X.mT(); }

// PyTorch 1.13's svd_backward for real A (m, n), k = min(m, n), from the reduced U, S, Vh:
// gA = U [(skew(U^T gU) / E) S + S (skew(V^T gV) / E) + diag(gS)] V^T
//      + (I - U U^T) gU S^{-1} V^T + U S^{-1} gV^T (I - V V^T),  E_jk = S_k^2 - S_j^2 (1 on the diagonal).
Tensor svd_backward(const Tensor& gU, const Tensor& gS, const Tensor& gVh, const Tensor& U, const Tensor& S,
                    const Tensor& Vh) {
  const int64_t m = U.size(-2), n = Vh.size(-1), k = S.size(-1);
  if (!gU.defined() && !gVh.defined()) return (U * gS.unsqueeze(-2)).matmul(Vh);
  const Tensor V = Vh.mT();
  const Tensor gV = gVh.defined() ? gVh.mT() : Tensor();
  const Tensor S2 = S * S;
  const Tensor E = S2.unsqueeze(-2) - S2.unsqueeze(-1) + eye(k, S.options());
  Tensor gA = zeros_like(E);
  if (gU.defined()) gA = gA + skew(U.mT().matmul(gU)) / E * S.unsqueeze(-2);
  if (gV.defined()) gA = gA + S.unsqueeze(-1) * (skew(V.mT().matmul(gV)) / E);
  if (gS.defined()) gA = gA + gS.diag_embed();
  if (m > k && gU.defined()) {
    gA = U.matmul(gA);
    const Tensor gUSinv = gU / S.unsqueeze(-2);
    gA = (gA + gUSinv - U.matmul(U.mT().matmul(gUSinv))).matmul(Vh);
  } else if (n > k && gV.defined()) {
    gA = gA.matmul(Vh);
    const Tensor gVSinv = gV / S.unsqueeze(-2);
    gA = U.matmul(gA + (gVSinv - V.matmul(V.mT().matmul(gVSinv))).mT());
  } else {
    gA = U.matmul(gA).matmul(Vh);
  }
  return gA;
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& A, bool full_matrices, std::optional<std::string_view>) {
  EMBER_TRACE_OP();
  check_matrix(A, "linalg.svd");
  check_floating(A, "linalg.svd");
  auto [U, S, Vh] = by_dtype(A.dtype(), [&](auto t) { return svd_host<decltype(t)>(A, full_matrices ? 'A' : 'S'); });
  if (autograd::any_requires_grad({&A})) {
    autograd::record("LinalgSvdBackward0", {U, S, Vh}, {A}, [A](const tensor_list& grads) -> tensor_list {
      auto [U, S, Vh] = linalg::svd(A, false);
      const int64_t k = S.size(-1);
      // Full matrices: only the first k singular vectors enter A, so only their gradients count.
      const Tensor gU = grads[0].defined() ? grads[0].narrow(-1, 0, k) : Tensor();
      const Tensor gVh = grads[2].defined() ? grads[2].narrow(-2, 0, k) : Tensor();
      return {svd_backward(gU, grads[1], gVh, U, S, Vh)};
    });
  }
  return {U, S, Vh};
}

Tensor svdvals(const Tensor& A, std::optional<std::string_view>) {
  EMBER_TRACE_OP();
  check_matrix(A, "linalg.svd");
  check_floating(A, "linalg.svd");
  Tensor S = std::get<1>(by_dtype(A.dtype(), [&](auto t) { return svd_host<decltype(t)>(A, 'N'); }));
  if (autograd::any_requires_grad({&A})) {
    // gA = U diag(gS) V^T
    autograd::record("LinalgSvdBackward0", S, {A}, [A](const Tensor& g) -> tensor_list {
      auto [U, S, Vh] = linalg::svd(A, false);
      return {(U * g.unsqueeze(-2)).matmul(Vh)};
    });
  }
  return S;
}

}  // namespace ember::linalg
