// The parts of torch.linalg composed from the decompositions of autograd/linalg.cpp and Ember's ops
// (matrix_power, matrix_exp, pinv, matrix_rank, the norms, cond, multi_dot, vecdot, vander), ATen's
// older names (det, logdet, inverse, cholesky_solve, svd with V, triangular_solve, ...) and the
// Tensor methods of core/tensor.h. Everything here takes its gradient from the ops it is made of.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "autograd/aten_functions.h"
#include "autograd/autocast.h"
#include "autograd/grad_mode.h"
#include "autograd/linalg.h"
#include "core/error.h"
#include "core/trace.h"

namespace ember::linalg {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

void check_square_floating(const Tensor& A, const char* op) {
  EMBER_CHECK(A.dim() >= 2, "{}: The input tensor A must have at least 2 dimensions.", op);
  EMBER_CHECK(A.dtype() == kFloat32 || A.dtype() == kFloat64,
              "{}: Expected a floating point or complex tensor as input. Got {}", op, scalar_type_name(A.dtype()));
  EMBER_CHECK(A.size(-1) == A.size(-2), "{}: A must be batches of square matrices, but they are {} by {} matrices", op,
              A.size(-2), A.size(-1));
}

// The identity broadcast to A's shape (*, n, n).
Tensor identity_like(const Tensor& A) { return eye(A.size(-1), A.options()).expand(A.sizes()); }

int64_t wrap_dim(int64_t d, int64_t rank) { return d < 0 ? d + rank : d; }

}  // namespace

// ---- powers and exponentials ----

Tensor matrix_power(const Tensor& A, int64_t n) {
  EMBER_TRACE_OP();
  EMBER_CHECK(A.dim() >= 2, "linalg.matrix_power: The input tensor A must have at least 2 dimensions.");
  EMBER_CHECK(A.size(-1) == A.size(-2),
              "linalg.matrix_power: A must be batches of square matrices, but they are {} by {} matrices", A.size(-2),
              A.size(-1));
  if (n == 0) {
    // The identity, selected over A so that the result has a (zero) gradient, as PyTorch's copy does.
    return where(ones(A.sizes(), A.options().dtype(kBool)), identity_like(A), A);
  }
  Tensor base = n < 0 ? inv(A) : A;
  // Binary powering: the product of base^(2^i) over the set bits of |n|.
  uint64_t e = n < 0 ? static_cast<uint64_t>(-(n + 1)) + 1 : static_cast<uint64_t>(n);
  Tensor result;
  while (e > 0) {
    if (e & 1) result = result.defined() ? result.matmul(base) : base;
    e >>= 1;
    if (e > 0) base = base.matmul(base);
  }
  return result;
}

// Scaling and squaring (Higham 2005): A / 2^s has 1-norm below theta_13, its [13/13] Pade
// approximant r13 = (V - U)^{-1} (V + U), then s squarings. One s for the whole batch, the
// largest any matrix needs (extra squarings cost accuracy only near overflow).
Tensor matrix_exp(const Tensor& A) {
  EMBER_TRACE_OP();
  check_square_floating(A, "linalg.matrix_exp");
  static constexpr double kTheta13 = 5.371920351148152;
  static constexpr double kPade13[] = {64764752532480000.0, 32382376266240000.0, 7771770303897600.0,
                                       1187353796428800.0,  129060195264000.0,   10559470521600.0,
                                       670442572800.0,      33522128640.0,       1323241920.0,
                                       40840800.0,          960960.0,            16380.0,
                                       182.0,               1.0};
  if (A.numel() == 0) return A.clone();
  double norm1 = 0;
  {
    NoGradGuard no_grad;
    norm1 = A.detach().abs().sum({-2}).amax({-1}).max().to(kFloat64).item<double>();
  }
  const int64_t s = norm1 > kTheta13 ? static_cast<int64_t>(std::ceil(std::log2(norm1 / kTheta13))) : 0;
  const Tensor X = s > 0 ? A / std::ldexp(1.0, static_cast<int>(s)) : A;
  const Tensor I = identity_like(X);
  const Tensor X2 = X.matmul(X), X4 = X2.matmul(X2), X6 = X4.matmul(X2);
  const double* b = kPade13;
  const Tensor U = X.matmul(X6.matmul(b[13] * X6 + b[11] * X4 + b[9] * X2) + b[7] * X6 + b[5] * X4 + b[3] * X2 +
                            b[1] * I);
  const Tensor V = X6.matmul(b[12] * X6 + b[10] * X4 + b[8] * X2) + b[6] * X6 + b[4] * X4 + b[2] * X2 + b[0] * I;
  Tensor R = solve(V - U, V + U);
  for (int64_t i = 0; i < s; ++i) R = R.matmul(R);
  return R;
}

// ---- pseudo-inverse and rank ----

namespace {

// The tolerance max(atol, rtol * sigma_max) per matrix (*, 1), PyTorch's default rtol eps * max(m, n)
// when neither is given.
Tensor singular_tolerance(const Tensor& A, const Tensor& S, std::optional<double> atol, std::optional<double> rtol) {
  const double eps = A.dtype() == kFloat64 ? std::numeric_limits<double>::epsilon()
                                            : static_cast<double>(std::numeric_limits<float>::epsilon());
  const double r = rtol ? *rtol : (atol && *atol > 0 ? 0.0 : eps * static_cast<double>(std::max(A.size(-2), A.size(-1))));
  const Tensor smax = S.numel() > 0 ? S.amax({-1}, true) : zeros_like(S.sum({-1}, true));
  return (smax * r).clamp_min(atol ? *atol : 0.0);
}

}  // namespace

Tensor pinv(const Tensor& A, std::optional<double> atol, std::optional<double> rtol, bool hermitian) {
  EMBER_TRACE_OP();
  EMBER_CHECK(A.dim() >= 2 && (A.dtype() == kFloat32 || A.dtype() == kFloat64),
              "linalg.pinv({}{{{}}}): expected a tensor with 2 or more dimensions of float, double, cfloat or cdouble "
              "types",
              scalar_type_name(A.dtype()), fmt::join(A.sizes(), ", "));
  if (hermitian) {
    auto [L, V] = linalg::eigh(A);
    const Tensor tol = singular_tolerance(A, L.abs(), atol, rtol);
    const Tensor Linv = where(L.abs() > tol, L.reciprocal(), zeros_like(L));
    return (V * Linv.unsqueeze(-2)).matmul(V.mT());
  }
  auto [U, S, Vh] = linalg::svd(A, false);
  const Tensor tol = singular_tolerance(A, S, atol, rtol);
  const Tensor Sinv = where(S > tol, S.reciprocal(), zeros_like(S));
  return (Vh.mT() * Sinv.unsqueeze(-2)).matmul(U.mT());
}

Tensor pinv(const Tensor& A, double rcond, bool hermitian) { return pinv(A, 0.0, rcond, hermitian); }

Tensor matrix_rank(const Tensor& A, std::optional<double> atol, std::optional<double> rtol, bool hermitian) {
  EMBER_TRACE_OP();
  const Tensor S = hermitian ? eigvalsh(A).abs() : svdvals(A);
  return (S > singular_tolerance(A, S, atol, rtol)).sum({-1});
}

Tensor matrix_rank(const Tensor& A, double tol, bool hermitian) { return matrix_rank(A, tol, 0.0, hermitian); }

// ---- norms ----

Tensor vector_norm(const Tensor& x, const Scalar& ord, OptionalDims dim_arg, bool keepdim,
                   std::optional<ScalarType> dtype) {
  EMBER_TRACE_OP();
  EMBER_CHECK(x.is_floating_point(), "linalg.vector_norm: Expected a floating point or complex tensor as input. Got {}",
              scalar_type_name(x.dtype()));
  const Tensor v = dtype ? x.to(*dtype) : x;
  const std::optional<std::vector<int64_t>>& dim = dim_arg.dims;
  std::vector<int64_t> dims;
  if (dim && !dim->empty()) {
    dims = *dim;
  } else {
    for (int64_t d = 0; d < v.dim(); ++d) dims.push_back(d);
  }
  const double p = ord.to<double>();
  const Tensor a = v.abs();
  if (v.dim() == 0) return p == 0 ? (a != 0).to(v.dtype()) : a;
  if (p == kInf) return a.amax(dims, keepdim);
  if (p == -kInf) return a.amin(dims, keepdim);
  if (p == 0) return (a != 0).to(v.dtype()).sum(dims, keepdim);
  if (p == 1) return a.sum(dims, keepdim);
  if (p == 2) return v.mul(v).sum(dims, keepdim).sqrt();
  return a.pow(p).sum(dims, keepdim).pow(1.0 / p);
}

Tensor matrix_norm(const Tensor& A, const Scalar& ord, std::vector<int64_t> dim, bool keepdim,
                   std::optional<ScalarType> dtype) {
  EMBER_TRACE_OP();
  EMBER_CHECK(A.dim() >= 2, "linalg.matrix_norm: The input tensor A must have at least 2 dimensions.");
  EMBER_CHECK(A.is_floating_point(), "linalg.matrix_norm: Expected a floating point or complex tensor as input. Got {}",
              scalar_type_name(A.dtype()));
  EMBER_CHECK(dim.size() == 2, "linalg.matrix_norm: dim must be a 2-tuple. Got {}", fmt::join(dim, " "));
  const double p = ord.to<double>();
  EMBER_CHECK(p == 1 || p == -1 || p == 2 || p == -2 || p == kInf || p == -kInf,
              "linalg.matrix_norm: Order {} not supported.", ord.to<double>() == std::floor(p) ? fmt::format("{}", static_cast<int64_t>(p)) : fmt::format("{}", p));
  const Tensor v = dtype ? A.to(*dtype) : A;
  const int64_t d0 = wrap_dim(dim[0], v.dim()), d1 = wrap_dim(dim[1], v.dim());
  if (p == 2 || p == -2) {
    // The extreme singular value of the matrices moved to the last two dims.
    const Tensor S = svdvals(v.movedim({d0, d1}, {-2, -1}));
    Tensor r = p > 0 ? S.amax({-1}) : S.amin({-1});
    if (keepdim) r = r.unsqueeze(std::min(d0, d1)).unsqueeze(std::max(d0, d1));
    return r;
  }
  // 1: the largest column sum (sum over d0, max over d1); inf: the largest row sum.
  const bool columns = std::abs(p) == 1;
  const int64_t sum_dim = columns ? d0 : d1, pick_dim = columns ? d1 : d0;
  Tensor sums = v.abs().sum({sum_dim}, true);
  Tensor r = p > 0 ? sums.amax({pick_dim}, true) : sums.amin({pick_dim}, true);
  return keepdim ? r : r.squeeze_dims({std::min(d0, d1), std::max(d0, d1)});
}

Tensor matrix_norm(const Tensor& A, std::string_view ord, std::vector<int64_t> dim, bool keepdim,
                   std::optional<ScalarType> dtype) {
  EMBER_TRACE_OP();
  EMBER_CHECK(A.dim() >= 2, "linalg.matrix_norm: The input tensor A must have at least 2 dimensions.");
  EMBER_CHECK(ord == "fro" || ord == "nuc", "linalg.matrix_norm: Order {} not supported.", ord);
  EMBER_CHECK(dim.size() == 2, "linalg.matrix_norm: dim must be a 2-tuple. Got {}", fmt::join(dim, " "));
  if (ord == "fro") return vector_norm(A, 2, dim, keepdim, dtype);
  const Tensor v = dtype ? A.to(*dtype) : A;
  const int64_t d0 = wrap_dim(dim[0], v.dim()), d1 = wrap_dim(dim[1], v.dim());
  Tensor r = svdvals(v.movedim({d0, d1}, {-2, -1})).sum({-1});
  if (keepdim) r = r.unsqueeze(std::min(d0, d1)).unsqueeze(std::max(d0, d1));
  return r;
}

Tensor norm(const Tensor& x, const std::optional<Scalar>& ord, OptionalDims dim_arg, bool keepdim,
            std::optional<ScalarType> dtype) {
  EMBER_TRACE_OP();
  const std::optional<std::vector<int64_t>>& dim = dim_arg.dims;
  if (dim) {
    EMBER_CHECK(dim->size() == 1 || dim->size() == 2, "linalg.norm: If dim is specified, it must be of length 1 or 2. Got {}",
                fmt::join(*dim, ", "));
  } else if (ord) {
    EMBER_CHECK(x.dim() == 1 || x.dim() == 2, "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got {}D.",
                x.dim());
  }
  const bool matrix = dim ? dim->size() == 2 : (ord && x.dim() == 2);
  if (!ord) return vector_norm(x, 2, dim, keepdim, dtype);
  if (matrix) return matrix_norm(x, *ord, dim ? *dim : std::vector<int64_t>{-2, -1}, keepdim, dtype);
  return vector_norm(x, *ord, dim, keepdim, dtype);
}

Tensor norm(const Tensor& x, std::string_view ord, OptionalDims dim_arg, bool keepdim,
            std::optional<ScalarType> dtype) {
  EMBER_TRACE_OP();
  const std::optional<std::vector<int64_t>>& dim = dim_arg.dims;
  if (dim) {
    EMBER_CHECK(dim->size() == 2, "linalg.norm: If dim is specified, it mut be of length 2 for matrix norms. Got {}",
                fmt::join(*dim, ", "));
  } else {
    EMBER_CHECK(x.dim() == 2, "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got {}D.",
                x.dim());
  }
  return matrix_norm(x, ord, dim ? *dim : std::vector<int64_t>{-2, -1}, keepdim, dtype);
}

Tensor cond(const Tensor& A, const std::optional<Scalar>& p) {
  EMBER_TRACE_OP();
  const double order = p ? p->to<double>() : 2.0;
  if (order == 2 || order == -2) {
    const Tensor S = svdvals(A);
    const Tensor smax = S.amax({-1}), smin = S.amin({-1});
    return order > 0 ? smax / smin : smin / smax;
  }
  check_square_floating(A, "linalg.cond");
  return matrix_norm(A, *p) * matrix_norm(inv(A), *p);
}

Tensor cond(const Tensor& A, std::string_view p) {
  EMBER_TRACE_OP();
  check_square_floating(A, "linalg.cond");
  return matrix_norm(A, p) * matrix_norm(inv(A), p);
}

// ---- products and arrangements ----

Tensor multi_dot(const tensor_list& tensors) {
  EMBER_TRACE_OP();
  if (autograd::AutocastCall cast{autograd::AutocastOp::multi_dot, tensors}) return multi_dot(cast.tensors());
  const size_t n = tensors.size();
  EMBER_CHECK(n >= 2, "multi_dot(): expected at least 2 tensors but got {}", n);
  for (size_t i = 0; i < n; ++i) {
    const bool end = i == 0 || i + 1 == n;
    EMBER_CHECK(tensors[i].dim() == 2 || (end && tensors[i].dim() == 1),
                "multi_dot(): tensor {} must be {}D but got {}D", i, end ? "1D or 2" : "2", tensors[i].dim());
  }
  // Left to right (PyTorch picks the cheapest order; the values agree up to rounding).
  Tensor result = tensors[0].dim() == 1 ? tensors[0].unsqueeze(0) : tensors[0];
  for (size_t i = 1; i < n; ++i) {
    result = result.matmul(tensors[i].dim() == 1 ? tensors[i].unsqueeze(-1) : tensors[i]);
  }
  if (tensors[n - 1].dim() == 1) result = result.squeeze(-1);
  if (tensors[0].dim() == 1) result = result.squeeze(0);
  return result;
}

Tensor vecdot(const Tensor& x, const Tensor& y, int64_t dim) { return (x * y).sum({dim}); }

Tensor matmul(const Tensor& a, const Tensor& b) { return a.matmul(b); }

Tensor diagonal(const Tensor& A, int64_t offset, int64_t dim1, int64_t dim2) { return A.diagonal(offset, dim1, dim2); }

Tensor vander(const Tensor& x, std::optional<int64_t> N) {
  EMBER_TRACE_OP();
  EMBER_CHECK(x.dim() >= 1, "x must be at least 1-dimensional.");
  const int64_t n = N ? *N : x.size(-1);
  EMBER_CHECK(n > 1, "N must be greater than 1.");
  // x^0, then the cumulative products of x: exact for integers, as PyTorch's cumprod.
  const Tensor ones = ones_like(x).unsqueeze(-1);
  const Tensor powers = x.unsqueeze(-1).expand([&] {
                          std::vector<int64_t> s = x.sizes().vec();
                          s.push_back(n - 1);
                          return s;
                        }()).cumprod(-1);
  return cat({ones.to(powers.dtype()), powers}, -1);
}

Tensor cross(const Tensor& a, const Tensor& b, int64_t dim) { return ember::linalg_cross(a, b, dim); }

Tensor tensorinv(const Tensor& A, int64_t ind) {
  EMBER_TRACE_OP();
  EMBER_CHECK(ind > 0, "Expected a strictly positive integer for 'ind', but got {}", ind);
  const std::vector<int64_t> shape = A.sizes().vec();
  EMBER_CHECK(ind <= A.dim(), "Expected a strictly positive integer for 'ind', but got {}", ind);
  int64_t rows = 1;
  for (int64_t i = 0; i < ind; ++i) rows *= shape[i];
  std::vector<int64_t> result_shape(shape.begin() + ind, shape.end());
  result_shape.insert(result_shape.end(), shape.begin(), shape.begin() + ind);
  EMBER_CHECK(rows * rows == A.numel(),
              "Expected self to satisfy the requirement prod(self.shape[ind:]) == prod(self.shape[:ind]), but got {} != {}",
              A.numel() / rows, rows);
  return inv(A.reshape({rows, rows})).reshape(result_shape);
}

Tensor tensorsolve(const Tensor& A, const Tensor& B, OptionalDims dims_arg) {
  EMBER_TRACE_OP();
  Tensor a = A;
  const std::optional<std::vector<int64_t>>& dims = dims_arg.dims;
  if (dims && !dims->empty()) {
    std::vector<int64_t> to;
    for (size_t i = 0; i < dims->size(); ++i) to.push_back(A.dim() - static_cast<int64_t>(dims->size()) + static_cast<int64_t>(i));
    a = A.movedim(*dims, to);
  }
  const int64_t rows = B.numel();
  const std::vector<int64_t> x_shape(a.sizes().begin() + B.dim(), a.sizes().end());
  return solve(a.reshape({rows, a.numel() / std::max<int64_t>(rows, 1)}), B.reshape({rows})).reshape(x_shape);
}

}  // namespace ember::linalg

namespace ember {

// ---- ATen's older names ----

Tensor det(const Tensor& A) { return linalg::det(A); }

Tensor logdet(const Tensor& A) {
  EMBER_TRACE_OP();
  EMBER_CHECK(A.dtype() == kFloat32 || A.dtype() == kFloat64,
              "logdet: Expected a floating point or complex tensor as input. Got {}", scalar_type_name(A.dtype()));
  auto [sign, logabs] = linalg::slogdet(A);
  return where(sign < 0, full_like(logabs, std::numeric_limits<double>::quiet_NaN()), logabs);
}

std::tuple<Tensor, Tensor> slogdet(const Tensor& A) { return linalg::slogdet(A); }

Tensor inverse(const Tensor& A) { return linalg::inv(A); }

Tensor cholesky(const Tensor& A, bool upper) {
  EMBER_TRACE_OP();
  auto [L, info] = linalg::cholesky_ex(A, upper, false);
  const std::vector<int64_t> infos = info.to(kCPU).to(kInt64).contiguous().to_vector<int64_t>();
  for (size_t b = 0; b < infos.size(); ++b) {
    EMBER_CHECK(infos[b] == 0,
                "cholesky: {}The factorization could not be completed because the input is not positive-definite (the "
                "leading minor of order {} is not positive-definite).",
                A.dim() > 2 ? fmt::format("(Batch element {}): ", b) : "", infos[b]);
  }
  return L;
}

Tensor cholesky_solve(const Tensor& B, const Tensor& L, bool upper) {
  EMBER_TRACE_OP();
  // A = L L^T (or U^T U): two triangular solves.
  const Tensor lower = upper ? L.mT() : L;
  return linalg::solve_triangular(lower.mT(), linalg::solve_triangular(lower, B, false), true);
}

Tensor cholesky_inverse(const Tensor& L, bool upper) {
  return cholesky_solve(eye(L.size(-1), L.options()).expand(L.sizes()), L, upper);
}

std::tuple<Tensor, Tensor> qr(const Tensor& A, bool some) { return linalg::qr(A, some ? "reduced" : "complete"); }

std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& A, bool some, bool compute_uv) {
  EMBER_TRACE_OP();
  if (!compute_uv) {
    // Zero U and V of the full sizes, as PyTorch 1.13 returns them.
    const Tensor S = linalg::svdvals(A);
    const int64_t m = A.size(-2), n = A.size(-1);
    std::vector<int64_t> u_shape = A.sizes().vec(), v_shape = A.sizes().vec();
    u_shape.back() = m;
    v_shape[v_shape.size() - 2] = n;
    return {zeros(u_shape, A.options()), S, zeros(v_shape, A.options())};
  }
  auto [U, S, Vh] = linalg::svd(A, !some);
  return {U, S, Vh.mT()};
}

Tensor pinverse(const Tensor& A, double rcond) { return linalg::pinv(A, rcond); }

Tensor matrix_power(const Tensor& A, int64_t n) { return linalg::matrix_power(A, n); }

Tensor matrix_exp(const Tensor& A) { return linalg::matrix_exp(A); }

std::tuple<Tensor, Tensor> triangular_solve(const Tensor& b, const Tensor& A, bool upper, bool transpose,
                                            bool unitriangular) {
  EMBER_TRACE_OP();
  const Tensor coefficients = transpose ? A.mT() : A;
  return {linalg::solve_triangular(coefficients, b, transpose ? !upper : upper, true, unitriangular), A.clone()};
}

// ---- the Tensor methods ----

Tensor Tensor::det() const { return linalg::det(*this); }
Tensor Tensor::logdet() const { return ember::logdet(*this); }
std::tuple<Tensor, Tensor> Tensor::slogdet() const { return linalg::slogdet(*this); }
Tensor Tensor::inverse() const { return linalg::inv(*this); }
Tensor Tensor::cholesky(bool upper) const { return ember::cholesky(*this, upper); }
Tensor Tensor::cholesky_solve(const Tensor& input2, bool upper) const {
  return ember::cholesky_solve(*this, input2, upper);
}
Tensor Tensor::cholesky_inverse(bool upper) const { return ember::cholesky_inverse(*this, upper); }
std::tuple<Tensor, Tensor> Tensor::qr(bool some) const { return ember::qr(*this, some); }
std::tuple<Tensor, Tensor, Tensor> Tensor::svd(bool some, bool compute_uv) const {
  return ember::svd(*this, some, compute_uv);
}
Tensor Tensor::pinverse(double rcond) const { return ember::pinverse(*this, rcond); }
Tensor Tensor::matrix_power(int64_t n) const { return linalg::matrix_power(*this, n); }
Tensor Tensor::matrix_exp() const { return linalg::matrix_exp(*this); }
std::tuple<Tensor, Tensor> Tensor::triangular_solve(const Tensor& A, bool upper, bool transpose,
                                                    bool unitriangular) const {
  return ember::triangular_solve(*this, A, upper, transpose, unitriangular);
}

}  // namespace ember
