// torch.linalg's least squares, Householder products, LDL^T, lu_unpack, nuclear_norm and symeig
// (autograd/linalg_lapack.cpp) against PyTorch 1.13: the fixture cases (scripts/gen_linalg_fixtures.py,
// tests/fixtures/linalg.json, run by test_linalg.cpp's LinalgReference with this file's table lines),
// then gradcheck, reconstructions on shapes the fixtures leave out and PyTorch's errors for bad
// input (the libtorch out= forms are exercised by tests/compat/programs/linalg_lapack.cpp). Outputs with a sign freedom
// are compared through what they determine (Q R = A, L D L^T = A); geqrf's packed output and sytrf's pivots are
// compared exactly, since OpenBLAS's reference LAPACK and PyTorch's agree on them.
#include <map>
#include <string>

#include "autograd/linalg.h"
#include "fixture_cases.h"
#include "test_util.h"

namespace ember::test {

using LinalgCase = std::function<Tensor(const NamedInputs&)>;

namespace {

Tensor flat_cat(const tensor_list& parts) {
  tensor_list flat;
  for (const Tensor& t : parts) flat.push_back(t.flatten());
  return cat(flat);
}
// solution, residuals, rank and singular values in one flat tensor (rank in A's dtype).
Tensor lstsq_all(const std::tuple<Tensor, Tensor, Tensor, Tensor>& r, ScalarType dtype) {
  return flat_cat({std::get<0>(r), std::get<1>(r), std::get<2>(r).to(dtype), std::get<3>(r)});
}
Tensor ldl_flat(const std::tuple<Tensor, Tensor>& r) {
  return flat_cat({std::get<0>(r), std::get<1>(r).to(std::get<0>(r).dtype())});
}
Tensor eig_abs(const std::tuple<Tensor, Tensor>& e) { return flat_cat({std::get<0>(e), std::get<1>(e).abs()}); }

}  // namespace

// The table lines for test_linalg.cpp's fixture harness, one per case of gen_linalg_fixtures.py.
void add_linalg_lapack_cases(std::map<std::string, LinalgCase>& t) {
  for (const std::string sfx : {"", "_f32"}) {
    t["lstsq" + sfx] = [](const NamedInputs& in) { return std::get<0>(linalg::lstsq(in.at("A"), in.at("B"))); };
    for (const std::string drv : {"gels", "gelsd", "gelss"}) {
      t["lstsq_" + drv + sfx] = [drv](const NamedInputs& in) {
        return lstsq_all(linalg::lstsq(in.at("A"), in.at("B"), std::nullopt, drv), in.at("A").dtype());
      };
    }
    t["lstsq_wide" + sfx] = [](const NamedInputs& in) { return std::get<0>(linalg::lstsq(in.at("A"), in.at("B"))); };
    t["householder_product" + sfx] = [](const NamedInputs& in) {
      return linalg::householder_product(in.at("A"), in.at("tau"));
    };
    t["geqrf" + sfx] = [](const NamedInputs& in) {
      Tensor a, tau;  // std::tie: checks below capture them (Clang 14 cannot capture bindings)
      std::tie(a, tau) = ember::geqrf(in.at("A"));
      return flat_cat({a, tau});
    };
    t["ldl_factor" + sfx] = [](const NamedInputs& in) { return ldl_flat(linalg::ldl_factor(in.at("A"))); };
    t["ldl_solve" + sfx] = [](const NamedInputs& in) {
      Tensor LD, pivots;  // std::tie: checks below capture them (Clang 14 cannot capture bindings)
      std::tie(LD, pivots) = linalg::ldl_factor(in.at("A"));
      return linalg::ldl_solve(LD, pivots, in.at("B"));
    };
    t["lu_unpack" + sfx] = [](const NamedInputs& in) {
      auto [P, L, U] = ember::lu_unpack(in.at("LU"), in.at("pivots"));
      return flat_cat({P, L, U});
    };
    t["symeig" + sfx] = [](const NamedInputs& in) {
      const Tensor& X = in.at("X");
      return eig_abs(ember::symeig(X + X.mT(), true));
    };
  }
  t["lstsq_vector"] = [](const NamedInputs& in) { return std::get<0>(linalg::lstsq(in.at("A"), in.at("b"))); };
  t["lstsq_vector_gelsd"] = [](const NamedInputs& in) {
    return lstsq_all(linalg::lstsq(in.at("A"), in.at("b"), std::nullopt, "gelsd"), kFloat64);
  };
  t["lstsq_broadcast"] = [](const NamedInputs& in) { return std::get<0>(linalg::lstsq(in.at("A"), in.at("B"))); };
  t["lstsq_square_gelsd"] = [](const NamedInputs& in) {
    return lstsq_all(linalg::lstsq(in.at("A"), in.at("B"), std::nullopt, "gelsd"), kFloat64);
  };
  for (const std::string drv : {"gelsy", "gelsd", "gelss"}) {
    t["lstsq_rank_deficient_" + drv] = [drv](const NamedInputs& in) {
      return lstsq_all(linalg::lstsq(in.at("A"), in.at("B"), std::nullopt, drv), kFloat64);
    };
  }
  t["lstsq_rcond"] = [](const NamedInputs& in) {
    return cat({lstsq_all(linalg::lstsq(in.at("A"), in.at("B"), 1e-2, "gelsd"), kFloat64),
                lstsq_all(linalg::lstsq(in.at("A"), in.at("B"), std::nullopt, "gelsy"), kFloat64)});
  };
  t["lstsq_wide_gelsd"] = [](const NamedInputs& in) {
    return lstsq_all(linalg::lstsq(in.at("A"), in.at("B"), std::nullopt, "gelsd"), kFloat64);
  };
  t["lstsq_rank_deficient_gels_f32"] = [](const NamedInputs& in) {
    return std::get<1>(linalg::lstsq(in.at("A"), in.at("B"), std::nullopt, "gels"));
  };
  t["householder_product_partial"] = [](const NamedInputs& in) {
    return linalg::householder_product(in.at("A"), in.at("tau"));
  };
  t["orgqr"] = [](const NamedInputs& in) { return ember::orgqr(in.at("A"), in.at("tau")); };
  for (bool left : {true, false}) {
    for (bool trans : {false, true}) {
      const std::string name = std::string("ormqr_") + (left ? "left" : "right") + (trans ? "_t" : "");
      t[name] = [left, trans](const NamedInputs& in) {
        return ember::ormqr(in.at("A"), in.at("tau"), in.at("C"), left, trans);
      };
    }
  }
  t["ldl_factor_hermitian"] = [](const NamedInputs& in) { return ldl_flat(linalg::ldl_factor(in.at("A"), true)); };
  t["ldl_factor_ex_info"] = [](const NamedInputs& in) {
    Tensor LD, pivots, info;  // std::tie: checks below capture them (Clang 14 cannot capture bindings)
    std::tie(LD, pivots, info) = linalg::ldl_factor_ex(in.at("A"));
    return flat_cat({LD, pivots.to(kFloat64), info.to(kFloat64)});
  };
  t["ldl_solve_broadcast"] = [](const NamedInputs& in) {
    Tensor LD, pivots;  // std::tie: checks below capture them (Clang 14 cannot capture bindings)
    std::tie(LD, pivots) = linalg::ldl_factor(in.at("A"));
    return linalg::ldl_solve(LD, pivots, in.at("B"));
  };
  for (const char* name : {"lu_unpack_tall", "lu_unpack_wide"}) {
    t[name] = [](const NamedInputs& in) {
      auto [P, L, U] = ember::lu_unpack(in.at("LU"), in.at("pivots"));
      return flat_cat({P, L, U});
    };
  }
  t["lu_unpack_no_pivots"] = [](const NamedInputs& in) {
    auto [P, L, U] = ember::lu_unpack(in.at("LU"), in.at("pivots"), true, false);
    return flat_cat({P, L, U});
  };
  t["lu_unpack_no_data"] = [](const NamedInputs& in) {
    auto [P, L, U] = ember::lu_unpack(in.at("LU"), in.at("pivots"), false, true);
    return flat_cat({P, L, U});
  };
  t["nuclear_norm"] = [](const NamedInputs& in) { return ember::nuclear_norm(in.at("A")); };
  t["nuclear_norm_keepdim"] = [](const NamedInputs& in) { return ember::nuclear_norm(in.at("A"), true); };
  t["nuclear_norm_dim"] = [](const NamedInputs& in) { return ember::nuclear_norm(in.at("A"), {0, 2}); };
  t["nuclear_norm_dim_keepdim"] = [](const NamedInputs& in) { return ember::nuclear_norm(in.at("A"), {2, 0}, true); };
  t["symeig_lower"] = [](const NamedInputs& in) { return eig_abs(ember::symeig(in.at("X"), true, false)); };
  t["symeig_values"] = [](const NamedInputs& in) {
    auto [e, V] = ember::symeig(in.at("A"));
    return flat_cat({e, V});
  };
}

namespace {

Tensor rect64(IntArrayRef sizes, double phase = 0.0) {
  return wave64(sizes, phase) + 2 * eye(sizes[sizes.size() - 2], sizes[sizes.size() - 1], dtype(kFloat64));
}
// A symmetric indefinite matrix (eigenvalues of both signs).
Tensor indefinite64(int64_t n, double phase = 0.0) {
  const Tensor X = wave64({n, n}, phase);
  return X + X.mT() + 0.5 * eye(n, dtype(kFloat64));
}

TEST(LinalgLapack, GradcheckFloat64) {
  const Tensor A = rect64({5, 3}, 0.2);
  Tensor a, tau;  // std::tie: checks below capture them (Clang 14 cannot capture bindings)
  std::tie(a, tau) = ember::geqrf(A);
  check_grad_cases({
      {"lstsq_tall",
       [](const tensor_list& x) { return std::get<0>(linalg::lstsq(x[0], x[1])); },
       {rect64({2, 4, 3}), wave64({2, 4, 2}, 0.5)}},
      {"lstsq_wide",
       [](const tensor_list& x) { return std::get<0>(linalg::lstsq(x[0], x[1], std::nullopt, "gelsd")); },
       {rect64({3, 4}), wave64({3, 2}, 0.5)}},
      // Not differentiable in PyTorch 1.13 (its backward fails for vector right-hand sides).
      {"lstsq_vector",
       [](const tensor_list& x) { return std::get<0>(linalg::lstsq(x[0], x[1])); },
       {rect64({4, 3}), wave64({4}, 0.5)}},
      {"lstsq_broadcast",
       [](const tensor_list& x) { return std::get<0>(linalg::lstsq(x[0], x[1])); },
       {rect64({1, 4, 3}), wave64({2, 4, 1}, 0.5)}},
      {"householder_product", [](const tensor_list& x) { return linalg::householder_product(x[0], x[1]); }, {a, tau}},
      {"lu_unpack",
       [](const tensor_list& x) {
         auto [LU, piv] = linalg::lu_factor(rect64({3, 4}, 0.3));
         auto [P, L, U] = ember::lu_unpack(x[0], piv);
         return flat_cat({L, U});
       },
       {std::get<0>(linalg::lu_factor(rect64({3, 4}, 0.3)))}},
      {"nuclear_norm", [](const tensor_list& x) { return ember::nuclear_norm(x[0]); }, {rect64({3, 4})}},
      {"symeig", [](const tensor_list& x) { return eig_abs(ember::symeig(x[0] + x[0].mT(), true)); }, {wave64({3, 3})}},
  });
}

TEST(LinalgLapack, FactorizationsReconstruct) {
  // geqrf + householder_product is QR: Q R = A with R the upper triangle of geqrf's a.
  const Tensor A = rect64({2, 6, 4}, 0.3);
  Tensor a, tau;  // std::tie: checks below capture them (Clang 14 cannot capture bindings)
  std::tie(a, tau) = ember::geqrf(A);
  const Tensor Q = linalg::householder_product(a, tau);
  EXPECT_TENSOR_CLOSE(Q.matmul(a.triu().narrow(-2, 0, 4)), A, 1e-12, 1e-12);
  // ormqr applies the full (m, m) Q without forming it; its first n rows of Q^T C are the reduced ones.
  const Tensor C = wave64({2, 6, 3}, 0.1);
  EXPECT_TENSOR_CLOSE(ember::ormqr(a, tau, C, true, true).narrow(-2, 0, 4), Q.mT().matmul(C), 1e-12, 1e-12);
  // The wide QR's reflectors: k = m, householder_product on the first m columns.
  auto [aw, tauw] = ember::geqrf(A.mT());
  const Tensor Qw = linalg::householder_product(aw.narrow(-1, 0, 4), tauw);
  EXPECT_TENSOR_CLOSE(Qw.matmul(aw.triu()), A.mT(), 1e-12, 1e-12);
  // LDL^T: the factorization solves, on a matrix that needs 2x2 pivots.
  const Tensor S = indefinite64(5, 0.4);
  Tensor LD, pivots;  // std::tie: checks below capture them (Clang 14 cannot capture bindings)
  std::tie(LD, pivots) = linalg::ldl_factor(S);
  const Tensor B = wave64({5, 2}, 0.8);
  EXPECT_TENSOR_CLOSE(S.matmul(linalg::ldl_solve(LD, pivots, B)), B, 1e-10, 1e-10);
  // lu_unpack inverts lu_factor.
  auto [LU, piv] = linalg::lu_factor(rect64({3, 5, 4}, 0.6));
  auto [P, L, U] = ember::lu_unpack(LU, piv);
  EXPECT_TENSOR_CLOSE(P.matmul(L).matmul(U), rect64({3, 5, 4}, 0.6), 1e-12, 1e-12);
  // lstsq with several drivers agrees with pinv on a full-rank tall matrix.
  const Tensor T = rect64({5, 3}, 0.9), Y = wave64({5, 2});
  for (const char* drv : {"gels", "gelsy", "gelsd", "gelss"}) {
    EXPECT_TENSOR_CLOSE(std::get<0>(linalg::lstsq(T, Y, std::nullopt, drv)), linalg::pinv(T).matmul(Y), 1e-12, 1e-12);
  }
}

TEST(LinalgLapack, EmptyInputs) {
  auto [X, res, rank, S] = linalg::lstsq(empty({0, 3}, dtype(kFloat64)), empty({0, 2}, dtype(kFloat64)));
  EXPECT_EQ(X.sizes(), IntArrayRef({3, 2}));
  EXPECT_EQ(X.abs().sum().item<double>(), 0.0);
  EXPECT_EQ(rank.item<int64_t>(), 0);
  Tensor LD, pivots, info;  // std::tie: checks below capture them (Clang 14 cannot capture bindings)
  std::tie(LD, pivots, info) = linalg::ldl_factor_ex(empty({2, 0, 0}));
  EXPECT_EQ(pivots.sizes(), IntArrayRef({2, 0}));
  Tensor a, tau;  // std::tie: checks below capture them (Clang 14 cannot capture bindings)
  std::tie(a, tau) = ember::geqrf(empty({0, 3}));
  EXPECT_EQ(a.sizes(), IntArrayRef({0, 3}));
  EXPECT_EQ(tau.sizes(), IntArrayRef({0}));
}

TEST(LinalgLapack, ErrorsNameTheProblem) {
  const Tensor A = rect64({4, 3});
  EXPECT_THROWS_WITH(linalg::lstsq(ones({3}), ones({3})), "torch.linalg.lstsq: input must have at least 2 dimensions.");
  EXPECT_THROWS_WITH(linalg::lstsq(A, ones({5, 2}, dtype(kFloat64))),
                     "torch.linalg.lstsq: input.size(-2) should match other.size(-2)");
  EXPECT_THROWS_WITH(linalg::lstsq(A, ones({5}, dtype(kFloat64))),
                     "torch.linalg.lstsq: input.size(-2) should match other.size(-1)");
  EXPECT_THROWS_WITH(linalg::lstsq(A, ones({4, 2})),
                     "torch.linalg.lstsq: Expected input and other to have the same dtype, but got input's dtype "
                     "Double and other's dtype Float");
  EXPECT_THROWS_WITH(linalg::lstsq(ones({4, 3}, dtype(kInt64)), ones({4, 2}, dtype(kInt64))),
                     "This function doesn't handle types other than float and double");
  EXPECT_THROWS_WITH(linalg::lstsq(A, ones({4, 2}, dtype(kFloat64)), std::nullopt, "foo"),
                     "torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)");
  EXPECT_THROWS_WITH(linalg::lstsq(A, ones({1, 2, 4, 2}, dtype(kFloat64))),
                     "torch.linalg.lstsq: input.dim() must be greater or equal to other.dim() and (input.dim() - "
                     "other.dim()) <= 1");
  EXPECT_THROWS_WITH(linalg::lstsq(rect64({2, 4, 3}), ones({3, 4, 2}, dtype(kFloat64))), "torch.linalg.lstsq");

  EXPECT_THROWS_WITH(ember::geqrf(ones({3})), "torch.geqrf: input must have at least 2 dimensions.");
  EXPECT_THROWS_WITH(ember::geqrf(ones({3, 3}, dtype(kInt64))), "\"geqrf_cpu\" not implemented for 'Long'");
  const Tensor w = wave64({5, 3}), t2 = wave64({2});
  EXPECT_THROWS_WITH(linalg::householder_product(w.mT(), t2),
                     "torch.linalg.householder_product: input.shape[-2] must be greater than or equal to "
                     "input.shape[-1]");
  EXPECT_THROWS_WITH(
      linalg::householder_product(w, wave64({4})),
      "torch.linalg.householder_product: input.shape[-1] must be greater than or equal to tau.shape[-1]");
  EXPECT_THROWS_WITH(linalg::householder_product(w, wave64({2, 2})),
                     "torch.linalg.householder_product: Expected tau to have one dimension less than input, but got "
                     "tau.ndim equal to 2 and input.ndim is equal to 2");
  EXPECT_THROWS_WITH(linalg::householder_product(wave64({2, 5, 3}), wave64({3, 2})),
                     "torch.linalg.householder_product: Expected batch dimensions of tau to be equal to "
                     "input.shape[:-2], but got [3]");
  EXPECT_THROWS_WITH(linalg::householder_product(w, t2.to(kFloat32)),
                     "torch.linalg.householder_product: tau dtype Float does not match input dtype Double");
  EXPECT_THROWS_WITH(linalg::householder_product(ones({5}), ones({2})),
                     "torch.linalg.householder_product: input must have at least 2 dimensions.");
  EXPECT_THROWS_WITH(ember::orgqr(ones({5, 3}, dtype(kInt64)), ones({2}, dtype(kInt64))),
                     "\"orgqr_cpu\" not implemented for 'Long'");
  Tensor a, tau;  // std::tie: checks below capture them (Clang 14 cannot capture bindings)
  std::tie(a, tau) = ember::geqrf(w);
  EXPECT_THROWS_WITH(ember::ormqr(a, tau, wave64({4, 2})),
                     "torch.ormqr: other.shape[-2] must be equal to input.shape[-2]");
  EXPECT_THROWS_WITH(ember::ormqr(a, tau, wave64({2, 4}), false),
                     "torch.ormqr: other.shape[-1] must be equal to input.shape[-2]");
  EXPECT_THROWS_WITH(ember::ormqr(a, wave64({4}), wave64({5, 2})),
                     "torch.ormqr: tau.shape[-1] must be less than or equal to input.shape[-1]");
  EXPECT_THROWS_WITH(ember::ormqr(a, tau, wave64({5, 2}).to(kFloat32)),
                     "torch.ormqr: Expected input and other to have the same dtype, but input has dtypeDouble and "
                     "other has dtype Float");
  EXPECT_THROWS_WITH(ember::ormqr(a, tau, wave64({2, 5, 2})),
                     "torch.ormqr: Expected other to have the same number of dimensions as input, but got other.ndim "
                     "equal to 3 and input.ndim is equal to 2");

  EXPECT_THROWS_WITH(linalg::ldl_factor(ones({2, 3}, dtype(kFloat64))),
                     "torch.linalg.ldl_factor_ex: A must be batches of square matrices, but they are 2 by 3 matrices");
  EXPECT_THROWS_WITH(linalg::ldl_factor(ones({3})),
                     "torch.linalg.ldl_factor_ex: The input tensor A must have at least 2 dimensions.");
  EXPECT_THROWS_WITH(linalg::ldl_factor(ones({2, 2}, dtype(kInt64))),
                     "torch.linalg.ldl_factor_ex: Expected a floating point or complex tensor as input. Got Long");
  EXPECT_THROWS_WITH(linalg::ldl_factor(zeros({2, 2})), "torch.linalg.ldl_factor: Unknown error code: 1.");
  EXPECT_THROWS_WITH(linalg::ldl_factor_ex(zeros({2, 2}), false, true),
                     "torch.linalg.ldl_factor_ex: Unknown error code: 1.");
  Tensor LD, pivots;  // std::tie: checks below capture them (Clang 14 cannot capture bindings)
  std::tie(LD, pivots) = linalg::ldl_factor(indefinite64(3));
  EXPECT_THROWS_WITH(
      linalg::ldl_solve(LD, pivots, ones({3, 1})),
      "Expected b and A to have the same dtype, but found b of type Float and A of type Double instead.");
  EXPECT_THROWS_WITH(linalg::ldl_solve(LD, pivots, ones({3}, dtype(kFloat64))),
                     "Dimension out of range (expected to be in range of [-1, 0], but got -2)");
  EXPECT_THROWS_WITH(linalg::ldl_solve(LD, pivots, ones({4, 1}, dtype(kFloat64))),
                     "Incompatible matrix sizes for torch.linalg.ldl_solve: each A matrix is 3 by 3 but each b matrix "
                     "is 4 by 1");
  EXPECT_THROWS_WITH(linalg::ldl_solve(LD, pivots.narrow(0, 0, 2), ones({3, 1}, dtype(kFloat64))),
                     "torch.linalg.ldl_solve: Expected LD.shape[:-1] and pivots.shape to be the same, but got pivots "
                     "with shape [2] instead");
  // Pivots that are not sytrf's are refused before LAPACK reads past the matrix.
  EXPECT_THROWS_WITH(linalg::ldl_solve(LD, full({3}, 7, dtype(kInt32)), ones({3, 1}, dtype(kFloat64))),
                     "torch.linalg.ldl_solve: pivots must be those of ldl_factor");
  EXPECT_THROWS_WITH(linalg::ldl_solve(LD, tensor({1, 2, -3}).to(kInt32), ones({3, 1}, dtype(kFloat64))),
                     "torch.linalg.ldl_solve: pivots must be those of ldl_factor");

  Tensor LU, piv;  // std::tie: checks below capture them (Clang 14 cannot capture bindings)
  std::tie(LU, piv) = linalg::lu_factor(rect64({4, 3}));
  EXPECT_THROWS_WITH(ember::lu_unpack(LU, piv.to(kInt64)),
                     "torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype.");
  EXPECT_THROWS_WITH(ember::lu_unpack(ones({3}), piv),
                     "torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: [3] instead");
  EXPECT_THROWS_WITH(ember::lu_unpack(LU, piv + 5),
                     "pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive.Did you properly pass the "
                     "result of lu_factor?");

  EXPECT_THROWS_WITH(ember::nuclear_norm(wave64({2, 3, 4})),
                     "Expected a tensor with 2 dimensions, but got a tensor with 3 dimensions instead.");
  EXPECT_THROWS_WITH(ember::nuclear_norm(ones({3})),
                     "Expected a tensor with 2 dimensions, but got a tensor with 1 dimension instead.");
  // A braced {0} would pick the keepdim overload, as in libtorch: the dims as a vector.
  EXPECT_THROWS_WITH(ember::nuclear_norm(wave64({2, 3, 4}), std::vector<int64_t>{0}),
                     "nuclear norm requires a 'dim' argument of size 2");
  EXPECT_THROWS_WITH(ember::nuclear_norm(ones({3, 3}, dtype(kInt64))),
                     "linalg.svd: Expected a floating point or complex tensor as input. Got Long");
  EXPECT_THROWS_WITH(ember::symeig(ones({2, 3})),
                     "linalg.symeig: A must be batches of square matrices, but they are 2 by 3 matrices");
  EXPECT_THROWS_WITH(ember::symeig(ones({3})), "linalg.symeig: The input tensor A must have at least 2 dimensions.");
  EXPECT_THROWS_WITH(ember::symeig(ones({3, 3}, dtype(kInt64))), "\"symeig_cpu\" not implemented for 'Long'");
}

TEST(LinalgLapack, GradientsPyTorchDoesNotDefine) {
  const Tensor A = rect64({4, 3}).requires_grad_();
  EXPECT_THROWS_WITH(std::get<0>(ember::geqrf(A)).sum().backward(), "the derivative for 'geqrf' is not implemented.");
  Tensor a, tau;  // std::tie: checks below capture them (Clang 14 cannot capture bindings)
  std::tie(a, tau) = ember::geqrf(A.detach());
  const Tensor C = wave64({4, 2}).requires_grad_();
  EXPECT_THROWS_WITH(ember::ormqr(a, tau, C).sum().backward(), "the derivative for 'ormqr' is not implemented.");
  const Tensor S = indefinite64(3).requires_grad_();
  EXPECT_THROWS_WITH(std::get<0>(linalg::ldl_factor(S)).sum().backward(),
                     "derivative for aten::linalg_ldl_factor_ex is not implemented");
  EXPECT_THROWS_WITH(std::get<0>(ember::symeig(S)).sum().backward(),
                     "linalg_eig_backward: torch.symeig(A, eigenvectors=False) is not differentiable. Use "
                     "torch.linalg.eigvalsh(A) instead.");
  // Only lstsq's solution is differentiable; rank and singular values carry no history.
  auto [X, res, rank, sv] = linalg::lstsq(A, wave64({4, 2}), std::nullopt, "gelsd");
  EXPECT_TRUE(X.requires_grad());
  EXPECT_FALSE(res.requires_grad());
  EXPECT_FALSE(sv.requires_grad());
}

}  // namespace
}  // namespace ember::test
