"""PyTorch 1.13 references for the tensor methods of autograd/sort.cpp and autograd/shape.cpp (flip, roll,
repeat, sort, argsort, topk, cumsum, cumprod, var_mean, std_mean, isnan/isinf/isfinite, unique,
unique_consecutive), for tests/core/test_tensor_methods.cpp. Differentiable cases record the output and the
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
}

ZEROED = {"cumprod_zeros"}

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
}


def grad_case(name, f, dtype):
    x = wave(3, 5, dtype=dtype)
    x = (with_zeros(x) if name in ZEROED else x).requires_grad_()
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
