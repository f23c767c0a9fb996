#!/usr/bin/python3
"""Writes tests/fixtures/rng/*.json: the exact bits PyTorch's CPU generator produces.

Run with Debian's python3-torch (1.13, the non-MKL CPU paths):  /usr/bin/python3 scripts/gen_rng_fixtures.py

Each case seeds the default generator, then makes a list of calls; every call's output is stored
bit for bit (float32 as 8 hex digits, float64 as 16, integers as decimal) so that tests compare
exactly. tests/core/test_random.cpp replays the same calls with Ember.
"""
import json
import math
import os
import struct

import torch
import torch.nn.functional as F

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "rng")
SIZES = [1, 7, 15, 16, 17, 33, 1000]
SEEDS = [0, 123, 2**32 + 7]
DTYPES = {"float32": torch.float32, "float64": torch.float64}


def bits(t):
    t = t.detach().contiguous().view(-1)
    if t.dtype == torch.float32:
        return ["%08x" % struct.unpack("<I", struct.pack("<f", v))[0] for v in t.tolist()]
    if t.dtype == torch.float64:
        return ["%016x" % struct.unpack("<Q", struct.pack("<d", v))[0] for v in t.tolist()]
    return [int(v) for v in t.tolist()]


def record(fn, args, shape, dtype, out):
    return {"fn": fn, "args": args, "shape": list(shape), "dtype": dtype,
            "out_dtype": str(out.dtype).replace("torch.", ""), "bits": bits(out)}


def calls_for(dtype_name, n):
    dt = DTYPES[dtype_name]
    calls = []
    calls.append(record("rand", [], [n], dtype_name, torch.rand(n, dtype=dt)))
    calls.append(record("randn", [], [n], dtype_name, torch.randn(n, dtype=dt)))
    calls.append(record("uniform_", [-2.0, 3.0], [n], dtype_name, torch.empty(n, dtype=dt).uniform_(-2.0, 3.0)))
    calls.append(record("normal_", [1.5, 0.5], [n], dtype_name, torch.empty(n, dtype=dt).normal_(1.5, 0.5)))
    calls.append(record("exponential_", [2.0], [n], dtype_name, torch.empty(n, dtype=dt).exponential_(2.0)))
    calls.append(record("bernoulli_", [0.3], [n], dtype_name, torch.empty(n, dtype=dt).bernoulli_(0.3)))
    p = torch.linspace(0, 1, n, dtype=dt)
    calls.append(record("bernoulli_p", [], [n], dtype_name, torch.bernoulli(p)))
    calls.append(record("randint", [-5, 10], [n], "int64", torch.randint(-5, 10, (n,))))
    calls.append(record("randint", [0, 2**40], [n], "int64", torch.randint(0, 2**40, (n,))))
    calls.append(record("randperm", [], [n], "int64", torch.randperm(n)))
    x = torch.ones(n, dtype=dt)
    calls.append(record("dropout", [0.3], [n], dtype_name, F.dropout(x, 0.3, training=True)))
    return calls


def main():
    os.makedirs(OUT, exist_ok=True)
    cases = []
    for seed in SEEDS:
        for dtype_name in DTYPES:
            for n in SIZES:
                torch.manual_seed(seed)
                cases.append({"name": f"seed{seed}_{dtype_name}_{n}", "seed": seed, "calls": calls_for(dtype_name, n)})

    # Shapes that are not 1-d, and views: fills run in memory order.
    torch.manual_seed(5)
    calls = [record("rand", [], [3, 2], "float32", torch.rand(3, 2)),
             record("randn", [], [4, 5], "float32", torch.randn(4, 5)),
             record("randn", [], [2, 3], "float64", torch.randn(2, 3, dtype=torch.float64))]
    t = torch.empty(4, 6).t()
    t.uniform_()
    calls.append(record("uniform_t", [0.0, 1.0], [6, 4], "float32", t))
    cases.append({"name": "shapes_and_views", "seed": 5, "calls": calls})

    # The scalar Box-Muller path caches its second value across calls (and manual_seed clears it).
    torch.manual_seed(9)
    calls = [record("randn", [], [1], "float32", torch.randn(1)) for _ in range(3)]
    calls.append(record("randn", [], [3], "float64", torch.randn(3, dtype=torch.float64)))
    cases.append({"name": "normal_cache", "seed": 9, "calls": calls})

    # multinomial: with replacement (binary search) and without (exponential trick), 1-d and 2-d.
    torch.manual_seed(11)
    probs = torch.tensor([[0.1, 0.2, 0.3, 0.4], [0.5, 0.0, 0.25, 0.25], [1.0, 2.0, 3.0, 4.0]])
    calls = [record("multinomial", [1, False], [3, 4], "float32", torch.multinomial(probs, 1)),
             record("multinomial", [3, False], [3, 4], "float32", torch.multinomial(probs, 3)),
             record("multinomial", [6, True], [3, 4], "float32", torch.multinomial(probs, 6, True)),
             record("multinomial", [5, True], [4], "float64",
                    torch.multinomial(probs[0].double(), 5, True))]
    cases.append({"name": "multinomial", "seed": 11, "calls": calls, "probs": probs.tolist()})

    # The tutorial's example.
    torch.manual_seed(123)
    cases.append({"name": "tutorial_rand", "seed": 123,
                  "calls": [record("rand", [], [3, 2], "float32", torch.rand(3, 2))]})

    with open(os.path.join(OUT, "random.json"), "w") as f:
        json.dump({"torch_version": torch.__version__, "cases": cases}, f)

    # nn.init, in PyTorch's order of draws.
    init_cases = []
    for seed in [0, 42]:
        for shape in [[4, 3], [16, 8], [3, 5, 2]]:
            for name, fn in [
                ("uniform_", lambda w: torch.nn.init.uniform_(w, -0.5, 0.25)),
                ("normal_", lambda w: torch.nn.init.normal_(w, 0.1, 0.02)),
                ("xavier_uniform_", lambda w: torch.nn.init.xavier_uniform_(w, gain=1.5)),
                ("xavier_normal_", lambda w: torch.nn.init.xavier_normal_(w)),
                ("kaiming_uniform_", lambda w: torch.nn.init.kaiming_uniform_(w, a=math.sqrt(5))),
                ("kaiming_uniform_relu_fan_out", lambda w: torch.nn.init.kaiming_uniform_(
                    w, mode="fan_out", nonlinearity="relu")),
                ("kaiming_normal_", lambda w: torch.nn.init.kaiming_normal_(w)),
                ("trunc_normal_", lambda w: torch.nn.init.trunc_normal_(w, 0.0, 1.0, -1.5, 2.0)),
            ]:
                torch.manual_seed(seed)
                w = torch.empty(shape)
                fn(w)
                init_cases.append({"name": name, "seed": seed, "shape": shape, "bits": bits(w),
                                   "values": w.view(-1).tolist()})
    with open(os.path.join(OUT, "init.json"), "w") as f:
        json.dump({"torch_version": torch.__version__, "cases": init_cases}, f)


if __name__ == "__main__":
    main()
