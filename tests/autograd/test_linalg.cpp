// torch.linalg (autograd/linalg.h) against PyTorch 1.13 (scripts/gen_linalg_fixtures.py,
// tests/fixtures/linalg.json): values and gradients of the decompositions and the functions composed
// from them, decompositions with a sign freedom through sign-invariant functions (|V|, |U|). Then
// gradcheck and gradgradcheck in float64, PyTorch's errors for bad input, and a few identities
// (A = QR, A = P L U, A = U S V^T) on shapes the fixtures do not cover.
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <string>

#include "autograd/linalg.h"
#include "fixture_cases.h"
#include "test_util.h"

using namespace ember;
using namespace ember::test;

namespace ember::test {
// test_linalg_lapack.cpp's table lines (lstsq, householder_product, ldl, lu_unpack, ...).
void add_linalg_lapack_cases(std::map<std::string, std::function<Tensor(const NamedInputs&)>>& t);
}  // namespace ember::test

namespace {

using Case = std::function<Tensor(const NamedInputs&)>;

Tensor flat_cat(const tensor_list& parts) {
  tensor_list flat;
  for (const Tensor& t : parts) flat.push_back(t.flatten());
  return cat(flat);
}
// A symmetric positive-definite matrix from any square X: X X^T + n I.
Tensor spd(const Tensor& X) { return X.matmul(X.mT()) + X.size(-1) * eye(X.size(-1), X.options()); }
Tensor eigh_invariant(const std::tuple<Tensor, Tensor>& e) {
  return flat_cat({std::get<0>(e), std::get<1>(e).abs()});
}
Tensor svd_invariant(const std::tuple<Tensor, Tensor, Tensor>& usv) {
  return flat_cat({std::get<0>(usv).abs(), std::get<1>(usv), std::get<2>(usv).abs()});
}
Tensor pair(const std::tuple<Tensor, Tensor>& t) { return flat_cat({std::get<0>(t), std::get<1>(t)}); }
Case unary(std::function<Tensor(const Tensor&)> f, const char* input = "A") {
  return [f, input](const NamedInputs& in) { return f(in.at(input)); };
}
constexpr double kInf = std::numeric_limits<double>::infinity();

const std::map<std::string, Case>& cases() {
  static const std::map<std::string, Case> table = [] {
    std::map<std::string, Case> t;
    for (const std::string sfx : {"", "_f32"}) {
      t["det" + sfx] = unary([](const Tensor& A) { return linalg::det(A); });
      t["slogdet" + sfx] = unary([](const Tensor& A) {
        auto [s, l] = linalg::slogdet(A);
        return stack({s, l});
      });
      t["inv" + sfx] = unary([](const Tensor& A) { return linalg::inv(A); });
      t["solve" + sfx] = [](const NamedInputs& in) { return linalg::solve(in.at("A"), in.at("B")); };
      t["cholesky" + sfx] = unary([](const Tensor& X) { return linalg::cholesky(spd(X)); }, "X");
      t["eigh" + sfx] = unary([](const Tensor& X) { return eigh_invariant(linalg::eigh(X + X.mT())); }, "X");
      t["svd" + sfx] = unary([](const Tensor& A) { return svd_invariant(linalg::svd(A, false)); });
      t["qr" + sfx] = unary([](const Tensor& A) { return pair(linalg::qr(A)); });
    }
    t["det_single"] = unary([](const Tensor& A) { return linalg::det(A); });
    t["det_empty"] = unary([](const Tensor& A) { return linalg::det(A); });
    t["det_singular"] = unary([](const Tensor& A) { return linalg::det(A); });
    t["slogdet_singular"] = unary([](const Tensor& A) {
      auto [s, l] = linalg::slogdet(A);
      return stack({s, l});
    });
    t["torch_det"] = unary([](const Tensor& A) { return ember::det(A); });
    t["logdet"] = unary([](const Tensor& X) { return ember::logdet(spd(X)); }, "X");
    t["logdet_negative"] = unary([](const Tensor& A) { return A.logdet(); });
    t["inverse"] = unary([](const Tensor& A) { return A.inverse(); });
    t["solve_vector"] = [](const NamedInputs& in) { return linalg::solve(in.at("A"), in.at("b")); };
    t["solve_batched_vector"] = [](const NamedInputs& in) { return linalg::solve(in.at("A"), in.at("b")); };
    t["solve_broadcast"] = [](const NamedInputs& in) { return linalg::solve(in.at("A"), in.at("B")); };
    t["solve_right"] = [](const NamedInputs& in) { return linalg::solve(in.at("A"), in.at("B"), false); };
    t["cholesky_upper"] = unary([](const Tensor& X) { return linalg::cholesky(spd(X), true); }, "X");
    t["cholesky_direct"] = unary([](const Tensor& A) { return linalg::cholesky(A); });
    t["torch_cholesky_upper"] = unary([](const Tensor& X) { return spd(X).cholesky(true); }, "X");
    t["cholesky_solve"] = [](const NamedInputs& in) {
      return ember::cholesky_solve(in.at("B"), linalg::cholesky(spd(in.at("X"))));
    };
    t["cholesky_inverse"] = unary([](const Tensor& X) { return linalg::cholesky(spd(X)).cholesky_inverse(); }, "X");
    t["qr_square"] = unary([](const Tensor& A) { return pair(linalg::qr(A)); });
    t["qr_complete"] = unary([](const Tensor& A) { return pair(linalg::qr(A, "complete")); });
    t["qr_r"] = unary([](const Tensor& A) { return std::get<1>(linalg::qr(A, "r")); });
    t["qr_wide"] = unary([](const Tensor& A) { return pair(linalg::qr(A)); });
    t["eigh_upper"] = unary([](const Tensor& A) { return eigh_invariant(linalg::eigh(A, "U")); });
    t["eigh_direct"] = unary([](const Tensor& A) { return eigh_invariant(linalg::eigh(A)); });
    t["eigvalsh"] = unary([](const Tensor& X) { return linalg::eigvalsh(X + X.mT()); }, "X");
    t["svd_wide"] = unary([](const Tensor& A) { return svd_invariant(linalg::svd(A, false)); });
    t["svd_full"] = unary([](const Tensor& A) { return svd_invariant(linalg::svd(A)); });
    t["svdvals"] = unary([](const Tensor& A) { return linalg::svdvals(A); });
    t["torch_svd"] = unary([](const Tensor& A) { return svd_invariant(A.svd()); });
    t["torch_svd_no_uv"] = unary([](const Tensor& A) {
      auto [U, S, V] = ember::svd(A, true, false);
      return flat_cat({U, S, V});
    });
    t["solve_triangular_upper"] = [](const NamedInputs& in) {
      return linalg::solve_triangular(in.at("A"), in.at("B"), true);
    };
    t["solve_triangular_lower_right"] = [](const NamedInputs& in) {
      return linalg::solve_triangular(in.at("A"), in.at("B"), false, false);
    };
    t["solve_triangular_unit"] = [](const NamedInputs& in) {
      return linalg::solve_triangular(in.at("A"), in.at("B"), false, true, true);
    };
    t["triangular_solve"] = [](const NamedInputs& in) {
      return std::get<0>(in.at("b").triangular_solve(in.at("A"), true, true));
    };
    t["lu_factor"] = unary([](const Tensor& A) { return std::get<0>(linalg::lu_factor(A)); });
    t["lu_factor_pivots"] = unary([](const Tensor& A) { return std::get<1>(linalg::lu_factor(A)); });
    t["lu"] = unary([](const Tensor& A) {
      auto [P, L, U] = linalg::lu(A);
      return flat_cat({P, L, U});
    });
    t["lu_solve"] = [](const NamedInputs& in) {
      auto [LU, pivots] = linalg::lu_factor(in.at("A"));
      return linalg::lu_solve(LU, pivots, in.at("B"));
    };
    t["lu_solve_adjoint"] = [](const NamedInputs& in) {
      auto [LU, pivots] = linalg::lu_factor(in.at("A"));
      return linalg::lu_solve(LU, pivots, in.at("B"), true, true);
    };
    for (int64_t n : {3, 1, 0, -1, -2}) {
      const std::string name = "matrix_power_" + (n < 0 ? "m" + std::to_string(-n) : std::to_string(n));
      t[name] = unary([n](const Tensor& A) { return linalg::matrix_power(A, n); });
    }
    t["matrix_exp"] = unary([](const Tensor& A) { return linalg::matrix_exp(A); });
    t["matrix_exp_large"] = unary([](const Tensor& A) { return A.matrix_exp(); });
    t["matrix_exp_f32"] = unary([](const Tensor& A) { return linalg::matrix_exp(A); });
    t["pinv"] = unary([](const Tensor& A) { return linalg::pinv(A); });
    t["pinv_hermitian"] = unary([](const Tensor& X) { return linalg::pinv(spd(X), 1e-15, true); }, "X");
    t["pinverse"] = unary([](const Tensor& A) { return A.pinverse(); });
    t["matrix_rank"] = unary([](const Tensor& A) { return linalg::matrix_rank(A); });
    const std::map<std::string, double> matrix_orders = {{"1", 1}, {"m1", -1}, {"2", 2}, {"m2", -2}, {"inf", kInf},
                                                         {"minf", -kInf}};
    for (const auto& [name, ord] : matrix_orders) {
      t["matrix_norm_" + name] = unary([ord = ord](const Tensor& A) { return linalg::matrix_norm(A, ord); });
    }
    t["matrix_norm_fro"] = unary([](const Tensor& A) { return linalg::matrix_norm(A, "fro"); });
    t["matrix_norm_nuc"] = unary([](const Tensor& A) { return linalg::matrix_norm(A, "nuc"); });
    t["matrix_norm_dims_keepdim"] = unary([](const Tensor& A) { return linalg::matrix_norm(A, 1, {0, 2}, true); });
    const std::map<std::string, double> vector_orders = {{"2", 2},         {"1", 1}, {"3", 3},     {"inf", kInf},
                                                         {"minf", -kInf}, {"0", 0}, {"half", 0.5}};
    for (const auto& [name, ord] : vector_orders) {
      t["vector_norm_" + name] = unary([ord = ord](const Tensor& x) { return linalg::vector_norm(x, ord); }, "x");
    }
    t["vector_norm_dim"] = unary([](const Tensor& x) { return linalg::vector_norm(x, 3, std::vector<int64_t>{1}, true); }, "x");
    t["norm_default"] = unary([](const Tensor& x) { return linalg::norm(x); }, "x");
    t["norm_matrix_ord"] = unary([](const Tensor& x) { return linalg::norm(x, Scalar(kInf)); }, "x");
    t["norm_vector_dim"] = unary([](const Tensor& x) { return linalg::norm(x, Scalar(1), std::vector<int64_t>{0}); }, "x");
    t["norm_nuc"] = unary([](const Tensor& x) { return linalg::norm(x, "nuc"); }, "x");
    t["cond"] = unary([](const Tensor& A) { return linalg::cond(A); });
    t["cond_1"] = unary([](const Tensor& A) { return linalg::cond(A, Scalar(1)); });
    t["cond_fro"] = unary([](const Tensor& A) { return linalg::cond(A, "fro"); });
    t["multi_dot"] = [](const NamedInputs& in) { return linalg::multi_dot({in.at("a"), in.at("B"), in.at("C")}); };
    t["vecdot"] = [](const NamedInputs& in) { return linalg::vecdot(in.at("x"), in.at("y")); };
    t["linalg_matmul"] = [](const NamedInputs& in) { return linalg::matmul(in.at("a"), in.at("b")); };
    t["linalg_diagonal"] = unary([](const Tensor& A) { return linalg::diagonal(A, 1); });
    t["vander"] = unary([](const Tensor& x) { return linalg::vander(x); }, "x");
    t["vander_N"] = unary([](const Tensor& x) { return linalg::vander(x, 5); }, "x");
    t["vander_int"] = unary([](const Tensor& x) { return linalg::vander(x); }, "x");
    t["tensorinv"] = unary([](const Tensor& A) { return linalg::tensorinv(A, 2); });
    t["tensorsolve"] = [](const NamedInputs& in) { return linalg::tensorsolve(in.at("A"), in.at("B")); };
    t["lu_factor_ex_info"] = unary([](const Tensor& A) { return std::get<2>(linalg::lu_factor_ex(A)); });
    add_linalg_lapack_cases(t);
    return t;
  }();
  return table;
}

const nlohmann::json& fixture() { return cached_fixture("linalg.json"); }

class LinalgReference : public ::testing::TestWithParam<std::string> {};

TEST_P(LinalgReference, MatchesPyTorch) {
  ASSERT_TRUE(cases().count(GetParam())) << "no C++ case for " << GetParam();
  check_fixture_case(fixture().at(GetParam()), RequireGrad::kFloatingWithStoredGrad, cases().at(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(Fixture, LinalgReference, ::testing::ValuesIn(case_names(fixture())),
                         [](const auto& info) { return info.param; });

TEST(Linalg, EveryTableCaseHasAFixture) {
  for (const auto& [name, fn] : cases()) EXPECT_TRUE(fixture().contains(name)) << name;
  EXPECT_EQ(cases().size(), fixture().size());
}

// Well-conditioned float64 inputs: wave values plus 2 on the diagonal.
Tensor square64(IntArrayRef batch, int64_t n, double phase = 0.0) {
  std::vector<int64_t> sizes = batch.vec();
  sizes.push_back(n);
  sizes.push_back(n);
  return wave64(sizes, phase) + 2 * eye(n, dtype(kFloat64));
}

// A full-rank (batch of) m x n matrix: wave values plus 2 on the main diagonal (a wave matrix alone
// has rank 2 at most, since sin of a ramp obeys a two-term recurrence).
Tensor rect64(IntArrayRef sizes, double phase = 0.0) {
  return wave64(sizes, phase) + 2 * eye(sizes[sizes.size() - 2], sizes[sizes.size() - 1], dtype(kFloat64));
}

TEST(Linalg, GradcheckFloat64) {
  check_grad_cases({
      {"det", [](const tensor_list& x) { return linalg::det(x[0]); }, {square64({2}, 3)}},
      {"slogdet", [](const tensor_list& x) { return std::get<1>(linalg::slogdet(x[0])); }, {square64({}, 3, 0.4)}},
      {"logdet", [](const tensor_list& x) { return ember::logdet(spd(x[0])); }, {wave64({3, 3})}},
      {"inv", [](const tensor_list& x) { return linalg::inv(x[0]); }, {square64({2}, 3)}},
      {"solve",
       [](const tensor_list& x) { return linalg::solve(x[0], x[1]); },
       {square64({}, 3), wave64({2, 3, 2}, 0.5)}},
      {"solve_vector", [](const tensor_list& x) { return linalg::solve(x[0], x[1]); }, {square64({}, 3), wave64({3})}},
      {"solve_right",
       [](const tensor_list& x) { return linalg::solve(x[0], x[1], false); },
       {square64({}, 3), wave64({2, 3}, 0.5)}},
      {"cholesky", [](const tensor_list& x) { return linalg::cholesky(spd(x[0])); }, {wave64({2, 3, 3})}},
      {"cholesky_upper", [](const tensor_list& x) { return linalg::cholesky(spd(x[0]), true); }, {wave64({3, 3})}},
      {"solve_triangular",
       [](const tensor_list& x) { return linalg::solve_triangular(x[0], x[1], true); },
       {square64({}, 3), wave64({3, 2}, 0.5)}},
      {"solve_triangular_unit_right",
       [](const tensor_list& x) { return linalg::solve_triangular(x[0], x[1], false, false, true); },
       {square64({}, 3), wave64({2, 3}, 0.5)}},
      {"qr", [](const tensor_list& x) { return pair(linalg::qr(x[0])); }, {rect64({4, 3})}},
      {"eigh", [](const tensor_list& x) { return eigh_invariant(linalg::eigh(x[0] + x[0].mT())); }, {wave64({3, 3})}},
      {"eigvalsh", [](const tensor_list& x) { return linalg::eigvalsh(x[0] + x[0].mT()); }, {wave64({2, 3, 3})}},
      {"svd", [](const tensor_list& x) { return svd_invariant(linalg::svd(x[0], false)); }, {rect64({4, 3})}},
      {"svd_wide", [](const tensor_list& x) { return svd_invariant(linalg::svd(x[0], false)); }, {rect64({2, 4})}},
      {"svdvals", [](const tensor_list& x) { return linalg::svdvals(x[0]); }, {rect64({2, 3, 4})}},
      {"matrix_power_m2", [](const tensor_list& x) { return linalg::matrix_power(x[0], -2); }, {square64({}, 3)}},
      {"matrix_exp", [](const tensor_list& x) { return linalg::matrix_exp(x[0]); }, {wave64({3, 3})}},
      {"pinv", [](const tensor_list& x) { return linalg::pinv(x[0]); }, {rect64({4, 3})}},
      {"matrix_norm_nuc", [](const tensor_list& x) { return linalg::matrix_norm(x[0], "nuc"); }, {rect64({3, 4})}},
      {"matrix_norm_2", [](const tensor_list& x) { return linalg::matrix_norm(x[0], 2); }, {rect64({3, 4})}},
      {"cond", [](const tensor_list& x) { return linalg::cond(x[0]); }, {square64({}, 3)}},
  });
}

TEST(Linalg, DecompositionsReconstruct) {
  const Tensor A = rect64({2, 5, 3}, 0.3);
  auto [Q, R] = linalg::qr(A, "complete");
  EXPECT_TENSOR_CLOSE(Q.matmul(R), A, 1e-12, 1e-12);
  EXPECT_TENSOR_CLOSE(Q.mT().matmul(Q), eye(5, dtype(kFloat64)).expand({2, 5, 5}), 1e-12, 1e-12);
  auto [P, L, U] = linalg::lu(A.mT());
  EXPECT_TENSOR_CLOSE(P.matmul(L).matmul(U), A.mT(), 1e-12, 1e-12);
  auto [Us, S, Vh] = linalg::svd(A.mT());
  EXPECT_EQ(Us.sizes(), IntArrayRef({2, 3, 3}));
  EXPECT_EQ(Vh.sizes(), IntArrayRef({2, 5, 5}));
  EXPECT_TENSOR_CLOSE((Us * S.unsqueeze(-2)).matmul(Vh.narrow(-2, 0, 3)), A.mT(), 1e-12, 1e-12);
  const Tensor sym = A.mT().matmul(A);
  auto [values, V] = linalg::eigh(sym);
  EXPECT_TENSOR_CLOSE((V * values.unsqueeze(-2)).matmul(V.mT()), sym, 1e-12, 1e-12);
  EXPECT_TENSOR_CLOSE(linalg::inv(sym).matmul(sym), eye(3, dtype(kFloat64)).expand({2, 3, 3}), 1e-12, 1e-12);
}

TEST(Linalg, ErrorsNameTheProblem) {
  const Tensor singular = tensor({1.0, 2.0, 2.0, 4.0}).reshape({2, 2});
  EXPECT_THROWS_WITH(linalg::inv(singular),
                     "linalg.inv: The diagonal element 2 is zero, the inversion could not be completed because the "
                     "input matrix is singular.");
  EXPECT_THROWS_WITH(linalg::inv(stack({eye(2), singular})),
                     "linalg.inv: (Batch element 1): The diagonal element 2 is zero");
  EXPECT_THROWS_WITH(ember::inverse(singular), "linalg.inv: The diagonal element 2 is zero");
  EXPECT_THROWS_WITH(linalg::solve(singular, ones({2})),
                     "torch.linalg.solve: The solver failed because the input matrix is singular.");
  const Tensor indefinite = tensor({1.0, 2.0, 2.0, 1.0}).reshape({2, 2});
  EXPECT_THROWS_WITH(linalg::cholesky(indefinite),
                     "linalg.cholesky: The factorization could not be completed because the input is not "
                     "positive-definite (the leading minor of order 2 is not positive-definite).");
  EXPECT_THROWS_WITH(linalg::cholesky(stack({eye(2), indefinite})), "linalg.cholesky: (Batch element 1): ");
  EXPECT_THROWS_WITH(ember::cholesky(indefinite), "cholesky: The factorization could not be completed");
  EXPECT_THROWS_WITH(linalg::det(ones({2, 3})),
                     "linalg.det: A must be batches of square matrices, but they are 2 by 3 matrices");
  EXPECT_THROWS_WITH(linalg::det(ones({3})), "linalg.det: The input tensor A must have at least 2 dimensions.");
  EXPECT_THROWS_WITH(linalg::det(ones({2, 2}, dtype(kInt64))),
                     "linalg.det: Expected a floating point or complex tensor as input. Got Long");
  EXPECT_THROWS_WITH(linalg::inv(ones({2, 2}, dtype(kInt64))),
                     "linalg.inv: Expected a floating point or complex tensor as input. Got Long");
  EXPECT_THROWS_WITH(ember::logdet(ones({2, 2}, dtype(kInt64))),
                     "logdet: Expected a floating point or complex tensor as input. Got Long");
  EXPECT_THROWS_WITH(linalg::slogdet(ones({2, 3})), "linalg.slogdet: A must be batches of square matrices");
  EXPECT_THROWS_WITH(linalg::solve(eye(2), ones({3})),
                     "linalg.solve: Incompatible shapes of A and B for the equation AX = B (2x2 and 3x1)");
  EXPECT_THROWS_WITH(linalg::solve(eye(2), ones({2}, dtype(kFloat64))),
                     "linalg.solve: Expected A and B to have the same dtype, but found A of type Float and B of type "
                     "Double instead");
  EXPECT_THROWS_WITH(linalg::qr(ones({3})), "linalg.qr: The input tensor A must have at least 2 dimensions.");
  EXPECT_THROWS_WITH(linalg::qr(ones({2, 2}), "x"),
                     "qr received unrecognized mode 'x' but expected one of 'reduced' (default), 'r', or 'complete'");
  EXPECT_THROWS_WITH(linalg::eigh(ones({2, 3})), "linalg.eigh: A must be batches of square matrices");
  EXPECT_THROWS_WITH(linalg::eigh(ones({2, 2}), "X"), "Expected UPLO argument to be 'L' or 'U', but got X");
  EXPECT_THROWS_WITH(linalg::svd(ones({3})), "linalg.svd: The input tensor A must have at least 2 dimensions.");
  EXPECT_THROWS_WITH(linalg::svd(ones({2, 2}, dtype(kInt64))),
                     "linalg.svd: Expected a floating point or complex tensor as input. Got Long");
  EXPECT_THROWS_WITH(linalg::matrix_power(ones({2, 3}), 2), "linalg.matrix_power: A must be batches of square matrices");
  EXPECT_THROWS_WITH(linalg::matrix_norm(ones({2, 2}), 3), "linalg.matrix_norm: Order 3 not supported.");
  EXPECT_THROWS_WITH(linalg::matrix_norm(ones({2})), "linalg.matrix_norm: The input tensor A must have at least 2 dimensions.");
  EXPECT_THROWS_WITH(linalg::multi_dot({ones({2, 2})}), "multi_dot(): expected at least 2 tensors but got 1");
  EXPECT_THROWS_WITH(linalg::solve_triangular(eye(2), ones({2}), true),
                     "linalg.solve_triangular: The input tensor B must have at least 2 dimensions.");
  EXPECT_THROWS_WITH(linalg::vector_norm(ones({2}, dtype(kInt64))),
                     "linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long");
  EXPECT_THROWS_WITH(std::get<1>(linalg::qr(wave64({3, 2}).requires_grad_(), "r")).sum().backward(),
                     "The derivative of linalg.qr depends on Q, which is not computed when mode='r'.");
  EXPECT_THROWS_WITH(std::get<0>(linalg::qr(wave64({3, 2}).requires_grad_(), "complete")).sum().backward(),
                     "The QR decomposition is not differentiable when mode='complete' and nrows > ncols.");
}

TEST(Linalg, InvExReportsInsteadOfThrowing) {
  auto [inverse, info] = linalg::inv_ex(stack({eye(2), tensor({1.0f, 2.0f, 2.0f, 4.0f}).reshape({2, 2})}));
  EXPECT_EQ(info.dtype(), kInt32);
  EXPECT_EQ(info.to_vector<int32_t>(), std::vector<int32_t>({0, 2}));
  auto [L, cinfo] = linalg::cholesky_ex(tensor({1.0, 2.0, 2.0, 1.0}).reshape({2, 2}));
  EXPECT_EQ(cinfo.item<int32_t>(), 2);
}

}  // namespace
