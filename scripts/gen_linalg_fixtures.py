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

if __name__ == "__main__":
    write(os.path.join(FIXTURES, "linalg.json"), CASES)
