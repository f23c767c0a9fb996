"""PyTorch 1.13 references for the tensor methods of autograd/sort.cpp and autograd/shape.cpp (flip, roll,
repeat, sort, argsort, topk, cumsum, cumprod, var_mean, std_mean, isnan/isinf/isfinite, unique,
unique_consecutive), of the reductions prod, nansum, nanmean, count_nonzero, median and kthvalue, of
nonzero and masked_select, of outer, dot and mv, and of autograd/arrange.cpp (movedim, tile, diagonal,
diag, trace, tensor_split, diff, hstack/vstack/dstack/column_stack, meshgrid), for
tests/core/test_tensor_methods.cpp. Differentiable cases record the output and the
gradient of (out * weight).sum() in float32 and float64; index-valued cases record the output only.
test_tensor_methods.cpp mirrors each expression in C++ under the same name.

    /usr/bin/python3 scripts/gen_tensor_methods_fixtures.py   # writes tests/fixtures/core/tensor_methods.json
"""
import os

import torch

from fixture_common import FIXTURES, encode, f32, f64, wave, write


def with_zeros(x):
    """x (3, 5) with zeros at (0, 1), (1, 3), (1, 4) and (2, 0): cumprod's gradient at and past a row's first zero."""
    for i, j in ((0, 1), (1, 3), (1, 4), (2, 0)):
        x[i, j] = 0
    return x


def ties(dtype):
    """(3, 6) with repeated values in each row, so a sort's indices show its order among equals."""
    return torch.tensor([[2, 1, 2, 0, 1, 2], [5, 5, 5, 5, 5, 5], [-1, 3, 3, -1, 0, 3]], dtype=dtype)


# name -> f(x); x is wave(3, 5), with zeros for the names in ZEROED. Output and gradient.
GRAD_CASES = {
    "flip_both": lambda x: x.flip([0, 1]),
    "flip_last": lambda x: x.flip([-1]),
    "roll_one": lambda x: x.roll(2, 1),
    "roll_two": lambda x: x.roll((1, -7), (0, 1)),
    "roll_flat": lambda x: x.roll(7),
    "repeat": lambda x: x.repeat(2, 1, 3),
    "sort_values": lambda x: x.sort(1)[0],
    "sort_descending_dim0": lambda x: x.sort(0, descending=True)[0],
    "topk_values": lambda x: x.topk(3, 1)[0],
    "topk_smallest_dim0": lambda x: x.topk(2, 0, largest=False)[0],
    "cumsum_dim1": lambda x: x.cumsum(1),
    "cumsum_dim0": lambda x: x.cumsum(0),
    "cumprod_dim1": lambda x: x.cumprod(1),
    "cumprod_zeros": lambda x: x.cumprod(1),
    "var_mean": lambda x: torch.stack(torch.var_mean(x, 1)),
    "std_mean": lambda x: torch.cat(torch.std_mean(x, [0], unbiased=False, keepdim=True)),
    "prod_all": lambda x: x.prod(),
    "prod_dim1": lambda x: x.prod(1),
    "prod_keepdim_dim0": lambda x: x.prod(0, keepdim=True),
    "prod_zeros_dim1": lambda x: x.prod(1),
    "prod_zeros_all": lambda x: x.prod(),
    "prod_one_zero_all": lambda x: x[0].prod(),
    "nansum_dim1": lambda x: x.nansum(1),
    "nanmean_dim0": lambda x: x.nanmean(0),
    "median_all": lambda x: x.median(),
    "median_dim1": lambda x: x.median(1)[0],
    "median_dim0_keepdim": lambda x: x.median(0, keepdim=True)[0],
    "kthvalue_dim0": lambda x: x.kthvalue(2, 0)[0],
    "kthvalue_keepdim": lambda x: x.kthvalue(4, 1, True)[0],
    "masked_select": lambda x: x.masked_select(x > 0),
    "masked_select_broadcast": lambda x: x.masked_select(torch.tensor([True, False, True, True, False])),
    "outer": lambda x: torch.outer(x[0], x[1]),
    "dot": lambda x: torch.dot(x[0], x[2]),
    "mv": lambda x: x.mv(x[1]),
    "movedim": lambda x: x.reshape(1, 3, 5).movedim((0, 1), (2, 0)),
    "tile": lambda x: x.tile((2,)),
    "tile_more_dims": lambda x: x.tile((2, 1, 2)),
    "diagonal": lambda x: x.diagonal(1),
    "diagonal_negative": lambda x: x.diagonal(-1),
    "diagonal_3d": lambda x: x.reshape(3, 5, 1).expand(3, 5, 4).diagonal(0, 1, 2),
    "diag_matrix": lambda x: torch.diag(x[0], 1),
    "diag_of_matrix": lambda x: x.diag(-1),
    "trace": lambda x: x.trace(),
    "tensor_split": lambda x: torch.cat([p * (i + 1) for i, p in enumerate(x.tensor_split(2, 1))], 1),
    "tensor_split_indices": lambda x: torch.cat([p * (i + 1) for i, p in enumerate(x.tensor_split([1, 4], 1))], 1),
    "diff": lambda x: x.diff(),
    "diff_twice_dim0": lambda x: x.diff(2, 0),
    "diff_prepend_append": lambda x: x.diff(1, 1, prepend=x[:, :1] * 2, append=x[:, -1:]),
    "hstack": lambda x: torch.hstack([x, x * 2]),
    "vstack": lambda x: torch.vstack([x[0], x[1] * 2, x]),
    "dstack": lambda x: torch.dstack([x, x * 2]),
    "column_stack": lambda x: torch.column_stack([x[0], x[1] * 2]),
    "meshgrid_ij": lambda x: torch.stack(torch.meshgrid(x[0], x[1, :3] * 2, indexing="ij")),
    "meshgrid_xy": lambda x: torch.stack(torch.meshgrid(x[0], x[1, :3] * 2, indexing="xy")),
}

ZEROED = {"cumprod_zeros", "prod_zeros_dim1", "prod_zeros_all", "prod_one_zero_all"}
NANNED = {"nansum_dim1", "nanmean_dim0"}


def with_nans(x):
    """x (3, 5) with NaN at (0, 2), (1, 0), (1, 1) and (2, 4)."""
    for i, j in ((0, 2), (1, 0), (1, 1), (2, 4)):
        x[i, j] = float("nan")
    return x

NAN = float("nan")
INF = float("inf")
SPECIAL = torch.tensor([[1.0, NAN, -INF, 0.0], [INF, -2.5, NAN, 3.0]])

# name -> f(dtype) -> tensor: index-valued and bool results, output only.
VALUE_CASES = {
    "sort_indices_ties": lambda dt: ties(dt).sort(1)[1],
    "sort_indices_ties_descending": lambda dt: ties(dt).sort(1, descending=True)[1],
    "argsort_dim0": lambda dt: ties(dt).argsort(0),
    "topk_indices": lambda dt: wave(4, 6, dtype=dt).topk(4, 1)[1],
    "sort_nan_values": lambda dt: SPECIAL.to(dt).sort(1)[0],
    "sort_nan_indices_descending": lambda dt: SPECIAL.to(dt).sort(1, descending=True)[1],
    "isnan": lambda dt: SPECIAL.to(dt).isnan(),
    "isinf": lambda dt: SPECIAL.to(dt).isinf(),
    "isfinite": lambda dt: SPECIAL.to(dt).isfinite(),
    "unique_values": lambda dt: torch._unique2(ties(dt), return_inverse=True, return_counts=True)[0],
    "unique_inverse": lambda dt: torch._unique2(ties(dt), return_inverse=True, return_counts=True)[1],
    "unique_counts": lambda dt: torch._unique2(ties(dt), return_inverse=True, return_counts=True)[2],
    "unique_consecutive_values": lambda dt: torch.unique_consecutive(ties(dt), True, True)[0],
    "unique_consecutive_inverse": lambda dt: torch.unique_consecutive(ties(dt), True, True)[1],
    "unique_consecutive_counts": lambda dt: torch.unique_consecutive(ties(dt), True, True)[2],
    "nonzero": lambda dt: ties(dt).nonzero(),
    "argwhere": lambda dt: torch.argwhere(ties(dt) - 1),
    "count_nonzero_dim1": lambda dt: ties(dt).count_nonzero(1),
    "median_nan_values": lambda dt: SPECIAL.to(dt).median(1)[0],
    "median_nan_indices": lambda dt: SPECIAL.to(dt).median(1)[1],
    "median_nan_all": lambda dt: SPECIAL.to(dt).median(),
    "kthvalue_nan": lambda dt: SPECIAL.to(dt).kthvalue(3, 1)[0],
    "nansum_special": lambda dt: SPECIAL.to(dt).nansum(1),
    "nanmean_special": lambda dt: SPECIAL.to(dt).nanmean(0),
    "prod_special": lambda dt: SPECIAL.to(dt).prod(1),
}

# Integer inputs: name -> output.
L = torch.tensor([[3, -1, 4, 1], [5, 9, -2, 6]])
INT_CASES = {
    "int_cumsum": L.cumsum(1),
    "int_cumprod": L.cumprod(0),
    "bool_cumsum": (L > 2).cumsum(1),
    "int_sort_descending": L.sort(1, descending=True)[0],
    "int_flip": L.flip([0]),
    "int_repeat": L.repeat(1, 2),
    "int_isfinite": L.isfinite(),
    "int_unique": torch._unique2(L)[0],
    "float_cumsum_to_float64": wave(2, 3).cumsum(1, dtype=torch.float64),
    "int_prod": L.prod(1),
    "bool_prod": (L > -2).prod(),
    "int_prod_to_float64": L.prod(0, dtype=torch.float64),
    "int_trace": L[:, :2].trace(),
    "int_diag": L[0].diag(),
    "int_count_nonzero": (L - 1).count_nonzero(),
    "int_diff": L.diff(),
    "bool_diff": (L > 2).diff(),
    "int_median": L.median(1)[0],
    "int_kthvalue": L.kthvalue(3, 1)[1],
    "int_nonzero_1d": (L[0] - 1).nonzero(),
    "int_outer": torch.outer(L[0], L[1]),
    "int_dot": torch.dot(L[0], L[1]),
}


def grad_case(name, f, dtype):
    x = wave(3, 5, dtype=dtype)
    x = with_zeros(x) if name in ZEROED else x
    x = (with_nans(x) if name in NANNED else x).requires_grad_()
    out = f(x)
    weight = wave(*out.shape, dtype=dtype, phase=0.5)
    (out * weight).sum().backward()
    return {"inputs": {"x": encode(x)}, "output": encode(out), "weight": encode(weight), "grads": {"x": encode(x.grad)}}


def main():
    data = {}
    for dtype, tag in ((f32, "float32"), (f64, "float64")):
        for name, f in GRAD_CASES.items():
            data[f"{name}/{tag}"] = grad_case(name, f, dtype)
        for name, f in VALUE_CASES.items():
            data[f"{name}/{tag}"] = {"inputs": {}, "output": encode(f(dtype))}
    for name, out in INT_CASES.items():
        data[f"{name}/int64"] = {"inputs": {}, "output": encode(out)}
    os.makedirs(os.path.join(FIXTURES, "core"), exist_ok=True)
    write(os.path.join(FIXTURES, "core", "tensor_methods.json"), data)


if __name__ == "__main__":
    main()
