"""PyTorch references for the float16 dtype (torch::kHalf, issue 33), for tests/core/test_half.cpp:
float32 -> float16 rounding as bits (ties, subnormals, overflow, NaN), and ops on float16 tensors,
which PyTorch's CPU kernels compute in float32 and round once. test_half.cpp mirrors each case in
C++ under the same name.

PyTorch 1.13's CPU lacks most float16 kernels ("exp_vml_cpu" not implemented for 'Half'); 2.x has
them, so the op cases need PyTorch 2.x (a venv from PyPI); the conversion cases are the same in both.

    python scripts/gen_half_fixtures.py   # with torch >= 2.1; writes tests/fixtures/core/half.json

The committed fixture was written by PyTorch 2.15.0 (PyPI, in a venv); its conversion cases equal 1.13's.
"""
import os

import torch

from fixture_common import FIXTURES, encode, write

H = torch.float16

# float32 values and what they round to: exact ones, ties to even, the edges of the range.
CONVERSIONS = [
    0.0, -0.0, 1.0, -2.5, 0.1, 3.14159265, 1.0 + 2.0**-11,  # a tie between 1 and 1 + 2^-10: to 1
    1.0 + 3 * 2.0**-11,  # a tie: up to the even 1 + 2^-9
    65504.0, 65519.0, 65520.0, -65520.0, 1e5,  # the largest half; ties to infinity from 65520
    2.0**-14, 2.0**-14 - 2.0**-25,  # the smallest normal; just below, it rounds up to it
    2.0**-24, 2.0**-25, 1.5 * 2.0**-24, 2.0**-26,  # the smallest subnormal; ties and underflow
    float("inf"), float("-inf"), float("nan"), 1234.5678, -0.000123,
]

X = torch.tensor([[1.5, 2.25, -3.0, 0.1], [65504.0, -0.5, 7.75, 1e-3]]).to(H)
Y = torch.tensor([[0.5, 1.0, 2.0, -0.2], [2.0, 3.0, -1.25, 1e-3]]).to(H)
A = torch.tensor([[0.5, -1.25, 2.0], [3.0, 0.75, -0.5]]).to(H)
B = torch.tensor([[1.0, 2.0], [-0.5, 0.25], [4.0, -3.0]]).to(H)

# name -> the expression the C++ table repeats (evaluated only under torch >= 2.1).
CASES = {
    "add": lambda: X + Y,
    "mul_overflows": lambda: X * Y,
    "div": lambda: X / Y,
    "sub_scalar": lambda: X - 1.5,
    "mul_double_scalar": lambda: X * 2.5,
    "neg": lambda: -X,
    "exp": lambda: Y.exp(),
    "tanh": lambda: X.tanh(),
    "sigmoid": lambda: X.sigmoid(),
    "sqrt": lambda: X.abs().sqrt(),
    "pow": lambda: Y.pow(2),
    "relu": lambda: X.relu(),
    "clamp": lambda: X.clamp(-1, 2),
    "sum": lambda: X.sum(),
    "sum_dim": lambda: Y.sum(1),
    "mean": lambda: Y.mean(),
    "max_dim": lambda: X.max(1)[0],
    "argmax": lambda: X.argmax(1),
    "softmax": lambda: Y.softmax(1),
    "log_softmax": lambda: Y.log_softmax(1),
    "matmul": lambda: A @ B,
    "lt": lambda: X < Y,
    "eq_scalar": lambda: X == 1.5,
    "sort": lambda: Y.sort(1)[0],
    "cumsum": lambda: Y.cumsum(1),
    "where": lambda: torch.where(X > 0, X, Y),
    "plus_float32": lambda: X + torch.ones(2, 4),
    "plus_bfloat16": lambda: X + torch.ones(2, 4, dtype=torch.bfloat16),
    "plus_int64": lambda: X + torch.arange(4),
    "int_times_half": lambda: torch.arange(4) * torch.tensor(0.1, dtype=H),
    "to_float32": lambda: X.float(),
    "to_uint8": lambda: Y.abs().mul(10).to(torch.uint8),
    "from_float64": lambda: torch.tensor([0.1, 1e-8, 70000.0, -3.5], dtype=torch.float64).to(H),
    "layer_norm": lambda: torch.nn.functional.layer_norm(Y, (4,)),
}


def main():
    data = {}
    f = torch.tensor(CONVERSIONS, dtype=torch.float32)
    data["convert/input"] = {"output": encode(f)}
    data["convert/bits"] = {"output": encode(f.to(H).view(torch.int16))}
    major, minor = (int(p) for p in torch.__version__.split(".")[:2])
    if (major, minor) >= (2, 1):
        for name, out in CASES.items():
            data[f"op/{name}"] = {"output": encode(out())}
        # Seeded draws: uniform_ is float32's rounded; normal_ too where numel is a multiple of 16.
        torch.manual_seed(0)
        data["random/uniform"] = {"output": encode(torch.empty(6, dtype=H).uniform_())}
        torch.manual_seed(0)
        data["random/normal"] = {"output": encode(torch.empty(32, dtype=H).normal_())}
    else:
        print(f"torch {torch.__version__} lacks float16 CPU kernels: op cases left out (run with torch >= 2.1)")
    os.makedirs(os.path.join(FIXTURES, "core"), exist_ok=True)
    write(os.path.join(FIXTURES, "core", "half.json"), data)


if __name__ == "__main__":
    main()
