// torch::linalg's LAPACK drivers beyond the basics, as a libtorch 1.13 program calls them: lstsq with
// each CPU driver (tall, wide, rank-deficient, a vector right-hand side), householder_product,
// geqrf/orgqr/ormqr, ldl_factor/ldl_solve on an indefinite matrix, lu_unpack, nuclear_norm and the
// deprecated symeig, with the gradients 1.13 defines (lstsq's solution, householder_product,
// lu_unpack's L and U); then the out= forms of these and of the older multi-result functions
// (slogdet, qr, svd, eigh, inv_ex, cholesky_ex, lu_factor, lu, solve_ex, triangular_solve, ...).
// Only determined quantities are printed: reconstructions, eigen- and singular values, and the
// outputs of geqrf and sytrf, on which OpenBLAS's reference LAPACK and libtorch's agree.
#include <cmath>
#include <iomanip>
#include <iostream>
#include <string>

#include <torch/torch.h>

namespace {

std::string first_line(const char* what) {
  std::string s(what);
  return s.substr(0, s.find('\n'));
}

void print(const std::string& name, const torch::Tensor& t) {
  auto flat = t.detach().to(torch::kFloat64).contiguous().reshape({-1});
  std::cout << name << " [";
  for (int64_t i = 0; i < t.dim(); ++i) std::cout << (i ? "," : "") << t.size(i);
  std::cout << "]:";
  for (int64_t i = 0; i < flat.numel(); ++i) {
    // Rounding noise of exact zeros (in reconstructions) differs between libraries: printed as 0.
    const double v = flat[i].item<double>();
    std::cout << ' ' << (std::abs(v) < 1e-10 ? 0.0 : v);
  }
  std::cout << '\n';
}

template <typename F>
void expect_error(const std::string& name, F f) {
  try {
    f();
    std::cout << name << ": no error\n";
  } catch (const c10::Error& e) {
    std::cout << name << ": " << first_line(e.what()) << '\n';
  }
}

}  // namespace

int main() {
  std::cout << std::setprecision(8);
  auto opts = torch::TensorOptions().dtype(torch::kFloat64);
  auto T = torch::tensor({{1.0, 2.0, 0.0}, {-1.0, 0.5, 3.0}, {2.0, 1.0, 1.0}, {0.0, -2.0, 1.0}, {1.0, 1.0, 1.0}}, opts);
  auto Y = torch::tensor({{1.0, 0.0}, {2.0, -1.0}, {0.5, 0.5}, {-1.0, 2.0}, {0.0, 1.0}}, opts);

  // ---- lstsq ----
  for (const char* driver : {"gels", "gelsy", "gelsd", "gelss"}) {
    auto [X, res, rank, sv] = torch::linalg::lstsq(T, Y, c10::nullopt, driver);
    const std::string d(driver);
    print("lstsq " + d + " solution", X);
    print("lstsq " + d + " residuals", res);
    print("lstsq " + d + " rank", rank);
    print("lstsq " + d + " singular_values", sv);
  }
  auto [Xw, resw, rankw, svw] = torch::linalg::lstsq(T.t(), Y.narrow(0, 0, 3), c10::nullopt, c10::nullopt);
  print("lstsq wide solution", Xw);
  print("lstsq wide residuals", resw);
  auto R1 = torch::tensor({{1.0, 2.0}, {2.0, 4.0}, {3.0, 6.0}}, opts);
  auto [Xr, resr, rankr, svr] = at::linalg_lstsq(R1, torch::ones({3, 1}, opts), c10::nullopt, "gelsd");
  print("lstsq rank-deficient solution", Xr);
  print("lstsq rank-deficient rank", rankr);
  print("lstsq rank-deficient residuals", resr);
  auto diag = torch::diag(torch::tensor({1.0, 1e-3, 1e-9}, opts));
  print("lstsq rcond rank", std::get<2>(at::linalg_lstsq(diag, torch::ones({3, 1}, opts), 1e-2, "gelsy")));
  print("lstsq float rank",
        std::get<2>(at::linalg_lstsq(diag.to(torch::kFloat32), torch::ones({3, 1}), c10::nullopt, "gelsy")));
  print("lstsq vector", std::get<0>(at::linalg_lstsq(T, Y.select(1, 0))));
  auto Tb = torch::stack({T, T * 2}).unsqueeze(1);         // (2, 1, 5, 3)
  auto Yb = torch::stack({Y, Y + 1, Y - 1}).unsqueeze(0);  // (1, 3, 5, 2)
  print("lstsq broadcast", std::get<0>(at::linalg_lstsq(Tb, Yb)));

  auto Tg = T.clone().requires_grad_();
  auto Yg = Y.clone().requires_grad_();
  auto Xg = std::get<0>(torch::linalg::lstsq(Tg, Yg, c10::nullopt, c10::nullopt));
  (Xg * torch::arange(6, opts).reshape({3, 2})).sum().backward();
  print("grad lstsq A", Tg.grad());
  print("grad lstsq B", Yg.grad());

  // ---- Householder QR ----
  torch::Tensor a, tau;  // (std::tie: the error checks below capture these, which Clang 14 refuses for bindings)
  std::tie(a, tau) = at::geqrf(T);
  print("geqrf a", a);
  print("geqrf tau", tau);
  auto Q = torch::linalg::householder_product(a, tau);
  print("householder Q R", Q.matmul(a.triu().narrow(0, 0, 3)));
  print("orgqr Q^T Q", at::orgqr(a, tau).t().matmul(at::orgqr(a, tau)));
  print("ormqr left", at::ormqr(a, tau, Y));
  print("ormqr left transpose", at::ormqr(a, tau, Y, true, true));
  print("ormqr right", at::ormqr(a, tau, Y.t(), false, false));
  print("ormqr right transpose", at::ormqr(a, tau, Y.t(), false, true));
  auto ag = a.clone().requires_grad_();
  auto taug = tau.clone().requires_grad_();
  (torch::linalg::householder_product(ag, taug) * torch::arange(15, opts).reshape({5, 3})).sum().backward();
  print("grad householder A", ag.grad());
  print("grad householder tau", taug.grad());

  // ---- LDL^T ----
  auto S = torch::tensor({{1.0, 2.0, 3.0}, {2.0, -1.0, 0.5}, {3.0, 0.5, 0.0}}, opts);
  auto Z = torch::tensor({{0.0, 1.0, 2.0}, {1.0, 0.0, 3.0}, {2.0, 3.0, 0.0}}, opts);
  torch::Tensor LD, pivots;
  std::tie(LD, pivots) = at::linalg_ldl_factor(torch::stack({S, Z}));
  print("ldl LD", LD);
  print("ldl pivots", pivots);
  auto [LDe, pivotse, infoe] = torch::linalg::ldl_factor_ex(torch::zeros({2, 2}, opts), false, false);
  print("ldl_ex singular info", infoe);
  auto rhs = torch::tensor({{1.0}, {2.0}, {3.0}}, opts);
  print("ldl_solve", torch::linalg::ldl_solve(LD, pivots, rhs, false));
  print("ldl_solve check", torch::stack({S, Z}).matmul(torch::linalg::ldl_solve(LD, pivots, rhs, true)));

  // ---- lu_unpack ----
  torch::Tensor LU, piv;
  std::tie(LU, piv) = torch::linalg::lu_factor(T);
  auto [P, L, U] = at::lu_unpack(LU, piv);
  print("lu_unpack P", P);
  print("lu_unpack L", L);
  print("lu_unpack U", U);
  auto [P0, L0, U0] = at::lu_unpack(LU, piv, false, true);
  print("lu_unpack no data", L0);
  auto LUg = LU.clone().requires_grad_();
  auto [Pg, Lg, Ug] = at::lu_unpack(LUg, piv);
  ((Lg * torch::arange(15, opts).reshape({5, 3})).sum() + (Ug * torch::arange(9, opts).reshape({3, 3})).sum())
      .backward();
  print("grad lu_unpack", LUg.grad());

  // ---- nuclear_norm, symeig ----
  print("nuclear_norm", at::nuclear_norm(T));
  print("nuclear_norm keepdim", at::nuclear_norm(T, true));
  print("nuclear_norm dim", at::nuclear_norm(torch::stack({T, -2 * T}), {1, 2}));
  auto [e, V] = at::symeig(S);
  print("symeig values", e);
  print("symeig no vectors", V);
  auto [el, Vl] = at::symeig(S, true, false);
  print("symeig lower values", el);
  print("symeig reconstruct", Vl.matmul(torch::diag(el)).matmul(Vl.t()));

  // ---- out= forms ----
  auto out = [&] { return torch::empty({0}, opts); };
  auto iout = [] { return torch::empty({0}, torch::kInt32); };
  auto lout = [] { return torch::empty({0}, torch::kLong); };
  torch::Tensor o1 = out(), o2 = out(), o3 = lout(), o4 = out();
  auto refs = at::linalg_lstsq_out(o1, o2, o3, o4, T, Y, c10::nullopt, "gelsd");
  std::cout << "lstsq_out same " << (&std::get<0>(refs) == &o1) << (&std::get<3>(refs) == &o4) << '\n';
  print("lstsq_out solution", o1);
  print("lstsq_out residuals", o2);
  at::linalg_lstsq_outf(T, Y, c10::nullopt, c10::nullopt, o1, o2, o3, o4);
  print("lstsq_outf residuals", o2);
  auto Sq = T.narrow(0, 0, 3);
  torch::Tensor sign = out(), logabs = out();
  at::linalg_slogdet_out(sign, logabs, Sq);
  print("linalg_slogdet_out", torch::stack({sign, logabs}));
  at::slogdet_outf(-Sq, sign, logabs);
  print("slogdet_outf", torch::stack({sign, logabs}));
  torch::Tensor q = out(), r = out();
  at::linalg_qr_out(q, r, T, "complete");
  print("linalg_qr_out QR", q.matmul(r));
  at::qr_outf(T, true, q, r);
  print("qr_outf Q^T Q", q.t().matmul(q));
  torch::Tensor u = out(), s = out(), vh = out();
  at::linalg_svd_outf(T, false, c10::nullopt, u, s, vh);
  print("linalg_svd_outf S", s);
  print("linalg_svd_outf USVh", u.matmul(torch::diag(s)).matmul(vh));
  at::svd_out(u, s, vh, T);
  print("svd_out USV^T", u.matmul(torch::diag(s)).matmul(vh.t()));
  torch::Tensor ev = out(), evec = out();
  at::linalg_eigh_out(ev, evec, S, "U");
  print("linalg_eigh_out values", ev);
  torch::Tensor inv = out(), info = iout();
  at::linalg_inv_ex_out(inv, info, Sq);
  print("linalg_inv_ex_out", inv.matmul(Sq));
  print("linalg_inv_ex_out info", info);
  auto spd = Sq.matmul(Sq.t()) + 3 * torch::eye(3, opts);
  torch::Tensor chol = out();
  at::linalg_cholesky_ex_outf(spd, true, false, chol, info);
  print("linalg_cholesky_ex_outf", chol);
  torch::Tensor luo = out(), pivo = iout(), infoo = iout();
  at::linalg_lu_factor_out(luo, pivo, Sq);
  print("linalg_lu_factor_out LU", luo);
  print("linalg_lu_factor_out pivots", pivo);
  at::linalg_lu_factor_ex_out(luo, pivo, infoo, Sq);
  print("linalg_lu_factor_ex_out info", infoo);
  torch::Tensor po = out(), lo = out(), uo = out();
  at::linalg_lu_out(po, lo, uo, T);
  print("linalg_lu_out PLU", po.matmul(lo).matmul(uo));
  at::lu_unpack_out(po, lo, uo, luo, pivo);
  print("lu_unpack_out U", uo);
  torch::Tensor xo = out();
  at::linalg_solve_ex_out(xo, info, Sq, Y.narrow(0, 0, 3));
  print("linalg_solve_ex_out", xo);
  at::lu_solve_out(xo, Y.narrow(0, 0, 3), luo, pivo);
  print("lu_solve_out", xo);
  torch::Tensor m = out();
  at::triangular_solve_out(xo, m, Y.narrow(0, 0, 3), Sq.triu());
  print("triangular_solve_out X", xo);
  print("triangular_solve_out M", m);
  at::linalg_cross_out(xo, Sq, Sq.flip({0}));
  print("linalg_cross_out", xo);
  torch::Tensor ao = out(), tauo = out();
  at::geqrf_out(ao, tauo, T);
  at::linalg_householder_product_out(xo, ao, tauo);
  print("householder_product_out QR", xo.matmul(ao.triu().narrow(0, 0, 3)));
  at::orgqr_outf(ao, tauo, xo);
  print("orgqr_outf", xo.t().matmul(xo));
  at::ormqr_out(xo, ao, tauo, Y, true, true);
  print("ormqr_out", xo);
  torch::Tensor ldo = out(), pvo = iout(), ifo = iout();
  at::linalg_ldl_factor_ex_out(ldo, pvo, ifo, S);
  print("linalg_ldl_factor_ex_out LD", ldo);
  at::linalg_ldl_factor_outf(Z, false, ldo, pvo);
  print("linalg_ldl_factor_outf pivots", pvo);
  at::linalg_ldl_solve_out(xo, ldo, pvo, rhs);
  print("linalg_ldl_solve_out", xo);
  at::nuclear_norm_out(xo, T);
  print("nuclear_norm_out", xo);
  at::nuclear_norm_outf(torch::stack({T, T}), {1, 2}, true, xo);
  print("nuclear_norm_outf dim", xo);
  torch::Tensor eo = out(), vo = out();
  at::symeig_out(eo, vo, S, true);
  print("symeig_out values", eo);
  std::cout << "symeig_out vectors shape " << vo.size(0) << ' ' << vo.size(1) << '\n';

  // ---- errors ----
  expect_error("lstsq driver", [&] { torch::linalg::lstsq(T, Y, c10::nullopt, "foo"); });
  expect_error("lstsq shapes", [&] { at::linalg_lstsq(T, torch::ones({4, 2}, opts)); });
  expect_error("lstsq dtype", [&] { at::linalg_lstsq(T, torch::ones({5, 2})); });
  expect_error("householder shapes", [&] { torch::linalg::householder_product(a.t(), tau); });
  expect_error("ormqr dims", [&] { at::ormqr(a, tau, Y.unsqueeze(0)); });
  expect_error("ldl square", [&] { at::linalg_ldl_factor(T); });
  expect_error("ldl_solve sizes", [&] { torch::linalg::ldl_solve(LD, pivots, torch::ones({4, 1}, opts), false); });
  expect_error("lu_unpack pivots dtype", [&] { at::lu_unpack(LU, piv.to(torch::kLong)); });
  expect_error("nuclear_norm dims", [&] { at::nuclear_norm(torch::stack({T, T})); });
  expect_error("symeig square", [&] { at::symeig(T); });
  return 0;
}
