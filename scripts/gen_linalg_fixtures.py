"""PyTorch 1.13 references for torch.linalg (autograd/linalg.h), for tests/autograd/test_linalg.cpp: the
LAPACK-backed decompositions (det, slogdet, inv, solve, cholesky, qr, eigh, svd, solve_triangular, lu)
and the functions composed from them, values and gradients, float64 and float32, batched and
broadcast. Decompositions with a sign freedom are recorded through sign-invariant functions (|V|,
reconstructions), so the test does not depend on LAPACK's choice of signs. Each case's C++ twin is a
table line in the test.

    /usr/bin/python3 scripts/gen_linalg_fixtures.py   # writes tests/fixtures/linalg.json
"""
import os

import torch

from fixture_common import FIXTURES, f32, f64, record_case, wave, write

CASES = {}
L = torch.linalg


def case(name, inputs, fn, no_grad=()):
    record_case(CASES, name, inputs, fn, no_grad=no_grad)


def square(*batch, n=3, dtype=f64, phase=0.0):
    """A well-conditioned matrix batch: wave values plus 2 on the diagonal."""
    return wave(*batch, n, n, dtype=dtype, phase=phase) + 2 * torch.eye(n, dtype=dtype)


def rect(*shape, dtype=f64, phase=0.0):
    """A full-rank (batch of) m x n matrix: wave values plus 2 on the main diagonal. (A wave matrix
    alone has rank 2 at most: sin of a ramp obeys a two-term recurrence.)"""
    return wave(*shape, dtype=dtype, phase=phase) + 2 * torch.eye(shape[-2], shape[-1], dtype=dtype)


def spd(X):
    """A symmetric positive-definite matrix from any square X."""
    return X @ X.mT + X.shape[-1] * torch.eye(X.shape[-1], dtype=X.dtype)


for dtype, sfx in [(f64, ""), (f32, "_f32")]:
    case("det" + sfx, {"A": square(2, dtype=dtype)}, lambda A: L.det(A))
    case("slogdet" + sfx, {"A": square(2, dtype=dtype, phase=0.5) - 3 * torch.eye(3, dtype=dtype)},
         lambda A: torch.stack(L.slogdet(A)))
    case("inv" + sfx, {"A": square(2, dtype=dtype)}, lambda A: L.inv(A))
    case("solve" + sfx, {"A": square(2, dtype=dtype), "B": wave(2, 3, 2, dtype=dtype, phase=1.0)},
         lambda A, B: L.solve(A, B))
    case("cholesky" + sfx, {"X": wave(2, 3, 3, dtype=dtype)}, lambda X: L.cholesky(spd(X)))
    case("eigh" + sfx, {"X": wave(2, 3, 3, dtype=dtype)},
         lambda X: torch.cat([v.flatten() for v in (lambda e: (e[0], e[1].abs()))(L.eigh(X + X.mT))]))
    case("svd" + sfx, {"A": rect(4, 3, dtype=dtype)},
         lambda A: torch.cat([t.flatten() for t in (lambda u, s, vh: (u.abs(), s, vh.abs()))(*L.svd(A, False))]))
    case("qr" + sfx, {"A": rect(4, 3, dtype=dtype)}, lambda A: torch.cat([t.flatten() for t in L.qr(A)]))

case("det_single", {"A": square(dtype=f64, phase=0.2)}, lambda A: L.det(A))
case("det_empty", {"A": torch.zeros(0, 0, dtype=f64)}, lambda A: L.det(A), no_grad=("A",))
case("det_singular", {"A": torch.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=f64)}, lambda A: L.det(A), no_grad=("A",))
case("slogdet_singular", {"A": torch.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=f64)},
     lambda A: torch.stack(L.slogdet(A)), no_grad=("A",))
case("torch_det", {"A": square(2, dtype=f64, phase=0.3)}, lambda A: torch.det(A))
case("logdet", {"X": wave(3, 3, dtype=f64)}, lambda X: torch.logdet(spd(X)))
case("logdet_negative", {"A": torch.tensor([[0.0, 1.0], [1.0, 0.0]], dtype=f64)}, lambda A: torch.logdet(A),
     no_grad=("A",))
case("inverse", {"A": square(dtype=f64, phase=0.7)}, lambda A: torch.inverse(A))
case("solve_vector", {"A": square(dtype=f64), "b": wave(3, dtype=f64, phase=1.3)}, lambda A, b: L.solve(A, b))
case("solve_batched_vector", {"A": square(2, dtype=f64), "b": wave(2, 3, dtype=f64, phase=1.3)},
     lambda A, b: L.solve(A, b))
case("solve_broadcast", {"A": square(dtype=f64), "B": wave(2, 3, 2, dtype=f64, phase=0.4)}, lambda A, B: L.solve(A, B))
case("solve_right", {"A": square(2, dtype=f64), "B": wave(2, 4, 3, dtype=f64, phase=0.4)},
     lambda A, B: L.solve(A, B, left=False))
case("cholesky_upper", {"X": wave(3, 3, dtype=f64, phase=0.2)}, lambda X: L.cholesky(spd(X), upper=True))
case("cholesky_direct", {"A": spd(wave(3, 3, dtype=f64, phase=0.6))}, lambda A: L.cholesky(A))
case("torch_cholesky_upper", {"X": wave(3, 3, dtype=f64, phase=0.9)}, lambda X: torch.cholesky(spd(X), upper=True))
case("cholesky_solve", {"X": wave(3, 3, dtype=f64, phase=0.9), "B": wave(3, 2, dtype=f64, phase=0.1)},
     lambda X, B: torch.cholesky_solve(B, L.cholesky(spd(X))))
case("cholesky_inverse", {"X": wave(3, 3, dtype=f64, phase=0.9)},
     lambda X: torch.cholesky_inverse(L.cholesky(spd(X))))
case("qr_square", {"A": square(2, dtype=f64)}, lambda A: torch.cat([t.flatten() for t in L.qr(A)]))
case("qr_complete", {"A": rect(4, 3)}, lambda A: torch.cat([t.flatten() for t in L.qr(A, "complete")]),
     no_grad=("A",))
case("qr_r", {"A": rect(3, 4)}, lambda A: L.qr(A, "r")[1], no_grad=("A",))
case("qr_wide", {"A": rect(3, 4)}, lambda A: torch.cat([t.flatten() for t in L.qr(A)]), no_grad=("A",))
case("eigh_upper", {"A": wave(3, 3, dtype=f64, phase=0.3)}, lambda A: torch.cat([L.eigh(A, "U")[0], L.eigh(A, "U")[1].abs().flatten()]),
     no_grad=("A",))
case("eigh_direct", {"A": spd(wave(3, 3, dtype=f64, phase=0.3))},
     lambda A: torch.cat([v.flatten() for v in (lambda e: (e[0], e[1].abs()))(L.eigh(A))]))
case("eigvalsh", {"X": wave(2, 4, 4, dtype=f64, phase=0.8)}, lambda X: L.eigvalsh(X + X.mT))
case("svd_wide", {"A": rect(2, 3, 5, phase=0.2)},
     lambda A: torch.cat([t.flatten() for t in (lambda u, s, vh: (u.abs(), s, vh.abs()))(*L.svd(A, False))]))
case("svd_full", {"A": rect(4, 2, phase=0.2)},
     lambda A: torch.cat([t.flatten() for t in (lambda u, s, vh: (u.abs(), s, vh.abs()))(*L.svd(A))]))
case("svdvals", {"A": rect(2, 4, 3, phase=0.5)}, lambda A: L.svdvals(A))
case("torch_svd", {"A": rect(4, 3, phase=0.5)},
     lambda A: torch.cat([t.flatten() for t in (lambda u, s, v: (u.abs(), s, v.abs()))(*torch.svd(A))]))
case("torch_svd_no_uv", {"A": rect(4, 3, phase=0.5)},
     lambda A: torch.cat([t.flatten() for t in torch.svd(A, compute_uv=False)]), no_grad=("A",))
case("solve_triangular_upper", {"A": square(2, dtype=f64), "B": wave(2, 3, 2, dtype=f64, phase=0.4)},
     lambda A, B: L.solve_triangular(A, B, upper=True))
case("solve_triangular_lower_right", {"A": square(dtype=f64), "B": wave(2, 3, dtype=f64, phase=0.4)},
     lambda A, B: L.solve_triangular(A, B, upper=False, left=False))
case("solve_triangular_unit", {"A": square(dtype=f64), "B": wave(3, 2, dtype=f64, phase=0.4)},
     lambda A, B: L.solve_triangular(A, B, upper=False, unitriangular=True))
case("triangular_solve", {"A": square(dtype=f64), "b": wave(3, 2, dtype=f64, phase=0.4)},
     lambda A, b: torch.triangular_solve(b, A, upper=True, transpose=True)[0])
case("lu_factor", {"A": wave(2, 3, 3, dtype=f64, phase=0.1)}, lambda A: L.lu_factor(A)[0], no_grad=("A",))
case("lu_factor_pivots", {"A": wave(2, 3, 3, dtype=f64, phase=0.1)}, lambda A: L.lu_factor(A)[1], no_grad=("A",))
case("lu", {"A": wave(4, 3, dtype=f64, phase=0.1)}, lambda A: torch.cat([t.flatten() for t in L.lu(A)]),
     no_grad=("A",))
case("lu_solve", {"A": wave(3, 3, dtype=f64, phase=0.1), "B": wave(3, 2, dtype=f64, phase=0.6)},
     lambda A, B: L.lu_solve(*L.lu_factor(A), B), no_grad=("A", "B"))
case("lu_solve_adjoint", {"A": wave(3, 3, dtype=f64, phase=0.1), "B": wave(3, 2, dtype=f64, phase=0.6)},
     lambda A, B: L.lu_solve(*L.lu_factor(A), B, adjoint=True), no_grad=("A", "B"))
for n in [3, 1, 0, -1, -2]:
    case(f"matrix_power_{n}".replace("-", "m"), {"A": square(2, dtype=f64, phase=0.6) / 2},
         lambda A, n=n: L.matrix_power(A, n))
case("matrix_exp", {"A": wave(2, 3, 3, dtype=f64, phase=0.6)}, lambda A: L.matrix_exp(A))
case("matrix_exp_large", {"A": wave(3, 3, dtype=f64, phase=0.6, scale=6.0)}, lambda A: L.matrix_exp(A))
case("matrix_exp_f32", {"A": wave(3, 3, dtype=f32, phase=0.6)}, lambda A: L.matrix_exp(A))
case("pinv", {"A": rect(4, 3, phase=0.2)}, lambda A: L.pinv(A))
case("pinv_hermitian", {"X": wave(3, 3, dtype=f64, phase=0.2)}, lambda X: L.pinv(spd(X), hermitian=True))
case("pinverse", {"A": rect(3, 4, phase=0.2)}, lambda A: torch.pinverse(A))
case("matrix_rank", {"A": torch.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 1.0, 1.0]], dtype=f64)},
     lambda A: L.matrix_rank(A), no_grad=("A",))
for ord_name, ord in [("fro", "fro"), ("nuc", "nuc"), ("1", 1), ("m1", -1), ("2", 2), ("m2", -2), ("inf", float("inf")),
                      ("minf", float("-inf"))]:
    case("matrix_norm_" + ord_name, {"A": rect(2, 3, 4, phase=0.3)}, lambda A, o=ord: L.matrix_norm(A, o))
case("matrix_norm_dims_keepdim", {"A": wave(3, 2, 4, dtype=f64, phase=0.3)},
     lambda A: L.matrix_norm(A, 1, dim=(0, 2), keepdim=True))
for ord_name, ord in [("2", 2), ("1", 1), ("3", 3), ("inf", float("inf")), ("minf", float("-inf")), ("0", 0),
                      ("half", 0.5)]:
    no_grad = ("x",) if ord == 0 else ()
    case("vector_norm_" + ord_name, {"x": wave(3, 4, dtype=f64, phase=0.1)}, lambda x, o=ord: L.vector_norm(x, o),
         no_grad=no_grad)
case("vector_norm_dim", {"x": wave(3, 4, dtype=f64, phase=0.1)}, lambda x: L.vector_norm(x, 3, dim=1, keepdim=True))
case("norm_default", {"x": wave(3, 4, dtype=f64, phase=0.1)}, lambda x: L.norm(x))
case("norm_matrix_ord", {"x": wave(3, 4, dtype=f64, phase=0.1)}, lambda x: L.norm(x, float("inf")))
case("norm_vector_dim", {"x": wave(3, 4, dtype=f64, phase=0.1)}, lambda x: L.norm(x, 1, dim=0))
case("norm_nuc", {"x": rect(3, 4, phase=0.1)}, lambda x: L.norm(x, "nuc"))
case("cond", {"A": square(2, dtype=f64, phase=0.4)}, lambda A: L.cond(A))
# PyTorch 1.13's backward of cond with p != 2 fails (an in-place op on inv's output): values only.
case("cond_1", {"A": square(dtype=f64, phase=0.4)}, lambda A: L.cond(A, 1), no_grad=("A",))
case("cond_fro", {"A": square(dtype=f64, phase=0.4)}, lambda A: L.cond(A, "fro"), no_grad=("A",))
case("multi_dot", {"a": wave(3, dtype=f64), "B": wave(3, 4, dtype=f64, phase=0.2), "C": wave(4, 2, dtype=f64, phase=0.5)},
     lambda a, B, C: L.multi_dot([a, B, C]))
case("vecdot", {"x": wave(2, 3, dtype=f64), "y": wave(3, dtype=f64, phase=0.3)}, lambda x, y: L.vecdot(x, y))
case("linalg_matmul", {"a": wave(2, 3, dtype=f64), "b": wave(3, 2, dtype=f64, phase=0.3)}, lambda a, b: L.matmul(a, b))
case("linalg_diagonal", {"A": wave(2, 3, 3, dtype=f64)}, lambda A: L.diagonal(A, offset=1))
case("vander", {"x": wave(4, dtype=f64)}, lambda x: L.vander(x))
case("vander_N", {"x": wave(2, 3, dtype=f64)}, lambda x: L.vander(x, N=5))
case("vander_int", {"x": torch.tensor([1, 2, 3], dtype=torch.int64)}, lambda x: L.vander(x))
case("tensorinv", {"A": (3 * torch.eye(24, dtype=f64) + wave(24, 24, dtype=f64, phase=0.2)).reshape(4, 6, 8, 3)},
     lambda A: L.tensorinv(A, ind=2))
case("tensorsolve", {"A": (3 * torch.eye(6, dtype=f64) + wave(6, 6, dtype=f64, phase=0.2)).reshape(2, 3, 6),
                     "B": wave(2, 3, dtype=f64, phase=0.7)}, lambda A, B: L.tensorsolve(A, B))
case("lu_factor_ex_info", {"A": torch.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=f64)}, lambda A: L.lu_factor_ex(A)[2],
     no_grad=("A",))

# ---- least squares, Householder products, LDL, lu_unpack, nuclear_norm, symeig ----
# Only determined quantities are recorded: lstsq's minimum-norm solution, residuals, rank and
# singular values; geqrf's packed output, which OpenBLAS's reference LAPACK and PyTorch's give
# identically; householder_product/ormqr, which are deterministic given (A, tau); sytrf's LD and
# pivots (deterministic Bunch-Kaufman); the unpacked LU.


def lstsq_all(A, B, **kw):
    r = L.lstsq(A, B, **kw)
    return torch.cat([r.solution.flatten(), r.residuals.flatten(), r.rank.to(A.dtype).flatten(),
                      r.singular_values.flatten()])


def rank_one(*batch, dtype=f64):
    """A (batch of) 4 x 3 matrix of rank 1."""
    u, v = wave(*batch, 4, 1, dtype=dtype, phase=0.3), wave(*batch, 1, 3, dtype=dtype, phase=1.1)
    return u @ v


for dtype, sfx in [(f64, ""), (f32, "_f32")]:
    case("lstsq" + sfx, {"A": rect(2, 4, 3, dtype=dtype), "B": wave(2, 4, 2, dtype=dtype, phase=0.7)},
         lambda A, B: L.lstsq(A, B).solution)
    for drv in ["gels", "gelsd", "gelss"]:
        case(f"lstsq_{drv}{sfx}", {"A": rect(2, 4, 3, dtype=dtype), "B": wave(2, 4, 2, dtype=dtype, phase=0.7)},
             lambda A, B, d=drv: lstsq_all(A, B, driver=d))
    case("lstsq_wide" + sfx, {"A": rect(2, 3, 4, dtype=dtype), "B": wave(2, 3, 2, dtype=dtype, phase=0.2)},
         lambda A, B: L.lstsq(A, B).solution)
    case("householder_product" + sfx, {"A": torch.geqrf(rect(2, 5, 3, dtype=dtype))[0],
                                       "tau": torch.geqrf(rect(2, 5, 3, dtype=dtype))[1]},
         lambda A, tau: L.householder_product(A, tau))
    case("geqrf" + sfx, {"A": rect(2, 4, 3, dtype=dtype, phase=0.4)},
         lambda A: torch.cat([t.flatten() for t in torch.geqrf(A)]), no_grad=("A",))
    case("ldl_factor" + sfx, {"A": torch.stack([torch.tensor([[1., 2., 3.], [2., -1., .5], [3., .5, 0.]]),
                                                torch.tensor([[0., 1., 2.], [1., 0., 3.], [2., 3., 0.]])]).to(dtype)},
         lambda A: torch.cat([t.flatten().to(A.dtype) for t in L.ldl_factor(A)]), no_grad=("A",))
    case("ldl_solve" + sfx, {"A": torch.stack([torch.tensor([[1., 2., 3.], [2., -1., .5], [3., .5, 0.]]),
                                               torch.tensor([[0., 1., 2.], [1., 0., 3.], [2., 3., 0.]])]).to(dtype),
                             "B": wave(2, 3, 2, dtype=dtype, phase=0.5)},
         lambda A, B: L.ldl_solve(*L.ldl_factor(A), B), no_grad=("A", "B"))
    case("lu_unpack" + sfx, {"LU": L.lu_factor(square(2, dtype=dtype, phase=0.1))[0],
                             "pivots": L.lu_factor(square(2, dtype=dtype, phase=0.1))[1]},
         lambda LU, pivots: torch.cat([t.flatten() for t in torch.lu_unpack(LU, pivots)]))
    case("symeig" + sfx, {"X": wave(2, 3, 3, dtype=dtype, phase=0.2)},
         lambda X: torch.cat([v.flatten() for v in (lambda e: (e[0], e[1].abs()))(torch.symeig(X + X.mT, True))]))

# PyTorch 1.13's lstsq backward fails whenever B is a (batch of) vector(s): values only.
case("lstsq_vector", {"A": rect(2, 4, 3), "b": wave(2, 4, phase=0.3, dtype=f64)}, lambda A, b: L.lstsq(A, b).solution,
     no_grad=("A", "b"))
case("lstsq_vector_gelsd", {"A": rect(4, 3), "b": wave(4, phase=0.3, dtype=f64)},
     lambda A, b: lstsq_all(A, b, driver="gelsd"), no_grad=("A", "b"))
case("lstsq_broadcast", {"A": rect(2, 1, 4, 3, phase=0.6), "B": wave(1, 3, 4, 2, dtype=f64, phase=0.3)},
     lambda A, B: L.lstsq(A, B).solution)
case("lstsq_square_gelsd", {"A": square(2, dtype=f64), "B": wave(2, 3, 1, dtype=f64, phase=0.3)},
     lambda A, B: lstsq_all(A, B, driver="gelsd"))
for drv in ["gelsy", "gelsd", "gelss"]:
    case(f"lstsq_rank_deficient_{drv}", {"A": rank_one(2), "B": wave(2, 4, 2, dtype=f64, phase=0.9)},
         lambda A, B, d=drv: lstsq_all(A, B, driver=d), no_grad=("A", "B"))
case("lstsq_rcond", {"A": torch.diag(torch.tensor([1.0, 1e-3, 1e-9], dtype=f64)), "B": wave(3, 2, dtype=f64)},
     lambda A, B: torch.cat([lstsq_all(A, B, driver="gelsd", rcond=1e-2), lstsq_all(A, B, driver="gelsy")]),
     no_grad=("A", "B"))
case("lstsq_wide_gelsd", {"A": rect(3, 5, phase=0.1), "B": wave(3, 2, dtype=f64, phase=0.2)},
     lambda A, B: lstsq_all(A, B, driver="gelsd"))
case("lstsq_rank_deficient_gels_f32", {"A": rect(2, 4, 3, dtype=f32, phase=0.3),
                                       "B": wave(2, 4, 1, dtype=f32, phase=0.2)},
     lambda A, B: L.lstsq(A, B, driver="gels").residuals)
case("householder_product_partial", {"A": wave(5, 4, dtype=f64, phase=0.2), "tau": wave(2, dtype=f64, phase=0.7)},
     lambda A, tau: L.householder_product(A, tau))
case("orgqr", {"A": torch.geqrf(rect(4, 4, phase=0.3))[0], "tau": torch.geqrf(rect(4, 4, phase=0.3))[1]},
     lambda A, tau: torch.orgqr(A, tau))
for left in [True, False]:
    for trans in [False, True]:
        name = f"ormqr_{'left' if left else 'right'}{'_t' if trans else ''}"
        C = wave(2, 5, 2, dtype=f64, phase=0.8) if left else wave(2, 2, 5, dtype=f64, phase=0.8)
        case(name, {"A": torch.geqrf(rect(2, 5, 3, phase=0.1))[0], "tau": torch.geqrf(rect(2, 5, 3, phase=0.1))[1],
                    "C": C}, lambda A, tau, C, l=left, t=trans: torch.ormqr(A, tau, C, l, t), no_grad=("A", "tau", "C"))
case("ldl_factor_hermitian", {"A": spd(wave(4, 4, dtype=f64, phase=0.3)) - 6 * torch.eye(4, dtype=f64)},
     lambda A: torch.cat([t.flatten().to(A.dtype) for t in L.ldl_factor(A, hermitian=True)]), no_grad=("A",))
case("ldl_factor_ex_info", {"A": torch.zeros(2, 2, dtype=f64)},
     lambda A: torch.cat([t.flatten().to(A.dtype) for t in L.ldl_factor_ex(A)]), no_grad=("A",))
case("ldl_solve_broadcast", {"A": spd(wave(4, 4, dtype=f64, phase=0.3)) - 6 * torch.eye(4, dtype=f64),
                             "B": wave(2, 4, 3, dtype=f64, phase=0.5)},
     lambda A, B: L.ldl_solve(*L.ldl_factor(A), B), no_grad=("A", "B"))
case("lu_unpack_tall", {"LU": L.lu_factor(rect(5, 3, phase=0.4))[0],
                        "pivots": L.lu_factor(rect(5, 3, phase=0.4))[1]},
     lambda LU, pivots: torch.cat([t.flatten() for t in torch.lu_unpack(LU, pivots)]))
case("lu_unpack_wide", {"LU": L.lu_factor(rect(2, 3, 5, phase=0.4))[0],
                        "pivots": L.lu_factor(rect(2, 3, 5, phase=0.4))[1]},
     lambda LU, pivots: torch.cat([t.flatten() for t in torch.lu_unpack(LU, pivots)]))
case("lu_unpack_no_pivots", {"LU": L.lu_factor(square(dtype=f64, phase=0.4))[0],
                             "pivots": L.lu_factor(square(dtype=f64, phase=0.4))[1]},
     lambda LU, pivots: torch.cat([t.flatten() for t in torch.lu_unpack(LU, pivots, unpack_pivots=False)]))
case("lu_unpack_no_data", {"LU": L.lu_factor(square(dtype=f64, phase=0.4))[0],
                           "pivots": L.lu_factor(square(dtype=f64, phase=0.4))[1]},
     lambda LU, pivots: torch.cat([t.flatten() for t in torch.lu_unpack(LU, pivots, unpack_data=False)]),
     no_grad=("LU",))
case("nuclear_norm", {"A": rect(4, 3, phase=0.2)}, lambda A: torch.nuclear_norm(A))
case("nuclear_norm_keepdim", {"A": rect(4, 3, phase=0.2)}, lambda A: torch.nuclear_norm(A, keepdim=True))
case("nuclear_norm_dim", {"A": wave(3, 2, 4, dtype=f64, phase=0.3)}, lambda A: torch.nuclear_norm(A, dim=(0, 2)))
case("nuclear_norm_dim_keepdim", {"A": wave(3, 2, 4, dtype=f64, phase=0.3)},
     lambda A: torch.nuclear_norm(A, dim=(2, 0), keepdim=True))
case("symeig_lower", {"X": wave(3, 3, dtype=f64, phase=0.6)},
     lambda X: torch.cat([v.flatten() for v in (lambda e: (e[0], e[1].abs()))(torch.symeig(X, True, False))]))
case("symeig_values", {"A": wave(2, 3, 3, dtype=f64, phase=0.6)}, lambda A: torch.cat([t.flatten() for t in torch.symeig(A)]),
     no_grad=("A",))

if __name__ == "__main__":
    write(os.path.join(FIXTURES, "linalg.json"), CASES)
