"""PyTorch 1.13 references for the elementwise math of autograd/math.cpp (issue 33): trigonometric and
hyperbolic functions, exp2/expm1/log2/log10, sinc, logit, nan_to_num, rounding (floor, ceil, trunc, round
with and without decimals, frac), division with a rounding mode, atan2, hypot, logaddexp(2), xlogy,
float_power, lerp, addcmul and addcdiv, for tests/core/test_math.cpp.

Every case stores its inputs by name. Differentiable cases also store the gradient of (out * weight).sum()
for each floating input, in float32 and float64; the special-value and integer cases store the output only.
test_math.cpp mirrors each expression in C++ under the same name.

    /usr/bin/python3 scripts/gen_math_fixtures.py   # writes tests/fixtures/core/math.json
"""
import os

import torch

from fixture_common import FIXTURES, encode, f32, f64, wave, write

NAN, INF = float("nan"), float("inf")


def unit(dtype):
    """(3, 5) values in (-1, 1): the domain of asin, acos and atanh."""
    return wave(3, 5, dtype=dtype, scale=0.95)


def inputs(dtype):
    """Named inputs of the differentiable cases."""
    return {
        "x": unit(dtype),
        "big": wave(3, 5, dtype=dtype, scale=4.7, phase=0.2),  # rounding: many units, both signs
        "pos": wave(3, 5, dtype=dtype, scale=1.0, shift=2.5),  # acosh, log2, log10: [1.5, 3.5]
        "prob": wave(3, 5, dtype=dtype, scale=0.45, shift=0.5),  # logit: (0.05, 0.95)
        "wide": wave(3, 5, dtype=dtype, scale=0.6, shift=0.5),  # logit with eps: [-0.1, 1.1]
        "a": wave(3, 5, dtype=dtype, phase=0.4, scale=2.0),
        "b": wave(3, 5, dtype=dtype, phase=1.1, scale=1.5),
        "row": wave(1, 5, dtype=dtype, phase=2.3, scale=1.5),  # broadcast against (3, 5)
        "away": wave(3, 5, dtype=dtype, phase=0.7, scale=1.0, shift=2.0),  # divisors away from 0
        "w": wave(3, 5, dtype=dtype, phase=2.9, scale=0.9, shift=0.3),  # lerp weights, both sides of 0.5
    }


# name -> (input names, f(*inputs)). Output and the gradient of every input.
GRAD_CASES = {
    "tan": (["x"], lambda x: x.tan()),
    "asin": (["x"], lambda x: x.asin()),
    "acos": (["x"], lambda x: x.acos()),
    "atan": (["big"], lambda x: x.atan()),
    "sinh": (["a"], lambda x: x.sinh()),
    "cosh": (["a"], lambda x: x.cosh()),
    "asinh": (["big"], lambda x: x.asinh()),
    "acosh": (["pos"], lambda x: x.acosh()),
    "atanh": (["x"], lambda x: x.atanh()),
    "expm1": (["x"], lambda x: x.expm1()),
    "exp2": (["a"], lambda x: x.exp2()),
    "log2": (["pos"], lambda x: x.log2()),
    "log10": (["pos"], lambda x: x.log10()),
    "sinc": (["big"], lambda x: x.sinc()),
    "deg2rad": (["big"], lambda x: x.deg2rad()),
    "rad2deg": (["x"], lambda x: x.rad2deg()),
    "logit": (["prob"], lambda x: x.logit()),
    "logit_eps": (["wide"], lambda x: x.logit(0.2)),
    "floor": (["big"], lambda x: x.floor()),
    "ceil": (["big"], lambda x: x.ceil()),
    "trunc": (["big"], lambda x: x.trunc()),
    "round": (["big"], lambda x: x.round()),
    "round_decimals": (["big"], lambda x: x.round(decimals=2)),
    "round_negative_decimals": (["big"], lambda x: (x * 37).round(decimals=-1)),
    "frac": (["big"], lambda x: x.frac()),
    "div_floor": (["big", "b"], lambda a, b: torch.div(a, b, rounding_mode="floor")),
    "div_trunc": (["big", "b"], lambda a, b: torch.div(a, b, rounding_mode="trunc")),
    "atan2": (["a", "b"], lambda a, b: torch.atan2(a, b)),
    "atan2_broadcast": (["a", "row"], lambda a, b: torch.atan2(a, b)),
    "hypot": (["a", "row"], lambda a, b: torch.hypot(a, b)),
    "logaddexp": (["a", "b"], lambda a, b: torch.logaddexp(a, b)),
    "logaddexp2": (["a", "row"], lambda a, b: torch.logaddexp2(a, b)),
    "xlogy": (["a", "away"], lambda a, b: torch.xlogy(a, b)),
    "float_power": (["away", "b"], lambda a, b: torch.float_power(a, b)),
    "float_power_scalar": (["away"], lambda a: torch.float_power(a, 2.5)),
    "lerp_small_weight": (["a", "b"], lambda a, b: torch.lerp(a, b, 0.3)),
    "lerp_large_weight": (["a", "b"], lambda a, b: torch.lerp(a, b, 0.8)),
    "lerp_tensor_weight": (["a", "b", "w"], lambda a, b, w: torch.lerp(a, b, w)),
    "addcmul": (["a", "b", "row"], lambda s, t1, t2: torch.addcmul(s, t1, t2, value=0.5)),
    "addcdiv": (["a", "b", "away"], lambda s, t1, t2: torch.addcdiv(s, t1, t2, value=-2)),
}

SPECIAL = torch.tensor([1.5, NAN, -INF, 0.0, INF, -2.5, -0.0, 1e30])


# name -> {input name: tensor}, f(inputs): special values, output only (float32 and float64).
def value_cases(dtype):
    halves = torch.tensor([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.49999997, -0.0], dtype=dtype)
    num = torch.tensor([7.0, -7.0, 7.5, -0.5, 0.0, 1.0, -1.0, 7.0, -0.0], dtype=dtype)
    den = torch.tensor([2.0, 2.0, -2.0, 2.0, -3.0, 0.0, 0.0, 0.7, 5.0], dtype=dtype)
    lae_a = torch.tensor([INF, -INF, 1.0, NAN, -INF, 1e30], dtype=dtype)
    lae_b = torch.tensor([INF, -INF, 2.0, 1.0, 3.0, 1e30], dtype=dtype)
    xs = torch.tensor([0.0, 1.0, 0.0, 2.0, 0.0, -1.0], dtype=dtype)
    ys = torch.tensor([0.0, 2.0, NAN, INF, INF, 0.0], dtype=dtype)
    special = SPECIAL.to(dtype)
    return {
        "round_halves": ({"x": halves}, lambda i: i["x"].round()),
        "floor_halves": ({"x": halves}, lambda i: i["x"].floor()),
        "ceil_halves": ({"x": halves}, lambda i: i["x"].ceil()),
        "div_floor_special": ({"a": num, "b": den}, lambda i: torch.div(i["a"], i["b"], rounding_mode="floor")),
        "div_trunc_special": ({"a": num, "b": den}, lambda i: torch.div(i["a"], i["b"], rounding_mode="trunc")),
        "logaddexp_special": ({"a": lae_a, "b": lae_b}, lambda i: torch.logaddexp(i["a"], i["b"])),
        "logaddexp2_special": ({"a": lae_a, "b": lae_b}, lambda i: torch.logaddexp2(i["a"], i["b"])),
        "xlogy_special": ({"a": xs, "b": ys}, lambda i: torch.xlogy(i["a"], i["b"])),
        "nan_to_num_default": ({"x": special}, lambda i: i["x"].nan_to_num()),
        "nan_to_num_given": ({"x": special}, lambda i: i["x"].nan_to_num(2.0, 100.0, -100.0)),
        "sinc_special": ({"x": torch.tensor([0.0, 1.0, -2.0, 0.5, 1e-8], dtype=dtype)}, lambda i: i["x"].sinc()),
        "floor_divide_scalar": ({"a": num}, lambda i: torch.floor_divide(i["a"], 0.7)),
        "floor_special": ({"x": special}, lambda i: i["x"].floor()),
        "exp2_special": ({"x": special}, lambda i: i["x"].exp2()),
    }


L = torch.tensor([[7, -7, 7, -7, 0, 9], [2, -3, 10, -10, 5, -1]])
D = torch.tensor([[2, 2, -2, -2, 3, -4], [1, -1, 3, 3, -5, 1]])
U8 = torch.tensor([200, 7, 255, 0], dtype=torch.uint8)
BOOL = torch.tensor([True, False, True])

# name -> (inputs, f(inputs)): integer and bool inputs, output only.
INT_CASES = {
    "int_floor": ({"x": L}, lambda i: i["x"].floor()),
    "int_ceil": ({"x": L}, lambda i: i["x"].ceil()),
    "int_round": ({"x": L}, lambda i: i["x"].round()),
    "int_trunc": ({"x": L}, lambda i: i["x"].trunc()),
    "int_div_floor": ({"a": L, "b": D}, lambda i: torch.div(i["a"], i["b"], rounding_mode="floor")),
    "int_div_trunc": ({"a": L, "b": D}, lambda i: torch.div(i["a"], i["b"], rounding_mode="trunc")),
    "int_floor_divide_scalar": ({"a": L}, lambda i: torch.floor_divide(i["a"], -3)),
    "int_div_floor_by_float": ({"a": L}, lambda i: torch.div(i["a"], 2.5, rounding_mode="floor")),
    "uint8_floor_divide": ({"a": U8}, lambda i: torch.floor_divide(i["a"], 3)),
    "int_tan": ({"x": L}, lambda i: i["x"].tan()),
    "int_atan2": ({"a": L, "b": D}, lambda i: torch.atan2(i["a"], i["b"])),
    "int_deg2rad": ({"x": L}, lambda i: i["x"].deg2rad()),
    "int_exp2": ({"x": L}, lambda i: i["x"].exp2()),
    "int_xlogy": ({"a": L, "b": D.abs()}, lambda i: torch.xlogy(i["a"], i["b"])),
    "int_nan_to_num": ({"x": L}, lambda i: i["x"].nan_to_num()),
    "int_addcmul": ({"a": L, "b": D}, lambda i: torch.addcmul(i["a"], i["a"], i["b"], value=2)),
    "bool_log2": ({"x": BOOL}, lambda i: i["x"].log2()),
    "bool_sinc": ({"x": BOOL}, lambda i: i["x"].sinc()),
}


def grad_case(names, f, dtype):
    named = inputs(dtype)
    xs = [named[n].clone().requires_grad_() for n in names]
    out = f(*xs)
    weight = wave(*out.shape, dtype=out.dtype, phase=0.5)
    (out * weight).sum().backward()
    return {
        "inputs": {n: encode(x) for n, x in zip(names, xs)},
        "output": encode(out),
        "weight": encode(weight),
        "grads": {n: encode(x.grad) for n, x in zip(names, xs)},
    }


def value_case(named, f):
    return {"inputs": {n: encode(x) for n, x in named.items()}, "output": encode(f(named))}


def main():
    data = {}
    for dtype, tag in ((f32, "float32"), (f64, "float64")):
        for name, (names, f) in GRAD_CASES.items():
            data[f"{name}/{tag}"] = grad_case(names, f, dtype)
        for name, (named, f) in value_cases(dtype).items():
            data[f"{name}/{tag}"] = value_case(named, f)
    for name, (named, f) in INT_CASES.items():
        data[f"{name}/int"] = value_case(named, f)
    os.makedirs(os.path.join(FIXTURES, "core"), exist_ok=True)
    write(os.path.join(FIXTURES, "core", "math.json"), data)


if __name__ == "__main__":
    main()
