#!/usr/bin/env python3
"""Writes tests/fixtures/bf16/bf16.json: PyTorch's bfloat16 conversions, ops and CPU autocast dtypes,
which tests/core/test_bfloat16.cpp checks Ember against.

Run with Debian's torch (1.13): /usr/bin/python3 scripts/gen_bf16_fixtures.py
Values are stored as bit patterns (float32 as uint32, bfloat16 as uint16, float64 as its repr), so
ties, subnormals, infinities and NaN survive JSON exactly. Cases:
  from_float32  float32 bits -> the bfloat16 bits of t.to(torch.bfloat16) (round to nearest even)
  from_float64  doubles -> bfloat16 bits (PyTorch rounds through float32)
  ops           elementwise ops and reductions of bfloat16 tensors -> bfloat16 result bits
  autocast      op -> the dtype of its output under torch.autocast("cpu", dtype=torch.bfloat16)
  print         str() of bfloat16 tensors
"""
import json
import os
import struct

import torch
import torch.nn.functional as F

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "bf16", "bf16.json")


def f32_bits(values):
    return [b & 0xFFFFFFFF for b in torch.tensor(values, dtype=torch.float32).view(torch.int32).reshape(-1).tolist()]


def bf16_bits(t):
    return [b & 0xFFFF for b in t.contiguous().view(torch.int16).reshape(-1).tolist()]


def from_bits32(bits):
    return torch.tensor([b - (1 << 32) if b >= (1 << 31) else b for b in bits], dtype=torch.int32).view(torch.float32)


def main():
    torch.manual_seed(21)
    bits = [
        0x00000000, 0x80000000,  # +-0
        0x3F800000, 0x3F808000, 0x3F818000, 0x3F808001, 0x3F807FFF,  # 1.0, ties to even (down, up), either side
        0xBF808000, 0xBF818000,  # negative ties
        0x00000001, 0x00008000, 0x00018000, 0x00008001, 0x007FFFFF, 0x807FFFFF, 0x00400000,  # subnormals
        0x00800000, 0x007F8000,  # smallest normal; the subnormal that rounds up into it
        0x7F7FFFFF, 0x7F7F8000, 0x7F7F7FFF, 0xFF7FFFFF,  # largest floats: round to inf, tie to inf, stay finite
        0x7F800000, 0xFF800000,  # inf
        0x7FC00000, 0xFFC00000, 0x7F800001, 0x7FFFFFFF, 0x7F80FFFF,  # NaNs (quiet, negative, signalling, payloads)
        0x4B800000, 0x4F000000, 0x5F000000, 0x42C80000, 0x3DCCCCCD,  # 2^24, 2^31, 2^63, 100, 0.1
    ]
    rand = torch.randn(64) * torch.logspace(-20, 20, 64)
    bits += [b & 0xFFFFFFFF for b in rand.view(torch.int32).tolist()]
    from_float32 = {"in": bits, "out": bf16_bits(from_bits32(bits).to(torch.bfloat16))}

    doubles = [1.0 + 2.0**-8, 1.0 + 2.0**-8 + 2.0**-30, 1.0 + 2.0**-9 + 2.0**-40, 3.14159265358979, -2.0**-130,
               1e300, -1e-300, 65504.0, 1.0e10 + 1.0]
    from_float64 = {"in": [repr(d) for d in doubles],
                    "out": bf16_bits(torch.tensor(doubles, dtype=torch.float64).to(torch.bfloat16))}

    a = (torch.randn(3, 37) * 3).to(torch.bfloat16)
    b = (torch.rand(3, 37) + 0.5).to(torch.bfloat16)
    big = (torch.randn(4, 1000) + 1).to(torch.bfloat16)
    ops = {
        "a": bf16_bits(a), "b": bf16_bits(b), "big": bf16_bits(big),
        "add": bf16_bits(a + b), "sub": bf16_bits(a - b), "mul": bf16_bits(a * b), "div": bf16_bits(a / b),
        "add_scalar": bf16_bits(a + 0.3), "mul_scalar": bf16_bits(a * 2.5),
        "neg": bf16_bits(-a), "exp": bf16_bits(a.exp()), "tanh": bf16_bits(a.tanh()), "gelu": bf16_bits(F.gelu(a)),
        "softmax": bf16_bits(a.softmax(-1)),
        "sum_all": bf16_bits(big.sum()), "sum_dim1": bf16_bits(big.sum(1)), "mean_dim1": bf16_bits(big.mean(1)),
        "mean_all": bf16_bits(big.mean()), "max_dim1": bf16_bits(big.amax(1)),
        "to_float32_of_a": f32_bits(a.float().tolist()),
    }

    x = torch.randn(4, 8)
    w = torch.randn(6, 8)
    bias = torch.randn(6)
    t = torch.tensor([1, 2, 3, 4])
    cases = {
        "linear": lambda: F.linear(x, w, bias),
        "matmul": lambda: x @ w.t(),
        "mm": lambda: torch.mm(x, w.t()),
        "bmm": lambda: torch.bmm(x[None], w.t()[None]),
        "addmm": lambda: torch.addmm(bias, x, w.t()),
        "softmax": lambda: torch.softmax(x, -1),
        "log_softmax": lambda: torch.log_softmax(x, -1),
        "layer_norm": lambda: F.layer_norm(x, (8,)),
        "gelu": lambda: F.gelu(x),
        "cross_entropy": lambda: F.cross_entropy(x, t),
        "nll_loss": lambda: F.nll_loss(x, t),
        "mse_loss": lambda: F.mse_loss(x, x * 2),
        "sum": lambda: x.sum(),
        "mean": lambda: x.mean(),
        "add": lambda: x + x,
        "softmax_of_bf16": lambda: torch.softmax(x.bfloat16(), -1),
        "layer_norm_of_bf16": lambda: F.layer_norm(x.bfloat16(), (8,)),
        "gelu_of_bf16": lambda: F.gelu(x.bfloat16()),
        "cross_entropy_of_bf16": lambda: F.cross_entropy(x.bfloat16(), t),
        "nll_loss_of_bf16": lambda: F.nll_loss(x.bfloat16(), t),
        "mse_loss_of_bf16": lambda: F.mse_loss(x.bfloat16(), x.bfloat16()),
        "sum_of_bf16": lambda: x.bfloat16().sum(),
        "add_bf16_float32": lambda: x.bfloat16() + x,
        "linear_of_float64": lambda: F.linear(x.double(), w.double()),
        "conv1d": lambda: F.conv1d(x[None], w.view(6, 4, 2), bias),
        "conv2d": lambda: F.conv2d(x.view(1, 1, 4, 8), w.view(6, 1, 2, 4), bias, padding=1),
        "conv2d_same": lambda: F.conv2d(x.view(1, 1, 4, 8), w.view(6, 1, 2, 4), padding="same"),
        "conv3d": lambda: F.conv3d(x.view(1, 1, 2, 4, 4), w.view(6, 1, 2, 2, 2), bias),
        "conv_transpose1d": lambda: F.conv_transpose1d(x[None], w.view(4, 6, 2), bias, stride=2),
        "conv_transpose2d": lambda: F.conv_transpose2d(x.view(1, 1, 4, 8), w.view(1, 6, 2, 4), bias),
        "conv_transpose3d": lambda: F.conv_transpose3d(x.view(1, 1, 2, 4, 4), w.view(1, 6, 2, 2, 2), bias),
        "conv2d_of_bf16_float32": lambda: F.conv2d(x.view(1, 1, 4, 8).bfloat16(), w.view(6, 1, 2, 4)),
        "conv_transpose1d_of_bf16": lambda: F.conv_transpose1d(x[None].bfloat16(), w.view(4, 6, 2).bfloat16()),
    }
    autocast = {}
    with torch.autocast("cpu", dtype=torch.bfloat16):
        for name, fn in cases.items():
            autocast[name] = str(fn().dtype).replace("torch.", "")

    printed = {
        "vector": {"bits": bf16_bits(torch.tensor([1.0, 2.5, 3.14159, -0.001]).bfloat16())},
        "large": {"bits": bf16_bits(torch.tensor([1e10, 3.0, float("nan"), float("inf")]).bfloat16())},
    }
    for case in printed.values():
        case["text"] = str(torch.tensor(case["bits"], dtype=torch.int32).to(torch.int16).view(torch.bfloat16))

    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump({"torch_version": torch.__version__, "from_float32": from_float32, "from_float64": from_float64,
                   "ops": ops, "autocast": autocast, "print": printed}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
