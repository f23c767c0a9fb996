// The LAPACK drivers of torch.linalg that autograd/linalg.cpp leaves out: least squares (gels,
// gelsy, gelsd, gelss), the Householder QR pieces (geqrf, orgqr, ormqr), the symmetric indefinite
// LDL^T factorization (sytrf, sytrs), and the older names composed from them or from linalg.cpp
// (symeig, nuclear_norm). Each runs LAPACK on a column-major host copy of every matrix of the batch
// and returns on the input's device, with PyTorch 1.13's shapes, conventions and error texts.
// Every argument is checked before LAPACK sees it (LAPACK's own argument errors abort the process).
// Not here: lu_unpack (linalg.cpp, beside the unpacking that lu and lu_solve share).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "autograd/grad_mode.h"
#include "autograd/linalg.h"
#include "autograd/linalg_host.h"
#include "autograd/node.h"
#include "core/cpu/lapack.h"
#include "core/error.h"
#include "core/shape.h"
#include "core/trace.h"

namespace ember::linalg {

namespace {

using namespace host;  // NOLINT: the host copies shared with the other linalg file (autograd/linalg_host.h)

// ---- the LAPACK calls, one overload per type ----

struct LstsqCall {
  char driver;  // 'l' gels, 'y' gelsy, 'd' gelsd, 's' gelss
  int m, n, nrhs, lda, ldb;
};
// One least-squares solve in place; rank and s where the driver has them; returns info.
template <typename T>
int lstsq_call(const LstsqCall& c, T* a, T* b, T rcond, int* rank, T* s) {
  constexpr bool dbl = std::is_same_v<T, double>;
  int info = 0, lwork = -1;
  T work_size = 0;
  std::vector<int> jpvt(c.driver == 'y' ? static_cast<size_t>(c.n) : 0, 0);
  std::vector<int> iwork;
  auto run = [&](T* work) {
    const char trans = 'N';
    if (c.driver == 'l') {
      if constexpr (dbl)
        dgels_(&trans, &c.m, &c.n, &c.nrhs, a, &c.lda, b, &c.ldb, work, &lwork, &info);
      else
        sgels_(&trans, &c.m, &c.n, &c.nrhs, a, &c.lda, b, &c.ldb, work, &lwork, &info);
    } else if (c.driver == 'y') {
      if constexpr (dbl)
        dgelsy_(&c.m, &c.n, &c.nrhs, a, &c.lda, b, &c.ldb, jpvt.data(), &rcond, rank, work, &lwork, &info);
      else
        sgelsy_(&c.m, &c.n, &c.nrhs, a, &c.lda, b, &c.ldb, jpvt.data(), &rcond, rank, work, &lwork, &info);
    } else if (c.driver == 'd') {
      if constexpr (dbl)
        dgelsd_(&c.m, &c.n, &c.nrhs, a, &c.lda, b, &c.ldb, s, &rcond, rank, work, &lwork, iwork.data(), &info);
      else
        sgelsd_(&c.m, &c.n, &c.nrhs, a, &c.lda, b, &c.ldb, s, &rcond, rank, work, &lwork, iwork.data(), &info);
    } else {
      if constexpr (dbl)
        dgelss_(&c.m, &c.n, &c.nrhs, a, &c.lda, b, &c.ldb, s, &rcond, rank, work, &lwork, &info);
      else
        sgelss_(&c.m, &c.n, &c.nrhs, a, &c.lda, b, &c.ldb, s, &rcond, rank, work, &lwork, &info);
    }
  };
  // gelsd's integer workspace: the query returns its size in iwork[0].
  iwork.assign(static_cast<size_t>(std::max(1, 16 * std::min(c.m, c.n) + 64)), 0);
  run(&work_size);
  if (c.driver == 'd') iwork.assign(static_cast<size_t>(std::max({iwork[0], 1, 16 * std::min(c.m, c.n) + 64})), 0);
  std::vector<T> work(static_cast<size_t>(work_size) + 1);
  lwork = static_cast<int>(work.size());
  run(work.data());
  return info;
}

// A LAPACK routine run twice, as its workspace protocol asks: with lwork = -1 to learn the size it
// wants (written into the first work element), then with a workspace of that size.
template <typename T, typename Run>
void with_workspace(int& lwork, Run run) {
  T work_size = 0;
  lwork = -1;
  run(&work_size);
  std::vector<T> work(static_cast<size_t>(work_size) + 1);
  lwork = static_cast<int>(work.size());
  run(work.data());
}

template <typename T>
int ormqr_call(char side, char trans, int m, int n, int k, const T* a, int lda, const T* tau, T* c, int ldc) {
  int info = 0, lwork = -1;
  with_workspace<T>(lwork, [&](T* work) {
    if constexpr (std::is_same_v<T, double>)
      dormqr_(&side, &trans, &m, &n, &k, a, &lda, tau, c, &ldc, work, &lwork, &info);
    else
      sormqr_(&side, &trans, &m, &n, &k, a, &lda, tau, c, &ldc, work, &lwork, &info);
  });
  return info;
}

template <typename T>
int sytrf_call(int n, T* a, int* ipiv) {
  const char uplo = 'L';
  int info = 0, lwork = -1;
  with_workspace<T>(lwork, [&](T* work) {
    if constexpr (std::is_same_v<T, double>)
      dsytrf_(&uplo, &n, a, &n, ipiv, work, &lwork, &info);
    else
      ssytrf_(&uplo, &n, a, &n, ipiv, work, &lwork, &info);
  });
  return info;
}

template <typename T>
int sytrs_call(int n, int nrhs, const T* a, const int* ipiv, T* b) {
  const char uplo = 'L';
  int info = 0;
  if constexpr (std::is_same_v<T, double>)
    dsytrs_(&uplo, &n, &nrhs, a, &n, ipiv, b, &n, &info);
  else
    ssytrs_(&uplo, &n, &nrhs, a, &n, ipiv, b, &n, &info);
  return info;
}

bool is_float(const Tensor& A) { return A.dtype() == kFloat32 || A.dtype() == kFloat64; }

// Outputs of a function PyTorch 1.13 does not differentiate: a node whose backward says so.
void record_not_implemented(const char* node, const char* message, const tensor_list& outputs,
                            const tensor_list& inputs) {
  if (!autograd::any_requires_grad(inputs)) return;
  const std::string text = message;
  autograd::record(node, outputs, inputs, [text](const tensor_list&) -> tensor_list { EMBER_FAIL("{}", text); });
}

// ---- least squares ----

// PyTorch 1.13's pinv_backward for real A (m, n): the gradient of pinv(A) given g = d pinv(A).
Tensor pinv_backward(const Tensor& g, const Tensor& pinvA, const Tensor& A) {
  const Tensor pinvAt = pinvA.mT(), gt = g.mT();
  if (A.size(-2) <= A.size(-1)) {
    const Tensor K = gt.matmul(pinvA);
    const Tensor KpinvAt = K.matmul(pinvAt);
    return -(pinvA.matmul(K)).mT() + KpinvAt - A.matmul(pinvA).matmul(KpinvAt) +
           pinvAt.matmul(pinvA).matmul(gt - K.matmul(A));
  }
  const Tensor K = pinvA.matmul(gt);
  const Tensor pinvAtK = pinvAt.matmul(K);
  return -(K.matmul(pinvA)).mT() + (gt - A.matmul(K)).matmul(pinvA).matmul(pinvAt) + pinvAtK -
         pinvAtK.matmul(pinvA).matmul(A);
}

struct LstsqResult {
  Tensor solution, residuals, rank, singular_values;
};

// A (*, m, n) and B (*, m, k) with equal batch shapes, driver as LstsqCall's letter.
template <typename T>
LstsqResult lstsq_host(const Tensor& A, const Tensor& B, char driver, double rcond) {
  const int64_t m = A.size(-2), n = A.size(-1), k = B.size(-1), batches = batch_count(A);
  const int64_t ldb = std::max<int64_t>({m, n, 1}), q = std::min(m, n);
  const std::vector<int64_t> batch = batch_shape(A);
  std::vector<T> a = column_major<T>(A), b_in = column_major<T>(B);
  // LAPACK's B is (max(m, n), k): B above, the solution's n rows on return (the residual's rows
  // n..m-1 below them when m > n).
  std::vector<T> b(static_cast<size_t>(batches * ldb * k), T(0));
  for (int64_t i = 0; i < batches; ++i) {
    for (int64_t j = 0; j < k; ++j) {
      std::copy_n(b_in.data() + i * m * k + j * m, m, b.data() + i * ldb * k + j * ldb);
    }
  }
  const bool has_rank = driver != 'l', has_s = driver == 'd' || driver == 's';
  std::vector<int64_t> ranks(static_cast<size_t>(batches), 0);
  std::vector<T> s(has_s ? static_cast<size_t>(batches * q) : 0, T(0));
  if (q > 0 && k > 0) {
    const LstsqCall call{driver, as_int(m), as_int(n), as_int(k), as_int(std::max<int64_t>(m, 1)), as_int(ldb)};
    for (int64_t i = 0; i < batches; ++i) {
      int rank = 0;
      T dummy = 0;
      const int info = lstsq_call<T>(call, a.data() + i * m * n, b.data() + i * ldb * k, static_cast<T>(rcond), &rank,
                                     has_s ? s.data() + i * q : &dummy);
      // gels: a zero on R's diagonal (a rank-deficient A); gelsd/gelss: no SVD convergence.
      EMBER_CHECK(info == 0,
                  "torch.linalg.lstsq: {}The least squares solution could not be computed because the input matrix "
                  "does not have full rank (error code: {}).",
                  batch_prefix(A, i), info);
      ranks[i] = rank;
    }
  } else if (q > 0 && has_rank) {
    // No right-hand sides: the rank still comes from the factorization, so run it with one zero column.
    std::vector<T> zero(static_cast<size_t>(ldb), T(0));
    const LstsqCall call{driver, as_int(m), as_int(n), 1, as_int(std::max<int64_t>(m, 1)), as_int(ldb)};
    for (int64_t i = 0; i < batches; ++i) {
      int rank = 0;
      T dummy = 0;
      std::fill(zero.begin(), zero.end(), T(0));
      lstsq_call<T>(call, a.data() + i * m * n, zero.data(), static_cast<T>(rcond), &rank,
                    has_s ? s.data() + i * q : &dummy);
      ranks[i] = rank;
    }
  }
  std::vector<T> x(static_cast<size_t>(batches * n * k)), res;
  for (int64_t i = 0; i < batches; ++i) {
    for (int64_t j = 0; j < k; ++j) std::copy_n(b.data() + i * ldb * k + j * ldb, n, x.data() + i * n * k + j * n);
  }
  // Residuals as PyTorch 1.13: m > n, not gelsy, and (for gelsd/gelss) every matrix of full rank.
  bool residuals = m > n && driver != 'y';
  if (residuals && has_rank) residuals = std::all_of(ranks.begin(), ranks.end(), [n](int64_t r) { return r == n; });
  if (residuals) {
    res.assign(static_cast<size_t>(batches * k), T(0));
    for (int64_t i = 0; i < batches; ++i) {
      for (int64_t j = 0; j < k; ++j) {
        const T* col = b.data() + i * ldb * k + j * ldb;
        T sum = 0;
        for (int64_t r = n; r < m; ++r) sum += col[r] * col[r];
        res[i * k + j] = sum;
      }
    }
  }
  const Device device = A.device();
  const TensorOptions options = A.options();
  LstsqResult r;
  r.solution = from_column_major(x, batch, n, k, device);
  r.residuals = residuals ? from_values(res, with_last(batch, {k}), device) : empty({0}, options);
  r.rank = has_rank ? from_values(ranks, batch, device) : empty({0}, options.dtype(kInt64));
  r.singular_values = has_s ? from_values(s, with_last(batch, {q}), device) : empty({0}, options);
  return r;
}

char lstsq_driver(std::optional<std::string_view> driver) {
  const std::string_view d = driver ? *driver : "gelsy";
  if (d == "gels") return 'l';
  if (d == "gelsy") return 'y';
  if (d == "gelsd") return 'd';
  if (d == "gelss") return 's';
  EMBER_FAIL("torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)");
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor, Tensor> lstsq(const Tensor& A, const Tensor& B, std::optional<double> rcond,
                                                 std::optional<std::string_view> driver) {
  EMBER_TRACE_OP();
  EMBER_CHECK(A.dim() >= 2, "torch.linalg.lstsq: input must have at least 2 dimensions.");
  const int64_t dim_diff = A.dim() - B.dim();
  EMBER_CHECK(dim_diff == 0 || dim_diff == 1,
              "torch.linalg.lstsq: input.dim() must be greater or equal to other.dim() and (input.dim() - "
              "other.dim()) <= 1");
  EMBER_CHECK(A.dtype() == B.dtype(),
              "torch.linalg.lstsq: Expected input and other to have the same dtype, but got input's dtype {} and "
              "other's dtype {}",
              scalar_type_name(A.dtype()), scalar_type_name(B.dtype()));
  // B with one dim fewer than A is a batch of vectors (PyTorch 1.13's rule for lstsq).
  const bool vector_case = dim_diff == 1;
  const Tensor B_matrix = vector_case ? B.unsqueeze(-1) : B;
  EMBER_CHECK(A.size(-2) == B_matrix.size(-2), "torch.linalg.lstsq: input.size(-2) should match other.size({})",
              vector_case ? -1 : -2);
  const char drv = lstsq_driver(driver);
  EMBER_CHECK(is_float(A), "This function doesn't handle types other than float and double");
  const std::vector<int64_t> batch = broadcast_shapes(batch_shape(A), batch_shape(B_matrix), "torch.linalg.lstsq");
  const Tensor A_b = A.expand(with_last(batch, {A.size(-2), A.size(-1)}));
  const Tensor B_b = B_matrix.expand(with_last(batch, {B_matrix.size(-2), B_matrix.size(-1)}));
  const double eps = A.dtype() == kFloat64 ? std::numeric_limits<double>::epsilon()
                                           : static_cast<double>(std::numeric_limits<float>::epsilon());
  const double tol = rcond ? *rcond : eps * static_cast<double>(std::max(A.size(-2), A.size(-1)));
  LstsqResult r = by_dtype(A.dtype(), [&](auto t) { return lstsq_host<decltype(t)>(A_b, B_b, drv, tol); });
  if (autograd::any_requires_grad({&A_b, &B_b})) {
    // X = pinv(A) B whatever the driver: gB = pinv(A)^T gX, gA = pinv_backward(gX B^T).
    autograd::record("LinalgLstsqBackward0", r.solution, {A_b, B_b}, [A_b, B_b](const Tensor& g) -> tensor_list {
      const Tensor pinvA = pinv(A_b);
      return {pinv_backward(g.matmul(B_b.mT()), pinvA, A_b), pinvA.mT().matmul(g)};
    });
  }
  return {vector_case ? r.solution.squeeze(-1) : r.solution, r.residuals, r.rank, r.singular_values};
}

// ---- Householder products ----

namespace {

void check_householder(const Tensor& A, const Tensor& tau) {
  const char* op = "torch.linalg.householder_product";
  EMBER_CHECK(A.dim() >= 2, "{}: input must have at least 2 dimensions.", op);
  EMBER_CHECK(A.size(-2) >= A.size(-1), "{}: input.shape[-2] must be greater than or equal to input.shape[-1]", op);
  EMBER_CHECK(A.size(-1) >= tau.size(-1), "{}: input.shape[-1] must be greater than or equal to tau.shape[-1]", op);
  EMBER_CHECK(A.dim() - tau.dim() == 1,
              "{}: Expected tau to have one dimension less than input, but got tau.ndim equal to {} and input.ndim is "
              "equal to {}",
              op, tau.dim(), A.dim());
  const std::vector<int64_t> tau_batch(tau.sizes().begin(), tau.sizes().end() - 1);
  EMBER_CHECK(tau_batch == batch_shape(A),
              "{}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got {}", op,
              shape_str(tau_batch));
  EMBER_CHECK(tau.dtype() == A.dtype(), "{}: tau dtype {} does not match input dtype {}", op,
              scalar_type_name(tau.dtype()), scalar_type_name(A.dtype()));
  EMBER_CHECK(is_float(A), "\"orgqr_cpu\" not implemented for '{}'", scalar_type_name(A.dtype()));
}

template <typename T>
Tensor householder_host(const Tensor& A, const Tensor& tau) {
  const int64_t m = A.size(-2), n = A.size(-1), k = tau.size(-1), batches = batch_count(A);
  std::vector<T> a = column_major<T>(A);
  std::vector<T> t = [&] {
    NoGradGuard no_grad;
    return tau.detach().to(kCPU).contiguous().template to_vector<T>();
  }();
  if (n > 0) {
    std::vector<T> work(static_cast<size_t>(std::max<int64_t>(n, 1) * 64));
    for (int64_t b = 0; b < batches; ++b) {
      int info = 0;
      lapack::orgqr(as_int(m), as_int(n), as_int(k), a.data() + b * m * n, as_int(std::max<int64_t>(m, 1)),
                    t.data() + b * k, work.data(), as_int(static_cast<int64_t>(work.size())), &info);
    }
  }
  return from_column_major(a, batch_shape(A), m, n, A.device());
}

// The same product from Ember's ops, so that it differentiates: X <- H_i X for i = k..1 on I (m, n),
// H_i X = X - tau_i v_i (v_i^T X).
Tensor householder_composed(const Tensor& A, const Tensor& tau) {
  const int64_t m = A.size(-2), n = A.size(-1), k = tau.size(-1);
  const Tensor V = A.narrow(-1, 0, k).tril(-1) + eye(m, k, A.options());  // (*, m, k)
  Tensor X = eye(m, n, A.options()).expand(A.sizes());
  for (int64_t i = k - 1; i >= 0; --i) {
    const Tensor v = V.narrow(-1, i, 1);                  // (*, m, 1)
    const Tensor t = tau.narrow(-1, i, 1).unsqueeze(-1);  // (*, 1, 1)
    X = X - (t * v).matmul(v.mT().matmul(X));
  }
  return X;
}

}  // namespace

Tensor householder_product(const Tensor& A, const Tensor& tau) {
  EMBER_TRACE_OP();
  check_householder(A, tau);
  // With a gradient to take, the composition (its values agree with orgqr's to rounding).
  if (autograd::any_requires_grad({&A, &tau})) return householder_composed(A, tau);
  return by_dtype(A.dtype(), [&](auto t) { return householder_host<decltype(t)>(A, tau); });
}

// ---- LDL^T ----

namespace {

template <typename T>
std::tuple<Tensor, Tensor, Tensor> ldl_host(const Tensor& A) {
  const int64_t n = A.size(-1), batches = batch_count(A);
  std::vector<T> a = column_major<T>(A);
  std::vector<int> pivots(static_cast<size_t>(batches * n), 0), infos(static_cast<size_t>(batches), 0);
  for (int64_t b = 0; b < batches && n > 0; ++b) {
    T* ab = a.data() + b * n * n;
    infos[b] = sytrf_call<T>(as_int(n), ab, pivots.data() + b * n);
    for (int64_t j = 1; j < n; ++j) {
      for (int64_t i = 0; i < j; ++i) ab[i + j * n] = 0;  // the upper triangle, untouched by sytrf('L')
    }
  }
  const std::vector<int64_t> batch = batch_shape(A);
  return {from_column_major(a, batch, n, n, A.device()), from_values(pivots, with_last(batch, {n}), A.device()),
          from_values(infos, batch, A.device())};
}

// sytrs reads past the matrix on a 2x2 block that starts in the last row: a malformed pivot list
// is refused here rather than handed on.
void check_ldl_pivots(const std::vector<int>& pivots, int64_t n, int64_t batches) {
  for (int64_t b = 0; b < batches; ++b) {
    const int* p = pivots.data() + b * n;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t v = p[i];
      const bool ok = (v > 0 && v <= n) || (v < 0 && -v <= n && i + 1 < n && p[i + 1] == v);
      EMBER_CHECK(ok,
                  "torch.linalg.ldl_solve: pivots must be those of ldl_factor (1-based, a negative pair for a 2x2 "
                  "block), but pivots[{}] = {} for matrices of size {}",
                  i, v, n);
      if (v < 0) ++i;  // the second row of the 2x2 block
    }
  }
}

template <typename T>
Tensor ldl_solve_host(const Tensor& LD, const Tensor& pivots, const Tensor& B) {
  const int64_t n = LD.size(-1), k = B.size(-1), batches = batch_count(LD);
  std::vector<T> a = column_major<T>(LD), x = column_major<T>(B);
  const std::vector<int> p = [&] {
    NoGradGuard no_grad;
    return pivots.to(kCPU).to(kInt32).contiguous().to_vector<int>();
  }();
  check_ldl_pivots(p, n, batches);
  for (int64_t b = 0; b < batches && n > 0 && k > 0; ++b) {
    sytrs_call<T>(as_int(n), as_int(k), a.data() + b * n * n, p.data() + b * n, x.data() + b * n * k);
  }
  return from_column_major(x, batch_shape(B), n, k, B.device());
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> ldl_factor_ex(const Tensor& A, bool, bool check_errors) {
  EMBER_TRACE_OP();
  const char* op = "torch.linalg.ldl_factor_ex";
  EMBER_CHECK(A.dim() >= 2, "{}: The input tensor A must have at least 2 dimensions.", op);
  EMBER_CHECK(A.size(-1) == A.size(-2), "{}: A must be batches of square matrices, but they are {} by {} matrices", op,
              A.size(-2), A.size(-1));
  EMBER_CHECK(is_float(A), "{}: Expected a floating point or complex tensor as input. Got {}", op,
              scalar_type_name(A.dtype()));
  // For real matrices the symmetric and the Hermitian factorizations are one (sytrf).
  auto [LD, pivots, info] = by_dtype(A.dtype(), [&](auto t) { return ldl_host<decltype(t)>(A); });
  if (check_errors) {
    // info > 0: D has an exact zero block (the factorization itself is complete). PyTorch 1.13
    // reports it through an internal assert with this text.
    const std::vector<int> infos = info.to(kCPU).contiguous().to_vector<int>();
    for (size_t b = 0; b < infos.size(); ++b) {
      EMBER_CHECK(infos[b] == 0, "{}: {}Unknown error code: {}.", op, batch_prefix(A, static_cast<int64_t>(b)),
                  infos[b]);
    }
  }
  record_not_implemented("NotImplemented", "derivative for aten::linalg_ldl_factor_ex is not implemented", {LD}, {A});
  return {LD, pivots, info};
}

std::tuple<Tensor, Tensor> ldl_factor(const Tensor& A, bool hermitian) {
  auto [LD, pivots, info] = ldl_factor_ex(A, hermitian, false);
  const std::vector<int> infos = info.to(kCPU).contiguous().to_vector<int>();
  for (size_t b = 0; b < infos.size(); ++b) {
    EMBER_CHECK(infos[b] == 0, "torch.linalg.ldl_factor: {}Unknown error code: {}.",
                batch_prefix(A, static_cast<int64_t>(b)), infos[b]);
  }
  return {LD, pivots};
}

Tensor ldl_solve(const Tensor& LD, const Tensor& pivots, const Tensor& B, bool) {
  EMBER_TRACE_OP();
  const char* op = "torch.linalg.ldl_solve";
  EMBER_CHECK(LD.dim() >= 2, "{}: The input tensor LD must have at least 2 dimensions.", op);
  EMBER_CHECK(LD.size(-1) == LD.size(-2), "{}: LD must be batches of square matrices, but they are {} by {} matrices",
              op, LD.size(-2), LD.size(-1));
  EMBER_CHECK(is_float(LD), "{}: Expected a floating point or complex tensor as input. Got {}", op,
              scalar_type_name(LD.dtype()));
  EMBER_CHECK(B.dtype() == LD.dtype(),
              "Expected b and A to have the same dtype, but found b of type {} and A of type {} instead.",
              scalar_type_name(B.dtype()), scalar_type_name(LD.dtype()));
  // PyTorch 1.13 reads B.size(-2) before any check of B's rank.
  EMBER_CHECK(B.dim() >= 2, "Dimension out of range (expected to be in range of [{}, {}], but got -2)",
              -std::max<int64_t>(B.dim(), 1), std::max<int64_t>(B.dim(), 1) - 1);
  EMBER_CHECK(pivots.dtype() == kInt32 || pivots.dtype() == kInt64, "{}: Expected pivots to be integers. Got {}", op,
              scalar_type_name(pivots.dtype()));
  const std::vector<int64_t> ld_rows(LD.sizes().begin(), LD.sizes().end() - 1);
  EMBER_CHECK(pivots.sizes() == IntArrayRef(ld_rows),
              "{}: Expected LD.shape[:-1] and pivots.shape to be the same, but got pivots with shape {} instead", op,
              shape_str(pivots.sizes()));
  EMBER_CHECK(B.size(-2) == LD.size(-1),
              "Incompatible matrix sizes for {}: each A matrix is {} by {} but each b matrix is {} by {}", op,
              LD.size(-2), LD.size(-1), B.size(-2), B.size(-1));
  const std::vector<int64_t> batch = broadcast_shapes(batch_shape(LD), batch_shape(B), op);
  const int64_t n = LD.size(-1);
  const Tensor LD_b = LD.expand(with_last(batch, {n, n}));
  const Tensor pivots_b = pivots.expand(with_last(batch, {n}));
  const Tensor B_b = B.expand(with_last(batch, {n, B.size(-1)}));
  Tensor X = by_dtype(LD.dtype(), [&](auto t) { return ldl_solve_host<decltype(t)>(LD_b, pivots_b, B_b); });
  record_not_implemented("NotImplemented", "derivative for aten::linalg_ldl_solve is not implemented", {X}, {LD, B});
  return X;
}

}  // namespace ember::linalg

namespace ember {

// ---- geqrf, orgqr, ormqr ----

namespace {

template <typename T>
std::tuple<Tensor, Tensor> geqrf_host(const Tensor& A) {
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n), batches = linalg::batch_count(A);
  std::vector<T> a = linalg::column_major<T>(A), tau(static_cast<size_t>(batches * k), T(0));
  std::vector<T> work(static_cast<size_t>(std::max<int64_t>({m, n, 1}) * 64));
  for (int64_t b = 0; b < batches && k > 0; ++b) {
    int info = 0;
    lapack::geqrf(linalg::as_int(m), linalg::as_int(n), a.data() + b * m * n, linalg::as_int(m), tau.data() + b * k,
                  work.data(), linalg::as_int(static_cast<int64_t>(work.size())), &info);
  }
  const std::vector<int64_t> batch = linalg::batch_shape(A);
  return {linalg::from_column_major(a, batch, m, n, A.device()),
          linalg::from_values(tau, linalg::with_last(batch, {k}), A.device())};
}

template <typename T>
Tensor ormqr_host(const Tensor& A, const Tensor& tau, const Tensor& C, bool left, bool transpose) {
  const int64_t ma = A.size(-2), k = tau.size(-1), m = C.size(-2), n = C.size(-1), batches = linalg::batch_count(C);
  const std::vector<T> a = linalg::column_major<T>(A);
  std::vector<T> c = linalg::column_major<T>(C);
  const std::vector<T> t = [&] {
    NoGradGuard no_grad;
    return tau.detach().to(kCPU).contiguous().template to_vector<T>();
  }();
  const int64_t na = A.size(-1);
  for (int64_t b = 0; b < batches && m > 0 && n > 0; ++b) {
    linalg::ormqr_call<T>(left ? 'L' : 'R', transpose ? 'T' : 'N', linalg::as_int(m), linalg::as_int(n),
                          linalg::as_int(k), a.data() + b * ma * na, linalg::as_int(std::max<int64_t>(ma, 1)),
                          t.data() + b * k, c.data() + b * m * n, linalg::as_int(std::max<int64_t>(m, 1)));
  }
  return linalg::from_column_major(c, linalg::batch_shape(C), m, n, C.device());
}

}  // namespace

std::tuple<Tensor, Tensor> geqrf(const Tensor& A) {
  EMBER_TRACE_OP();
  EMBER_CHECK(A.dim() >= 2, "torch.geqrf: input must have at least 2 dimensions.");
  EMBER_CHECK(linalg::is_float(A), "\"geqrf_cpu\" not implemented for '{}'", scalar_type_name(A.dtype()));
  auto [a, tau] = linalg::by_dtype(A.dtype(), [&](auto t) { return geqrf_host<decltype(t)>(A); });
  linalg::record_not_implemented("GeqrfBackward0", "the derivative for 'geqrf' is not implemented.", {a, tau}, {A});
  return {a, tau};
}

Tensor orgqr(const Tensor& A, const Tensor& tau) { return linalg::householder_product(A, tau); }

Tensor ormqr(const Tensor& A, const Tensor& tau, const Tensor& C, bool left, bool transpose) {
  EMBER_TRACE_OP();
  const char* op = "torch.ormqr";
  EMBER_CHECK(A.dim() >= 2, "{}: input must have at least 2 dimensions.", op);
  EMBER_CHECK(C.dim() >= 2, "{}: other must have at least 2 dimensions.", op);
  const int64_t side = left ? -2 : -1;
  EMBER_CHECK(C.size(side) == A.size(-2), "{}: other.shape[{}] must be equal to input.shape[-2]", op, side);
  EMBER_CHECK(tau.size(-1) <= A.size(-1), "{}: tau.shape[-1] must be less than or equal to input.shape[-1]", op);
  // LAPACK's k <= rows of Q as well (a wide input's tau may not exceed its rows).
  EMBER_CHECK(tau.size(-1) <= A.size(-2), "{}: tau.shape[-1] must be less than or equal to input.shape[-2]", op);
  EMBER_CHECK(A.dim() - tau.dim() == 1,
              "{}: Expected tau to have one dimension less than input, but got tau.ndim equal to {} and input.ndim is "
              "equal to {}",
              op, tau.dim(), A.dim());
  EMBER_CHECK(A.dim() == C.dim(),
              "{}: Expected other to have the same number of dimensions as input, but got other.ndim equal to {} and "
              "input.ndim is equal to {}",
              op, C.dim(), A.dim());
  const std::vector<int64_t> batch = linalg::batch_shape(A);
  const std::vector<int64_t> tau_batch(tau.sizes().begin(), tau.sizes().end() - 1);
  EMBER_CHECK(tau_batch == batch, "{}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got {}",
              op, shape_str(tau_batch));
  EMBER_CHECK(linalg::batch_shape(C) == batch,
              "{}: Expected batch dimensions of other to be equal to input.shape[:-2], but got {}", op,
              shape_str(linalg::batch_shape(C)));
  EMBER_CHECK(tau.dtype() == A.dtype(),
              "{}: Expected input and tau to have the same dtype, but input has dtype{} and tau has dtype {}", op,
              scalar_type_name(A.dtype()), scalar_type_name(tau.dtype()));
  EMBER_CHECK(C.dtype() == A.dtype(),
              "{}: Expected input and other to have the same dtype, but input has dtype{} and other has dtype {}", op,
              scalar_type_name(A.dtype()), scalar_type_name(C.dtype()));
  EMBER_CHECK(linalg::is_float(A), "\"ormqr_cpu\" not implemented for '{}'", scalar_type_name(A.dtype()));
  Tensor X = linalg::by_dtype(A.dtype(), [&](auto t) { return ormqr_host<decltype(t)>(A, tau, C, left, transpose); });
  linalg::record_not_implemented("OrmqrBackward0", "the derivative for 'ormqr' is not implemented.", {X}, {A, tau, C});
  return X;
}

// ---- older names ----

Tensor nuclear_norm(const Tensor& A, bool keepdim) {
  EMBER_CHECK(A.dim() == 2, "Expected a tensor with 2 dimensions, but got a tensor with {} dimension{} instead.",
              A.dim(), A.dim() == 1 ? "" : "s");
  return linalg::matrix_norm(A, "nuc", {-2, -1}, keepdim);
}

Tensor nuclear_norm(const Tensor& A, IntArrayRef dim, bool keepdim) {
  EMBER_CHECK(dim.size() == 2, "nuclear norm requires a 'dim' argument of size 2");
  return linalg::matrix_norm(A, "nuc", dim.vec(), keepdim);
}

std::tuple<Tensor, Tensor> symeig(const Tensor& A, bool eigenvectors, bool upper) {
  EMBER_TRACE_OP();
  static bool warned = false;
  if (!warned || get_warn_always()) {
    warned = true;
    warn(Warning(SourceLocation{"symeig", __FILE__, static_cast<uint32_t>(__LINE__)},
                 "torch.symeig is deprecated in favor of torch.linalg.eigh and will be removed in a future PyTorch "
                 "release.\nThe default behavior has changed from using the upper triangular portion of the matrix by "
                 "default to using the lower triangular portion.\nL, _ = torch.symeig(A, upper=upper)\nshould be "
                 "replaced with\nL = torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L')\nand\nL, V = "
                 "torch.symeig(A, eigenvectors=True)\nshould be replaced with\nL, V = torch.linalg.eigh(A, UPLO='U' "
                 "if upper else 'L')",
                 false));
  }
  EMBER_CHECK(A.dim() >= 2, "linalg.symeig: The input tensor A must have at least 2 dimensions.");
  EMBER_CHECK(A.size(-1) == A.size(-2),
              "linalg.symeig: A must be batches of square matrices, but they are {} by {} matrices", A.size(-2),
              A.size(-1));
  EMBER_CHECK(linalg::is_float(A), "\"symeig_cpu\" not implemented for '{}'", scalar_type_name(A.dtype()));
  const std::string_view uplo = upper ? "U" : "L";
  if (eigenvectors) return linalg::eigh(A, uplo);
  Tensor values;
  {
    NoGradGuard no_grad;
    values = linalg::eigvalsh(A.detach(), uplo);
  }
  linalg::record_not_implemented(
      "SymeigBackward0",
      "linalg_eig_backward: torch.symeig(A, eigenvectors=False) is not differentiable. Use torch.linalg.eigvalsh(A) "
      "instead.",
      {values}, {A});
  return {values, empty({0}, A.options())};
}

}  // namespace ember
