#!/usr/bin/python3
"""Writes the PyTorch 1.13 references for tests/core/test_aten_special.cpp (autograd/aten_special.cpp).

Run with Debian's torch: /usr/bin/python3 scripts/gen_aten_special_fixtures.py

tests/fixtures/aten_special.json
    lgamma, digamma, polygamma (n = 0..4), erfinv and mvlgamma (p = 1, 2, 3, 5) in float32 and
    float64: named inputs, the output, fixed weights w and the gradients of (out * w).sum(); then
    their poles and edges (+-0, negative integers, +-inf, NaN, huge and tiny values) without
    gradients, integer and bool inputs (promoted to the default dtype), and mvlgamma below its
    domain (PyTorch 1.13 does not check it). Then bitwise_and/or/xor (tensor-tensor, tensor-scalar,
    scalar-tensor; bool, int8/uint8/int32/int64, promotion and 0-dim operands), bitwise_not, the
    shifts (counts beyond the width too), gcd, lcm, frexp (mantissa with gradient, exponent), ldexp,
    nextafter and copysign (signed zeros; gradients). Cases named error_* store PyTorch's message
    instead of an output.
"""
import os

import torch

from fixture_common import FIXTURES, encode, f32, f64, record_case, wave, write

CASES = {}
inf, nan = float("inf"), float("nan")


def case(name, inputs, fn, no_grad=()):
    record_case(CASES, name, inputs, fn, no_grad=no_grad)


def error(name, inputs, fn):
    """The first line of PyTorch's message for fn(**inputs), which must fail."""
    assert name not in CASES, name
    try:
        fn(**inputs)
    except (RuntimeError, TypeError) as e:
        message = str(e).splitlines()[0]
    else:
        raise AssertionError(f"{name}: PyTorch did not fail")
    CASES[name] = {"inputs": {k: encode(v) for k, v in inputs.items()}, "error": message}


def t(values, dtype):
    return torch.tensor(values, dtype=dtype)


# Away from the poles, with a gradient (d/dx is the next polygamma, or erfinv's exp formula).
moderate = [-2.7, -1.3, -0.4, 0.2, 0.9, 1.4616, 2.5, 4.1, 7.3, 12.5, 31.0, 150.0]
# Poles and edges: no gradient.
edges = [0.0, -0.0, -1.0, -2.0, inf, -inf, nan, 1e-30, 1e10, -1e-8, 1e20, -3.5, 10.0, 6.5]
unit = [-0.999, -0.9, -0.5, -0.1, 0.0, 0.3, 0.7, 0.95, 0.9999]
# (Not nearer 1 than 0.9999: PyTorch's erf-based Newton steps are off by 8e-12 at 0.999999, where
# Ember's erfc-based steps are not; the test compares that point with mpmath.)
unit_edges = [1.0, -1.0, 1.5, -2.0, 0.0, -0.0, nan, 1e-20, -0.9999, -inf]

for dtype, sfx in [(f32, ""), (f64, "_f64")]:
    x = t(moderate, dtype)
    case("lgamma" + sfx, {"x": x}, lambda x: torch.lgamma(x))
    case("digamma" + sfx, {"x": x}, lambda x: torch.digamma(x))
    for n in range(5):
        case(f"polygamma_{n}" + sfx, {"x": x}, lambda x, n=n: torch.polygamma(n, x))
    case("lgamma_2d" + sfx, {"x": wave(3, 4, dtype=dtype, scale=3.0, shift=3.5)}, lambda x: torch.lgamma(x))
    case("digamma_2d" + sfx, {"x": wave(3, 4, dtype=dtype, scale=3.0, shift=3.5)}, lambda x: torch.digamma(x))
    case("erfinv" + sfx, {"x": t(unit, dtype)}, lambda x: torch.erfinv(x))
    case("erfinv_2d" + sfx, {"x": wave(2, 5, dtype=dtype, scale=0.98)}, lambda x: torch.erfinv(x))
    for p in [1, 2, 3, 5]:
        case(f"mvlgamma_p{p}" + sfx, {"x": wave(2, 3, dtype=dtype, scale=2.0, shift=p / 2 + 2.1)},
             lambda x, p=p: torch.mvlgamma(x, p))
    e = t(edges, dtype)
    case("lgamma_edges" + sfx, {"x": e}, lambda x: torch.lgamma(x), no_grad=("x",))
    case("digamma_edges" + sfx, {"x": e}, lambda x: torch.digamma(x), no_grad=("x",))
    for n in range(5):
        case(f"polygamma_{n}_edges" + sfx, {"x": e}, lambda x, n=n: torch.polygamma(n, x), no_grad=("x",))
    case("erfinv_edges" + sfx, {"x": t(unit_edges, dtype)}, lambda x: torch.erfinv(x), no_grad=("x",))
    # PyTorch 1.13 has no domain check: below (p-1)/2 it sums lgamma of negative arguments.
    case("mvlgamma_below_domain" + sfx, {"x": t([0.2, -0.7, 3.0], dtype)}, lambda x: torch.mvlgamma(x, 2),
         no_grad=("x",))
    # ---- floating-point bit functions ----
    fx = t([8.0, 0.3, -0.3, 5.5, -1e-3, 1e30, 1.0, 0.75], dtype)
    case("frexp_mantissa" + sfx, {"x": fx}, lambda x: torch.frexp(x)[0])
    case("frexp_exponent" + sfx, {"x": fx}, lambda x: torch.frexp(x)[1], no_grad=("x",))
    case("frexp_edges" + sfx, {"x": t([0.0, -0.0, inf, -inf, nan, 1e-40], dtype)}, lambda x: torch.frexp(x)[0],
         no_grad=("x",))
    case("frexp_edges_exponent" + sfx, {"x": t([0.0, -0.0, inf, -inf, nan, 1e-40], dtype)},
         lambda x: torch.frexp(x)[1], no_grad=("x",))
    case("ldexp" + sfx, {"x": wave(2, 3, dtype=dtype), "e": t([[3, -2, 0], [1, 10, -5]], torch.int64)},
         lambda x, e: torch.ldexp(x, e))
    case("ldexp_float_exponent" + sfx, {"x": wave(2, 3, dtype=dtype), "e": wave(3, dtype=dtype, phase=0.5, scale=3)},
         lambda x, e: torch.ldexp(x, e))
    case("nextafter" + sfx,
         {"a": t([1.0, 0.0, -2.0, 1.0, inf, 3.0], dtype), "b": t([2.0, -1.0, 0.0, 1.0, 0.0, nan], dtype)},
         lambda a, b: torch.nextafter(a, b), no_grad=("a", "b"))
    case("copysign" + sfx, {"a": t([[0.0, 2.0, -3.0], [1.5, -0.5, 4.0]], dtype), "b": t([-1.0, 0.0, -0.0], dtype)},
         lambda a, b: torch.copysign(a, b))
    case("copysign_scalar" + sfx, {"a": wave(2, 3, dtype=dtype)}, lambda a: torch.copysign(a, -1.0))

# ---- integer and bool inputs: promoted to the default dtype ----
ints = t([1, 2, 3, 7], torch.int64)
case("lgamma_int", {"x": ints}, lambda x: torch.lgamma(x))
case("digamma_bool", {"x": t([True, False], torch.bool)}, lambda x: torch.digamma(x))
case("polygamma_2_int", {"x": ints}, lambda x: torch.polygamma(2, x))
case("erfinv_int", {"x": t([0, 1, -1, 2], torch.int32)}, lambda x: torch.erfinv(x))
case("mvlgamma_int", {"x": t([2, 3, 5], torch.int64)}, lambda x: torch.mvlgamma(x, 3))
case("nextafter_mixed", {"a": t([1.0, 2.0], f32), "b": t([2.0, 0.0], f64)}, lambda a, b: torch.nextafter(a, b),
     no_grad=("a", "b"))
case("copysign_int", {"a": t([1, -2, 3], torch.int64), "b": t([-1, 1, 0], torch.int64)},
     lambda a, b: torch.copysign(a, b))
case("ldexp_int", {"x": t([1, 2, -3], torch.int64), "e": t([3, 4, -1], torch.int64)}, lambda x, e: torch.ldexp(x, e))

# ---- integer bit functions ----
i64 = t([[-12, 0, 7, 255], [5, -1, 1 << 40, -(1 << 62)]], torch.int64)
j64 = t([18, 5, -21, 0], torch.int64)
i8 = t([-128, -1, 5, 127], torch.int8)
u8 = t([3, 200, 255, 0], torch.uint8)
b1 = t([True, False, True, False], torch.bool)
b2 = t([True, True, False, False], torch.bool)
for op in ["and", "or", "xor"]:
    f = getattr(torch, "bitwise_" + op)
    case(f"bitwise_{op}", {"a": i64, "b": j64}, lambda a, b, f=f: f(a, b))
    case(f"bitwise_{op}_int8_uint8", {"a": i8, "b": u8}, lambda a, b, f=f: f(a, b))
    case(f"bitwise_{op}_bool", {"a": b1, "b": b2}, lambda a, b, f=f: f(a, b))
    case(f"bitwise_{op}_scalar", {"a": i8}, lambda a, f=f: f(a, 300))
    case(f"bitwise_{op}_scalar_first", {"b": u8}, lambda b, f=f: f(6, b))
    case(f"bitwise_{op}_bool_int_scalar", {"a": b1}, lambda a, f=f: f(a, 5))
    case(f"bitwise_{op}_bool_scalar", {"a": b1}, lambda a, f=f: f(a, True))
    case(f"bitwise_{op}_zero_dim", {"a": t([1, 6, -3], torch.int32), "b": torch.tensor((1 << 40) + 5)},
         lambda a, b, f=f: f(a, b))
for name, x in [("int64", i64), ("int8", i8), ("uint8", u8), ("bool", b1)]:
    case(f"bitwise_not_{name}", {"x": x}, lambda x: torch.bitwise_not(x))
counts64 = t([[1, 0, 3, 63], [64, 70, -1, 2]], torch.int64)
counts8 = t([1, 8, -1, 70], torch.int8)
case("bitwise_left_shift", {"a": i64, "b": counts64}, lambda a, b: torch.bitwise_left_shift(a, b))
case("bitwise_right_shift", {"a": i64, "b": counts64}, lambda a, b: torch.bitwise_right_shift(a, b))
case("bitwise_left_shift_int8", {"a": i8, "b": counts8}, lambda a, b: torch.bitwise_left_shift(a, b))
case("bitwise_right_shift_int8", {"a": i8, "b": counts8}, lambda a, b: torch.bitwise_right_shift(a, b))
case("bitwise_left_shift_int32", {"a": t([5, -5, 1, 3], torch.int32), "b": t([40, 31, 32, 2], torch.int32)},
     lambda a, b: torch.bitwise_left_shift(a, b))
case("bitwise_right_shift_uint8", {"a": u8, "b": t([8, 1, 9, 0], torch.uint8)},
     lambda a, b: torch.bitwise_right_shift(a, b))
case("bitwise_left_shift_scalar", {"a": i64}, lambda a: torch.bitwise_left_shift(a, 3))
case("bitwise_right_shift_scalar_first", {"b": t([0, 1, 4], torch.int64)}, lambda b: torch.bitwise_right_shift(-64, b))
case("bitwise_left_shift_int8_by_int64", {"a": i8, "b": t([1, 2, 3, 4], torch.int64)},
     lambda a, b: torch.bitwise_left_shift(a, b))
g_a = t([[-12, 0, 7, 0, 17], [48, -36, 1, 9, 1 << 40]], torch.int64)
g_b = t([18, 5, -21, 0, 3 << 20], torch.int64)
case("gcd", {"a": g_a, "b": g_b}, lambda a, b: torch.gcd(a, b))
case("lcm", {"a": g_a, "b": g_b}, lambda a, b: torch.lcm(a, b))
case("gcd_int16_int32", {"a": t([12, -9, 0], torch.int16), "b": t([8, 6, -4], torch.int32)},
     lambda a, b: torch.gcd(a, b))
case("lcm_int8", {"a": t([4, -6, 0, 15], torch.int8), "b": t([6, 4, 3, 10], torch.int8)},
     lambda a, b: torch.lcm(a, b))

# ---- bad input: PyTorch's message ----
fl = t([1.0, 2.0], f32)
il = t([1, 2], torch.int64)
bl = t([True, False], torch.bool)
error("error_bitwise_and_float", {"a": fl, "b": fl}, lambda a, b: torch.bitwise_and(a, b))
error("error_bitwise_or_int_float", {"a": il, "b": fl}, lambda a, b: torch.bitwise_or(a, b))
error("error_bitwise_xor_float_scalar", {"a": il}, lambda a: torch.bitwise_xor(a, 1.5))
error("error_bitwise_and_double", {"a": fl.double(), "b": il}, lambda a, b: torch.bitwise_and(a, b))
error("error_bitwise_not_float", {"a": fl}, lambda a: torch.bitwise_not(a))
error("error_left_shift_float", {"a": fl}, lambda a: torch.bitwise_left_shift(a, 2))
error("error_left_shift_bool", {"a": bl, "b": bl}, lambda a, b: torch.bitwise_left_shift(a, b))
error("error_right_shift_float", {"a": fl, "b": il}, lambda a, b: torch.bitwise_right_shift(a, b))
error("error_gcd_float", {"a": fl, "b": fl}, lambda a, b: torch.gcd(a, b))
error("error_gcd_bool", {"a": bl, "b": bl}, lambda a, b: torch.gcd(a, b))
error("error_lcm_float", {"a": il, "b": fl}, lambda a, b: torch.lcm(a, b))
error("error_frexp_int", {"a": il}, lambda a: torch.frexp(a))
error("error_nextafter_int", {"a": il, "b": il}, lambda a, b: torch.nextafter(a, b))
error("error_polygamma_negative", {"a": fl}, lambda a: torch.polygamma(-1, a))
error("error_mvlgamma_bool", {"a": bl}, lambda a: torch.mvlgamma(a, 2))
error("error_mvlgamma_p0", {"a": fl}, lambda a: torch.mvlgamma(a, 0))

if __name__ == "__main__":
    write(os.path.join(FIXTURES, "aten_special.json"), CASES)
