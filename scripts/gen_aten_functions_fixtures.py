#!/usr/bin/python3
"""Writes the PyTorch 1.13 references for tests/core/test_aten_functions.cpp (autograd/aten_functions.h).

Run with Debian's torch: /usr/bin/python3 scripts/gen_aten_functions_fixtures.py

tests/fixtures/aten_functions.json
    one case per call: kron, tensordot, cdist (p = 0, 1, 1.5, 2, 3, inf; batched and broadcast),
    cross and linalg_cross, cartesian_prod, repeat_interleave (a count, counts per element, without
    dim), take_along_dim, rot90 (k = -1..4), diag_embed (offsets and dims), block_diag, cummax and
    cummin (values; ties and NaN), in float32 and float64 where the op is differentiable: named
    inputs, the output, fixed weights w and the gradients of (out * w).sum(); and the integer results
    of bucketize, searchsorted, histc, bincount, isin, tril_indices, triu_indices and the indices of
    cummax/cummin (no gradient). Then einsum (matmul, implicit output, trace, diagonal, batch,
    ellipsis, broadcasting, three operands), addmv/addr/baddbmm/addbmm, inner, vdot, chain_matmul,
    fliplr/flipud, hsplit/vsplit/dsplit, broadcast_tensors, diagflat, msort, take, fmax/fmin (NaN and
    ties), rsub, dist, logcumsumexp, trapezoid/trapz/cumulative_trapezoid, cov (weights), corrcoef,
    vander, logspace, range and the hann/hamming/blackman/bartlett windows; heaviside, isposinf,
    isneginf and signbit (signed zeros and NaN).
"""
import os

import torch

from fixture_common import FIXTURES, f32, f64, record_case, wave, write

CASES = {}


def case(name, inputs, fn, no_grad=()):
    record_case(CASES, name, inputs, fn, no_grad=no_grad)


def long(values):
    return torch.tensor(values, dtype=torch.int64)


for dtype, sfx in [(f32, ""), (f64, "_f64")]:
    # ---- products ----
    case("kron_2d" + sfx, {"a": wave(2, 3, dtype=dtype), "b": wave(3, 2, dtype=dtype, phase=0.5)},
         lambda a, b: torch.kron(a, b))
    case("kron_broadcast_rank" + sfx, {"a": wave(3, dtype=dtype), "b": wave(2, 2, 2, dtype=dtype, phase=0.5)},
         lambda a, b: torch.kron(a, b))
    case("tensordot" + sfx, {"a": wave(2, 3, 4, dtype=dtype), "b": wave(4, 3, 5, dtype=dtype, phase=0.3)},
         lambda a, b: torch.tensordot(a, b, dims=([1, 2], [1, 0])))
    case("tensordot_none" + sfx, {"a": wave(2, 3, dtype=dtype), "b": wave(4, dtype=dtype, phase=0.3)},
         lambda a, b: torch.tensordot(a, b, dims=([], [])))
    for p, pname in [(0.0, "0"), (1.0, "1"), (1.5, "1_5"), (2.0, "2"), (3.0, "3"), (float("inf"), "inf")]:
        case(f"cdist_p{pname}" + sfx, {"x1": wave(2, 4, 3, dtype=dtype), "x2": wave(2, 5, 3, dtype=dtype, phase=0.7)},
             lambda x1, x2, p=p: torch.cdist(x1, x2, p=p))
    case("cdist_broadcast" + sfx, {"x1": wave(2, 1, 3, 2, dtype=dtype), "x2": wave(4, 2, 2, dtype=dtype, phase=0.7)},
         lambda x1, x2: torch.cdist(x1, x2))
    case("cross_dim" + sfx, {"a": wave(2, 3, 4, dtype=dtype), "b": wave(2, 3, 4, dtype=dtype, phase=0.9)},
         lambda a, b: torch.cross(a, b, dim=1))
    case("cross_default" + sfx, {"a": wave(4, 3, dtype=dtype), "b": wave(4, 3, dtype=dtype, phase=0.9)},
         lambda a, b: torch.cross(a, b))
    case("linalg_cross_broadcast" + sfx, {"a": wave(2, 1, 3, dtype=dtype), "b": wave(1, 4, 3, dtype=dtype, phase=0.9)},
         lambda a, b: torch.linalg.cross(a, b))
    case("cartesian_prod" + sfx, {"a": wave(2, dtype=dtype), "b": wave(3, dtype=dtype, phase=0.2),
                                  "c": wave(2, dtype=dtype, phase=0.4)},
         lambda a, b, c: torch.cartesian_prod(a, b, c))
    # ---- arranging ----
    case("repeat_interleave_count" + sfx, {"x": wave(2, 3, dtype=dtype)},
         lambda x: torch.repeat_interleave(x, 2, dim=1))
    case("repeat_interleave_counts" + sfx, {"x": wave(3, 2, dtype=dtype), "repeats": long([1, 0, 3])},
         lambda x, repeats: torch.repeat_interleave(x, repeats, dim=0))
    case("repeat_interleave_flat" + sfx, {"x": wave(2, 2, dtype=dtype)}, lambda x: torch.repeat_interleave(x, 3))
    case("take_along_dim" + sfx, {"x": wave(3, 4, dtype=dtype), "i": long([[0, 3], [1, 1], [3, 2]])},
         lambda x, i: torch.take_along_dim(x, i, dim=1))
    case("take_along_dim_broadcast" + sfx, {"x": wave(1, 4, dtype=dtype), "i": long([[0, 3], [1, 1], [3, 2]])},
         lambda x, i: torch.take_along_dim(x, i, dim=1))
    case("take_along_dim_flat" + sfx, {"x": wave(3, 4, dtype=dtype), "i": long([[11, 0], [5, 5]])},
         lambda x, i: torch.take_along_dim(x, i))
    for k in [-1, 0, 1, 2, 3, 4]:
        case(f"rot90_k{k}".replace("-", "m") + sfx, {"x": wave(2, 3, 4, dtype=dtype)},
             lambda x, k=k: torch.rot90(x, k, [2, 1]))
    for offset, d1, d2 in [(0, -2, -1), (1, -2, -1), (-2, -2, -1), (1, 0, 2), (-1, 2, 0)]:
        case(f"diag_embed_{offset}_{d1}_{d2}".replace("-", "m") + sfx, {"x": wave(2, 3, dtype=dtype)},
             lambda x, offset=offset, d1=d1, d2=d2: torch.diag_embed(x, offset, d1, d2))
    case("block_diag" + sfx, {"a": torch.tensor(0.5, dtype=dtype), "b": wave(3, dtype=dtype, phase=0.3),
                              "c": wave(2, 2, dtype=dtype, phase=0.6)},
         lambda a, b, c: torch.block_diag(a, b, c))
    # ---- cumulative extremes: ties (the later index), NaN kept ----
    ties = torch.tensor([[1.0, 3.0, 3.0, 2.0, 5.0], [2.0, 2.0, -1.0, -1.0, 0.5]], dtype=dtype)
    case("cummax_values" + sfx, {"x": ties}, lambda x: torch.cummax(x, 1)[0])
    case("cummin_values" + sfx, {"x": ties}, lambda x: torch.cummin(x, 1)[0])
    case("cummax_values_dim0" + sfx, {"x": wave(3, 2, dtype=dtype)}, lambda x: torch.cummax(x, 0)[0])

    # ---- einsum and the products with an added term ----
    einsums = [
        ("matmul", "ij,jk->ik", [(2, 3), (3, 4)]),
        ("implicit", "jk,ij", [(3, 4), (2, 3)]),
        ("upper_first", "ba,Ab", [(2, 3), (4, 2)]),
        ("trace", "ii", [(3, 3)]),
        ("diagonal", "ii->i", [(3, 3)]),
        ("repeated_sum", "iij->j", [(2, 2, 3)]),
        ("batch", "bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]),
        ("ellipsis_broadcast", "...ij,...jk->...ik", [(2, 2, 3), (3, 4)]),
        ("ellipsis_implicit", "...ij->...ji", [(2, 3, 4)]),
        ("outer", "i,j->ij", [(3,), (2,)]),
        ("sum_all", "ij->", [(2, 3)]),
        ("three", "ij,jk,kl->il", [(2, 3), (3, 2), (2, 4)]),
        ("size1_broadcast", "ij,j->i", [(2, 3), (1,)]),
        ("spaces", " i j , j k -> k i ", [(2, 3), (3, 2)]),
        ("kept_twice", "ij,ij->ij", [(2, 3), (2, 3)]),
    ]
    for name, eq, shapes in einsums:
        ins = {f"x{i}": wave(*shape, dtype=dtype, phase=0.3 * i) for i, shape in enumerate(shapes)}
        case(f"einsum_{name}" + sfx, ins, lambda eq=eq, **kw: torch.einsum(eq, [kw[f"x{i}"] for i in range(len(kw))]))
    case("addmv" + sfx, {"s": wave(2, dtype=dtype), "m": wave(2, 3, dtype=dtype, phase=0.2),
                         "v": wave(3, dtype=dtype, phase=0.4)},
         lambda s, m, v: torch.addmv(s, m, v, beta=0.5, alpha=2))
    case("addmv_beta0_nan" + sfx, {"s": torch.tensor([float("nan"), 1.0], dtype=dtype),
                                   "m": wave(2, 3, dtype=dtype, phase=0.2), "v": wave(3, dtype=dtype, phase=0.4)},
         lambda s, m, v: torch.addmv(s, m, v, beta=0), no_grad=("s",))
    case("addr" + sfx, {"s": wave(3, 1, dtype=dtype), "a": wave(3, dtype=dtype, phase=0.2),
                        "b": wave(2, dtype=dtype, phase=0.4)},
         lambda s, a, b: torch.addr(s, a, b, beta=2, alpha=-1))
    case("baddbmm" + sfx, {"s": wave(2, 2, dtype=dtype), "a": wave(3, 2, 4, dtype=dtype, phase=0.2),
                           "b": wave(3, 4, 2, dtype=dtype, phase=0.4)},
         lambda s, a, b: torch.baddbmm(s, a, b, beta=0.5, alpha=-1))
    case("addbmm" + sfx, {"s": wave(2, 2, dtype=dtype), "a": wave(3, 2, 4, dtype=dtype, phase=0.2),
                          "b": wave(3, 4, 2, dtype=dtype, phase=0.4)},
         lambda s, a, b: torch.addbmm(s, a, b))
    case("inner" + sfx, {"a": wave(2, 2, 3, dtype=dtype), "b": wave(4, 3, dtype=dtype, phase=0.3)},
         lambda a, b: torch.inner(a, b))
    case("inner_scalar" + sfx, {"a": torch.tensor(1.5, dtype=dtype), "b": wave(2, 3, dtype=dtype, phase=0.3)},
         lambda a, b: torch.inner(a, b))
    case("vdot" + sfx, {"a": wave(4, dtype=dtype), "b": wave(4, dtype=dtype, phase=0.3)}, lambda a, b: torch.vdot(a, b))
    case("chain_matmul" + sfx, {"a": wave(2, 3, dtype=dtype), "b": wave(3, 3, dtype=dtype, phase=0.3),
                                "c": wave(3, 2, dtype=dtype, phase=0.6)},
         lambda a, b, c: torch.chain_matmul(a, b, c))
    # ---- arranging ----
    case("fliplr" + sfx, {"x": wave(2, 3, 2, dtype=dtype)}, lambda x: torch.fliplr(x))
    case("flipud" + sfx, {"x": wave(3, 2, dtype=dtype)}, lambda x: torch.flipud(x))
    case("hsplit" + sfx, {"x": wave(2, 4, dtype=dtype)},
         lambda x: torch.cat([t.flatten() for t in torch.hsplit(x, 2)]))
    case("hsplit_indices_1d" + sfx, {"x": wave(5, dtype=dtype)},
         lambda x: torch.cat([t.flatten() * (i + 1) for i, t in enumerate(torch.hsplit(x, [1, 3]))]))
    case("vsplit" + sfx, {"x": wave(4, 2, dtype=dtype)},
         lambda x: torch.cat([t.flatten() * (i + 1) for i, t in enumerate(torch.vsplit(x, [3]))]))
    case("dsplit" + sfx, {"x": wave(2, 2, 4, dtype=dtype)},
         lambda x: torch.cat([t.flatten() * (i + 1) for i, t in enumerate(torch.dsplit(x, 2))]))
    case("broadcast_tensors" + sfx, {"a": wave(2, 1, dtype=dtype), "b": wave(3, dtype=dtype, phase=0.5)},
         lambda a, b: torch.stack(torch.broadcast_tensors(a, b)))
    case("diagflat" + sfx, {"x": wave(2, 2, dtype=dtype)}, lambda x: torch.diagflat(x, 1))
    case("msort" + sfx, {"x": wave(4, 3, dtype=dtype)}, lambda x: torch.msort(x))
    case("take" + sfx, {"x": wave(2, 3, dtype=dtype), "i": long([[0, 5], [-1, 2]])}, lambda x, i: torch.take(x, i))
    # ---- elementwise ----
    ties = torch.tensor([1.0, 2.0, float("nan"), 3.0, float("nan"), -1.0], dtype=dtype)
    other = torch.tensor([1.0, 1.0, 0.5, float("nan"), float("nan"), 2.0], dtype=dtype)
    case("fmax" + sfx, {"a": ties, "b": other}, lambda a, b: torch.fmax(a, b))
    case("fmin" + sfx, {"a": ties, "b": other}, lambda a, b: torch.fmin(a, b))
    case("rsub" + sfx, {"a": wave(2, 3, dtype=dtype), "b": wave(3, dtype=dtype, phase=0.2)},
         lambda a, b: torch.rsub(a, b, alpha=2))
    case("rsub_scalar" + sfx, {"a": wave(2, 3, dtype=dtype)}, lambda a: torch.rsub(a, 1.5, alpha=3))
    for p, pname in [(2, "2"), (1, "1"), (float("inf"), "inf"), (3, "3")]:
        case(f"dist_p{pname}" + sfx, {"a": wave(2, 3, dtype=dtype), "b": wave(3, dtype=dtype, phase=0.7)},
             lambda a, b, p=p: torch.dist(a, b, p))
    case("logcumsumexp" + sfx, {"x": wave(3, 4, dtype=dtype, scale=3.0)}, lambda x: torch.logcumsumexp(x, 1))
    case("logcumsumexp_wide_range" + sfx, {"x": torch.tensor([-1000.0, 0.0, 1000.0, -5.0], dtype=dtype)},
         lambda x: torch.logcumsumexp(x, 0))
    # ---- numerical integration and statistics ----
    case("trapezoid_x" + sfx, {"y": wave(2, 4, dtype=dtype), "x": torch.tensor([0.0, 0.5, 1.5, 3.0], dtype=dtype)},
         lambda y, x: torch.trapezoid(y, x))
    case("trapezoid_x_2d" + sfx, {"y": wave(3, 2, dtype=dtype), "x": wave(3, 2, dtype=dtype, phase=0.5, scale=4.0)},
         lambda y, x: torch.trapezoid(y, x, dim=0))
    case("trapezoid_dx" + sfx, {"y": wave(2, 4, dtype=dtype)}, lambda y: torch.trapezoid(y, dx=0.5, dim=1))
    case("trapz_dx" + sfx, {"y": wave(3, 2, dtype=dtype)}, lambda y: torch.trapz(y, dx=2.0, dim=0))
    case("cumulative_trapezoid_x" + sfx, {"y": wave(2, 4, dtype=dtype),
                                          "x": torch.tensor([0.0, 0.5, 1.5, 3.0], dtype=dtype)},
         lambda y, x: torch.cumulative_trapezoid(y, x))
    case("cumulative_trapezoid_dx" + sfx, {"y": wave(2, 4, dtype=dtype)},
         lambda y: torch.cumulative_trapezoid(y, dx=0.5))
    case("cov" + sfx, {"x": wave(3, 5, dtype=dtype)}, lambda x: torch.cov(x))
    case("cov_1d_correction0" + sfx, {"x": wave(5, dtype=dtype)}, lambda x: torch.cov(x, correction=0))
    case("cov_weights" + sfx, {"x": wave(2, 4, dtype=dtype), "aw": torch.tensor([0.5, 1.0, 2.0, 0.25], dtype=dtype)},
         lambda x, aw: torch.cov(x, fweights=torch.tensor([1, 2, 0, 3]), aweights=aw), no_grad=("aw",))
    case("corrcoef" + sfx, {"x": wave(3, 5, dtype=dtype)}, lambda x: torch.corrcoef(x))
    # PyTorch 1.13's vander backward fails (an in-place write to a saved slice): values only here,
    # the gradient by gradcheck in the test.
    case("vander" + sfx, {"x": wave(3, dtype=dtype)}, lambda x: torch.vander(x, 4), no_grad=("x",))
    case("vander_increasing" + sfx, {"x": wave(3, dtype=dtype)}, lambda x: torch.vander(x, increasing=True),
         no_grad=("x",))
    # ---- sequences and windows ----
    case("logspace" + sfx, {}, lambda: torch.logspace(-1.0, 2.0, 5, base=2.0, dtype=dtype))
    case("range" + sfx, {}, lambda: torch.range(0.5, 2.0, 0.3, dtype=dtype))
    for n in [0, 1, 5, 6]:
        for periodic in [True, False]:
            tag = f"{n}_{'periodic' if periodic else 'symmetric'}" + sfx
            case(f"hann_window_{tag}", {}, lambda n=n, periodic=periodic: torch.hann_window(n, periodic, dtype=dtype))
            case(f"hamming_window_{tag}", {},
                 lambda n=n, periodic=periodic: torch.hamming_window(n, periodic, 0.6, 0.3, dtype=dtype))
            case(f"blackman_window_{tag}", {},
                 lambda n=n, periodic=periodic: torch.blackman_window(n, periodic, dtype=dtype))
            case(f"bartlett_window_{tag}", {},
                 lambda n=n, periodic=periodic: torch.bartlett_window(n, periodic, dtype=dtype))

nan = float("nan")
with_nan = torch.tensor([1.0, nan, 0.0, 4.0])
case("cummax_nan", {"x": with_nan}, lambda x: torch.cummax(x, 0)[0])
case("cummax_nan_indices", {"x": with_nan}, lambda x: torch.cummax(x, 0)[1], no_grad=("x",))
case("cummin_nan_indices", {"x": with_nan}, lambda x: torch.cummin(x, 0)[1], no_grad=("x",))
ties = torch.tensor([[1.0, 3.0, 3.0, 2.0, 5.0], [2.0, 2.0, -1.0, -1.0, 0.5]])
case("cummax_indices", {"x": ties}, lambda x: torch.cummax(x, 1)[1], no_grad=("x",))
case("cummin_indices", {"x": ties}, lambda x: torch.cummin(x, 1)[1], no_grad=("x",))

# ---- searching and counting: integer results ----
bounds = torch.tensor([1.0, 3.0, 5.0, 7.0, 9.0])
values = torch.tensor([[0.5, 1.0, 3.0], [6.0, 9.0, 10.0]])
for right in [False, True]:
    r = "_right" if right else ""
    case("bucketize" + r, {"x": values, "boundaries": bounds},
         lambda x, boundaries, right=right: torch.bucketize(x, boundaries, right=right), no_grad=("x", "boundaries"))
    case("searchsorted" + r, {"seq": bounds, "x": values},
         lambda seq, x, right=right: torch.searchsorted(seq, x, right=right), no_grad=("seq", "x"))
    case("searchsorted_rows" + r, {"seq": torch.tensor([[1.0, 2.0, 2.0, 4.0], [0.0, 0.5, 3.0, 3.0]]),
                                   "x": torch.tensor([[2.0, 5.0], [3.0, -1.0]])},
         lambda seq, x, right=right: torch.searchsorted(seq, x, right=right), no_grad=("seq", "x"))
case("searchsorted_sorter_int32", {"seq": torch.tensor([5.0, 1.0, 3.0]), "x": torch.tensor([2.0, 3.0, 6.0]),
                                   "sorter": long([1, 2, 0])},
     lambda seq, x, sorter: torch.searchsorted(seq, x, out_int32=True, side="right", sorter=sorter),
     no_grad=("seq", "x"))
case("bucketize_int", {"x": long([[1, 5], [3, 9]]), "boundaries": long([1, 3, 5, 7, 9])},
     lambda x, boundaries: torch.bucketize(x, boundaries, out_int32=True, right=True))
case("histc", {"x": torch.tensor([1.0, 2.0, 1.0, 4.0, -1.0, 3.0])},
     lambda x: torch.histc(x, bins=4, min=0, max=3), no_grad=("x",))
case("histc_data_range", {"x": wave(20, dtype=f64)}, lambda x: torch.histc(x, bins=7), no_grad=("x",))
case("histc_constant", {"x": torch.tensor([2.0, 2.0])}, lambda x: torch.histc(x, bins=3), no_grad=("x",))
case("bincount", {"x": long([0, 1, 1, 3])}, lambda x: torch.bincount(x))
case("bincount_minlength", {"x": long([0, 1, 1, 3])}, lambda x: torch.bincount(x, minlength=6))
case("bincount_weights", {"x": long([0, 1, 1, 3]), "w": torch.tensor([0.5, 1.0, 2.0, -1.0])},
     lambda x, w: torch.bincount(x, w), no_grad=("w",))
case("bincount_weights_f64", {"x": long([2, 0]), "w": torch.tensor([0.25, 4.0], dtype=f64)},
     lambda x, w: torch.bincount(x, w), no_grad=("w",))
case("isin", {"x": long([[1, 2], [3, 4]]), "t": long([2, 3])}, lambda x, t: torch.isin(x, t))
case("isin_invert", {"x": torch.tensor([1.0, 2.0, 2.5]), "t": long([2])},
     lambda x, t: torch.isin(x, t, invert=True), no_grad=("x",))
case("heaviside", {"x": torch.tensor([-1.0, 0.0, 2.0, 0.0]), "v": torch.tensor([0.5, 0.25, 0.5, 0.75])},
     lambda x, v: torch.heaviside(x, v), no_grad=("x", "v"))
# (A NaN's sign does not survive the JSON fixture: the test checks signbit of -NaN by hand.)
special = torch.tensor([float("inf"), -float("inf"), 0.0, -0.0, nan, -2.0])
case("isposinf", {"x": special}, lambda x: torch.isposinf(x), no_grad=("x",))
case("isneginf", {"x": special}, lambda x: torch.isneginf(x), no_grad=("x",))
case("signbit", {"x": special}, lambda x: torch.signbit(x), no_grad=("x",))
case("signbit_int", {"x": long([-3, 0, 4])}, lambda x: torch.signbit(x))
case("vander_int", {"x": long([1, 2, 3])}, lambda x: torch.vander(x))
case("range_int_default_dtype", {}, lambda: torch.range(1, 4))
case("logspace_int", {}, lambda: torch.logspace(0, 3, 4, dtype=torch.int64))
case("cov_int", {"x": long([[1, 2, 4], [3, 1, 0]])}, lambda x: torch.cov(x))
case("corrcoef_one_variable", {"x": torch.tensor([1.0, 2.0, 4.0])}, lambda x: torch.corrcoef(x), no_grad=("x",))
case("tril_indices", {}, lambda: torch.tril_indices(3, 4, 1))
case("triu_indices", {}, lambda: torch.triu_indices(3, 3, -1))
case("repeat_interleave_indices", {"repeats": long([2, 0, 1])}, lambda repeats: torch.repeat_interleave(repeats))

if __name__ == "__main__":
    write(os.path.join(FIXTURES, "aten_functions.json"), CASES)
