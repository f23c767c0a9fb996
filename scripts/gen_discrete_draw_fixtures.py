#!/usr/bin/python3
"""Writes tests/fixtures/discrete_draws.json: torch 1.13's seeded poisson and binomial draws and
histogramdd results, for tests/core/test_discrete_draws.cpp.

Run with Debian's python3-torch (1.13):  /usr/bin/python3 scripts/gen_discrete_draw_fixtures.py

Draws are stored as exact values (they are whole numbers); after each draw the next three words of
the generator's stream (torch.rand float64) are stored too, so a test also checks how many words a
draw consumed. One thread, so histogramdd counts in one pass as a single-threaded libtorch does.
"""
import math

import torch

from fixture_common import FIXTURES, encode, f32, f64, wave, write

torch.set_num_threads(1)
DTYPES = {"float32": f32, "float64": f64}

# Rates: 0, tiny, below 10 (product of uniforms), 10 and above (transformed rejection), large.
RATES = [0.0, 1e-30, 1e-6, 0.5, 1.0, 3.7, 9.99, 10.0, 10.5, 25.0, 123.4, 1000.0, 1e6]
COUNTS = [0.0, 1.0, 5.0, 9.0, 20.0, 100.0, 1000.0, 123456.0]
PROBS = [0.0, 1.0, 0.5, 1e-7, 0.05, 0.3, 0.7, 0.95, 0.9999999]


def draw_case(name, seed, fn, inputs, dtype):
    g = torch.Generator().manual_seed(seed)
    out = fn(*inputs, generator=g)
    after = torch.rand(3, generator=g, dtype=f64)
    return {"name": name, "seed": seed, "dtype": dtype, "inputs": [encode(t) for t in inputs],
            "out": encode(out), "after": after.tolist()}


def poisson_cases():
    cases = []
    for dtype, dt in DTYPES.items():
        for seed in [0, 7, 2**32 + 5]:
            rates = torch.tensor(RATES * 3, dtype=dt).reshape(3, len(RATES))
            cases.append(draw_case("grid", seed, torch.poisson, [rates], dtype))
        # A transposed input: drawn in its logical (row-major) order, not memory order.
        rates = torch.tensor(RATES[:12], dtype=dt).reshape(3, 4).t()
        cases.append(draw_case("transposed", 3, torch.poisson, [rates], dtype))
    return cases


def binomial_cases():
    cases = []
    for dtype, dt in DTYPES.items():
        for seed in [0, 11]:
            count = torch.tensor(COUNTS, dtype=dt).reshape(-1, 1).expand(-1, len(PROBS)).contiguous()
            prob = torch.tensor(PROBS, dtype=dt).reshape(1, -1).expand(len(COUNTS), -1).contiguous()
            cases.append(draw_case("grid", seed, torch.binomial, [count, prob], dtype))
        # Broadcast: count (4, 1) against prob (3,) draws a (4, 3) result.
        count = torch.tensor([0.0, 7.0, 50.0, 300.0], dtype=dt).reshape(4, 1)
        prob = torch.tensor([0.2, 0.5, 0.85], dtype=dt)
        cases.append(draw_case("broadcast", 5, torch.binomial, [count, prob], dtype))
        # Whole-number counts only in the fixtures except one: 5.5 trials (libtorch accepts it).
        count = torch.tensor([5.5, 40.25], dtype=dt)
        prob = torch.tensor([0.5, 0.5], dtype=dt)
        cases.append(draw_case("fractional_count", 9, torch.binomial, [count, prob], dtype))
    return cases


def histogramdd_case(name, x, bins, range=None, weight=None, density=False):
    hist, edges = torch.histogramdd(x, bins=bins, range=range, weight=weight, density=density)
    if isinstance(bins, int):
        bins_json = {"int": bins}
    elif all(isinstance(b, int) for b in bins):
        bins_json = {"ints": list(bins)}
    else:
        bins_json = {"tensors": [encode(b) for b in bins]}
    return {"name": name, "input": encode(x), "bins": bins_json, "range": range,
            "weight": None if weight is None else encode(weight), "density": density,
            "hist": encode(hist), "edges": [encode(e) for e in edges]}


def histogramdd_cases():
    cases = []
    for dtype, dt in DTYPES.items():
        x = wave(40, 2, dtype=dt, scale=3.0)
        y = wave(30, 3, dtype=dt, phase=0.4, scale=2.0, shift=1.0)
        w = wave(40, dtype=dt, phase=1.1, scale=0.5, shift=1.0)
        cases += [
            histogramdd_case(dtype + "_int_bins", x, 4),
            histogramdd_case(dtype + "_list_bins", y, [3, 1, 5]),
            histogramdd_case(dtype + "_range", x, [5, 2], range=[-2.0, 2.0, -1.0, 3.5]),
            histogramdd_case(dtype + "_weight_density", x, [3, 4], weight=w, density=True),
            histogramdd_case(dtype + "_density", y, 3, density=True),
            histogramdd_case(dtype + "_tensor_bins", x,
                             [torch.tensor([-3.0, -1.0, 0.0, 0.5, 3.0], dtype=dt),
                              torch.tensor([-1.0, 0.25, 2.0], dtype=dt)], weight=w),
            histogramdd_case(dtype + "_tensor_bins_density", x,
                             [torch.tensor([-2.0, 0.0, 2.5], dtype=dt), torch.tensor([-3.0, 3.0], dtype=dt)],
                             density=True),
            # Every value of a dimension equal: that range widens to [v - 0.5, v + 0.5].
            histogramdd_case(dtype + "_degenerate", torch.tensor([[1.0, 2.0], [1.0, 4.0], [1.0, 3.0]], dtype=dt), 2),
            # The rightmost edge is inclusive; values outside the range are dropped.
            histogramdd_case(dtype + "_edges", torch.tensor([[0.0, 1.0], [1.0, 0.0], [0.5, 0.5], [2.0, 1.0]], dtype=dt),
                             2, range=[0.0, 1.0, 0.0, 1.0]),
            histogramdd_case(dtype + "_empty", torch.empty(0, 2, dtype=dt), [2, 3]),
            histogramdd_case(dtype + "_batched_input", wave(2, 5, 2, dtype=dt), 3,
                             weight=wave(2, 5, dtype=dt, phase=2.0, shift=1.5)),
            histogramdd_case(dtype + "_one_dim", wave(25, 1, dtype=dt, phase=0.2), 6),
            # Many bins: libtorch makes long edge lists a vector register at a time.
            histogramdd_case(dtype + "_many_bins", wave(60, 2, dtype=dt, phase=0.7, scale=5.0), [40, 13]),
            histogramdd_case(dtype + "_many_bins_range", x, [21, 9], range=[-2.5, 3.1, -3.0, 0.7]),
        ]
    return cases


def main():
    write(f"{FIXTURES}/discrete_draws.json", {
        "torch": torch.__version__,
        "poisson": poisson_cases(),
        "binomial": binomial_cases(),
        "histogramdd": histogramdd_cases(),
    })


if __name__ == "__main__":
    main()
