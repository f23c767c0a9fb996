#!/usr/bin/python3
"""Writes the PyTorch 1.13 references for tests/core/test_tensor_methods2.cpp.

Run with Debian's torch: /usr/bin/python3 scripts/gen_methods2_fixtures.py

tests/fixtures/methods2.json
    The scatter family (autograd/scatter.cpp): scatter with a src, a value and a reduce, scatter_,
    scatter_add_, scatter_reduce (sum, prod, mean, amax, amin, with and without include_self, repeated
    indices), index_add with alpha, index_copy, index_fill (scalar and 0-dim tensor values, negative
    and repeated indices), masked_scatter and put; then unfold, the in-place comparisons and logicals,
    tril_/triu_/clamp_min_/clamp_max_/fmod_/remainder_/swapaxes_, sum_to_size, aminmax, hardshrink,
    prelu, fill_diagonal_, type_as and multinomial. Each entry: named inputs, the output, fixed
    weights w and the gradients of (out * w).sum() where PyTorch has them. In-place forms run on a
    clone of the input.
"""
import os

import torch

from fixture_common import FIXTURES, f32, f64, record_case, wave, write

CASES = {}


def case(name, inputs, fn, no_grad=(), seed=None):
    record_case(CASES, name, inputs, fn, seed=seed, no_grad=no_grad)


def longs(values):
    return torch.tensor(values, dtype=torch.int64)


x34 = wave(3, 4)
idx23 = longs([[2, 0, 1], [1, 2, 0]])  # along dim 0 of x34: distinct per column
src24 = wave(2, 4, phase=1.3)  # larger than the index: PyTorch has no gradient for it
src23 = wave(2, 3, phase=1.3)

# ---- scatter ----
case("scatter_src", {"x": x34, "src": src23}, lambda x, src: x.scatter(0, idx23, src))
case("scatter_src_larger", {"x": x34, "src": src24}, lambda x, src: x.scatter(0, idx23, src), no_grad=("src",))
case("scatter_src_dim1", {"x": x34, "src": wave(3, 2, phase=0.5)},
     lambda x, src: x.scatter(1, longs([[3, 0], [1, 2], [0, 3]]), src))
case("scatter_value", {"x": x34}, lambda x: x.scatter(0, idx23, 1.5))
case("scatter_reduce_add", {"x": x34, "src": src24}, lambda x, src: x.scatter(0, idx23, src, reduce="add"),
     no_grad=("x", "src"))
case("scatter_reduce_multiply", {"x": x34, "src": src24},
     lambda x, src: x.scatter(0, idx23, src, reduce="multiply"), no_grad=("x", "src"))
case("scatter_value_add", {"x": x34}, lambda x: x.scatter(1, longs([[0, 0], [3, 1], [2, 2]]), 2.0, reduce="add"),
     no_grad=("x",))
case("scatter_value_multiply", {"x": x34},
     lambda x: x.scatter(1, longs([[0, 0], [3, 1], [2, 2]]), 2.0, reduce="multiply"), no_grad=("x",))
case("scatter_inplace", {"x": x34, "src": src23}, lambda x, src: x.clone().scatter_(0, idx23, src))
case("scatter_inplace_value", {"x": x34}, lambda x: x.clone().scatter_(-1, longs([[1], [0], [3]]), -2.0))
case("scatter_one_hot", {"labels": longs([2, 0, 4, 1])},
     lambda labels: torch.zeros(4, 5).scatter_(1, labels.unsqueeze(1), 1))
case("scatter_int", {"x": torch.arange(12).reshape(3, 4), "src": torch.arange(100, 108).reshape(2, 4)},
     lambda x, src: x.scatter(0, idx23, src))
case("scatter_add_inplace", {"x": x34, "src": wave(2, 3, phase=0.9)},
     lambda x, src: x.clone().scatter_add_(0, idx23, src))
case("scatter_repeated_index", {"x": wave(5), "src": wave(4, phase=2.0)},
     lambda x, src: x.scatter(0, longs([1, 3, 1, 3]), src), no_grad=("src",))

# ---- scatter_reduce: repeated indices, a zero in src for prod ----
sr_self = wave(2, 4, dtype=f64, shift=0.2)
sr_src = wave(2, 5, dtype=f64, phase=0.7, shift=0.1)
sr_src_zero = sr_src.clone()
sr_src_zero[0, 1] = 0.0
sr_index = longs([[0, 1, 0, 3, 1], [2, 2, 0, 2, 1]])
for reduce in ["sum", "prod", "mean", "amax", "amin"]:
    for include_self in [True, False]:
        sfx = "" if include_self else "_exclude_self"
        case(f"scatter_reduce_{reduce}{sfx}", {"x": sr_self, "src": sr_src},
             lambda x, src, r=reduce, i=include_self: x.scatter_reduce(1, sr_index, src, r, include_self=i))
case("scatter_reduce_prod_zero", {"x": sr_self, "src": sr_src_zero},
     lambda x, src: x.scatter_reduce(1, sr_index, src, "prod"))
case("scatter_reduce_mean_int", {"x": torch.arange(8).reshape(2, 4), "src": torch.arange(10).reshape(2, 5) * 3},
     lambda x, src: x.scatter_reduce(1, sr_index, src, "mean"))
case("scatter_reduce_amax_float32", {"x": wave(2, 4), "src": wave(2, 5, phase=0.3)},
     lambda x, src: x.scatter_reduce(1, sr_index, src, "amax", include_self=False))
case("scatter_reduce_inplace", {"x": sr_self, "src": sr_src},
     lambda x, src: x.clone().scatter_reduce_(1, sr_index, src, "sum"))

# ---- index_add, index_copy, index_fill ----
rows = longs([2, 0, 2])
case("index_add_alpha", {"x": x34, "src": wave(3, 4, phase=0.2)}, lambda x, src: x.index_add(0, rows, src, alpha=2.5))
case("index_add_inplace", {"x": x34, "src": wave(3, 3, phase=0.2)},
     lambda x, src: x.clone().index_add_(1, longs([3, 1, 3]), src, alpha=-1))
case("index_copy", {"x": x34, "src": wave(2, 3, phase=0.6).t()},
     lambda x, src: x.index_copy(1, longs([3, 0]), src))
case("index_copy_inplace", {"x": x34, "src": wave(2, 4, phase=0.6)},
     lambda x, src: x.clone().index_copy_(0, longs([2, 0]), src))
case("index_fill_scalar", {"x": x34}, lambda x: x.index_fill(1, longs([1, -1, 1]), -3.0))
case("index_fill_tensor", {"x": x34, "value": torch.tensor(0.75)},
     lambda x, value: x.index_fill(0, longs([0, 2, 0]), value))
case("index_fill_inplace", {"x": x34}, lambda x: x.clone().index_fill_(0, longs([1]), 9.0))
case("index_fill_int", {"x": torch.arange(12).reshape(3, 4)}, lambda x: x.index_fill(1, longs([0, 2]), 7))

# ---- masked_scatter, put ----
mask34 = wave(3, 4, phase=0.8) > 0
case("masked_scatter", {"x": x34, "src": wave(3, 5, phase=1.1)}, lambda x, src: x.masked_scatter(mask34, src))
case("masked_scatter_broadcast", {"x": x34, "src": wave(8, phase=1.1)},
     lambda x, src: x.clone().masked_scatter_(torch.tensor([True, False, True, False]), src))
case("put", {"x": x34, "src": wave(2, 2, phase=0.4)}, lambda x, src: x.put(longs([[0, 5], [-1, 7]]), src))
case("put_accumulate", {"x": x34, "src": wave(4, phase=0.4)},
     lambda x, src: x.clone().put_(longs([3, -9, 3, 11]), src, accumulate=True))

# ---- unfold ----
case("unfold", {"x": wave(2, 7)}, lambda x: x.unfold(1, 3, 2))
case("unfold_overlapping", {"x": wave(2, 6)}, lambda x: x.unfold(-1, 4, 1))
case("unfold_dim0", {"x": wave(5, 2)}, lambda x: x.unfold(0, 2, 3))
case("unfold_of_transpose", {"x": wave(3, 5)}, lambda x: x.t().unfold(0, 2, 2))

# ---- in-place comparisons and logicals ----
a34, b34 = wave(3, 4, scale=2).round(), wave(3, 4, phase=0.5, scale=2).round()
for op in ["eq", "ne", "lt", "le", "gt", "ge", "greater", "greater_equal", "less", "less_equal", "not_equal"]:
    case(f"{op}_", {"a": a34, "b": b34}, lambda a, b, op=op: getattr(a.clone(), op + "_")(b), no_grad=("a", "b"))
    case(f"{op}_scalar", {"a": a34}, lambda a, op=op: getattr(a.clone(), op + "_")(0.0), no_grad=("a",))
case("ge_int", {"a": torch.arange(-3, 3)}, lambda a: a.clone().ge_(0))
case("lt_broadcast", {"a": a34, "b": b34[0]}, lambda a, b: a.clone().lt_(b), no_grad=("a", "b"))
for op in ["logical_and", "logical_or", "logical_xor"]:
    case(f"{op}_", {"a": a34, "b": b34}, lambda a, b, op=op: getattr(a.clone(), op + "_")(b), no_grad=("a", "b"))
case("logical_not_", {"a": a34}, lambda a: a.clone().logical_not_(), no_grad=("a",))
case("logical_and_int", {"a": torch.arange(-2, 4), "b": torch.tensor([1, 0, 1, 0, 1, 1])},
     lambda a, b: a.clone().logical_and_(b))

# ---- other in-place forms ----
case("tril_", {"x": x34}, lambda x: x.clone().tril_(1))
case("triu_", {"x": x34}, lambda x: x.clone().triu_(-1))
case("clamp_min_", {"x": x34}, lambda x: x.clone().clamp_min_(0.1))
case("clamp_max_", {"x": x34}, lambda x: x.clone().clamp_max_(-0.2))
case("fmod_", {"x": x34 * 5}, lambda x: x.clone().fmod_(1.5))
case("fmod_tensor", {"x": x34 * 5, "y": wave(4, phase=0.3, shift=2)}, lambda x, y: x.clone().fmod_(y),
     no_grad=("y",))
case("remainder_", {"x": x34 * 5}, lambda x: x.clone().remainder_(-1.5))
case("remainder_tensor", {"x": x34 * 5, "y": wave(4, phase=0.3, shift=2)},
     lambda x, y: x.clone().remainder_(y), no_grad=("y",))
case("swapaxes_", {"x": wave(2, 3, 4)}, lambda x: x.clone().swapaxes_(0, 2))
case("swapdims_", {"x": wave(2, 3, 4)}, lambda x: x.clone().swapdims_(1, -1))

# ---- small ones ----
case("sum_to_size", {"x": wave(2, 3, 4)}, lambda x: x.sum_to_size(3, 1))
case("sum_to_size_keep", {"x": wave(2, 3, 4)}, lambda x: x.sum_to_size(2, 1, 4))
case("aminmax_min", {"x": x34}, lambda x: x.aminmax(dim=1)[0], no_grad=("x",))
case("aminmax_max_keepdim", {"x": x34}, lambda x: x.aminmax(dim=0, keepdim=True)[1], no_grad=("x",))
case("aminmax_all_min", {"x": x34}, lambda x: x.aminmax()[0], no_grad=("x",))
case("aminmax_all_max", {"x": x34}, lambda x: x.aminmax()[1], no_grad=("x",))
case("hardshrink", {"x": x34}, lambda x: x.hardshrink(0.4))
case("hardshrink_default", {"x": x34}, lambda x: x.hardshrink())
case("prelu", {"x": wave(2, 3, 2), "w": torch.tensor([0.25, -0.5, 2.0])}, lambda x, w: x.prelu(w))
case("fill_diagonal_", {"x": x34}, lambda x: x.clone().fill_diagonal_(7.0))
case("fill_diagonal_tall_wrap", {"x": wave(7, 3)}, lambda x: x.clone().fill_diagonal_(-1.0, wrap=True))
case("fill_diagonal_tall", {"x": wave(7, 3)}, lambda x: x.clone().fill_diagonal_(-1.0))
case("fill_diagonal_3d", {"x": wave(3, 3, 3)}, lambda x: x.clone().fill_diagonal_(5.0))
case("type_as", {"x": x34, "other": torch.zeros(1, dtype=f64)}, lambda x, other: x.type_as(other),
     no_grad=("other",))
case("multinomial", {"p": torch.tensor([[0.1, 0.5, 0.2, 0.2], [0.7, 0.1, 0.1, 0.1]])},
     lambda p: p.multinomial(3), seed=7, no_grad=("p",))
case("multinomial_replacement", {"p": torch.tensor([0.1, 0.5, 0.2, 0.2])},
     lambda p: p.multinomial(6, replacement=True), seed=11, no_grad=("p",))

if __name__ == "__main__":
    write(os.path.join(FIXTURES, "methods2.json"), CASES)
