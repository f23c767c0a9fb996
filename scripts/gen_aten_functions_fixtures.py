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
    cummax/cummin (no gradient).
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
case("tril_indices", {}, lambda: torch.tril_indices(3, 4, 1))
case("triu_indices", {}, lambda: torch.triu_indices(3, 3, -1))
case("repeat_interleave_indices", {"repeats": long([2, 0, 1])}, lambda repeats: torch.repeat_interleave(repeats))

if __name__ == "__main__":
    write(os.path.join(FIXTURES, "aten_functions.json"), CASES)
