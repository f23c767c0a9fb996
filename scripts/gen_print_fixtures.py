#!/usr/bin/env python3
"""Writes tests/fixtures/print.json: str(tensor) from PyTorch for the cases tests/core/test_print.cpp rebuilds.

Run with Debian's torch (1.13): /usr/bin/python3 scripts/gen_print_fixtures.py
Each case stores its inputs (shape, dtype, values; nan/inf as strings), the print options and the
exact text. The C++ test rebuilds the inputs, applies the same op (by case name) and compares.
Not a test of PyTorch itself: only its printer's output is recorded.
"""
import json
import math
import os

import torch

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "print.json")


def encode_value(v):
    if isinstance(v, bool):
        return v
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    return v


def encode(t):
    flat = t.detach().reshape(-1).tolist()
    return {
        "shape": list(t.shape),
        "dtype": str(t.dtype).replace("torch.", ""),
        "values": [encode_value(v) for v in flat],
        "requires_grad": t.requires_grad,
    }


def wave(*shape, dtype=torch.float32, scale=1.0):
    """Deterministic, irregular values: sin of a ramp, no RNG."""
    n = math.prod(shape)
    return (torch.arange(n, dtype=torch.float64).mul(0.731).add(0.3).sin() * scale).to(dtype).reshape(shape)


CASES = {}


def case(name, inputs, fn=lambda x: x, options=None):
    options = options or {}
    torch.set_printoptions(profile="default")
    torch.set_printoptions(**options)
    text = str(fn(*inputs))
    torch.set_printoptions(profile="default")
    CASES[name] = {"inputs": [encode(t) for t in inputs], "options": options, "str": text}


f32 = torch.float32
f64 = torch.float64
nan, inf = float("nan"), float("inf")

case("matrix_1x3", [torch.tensor([[0.4419, 0.6515, 0.5683]])])
case("scalar_float", [torch.tensor(3.5)])
case("scalar_int", [torch.tensor(-7)])
case("scalar_nan", [torch.tensor(nan)])
case("scalar_float64_tiny", [torch.tensor(1e-7, dtype=f64)])
case("empty_1d", [torch.zeros(0)])
case("empty_0x3", [torch.zeros(0, 3)])
case("empty_int64", [torch.zeros(0, dtype=torch.int64)])
case("empty_float64_2x0", [torch.zeros(2, 0, dtype=f64)])
case("empty_bool_0x2x3", [torch.zeros(0, 2, 3, dtype=torch.bool)])
case("int_mode", [torch.tensor([1.0, 2.0, -3.0, 40.0])])
case("int_mode_sci_range", [torch.tensor([1.0, 100000.0])])
case("int_mode_huge", [torch.tensor([3.0, 1e10])])
case("int_mode_with_nonfinite", [torch.tensor([1.0, nan, 3.0, -inf])])
case("all_zeros", [torch.zeros(2, 2)])
case("only_nonfinite", [torch.tensor([nan, inf, -inf])])
case("sci_small", [torch.tensor([1e-5, 0.5, 2.0])])
case("sci_large", [torch.tensor([1.5e9, -2.25])])
case("sci_float64_wide", [torch.tensor([1e-30, 1e30, -3.5], dtype=f64)])
case("nan_inf_mixed", [torch.tensor([1.5, nan, inf, -inf, -0.25])])
case("negative_zero", [torch.tensor([-0.0, 1.5, 0.0])])
case("negative_zero_int_mode", [torch.tensor([-0.0, 2.0])])
case("width_alignment", [torch.tensor([[-1.5, 100.25], [3.0, 0.125]])])
case("int64_vector", [torch.tensor([-100, 5, 20, 0])])
case("int64_matrix", [torch.tensor([[1, -22], [333, 4]])])
case("bool_vector", [torch.tensor([True, False, True])])
case("bool_matrix", [torch.tensor([[True], [False]])])
case("float64_suffix", [torch.tensor([0.5, 1.25, -2.0], dtype=f64)])
case("float64_int_mode", [torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=f64)])
case("tensor_3d", [wave(2, 3, 4)])
case("tensor_4d", [wave(2, 2, 2, 2, scale=10)])
case("wrap_vector", [wave(30)])
case("wrap_rows", [wave(3, 25, scale=100)])
case("wrap_int64", [torch.arange(-20, 20) * 1234567])
case("summarize_1d", [torch.arange(2000, dtype=f32)])
case("summarize_2d", [wave(40, 30)])
case("summarize_3d", [wave(20, 10, 10, dtype=f64)])
case("summarize_int64", [torch.arange(1200).reshape(40, 30)])
case("summarize_wide_rows", [wave(4, 400, scale=1000)])
case("summarize_transposed", [wave(30, 50)], lambda a: a.t())
case("summarize_sliced_step", [wave(12, 250)], lambda a: a[1:, ::2])
case("requires_grad_leaf", [wave(2, 3).requires_grad_()])
case("requires_grad_float64", [wave(3, dtype=f64).requires_grad_()])
case("grad_fn_mm", [wave(2, 3).requires_grad_(), wave(3, 2).requires_grad_()], lambda a, b: a.mm(b))
case("grad_fn_mul", [wave(4).requires_grad_(), wave(4)], lambda a, b: a * b)
case("grad_fn_tanh", [wave(2, 2, dtype=f64).requires_grad_()], lambda a: a.tanh())
case("grad_fn_scalar_sum", [wave(5).requires_grad_()], lambda a: a.sum(0))
case("grad_fn_suffix_wraps", [wave(10, scale=100).requires_grad_()], lambda a: a * 3)
case("grad_fn_suffix_wraps_f64", [wave(2, 6, dtype=f64).requires_grad_()], lambda a: a + 1)
case("transposed", [wave(3, 4)], lambda a: a.t())
case("sliced_step", [wave(4, 6)], lambda a: a[1:, ::2])
case("precision_2", [wave(2, 3)], options={"precision": 2})
case("precision_8_float64", [wave(3, dtype=f64)], options={"precision": 8})
case("sci_mode_forced", [torch.tensor([1.5, 20.0, -300.0])], options={"sci_mode": True})
case("sci_mode_disabled", [torch.tensor([1e-5, 0.5])], options={"sci_mode": False})
case("linewidth_40", [wave(3, 10)], options={"linewidth": 40})
case("threshold_5_edge_2", [torch.arange(10)], options={"threshold": 5, "edgeitems": 2})
case("threshold_edge_1_matrix", [wave(5, 5)], options={"threshold": 10, "edgeitems": 1})

if __name__ == "__main__":
    # One case per line, so a regenerated fixture diffs case by case.
    lines = [f"{json.dumps(k)}: {json.dumps(v, allow_nan=False)}" for k, v in CASES.items()]
    with open(OUT, "w") as f:
        f.write("{\n" + ",\n".join(lines) + "\n}\n")
    print(f"wrote {len(CASES)} cases to {os.path.normpath(OUT)}")
