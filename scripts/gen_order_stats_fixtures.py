#!/usr/bin/python3
"""Writes the PyTorch 1.13 references for tests/core/test_order_stats.cpp.

Run with Debian's torch: /usr/bin/python3 scripts/gen_order_stats_fixtures.py

tests/fixtures/order_stats.json
    quantile and nanquantile (autograd/quantile.cpp: every interpolation, q a number or a tensor, over
    a dim or all elements, keepdim, NaN rows, an all-NaN row, float32 and float64), nanmedian and mode
    (autograd/sort.cpp: values and indices, ties, NaN), and the view scatters select_scatter and
    diagonal_scatter (autograd/view_scatter.cpp). Each entry: named inputs, the output, fixed weights w
    and the gradients of (out * w).sum() where PyTorch has them.
"""
import os

import torch

from fixture_common import FIXTURES, f64, record_case, wave, write

CASES = {}


def case(name, inputs, fn, no_grad=()):
    record_case(CASES, name, inputs, fn, no_grad=no_grad)


nan = float("nan")
x35 = wave(3, 5)
x46 = wave(4, 6, dtype=f64, phase=0.3)
with_nan = torch.tensor([[0.5, nan, -1.0, 2.0, 0.25], [1.0, 2.0, 3.0, 4.0, 5.0], [nan, nan, nan, nan, nan]])
ties = torch.tensor([[1.0, 3.0, 3.0, 1.0, 2.0, 3.0, 1.0], [4.0, 4.0, 0.0, 0.0, 5.0, 5.0, 6.0],
                     [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0]])

# ---- quantile ----
case("quantile_dim1", {"x": x35}, lambda x: x.quantile(0.3, dim=1))
case("quantile_dim0_tensor_q_keepdim", {"x": x35, "q": torch.tensor([0.1, 0.5, 0.95])},
     lambda x, q: x.quantile(q, dim=0, keepdim=True), no_grad=("q",))
case("quantile_all", {"x": x35}, lambda x: x.quantile(0.75))
case("quantile_all_tensor_q_keepdim", {"x": x35, "q": torch.tensor([0.2, 0.8])},
     lambda x, q: x.quantile(q, keepdim=True), no_grad=("q",))
case("quantile_float64_negative_dim", {"x": x46}, lambda x: torch.quantile(x, 0.61, dim=-2))
for mode in ["lower", "higher", "midpoint", "nearest"]:
    case(f"quantile_{mode}", {"x": x35, "q": torch.tensor([0.375, 0.4, 0.625])},
         lambda x, q, m=mode: x.quantile(q, dim=1, interpolation=m), no_grad=("q",))
case("quantile_nan_rows", {"x": with_nan}, lambda x: x.quantile(0.5, dim=1))
case("quantile_ties", {"x": ties}, lambda x: x.quantile(0.4, dim=1))
case("quantile_zero_dim", {"x": torch.tensor(2.5)}, lambda x: x.quantile(0.3))

# ---- nanquantile ----
case("nanquantile_dim1", {"x": with_nan}, lambda x: x.nanquantile(0.3, dim=1))
case("nanquantile_tensor_q", {"x": with_nan, "q": torch.tensor([0.0, 0.5, 1.0])},
     lambda x, q: torch.nanquantile(x, q, dim=1, keepdim=True), no_grad=("q",))
case("nanquantile_all", {"x": with_nan}, lambda x: x.nanquantile(0.9))
case("nanquantile_nearest", {"x": with_nan}, lambda x: x.nanquantile(0.5, dim=1, interpolation="nearest"))

# ---- nanmedian ----
# Not the all-NaN row: PyTorch's index there, and so where its gradient goes, is whatever
# std::nth_element leaves (Ember gives 0; test_order_stats.cpp's AllNanRows).
case("nanmedian_dim1_values", {"x": with_nan[:2]}, lambda x: x.nanmedian(dim=1)[0])
case("nanmedian_dim1_indices", {"x": with_nan[:2]}, lambda x: x.nanmedian(dim=1)[1], no_grad=("x",))
case("nanmedian_dim0_keepdim", {"x": with_nan}, lambda x: x.nanmedian(dim=0, keepdim=True)[0])
case("nanmedian_all", {"x": with_nan}, lambda x: x.nanmedian())
case("nanmedian_all_ties", {"x": ties}, lambda x: x.nanmedian())
case("nanmedian_ties_indices", {"x": ties}, lambda x: x.nanmedian(1)[1], no_grad=("x",))

# ---- mode ----
case("mode_values", {"x": ties}, lambda x: x.mode(1)[0])
case("mode_indices", {"x": ties}, lambda x: x.mode(1)[1], no_grad=("x",))
case("mode_dim0_keepdim", {"x": ties}, lambda x: x.mode(0, keepdim=True)[0])
case("mode_dim0_indices", {"x": ties}, lambda x: x.mode(0)[1], no_grad=("x",))
case("mode_int", {"x": ties.to(torch.int64) * 3 - 4}, lambda x: x.mode()[0])
case("mode_int_indices", {"x": ties.to(torch.int64) * 3 - 4}, lambda x: x.mode()[1])

# ---- view scatters ----
case("select_scatter", {"x": x35, "src": wave(5, phase=0.8)}, lambda x, src: x.select_scatter(src, 0, 1))
case("select_scatter_dim1", {"x": x35, "src": wave(3, phase=0.8)}, lambda x, src: torch.select_scatter(x, src, 1, -1))
case("diagonal_scatter", {"x": wave(4, 4), "src": wave(4, phase=0.2)}, lambda x, src: x.diagonal_scatter(src))
case("diagonal_scatter_offset_3d", {"x": wave(2, 3, 4), "src": wave(2, 2, phase=0.2)},
     lambda x, src: torch.diagonal_scatter(x, src, -1, 1, 2))

if __name__ == "__main__":
    write(os.path.join(FIXTURES, "order_stats.json"), CASES)
